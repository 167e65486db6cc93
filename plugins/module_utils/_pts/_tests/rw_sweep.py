# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Reads and writes sweep (Myce/OakGate 5.2): per workload (random/sequential read/write) one row per queue depth,
each row every block size."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import parse_block_sizes, positive_ints
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._job_check import MAX_IODEPTH


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    base = _sweeps.timed(get)
    qds = positive_ints("pts_run_sweep_queue_depths", get("sweep_queue_depths"), maximum=MAX_IODEPTH)
    sizes = parse_block_sizes("pts_run_sweep_block_sizes", get("sweep_block_sizes"))
    workloads = _sweeps.workloads("pts_run_sweep_workloads", get("sweep_workloads"), tuple(_sweeps.WORKLOADS))
    return {**base, "workloads": workloads, "queue_depths": qds,
            "block_sizes": sizes, "iodepth": max(qds),
            "mixes": sorted({_sweeps.WORKLOADS[w] for w in workloads}, reverse=True)}


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    out = []
    for workload in test["workloads"]:
        rounds = [{"label": f"QD {qd}", "iodepth": qd,
                   "combinations": [_sweeps.cell(f"{workload}-qd{qd}-{bs}", workload, _sweeps.WORKLOADS[workload], bs,
                                                 iodepth=qd) for bs in sizes]}
                  for qd in test["queue_depths"]]
        out.append({"name": workload, "rounds": rounds})
    return out


TEST = Test(
    name="rw_sweep", title="Reads and Writes Sweep", family="characterisation", stop="sweep", purge="test",
    report="characterisation", inputs=_inputs, segments=_sweeps.segments(_parts),
    profile=_sweeps.profile(("sweep_precondition_seconds", "sweep_seconds"), {
        "standard": {"sweep_workloads": list(_sweeps.WORKLOADS), "sweep_queue_depths": _sweeps.QUEUE_DEPTHS,
                     "sweep_block_sizes": ["512", "1k", "2k", "4k", "8k", "16k", "32k"]},
        "quick": {"sweep_queue_depths": [4, 32], "sweep_block_sizes": ["4k", "32k"]},
    }),
    raw_variables=("sweep_precondition_seconds", "sweep_seconds", "sweep_workloads", "sweep_queue_depths",
                   "sweep_block_sizes"),
    size_fields=(("pts_run_sweep_block_sizes", "block_sizes"),),
)
