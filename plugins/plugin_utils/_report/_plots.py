# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""PTS plots with matplotlib (Agg). Each function takes plain numbers and writes one PNG."""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import re
import statistics
import tempfile

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator
    from PIL import Image  # matplotlib's own dependency: it writes its PNGs with it
except ImportError as exc:
    MATPLOTLIB_IMPORT_ERROR: ImportError | None = exc
else:
    MATPLOTLIB_IMPORT_ERROR = None

DPI = 110
# One colour per R/W mix and one per block size, the same in every plot of every report; legends list mixes from
# all reads to all writes and block sizes from the largest down.
MIX_COLORS = {
    100: "#1f77b4", 99: "#4e9ed6", 95: "#17becf", 90: "#3fb5a0", 70: "#66a61e", 65: "#2ca02c", 50: "#bcbd22",
    35: "#ff7f0e", 5: "#d62728", 0: "#7f1d1d",
}
BS_COLORS = {
    "1024k": "#4c2a85", "128k": "#1f77b4", "64k": "#17becf", "32k": "#2ca02c", "16k": "#bcbd22", "8k": "#ff7f0e",
    "4k": "#d62728", "2k": "#e377c2", "1k": "#8c564b", "512": "#7f7f7f",
}
LOG_NOTE = " (log scale)"
# A figure is at most this wide (inches), so on an A4 page (about 7.4 in between the margins) its text prints at
# three quarters or more of its size: 9 pt and up reads as 7 pt and up.
WIDTH = 9.5
STEADY_COLORS = {True: "#2e7d32", False: "#c62828"}


def available() -> bool:
    return MATPLOTLIB_IMPORT_ERROR is None


def _mix_label(mix: int) -> str:
    return f"{mix}/{100 - mix}"


def _color(mix: int, index: int):
    return MIX_COLORS.get(mix, plt.get_cmap("tab10")(index % 10))


def bs_color(label: str, index: int = 0):
    """A block size's colour in every plot (the sweeps' odd sizes take the rest of tab10 by position)."""
    return BS_COLORS.get(label, plt.get_cmap("tab10")(index % 10))


def _bs_bytes(label: str) -> float:
    units = {"k": 1024, "m": 1024 ** 2}
    text = str(label).lower()
    try:
        return float(text[:-1]) * units[text[-1]] if text[-1] in units else float(text)
    except (ValueError, IndexError):
        return 0.0


def by_block_size(labels) -> list:
    """Block size labels from the largest down, the order of every legend and table."""
    return sorted(labels, key=_bs_bytes, reverse=True)


def thousands_tick(value, dummy):
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def spans_decades(values) -> bool:
    positive = [v for v in values if v]
    return bool(positive) and max(positive) / min(positive) >= 20


def figure_text(value: float) -> str:
    """A value for a legend: enough digits for IOPS and for sub-millisecond latencies alike."""
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:.3f}" if abs(value) >= 1 else f"{value:.4f}"


_STEPS = (1.0, 2.0, 5.0)


def _nice_log(value: float, up: bool) -> float:
    """The 1-2-5 value at or beyond ``value`` (above it when ``up``), so the axis ends on a labelled tick."""
    exponent = math.floor(math.log10(value))
    candidates = [step * 10.0 ** e for e in (exponent - 1, exponent, exponent + 1) for step in _STEPS]
    return min(c for c in candidates if c >= value * (1 - 1e-9)) if up else \
        max(c for c in candidates if c <= value * (1 + 1e-9))


def log_y(ax, values=None) -> None:
    """Log scale labelled at 1, 2, 5 × 10^n with plain labels (1k, 2, 0.5), ending on a labelled tick at both
    ends so every plotted value lies between two labels; the axis label says it is logarithmic."""
    ax.set_yscale("log")
    positive = [v for v in values or [] if v and v > 0]
    if positive:
        # A little room beyond the extremes: a marker on the frame would be cut in half (9.79 under a top of 10).
        ax.set_ylim(_nice_log(min(positive) / 1.08, up=False), _nice_log(max(positive) * 1.08, up=True))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=_STEPS))
    ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
    ax.yaxis.set_minor_locator(NullLocator())
    label = ax.get_ylabel()
    if label and not label.endswith(LOG_NOTE):
        ax.set_ylabel(label + LOG_NOTE)


def zero_y(ax, values) -> None:
    """A linear axis from zero up to a labelled tick at or above the largest value."""
    top = max([v for v in values if v is not None] or [1.0])
    top = top * 1.06 if top > 0 else 1.0  # headroom: a marker on the frame would be cut, a line merge with it
    ticks = [t for t in MaxNLocator(nbins=6).tick_values(0, top) if t >= top]
    ax.set_ylim(0, min(ticks) if ticks else top * 1.1)
    ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))


def scale_axes(axes, values, ylabel: str) -> bool:
    """The same y scale on every panel that is compared: log (labelled) when the values span decades, else linear
    from zero; returns whether it is log."""
    log = spans_decades(values)
    for ax in axes:
        ax.set_ylabel(ylabel)
        if log:
            log_y(ax, values)
        else:
            zero_y(ax, values)
    return log


# Up to this many rounds every round gets a tick and a marker; longer runs (a write saturation of 1,500 rounds)
# get a handful of integer ticks and plain lines.
EVERY_ROUND_UP_TO = 30
MARKERS_UP_TO = 150


def round_ticks(ax, rounds: int) -> None:
    if rounds <= EVERY_ROUND_UP_TO:
        ax.set_xticks(range(1, rounds + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def marker_style(points: int, size: float) -> dict:
    return {"marker": "o", "markersize": size} if points <= MARKERS_UP_TO else {"marker": None}


def _running_mean(values: list[float], span: int) -> list[float]:
    """The mean of each ``span`` values ending at each point from the ``span``-th on."""
    out, total = [], 0.0
    for index, value in enumerate(values):
        total += value
        if index >= span:
            total -= values[index - span]
        if index >= span - 1:
            out.append(total / span)
    return out


def finish_figure(fig, path: str, subtitle: str | None) -> str:
    if subtitle:
        # A figure-level label below every axis: constrained layout keeps room for it (a figure laid out by
        # fixed_layout has its footer from there, and comes here without one).
        fig.supxlabel(subtitle, x=0.99, ha="right", fontsize=9, color="#b00020")
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    # Whole or not at all: drawn to a temporary file, then renamed over the plot (a full disk leaves the old one).
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".png", dir=directory)
    try:
        _results.share(fd)
        # One draw (savefig draws twice under a layout engine), then an RGB PNG: no alpha channel, which the PDF
        # engine would otherwise split off and compress again for every plot; fast compression, no metadata
        # (the same figures give the same bytes).
        fig.set_dpi(DPI)
        fig.canvas.draw()
        width, height = fig.canvas.get_width_height(physical=True)
        image = Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
        with os.fdopen(fd, "wb") as handle:
            image.save(handle, format="PNG", compress_level=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
    return path


# Laying a figure out by hand: constrained layout measures every text of every panel twice per figure, which was
# a third of a report's plot time; the figures below are regular (rows of panels, a title, a legend at the right or
# below, a footer), so measuring the few texts that set their margins once is enough.
_PAD = 0.08  # inches between neighbours
_TITLE_IN = 0.27  # a panel title line (10 pt)


def _inches(box, fig) -> tuple[float, float]:
    """A box's width and height in inches; nothing (an axis whose labels are all hidden) takes no room."""
    return (box.width / fig.dpi, box.height / fig.dpi) if box is not None else (0.0, 0.0)


def _text_height(text, fig, renderer) -> float:
    return _inches(text.get_window_extent(renderer), fig)[1] if text is not None and text.get_text() else 0.0


def fixed_layout(fig, axes: list, title: str, subtitle: str | None, legend=None, legend_below: bool = False) -> None:
    """Give ``fig`` its ``title`` and footer (``subtitle``) and place ``axes`` (rows of panels, all drawn and scaled)
    by hand: room on the left for the first column's y axis, between panels for theirs and for the row above's x
    axis and the row below's titles, on top for the title, the first row's titles and a time axis, at the bottom for
    the last row's x axis, the footer and ``legend`` when ``legend_below``, else on the right for ``legend``, which
    is placed there. The figure is then finished without a footer of its own (finish_figure(fig, path, None))."""
    renderer = fig.canvas.get_renderer()
    width, height = fig.get_size_inches()
    rows, columns = len(axes), max(len(row) for row in axes)
    head = fig.text(0.5, 1 - _PAD / height, title, ha="center", va="top", fontsize="large")
    foot = fig.text(1 - _PAD / width, _PAD / height, subtitle, ha="right", va="bottom", fontsize=9,
                    color="#b00020") if subtitle else None

    def y_axis(ax) -> float:
        return _inches(ax.yaxis.get_tightbbox(renderer), fig)[0] if ax.yaxis.get_visible() else 0.0

    def x_axis(ax) -> float:
        return _inches(ax.xaxis.get_tightbbox(renderer), fig)[1] if ax.xaxis.get_visible() else 0.0

    def above(ax) -> float:
        titled = any(ax.get_title(loc) for loc in ("left", "center", "right"))
        extra = sum(_inches(child.get_tightbbox(renderer), fig)[1] + _PAD for child in ax.child_axes)
        return (_TITLE_IN if titled else 0.0) + extra

    legend_w = legend_h = 0.0
    if legend is not None:
        legend_w, legend_h = _inches(legend.get_window_extent(renderer), fig)
    left = max(y_axis(row[0]) for row in axes) + _PAD * 2
    column_gap = max((y_axis(row[c]) for row in axes for c in range(1, len(row))), default=0.0) + _PAD * 3
    right = (legend_w + _PAD * 3) if legend is not None and not legend_below else _PAD * 3
    top = _text_height(head, fig, renderer) + _PAD * 3 + above(axes[0][0])
    footer = _text_height(foot, fig, renderer)
    bottom = max(x_axis(ax) for ax in axes[-1]) + footer + _PAD * 3 + \
        (legend_h + _PAD * 2 if legend is not None and legend_below else 0.0)
    row_gap = max((x_axis(ax) for row in axes[:-1] for ax in row), default=0.0) + \
        max((above(ax) for row in axes[1:] for ax in row), default=0.0) + _PAD * 3
    panel_w = max(0.5, (width - left - right - column_gap * (columns - 1)) / columns)
    panel_h = max(0.5, (height - top - bottom - row_gap * (rows - 1)) / rows)
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height, bottom=bottom / height,
                        wspace=column_gap / panel_w, hspace=row_gap / panel_h)
    if legend is not None:
        if legend_below:
            legend.set_bbox_to_anchor((0.5, (footer + _PAD * 2) / height), transform=fig.transFigure)
            legend.set_loc("lower center")
        else:
            legend.set_bbox_to_anchor((1 - (legend_w + _PAD * 1.5) / width, 0.5), transform=fig.transFigure)
            legend.set_loc("center left")


def stamp(ax, text: str, steady: bool | None) -> None:
    """The verdict of what the panel shows, above its frame on the right (it never hides a point): STEADY in green,
    NOT STEADY in red, anything else in grey."""
    color = STEADY_COLORS.get(steady, "#455a64") if steady is not None else "#455a64"
    ax.set_title(text, loc="right", fontsize=9.5, color=color, fontweight="bold")


def time_axis(ax, times_s: list, label: str = "Time at the round's end since the first round started") -> None:
    """A second x axis on top of a per-round axis: the time at the end of some rounds (about six labels), in the
    unit that suits the span, from the round files' own clocks (recorded_at, fio's run time)."""
    pairs = [(index + 1, t) for index, t in enumerate(times_s or []) if t is not None]
    if len(pairs) < 2:
        return
    span = pairs[-1][1]
    unit, div = ("h", 3600.0) if span >= 7200 else ("min", 60.0) if span >= 120 else ("s", 1.0)
    step = max(1, -(-len(pairs) // 6))
    chosen = pairs[::step]
    top = ax.secondary_xaxis("top")
    top.set_xticks([r for r, dummy in chosen], [f"{t / div:,.{1 if t / div < 100 else 0}f}" for dummy, t in chosen])
    top.tick_params(labelsize=8.5, colors="#546e7a")
    top.set_xlabel(f"{label} ({unit})", fontsize=9, color="#546e7a")


def shared_legend(fig, axes, title: str | None = None, loc: str = "outside right center", ncol: int = 1,
                  extra: list | None = None):
    """One legend for every panel: each label once, in the order first drawn (panels that repeat the same series
    would otherwise list it once each), then ``extra`` [(handle, label)] (symbols that explain markers)."""
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label and not label.startswith("_") and label not in labels:
                handles.append(handle)
                labels.append(label)
    for handle, label in extra or []:
        handles.append(handle)
        labels.append(label)
    if not handles:
        return None
    return fig.legend(handles, labels, loc=loc, fontsize=9, title=title, title_fontsize=9, ncol=ncol)


# Rounds to mark on the convergence plots drawn inside round_marks(): the report sets them per test from the drive's
# health per round, so the test modules draw them without passing them along.
_ROUND_MARKS: contextvars.ContextVar = contextvars.ContextVar("pts_round_marks", default=None)
MARK_STYLES = {"throttled": ("#b71c1c", "drive throttled (thermal management)"),
               "warning": ("#ef6c00", "drive at or past its warning temperature")}


@contextlib.contextmanager
def round_marks(marks: list[dict] | None):
    """Mark ``marks`` ([{round, kind, series}]) on every convergence plot drawn inside the block."""
    token = _ROUND_MARKS.set(marks or None)
    try:
        yield
    finally:
        _ROUND_MARKS.reset(token)


def segment_marks(segment: str) -> list[dict]:
    """The marks of one segment of a test (its round numbers start again at 1), as marks of the whole plot: for a
    test of several phases whose plots each show one."""
    return [dict(mark, series=None) for mark in _ROUND_MARKS.get() or [] if mark.get("series") == segment]


def _draw_marks(ax, series: dict, marks: list[dict]) -> list[tuple[str, str]]:
    """A mark with a series (a throughput block size) rings that series' point; one without shades its round. A
    round marked both ways shows the throttling. Returns the (kind, "ring" or "span") drawn, for the legend."""
    strongest: dict = {}
    for mark in marks:
        key = (int(mark["round"]), mark.get("series"))
        if strongest.get(key) != "throttled":
            strongest[key] = mark.get("kind") if mark.get("kind") in MARK_STYLES else "warning"
    drawn = []
    for (number, label), kind in strongest.items():
        color = MARK_STYLES[kind][0]
        if label is None:
            ax.axvspan(number - 0.45, number + 0.45, color=color, alpha=0.16, zorder=1)
            drawn.append((kind, "span"))
            continue
        values = series.get(label) or []
        if number - 1 < len(values) and values[number - 1] is not None:
            ax.plot([number], [values[number - 1]], linestyle="none", marker="o", markersize=14,
                    markerfacecolor="none", markeredgecolor=color, markeredgewidth=2.2, zorder=6)
            drawn.append((kind, "ring"))
    return drawn


def mark_handle(kind: str, style: str):
    """The legend entry of a mark as it is drawn: a shaded round or a ring."""
    color = MARK_STYLES[kind][0]
    if style == "ring":
        return plt.Line2D([], [], linestyle="none", marker="o", markersize=11, markerfacecolor="none",
                          markeredgecolor=color, markeredgewidth=2.2)
    return plt.Line2D([], [], linestyle="none", marker="s", markersize=10, color=color, alpha=0.4)


def off_scale(ax, x: float, value: float, color, text: str, line: int = 0) -> bool:
    """A value out of the axis' scale (round 1's reads of a just-purged drive): hollow at its value when that lies
    on the axis, else a hollow triangle on the top frame at its round with the value beside it (``line``: how many
    such labels of the same round are above it). Returns whether it was above the axis."""
    dummy, top = ax.get_ylim()
    if value <= top:
        ax.plot([x], [value], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                markeredgecolor=color, markeredgewidth=2, zorder=4)
        return False
    ax.plot([x], [top], linestyle="none", marker="^", markersize=10, markerfacecolor="white", markeredgecolor=color,
            markeredgewidth=2, zorder=6, clip_on=False)
    ax.annotate(text, (x, top), xytext=(8, -3 - 11 * line), textcoords="offset points", fontsize=9, color=color,
                va="top", annotation_clip=False)
    return True


def convergence(path: str, title: str, ylabel: str, panels: dict, highlight: str | None = None,
                highlight_panel: str | None = None, window_rounds: list[int] | None = None,
                legend_title: str = "Block size", subtitle: str | None = None, windows: dict | None = None,
                steady_at: dict | None = None, marks: list[dict] | None = None, hollow: dict | None = None,
                hollow_label: str = "", verdicts: dict | None = None, times: list | None = None,
                time_label: str = "Time at the round's end since the first round started") -> str:
    """A DV family over all rounds, one panel per entry of ``panels`` ({panel title: {block size: values}}), the
    panels on one shared y scale (zero-based, or log when the values span decades) and one legend.

    The DV's line (label ``highlight`` in panel ``highlight_panel``, or in the only panel) is drawn bold in its block
    size's colour. ``window_rounds`` shades one measurement window; ``windows`` ({label: rounds}) draws each
    series' own window with filled markers instead, and ``steady_at`` ({(panel, label): round}) stars the round where
    a DV became steady. ``marks`` ([{round, kind, series}], by default those of round_marks()) flags the rounds in
    which the drive throttled or passed its warning temperature: a shaded round, or a ring on the series' point.
    ``hollow`` ({(panel, label): round}) draws one point of a series hollow, off its line and out of the axis'
    scale (a triangle on the top frame when it lies above), named ``hollow_label`` in the legend: a value measured
    under other conditions (round 1's reads of a drive purged just before them). ``verdicts`` ({panel: (text,
    steady)}) stamps each panel's verdict above its frame; ``times`` (seconds at the end of each round) adds a time
    axis on top.
    """
    marks = marks if marks is not None else _ROUND_MARKS.get()
    hollow = hollow or {}
    marked: dict = {}
    fig, axes = plt.subplots(len(panels), 1, figsize=(WIDTH, 2.6 + 2.5 * len(panels)), sharex=True, sharey=True,
                             squeeze=False)
    longest = 1
    values_all = []
    off: list = []
    for ax, (panel, series) in zip(axes[:, 0], panels.items()):
        for index, label in enumerate(by_block_size(series)):
            values = series[label]
            flagged = hollow.get((panel, label))
            rounds = [i + 1 for i, v in enumerate(values) if v is not None and i + 1 != flagged]
            points = [values[r - 1] for r in rounds]
            values_all.extend(points)
            longest = max(longest, len(values))
            color = bs_color(label, index)
            if flagged and flagged - 1 < len(values) and values[flagged - 1] is not None:
                off.append((ax, flagged, values[flagged - 1], color))
            bold = label == highlight and (highlight_panel is None or panel == highlight_panel)
            ax.plot(rounds, points, **marker_style(len(points), 5 if bold else 3.5), linewidth=2.8 if bold else 1.2,
                    color=color, markeredgecolor="black" if bold else color,
                    label=f"{label} (DV)" if bold else label, zorder=3 if bold else 2)
            own = (windows or {}).get(label)
            if own:
                inside = [(r, values[r - 1]) for r in own if r - 1 < len(values) and values[r - 1] is not None
                          and r != flagged]
                ax.plot([r for r, dummy in inside], [v for dummy, v in inside], linestyle="none", marker="o",
                        markersize=7, color=color, markeredgecolor="black", zorder=4)
            star = (steady_at or {}).get((panel, label))
            if star and star - 1 < len(values) and values[star - 1] is not None:
                ax.plot([star], [values[star - 1]], linestyle="none", marker="*", markersize=15, color=color,
                        markeredgecolor="black", zorder=5)
        if window_rounds:
            ax.axvspan(min(window_rounds) - 0.4, max(window_rounds) + 0.4, color="#90a4ae", alpha=0.15,
                       label="measurement window")
        if marks:
            marked[id(ax)] = _draw_marks(ax, series, marks)
        if panel:
            ax.set_title(panel, fontsize=10, loc="left")
        if (verdicts or {}).get(panel):
            stamp(ax, *verdicts[panel])
        ax.grid(True, which="both", alpha=0.3)
    scale_axes(axes[:, 0], values_all, ylabel)
    above: dict = {}
    for ax, flagged, value, color in sorted(off, key=lambda o: -o[2]):
        line = above.get((id(ax), flagged), 0)
        if off_scale(ax, flagged, value, color, f"{figure_text(value)} ↑", line):
            above[(id(ax), flagged)] = line + 1
    extra = []
    if off:
        extra.append((plt.Line2D([], [], linestyle="none", marker="o", markersize=9, markerfacecolor="white",
                                 markeredgecolor="black", markeredgewidth=2), hollow_label + (" (▲: above the axis)"
                                                                                              if above else "")))
    if windows:
        extra.append((plt.Line2D([], [], linestyle="none", marker="o", markersize=7, color="white",
                                 markeredgecolor="black"), "its measurement window"))
    if steady_at:
        extra.append((plt.Line2D([], [], linestyle="none", marker="*", markersize=13, color="white",
                                 markeredgecolor="black"), "steady from this round"))
    kinds = {drawn for ax in axes[:, 0] for drawn in marked.get(id(ax)) or []}
    for kind, style in sorted(kinds, key=lambda drawn: list(MARK_STYLES).index(drawn[0])):
        extra.append((mark_handle(kind, style), MARK_STYLES[kind][1] + (", this block size" if style == "ring" else "")))
    # One legend for all panels (they share their series), the symbols that explain markers after the series.
    legend = shared_legend(fig, axes[:, 0], legend_title, loc="center right", extra=extra)
    axes[-1, 0].set_xlabel("Round")
    round_ticks(axes[-1, 0], longest)
    if times:
        time_axis(axes[0, 0], times, time_label)
    fixed_layout(fig, [[ax] for ax in axes[:, 0]], title, subtitle, legend)
    return finish_figure(fig, path, None)


def _verification_panel(ax, all_values: list[float], verdict: dict, exclude: tuple = ()) -> list[float]:
    """One DV across its rounds with the stop rule drawn as it is: the allowed max − min band (20 % of the window
    average wide, centred between the window's max and min: every window value inside it means the data excursion
    holds), the least-squares best fit and the steepest fits allowed (10 % of the average across the window). The
    verdict is stamped above the frame and its figures written under the round axis, where they hide no point.
    Rounds in ``exclude`` (round 1's reads of a purged drive) are drawn hollow afterwards and scale nothing."""
    rounds = [r for r in range(1, len(all_values) + 1) if r not in exclude]
    window_rounds = verdict.get("rounds") or []
    in_window = [r for r in rounds if r in window_rounds]
    ax.plot(rounds, [all_values[r - 1] for r in rounds], color="#9e9e9e", **marker_style(len(rounds), 3.5), linewidth=1,
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
        ax.hlines(average, lo, hi, colors="#2e7d32", linewidth=1.6, label=f"window average {figure_text(average)}")
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
    stamp(ax, "STEADY" if verdict.get("steady") else "NOT STEADY", bool(verdict.get("steady")))
    round_ticks(ax, len(all_values))
    ax.set_xlabel("Round" + figures)
    ax.grid(True, alpha=0.3)
    return shown


def _excluded(ax, all_values: list[float], exclude: tuple) -> None:
    for number in exclude:
        if 0 < number <= len(all_values) and all_values[number - 1] is not None:
            off_scale(ax, number, all_values[number - 1], "#616161", f"{figure_text(all_values[number - 1])} ↑")


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
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 5.0 if single else 5.4), squeeze=False)
    extra = []
    for ax, (name, values, verdict) in zip(axes[0], panels):
        skipped = tuple((exclude or {}).get(name) or ())
        shown = _verification_panel(ax, values, verdict, skipped)
        zero_y(ax, [v * 1.04 for v in shown if v is not None])
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
    fixed_layout(fig, [list(axes[0])], title, subtitle, legend, legend_below=not single)
    return finish_figure(fig, path, None)


def measurement_2d(path: str, title: str, ylabel: str, block_sizes: list[str], table: dict,
                   mixes: list[int], subtitle: str | None = None, verdict: tuple | None = None) -> str:
    """Window averages: value against block size (largest first), one line per R/W mix; ``verdict`` (text, steady)
    stamped above the frame."""
    fig, ax = plt.subplots(figsize=(WIDTH, 5.2))
    ordered = by_block_size(block_sizes)
    xs = list(range(len(ordered)))
    values_all = []
    for index, mix in enumerate(sorted(mixes, reverse=True)):
        ys = [(table.get(bs) or {}).get(str(mix)) for bs in ordered]
        points = [(x, y) for x, y in zip(xs, ys) if y is not None]
        values_all.extend(y for dummy, y in points)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", color=_color(mix, index),
                label=_mix_label(mix))
    scale_axes([ax], values_all, ylabel)
    ax.set_xticks(xs, ordered)
    ax.set_xlabel("Block size")
    if verdict:
        stamp(ax, *verdict)
    ax.grid(True, which="both", alpha=0.3)
    legend = fig.legend(*ax.get_legend_handles_labels(), title="R/W mix %", loc="center right", fontsize=9,
                        title_fontsize=9)
    fixed_layout(fig, [[ax]], title, subtitle, legend)
    return finish_figure(fig, path, None)


def percentiles(path: str, title: str, panels: list[tuple[str, dict]], subtitle: str | None = None) -> str:
    """Latency percentiles: per panel (a block size), one line per R/W mix and direction across p50 … p99.99 and
    max, on one shared axis, one legend above the panels."""
    fig, axes = plt.subplots(1, len(panels), figsize=(WIDTH, 4.9), sharey=True, squeeze=False)
    values_all = []
    for ax, (name, series) in zip(axes[0], panels):
        for index, (label, points) in enumerate(series.items()):
            mix = int(label.split("/")[0])
            xs = [i for i, (dummy, v) in enumerate(points) if v is not None]
            ys = [v for dummy, v in points if v is not None]
            values_all += ys
            color, style = _color(mix, index), "-" if label.endswith("write") else "--"
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
    scale_axes(axes[0], values_all, "latency (ms)")
    legend = shared_legend(fig, axes[0], "R/W mix, direction", loc="center right")
    fixed_layout(fig, [list(axes[0])], title, subtitle, legend)
    return finish_figure(fig, path, None)


def grouped_bars(path: str, title: str, ylabel: str, categories: list[str], series: dict,
                 subtitle: str | None = None, verdict: tuple | None = None) -> str:
    """Side-by-side bars per category (block size), one bar per series (read, write), values printed on top;
    ``verdict`` (text, steady) stamped above the frame."""
    fig, ax = plt.subplots(figsize=(WIDTH, 5.2))
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
        stamp(ax, *verdict)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper right")
    fixed_layout(fig, [[ax]], title, subtitle)
    return finish_figure(fig, path, None)


def xy_panels(path: str, title: str, panels: list[tuple], subtitle: str | None = None,
              markers: list[list[tuple[float, str]]] | None = None) -> str:
    """Side-by-side line panels on one shared y scale, each (xlabel, ylabel, xs, {label: ys}, log y); ``markers``
    per panel draws labelled vertical lines (write saturation: 1 ×, 2 × … the user capacity written)."""
    fig, axes = plt.subplots(1, len(panels), figsize=(min(WIDTH, 6.0 * len(panels)), 4.8), squeeze=False, sharey=True)
    styles = {"mean": ("#0d47a1", "-"), "max": ("#c62828", "--")}
    values_all = []
    for ax, (xlabel, dummy, xs, series, dummy2) in zip(axes[0], panels):
        for index, (label, ys) in enumerate(series.items()):
            points = [(x, y) for x, y in zip(xs, ys) if y is not None]
            values_all += [y for dummy3, y in points]
            color, line = styles.get(label, (plt.get_cmap("tab10")(index), "-"))
            xs_, ys_ = [p[0] for p in points], [p[1] for p in points]
            if len(points) <= MARKERS_UP_TO or label == "max":
                ax.plot(xs_, ys_, color=color, linestyle=line, **marker_style(len(points), 2.5), linewidth=1.2, label=label)
                continue
            # Hundreds of rounds: every round as a thin line, and a running mean that shows the trend through the noise.
            span = max(3, len(points) // 50)
            ax.plot(xs_, ys_, color=color, linestyle=line, linewidth=0.6, alpha=0.45, label=f"{label}, each round")
            ax.plot(xs_[span - 1:], _running_mean(ys_, span), color=color, linestyle=line, linewidth=2.0,
                    label=f"{label}, running mean of {span} rounds")
        if xs and all(isinstance(x, int) for x in xs):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds: no 1.5th round
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
    if panels[0][4]:
        for ax in axes[0]:
            ax.set_ylabel(panels[0][1])
            log_y(ax, values_all)
    else:
        scale_axes(axes[0], values_all, panels[0][1])
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
    fixed_layout(fig, [list(axes[0])], title, subtitle)
    return finish_figure(fig, path, None)


def cohort(path: str, title: str, panels: list[tuple[str, list[tuple[str, float, bool]]]],
           subtitle: str | None = None) -> str:
    """One panel per figure: every drive of a cohort as a point, the median as a line, outliers in red."""
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 1.0, 4.6), layout="constrained",
                             squeeze=False)
    for ax, (label, points) in zip(axes[0], panels):
        values = [value for dummy, value, dummy2 in points]
        spread = [((index % 7) - 3) * 0.05 for index in range(len(points))]  # jitter so equal values stay visible
        ax.scatter(spread, values, c=["#c62828" if flagged else "#1f77b4" for dummy, dummy2, flagged in points],
                   s=28, zorder=3)
        for (drive_id, value, flagged), x in zip(points, spread):
            if flagged:
                ax.annotate(drive_id, (x, value), textcoords="offset points", xytext=(6, 0), fontsize=7,
                            color="#c62828")
        median = statistics.median(values)
        ax.axhline(median, color="#2e7d32", linewidth=1.5, label=f"median {figure_text(median)}")
        ax.set_xlim(-0.6, 0.6)
        ax.set_xticks([])
        ax.set_title(label, fontsize=9)
        ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)
