# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""PTS plots with matplotlib (Agg). Each function takes plain numbers and writes one PNG."""

from __future__ import annotations

import os
import statistics
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator
except ImportError as exc:
    MATPLOTLIB_IMPORT_ERROR: ImportError | None = exc
else:
    MATPLOTLIB_IMPORT_ERROR = None

DPI = 110
MIX_COLORS = {
    100: "#1f77b4", 95: "#17becf", 65: "#2ca02c", 50: "#bcbd22", 35: "#ff7f0e", 5: "#d62728", 0: "#7f1d1d",
}


def available() -> bool:
    return MATPLOTLIB_IMPORT_ERROR is None


def _mix_label(mix: int) -> str:
    return f"{mix}/{100 - mix}"


def _color(mix: int, index: int):
    return MIX_COLORS.get(mix, plt.get_cmap("tab10")(index % 10))


def _thousands(value, dummy):
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def _spans_decades(values) -> bool:
    positive = [v for v in values if v]
    return bool(positive) and max(positive) / min(positive) >= 20


def _figure(value: float) -> str:
    """A value for a legend: enough digits for IOPS and for sub-millisecond latencies alike."""
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:.3f}" if abs(value) >= 1 else f"{value:.4f}"


def _log_y(ax) -> None:
    """Log scale with plain tick labels (1k, 2, 0.5) instead of 2×10^0 on the minor ticks."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
    ax.yaxis.set_minor_formatter(FuncFormatter(_thousands))
    ax.tick_params(axis="y", which="minor", labelsize=7)


# Up to this many rounds every round gets a tick and a marker; longer runs (a write saturation of 1,500 rounds)
# get a handful of integer ticks and plain lines.
EVERY_ROUND_UP_TO = 30
MARKERS_UP_TO = 150


def _round_ticks(ax, rounds: int) -> None:
    if rounds <= EVERY_ROUND_UP_TO:
        ax.set_xticks(range(1, rounds + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _marker(points: int, size: float) -> dict:
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


def _finish(fig, path: str, subtitle: str | None) -> str:
    if subtitle:
        # A figure-level label below every axis: constrained layout keeps room for it.
        fig.supxlabel(subtitle, x=0.99, ha="right", fontsize=8, color="#b00020")
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    # Whole or not at all: drawn to a temporary file, then renamed over the plot (a full disk leaves the old one).
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".png", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            # Fast PNG compression: the plots are small and a drive report draws about a dozen of them.
            fig.savefig(handle, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
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


def convergence(path: str, title: str, ylabel: str, panels: dict, highlight: str | None = None,
                highlight_panel: str | None = None, window_rounds: list[int] | None = None,
                legend_title: str = "Block size", subtitle: str | None = None) -> str:
    """A DV family over all rounds, one panel per entry of ``panels`` ({panel title: {label: values}}).

    The DV's line (label ``highlight`` in panel ``highlight_panel``, or in the only panel) is drawn bold.
    """
    fig, axes = plt.subplots(len(panels), 1, figsize=(9.5, 3.2 + 2.6 * len(panels)), layout="constrained",
                             sharex=True, squeeze=False)
    cmap = plt.get_cmap("tab10")
    longest = 1
    for ax, (panel, series) in zip(axes[:, 0], panels.items()):
        values_all = []
        for index, (label, values) in enumerate(series.items()):
            rounds = [i + 1 for i, v in enumerate(values) if v is not None]
            points = [v for v in values if v is not None]
            values_all.extend(points)
            longest = max(longest, len(values))
            bold = label == highlight and (highlight_panel is None or panel == highlight_panel)
            ax.plot(rounds, points, **_marker(len(points), 5 if bold else 3.5), linewidth=2.6 if bold else 1.2,
                    color="black" if bold else cmap(index % 10), label=f"{label} (DV)" if bold else label,
                    zorder=3 if bold else 2)
        if window_rounds:
            ax.axvspan(min(window_rounds) - 0.4, max(window_rounds) + 0.4, color="#90a4ae", alpha=0.15,
                       label="measurement window")
        ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        if _spans_decades(values_all):
            _log_y(ax)
        ax.set_ylabel(ylabel)
        if panel:
            ax.set_title(panel, fontsize=10, loc="left")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(title=legend_title, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    axes[-1, 0].set_xlabel("Round")
    _round_ticks(axes[-1, 0], longest)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def verification(path: str, title: str, ylabel: str, all_values: list[float], verdict: dict,
                 subtitle: str | None = None) -> str:
    """The DV across the window with its average, the +/-10 % band (20 % range) and the best-fit line."""
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    rounds = list(range(1, len(all_values) + 1))
    window_rounds = verdict.get("rounds") or []
    in_window = [r for r in rounds if r in window_rounds]
    ax.plot(rounds, all_values, color="#9e9e9e", **_marker(len(rounds), 3.5), linewidth=1, label="DV, all rounds")
    ax.plot(in_window, [all_values[r - 1] for r in in_window], color="#0d47a1", marker="o", markersize=7,
            linewidth=2, label="DV, measurement window")
    average = verdict.get("average")
    if average is not None and in_window:
        lo, hi = min(in_window) - 0.3, max(in_window) + 0.3
        limit = verdict["max_data_excursion_pct"] / 200.0
        ax.hlines(average, lo, hi, colors="#2e7d32", linewidth=2, label=f"window average {_figure(average)}")
        ax.fill_between([lo, hi], average * (1 - limit), average * (1 + limit), color="#66bb6a", alpha=0.18,
                        label=f"average ±{verdict['max_data_excursion_pct'] / 2:g} % (orientation)")
        xs = [min(in_window), max(in_window)]
        ax.plot(xs, [verdict["intercept"] + verdict["slope"] * x for x in xs], color="#c62828", linestyle="--",
                linewidth=2, label="least-squares best fit")
        steady = "STEADY" if verdict.get("steady") else "NOT STEADY"
        lines = [steady]
        if verdict.get("data_excursion_pct") is not None:
            lines.append(f"max − min {verdict['data_excursion_pct']:.1f} % of average (≤ {verdict['max_data_excursion_pct']:g} %)")
            lines.append(f"best-fit excursion {verdict['slope_excursion_pct']:.1f} % (≤ {verdict['max_slope_excursion_pct']:g} %)")
        ax.text(0.01, 0.03, "\n".join(lines), transform=ax.transAxes, fontsize=9, va="bottom",
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="#2e7d32" if verdict.get("steady") else "#c62828"))
        top = max(*all_values, average * (1 + limit))
        ax.set_ylim(0, top * 1.12)
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    _round_ticks(ax, len(rounds))
    ax.set_xlabel("Round")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    return _finish(fig, path, subtitle)


def measurement_2d(path: str, title: str, ylabel: str, block_sizes: list[str], table: dict,
                   mixes: list[int], subtitle: str | None = None) -> str:
    """Window averages: value against block size, one line per R/W mix (log scale where it spans decades)."""
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    xs = list(range(len(block_sizes)))
    values_all = []
    for index, mix in enumerate(mixes):
        ys = [table[bs].get(str(mix)) for bs in block_sizes]
        points = [(x, y) for x, y in zip(xs, ys) if y is not None]
        values_all.extend(y for dummy, y in points)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", color=_color(mix, index),
                label=_mix_label(mix))
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    if _spans_decades(values_all):
        _log_y(ax)
    ax.set_xticks(xs, block_sizes)
    ax.set_xlabel("Block size")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="R/W mix %", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    return _finish(fig, path, subtitle)


def bars_3d(path: str, title: str, panels: list[tuple[str, list[str], dict]], mixes: list[int],
            subtitle: str | None = None) -> str:
    """Window averages as 3D bars (R/W mix x block size x value), one panel per (zlabel, block sizes, table)."""
    fig = plt.figure(figsize=(9.5, 6.0 * len(panels)), layout="constrained")
    for number, (zlabel, block_sizes, table) in enumerate(panels, 1):
        ax = fig.add_subplot(len(panels), 1, number, projection="3d")
        for mi, mix in enumerate(mixes):
            for bi, bs in enumerate(block_sizes):
                value = table[bs].get(str(mix))
                if value is None:
                    continue
                ax.bar3d(bi, mi, 0, 0.6, 0.6, value, color=_color(mix, mi), alpha=0.9, shade=True)
        ax.set_xticks([i + 0.3 for i in range(len(block_sizes))], block_sizes)
        ax.set_yticks([i + 0.3 for i in range(len(mixes))], [_mix_label(m) for m in mixes])
        ax.zaxis.set_major_formatter(FuncFormatter(_thousands))
        ax.set_xlabel("Block size")
        ax.set_ylabel("R/W mix %")
        ax.set_zlabel(zlabel)
        ax.view_init(elev=24, azim=-58)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def grouped_bars(path: str, title: str, ylabel: str, categories: list[str], series: dict,
                 subtitle: str | None = None) -> str:
    """Side-by-side bars per category (block size), one bar per series (read, write), values printed on top."""
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    width = 0.8 / max(1, len(series))
    colors = {"read": "#1f77b4", "write": "#c62828"}
    for index, (name, values) in enumerate(series.items()):
        xs = [i + (index - (len(series) - 1) / 2) * width for i in range(len(categories))]
        heights = [v if v is not None else 0 for v in values]
        bars = ax.bar(xs, heights, width, label=name, color=colors.get(name, plt.get_cmap("tab10")(index)))
        ax.bar_label(bars, labels=[f"{v:,.0f}" if v is not None else "n/a" for v in values], fontsize=8, padding=2)
    ax.set_xticks(range(len(categories)), categories)
    ax.set_xlabel("Block size")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper right")
    return _finish(fig, path, subtitle)


def xy_panels(path: str, title: str, panels: list[tuple], subtitle: str | None = None) -> str:
    """Side-by-side line panels, each (xlabel, ylabel, xs, {label: ys}, log y)."""
    fig, axes = plt.subplots(1, len(panels), figsize=(6.0 * len(panels), 4.8), layout="constrained", squeeze=False)
    styles = {"mean": ("#0d47a1", "-"), "max": ("#c62828", "--")}
    for ax, (xlabel, ylabel, xs, series, log) in zip(axes[0], panels):
        for index, (label, ys) in enumerate(series.items()):
            points = [(x, y) for x, y in zip(xs, ys) if y is not None]
            color, line = styles.get(label, (plt.get_cmap("tab10")(index), "-"))
            xs_, ys_ = [p[0] for p in points], [p[1] for p in points]
            if len(points) <= MARKERS_UP_TO or label == "max":
                ax.plot(xs_, ys_, color=color, linestyle=line, **_marker(len(points), 2.5), linewidth=1.2, label=label)
                continue
            # Hundreds of rounds: every round as a thin line, and a running mean that shows the trend through the noise.
            span = max(3, len(points) // 50)
            ax.plot(xs_, ys_, color=color, linestyle=line, linewidth=0.6, alpha=0.45, label=f"{label}, each round")
            ax.plot(xs_[span - 1:], _running_mean(ys_, span), color=color, linestyle=line, linewidth=2.0,
                    label=f"{label}, running mean of {span} rounds")
        ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        if log:
            _log_y(ax)
        else:
            ax.set_ylim(bottom=0)
        if xs and all(isinstance(x, int) for x in xs):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds: no 1.5th round
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=9)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


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
        ax.axhline(median, color="#2e7d32", linewidth=1.5, label=f"median {_figure(median)}")
        ax.set_xlim(-0.6, 0.6)
        ax.set_xticks([])
        ax.set_title(label, fontsize=9)
        ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.suptitle(title)
    return _finish(fig, path, subtitle)
