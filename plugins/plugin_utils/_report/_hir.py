# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Host Idle Recovery (SNIA PTS 2.0 HIR): result from its round files, plots, report section.

The run (module_utils/_pts/_pts2.py ``_hir``): a purge; segment ``precondition``, 4k random write rounds of one fio
section each (``hir-pc``) to steady state; then per wait state N a segment ``wsN`` of two rounds: the bursts (row
phase "bursts": sections ``hir-wsN-burst-NNNN``, each a burst long and started on a fixed schedule from fio's start)
and the return to baseline (row phase "baseline": sections ``hir-wsN-base-NNNN`` back to back)."""

from __future__ import annotations

import datetime
import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts2 import HIR_BLOCK_SIZE, SECTION_S
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import _finish, _thousands, _zero_y

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:  # _plots.available() says so; plots() is not called then
    pass

PC_SEGMENT = "precondition"
# The preconditioning's tracking variable, as the segment plan names it (_pts2._hir).
PC_DV = {"name": "4k 0/100 IOPS", "job": "hir-pc", "mix": 0, "bs": HIR_BLOCK_SIZE, "metric": "iops"}
PHASES = ("bursts", "baseline")
_WS_RE = re.compile(r"^ws(\d+)$")
_SECTION_RE = re.compile(r"-(?:burst|base)-(\d+)$")
# fio time values: a number with an optional unit; a bare number is seconds for startdelay.
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", re.I)
_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6, "m": 60.0,
          "min": 60.0, "h": 3600.0}
# The IOPS-against-time axis is in minutes, or in seconds when the whole span is shorter than this.
MINUTES_FROM_S = 120.0
COLORS = {"bursts": "#c62828", "baseline": "#1565c0", "pc": "#2e7d32", "ws_span": "#ffcc80", "base_span": "#90caf9"}
SOURCES = [
    "Sources: the PTS 2.0.2 procedure text of this test was not available; the test follows CloudHarmony's "
    "implementation of it for PTS-E 1.1 and ADATA's port of that to PTS 2.0, with these choices:",
    "",
    "- *Preconditioning round*: one fio section per round, and the tracking variable is that round's IOPS. "
    "CloudHarmony and ADATA run 30 one-minute runs per round and track the last minute; the spec's round layout "
    "is not confirmed.",
    "- *Bursts*: each burst is its own fio section started on a fixed schedule counted from fio's start (fio "
    "`startdelay` = burst number × (burst + idle)), so the schedule does not drift over hundreds of bursts. The idle "
    f"time between two bursts is the wait state's less fio's floor of about {SECTION_S:g} s per section.",
    "- *Return to baseline*: writes as sections back to back (ADATA runs 5-s sections; CloudHarmony sleeps between "
    "them, which is not continuous). The sections are pts_run_hir_baseline_sample_seconds long (60 s), so fio's "
    f"floor of about {SECTION_S:g} s between two sections leaves the drive idle for well under 1 % of the baseline.",
    "- *Recovery per wait state*: how the PTS compares a wait state with the baseline is not confirmed. This report's "
    "**gain** is the mean burst IOPS divided by the preconditioning's steady-state window average; the mean burst "
    "IOPS divided by the following return to baseline's mean is shown beside it.",
    "",
]


def _fio_seconds(value: object) -> float | None:
    """A fio time option (``1000ms``, ``2.5s``, ``3``) in seconds; None when absent or not understood."""
    if value is None:
        return None
    found = _DURATION_RE.match(str(value))
    if not found or found.group(2).lower() not in _UNITS:
        return None
    return float(found.group(1)) * _UNITS[found.group(2).lower()]


def _parse_time(text: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _stats(values: list[float]) -> dict:
    if not values:
        return {"count": 0, "mean": None, "min": None, "max": None}
    return {"count": len(values), "mean": _tests.mean(values), "min": min(values), "max": max(values)}


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return top / bottom if top is not None and bottom else None


def _section_number(name: str, index: int) -> int:
    found = _SECTION_RE.search(name or "")
    return int(found.group(1)) if found else index + 1


def _phase(rnd: dict) -> str | None:
    """Which of a wait state's rounds this is: its row says so (round 1 bursts, round 2 baseline without one)."""
    phase = (rnd.get("row") or {}).get("phase")
    if phase in PHASES:
        return phase
    return {1: "bursts", 2: "baseline"}.get(int(rnd.get("round") or 0))


def _precondition(segment: dict, settings: dict) -> dict:
    rounds = segment["rounds"]
    pc_settings = _tests.settings_of(rounds) or settings
    window, max_rounds, dummy, dummy2 = _tests.limits(pc_settings)
    seconds = (pc_settings.get("parameters") or {}).get("precondition_seconds")
    if not rounds:
        return {"rounds_run": 0, "status": "failed" if segment.get("failure") else "no rounds", "steady": False,
                "steady_round": None, "dv": None, "window_rounds": [], "iops": None, "window": window,
                "max_rounds": max_rounds, "seconds": seconds, "round_files": [], "fio_s": None,
                "live_verdict_mismatch": []}
    _tests.check_consecutive(rounds)
    dv = _tests.dv_series(rounds, PC_DV)
    verdict = dv["window"] or {}
    return {
        "rounds_run": len(rounds),
        "status": _tests.status(dv["steady"], len(rounds), max_rounds, segment.get("failure")),
        "steady": dv["steady"],
        "steady_round": dv["steady_round"],
        "dv": dv,
        "window_rounds": [int(r) for r in verdict.get("rounds") or []] if verdict.get("average") is not None else [],
        # The window average: the steady-state figure, or the last window's when the round limit was reached.
        "iops": verdict.get("average"),
        "window": window,
        "max_rounds": max_rounds,
        "seconds": seconds,
        "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
        "fio_s": sum(float((r.get("fio") or {}).get("elapsed_s") or 0.0) for r in rounds),
        "live_verdict_mismatch": _tests.live_mismatch(segment, [dv]),
        "round_end_s": _tests.round_times(rounds),
    }


def _round_phase(rnd: dict, phase: str, state: int, start_s: float | None, prev_end_s: float | None) -> dict:
    """One wait-state round: every section's IOPS at its time (seconds on the test's time axis), its span and
    stats; ``start_s`` is the round's start on that axis (None without a recorded_at: right after ``prev_end_s``).

    A round starts at recorded_at - fio's wall time (elapsed_s). Within it a burst sits at its scheduled start (its
    startdelay, or the plan's i x (burst + idle)); baseline sections one after another, each after the run time of
    those before it and an equal share of the time fio spent outside the sections (its floor per section)."""
    settings = rnd.get("settings") or {}
    burst_s = float(settings.get("round_seconds") or 0.0)
    jobs = (rnd.get("fio") or {}).get("jobs") or []
    elapsed = (rnd.get("fio") or {}).get("elapsed_s")
    runtimes = [float(j.get("runtime_ms") or 0) / 1000.0 for j in jobs]
    if start_s is None:
        start_s = prev_end_s or 0.0
    offsets = []
    if phase == "bursts":
        period = burst_s * (1 + state)
        for index, job in enumerate(jobs):
            delay = _fio_seconds((job.get("options") or {}).get("startdelay"))
            offsets.append(delay if delay is not None else (_section_number(job.get("name"), index) - 1) * period)
    else:
        gap = SECTION_S
        if elapsed and jobs:
            gap = max(0.0, float(elapsed) - sum(runtimes)) / len(jobs)
        done = 0.0
        for runtime in runtimes:
            offsets.append(done)
            done += runtime + gap
    iops = [float(j["total"]["iops"]) for j in jobs]
    times = [round(start_s + offset, 3) for offset in offsets]
    end_s = start_s + float(elapsed) if elapsed else (max((t + r for t, r in zip(times, runtimes)), default=start_s))
    return dict(_stats(iops), round=int(rnd["round"]), label=(rnd.get("row") or {}).get("label") or "",
                start_s=start_s, end_s=end_s, fio_s=float(elapsed) if elapsed else None,
                seconds=sum(runtimes), t_s=times, iops=iops,
                burst_s=burst_s)


def _round_start(rnd: dict) -> datetime.datetime | None:
    landed = _parse_time(rnd.get("recorded_at"))
    elapsed = (rnd.get("fio") or {}).get("elapsed_s")
    if landed is None:
        return None
    return landed - datetime.timedelta(seconds=float(elapsed or 0.0))


def _wait_states(test: dict, planned: list[int], pc_iops: float | None, settings: dict) -> tuple[list[dict], str | None]:
    """Every wait state planned (and any other found on disk), in the plan's order, with its rounds on one time
    axis: seconds from the first wait-state round's start."""
    found = sorted(int(m.group(1)) for name in test["segments"] if (m := _WS_RE.match(name)))
    states = list(planned) + [s for s in found if s not in planned]
    rounds_of = {}
    starts = []
    for state in states:
        segment = test["segments"].get(f"ws{state}") or {"rounds": []}
        if segment["rounds"]:
            _tests.check_consecutive(segment["rounds"])
        rounds_of[state] = segment["rounds"]
        starts += [s for s in (_round_start(r) for r in segment["rounds"]) if s is not None]
    t0 = min(starts) if starts else None
    out = []
    prev_end = None
    for state in states:
        entry = {"wait_state": state, "label": f"WS{state}", "planned": state in planned,
                 "burst_s": float(settings.get("round_seconds") or 0.0) or None, "bursts": None, "baseline": None,
                 "round_files": [f"round-{int(r['round']):02d}" for r in rounds_of[state]]}
        for rnd in rounds_of[state]:
            phase = _phase(rnd)
            if phase is None or entry[phase] is not None:
                continue
            begin = _round_start(rnd)
            start_s = (begin - t0).total_seconds() if begin is not None and t0 is not None else None
            entry[phase] = _round_phase(rnd, phase, state, start_s, prev_end)
            prev_end = entry[phase]["end_s"]
            entry["burst_s"] = entry[phase]["burst_s"] or entry["burst_s"]
        entry["idle_s"] = entry["burst_s"] * state if entry["burst_s"] else None
        entry["complete"] = entry["bursts"] is not None and entry["baseline"] is not None
        burst_mean = (entry["bursts"] or {}).get("mean")
        entry["gain"] = _ratio(burst_mean, pc_iops)
        entry["burst_over_baseline"] = _ratio(burst_mean, (entry["baseline"] or {}).get("mean"))
        out.append(entry)
    return out, t0.isoformat() if t0 is not None else None


def _status(result: dict, pc: dict, states: list[dict]) -> str:
    if not result["rounds_run"]:
        return "failed" if result["failure"] else "no rounds"
    if result["failure"]:
        return "failed"
    if any(not s["complete"] for s in states if s["planned"]) or not states:
        return "incomplete"
    if not pc["steady"]:
        return "not steady" if pc["rounds_run"] >= pc["max_rounds"] else "incomplete"
    return "steady"


def _steady_text(pc: dict, states: list[dict]) -> str:
    run = sum(1 for s in states if s["complete"])
    if pc["steady"]:
        head = f"preconditioning steady at round {pc['steady_round']}"
    elif pc["rounds_run"] >= pc["max_rounds"]:
        head = f"preconditioning not steady in {pc['rounds_run']} rounds (limit {pc['max_rounds']})"
    else:
        head = f"preconditioning not steady after {pc['rounds_run']} round(s)"
    return f"{head}; {md.plural(run, 'wait state')} run"


def build(test: dict) -> dict:
    segments = test["segments"]
    pc_segment = segments.get(PC_SEGMENT) or {"rounds": [], "failure": None}
    names = [n for n in segments if _WS_RE.match(n)]
    ordered = ([segments[""]] if "" in segments else []) + [pc_segment] + [segments[n] for n in names]
    result = _tests.common(test, ordered)
    settings = result["settings"]
    parameters = settings.get("parameters") or {}
    planned = [int(s) for s in parameters.get("wait_states") or []] or \
        sorted(int(_WS_RE.match(n).group(1)) for n in names)
    pc = _precondition(pc_segment, settings)
    states, t0 = _wait_states(test, planned, pc["iops"], settings)
    result["rounds_run"] = pc["rounds_run"] + sum(len(segments.get(f"ws{s['wait_state']}", {}).get("rounds") or [])
                                                  for s in states)
    status = _status(result, pc, states)
    result.update(
        status=status,
        steady=pc["steady"],
        steady_round=pc["steady_round"],
        steady_text=_steady_text(pc, states),
        not_steady_text=None if pc["steady"] else
        f"not reached by the preconditioning in {pc['rounds_run']} rounds (limit {pc['max_rounds']})",
        precondition=pc,
        wait_states=states,
        planned_wait_states=planned,
        timeline_start=t0,
        parameters={"wait_states": planned, "burst_seconds": settings.get("round_seconds"),
                    "repetitions": parameters.get("repetitions"), "baseline_seconds": parameters.get("baseline_seconds"),
                    "precondition_seconds": parameters.get("precondition_seconds")},
        headline={"pc_iops": pc["iops"], "gain": {str(s["wait_state"]): s["gain"] for s in states}},
        live_verdict_mismatch=pc["live_verdict_mismatch"],
    )
    return result


# Plots


def _unit(span_s: float) -> tuple[float, str]:
    return (60.0, "minutes") if span_s >= MINUTES_FROM_S else (1.0, "seconds")


def _point_style(points: int) -> dict:
    return {"linestyle": "none", "marker": "o", "markersize": 2.2 if points > 400 else 3.5 if points > 60 else 5,
            "alpha": 0.8 if points > 400 else 1.0}


def _pc_line(ax, pc: dict, label: bool = True) -> None:
    if pc.get("iops") is None:
        return
    state = "steady-state" if pc.get("steady") else "last window (not steady)"
    ax.axhline(pc["iops"], color=COLORS["pc"], linestyle="--", linewidth=1.4, zorder=3,
               label=f"preconditioning {state} average {pc['iops']:,.0f} IOPS" if label else None)


def _spans_and_points(ax, states: list[dict], scale: float, offset_s: float, labels: bool) -> list[float]:
    """Each wait state's bursts and baseline: shaded spans and one point per fio section; returns the values."""
    values = []
    legend = set()
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
            ax.plot(xs, part["iops"], color=COLORS[phase], zorder=4, **_point_style(len(xs)),
                    label=("burst (one fio section)" if phase == "bursts" else "baseline section (continuous write)")
                    if first else None)
            values += part["iops"]
    return values


def timeline(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """IOPS against time: every burst and baseline section as a point, wait states and baselines shaded."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    end = max(p["end_s"] for s in states for p in (s.get("bursts"), s.get("baseline")) if p)
    scale, unit = _unit(end)
    fig, ax = plt.subplots(figsize=(_plots.WIDTH, 5.4), layout="constrained")
    values = _spans_and_points(ax, states, scale, 0.0, labels=True)
    _pc_line(ax, result["precondition"])
    _zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.08)  # room for the WS labels above the points
    ax.set_xlim(min(0.0, ax.get_xlim()[0]), end / scale * 1.01)
    ax.set_xlabel(f"Time from the first wait state's start ({unit})")
    ax.set_ylabel("IOPS (4k random write)")
    ax.grid(True, alpha=0.3)
    # Points before their spans: burst, wait state, baseline section, return to baseline, the preconditioning line.
    order = ("burst", "wait state", "baseline section", "return to baseline", "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    ax.legend([h for h, dummy in pairs], [label for dummy, label in pairs], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def detail(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """One panel per wait state: its bursts and its return to baseline against time from its own start."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    spans = [max(p["end_s"] for p in (s.get("bursts"), s.get("baseline")) if p) -
             min(p["start_s"] for p in (s.get("bursts"), s.get("baseline")) if p) for s in states]
    scale, unit = _unit(max(spans))
    fig, axes = plt.subplots(len(states), 1, figsize=(_plots.WIDTH, 1.0 + 2.1 * len(states)), layout="constrained",
                             sharey=True, squeeze=False)
    values = []
    for ax, entry in zip(axes[:, 0], states):
        start = min(p["start_s"] for p in (entry.get("bursts"), entry.get("baseline")) if p)
        values += _spans_and_points(ax, [entry], scale, start, labels=False)
        _pc_line(ax, result["precondition"], label=False)
        words = f"{entry['label']}: {entry['bursts']['count']} bursts, {entry['idle_s']:g} s idle between" \
            if entry.get("bursts") and entry.get("idle_s") is not None else entry["label"]
        if entry.get("baseline"):
            words += f"; return to baseline, {entry['baseline']['count']} sections"
        ax.set_title(words, fontsize=9.5, loc="left")
        ax.grid(True, alpha=0.3)
        ax.set_ylabel("IOPS")
    for ax in axes[:, 0]:
        _zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    axes[-1, 0].set_xlabel(f"Time from the wait state's start ({unit})")
    handles = [plt.Line2D([], [], color=COLORS["bursts"], **_point_style(0)),
               plt.Line2D([], [], color=COLORS["baseline"], **_point_style(0)),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["ws_span"], alpha=0.5),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["base_span"], alpha=0.45)]
    labels = ["burst", "baseline section", "wait state", "return to baseline"]
    if result["precondition"].get("iops") is not None:
        handles.append(plt.Line2D([], [], color=COLORS["pc"], linestyle="--"))
        labels.append("preconditioning window average")
    axes[0, 0].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


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
    _pc_line(ax, result["precondition"])
    tops = [b.get("max") or 0.0 for b in burst] + [b.get("mean") or 0.0 for b in base]
    _zero_y(ax, [t * 1.1 for t in tops] + [result["precondition"].get("iops") or 0.0])
    floor = 0.25 * ax.get_ylim()[1]
    for x, entry, b, a in zip(xs, states, burst, base):
        # Each bar's mean up its foot (whiskers and the average line cross the bars' tops), the gain above the bursts.
        for centre, figures in ((x - width / 2, b), (x + width / 2, a)):
            if figures.get("mean") is None:
                continue
            inside = figures["mean"] >= floor
            ax.annotate(f"{figures['mean']:,.0f}", (centre, 0 if inside else figures["mean"]), xytext=(0, 5),
                        textcoords="offset points", ha="center", va="bottom", rotation=90, fontsize=8.5,
                        color="white" if inside else "black", fontweight="bold" if inside else "normal", zorder=5)
        if entry.get("bursts") and a.get("mean") is None:
            ax.annotate("no return to baseline", (x + width / 2, 0), xytext=(0, 5), textcoords="offset points",
                        ha="center", va="bottom", rotation=90, fontsize=8.5, color="#616161")
        if entry.get("gain") is not None:
            ax.annotate(f"gain ×{entry['gain']:.2f}", (x - width / 2, b.get("max") or b["mean"]), xytext=(0, 4),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8.5, zorder=6,
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    ax.set_xticks(xs, [f"{s['label']}\n{s['idle_s']:g} s idle" if s.get("idle_s") is not None else s["label"]
                       for s in states])
    ax.set_xlabel("Wait state (idle time between bursts)")
    ax.set_ylabel("IOPS (4k random write)")
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    order = ("bursts", "return to baseline", "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    handles = [h for h, dummy in pairs] + [plt.Line2D([], [], linestyle="none")]
    labels = [label for dummy, label in pairs] + ["gain = mean burst IOPS ÷ preconditioning average"]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    drawn = {}
    pc = result["precondition"]

    def path(key):
        return os.path.join(plot_dir, f"hir-{key}.png")

    if pc.get("dv"):
        dv = pc["dv"]
        drawn["convergence"] = _plots.convergence(
            path("pc-convergence"), f"{prefix} — HIR preconditioning convergence, 4k random write (0/100)",
            "IOPS (write)", {"": {"4k": dv["values"]}}, highlight="4k", window_rounds=pc["window_rounds"],
            legend_title="Block size", subtitle=subtitle, marks=_plots.segment_marks(PC_SEGMENT),
            verdicts={"": ((f"DV STEADY from round {pc['steady_round']}", True) if pc["steady"] else
                           (f"DV NOT STEADY in {pc['rounds_run']} rounds", False))}, times=pc.get("round_end_s"))
        drawn["verification"] = _plots.verification(
            path("pc-verification"), f"{prefix} — HIR preconditioning steady-state verification, DV {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if any(s.get("bursts") or s.get("baseline") for s in result["wait_states"]):
        drawn["timeline"] = timeline(path("timeline"), f"{prefix} — HIR IOPS against time, all wait states with "
                                                       "their returns to baseline", result, subtitle)
        drawn["detail"] = detail(path("wait-states"), f"{prefix} — HIR per wait state: bursts, then the return to "
                                                      "baseline", result, subtitle)
        drawn["recovery"] = recovery(path("recovery"), f"{prefix} — HIR recovery per wait state", result, subtitle)
    return drawn


# Report section


def _pseudo_code(result: dict) -> list[str]:
    params = result["parameters"]
    pc = result["precondition"]
    burst = params.get("burst_seconds")
    base_s = params.get("baseline_seconds")
    count = max(1, int(round(base_s / burst))) if burst and base_s else None
    states = ", ".join(str(s) for s in result["planned_wait_states"])
    reps = params.get("repetitions")
    return [
        "```",
        "Purge (no workload-independent preconditioning)",
        f"While not steady state and round < {pc['max_rounds']}:",
        f"  4k random write (0/100) for {_secs(pc.get('seconds'))} s "
        "(one fio section; its IOPS the round's DV)",
        f"For wait state N in [{states}]:",
        f"  Round 1: {reps} x ({burst:g} s of 4k random write, then N x {burst:g} s idle);"
        if burst else f"  Round 1: {reps} bursts of 4k random write with N x the burst idle between them;",
        f"           burst i starts at i x (N + 1) x {burst:g} s from fio's start" if burst else
        "           burst i starts at i x (N + 1) x the burst from fio's start",
        f"  Round 2: return to baseline, {_secs(base_s)} s of continuous 4k random write"
        + (f" ({count} sections of {base_s / count:g} s back to back)" if count else ""),
        "```",
        "",
    ]


def _secs(value: float | None) -> str:
    return f"{float(value):g}" if value else "?"


def _oio(settings: dict) -> str:
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    if not numjobs or not iodepth:
        return ""
    return f"{md.plural(int(numjobs), 'thread')} × queue depth {iodepth} = OIO {int(numjobs) * int(iodepth)}"


def _status_line(result: dict) -> str:
    pc = result["precondition"]
    missing = []
    for entry in result["wait_states"]:
        if not entry["planned"] or entry["complete"]:
            continue
        lacks = [w for w, p in (("bursts", "bursts"), ("return to baseline", "baseline")) if not entry.get(p)]
        missing.append(f"{entry['label']} lacks its {' and '.join(lacks)}")
    text = {
        "steady": f"**Steady**: {result['steady_text']}, each with its bursts and its return to baseline.",
        "not steady": f"**Not steady**: {result['steady_text']}; the wait states ran after a preconditioning that "
                      "did not reach steady state, so the line they are compared with is not a steady-state figure.",
        "incomplete": f"**Incomplete**: {result['steady_text']}" + (f"; {'; '.join(missing)}." if missing else "."),
        "failed": f"**Failed** after {result['rounds_run']} finished round(s) ({result['steady_text']}); the figures "
                  "below are from those rounds only.",
        "no rounds": "**No round finished**; nothing was measured.",
    }[result["status"]]
    if result["status"] == "incomplete" and pc["rounds_run"] and not pc["steady"] and \
            pc["rounds_run"] < pc["max_rounds"]:
        text += " The preconditioning stopped before steady state or its round limit."
    return text


def _fmt_ratio(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else md.DASH


def _recovery_table(result: dict) -> list[str]:
    pc_iops = result["precondition"].get("iops")
    rows = []
    for entry in result["wait_states"]:
        bursts, base = entry.get("bursts") or {}, entry.get("baseline") or {}
        rows.append([
            entry["label"] + ("" if entry["planned"] else " (not planned)"),
            md.fmt(entry.get("idle_s"), 1) if entry.get("idle_s") is not None else md.DASH,
            str(bursts.get("count", 0)) if bursts else md.DASH,
            md.fmt(bursts.get("mean")), md.fmt(bursts.get("min")), md.fmt(bursts.get("max")),
            md.fmt(base.get("mean")) + (f" ({base['count']})" if base else ""),
            md.fmt(pc_iops), _fmt_ratio(entry.get("gain")), _fmt_ratio(entry.get("burst_over_baseline")),
        ])
    return md.table(["Wait state", "Idle between bursts (s)", "Bursts", "Burst IOPS mean", "Burst IOPS min",
                     "Burst IOPS max", "Baseline IOPS mean (sections)", "Preconditioning SS IOPS",
                     "Gain (burst mean ÷ PC SS)", "Burst mean ÷ baseline mean"], rows)


def _steps(result: dict) -> list[str]:
    pc = result["precondition"]
    rows = [_sections.purge_row("Purge", result.get("purge"))]
    ended = {"steady": f"steady at round {pc['steady_round']}", "not steady": "round limit reached, not steady"}
    rows.append(["Preconditioning (4k random write)",
                 f"{md.plural(pc['rounds_run'], 'round')} of {_secs(pc.get('seconds'))}"
                 f" s — {ended.get(pc['status'], '**not finished**')}",
                 md.fmt(pc["fio_s"]) + " s" if pc.get("fio_s") is not None else md.DASH])
    for entry in result["wait_states"]:
        for phase, words in (("bursts", "bursts"), ("baseline", "return to baseline")):
            part = entry.get(phase)
            what = f"{part['count']} sections, {md.fmt(part['seconds'], 1)} s of writes" if part else "**not run**"
            rows.append([f"{entry['label']} {words}", what,
                         md.fmt(part["fio_s"]) + " s" if part and part.get("fio_s") is not None else md.DASH])
    rows += _sections.timing_rows(result)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    del capacity  # nothing here depends on it
    title = f"## {number} {result['title']}"
    if not result.get("rounds_run"):
        return [title, "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    pc = result["precondition"]
    lines = [title, "", *_sections.status_notes(result), _status_line(result), ""]
    lines += ["Purge, then precondition to steady state, then per wait state a round of write bursts with idle time "
              "between them and a round of continuous writes that returns the drive to its baseline:", ""]
    lines += _pseudo_code(result)
    oio = _oio(settings)
    lines += [f"Every fio section runs with direct I/O, random data{', ' + oio if oio else ''}. Each section's IOPS "
              "is fio's for that section (its IOs over its run time).", ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += SOURCES
    lines += [f"### {number}.1 Preconditioning steady state information", ""]
    if pc.get("dv"):
        dv = pc["dv"]
        lines += [_sections.verdict_line({"settings": {"max_rounds": pc["max_rounds"]}, "status": pc["status"],
                                          "steady_round": pc["steady_round"], "rounds_run": pc["rounds_run"]},
                                         "Preconditioning"), ""]
        lines += [f"Dependent variable: {dv['name']}, the IOPS of the round's `hir-pc` section.", ""]
        lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, pc["max_rounds"], pc["steady_round"],
                                     pc["rounds_run"])
        lines += ["", "Every preconditioning round as the steady-state check saw it:", ""]
        lines += _sections.round_table([dv], {"iops": ("IOPS", 1.0, 1)})
        lines += _sections.mismatch_warning(result)
        lines += ["", f"### {number}.2 Preconditioning plots", ""]
        lines += _sections.images(plots_rel, {
            "convergence": "PC IOPS: the preconditioning's 4k random write IOPS per round, the measurement window "
                           "shaded.",
            "verification": _sections.VERIFICATION_CAPTION,
        })
    else:
        lines += ["No preconditioning round finished.", ""]
    measured = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    lines += [f"### {number}.3 IOPS against time", ""]
    if measured:
        lines += _sections.images(plots_rel, {
            "timeline": "IOPS vs time for all wait states with their returns to baseline: every burst (red) and "
                        "every baseline section (blue) is one fio section and one point, at its start; wait states "
                        "shaded orange and labelled, returns to baseline shaded blue, the preconditioning's "
                        "steady-state window average dashed green. Each round starts at the time its round file "
                        "landed less fio's wall time (recorded_at − elapsed_s); within a round the times are the "
                        "schedule: a burst at its start delay, baseline sections one after another (each after the "
                        "run time of those before it and an equal share of fio's time between sections).",
            "detail": "The same per wait state, against the time from the wait state's own start: its bursts, then "
                      "its return to baseline.",
        })
    else:
        lines += ["No wait-state round finished.", ""]
    lines += [f"### {number}.4 Recovery per wait state", ""]
    if measured:
        lines += ["Per wait state: the bursts' IOPS (each burst one fio section), the mean IOPS of the following "
                  "return to baseline's sections, and the preconditioning's steady-state window average. **Gain** = "
                  "mean burst IOPS ÷ the preconditioning's steady-state average (this report's choice: the PTS's "
                  "per-wait-state comparison is not confirmed); the last column compares the bursts with the "
                  "baseline that follows them. Means are of the sections' IOPS, each section weighted alike.", ""]
        if not pc.get("steady") and pc.get("iops") is not None:
            lines += ["> Note: the preconditioning did not reach steady state; its figure here is its last window's "
                      "average, and the gains are relative to that.", ""]
        lines += _recovery_table(result) + [""]
        lines += _sections.images(plots_rel, {
            "recovery": "Recovery per wait state: mean burst IOPS (whiskers from the slowest to the fastest burst) "
                        "with its gain over the preconditioning's steady-state average, beside the mean IOPS of the "
                        "return to baseline that followed; the preconditioning's average dashed green.",
        })
    else:
        lines += ["No wait-state round finished.", ""]
    lines += [f"### {number}.5 Purge, preconditioning and files", ""]
    lines += _steps(result)
    segments = [(PC_SEGMENT, pc["round_files"])] if pc["round_files"] else []
    segments += [(f"ws{s['wait_state']}", s["round_files"]) for s in result["wait_states"] if s["round_files"]]
    lines += _sections.file_links(result["test"], segments, wipc=False)
    return lines
