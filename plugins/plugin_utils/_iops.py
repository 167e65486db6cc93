# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The IOPS test (SNIA PTS Enterprise 1.1): result from its round files, plots, report section."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils import _pts
from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _plots, _sections, _sweep_plots, _tests


def build(test: dict) -> dict:
    segment = test["segments"].get("") or {"rounds": []}
    rounds = segment["rounds"]
    result = _tests.common(test, [segment])
    if not rounds:
        return dict(result, status="failed" if result["failure"] else "no rounds", rounds_run=0)
    _tests.check_consecutive(rounds)
    settings = result["settings"]
    window, max_rounds, dummy, dummy2 = _tests.limits(settings)
    dv = _tests.dv_series(rounds, settings.get("dv") or _pts.IOPS_DV)
    mixes = [int(m) for m in settings.get("mixes") or sorted({j["mix"] for j in rounds[-1]["fio"]["jobs"]}, reverse=True)]
    sizes = sorted(int(s) for s in settings.get("block_sizes") or {j["bs"] for j in rounds[-1]["fio"]["jobs"]})
    in_window = _tests.window_rounds(rounds, window)
    result.update(
        status=_tests.status(dv["steady"], len(rounds), max_rounds, result["failure"]),
        steady=dv["steady"],
        steady_round=dv["steady_round"],
        rounds_run=len(rounds),
        dv=dv,
        window_rounds=[int(r["round"]) for r in in_window],
        mixes=mixes,
        block_sizes=[block_size_label(s) for s in sizes],
        live_verdict_mismatch=_tests.live_mismatch(segment, [dv]),
        convergence={block_size_label(bs): _tests.per_round(rounds, dv["mix"], bs, lambda j: j["total"]["iops"])
                     for bs in sizes},
        tables={
            "iops": _tests.window_grid(in_window, mixes, sizes, lambda j: j["total"]["iops"]),
            "mb_per_s": _tests.window_grid(in_window, mixes, sizes, lambda j: j["total"]["bw_bytes"] / 1e6),
            "mean_latency_ms": _tests.window_grid(
                in_window, mixes, sizes,
                lambda j: j["total"]["lat_ns"]["mean"] / 1e6 if j["total"]["lat_ns"]["mean"] is not None else None),
        },
        round_files=[f"round-{int(r['round']):02d}" for r in rounds],
    )
    return result


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    dv = result["dv"]
    mix = md.mix(dv["mix"])
    return {
        "convergence": _plots.convergence(
            os.path.join(plot_dir, "iops-convergence.png"),
            f"{prefix} — IOPS steady-state convergence, random write ({mix})",
            "IOPS (read + write)", {"": result["convergence"]}, highlight=dv["bs"],
            window_rounds=result["window_rounds"], legend_title="Block size", subtitle=subtitle),
        "verification": _plots.verification(
            os.path.join(plot_dir, "iops-verification.png"),
            f"{prefix} — IOPS steady-state verification, DV {dv['bs']} {mix}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle),
        "measurement": _plots.measurement_2d(
            os.path.join(plot_dir, "iops-measurement.png"),
            f"{prefix} — IOPS window average vs block size",
            "IOPS (read + write)", result["block_sizes"], result["tables"]["iops"], result["mixes"], subtitle=subtitle),
        "heatmap": mix_heatmap(
            os.path.join(plot_dir, "iops-heatmap.png"), f"{prefix} — IOPS window average, R/W mix × block size",
            [("IOPS (read + write)", result["tables"]["iops"], 0)], result["block_sizes"], result["mixes"], subtitle),
    }


def mix_heatmap(path: str, title: str, panels: list[tuple[str, dict, int]], block_sizes: list[str], mixes: list[int],
                subtitle: str) -> str:
    """A window-average table as a heat map, R/W mix down (all reads on top) and block size across (largest first),
    every cell's value printed: what the 3D bar plots showed, without hiding their back rows."""
    sizes = _plots.by_block_size(block_sizes)
    order = sorted(mixes)  # the image's origin is at the bottom: 0/100 there, 100/0 on top
    grids = [(label, [[(table.get(bs) or {}).get(str(m)) for bs in sizes] for m in order], digits)
             for label, table, digits in panels]
    return _sweep_plots.heatmaps(path, title, "Block size", "R/W mix % (read/write)", sizes,
                                 [md.mix(m) for m in order], grids, subtitle)


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    if not result.get("rounds_run"):
        return [f"## {number} IOPS", "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    dv = result["dv"]
    lines = [f"## {number} IOPS", "", *_sections.status_notes(result)]
    lines += _sections.loop_description(
        result, ["Purge", "Workload-independent preconditioning"],
        [f"For R/W mix % in [{', '.join(str(m) for m in result['mixes'])}]",
         f"  For block size in [{', '.join(reversed(result['block_sizes']))}]",
         f"    random I/O for {settings.get('round_seconds')} s"])
    lines += [f"Dependent variable: IOPS of {dv['bs']} random write ({md.mix(dv['mix'])}), found by mix and block "
              "size in each round.", ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += ["", f"### {number}.1 Steady state information", "", _sections.verdict_line(result), ""]
    lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, settings.get("max_rounds"), dv["steady_round"],
                                 result["rounds_run"])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    lines += _sections.round_table([dv], {"iops": ("IOPS", 1.0, 1)})
    lines += _sections.mismatch_warning(result)
    lines += ["", f"### {number}.2 Measurement plots", ""]
    lines += _sections.images(plots_rel, {
        "convergence": "Steady State Convergence Plot: IOPS of every block size at 100 % random write, per round; "
                       "the DV in bold, the measurement window shaded; one shared log or zero-based axis.",
        "verification": _sections.VERIFICATION_CAPTION,
        "measurement": "Measurement Plot: window-average IOPS against block size, one line per R/W mix.",
        "heatmap": "Measurement heat map: window-average IOPS per R/W mix and block size, each cell's value printed "
                   "(in place of TKperf's 3D bars, which hide their back rows).",
    })
    window = ", ".join(str(r) for r in result["window_rounds"])
    lines += [f"### {number}.3 Measurement window summary tables", "",
              f"Average IOPS (read + write) over rounds {window}:", ""]
    lines += md.grid(result["tables"]["iops"], result["block_sizes"], result["mixes"], 1)
    lines += ["", "Average throughput, MB/s (10⁶ bytes/s), read + write:", ""]
    lines += md.grid(result["tables"]["mb_per_s"], result["block_sizes"], result["mixes"], 2)
    lines += ["", "Average latency, ms (IO-weighted mean of read and write):", ""]
    lines += md.grid(result["tables"]["mean_latency_ms"], result["block_sizes"], result["mixes"], 3)
    lines += ["", f"### {number}.4 Purge, preconditioning and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)])
    lines += _sections.file_links("iops", [("", result["round_files"])], wipc=True)
    return lines
