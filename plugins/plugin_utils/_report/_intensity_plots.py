# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The CBW and DIRTH figures: demand variation and intensity, outstanding IOs, pre-writes, histograms, confidence
levels, and the convergence plots of their phases (the model: _intensity.py).
"""

from __future__ import annotations

import math
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _sweep_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import (
    finish_figure, log_y, spans_decades, thousands_tick)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._intensity import (
    MS, NINES, POINT_COLORS, POINT_WORDS, grid_cells, grid_stamp, chosen_points, phase_stamp, point_name, rounds_text)
try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator
except ImportError:  # _plots.available() says so; no plot is drawn then
    pass


# Plots ----------------------------------------------------------------------------------------------------------------


def _ramp(index: int, count: int):
    """Thread counts from high (dark) to low (green): viridis without its pale yellow end."""
    return plt.get_cmap("viridis")(index / max(1, count - 1) * 0.78)


def _y_axis(ax, values: list, label: str) -> None:
    ax.set_ylabel(label)
    if spans_decades(values):
        log_y(ax, values)
    else:
        ax.set_ylim(0, max([v for v in values if v is not None] or [1]) * 1.08)
        ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))


def demand_variation(path: str, title: str, result: dict, subtitle: str) -> str:
    """Demand Variation: window-average IOPS against queue depth (evenly spaced, low to high), one line per thread
    count."""
    cells = grid_cells(result)
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    values = []
    for index, tc in enumerate(tcs):
        points = [(x, cells[(tc, qd)]["iops"]) for x, qd in enumerate(qds) if (tc, qd) in cells]
        values += [v for dummy, v in points]
        ax.plot([x for x, dummy in points], [v for dummy, v in points], marker="o", markersize=4, linewidth=1.4,
                color=_ramp(index, len(tcs)), label=f"TC{tc}")
    _y_axis(ax, values, "IOPS (read + write)")
    ax.set_xticks(range(len(qds)), [str(qd) for qd in qds])
    ax.set_xlabel("Queue depth (per thread)")
    ax.grid(True, which="both", alpha=0.3)
    _plots.stamp(ax, *grid_stamp(result))
    ax.legend(title="Thread count", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def demand_intensity(path: str, title: str, result: dict, subtitle: str) -> str:
    """Demand Intensity: window-average ART against window-average IOPS, one line per thread count through its
    queue depths (low to high), the operating points ringed and the ART ceiling drawn."""
    cells = grid_cells(result)
    fig, ax = plt.subplots(figsize=(9.5, 5.6), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    arts = []
    for index, tc in enumerate(tcs):
        points = [cells[(tc, qd)] for qd in qds if (tc, qd) in cells]
        arts += [c["art_ms"] for c in points]
        ax.plot([c["iops"] for c in points], [c["art_ms"] for c in points], marker="o", markersize=4, linewidth=1.3,
                color=_ramp(index, len(tcs)), label=f"TC{tc}")
    measured = {p["point"]: (p.get("measure") or {}).get("iops") for p in result.get("points") or []}
    for point, chosen in chosen_points(result).items():
        cell = cells.get((chosen["tc"], chosen["qd"]))
        if cell:
            # The ring stands where the loop's window put the point (what chose it); the point's own measurement
            # after its pre-write - the summary's figure - is another run, and says so beside it.
            after = measured.get(point)
            ax.plot([cell["iops"]], [cell["art_ms"]], linestyle="none", marker="o", markersize=13,
                    markerfacecolor="none", markeredgecolor=POINT_COLORS[point], markeredgewidth=2.2, zorder=5,
                    label=f"{POINT_WORDS[point]} {point_name(chosen['tc'], chosen['qd'])}: {cell['iops']:,.0f} in "
                          "the loop" + (f",\n{after:,.0f} measured after its pre-write" if after is not None else ""))
    ceiling = result["parameters"]["max_art_ms"]
    shown = arts + ([ceiling] if arts and ceiling <= 3 * max(arts) else [])
    _y_axis(ax, shown, "Mean response time (ms)")
    if ceiling in shown:
        ax.axhline(ceiling, color="#6a1b9a", linestyle="--", linewidth=1, label=f"ART ceiling {ceiling:g} ms")
    else:
        ax.plot([], [], color="#6a1b9a", linestyle="--", linewidth=1, label=f"ART ceiling {ceiling:g} ms (above)")
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(FuncFormatter(thousands_tick))
    ax.set_xlabel("IOPS (read + write)")
    ax.grid(True, which="both", alpha=0.3)
    _plots.stamp(ax, *grid_stamp(result))
    ax.legend(title="Thread count, QD 1 → max", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def _oio_ticks(ax, values: list[int]) -> None:
    ax.set_xscale("log", base=2)
    top = max(values)
    ticks = [2 ** e for e in range(0, int(math.log2(top)) + 2) if 2 ** e <= top * 1.01]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, dummy: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(min(values) / 1.3, top * 1.3)


def outstanding(path: str, title: str, result: dict, subtitle: str) -> str:
    """IOPS and ART against the total outstanding IOs (TC × QD, log 2 axis), one line per thread count."""
    cells = grid_cells(result)
    fig, axes = plt.subplots(1, 2, figsize=(_plots.WIDTH, 4.8), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    shown = {"iops": [], "art_ms": []}
    for index, tc in enumerate(tcs):
        points = [cells[(tc, qd)] for qd in qds if (tc, qd) in cells]
        for ax, key in zip(axes, ("iops", "art_ms")):
            shown[key] += [c[key] for c in points]
            ax.plot([c["oio"] for c in points], [c[key] for c in points], marker="o", markersize=4, linewidth=1.3,
                    color=_ramp(index, len(tcs)), label=f"TC{tc}")
    for ax, key, label in zip(axes, ("iops", "art_ms"), ("IOPS (read + write)", "Mean response time (ms)")):
        _y_axis(ax, shown[key], label)
        _oio_ticks(ax, [c["oio"] for c in cells.values()])
        ax.set_xlabel("Outstanding IOs: TC × QD (log 2)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title("IOPS", fontsize=10)
    axes[1].set_title("Mean response time", fontsize=10)
    axes[1].legend(title="Thread count", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    _plots.title_with_stamp(fig, title, grid_stamp(result))
    return finish_figure(fig, path, subtitle)


def prewrites(path: str, title: str, result: dict, subtitle: str) -> str:
    """The operating points' pre-writes: IOPS of every sample, one line per point."""
    seconds = float(result["parameters"].get("sample_seconds") or 0) or None
    longest = max(len(p["prewrite"]) for p in result["points"])
    minutes = bool(seconds) and seconds * longest >= 600
    fig, ax = plt.subplots(figsize=(9.5, 3.8), layout="constrained")
    values = []
    for entry in result["points"]:
        samples = entry["prewrite"]
        xs = [s["sample"] * seconds / (60 if minutes else 1) if seconds else s["sample"] for s in samples]
        values += [s["iops"] for s in samples]
        ax.plot(xs, [s["iops"] for s in samples], color=POINT_COLORS[entry["point"]],
                **_plots.marker_style(len(samples), 3.5), linewidth=1.3,
                label=f"{entry['word']} {point_name(entry['tc'], entry['qd'])}")
    _y_axis(ax, values, "IOPS (100 % writes)")
    ax.set_xlabel(("Minutes" if minutes else "Seconds") + " of pre-write (end of each sample)" if seconds
                  else "Sample")
    ax.set_xlim(left=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Operating point", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def _width_text(width_ns: int) -> str:
    return f"{width_ns / MS:g} ms" if width_ns >= 100_000 else f"{width_ns / 1000:g} µs"


# The histogram plots reach this percentile; the few slower IOs are counted, not drawn (a handful of IOs that took
# seconds would otherwise squeeze every other IO into the first bin).
HISTOGRAM_LIMIT = "99.99"


def histograms(path: str, title: str, result: dict, subtitle: str) -> str:
    """Response-time histograms: per operating point the IOs (read + write) per fixed-width latency bin up to the
    99.99th percentile (the IOs beyond it counted in the legend), log y, with the ART marked and the MRT named."""
    measured = [p for p in result["points"] if (p.get("measure") or {}).get("bins")]
    fig, axes = plt.subplots(len(measured), 1, figsize=(9.5, 2.0 * len(measured) + 0.8), layout="constrained",
                             squeeze=False)
    limits = [_histogram.percentile(entry["measure"]["bins"], HISTOGRAM_LIMIT) for entry in measured]
    # One bin width for every panel (the widest any of them needs), so their bars compare IO for IO.
    width_ns = max(_histogram.bin_width(min(_histogram.normalise(entry["measure"]["bins"])[-1][0], int(limit)))
                   for entry, limit in zip(measured, limits))
    for ax, entry, limit in zip(axes[:, 0], measured, limits):
        measure = entry["measure"]
        color = POINT_COLORS[entry["point"]]
        binned = _histogram.rebin(measure["bins"], width_ns=width_ns, limit_ns=limit)
        width = binned["width_ns"]
        counts = [c for dummy, c in binned["bins"]]
        edges = [i * width / MS for i in range(len(counts) + 1)]
        ax.stairs(counts, edges, fill=True, color=color, alpha=0.55, label=f"IOs per {_width_text(width)} bin")
        ax.stairs(counts, edges, color=color, linewidth=0.8)
        ax.axvline(measure["art_ms"], color="black", linestyle="--", linewidth=1.1,
                   label=f"ART {measure['art_ms']:.3f} ms")
        beyond = binned["beyond"]
        if beyond:
            ax.add_patch(plt.Rectangle((0, 0), 0, 0, facecolor="none", edgecolor=color, hatch="///",
                                       label=f"{md.plural(beyond['ios'], 'IO')} past the 99.99 %, not drawn: from "
                                             f"{beyond['from_ns'] / MS:,.3f} ms up to the MRT"))
        else:
            ax.axvline(measure["mrt_ms"], color="#6a1b9a", linestyle=":", linewidth=1.4,
                       label=f"MRT {measure['mrt_ms']:,.3f} ms (fio's max)")
        positive = [c for c in counts if c]
        if positive and max(positive) / min(positive) >= 20:
            ax.set_yscale("log")
            ax.set_ylim(0.7, max(positive) * 2)
            ax.set_ylabel("IOs per bin (log scale)")
        else:
            ax.set_ylim(0, max(positive or [1]) * 1.1)
            ax.set_ylabel("IOs per bin")
        ax.yaxis.set_major_formatter(FuncFormatter(thousands_tick))
        ax.set_xlim(0, edges[-1] if beyond else max(edges[-1], measure["mrt_ms"]) * 1.02)
        ax.set_title(f"{entry['word']} {point_name(entry['tc'], entry['qd'])}: {measure['total_ios']:,} IOs, "
                     f"MRT {measure['mrt_ms']:,.3f} ms", fontsize=10, loc="left")
        ax.set_xlabel("Response time (ms)")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8.5, loc="upper right")
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


# The confidence-level plot's y axis: the share of IOs on a logit scale, from 1 % to beyond five nines.
_CONFIDENCE_TICKS = (0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)
_CONFIDENCE_TOP = 0.999999
_NINE_MARKERS = {"99.9": "s", "99.99": "D", "99.999": "^"}


def _percent(value, dummy) -> str:
    return f"{value * 100:.6g} %"


def confidence(path: str, title: str, result: dict, subtitle: str) -> str:
    """Confidence levels: per operating point the share of IOs (read + write) completed within each response time
    (log x, logit y), with the ART and the 3, 4 and 5 nines marked."""
    measured = [p for p in result["points"] if (p.get("measure") or {}).get("bins")]
    # A row per point (side by side they made a figure too wide to print its text readable on A4).
    fig, axes = plt.subplots(len(measured), 1, figsize=(_plots.WIDTH, 1.9 * len(measured) + 0.9),
                             layout="constrained", squeeze=False, sharey=True, sharex=True)
    lows, highs = [], []
    for ax, entry in zip(axes[:, 0], measured):
        measure = entry["measure"]
        curve = _histogram.cumulative(measure["bins"])
        xs = [ns / MS for ns, dummy in curve]
        lows.append(xs[0])
        highs.append(max(xs[-1], measure["mrt_ms"]))
        # The last bucket holds all IOs (100 %, off a logit axis): drawn to the top edge.
        ax.step(xs, [min(share, _CONFIDENCE_TOP) for dummy, share in curve], where="post",
                color=POINT_COLORS[entry["point"]], linewidth=1.6, label="IOs completed within")
        ax.axvline(measure["art_ms"], color="black", linestyle="--", linewidth=1,
                   label=f"ART {measure['art_ms']:.3f} ms")
        ax.axvline(measure["mrt_ms"], color="#6a1b9a", linestyle=":", linewidth=1.3,
                   label=f"MRT {measure['mrt_ms']:,.3f} ms (fio's max)")
        for words, key in NINES:
            value = measure["percentiles_ms"].get(key)
            if value is None:
                # Too few IOs to resolve it: named in the legend, not marked.
                ax.plot([], [], linestyle="none", marker=_NINE_MARKERS[key], markersize=7, color="white",
                        markeredgecolor="#9e9e9e", label=f"{words}: n/r ({_histogram.needed(key):,} IOs needed)")
                continue
            ax.plot([value], [float(key) / 100], linestyle="none", marker=_NINE_MARKERS[key], markersize=7,
                    color="white", markeredgecolor="black", zorder=5, label=f"{words}: {value:.3f} ms")
        ax.set_title(f"{entry['word']} {point_name(entry['tc'], entry['qd'])}: {measure['total_ios']:,} IOs",
                     fontsize=10, loc="left")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylabel("IOs completed within\n(cumulative %, logit)", fontsize=9)
        ax.legend(fontsize=8.5, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[-1][0].set_xlabel("Response time (ms, log scale)")
    ax = axes[0][0]
    ax.set_yscale("logit")
    ax.set_ylim(_CONFIDENCE_TICKS[0], _CONFIDENCE_TOP)
    ax.yaxis.set_major_locator(FixedLocator(_CONFIDENCE_TICKS))
    ax.yaxis.set_major_formatter(FuncFormatter(_percent))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xscale("log")
    ax.set_xlim(min(lows) / 1.3, max(highs) * 1.3)
    # Ticks at 1, 2 and 5 per decade while they fit, at each decade over a wider range.
    wide = math.log10(max(highs) / min(lows)) > 2.5
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, dummy: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    test = result["test"]
    words = test.upper()
    pc, loop = result["precondition"], result["loop"]
    drawn = {}

    def at(what: str) -> str:
        return os.path.join(plot_dir, f"{test}-{what}.png")

    if pc["rounds_run"]:
        dv = pc["dv"]
        drawn["pc_convergence"] = _charts.convergence(
            at("pc-convergence"), f"{prefix} — {words} preconditioning IOPS per round", "IOPS (write)",
            {"": {dv["name"]: dv["values"]}}, highlight=dv["name"], window_rounds=pc["window_rounds"],
            legend_title="Preconditioning", subtitle=subtitle, marks=_plots.segment_marks("precondition"),
            verdicts={"": phase_stamp(pc)}, times=pc.get("round_end_s"))
        drawn["pc_verification"] = _charts.verification(
            at("pc-verification"), f"{prefix} — {words} preconditioning verification, {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if loop["rounds_run"]:
        dv, tracking = loop["dv"], loop["tracking"]
        drawn["loop_prewrite"] = _charts.convergence(
            at("loop-prewrite"), f"{prefix} — {words} between-round pre-writes (100 % writes, "
                                 f"{point_name(tracking['tc'], tracking['qd'])})", "IOPS (write)",
            {"": {"pre-write": loop["prewrite_iops"]}}, window_rounds=loop["window_rounds"],
            legend_title="Pre-write", subtitle=subtitle, marks=_plots.segment_marks("loop"),
            times=loop.get("round_end_s"))
        mix = result["parameters"]["mix"]
        drawn["loop_convergence"] = _charts.convergence(
            at("loop-convergence"), f"{prefix} — {words} TC{tracking['tc']} IOPS per round, every queue depth "
                                    f"({md.mix(mix)})",
            {0: "IOPS (write)", 100: "IOPS (read)"}.get(mix, "IOPS (read + write)"),
            {"": {f"QD{qd}": values for qd, values in tracking["iops"].items()}}, highlight=f"QD{tracking['qd']}",
            window_rounds=loop["window_rounds"], legend_title=f"TC{tracking['tc']}, queue depth", subtitle=subtitle,
            marks=_plots.segment_marks("loop"), verdicts={"": phase_stamp(loop)}, times=loop.get("round_end_s"))
        drawn["loop_verification"] = _charts.verification(
            at("loop-verification"), f"{prefix} — {words} TC × QD loop verification, {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if loop["grid"]:
        cells = grid_cells(result)
        tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
        window = rounds_text(loop["window_rounds"])
        drawn["demand_variation"] = demand_variation(
            at("demand-variation"), f"{prefix} — {words} Demand Variation (window average, {window})", result,
            subtitle)
        drawn["demand_intensity"] = demand_intensity(
            at("demand-intensity"), f"{prefix} — {words} Demand Intensity (window average, {window})", result,
            subtitle)
        drawn["outstanding"] = outstanding(
            at("outstanding"), f"{prefix} — {words} IOPS and response time vs outstanding IOs ({window})", result,
            subtitle)
        drawn["cpu"] = _sweep_plots.heatmaps(
            at("cpu"), f"{prefix} — {words} fio CPU use (usr + sys %), window average",
            "Queue depth (per thread)", "Thread count", [str(qd) for qd in qds], [str(tc) for tc in sorted(tcs)],
            [("usr + sys %, as fio reports it", [[(cells.get((tc, qd)) or {}).get("cpu_pct") for qd in qds]
                                                 for tc in sorted(tcs)], 1)], subtitle, verdict=grid_stamp(result))
    if any(p["prewrite"] for p in result["points"]):
        drawn["point_prewrites"] = prewrites(
            at("point-prewrites"), f"{prefix} — {words} pre-write at each operating point", result, subtitle)
    if any((p.get("measure") or {}).get("bins") for p in result["points"]):
        drawn["histograms"] = histograms(
            at("histograms"), f"{prefix} — {words} response-time histograms ({md.mix(result['parameters']['mix'])}, "
                              "read + write)", result, subtitle)
        if test == "dirth":
            drawn["confidence"] = confidence(
                at("confidence"), f"{prefix} — {words} response-time confidence levels (read + write)", result,
                subtitle)
    return drawn
