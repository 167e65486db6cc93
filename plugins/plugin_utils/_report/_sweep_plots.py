# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Plots of the sweep tests: heat maps, line panels over a categorical axis, the demand ramp."""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import (
    MIX_COLORS, finish_figure, log_y, spans_decades, thousands_tick, bs_color, by_block_size)

try:
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm
    from matplotlib.ticker import FuncFormatter
except ImportError:  # _plots.available() says so; nothing here is called then
    pass


def _cell_text(value: float | None, digits: int) -> str:
    if value is None:
        return "n/a"
    if digits == 0 and value >= 10000:
        return f"{value / 1000:,.1f}k"
    return f"{value:,.{digits}f}"


def _two_five(value, dummy):
    """Minor log ticks labelled at 2 and 5 only (a colour bar full of 0.6, 0.7, 0.8 cannot be read)."""
    if value <= 0:
        return ""
    mantissa = value / 10 ** math.floor(math.log10(value))
    return thousands_tick(value, dummy) if round(mantissa, 6) in (2.0, 5.0) else ""


def heatmaps(path: str, title: str, xlabel: str, ylabel: str, xticks: list[str], yticks: list[str],
             panels: list[tuple[str, list[list[float | None]], int]], subtitle: str | None = None,
             verdict: tuple[str, bool] | None = None) -> str:
    """One heat map per panel (title, grid[row][column], digits), every cell annotated with its value; ``verdict``
    (text, steady): the state of the window its values come from, stamped under the title.

    Colours are per panel and logarithmic when a panel's values span more than a decade. The figure is as wide as
    every other plot at least (_plots.WIDTH): a narrower one would print its text larger than theirs on the page.
    """
    width = max(4.2, 0.9 * len(xticks) + 1.8)
    height = 0.55 * len(yticks) + 2.2
    # Wide grids stack their panels so the page stays readable.
    stacked = len(xticks) > 4
    # Wide enough for the title too: a narrow grid (two block sizes) must not cut it off.
    width = max(width, (0.085 * len(title) + 0.6) / (1 if stacked else max(1, len(panels))))
    width = max(width, _plots.WIDTH / (1 if stacked else max(1, len(panels))))
    shape = (len(panels), 1) if stacked else (1, len(panels))
    fig, axes = plt.subplots(*shape, figsize=(width, height * len(panels) + 0.6) if stacked else
                             (width * len(panels), height + 0.4), layout="constrained", squeeze=False)
    for ax, (panel, grid, digits) in zip(axes.flat, panels):
        values = [v for row in grid for v in row if v is not None and v > 0]
        data = [[math.nan if v is None else v for v in row] for row in grid]
        norm = LogNorm(min(values), max(values)) if values and max(values) / min(values) > 10 else None
        image = ax.imshow(data, cmap="viridis", aspect="auto", origin="lower", norm=norm)
        scale = fig.colorbar(image, ax=ax, shrink=0.85, format=FuncFormatter(thousands_tick),
                             label="log colour scale" if norm else None)
        scale.ax.yaxis.set_minor_formatter(FuncFormatter(_two_five))
        scale.ax.tick_params(which="minor", labelsize=7)
        low, high = (min(values), max(values)) if values else (0, 1)
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                # Dark text on the bright end of viridis, light text on the dark end.
                bright = value is not None and (
                    (math.log(value / low) / math.log(high / low) if norm and value > 0 else
                     (value - low) / (high - low) if high > low else 0.5) > 0.6)
                ax.text(c, r, _cell_text(value, digits), ha="center", va="center", fontsize=8,
                        color="black" if bright else "white")
        ax.set_xticks(range(len(xticks)), xticks)
        ax.set_yticks(range(len(yticks)), yticks)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(panel, fontsize=10)
    _plots.title_with_stamp(fig, title, verdict)
    return finish_figure(fig, path, subtitle)


def _series_color(legend_title: str | None, label: str, index: int, count: int):
    """Block sizes and R/W mixes keep the colour they have in every plot; other series (queue depths) a ramp."""
    if legend_title == "Block size":
        return bs_color(label, index)
    if legend_title == "R/W mix" and label.split("/")[0].isdigit() and int(label.split("/")[0]) in MIX_COLORS:
        return MIX_COLORS[int(label.split("/")[0])]
    return plt.get_cmap("viridis")(index / max(1, count - 1) * 0.9)


def line_panels(path: str, title: str, panels: list[tuple], xticks: list[str] | None = None,
                legend_title: str | None = None, subtitle: str | None = None, share: bool = False) -> str:
    """Side-by-side line panels, each (panel title, xlabel, ylabel, {label: ys}); the x axis is categorical
    (``xticks``, one point per tick) and y is logarithmic (and labelled so) where a panel's values span decades.
    ``share``: the panels show one quantity and are compared, so they share one y scale."""
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels), 4.8), layout="constrained", squeeze=False,
                             sharey=share)
    every = [y for panel in panels for ys in panel[3].values() for y in ys if y is not None]
    for ax, (panel, xlabel, ylabel, series) in zip(axes[0], panels):
        values = []
        labels = by_block_size(series) if legend_title == "Block size" else list(series)
        for index, label in enumerate(labels):
            points = [(x, y) for x, y in enumerate(series[label]) if y is not None]
            values.extend(y for dummy, y in points)
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3.5, linewidth=1.4,
                    color=_series_color(legend_title, label, index, len(series)), label=label)
        values = every if share else values
        ax.set_ylabel(ylabel)
        if spans_decades(values):
            log_y(ax, values)
        else:
            ax.set_ylim(bottom=0, top=max(values or [1]) * 1.08)
            ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
        if xticks:
            step = max(1, math.ceil(len(xticks) / 12))
            ax.set_xticks(range(0, len(xticks), step), xticks[::step])
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, title=legend_title, title_fontsize=8)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def demand(path: str, title: str, ramps: list[dict], subtitle: str | None = None) -> str:
    """Latency vs demand: achieved against offered IOPS (with the ideal line and the knee), and mean and max
    latency against offered IOPS; one colour per ramp (random read, random write)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 5.0), layout="constrained")
    colors = {"randread": "#1f77b4", "randwrite": "#c62828"}
    top = 0.0
    latencies = []
    for ramp in ramps:
        color = colors.get(ramp["name"], "#555555")
        offered = [s["offered_iops"] for s in ramp["steps"]]
        top = max(top, *offered)
        left.plot(offered, [s["achieved_iops"] for s in ramp["steps"]], marker="o", markersize=3.5, color=color,
                  label=f"{ramp['label']} achieved")
        knee = ramp.get("knee")
        if knee:
            left.plot([knee["offered_iops"]], [knee["achieved_iops"]], marker="*", markersize=13, color=color,
                      markeredgecolor="black", linestyle="none",
                      label=f"{ramp['label']} knee: {knee['offered_iops']:,} offered")
        means = [s["lat_mean_ms"] for s in ramp["steps"]]
        maxima = [s["lat_max_ms"] for s in ramp["steps"]]
        latencies += [v for v in means + maxima if v]
        right.plot(offered, means, marker="o", markersize=3.5, color=color, label=f"{ramp['label']} mean")
        right.plot(offered, maxima, marker="^", markersize=3.5, color=color, linestyle="--",
                   label=f"{ramp['label']} max")
    left.plot([0, top], [0, top], color="#888888", linewidth=1, linestyle=":", label="achieved = offered")
    left.set_xlim(left=0)
    left.set_ylim(bottom=0)
    for ax in (left, right):
        ax.xaxis.set_major_formatter(FuncFormatter(thousands_tick))
        ax.set_xlabel("Offered IOPS (fio rate_iops)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    left.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
    left.set_ylabel("Achieved IOPS")
    left.set_title("Achieved against offered IOPS", fontsize=10)
    right.set_ylabel("Latency (ms)")
    right.set_title("Mean and maximum latency against offered IOPS", fontsize=10)
    if latencies:
        log_y(right, latencies)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)
