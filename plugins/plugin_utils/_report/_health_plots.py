# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The drive's temperature per round of a test (matplotlib, Agg; imported through _plots' guard)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots

THRESHOLD_STYLES = (("warning_c", "#ef6c00", "warning threshold"), ("critical_c", "#b71c1c", "critical threshold"))


def temperature(path: str, title: str, series: dict, thresholds: dict, subtitle: str | None = None) -> str:
    """Temperature read before (hollow) and after (filled) each round, one line per segment ({segment: [{round,
    before_c, after_c, throttled, warning}]}), the drive's thresholds as dashed lines, throttled rounds crossed and
    rounds at or past the warning temperature shaded."""
    plt = _plots.plt
    fig, ax = plt.subplots(figsize=(9.5, 4.2), layout="constrained")
    longest, values = 1, []
    shaded = set()
    throttle_label = warning_label = True
    for index, segment in enumerate(_plots.by_block_size(series) if any(series) else list(series)):
        rows = series[segment]
        color = _plots.bs_color(segment, index) if segment else "#37474f"
        name = f"{segment} " if segment else ""
        befores = [(r["round"], r["before_c"]) for r in rows if r.get("before_c") is not None]
        afters = [(r["round"], r["after_c"]) for r in rows if r.get("after_c") is not None]
        values += [v for dummy, v in befores + afters]
        longest = max([longest] + [r["round"] for r in rows])
        # The after marker larger, the before one small and white on top: equal readings show as a ringed dot.
        if afters:
            ax.plot([r for r, dummy in afters], [v for dummy, v in afters], color=color, linewidth=1.6,
                    label=f"{name}after the round",
                    **_plots.marker_style(len(rows), 6.5))
        if befores:
            ax.plot([r for r, dummy in befores], [v for dummy, v in befores], color=color, linewidth=0.9,
                    linestyle=":", markerfacecolor="white", label=f"{name}before the round",
                    **_plots.marker_style(len(rows), 3.5))
        for row in rows:
            if row.get("warning") and row["round"] not in shaded:
                shaded.add(row["round"])
                ax.axvspan(row["round"] - 0.45, row["round"] + 0.45, color=_plots.MARK_STYLES["warning"][0],
                           alpha=0.16, label=_plots.MARK_STYLES["warning"][1] if warning_label else None)
                warning_label = False
            if row.get("throttled") and row.get("max_c") is not None:
                ax.plot([row["round"]], [row["max_c"]], linestyle="none", marker="X", markersize=12,
                        color=_plots.MARK_STYLES["throttled"][0], zorder=5,
                        label=_plots.MARK_STYLES["throttled"][1] if throttle_label else None)
                throttle_label = False
    for key, color, text in THRESHOLD_STYLES:
        value = thresholds.get(key)
        if value is not None:
            ax.axhline(value, color=color, linestyle="--", linewidth=1.2, label=f"{text} {value} °C")
            values.append(value)
    if values:
        ax.set_ylim(min(values) - 5, max(values) + 5)
    ax.set_ylabel("Temperature (°C)")
    ax.set_xlabel("Round")
    _plots.round_ticks(ax, longest)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    fig.suptitle(title)
    return _plots.finish_figure(fig, path, subtitle)
