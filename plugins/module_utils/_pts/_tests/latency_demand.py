# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Latency vs demand (Myce/OakGate 5.1): offered IOPS in steps (fio rate_iops) per workload, until the drive misses
``misses`` steps in a row or the last step has run; the knee is the last step delivered."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, positive, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import queue_depth


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    start = int(positive("pts_run_demand_start_iops", get("demand_start_iops"), int))
    step = int(positive("pts_run_demand_step_iops", get("demand_step_iops"), int))
    top = int(positive("pts_run_demand_max_iops", get("demand_max_iops"), int))
    if top < start:
        raise fail("pts_run_demand_max_iops", top, f"is below pts_run_demand_start_iops={start}")
    # Counted before the steps are listed: a huge pts_run_demand_max_iops is refused, not a list of 10**15 numbers.
    count = (top - start) // step + 1
    if count > 1000:
        raise fail("pts_run_demand_step_iops", step, f"makes {count:,} steps from {start} to {top}; at most 1000")
    steps = list(range(start, top + 1, step))
    tolerance = positive("pts_run_demand_tolerance_pct", get("demand_tolerance_pct"), float)
    if tolerance >= 100:
        raise fail("pts_run_demand_tolerance_pct", tolerance, "must be below 100")
    return {
        "workloads": _sweeps.workloads("pts_run_demand_workloads", get("demand_workloads"), _sweeps.DEMAND_WORKLOADS),
        "numjobs": 1, "iodepth": queue_depth("pts_run_demand_iodepth", get("demand_iodepth")),
        "steps": steps, "tolerance_pct": tolerance,
        "misses": int(positive("pts_run_demand_misses", get("demand_misses"), int)),
        "round_seconds": seconds("pts_run_demand_seconds", get("demand_seconds")),
        "precondition": _sweeps.precondition(get),
        "block_sizes": [4096], "mixes": [100, 0],
    }


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    out = []
    for workload in test["workloads"]:
        mix = _sweeps.WORKLOADS[workload]
        rounds = [{"label": f"{offered:,} IOPS offered", "offered_iops": offered,
                   "combinations": [_sweeps.cell(f"demand-{workload}-{offered}", workload, mix, 4096,
                                                 rate_iops=offered)]}
                  for offered in test["steps"]]
        out.append({"name": workload, "rounds": rounds})
    return out


TEST = Test(
    name="latency_demand", title="Latency vs Demand", family="characterisation", stop="demand", purge="segment",
    report="characterisation", inputs=_inputs, segments=_sweeps.segments(_parts),
    profile=_sweeps.profile(("sweep_precondition_seconds",), {
        "standard": {"demand_workloads": list(_sweeps.DEMAND_WORKLOADS), "demand_iodepth": 32,
                     "demand_start_iops": 1000, "demand_step_iops": 1000, "demand_max_iops": 120000,
                     "demand_seconds": 120, "demand_tolerance_pct": 5, "demand_misses": 2},
        "quick": {"demand_start_iops": 25000, "demand_step_iops": 25000, "demand_max_iops": 1000000,
                  "demand_seconds": 1},
    }),
    raw_variables=("sweep_precondition_seconds", "demand_workloads", "demand_iodepth", "demand_start_iops",
                   "demand_step_iops", "demand_max_iops", "demand_seconds", "demand_tolerance_pct", "demand_misses"),
)
