# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The Myce/OakGate characterisation tests in the report: latency vs demand, the reads/writes QD x block size
sweep, the mixed R/W sweep and the entropy sweep. No steady state: each purges, preconditions with timed 4k
random writes and runs its sweep once."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _sweep, _sweep_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import SWEEP_STEADY_CLAUSE, ReportKind

build = _sweep.build


def _qd(item: dict) -> str:
    return f"QD {item['iodepth']}"


def _mix(item: dict) -> str:
    return md.mix(item["mix"])


def _entropy(item: dict) -> str:
    return f"{item['entropy_pct']} %"


METRICS = (("IOPS", "iops", 0), ("MB/s", "mb_s", 1), ("mean latency (ms)", "lat_mean_ms", 3))


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    name = result["test"]
    drawn = {}

    def path(key):
        return os.path.join(plot_dir, f"{name}-{key}.png")

    if name == "latency_demand":
        drawn["demand"] = _sweep_plots.demand(path("demand"), f"{prefix} — 4k latency vs demand, QD "
                                              f"{result['settings'].get('iodepth')}", result["ramps"], subtitle)
        return drawn
    for segment in result["segments"]:
        if not segment["rows"]:
            continue
        if name == "rw_sweep":
            rows, cols, grids = _sweep.metric_grids(segment, _qd, lambda c: c["bs_label"], METRICS)
            drawn[f"heat-{segment['name']}"] = _sweep_plots.heatmaps(
                path(f"heat-{segment['name']}"), f"{prefix} — {segment['label']}: queue depth × block size",
                "Block size", "Queue depth", cols, rows, grids, subtitle)
        elif name == "mixed_sweep":
            rows, cols, grids = _sweep.metric_grids(segment, _qd, _mix, METRICS)
            drawn["heat"] = _sweep_plots.heatmaps(
                path("heat"), f"{prefix} — 4k mixed R/W: queue depth × R/W mix (% reads / % writes)",
                "R/W mix", "Queue depth", cols, rows, grids, subtitle)
            drawn["lines"] = _sweep_plots.line_panels(
                path("lines"), f"{prefix} — 4k mixed R/W against the read share",
                [(label, "R/W mix", label, dict(zip(rows, data))) for label, data, dummy in grids],
                xticks=cols, legend_title="Queue depth", subtitle=subtitle)
        elif name == "entropy_sweep":
            rows, cols, grids = _sweep.metric_grids(segment, _qd, _entropy, METRICS)
            drawn[f"lines-{segment['name']}"] = _sweep_plots.line_panels(
                path(f"lines-{segment['name']}"), f"{prefix} — {segment['label']} against data entropy",
                [(label, "Data entropy (100 % = incompressible)", label, dict(zip(rows, data)))
                 for label, data, dummy in grids], xticks=cols, legend_title="Queue depth", subtitle=subtitle)
    if name == "rw_sweep":
        done = [s for s in result["segments"] if s["rows"]]
        if done:
            panels = []
            for segment in done:
                rows, cols, data = _sweep.grid(segment, lambda c: c["bs_label"], _qd, lambda c: c["iops"])
                panels.append((segment["label"], "Queue depth", "IOPS", dict(zip(rows, data))))
            drawn["lines"] = _sweep_plots.line_panels(path("lines"), f"{prefix} — IOPS against queue depth per block size",
                                                      panels, xticks=cols, legend_title="Block size", subtitle=subtitle,
                                                      share=True)
    return drawn


def _intro(result: dict, loop: list[str], purge_per_part: bool) -> list[str]:
    settings = result["settings"]
    pre = settings.get("precondition") or {}
    head = "For each part: purge" if purge_per_part else "Purge"
    return [f"{head}, then precondition with 4k random writes at queue depth {pre.get('iodepth', 32)}, zero-filled "
            f"buffers, for {md.fmt(pre.get('seconds'), 0)} s (the Myce/OakGate preconditioning), then:", "", "```",
            *loop, "```", "",
            f"Every cell runs {md.fmt(settings.get('round_seconds'), 1)} s with direct I/O, one job, "
            f"{'data of the entropy asked for' if result['test'] == 'entropy_sweep' else 'random data'}; one round is "
            "one row of the sweep, written to disk as soon as it ends. There is no steady state in these tests "
            "(Myce/OakGate run them once).", ""]


def _demand_section(result: dict, plots_rel: dict, number: int) -> list[str]:
    settings = result["settings"]
    sweep = settings.get("sweep") or {}
    steps = sweep.get("steps") or []
    span = f"{steps[0]:,} to {steps[-1]:,} in steps of {steps[1] - steps[0]:,}" if len(steps) > 1 else \
        ", ".join(f"{s:,}" for s in steps)
    lines = _intro(result, [
        f"For offered IOPS = {span}",
        f"  4k random read (or write), queue depth {settings.get('iodepth')}, fio rate_iops = offered IOPS",
        f"  stop after {sweep.get('misses')} steps in a row not delivered (achieved more than "
        f"{md.fmt(sweep.get('tolerance_pct'), 0)} % below the offer)"], purge_per_part=True)
    lines += [f"### {number}.1 Knee", "",
              "The knee is the last offered step the drive delivered before the missed steps that ended its ramp: up "
              "to it the achieved IOPS follow the offer; past it they do not. A ramp that delivered its last step "
              "never reached the drive's limit and has no knee.", ""]
    rows = []
    for ramp in result.get("ramps") or []:
        knee = ramp["knee"]
        if knee:
            shown = f"{knee['offered_iops']:,}"
        elif not ramp.get("limit_reached"):
            shown = f"not reached: the last step, {ramp['steps'][-1]['offered_iops']:,}, was delivered"
        else:
            shown = "none delivered"
        rows.append([ramp["label"], shown, md.fmt(knee["achieved_iops"]) if knee else md.DASH,
                     md.fmt(knee["lat_mean_ms"], 3) if knee else md.DASH, md.fmt(knee["lat_max_ms"], 3) if knee else md.DASH,
                     md.fmt(ramp["max_achieved_iops"]), str(len(ramp["steps"]))])
    lines += md.table(["Ramp", "Knee (offered IOPS)", "Achieved IOPS", "Mean latency (ms)", "Max latency (ms)",
                       "Highest achieved IOPS", "Steps"], rows)
    lines += ["", f"### {number}.2 Plots", ""]
    lines += _sections.images(plots_rel, {"demand": "Latency vs demand: achieved IOPS against the offered IOPS with "
                                                    "the knee (left); mean and maximum latency (right, log scale)."})
    for index, ramp in enumerate(result.get("ramps") or [], 3):
        lines += [f"### {number}.{index} {ramp['label']} steps", ""]
        shown, note = _sections.sampled(ramp["steps"])
        lines += md.table(["Round", "Offered IOPS", "Achieved IOPS", "% of offer", "Mean latency (ms)",
                           "Max latency (ms)", "Delivered"], [
            [str(s["round"]), f"{s['offered_iops']:,}", md.fmt(s["achieved_iops"]),
             md.fmt(100.0 * s["achieved_iops"] / s["offered_iops"], 1), md.fmt(s["lat_mean_ms"], 3),
             md.fmt(s["lat_max_ms"], 3), "yes" if s["delivered"] else "**no**"] for s in shown])
        lines += (["", note] if note else []) + [""]
    return lines


def _rw_section(result: dict, plots_rel: dict, number: int) -> list[str]:
    sweep = result["settings"].get("sweep") or {}
    lines = _intro(result, [
        f"For workload in {', '.join(sweep.get('workloads') or [])}",
        f"  For queue depth in {', '.join(str(q) for q in sweep.get('queue_depths') or [])}",
        f"    For block size in {', '.join(block_size_label(b) for b in result['settings'].get('block_sizes') or [])}",
        "      run the workload"], purge_per_part=False)
    lines += _sections.images(plots_rel, {"lines": "IOPS against queue depth, one line per block size, per workload."})
    for index, segment in enumerate((s for s in result["segments"] if s["rows"]), 1):
        lines += [f"### {number}.{index} {segment['label']}", ""]
        lines += _sections.images(plots_rel, {f"heat-{segment['name']}": f"{segment['label']}: IOPS, MB/s and mean "
                                                                         "latency per queue depth and block size."})
        rows, cols, grids = _sweep.metric_grids(segment, _qd, lambda c: c["bs_label"], METRICS)
        for label, data, digits in grids:
            lines += [f"{segment['label']}, {label}:", ""] + _sweep.grid_table("QD \\ bs", rows, cols, data, digits) + [""]
    return lines


def _mixed_section(result: dict, plots_rel: dict, number: int) -> list[str]:
    settings = result["settings"]
    sweep = settings.get("sweep") or {}
    lines = _intro(result, [
        f"For queue depth in {', '.join(str(q) for q in sweep.get('queue_depths') or [])}",
        f"  For R/W mix (% reads) in {', '.join(str(m) for m in settings.get('mixes') or [])}",
        f"    {block_size_label((settings.get('block_sizes') or [4096])[0])} random I/O"], purge_per_part=False)
    lines += _sections.images(plots_rel, {
        "heat": "Total IOPS, MB/s and mean latency per queue depth and R/W mix.",
        "lines": "The same against the read share, one line per queue depth: 99/1 shows what a little writing costs."})
    for segment in (s for s in result["segments"] if s["rows"]):
        rows = []
        for row in segment["rows"]:
            for item in row["cells"]:
                read, write = item["read"] or {}, item["write"] or {}
                rows.append([f"QD {item['iodepth']}", md.mix(item["mix"]), md.fmt(read.get("iops")), md.fmt(write.get("iops")),
                             md.fmt(item["iops"]), md.fmt(read.get("mb_s"), 1), md.fmt(write.get("mb_s"), 1),
                             md.fmt(item["mb_s"], 1), md.fmt(read.get("lat_mean_ms"), 3),
                             md.fmt(write.get("lat_mean_ms"), 3), md.fmt(item["lat_mean_ms"], 3)])
        lines += [f"### {number}.1 Every cell", "",
                  "Read, write and total figures (total latency: the IO-weighted mean of both directions):", ""]
        lines += md.table(["QD", "Mix", "Read IOPS", "Write IOPS", "Total IOPS", "Read MB/s", "Write MB/s",
                           "Total MB/s", "Read lat. (ms)", "Write lat. (ms)", "Total lat. (ms)"], rows)
        lines.append("")
    return lines


def _entropy_section(result: dict, plots_rel: dict, number: int) -> list[str]:
    sweep = result["settings"].get("sweep") or {}
    lines = _intro(result, [
        "For part in " + ", ".join(s["label"] for s in result["segments"]),
        f"  For queue depth in {', '.join(str(q) for q in sweep.get('queue_depths') or [])}",
        f"    For data entropy in {', '.join(str(p) for p in sweep.get('percents') or [])} %",
        "      4k random I/O with fio buffer_compress_percentage = 100 − entropy (refill_buffers)"],
        purge_per_part=True)
    lines += ["Entropy is the share of each buffer that is random; the rest is zeros, which a compressing controller "
              "need not write. A drive without compression shows flat lines.", ""]
    for index, segment in enumerate((s for s in result["segments"] if s["rows"]), 1):
        lines += [f"### {number}.{index} {segment['label']}", ""]
        lines += _sections.images(plots_rel, {f"lines-{segment['name']}": f"{segment['label']}: IOPS, MB/s and mean "
                                                                          "latency against data entropy, per queue depth."})
        rows, cols, grids = _sweep.metric_grids(segment, _qd, _entropy, METRICS[:1] + METRICS[2:])
        for label, data, digits in grids:
            lines += [f"{segment['label']}, {label}:", ""] + _sweep.grid_table("QD \\ entropy", rows, cols, data, digits)
            lines.append("")
    return lines


SECTIONS = {"latency_demand": _demand_section, "rw_sweep": _rw_section, "mixed_sweep": _mixed_section,
            "entropy_sweep": _entropy_section}


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    del capacity  # the sweeps' figures do not depend on it
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result), *_sweep.notes(result),
             _sweep.status_line(result), ""]
    if not result.get("rounds_run"):
        return lines
    lines += SECTIONS[result["test"]](result, plots_rel, number)
    subsections = sum(1 for line in lines if line.startswith(f"### {number}."))
    lines += ["", f"### {number}.{subsections + 1} Purge, preconditioning and files", ""]
    lines += _sweep.steps_rows(result, KIND)
    lines += _sweep.files(result)
    return lines


KIND = ReportKind(name="characterisation", build=build, plots=plots, section=section,
                  steady_clause=SWEEP_STEADY_CLAUSE)
