# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The PTS 2.0 tests' segments as fio runs them (HIR's bursts and baselines, XSR's groups, the CBW/DIRTH
preconditioning, TC x QD loop and operating points), and the operating points chosen from the loop's measurement
window (the tests as data and their inputs: _pts2.py).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts2 import (
    HIR_BLOCK_SIZE, POINTS, POINT_WORDS, baseline_samples, group_samples, prewrite_samples)


def _rw(mix: int) -> str:
    return "randread" if mix == 100 else "randwrite" if mix == 0 else "randrw"


def _cell(name: str, rw: str, mix: int, bs: int, seconds: float, start_s: float | None = None,
          group: str | None = None, **options) -> dict:
    """One fio section; ``group="new"``: its own reporting group that starts without waiting for the sections before
    it (new_group instead of stonewall)."""
    cell = {"name": name, "rw": rw, "mix": mix, "bs": bs, "seconds": float(seconds), "options": options}
    if start_s:
        cell["start_s"] = float(start_s)
    if group:
        cell["group"] = group
    return cell


def _hir(test: dict) -> list[dict]:
    pc = _cell("hir-pc", "randwrite", 0, HIR_BLOCK_SIZE, test["precondition_seconds"])
    segments = [{"name": "precondition", "stop": "steady", "combinations": [pc],
                 "dvs": [{"name": "4k 0/100 IOPS", "job": "hir-pc", "mix": 0, "bs": HIR_BLOCK_SIZE, "metric": "iops"}]}]
    burst, reps = test["round_seconds"], test["repetitions"]
    sample = test["baseline_sample_seconds"]
    # Whole logging intervals per baseline sample (its samples are cut from the log), at least five per burst.
    log_ms = _interval.log_interval_ms(min(burst, sample), sample)
    for state in test["wait_states"]:
        idle = burst * state
        # One fio run: each burst its own reporting group (new_group, fio's figures per burst), none waiting for the
        # one before it (no stonewall, whose floor would be idle time of its own); each starts on a fixed schedule
        # from fio's start (startdelay counts from there), so the idle between bursts is the wait state's and never
        # drifts over 360 bursts.
        bursts = [_cell(f"hir-ws{state}-burst-{i + 1:04d}", "randwrite", 0, HIR_BLOCK_SIZE, burst,
                        start_s=i * (burst + idle), group="new") for i in range(reps)]
        # The return to baseline: one section of continuous writes, its samples cut at fio's status dumps.
        baseline = [_cell(f"hir-ws{state}-base", "randwrite", 0, HIR_BLOCK_SIZE, test["baseline_seconds"])]
        rows = [{"label": f"wait state {state}: {reps} x ({burst:g} s write, {idle:g} s idle)", "phase": "bursts",
                 "wait_state": state, "combinations": bursts},
                {"label": f"return to baseline after wait state {state}: {test['baseline_seconds']:g} s of continuous "
                          "write", "phase": "baseline", "wait_state": state, "combinations": baseline,
                 "samples": {"sample_s": float(sample), "count": baseline_samples(test)}}]
        segments.append({"name": f"ws{state}", "stop": "sweep", "rounds": rows, "dvs": [], "log_ms": log_ms})
    return segments


XSR_GROUPS = (("group1", "sequential"), ("group2", "random"), ("group3", "sequential"))


def _xsr(test: dict) -> list[dict]:
    segments = []
    sample = test["round_seconds"]
    for index, (name, access) in enumerate(XSR_GROUPS):
        bs = test["sequential_block_size"] if access == "sequential" else test["random_block_size"]
        rw = "write" if access == "sequential" else "randwrite"
        samples = group_samples(test["group_minutes"][index], sample)
        # The whole group is one fio section of samples x sample seconds: a sequential group writes one stream from
        # LBA 0 (wrapping at the end of the drive), with no idle time between its samples.
        group = _cell(f"xsr-{name}", rw, 0, bs, round(samples * sample, 6))
        segments.append({"name": name, "stop": "samples", "samples": samples, "sample_s": float(sample),
                         "access": f"{'SEQ' if access == 'sequential' else 'RND'} {block_size_label(bs)} write",
                         "combinations": [group], "dvs": [], "log_ms": _interval.log_interval_ms(sample, sample),
                         "output_format": "json+"})
    return segments


def _workload(test: dict) -> dict:
    options = {}
    if test.get("bssplit"):
        options["bssplit"] = test["bssplit"]
    if test.get("distribution"):
        options["random_distribution"] = test["distribution"]
    return options


def point_cells(test: dict, point: str, tc: int, qd: int) -> list[dict]:
    """One operating point's round: its pre-write at the point's TC x QD (100 % writes) in samples, then the
    measurement at the test's R/W mix, whose latency histogram (fio json+) the report draws."""
    prefix, bs = test["name"], test["block_sizes"][0]
    samples = prewrite_samples(test)
    cells = [_cell(f"{prefix}-{point}-pre-{i + 1:03d}", "randwrite", 0, bs, test["point_prewrite_seconds"] / samples,
                   numjobs=tc, iodepth=qd, **_workload(test)) for i in range(samples)]
    cells.append(_cell(f"{prefix}-{point}-measure", _rw(test["mix"]), test["mix"], bs, test["point_measure_seconds"],
                       numjobs=tc, iodepth=qd, **_workload(test)))
    return cells


def grid_name(test: str, tc: int, qd: int) -> str:
    return f"{test}-tc{tc}-qd{qd}"


def _intensity(test: dict) -> list[dict]:
    prefix, bs, mix = test["name"], test["block_sizes"][0], test["mix"]
    tc, qd = max(test["thread_counts"]), max(test["queue_depths"])
    pc = _cell(f"{prefix}-pc", "randwrite", 0, bs, test["precondition_seconds"], numjobs=tc, iodepth=qd,
               **_workload(test))
    what = "CBW" if prefix == "cbw" else f"{block_size_label(bs)}"
    segments = [{"name": "precondition", "stop": "steady", "combinations": [pc],
                 "dvs": [{"name": f"{what} 0/100 TC{tc}/QD{qd} IOPS", "job": pc["name"], "mix": 0, "bs": bs,
                          "metric": "iops"}]}]
    grid = [_cell(f"{prefix}-prewrite", "randwrite", 0, bs, test["prewrite_seconds"], numjobs=tc, iodepth=qd,
                  **_workload(test))]
    # PTS loop order: thread count outer, queue depth inner, both from high to low.
    grid += [_cell(grid_name(prefix, t, q), _rw(mix), mix, bs, test["point_seconds"], numjobs=t, iodepth=q,
                   **_workload(test)) for t in test["thread_counts"] for q in test["queue_depths"]]
    segments.append({"name": "loop", "stop": "steady", "combinations": grid,
                     "dvs": [{"name": f"{what} {mix}/{100 - mix} TC{tc}/QD{qd} IOPS", "job": grid_name(prefix, tc, qd),
                              "mix": mix, "bs": bs, "metric": "iops"}]})
    # The points are chosen from the loop's measurement window when their round starts (pts_segment); until then each
    # row holds the heaviest point, so the plan's time and wear estimates are upper bounds.
    rows = [{"label": f"{POINT_WORDS[p]} operating point", "point": p, "combinations": point_cells(test, p, tc, qd)}
            for p in POINTS]
    segments.append({"name": "points", "stop": "points", "rounds": rows, "dvs": [], "output_format": "json+"})
    return segments


def segments(test: dict, logical_block_size: int) -> tuple[list[dict], list[str]]:
    """The segments of one PTS 2.0 test on one drive (empty, with a note, when the drive cannot run it)."""
    name = test["name"]
    sizes = test.get("bssplit_sizes") or test["block_sizes"]
    small = [bs for bs in sizes if bs < logical_block_size or bs % logical_block_size]
    if small:
        shown = ", ".join(block_size_label(bs) for bs in small)
        hint = " (give pts_run_cbw_bssplit a mix without them)" if test.get("bssplit") else ""
        return [], [f"its block size{'s' if len(small) > 1 else ''} {shown} "
                    f"{'are' if len(small) > 1 else 'is'} below or not a multiple of the drive's logical block size "
                    f"of {logical_block_size} bytes{hint}"]
    if name == "hir":
        found = _hir(test)
    elif name == "xsr":
        found = _xsr(test)
    elif name in ("cbw", "dirth"):
        found = _intensity(test)
    else:
        raise ValueError(f"not a PTS 2.0 test: {name}")
    for segment in found:
        if segment.get("rounds"):
            segment["combinations"] = segment["rounds"][0]["combinations"]
    return found, []


def window_grid(rounds_jobs: list[list[dict]], test: dict) -> dict:
    """The TC x QD grid's window averages from the loop's last rounds: {(tc, qd): {"iops", "art_ms", "rounds"}} (ART
    is the IO-weighted mean latency of each round, averaged over the rounds)."""
    grid = {}
    for tc in test["thread_counts"]:
        for qd in test["queue_depths"]:
            name = grid_name(test["name"], tc, qd)
            iops, art = [], []
            for jobs in rounds_jobs:
                job = next((j for j in jobs if j["name"] == name), None)
                if job is None or job["total"]["lat_ns"]["mean"] is None:
                    continue
                iops.append(float(job["total"]["iops"]))
                art.append(float(job["total"]["lat_ns"]["mean"]) / 1e6)
            if iops:
                grid[(tc, qd)] = {"iops": sum(iops) / len(iops), "art_ms": sum(art) / len(art), "rounds": len(iops)}
    return grid


def operating_points(grid: dict, test: dict) -> dict:
    """MaxIOPS: the grid point with the most IOPS whose ART is below the ceiling (pts_run_intensity_max_art_ms);
    MinIOPS: the lowest TC x QD; MidIOPS: the point whose IOPS are closest to the mean of the two. Ties go to the
    point with fewer outstanding IOs. Each point: {tc, qd, iops, art_ms}; "notes" says what was not as the rule
    wants."""
    if not grid:
        raise ValueError("the TC x QD loop measured no grid point: no operating point can be chosen")
    ceiling = float(test["max_art_ms"])
    low = (min(test["thread_counts"]), min(test["queue_depths"]))
    notes = []
    if low not in grid:
        raise ValueError(f"the loop did not measure TC{low[0]}/QD{low[1]}, the MinIOPS point")
    under = [key for key, value in grid.items() if value["art_ms"] < ceiling]
    if under:
        top = max(under, key=lambda k: (grid[k]["iops"], -k[0] * k[1]))
    else:
        top = low
        notes.append(f"no grid point had a mean response time below {ceiling:g} ms: MaxIOPS is the MinIOPS point")
    target = (grid[top]["iops"] + grid[low]["iops"]) / 2
    mid = min(grid, key=lambda k: (abs(grid[k]["iops"] - target), k[0] * k[1]))

    def point(key):
        return {"tc": key[0], "qd": key[1], "iops": grid[key]["iops"], "art_ms": grid[key]["art_ms"]}

    return {"max": point(top), "mid": point(mid), "min": point(low), "mid_target_iops": target,
            "max_art_ms": ceiling, "notes": notes}


def point_row(test: dict, row: dict, points: dict) -> dict:
    """An operating point's round with the point filled in: its TC x QD, the cells, and why it was chosen."""
    chosen = points[row["point"]]
    label = (f"{POINT_WORDS[row['point']]} operating point: TC{chosen['tc']}/QD{chosen['qd']} "
             f"({chosen['iops']:,.0f} IOPS, ART {chosen['art_ms']:.3f} ms in the loop's window)")
    return dict(row, label=label, tc=chosen["tc"], qd=chosen["qd"], chosen=points,
                combinations=point_cells(test, row["point"], chosen["tc"], chosen["qd"]))
