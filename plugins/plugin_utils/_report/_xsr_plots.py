# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The XSR (cross stimulus recovery) figures: throughput, mean and maximum response time per sample, the groups'
boundaries and recovery marks (the model: _xsr.py).
"""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import MARKERS_UP_TO, WIDTH, finish_figure
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import scale_axes, zero_y
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._xsr import GROUP_COLORS
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._xsr import minutes_text
try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError:  # _plots.available() says so; plots() is not called then
    pass


def _series(result: dict, key: str) -> list[tuple[dict, list[float], list[float]]]:
    """Per group that ran: the group, its samples' times and their ``key`` values (None left out)."""
    out = []
    for group in result["groups"]:
        points = [(s["t_min"], s[key]) for s in result["samples"]
                  if s["group"] == group["number"] and s[key] is not None]
        if points:
            out.append((group, [t for t, dummy in points], [v for dummy, v in points]))
    return out


def _draw_groups(ax, series: list, many: bool) -> None:
    for group, times, values in series:
        style = {"marker": None, "linewidth": 0.7} if many else {"marker": "o", "markersize": 3, "linewidth": 1.2}
        ax.plot(times, values, color=GROUP_COLORS[group["name"]], label=f"group {group['number']}: {group['access']}",
                zorder=3, **style)


def _draw_log(ax, result: dict) -> None:
    """Each group's bw log as fio wrote it (MB/s per logging interval), thin and pale behind the samples."""
    logs = result.get("_series") or {}
    origin = result.get("origin_unix_ms")
    if not logs or origin is None:
        return
    labelled = False
    for group in result["groups"]:
        points = logs.get(group["name"])
        if not points:
            continue
        ax.plot([(t - origin) / 60000.0 for t, dummy in points], [v for dummy, v in points],
                color=GROUP_COLORS[group["name"]], alpha=0.35, linewidth=0.6, zorder=2,
                label=None if labelled else f"fio's bw log ({group['log']['interval_ms']:g} ms lines)")
        labelled = True


def _boundaries(ax, result: dict, label: bool) -> None:
    """A dashed line where each group's first sample started (the stimulus changed); with ``label``, each group
    named above the frame at the middle of its span, in its colour (inside the frame a label would hide samples)."""
    shown = [g for g in result["groups"] if g["start_min"] is not None]
    for group in shown[1:]:
        ax.axvline(group["start_min"], color="#424242", linestyle="--", linewidth=0.9, zorder=2)
    if not label or not shown:
        return
    top = ax.secondary_xaxis("top")
    top.set_xticks([(g["start_min"] + g["end_min"]) / 2 for g in shown],
                   labels=[f"group {g['number']}: {g['access']}" for g in shown])
    top.tick_params(length=0, labelsize=8.5)
    for text, group in zip(top.get_xticklabels(), shown):
        text.set_color(GROUP_COLORS[group["name"]])
        text.set_fontweight("bold")


def _span(result: dict, number: int) -> tuple[float, float] | None:
    group = result["groups"][number - 1]
    return None if group["start_min"] is None else (group["start_min"], group["end_min"])


def _time_axis(ax, result: dict) -> None:
    end = max((g["end_min"] for g in result["groups"] if g["end_min"] is not None), default=1.0)
    ax.set_xlim(0, end * 1.01)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=12))
    ax.grid(True, which="both", alpha=0.3)


def _recovery_marks(ax, result: dict) -> list[float]:
    """Group 2's final level with its band, the group-1 mean and the recovery threshold over group 3, and a star
    where group 2 settled and where group 3 recovered; returns the levels drawn (for the y scale)."""
    drawn = []
    tolerance = result["tolerance_pct"]
    settle, recovery = result["transitions"]["settle"], result["transitions"]["recovery"]
    span2, span1, span3 = _span(result, 2), _span(result, 1), _span(result, 3)
    if settle["judged"] and span2:
        ax.fill_between(span2, settle["low_mb_s"], settle["high_mb_s"], color=GROUP_COLORS["group2"], alpha=0.18,
                        linewidth=0, zorder=1, label=f"group 2 final level ± {tolerance:g} %")
        drawn += [settle["high_mb_s"]]
    if result["groups"][0]["complete"]:
        mean = result["groups"][0]["mean_mb_s"]
        for span in (span1, span3):
            if span:
                ax.plot(span, [mean, mean], color="#0d47a1", linestyle=":", linewidth=1.4, zorder=4,
                        label="group 1 mean" if span is span1 else None)
        drawn += [mean]
    if recovery["judged"] and tolerance and span3:
        ax.plot(span3, [recovery["low_mb_s"]] * 2, color="#2e7d32", linestyle="--", linewidth=1.2, zorder=4,
                label=f"group 1 mean − {tolerance:g} %: recovery level")
    for transition, number, word in ((settle, 2, "settled"), (recovery, 3, "recovered")):
        if transition["sample"] is None:
            if transition["judged"] or transition["reason"].startswith("not resolved"):
                # Nothing to point at: the legend says so.
                # Its reason in full is in the transitions table: a long legend would narrow the plot.
                ax.plot([], [], linestyle="none", marker="*", markersize=15, color="white", markeredgecolor="black",
                        label=f"group {number}: " + ("settle not resolved" if not transition["judged"] else
                                                     f"not {word}"))
            continue
        hit = next(s for s in result["samples"] if s["group"] == number and s["sample"] == transition["sample"])
        ax.plot([hit["t_min"]], [hit["mb_s"]], linestyle="none", marker="*", markersize=15,
                color=GROUP_COLORS[f"group{number}"], markeredgecolor="black", zorder=6,
                label=f"{word}: {minutes_text(transition['minutes'])} min into group {number}")
    return drawn


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    if not result.get("samples"):
        return {}
    # Up to MARKERS_UP_TO samples a series gets markers; a full run (1,320 samples) gets thin lines.
    many = len(result["samples"]) > MARKERS_UP_TO
    time_label = "Minutes from the test's first sample" + {
        "recorded": "", "status": " (fio's clock)"}.get(result.get("time_base"), " (fio time)")
    drawn = {}

    # Throughput of all three groups, with what the recovery figures are judged against.
    fig, ax = plt.subplots(figsize=(WIDTH, 5.4), layout="constrained")
    series = _series(result, "mb_s")
    _draw_log(ax, result)
    _draw_groups(ax, series, many)
    levels = _recovery_marks(ax, result)
    _boundaries(ax, result, label=True)
    zero_y(ax, [v for dummy, dummy2, values in series for v in values] + levels)
    ax.set_ylabel("MB/s (10⁶ B/s)")
    ax.set_xlabel(time_label)
    _time_axis(ax, result)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    ax.set_title(f"{prefix} — cross stimulus recovery: write throughput per sample", loc="left")
    drawn["throughput"] = finish_figure(fig, os.path.join(plot_dir, "xsr-throughput.png"), subtitle)

    # Throughput, mean and maximum response time on one time axis.
    panels = (("Throughput", "MB/s (10⁶ B/s)", "mb_s"), ("Mean response time (ART)", "ms", "art_ms"),
              ("Maximum response time (MRT)", "ms", "mrt_ms"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(WIDTH, 10), layout="constrained", sharex=True)
    for index, (ax, (title, unit, key)) in enumerate(zip(axes, panels)):
        series = _series(result, key)
        _draw_groups(ax, series, many)
        _boundaries(ax, result, label=index == 0)
        scale_axes([ax], [v for dummy, dummy2, values in series for v in values], unit)
        ax.set_title(title, fontsize=10, loc="left")
        _time_axis(ax, result)
    axes[-1].set_xlabel(time_label)
    axes[0].legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(f"{prefix} — cross stimulus recovery: throughput, mean and maximum response time")
    drawn["panels"] = finish_figure(fig, os.path.join(plot_dir, "xsr-panels.png"), subtitle)
    return drawn
