# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The HIR (host idle recovery) figures: the timeline, the detail of each wait state, the recovery per wait state
(the model: _hir.py).
"""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import finish_figure, thousands_tick, zero_y
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._hir import COLORS, MINUTES_FROM_S, PC_SEGMENT
try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:  # _plots.available() says so; plots() is not called then
    pass


# Plots


def _unit(span_s: float) -> tuple[float, str]:
    return (60.0, "minutes") if span_s >= MINUTES_FROM_S else (1.0, "seconds")


def _point_style(points: int) -> dict:
    return {"linestyle": "none", "marker": "o", "markersize": 2.2 if points > 400 else 3.5 if points > 60 else 5,
            "alpha": 0.8 if points > 400 else 1.0}


def _pc_line(ax, pc: dict, label: bool = True, behind: bool = False) -> None:
    """The preconditioning's window average as a dashed line; ``behind`` the bars (their labels stay clear of it)."""
    if pc.get("iops") is None:
        return
    state = "steady-state" if pc.get("steady") else "last window (not steady)"
    ax.axhline(pc["iops"], color=COLORS["pc"], linestyle="--", linewidth=1.4, zorder=0.5 if behind else 3,
               label=f"preconditioning {state} average {pc['iops']:,.0f} IOPS" if label else None)


def _log_line(ax, log: dict | None, scale: float, offset_s: float, label: str | None) -> list[float]:
    """A round's iops log as fio wrote it (its threads added up): one thin line, a point per logging interval."""
    if not log:
        return []
    xs, ys, last = [], [], None
    for time_ms, value in log["series"]:
        if last is not None and time_ms - last > log["interval_ms"] * _interval.GAP_SHARE:
            # No line over an idle period: fio logged nothing there.
            xs.append(float("nan"))
            ys.append(float("nan"))
        xs.append((log["start_s"] + (time_ms - log["start_unix_ms"]) / 1000.0 - offset_s) / scale)
        ys.append(value)
        last = time_ms
    ax.plot(xs, ys, color="#424242", linewidth=0.6, alpha=0.55, zorder=3, label=label)
    return [v for dummy, v in log["series"]]


def _spans_and_points(ax, states: list[dict], scale: float, offset_s: float, labels: bool,
                      series: dict | None = None) -> list[float]:
    """Each wait state's bursts and baseline: shaded spans, fio's iops log as a line and one point per burst (fio's
    section) or baseline sample; returns the values."""
    values = []
    legend = set()
    logged = False
    for entry in states:
        for phase in ("bursts", "baseline"):
            log = ((series or {}).get(str(entry["wait_state"])) or {}).get(phase)
            if log and entry.get(phase):
                label = None if logged else f"fio's iops log ({log['interval_ms']:g} ms lines)"
                values += _log_line(ax, log, scale, offset_s, label)
                logged = True
    for entry in states:
        for phase, shade in (("bursts", "ws_span"), ("baseline", "base_span")):
            part = entry.get(phase)
            if not part:
                continue
            first = phase not in legend
            legend.add(phase)
            left, right = (part["start_s"] - offset_s) / scale, (part["end_s"] - offset_s) / scale
            ax.axvspan(left, right, color=COLORS[shade], alpha=0.35 if phase == "bursts" else 0.3, zorder=0, lw=0,
                       label=("wait state (bursts and idle)" if phase == "bursts" else "return to baseline")
                       if first and labels else None)
            if phase == "bursts" and labels:
                ax.text((left + right) / 2, 0.985, entry["label"], transform=ax.get_xaxis_transform(), ha="center",
                        va="top", fontsize=9, fontweight="bold", color="#6d4c00")
            xs = [(t - offset_s) / scale for t in part["t_s"]]
            unit = part.get("unit") or ("burst" if phase == "bursts" else "section")
            ax.plot(xs, part["iops"], color=COLORS[phase], zorder=4, **_point_style(len(xs)),
                    label=(("burst: fio's IOPS of the burst, at its start" if part.get("log") else
                            "burst (one fio section)") if phase == "bursts" else
                           "baseline sample: fio's IOPS between two status dumps"
                           if part.get("log") or unit == "status sample" else
                           "baseline section (continuous write)") if first else None)
            late = [(x, b["iops"]) for x, b in zip(xs, part.get("per_burst") or []) if b.get("late")]
            if late:
                ax.plot([x for x, dummy in late], [v for dummy, v in late], linestyle="none", marker="o",
                        markersize=11, markerfacecolor="none", markeredgecolor="#000000", markeredgewidth=1.3,
                        zorder=5, label=None if "late" in legend else "late burst: schedule not held")
                legend.add("late")
            values += part["iops"]
    return values


def timeline(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """IOPS against time: every burst and baseline section as a point, wait states and baselines shaded."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    end = max(p["end_s"] for s in states for p in (s.get("bursts"), s.get("baseline")) if p)
    scale, unit = _unit(end)
    fig, ax = plt.subplots(figsize=(_plots.WIDTH, 6.0), layout="constrained")
    values = _spans_and_points(ax, states, scale, 0.0, labels=True, series=result.get("_series"))
    _pc_line(ax, result["precondition"])
    zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.08)  # room for the WS labels above the points
    ax.set_xlim(min(0.0, ax.get_xlim()[0]), end / scale * 1.02)
    ax.set_xlabel(f"Time from the first wait state's start ({unit})")
    ax.set_ylabel("IOPS (4k random write)")
    ax.grid(True, alpha=0.3)
    # Points before their spans: burst, wait state, baseline section, return to baseline, the preconditioning line.
    order = ("fio's iops log", "burst", "late burst", "wait state", "baseline s", "return to baseline",
             "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    # Below the plot, in columns (the layout keeps it clear of the axis label and the footer): beside it, the
    # legend's long lines took half the page's width from the timeline.
    ax.legend([h for h, dummy in pairs], [label for dummy, label in pairs], loc="upper center",
              bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=8.5)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def detail(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """One panel per wait state: its bursts and its return to baseline against time from its own start."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    spans = [max(p["end_s"] for p in (s.get("bursts"), s.get("baseline")) if p) -
             min(p["start_s"] for p in (s.get("bursts"), s.get("baseline")) if p) for s in states]
    scale, unit = _unit(max(spans))
    fig, axes = plt.subplots(len(states), 1, figsize=(_plots.WIDTH, 1.2 + 1.55 * len(states)), layout="constrained",
                             sharey=True, squeeze=False)
    values = []
    for ax, entry in zip(axes[:, 0], states):
        start = min(p["start_s"] for p in (entry.get("bursts"), entry.get("baseline")) if p)
        values += _spans_and_points(ax, [entry], scale, start, labels=False, series=result.get("_series"))
        _pc_line(ax, result["precondition"], label=False)
        words = f"{entry['label']}: {entry['bursts']['count']} bursts, {entry['idle_s']:g} s idle between" \
            if entry.get("bursts") and entry.get("idle_s") is not None else entry["label"]
        if entry.get("baseline"):
            words += f"; return to baseline, {md.plural(entry['baseline']['count'], entry['baseline'].get('unit') or 'section')}"
        ax.set_title(words, fontsize=9.5, loc="left")
        ax.grid(True, alpha=0.3)
        ax.set_ylabel("IOPS")
    for ax in axes[:, 0]:
        zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    axes[-1, 0].set_xlabel(f"Time from the wait state's start ({unit})")
    handles = [plt.Line2D([], [], color=COLORS["bursts"], **_point_style(0)),
               plt.Line2D([], [], color=COLORS["baseline"], **_point_style(0)),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["ws_span"], alpha=0.5),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["base_span"], alpha=0.45)]
    unit = next((s["baseline"].get("unit") for s in states if s.get("baseline")), "section") or "section"
    labels = ["burst", f"baseline {unit}", "wait state", "return to baseline"]
    if any((s.get("bursts") or {}).get("log") for s in states):
        labels[:2] = ["burst: fio's IOPS of the burst", "baseline sample: fio's IOPS between two status dumps"]
    if any((s.get("bursts") or {}).get("schedule", {}).get("late") for s in states):
        handles.append(plt.Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="none",
                                  markeredgecolor="#000000"))
        labels.append("late burst: schedule not held")
    if result.get("_series"):
        handles.insert(0, plt.Line2D([], [], color="#424242", linewidth=0.6, alpha=0.55))
        labels.insert(0, "fio's iops log")
    if result["precondition"].get("iops") is not None:
        handles.append(plt.Line2D([], [], color=COLORS["pc"], linestyle="--"))
        labels.append("preconditioning window average")
    axes[0, 0].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def recovery(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """Per wait state: mean burst IOPS (whisker min-max) beside the following baseline's mean, the
    preconditioning's window average as a line, and each gain printed above its bursts."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    fig, ax = plt.subplots(figsize=(min(_plots.WIDTH, max(8.0, 1.6 * len(states) + 3.0)), 5.6), layout="constrained")
    width = 0.38
    xs = list(range(len(states)))
    burst = [(s.get("bursts") or {}) for s in states]
    base = [(s.get("baseline") or {}) for s in states]
    heights = [b.get("mean") or 0.0 for b in burst]
    low = [max(0.0, h - b["min"]) if b.get("min") is not None else 0.0 for h, b in zip(heights, burst)]
    high = [max(0.0, b["max"] - h) if b.get("max") is not None else 0.0 for h, b in zip(heights, burst)]
    ax.bar([x - width / 2 for x in xs], heights, width, color=COLORS["bursts"], yerr=[low, high], capsize=4,
           error_kw={"ecolor": "#424242", "elinewidth": 1}, label="bursts: mean IOPS (whisker: min – max)")
    ax.bar([x + width / 2 for x in xs], [b.get("mean") or 0.0 for b in base], width, color=COLORS["baseline"],
           label="return to baseline: mean IOPS")
    _pc_line(ax, result["precondition"], behind=True)
    tops = [b.get("max") or 0.0 for b in burst] + [b.get("mean") or 0.0 for b in base]
    zero_y(ax, [t * 1.1 for t in tops] + [result["precondition"].get("iops") or 0.0])
    floor = 0.25 * ax.get_ylim()[1]
    for x, entry, b, a in zip(xs, states, burst, base):
        # Each bar's mean up its foot (whiskers and the average line cross the bars' tops), the gain above the bursts.
        for centre, figures in ((x - width / 2, b), (x + width / 2, a)):
            if figures.get("mean") is None:
                continue
            inside = figures["mean"] >= floor
            # Above a short bar the label gets a white ground: the preconditioning's line must not run through it.
            ax.annotate(f"{figures['mean']:,.0f}", (centre, 0 if inside else figures["mean"]), xytext=(0, 5),
                        textcoords="offset points", ha="center", va="bottom", rotation=90, fontsize=8.5,
                        color="white" if inside else "black", fontweight="bold" if inside else "normal", zorder=5,
                        bbox=None if inside else {"boxstyle": "square,pad=0.1", "facecolor": "white",
                                                  "edgecolor": "none"})
        if entry.get("bursts") and a.get("mean") is None:
            ax.annotate("no return to baseline", (x + width / 2, 0), xytext=(0, 5), textcoords="offset points",
                        ha="center", va="bottom", rotation=90, fontsize=8.5, color="#616161")
        if entry.get("gain") is not None:
            ax.annotate(f"gain n/r (×{entry['gain']:.2f}):\nschedule not held" if entry.get("not_valid") else
                        f"gain ×{entry['gain']:.2f}", (x - width / 2, b.get("max") or b["mean"]), xytext=(0, 4),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8.5, zorder=6,
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    ax.set_xticks(xs, [f"{s['label']}\n{s['idle_s']:g} s idle" if s.get("idle_s") is not None else s["label"]
                       for s in states])
    ax.set_xlabel("Wait state (idle time between bursts)")
    ax.set_ylabel("IOPS (4k random write)")
    ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    order = ("bursts", "return to baseline", "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    handles = [h for h, dummy in pairs] + [plt.Line2D([], [], linestyle="none")]
    labels = [label for dummy, label in pairs] + ["gain = mean burst IOPS ÷ preconditioning average"]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    drawn = {}
    pc = result["precondition"]

    def path(key):
        return os.path.join(plot_dir, f"hir-{key}.png")

    if pc.get("dv"):
        dv = pc["dv"]
        drawn["convergence"] = _charts.convergence(
            path("pc-convergence"), f"{prefix} — HIR preconditioning convergence, 4k random write (0/100)",
            "IOPS (write)", {"": {"4k": dv["values"]}}, highlight="4k", window_rounds=pc["window_rounds"],
            legend_title="Block size", subtitle=subtitle, marks=_plots.segment_marks(PC_SEGMENT),
            verdicts={"": ((f"DV STEADY from round {pc['steady_round']}", True) if pc["steady"] else
                           (f"DV NOT STEADY in {pc['rounds_run']} rounds", False))}, times=pc.get("round_end_s"))
        drawn["verification"] = _charts.verification(
            path("pc-verification"), f"{prefix} — HIR preconditioning steady-state verification, DV {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if any(s.get("bursts") or s.get("baseline") for s in result["wait_states"]):
        drawn["timeline"] = timeline(path("timeline"), f"{prefix} — HIR IOPS against time, all wait states with "
                                                       "their returns to baseline", result, subtitle)
        drawn["detail"] = detail(path("wait-states"), f"{prefix} — HIR per wait state: bursts, then the return to "
                                                      "baseline", result, subtitle)
        drawn["recovery"] = recovery(path("recovery"), f"{prefix} — HIR recovery per wait state", result, subtitle)
    return drawn
