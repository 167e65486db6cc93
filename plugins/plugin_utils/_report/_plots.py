# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""PTS plots with matplotlib (Agg). Each function takes plain numbers and writes one PNG."""

from __future__ import annotations

import contextlib
import contextvars
import io
import math

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


def mix_label(mix: int) -> str:
    return f"{mix}/{100 - mix}"


def mix_color(mix: int, index: int):
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


def running_mean(values: list[float], span: int) -> list[float]:
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
    # Whole or not at all, by the results tree's one writer (a full disk leaves the old plot; a link is not followed).
    try:
        # One draw (savefig draws twice under a layout engine), then an RGB PNG: no alpha channel, which the PDF
        # engine would otherwise split off and compress again for every plot; fast compression, no metadata
        # (the same figures give the same bytes).
        fig.set_dpi(DPI)
        fig.canvas.draw()
        width, height = fig.canvas.get_width_height(physical=True)
        image = Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
        png = io.BytesIO()
        image.save(png, format="PNG", compress_level=1)
        _results.atomic_write_bytes(path, png.getvalue())
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


def fixed_layout(fig, axes: list, title: str, subtitle: str | None, legend=None, legend_below: bool = False,
                 stamp: tuple[str, bool] | None = None) -> None:
    """Give ``fig`` its ``title`` and footer (``subtitle``) and place ``axes`` (rows of panels, all drawn and scaled)
    by hand: room on the left for the first column's y axis, between panels for theirs and for the row above's x
    axis and the row below's titles, on top for the title, the first row's titles and a time axis, at the bottom for
    the last row's x axis, the footer and ``legend`` when ``legend_below``, else on the right for ``legend``, which
    is placed there. The figure is then finished without a footer of its own (finish_figure(fig, path, None))."""
    renderer = fig.canvas.get_renderer()
    width, height = fig.get_size_inches()
    rows, columns = len(axes), max(len(row) for row in axes)
    head = fig.text(0.5, 1 - _PAD / height, title, ha="center", va="top", fontsize="large")
    # The window's verdict on a line of its own under the title, at the right (above a row of narrow panels it
    # would run into their names).
    mark = fig.text(1 - _PAD * 3 / width, 1 - (_PAD * 2 + _text_height(head, fig, renderer)) / height, stamp[0],
                    ha="right", va="top", fontsize=9.5, fontweight="bold",
                    color=STEADY_COLORS.get(stamp[1], "#455a64")) if stamp else None
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
    top = _text_height(head, fig, renderer) + _PAD * 3 + above(axes[0][0]) + \
        (_text_height(mark, fig, renderer) + _PAD if mark is not None else 0.0)
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


def title_with_stamp(fig, title: str, verdict: tuple[str, bool] | None) -> None:
    """A constrained-layout figure's title, and the window's verdict on a line of its own under it at the right (over
    several panels no panel title has room for it): the title gets an empty second line, which the layout keeps
    free, and the verdict is written there."""
    if not verdict:
        fig.suptitle(title)
        return
    head = fig.suptitle(title + "\n ")
    size = head.get_fontsize()
    line = size * 1.2 / 72.0 / fig.get_size_inches()[1]
    fig.text(0.99, head.get_position()[1] - line, verdict[0], ha="right", va="top", fontsize=9.5, fontweight="bold",
             color=STEADY_COLORS.get(verdict[1], "#455a64"))


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
ROUND_MARKS: contextvars.ContextVar = contextvars.ContextVar("pts_round_marks", default=None)
MARK_STYLES = {"throttled": ("#b71c1c", "drive throttled (thermal management)"),
               "warning": ("#ef6c00", "drive at or past its warning temperature")}


@contextlib.contextmanager
def round_marks(marks: list[dict] | None):
    """Mark ``marks`` ([{round, kind, series}]) on every convergence plot drawn inside the block."""
    token = ROUND_MARKS.set(marks or None)
    try:
        yield
    finally:
        ROUND_MARKS.reset(token)


def segment_marks(segment: str) -> list[dict]:
    """The marks of one segment of a test (its round numbers start again at 1), as marks of the whole plot: for a
    test of several phases whose plots each show one."""
    return [dict(mark, series=None) for mark in ROUND_MARKS.get() or [] if mark.get("series") == segment]


def draw_marks(ax, series: dict, marks: list[dict]) -> list[tuple[str, str]]:
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
