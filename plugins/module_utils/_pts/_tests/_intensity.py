# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What CBW and DIRTH (PTS 2.0) share: a preconditioning to steady state, a thread count x queue depth loop to steady
state, then three operating points chosen from the loop's measurement window when their round starts, each a
pre-write in samples and a measurement whose latency histogram (fio json+) the report draws."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import random_rw
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, positive, positive_ints, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _sections

POINTS = ("max", "mid", "min")
POINT_WORDS = {"max": "MaxIOPS", "mid": "MidIOPS", "min": "MinIOPS"}
_GRID = [32, 16, 8, 6, 4, 2, 1]
PROFILE = {
    "standard": {
        "intensity_thread_counts": list(_GRID),
        "intensity_queue_depths": list(_GRID),
        "intensity_precondition_seconds": 1800,
        "intensity_prewrite_seconds": 300,
        "intensity_point_seconds": 60,
        "intensity_max_art_ms": 5,
        "intensity_point_prewrite_seconds": 3600,
        "intensity_sample_seconds": 60,
        "intensity_point_measure_seconds": 600,
    },
    "quick": {
        "intensity_thread_counts": [2, 1],
        "intensity_queue_depths": [4, 1],
        "intensity_precondition_seconds": 1,
        "intensity_prewrite_seconds": 0.5,
        "intensity_point_seconds": 0.5,
        "intensity_point_prewrite_seconds": 1,
        "intensity_sample_seconds": 0.5,
        "intensity_point_measure_seconds": 1,
    },
}
RAW_VARIABLES = ("intensity_thread_counts", "intensity_queue_depths", "intensity_precondition_seconds",
                 "intensity_prewrite_seconds", "intensity_point_seconds", "intensity_max_art_ms",
                 "intensity_point_prewrite_seconds", "intensity_sample_seconds", "intensity_point_measure_seconds")


class OperatingPointError(PtsError, ValueError):
    """No operating point can be chosen from the TC x QD loop's measurement window."""


def profile(own: dict) -> dict:
    """The shared profile values with a test's own added."""
    return {name: dict(values, **own.get(name, {})) for name, values in PROFILE.items()}


def prewrite_samples(test: dict) -> int:
    """The sections an operating point's pre-write is recorded in."""
    return max(1, int(round(test["point_prewrite_seconds"] / test["sample_seconds"])))


def inputs(name: str, get) -> dict:
    """The validated inputs CBW and DIRTH share; ``get(key)`` gives a variable's effective value."""
    tcs = sorted(positive_ints("pts_run_intensity_thread_counts", get("intensity_thread_counts"), maximum=256),
                 reverse=True)
    qds = sorted(positive_ints("pts_run_intensity_queue_depths", get("intensity_queue_depths"), maximum=1024),
                 reverse=True)
    durations = {key: seconds(f"pts_run_intensity_{key}", get(f"intensity_{key}"))
                 for key in ("precondition_seconds", "prewrite_seconds", "point_seconds", "point_prewrite_seconds",
                             "sample_seconds", "point_measure_seconds")}
    if durations["point_prewrite_seconds"] < durations["sample_seconds"]:
        raise fail("pts_run_intensity_point_prewrite_seconds", durations["point_prewrite_seconds"],
                   f"is shorter than one sample of {durations['sample_seconds']:g} s (pts_run_intensity_sample_seconds)")
    found = dict(wipc=True, precondition=None, thread_counts=tcs, queue_depths=qds, numjobs=max(tcs), iodepth=max(qds),
                 round_seconds=durations["point_seconds"],
                 max_art_ms=positive("pts_run_intensity_max_art_ms", get("intensity_max_art_ms"), float),
                 **durations)
    samples = prewrite_samples(found)
    _sections.jobs_fit(name, [
        ("TC x QD loop round", max(tcs) + sum(tcs) * len(qds), "pts_run_intensity_thread_counts", tcs,
         f"fewer or lower thread counts ({len(qds)} queue depths each)"),
        ("operating point", (samples + 1) * max(tcs), "pts_run_intensity_sample_seconds",
         durations["sample_seconds"], f"raise it ({samples} pre-write samples, each of up to {max(tcs)} threads)")])
    return found


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
    cell = _sections.section
    cells = [cell(f"{prefix}-{point}-pre-{i + 1:03d}", "randwrite", 0, bs, test["point_prewrite_seconds"] / samples,
                  numjobs=tc, iodepth=qd, **_workload(test)) for i in range(samples)]
    cells.append(cell(f"{prefix}-{point}-measure", random_rw(test["mix"]), test["mix"], bs,
                      test["point_measure_seconds"], numjobs=tc, iodepth=qd, **_workload(test)))
    return cells


def grid_name(test: str, tc: int, qd: int) -> str:
    return f"{test}-tc{tc}-qd{qd}"


def segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    notes = _sections.unfit_sizes(test, logical_block_size)
    if notes:
        return [], notes
    cell = _sections.section
    prefix, bs, mix = test["name"], test["block_sizes"][0], test["mix"]
    tc, qd = max(test["thread_counts"]), max(test["queue_depths"])
    pc = cell(f"{prefix}-pc", "randwrite", 0, bs, test["precondition_seconds"], numjobs=tc, iodepth=qd,
              **_workload(test))
    what = "CBW" if prefix == "cbw" else f"{block_size_label(bs)}"
    segments = [{"name": "precondition", "stop": "steady", "combinations": [pc],
                 "dvs": [{"name": f"{what} 0/100 TC{tc}/QD{qd} IOPS", "job": pc["name"], "mix": 0, "bs": bs,
                          "metric": "iops"}]}]
    grid = [cell(f"{prefix}-prewrite", "randwrite", 0, bs, test["prewrite_seconds"], numjobs=tc, iodepth=qd,
                 **_workload(test))]
    # PTS loop order: thread count outer, queue depth inner, both from high to low.
    grid += [cell(grid_name(prefix, t, q), random_rw(mix), mix, bs, test["point_seconds"], numjobs=t, iodepth=q,
                  **_workload(test)) for t in test["thread_counts"] for q in test["queue_depths"]]
    segments.append({"name": "loop", "stop": "steady", "combinations": grid,
                     "dvs": [{"name": f"{what} {mix}/{100 - mix} TC{tc}/QD{qd} IOPS", "job": grid_name(prefix, tc, qd),
                              "mix": mix, "bs": bs, "metric": "iops"}]})
    # The points are chosen from the loop's measurement window when their round starts (pts_segment); until then each
    # row holds the heaviest point, so the plan's time and wear estimates are upper bounds.
    rows = [{"label": f"{POINT_WORDS[p]} operating point", "point": p, "combinations": point_cells(test, p, tc, qd)}
            for p in POINTS]
    segments.append({"name": "points", "stop": "points", "rounds": rows, "dvs": [], "output_format": "json+"})
    return _sections.finish(segments)


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
        raise OperatingPointError("the TC x QD loop measured no grid point: no operating point can be chosen")
    ceiling = float(test["max_art_ms"])
    low = (min(test["thread_counts"]), min(test["queue_depths"]))
    notes = []
    if low not in grid:
        raise OperatingPointError(f"the loop did not measure TC{low[0]}/QD{low[1]}, the MinIOPS point")
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
