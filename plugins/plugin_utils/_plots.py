# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""PTS plots with matplotlib (Agg). Each function takes plain numbers and writes one PNG."""

from __future__ import annotations

import os

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
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


def _finish(fig, path: str, subtitle: str | None) -> str:
    if subtitle:
        fig.text(0.99, 0.01, subtitle, ha="right", va="bottom", fontsize=8, color="#b00020")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def convergence(path: str, title: str, ylabel: str, series: dict, highlight: str | None = None,
                window_rounds: list[int] | None = None, subtitle: str | None = None) -> str:
    """The DV family over all rounds: one line per label (block size), the DV's line drawn bold."""
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    cmap = plt.get_cmap("tab10")
    values_all = []
    for index, (label, values) in enumerate(series.items()):
        rounds = [i + 1 for i, v in enumerate(values) if v is not None]
        points = [v for v in values if v is not None]
        values_all.extend(points)
        bold = label == highlight
        ax.plot(rounds, points, marker="o", markersize=5 if bold else 3.5, linewidth=2.6 if bold else 1.2,
                color="black" if bold else cmap(index % 10),
                label=f"{label} (DV)" if bold else label, zorder=3 if bold else 2)
    if window_rounds:
        ax.axvspan(min(window_rounds) - 0.4, max(window_rounds) + 0.4, color="#90a4ae", alpha=0.15,
                   label="measurement window")
    if _spans_decades(values_all):
        ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.set_xlabel("Round")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_xticks(range(1, max((len(v) for v in series.values()), default=1) + 1))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Block size", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    return _finish(fig, path, subtitle)


def verification(path: str, title: str, ylabel: str, all_values: list[float], verdict: dict,
                 subtitle: str | None = None) -> str:
    """The DV across the window with its average, the +/-10 % band (20 % range) and the best-fit line."""
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    rounds = list(range(1, len(all_values) + 1))
    window_rounds = verdict.get("rounds") or []
    in_window = [r for r in rounds if r in window_rounds]
    ax.plot(rounds, all_values, color="#9e9e9e", marker="o", markersize=3.5, linewidth=1, label="DV, all rounds")
    ax.plot(in_window, [all_values[r - 1] for r in in_window], color="#0d47a1", marker="o", markersize=7,
            linewidth=2, label="DV, measurement window")
    average = verdict.get("average")
    if average is not None and in_window:
        lo, hi = min(in_window) - 0.3, max(in_window) + 0.3
        limit = verdict["max_data_excursion_pct"] / 200.0
        ax.hlines(average, lo, hi, colors="#2e7d32", linewidth=2, label=f"window average {average:,.1f}")
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
    ax.set_xticks(rounds)
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
    if _spans_decades(values_all):
        ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.set_xticks(xs, block_sizes)
    ax.set_xlabel("Block size")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="R/W mix %", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    return _finish(fig, path, subtitle)


def bars_3d(path: str, title: str, zlabel: str, block_sizes: list[str], table: dict, mixes: list[int],
            subtitle: str | None = None) -> str:
    """Window averages as 3D bars: R/W mix x block size x value."""
    fig = plt.figure(figsize=(9.5, 6.4), layout="constrained")
    ax = fig.add_subplot(projection="3d")
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
    ax.set_title(title)
    ax.view_init(elev=24, azim=-58)
    return _finish(fig, path, subtitle)
