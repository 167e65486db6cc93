# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The report's chart kinds, each writing one PNG from plain numbers: convergence per round, steady-state verification,
the 2D measurement plot, percentiles, grouped bars, x-y panels and the fleet cohort (the common parts: _plots.py).
"""

from __future__ import annotations

import re
import statistics
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator
except ImportError:  # _plots.available() says so; no plot is drawn then
    pass


def convergence(path: str, title: str, ylabel: str, panels: dict, highlight: str | None = None,
                highlight_panel: str | None = None, window_rounds: list[int] | None = None,
                legend_title: str = "Block size", subtitle: str | None = None, windows: dict | None = None,
                steady_at: dict | None = None, marks: list[dict] | None = None, hollow: dict | None = None,
                hollow_label: str = "", verdicts: dict | None = None, times: list | None = None,
                time_label: str = "Time at the round's end since the first round started") -> str:
    """A DV family over all rounds, one panel per entry of ``panels`` ({panel title: {block size: values}}), the
    panels on one shared y scale (zero-based, or log when the values span decades) and one legend.

    The DV's line (label ``highlight`` in panel ``highlight_panel``, or in the only panel) is drawn bold in its block
    size's colour. ``window_rounds`` shades one measurement window and marks the DV's points in it; ``windows`` ({label: rounds}) draws each
    series' own window with filled markers instead, and ``steady_at`` ({(panel, label): round}) stars the round where
    a DV became steady. ``marks`` ([{round, kind, series}], by default those of round_marks()) flags the rounds in
    which the drive throttled or passed its warning temperature: a shaded round, or a ring on the series' point.
    ``hollow`` ({(panel, label): round}) draws one point of a series hollow, off its line and out of the axis'
    scale (a triangle on the top frame when it lies above), named ``hollow_label`` in the legend: a value measured
    under other conditions (round 1's reads of a drive purged just before them). ``verdicts`` ({panel: (text,
    steady)}) stamps each panel's verdict above its frame; ``times`` (seconds at the end of each round) adds a time
    axis on top.
    """
    marks = marks if marks is not None else _plots.ROUND_MARKS.get()
    hollow = hollow or {}
    marked: dict = {}
    window_marked = False
    fig, axes = plt.subplots(len(panels), 1, figsize=(_plots.WIDTH, 2.6 + 2.5 * len(panels)), sharex=True, sharey=True,
                             squeeze=False)
    longest = 1
    values_all = []
    off: list = []
    for ax, (panel, series) in zip(axes[:, 0], panels.items()):
        for index, label in enumerate(_plots.by_block_size(series)):
            values = series[label]
            flagged = hollow.get((panel, label))
            rounds = [i + 1 for i, v in enumerate(values) if v is not None and i + 1 != flagged]
            points = [values[r - 1] for r in rounds]
            values_all.extend(points)
            longest = max(longest, len(values))
            color = _plots.bs_color(label, index)
            if flagged and flagged - 1 < len(values) and values[flagged - 1] is not None:
                off.append((ax, flagged, values[flagged - 1], color))
            bold = label == highlight and (highlight_panel is None or panel == highlight_panel)
            ax.plot(rounds, points, **_plots.marker_style(len(points), 5 if bold else 3.5), linewidth=2.8 if bold else 1.2,
                    color=color, markeredgecolor="black" if bold else color,
                    label=f"{label} (DV)" if bold else label, zorder=3 if bold else 2)
            own = (windows or {}).get(label) or (window_rounds if bold and not windows else None)
            if own:
                _window_points(ax, values, own, flagged, color, dv=not windows)
                window_marked = window_marked or not windows
            star = (steady_at or {}).get((panel, label))
            if star and star - 1 < len(values) and values[star - 1] is not None:
                ax.plot([star], [values[star - 1]], linestyle="none", marker="*", markersize=15, color=color,
                        markeredgecolor="black", zorder=5)
        if window_rounds:
            ax.axvspan(min(window_rounds) - 0.4, max(window_rounds) + 0.4, color="#90a4ae", alpha=0.15,
                       label="measurement window")
        if marks:
            marked[id(ax)] = _plots.draw_marks(ax, series, marks)
        if panel:
            ax.set_title(panel, fontsize=10, loc="left")
        if (verdicts or {}).get(panel):
            _plots.stamp(ax, *verdicts[panel])
        ax.grid(True, which="both", alpha=0.3)
    _plots.scale_axes(axes[:, 0], values_all, ylabel)
    above: dict = {}
    for ax, flagged, value, color in sorted(off, key=lambda o: -o[2]):
        line = above.get((id(ax), flagged), 0)
        if _plots.off_scale(ax, flagged, value, color, f"{_plots.figure_text(value)} ↑", line):
            above[(id(ax), flagged)] = line + 1
    kinds = {drawn for ax in axes[:, 0] for drawn in marked.get(id(ax)) or []}
    extra = _convergence_symbols(hollow_label if off else None, bool(above), bool(windows), window_marked,
                                 bool(steady_at), kinds)
    # One legend for all panels (they share their series), the symbols that explain markers after the series.
    legend = _plots.shared_legend(fig, axes[:, 0], legend_title, loc="center right", extra=extra)
    axes[-1, 0].set_xlabel("Round")
    _plots.round_ticks(axes[-1, 0], longest)
    if times:
        _plots.time_axis(axes[0, 0], times, time_label)
    _plots.fixed_layout(fig, [[ax] for ax in axes[:, 0]], title, subtitle, legend)
    return _plots.finish_figure(fig, path, None)


def _window_points(ax, values: list, own: list[int], flagged: int | None, color, dv: bool) -> None:
    """A series' points in its measurement window, marked: the DV's as squares (OakGate marks the steady-state
    window's points), each series' own window (``dv`` false) as filled circles."""
    inside = [(r, values[r - 1]) for r in own if r - 1 < len(values) and values[r - 1] is not None and r != flagged]
    if dv:
        ax.plot([r for r, dummy in inside], [v for dummy, v in inside], linestyle="none", marker="s",
                markersize=8, color=color, markeredgecolor="black", markeredgewidth=1.2, zorder=4)
    else:
        ax.plot([r for r, dummy in inside], [v for dummy, v in inside], linestyle="none", marker="o",
                markersize=7, color=color, markeredgecolor="black", zorder=4)


def _convergence_symbols(hollow_label: str | None, above: bool, windows: bool, window_marked: bool, steady: bool,
                         kinds: set) -> list:
    """The legend's entries that explain the convergence plot's symbols, after its series."""
    extra = []
    if hollow_label is not None:
        extra.append((plt.Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                                 markeredgecolor="black", markeredgewidth=2), hollow_label + (" (▲: above the axis)"
                                                                                              if above else "")))
    if windows:
        extra.append((plt.Line2D([], [], linestyle="none", marker="o", markersize=7, color="white",
                                 markeredgecolor="black"), "its measurement window"))
    if window_marked:
        extra.append((plt.Line2D([], [], linestyle="none", marker="s", markersize=8, color="white",
                                 markeredgecolor="black"), "DV in the measurement window"))
    if steady:
        extra.append((plt.Line2D([], [], linestyle="none", marker="*", markersize=13, color="white",
                                 markeredgecolor="black"), "steady from this round"))
    for kind, style in sorted(kinds, key=lambda drawn: list(_plots.MARK_STYLES).index(drawn[0])):
        extra.append((_plots.mark_handle(kind, style), _plots.MARK_STYLES[kind][1] + (", this block size" if style == "ring" else "")))
    return extra


def _verification_panel(ax, all_values: list[float], verdict: dict, exclude: tuple = ()) -> list[float]:
    """One DV across its rounds with the stop rule drawn as it is: the allowed max − min band (20 % of the window
    average wide, centred between the window's max and min: every window value inside it means the data excursion
    holds), the least-squares best fit and the steepest fits allowed (10 % of the average across the window). The
    verdict is stamped above the frame and its figures written under the round axis, where they hide no point.
    Rounds in ``exclude`` (round 1's reads of a purged drive) are drawn hollow afterwards and scale nothing."""
    rounds = [r for r in range(1, len(all_values) + 1) if r not in exclude]
    window_rounds = verdict.get("rounds") or []
    in_window = [r for r in rounds if r in window_rounds]
    ax.plot(rounds, [all_values[r - 1] for r in rounds], color="#9e9e9e", **_plots.marker_style(len(rounds), 3.5), linewidth=1,
            label="DV, every round")
    ax.plot(in_window, [all_values[r - 1] for r in in_window], color="#0d47a1", marker="o", markersize=7,
            linewidth=2, label="DV, measurement window")
    shown = [all_values[r - 1] for r in rounds]
    average = verdict.get("average")
    figures = ""
    if average is not None and in_window and verdict.get("slope") is not None:
        lo, hi = min(in_window) - 0.3, max(in_window) + 0.3
        window = [all_values[r - 1] for r in in_window]
        allowed = verdict["max_data_excursion_pct"] / 100.0 * average
        middle = (max(window) + min(window)) / 2
        ax.fill_between([lo, hi], middle - allowed / 2, middle + allowed / 2, color="#66bb6a", alpha=0.22,
                        label=f"allowed max − min: {verdict['max_data_excursion_pct']:g} % of average")
        ax.hlines([max(window), min(window)], lo, hi, colors="#1b5e20", linewidth=0.9, linestyles=":",
                  label=f"window max and min ({verdict.get('data_excursion_pct', 0):.1f} % apart)")
        ax.hlines(average, lo, hi, colors="#2e7d32", linewidth=1.6, label=f"window average {_plots.figure_text(average)}")
        first, last = min(in_window), max(in_window)
        centre_x = (first + last) / 2
        centre_y = verdict["intercept"] + verdict["slope"] * centre_x
        steepest = verdict["max_slope_excursion_pct"] / 100.0 * average / max(1, last - first)
        for sign in (1, -1):
            ax.plot([first, last], [centre_y - sign * steepest * (centre_x - first),
                                    centre_y + sign * steepest * (last - centre_x)], color="#ef9a9a", linewidth=1,
                    linestyle="-", label=f"steepest fit allowed: ±{verdict['max_slope_excursion_pct']:g} % across "
                                         "the window" if sign == 1 else None)
        ax.plot([first, last], [verdict["intercept"] + verdict["slope"] * x for x in (first, last)], color="#c62828",
                linestyle="--", linewidth=2, label=f"least-squares best fit ({verdict.get('slope_excursion_pct', 0):.1f} %)")
        shown += [middle + allowed / 2, centre_y + steepest * (last - first) / 2]
        if verdict.get("data_excursion_pct") is not None:
            figures = (f"\nmax − min {verdict['data_excursion_pct']:.1f} % "
                       f"(≤ {verdict['max_data_excursion_pct']:g} %) · best fit "
                       f"{verdict['slope_excursion_pct']:.1f} % (≤ {verdict['max_slope_excursion_pct']:g} %)")
    _plots.stamp(ax, "STEADY" if verdict.get("steady") else "NOT STEADY", bool(verdict.get("steady")))
    _plots.round_ticks(ax, len(all_values))
    ax.set_xlabel("Round" + figures)
    ax.grid(True, alpha=0.3)
    return shown


def _excluded(ax, all_values: list[float], exclude: tuple) -> None:
    for number in exclude:
        if 0 < number <= len(all_values) and all_values[number - 1] is not None:
            _plots.off_scale(ax, number, all_values[number - 1], "#616161", f"{_plots.figure_text(all_values[number - 1])} ↑")


def verification(path: str, title: str, ylabel: str, all_values: list[float], verdict: dict,
                 subtitle: str | None = None) -> str:
    """Steady State Verification Plot of one DV (see _verification_panel), on a zero-based axis."""
    return verification_panels(path, title, ylabel, [("", all_values, verdict)], subtitle=subtitle)


def verification_panels(path: str, title: str, ylabel: str, panels: list, subtitle: str | None = None,
                        exclude: dict | None = None, exclude_label: str = "") -> str:
    """Verification plots side by side, (name, values, verdict) each on its own zero-based axis (throughput: read
    and write of one block size), one legend. ``exclude`` ({name: rounds}): rounds drawn hollow, out of the scale,
    named ``exclude_label`` (round 1's reads of a purged drive)."""
    single = len(panels) == 1
    fig, axes = plt.subplots(1, len(panels), figsize=(_plots.WIDTH, 5.0 if single else 5.4), squeeze=False)
    extra = []
    for ax, (name, values, verdict) in zip(axes[0], panels):
        skipped = tuple((exclude or {}).get(name) or ())
        shown = _verification_panel(ax, values, verdict, skipped)
        _plots.zero_y(ax, [v * 1.04 for v in shown if v is not None])
        ax.set_ylabel(ylabel)
        if name:
            ax.set_title(name, fontsize=10, loc="left")
        if skipped:
            _excluded(ax, values, skipped)
            if not extra:
                extra.append((plt.Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                                         markeredgecolor="#616161", markeredgewidth=2),
                              exclude_label + " (▲: above the axis)"))
    handles, labels = axes[0][0].get_legend_handles_labels()
    if single:
        legend = fig.legend(handles + [h for h, dummy in extra], labels + [l for dummy, l in extra],
                            loc="center right", fontsize=9)
    else:
        # One legend for all panels, under them and above the footer (laid out so that neither covers the other):
        # the per-panel figures are under each axis.
        generic = [re.sub(r" \(?[\d.,]+( %)?( apart)?\)?$", "", label) for label in labels]
        legend = fig.legend(handles + [h for h, dummy in extra], generic + [l for dummy, l in extra],
                            loc="lower center", ncol=2, fontsize=9, frameon=False)
    _plots.fixed_layout(fig, [list(axes[0])], title, subtitle, legend, legend_below=not single)
    return _plots.finish_figure(fig, path, None)


def measurement_2d(path: str, title: str, ylabel: str, block_sizes: list[str], table: dict,
                   mixes: list[int], subtitle: str | None = None, verdict: tuple | None = None) -> str:
    """Window averages: value against block size (largest first), one line per R/W mix; ``verdict`` (text, steady)
    stamped above the frame."""
    fig, ax = plt.subplots(figsize=(_plots.WIDTH, 5.2))
    ordered = _plots.by_block_size(block_sizes)
    xs = list(range(len(ordered)))
    values_all = []
    for index, mix in enumerate(sorted(mixes, reverse=True)):
        ys = [(table.get(bs) or {}).get(str(mix)) for bs in ordered]
        points = [(x, y) for x, y in zip(xs, ys) if y is not None]
        values_all.extend(y for dummy, y in points)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", color=_plots.mix_color(mix, index),
                label=_plots.mix_label(mix))
    _plots.scale_axes([ax], values_all, ylabel)
    ax.set_xticks(xs, ordered)
    ax.set_xlabel("Block size")
    if verdict:
        _plots.stamp(ax, *verdict)
    ax.grid(True, which="both", alpha=0.3)
    legend = fig.legend(*ax.get_legend_handles_labels(), title="R/W mix %", loc="center right", fontsize=9,
                        title_fontsize=9)
    _plots.fixed_layout(fig, [[ax]], title, subtitle, legend)
    return _plots.finish_figure(fig, path, None)


def percentiles(path: str, title: str, panels: list[tuple[str, dict]], subtitle: str | None = None,
                verdict: tuple[str, bool] | None = None) -> str:
    """Latency percentiles: per panel (a block size), one line per R/W mix and direction across p50 … p99.99 and
    max, on one shared axis, one legend above the panels; ``verdict`` (text, steady) the window's state, stamped
    under the title."""
    fig, axes = plt.subplots(1, len(panels), figsize=(_plots.WIDTH, 4.9), sharey=True, squeeze=False)
    values_all = []
    for ax, (name, series) in zip(axes[0], panels):
        for index, (label, points) in enumerate(series.items()):
            mix = int(label.split("/")[0])
            xs = [i for i, (dummy, v) in enumerate(points) if v is not None]
            ys = [v for dummy, v in points if v is not None]
            values_all += ys
            color, style = _plots.mix_color(mix, index), "-" if label.endswith("write") else "--"
            # A percentile the IOs do not resolve has no point; no line runs through its place either (it would
            # read as a value): a thin dotted one joins the points on either side of it.
            runs, labelled = [], False
            for x, y in zip(xs, ys):
                if runs and x == runs[-1][-1][0] + 1:
                    runs[-1].append((x, y))
                else:
                    runs.append([(x, y)])
            for before, after in zip(runs, runs[1:]):
                ax.plot([before[-1][0], after[0][0]], [before[-1][1], after[0][1]], color=color, linestyle=":",
                        linewidth=0.9, alpha=0.7)
            for run in runs:
                ax.plot([x for x, dummy in run], [y for dummy, y in run], marker="o", markersize=4, color=color,
                        linestyle=style, label=None if labelled else label)
                labelled = True
        ticks = [k for k, dummy in next(iter(series.values()), [])]
        ax.set_xticks(range(len(ticks)), ticks, rotation=35, ha="right", fontsize=8.5)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("Percentile over the window")
        ax.grid(True, which="both", alpha=0.3)
    _plots.scale_axes(axes[0], values_all, "latency (ms)")
    legend = _plots.shared_legend(fig, axes[0], "R/W mix, direction", loc="center right")
    _plots.fixed_layout(fig, [list(axes[0])], title, subtitle, legend, stamp=verdict)
    return _plots.finish_figure(fig, path, None)


def grouped_bars(path: str, title: str, ylabel: str, categories: list[str], series: dict,
                 subtitle: str | None = None, verdict: tuple | None = None) -> str:
    """Side-by-side bars per category (block size), one bar per series (read, write), values printed on top;
    ``verdict`` (text, steady) stamped above the frame."""
    fig, ax = plt.subplots(figsize=(_plots.WIDTH, 5.2))
    width = 0.8 / max(1, len(series))
    colors = {"read": "#1f77b4", "write": "#c62828"}
    for index, (name, values) in enumerate(series.items()):
        xs = [i + (index - (len(series) - 1) / 2) * width for i in range(len(categories))]
        heights = [v if v is not None else 0 for v in values]
        bars = ax.bar(xs, heights, width, label=name, color=colors.get(name, plt.get_cmap("tab10")(index)))
        ax.bar_label(bars, labels=[f"{v:,.0f}" if v is not None else "n/a" for v in values], fontsize=9, padding=2)
    ax.set_xticks(range(len(categories)), categories)
    ax.set_xlabel("Block size")
    ax.set_ylabel(ylabel)
    if verdict:
        _plots.stamp(ax, *verdict)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper right")
    _plots.fixed_layout(fig, [[ax]], title, subtitle)
    return _plots.finish_figure(fig, path, None)


def xy_panels(path: str, title: str, panels: list[tuple], subtitle: str | None = None,
              markers: list[list[tuple[float, str]]] | None = None) -> str:
    """Side-by-side line panels on one shared y scale, each (xlabel, ylabel, xs, {label: ys}, log y); ``markers``
    per panel draws labelled vertical lines (write saturation: 1 ×, 2 × … the user capacity written)."""
    fig, axes = plt.subplots(1, len(panels), figsize=(min(_plots.WIDTH, 6.0 * len(panels)), 4.8), squeeze=False, sharey=True)
    styles = {"mean": ("#0d47a1", "-"), "max": ("#c62828", "--")}
    values_all = []
    for ax, (xlabel, dummy, xs, series, dummy2) in zip(axes[0], panels):
        for index, (label, ys) in enumerate(series.items()):
            points = [(x, y) for x, y in zip(xs, ys) if y is not None]
            values_all += [y for dummy3, y in points]
            color, line = styles.get(label, (plt.get_cmap("tab10")(index), "-"))
            xs_, ys_ = [p[0] for p in points], [p[1] for p in points]
            if len(points) <= _plots.MARKERS_UP_TO or label == "max":
                ax.plot(xs_, ys_, color=color, linestyle=line, **_plots.marker_style(len(points), 2.5), linewidth=1.2, label=label)
                continue
            # Hundreds of rounds: every round as a thin line, and a running mean that shows the trend through the noise.
            span = max(3, len(points) // 50)
            ax.plot(xs_, ys_, color=color, linestyle=line, linewidth=0.6, alpha=0.45, label=f"{label}, each round")
            ax.plot(xs_[span - 1:], _plots.running_mean(ys_, span), color=color, linestyle=line, linewidth=2.0,
                    label=f"{label}, running mean of {span} rounds")
        if xs and all(isinstance(x, int) for x in xs):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds: no 1.5th round
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
    if panels[0][4]:
        for ax in axes[0]:
            ax.set_ylabel(panels[0][1])
            _plots.log_y(ax, values_all)
    else:
        _plots.scale_axes(axes[0], values_all, panels[0][1])
    for ax, marks in zip(axes[0], markers or []):
        low, high = ax.get_xlim()
        # Labels closer than this (a fraction of the axis) take the next line down: two capacities crossed in one
        # round (a quick profile writes more than a capacity a round) would print on top of each other.
        near = 0.06 * (high - low)
        last_x: dict = {}
        for x, label in marks:
            ax.axvline(x, color="#6a1b9a", linewidth=0.9, linestyle=":", zorder=1)
            level = next(n for n in range(len(marks) + 1) if n not in last_x or x - last_x[n] >= near)
            last_x[level] = x
            right = x > low + 0.92 * (high - low)  # at the right edge the label goes left of its line
            ax.annotate(label, (x, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(-2 if right else 2, -11 - 11 * level), textcoords="offset points", fontsize=9,
                        color="#6a1b9a", ha="right" if right else "left")
    for ax in axes[0]:
        ax.legend(fontsize=9, loc="lower right" if not panels[0][4] else "best")
    _plots.fixed_layout(fig, [list(axes[0])], title, subtitle)
    return _plots.finish_figure(fig, path, None)


COHORT_COLUMNS = 4


def cohort(path: str, title: str, panels: list[tuple[str, list[tuple[str, float, bool]]]],
           subtitle: str | None = None) -> str:
    """One panel per figure, four to a row (a single row of a dozen printed too small to read): every drive of a
    cohort as a point, the median as a line, outliers in red."""
    columns = min(COHORT_COLUMNS, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(max(_plots.WIDTH * columns / COHORT_COLUMNS, 4.2),
                                                     3.3 * rows + 0.8), layout="constrained", squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (label, points) in zip(axes.flat, panels):
        values = [value for dummy, value, dummy2 in points]
        spread = [((index % 7) - 3) * 0.05 for index in range(len(points))]  # jitter so equal values stay visible
        ax.scatter(spread, values, c=["#c62828" if flagged else "#1f77b4" for dummy, dummy2, flagged in points],
                   s=28, zorder=3)
        for (drive_id, value, flagged), x in zip(points, spread):
            if flagged:
                ax.annotate(drive_id, (x, value), textcoords="offset points", xytext=(6, 0), fontsize=7,
                            color="#c62828")
        median = statistics.median(values)
        ax.axhline(median, color="#2e7d32", linewidth=1.5, label=f"median {_plots.figure_text(median)}")
        ax.set_xlim(-0.6, 0.6)
        ax.set_xticks([])
        ax.set_title(label, fontsize=9)
        ax.yaxis.set_major_formatter(FuncFormatter(_plots.thousands_tick))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(title)
    return _plots.finish_figure(fig, path, subtitle)
