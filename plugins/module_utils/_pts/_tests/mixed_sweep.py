# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Mixed reads/writes sweep (Myce/OakGate 5.3): one block size, one row per queue depth, each row every R/W mix."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import random_rw
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import parse_block_sizes, parse_mixes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import positive_ints
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._job_check import MAX_IODEPTH


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    base = _sweeps.timed(get)
    mixes = parse_mixes("pts_run_mixed_mixes", get("mixed_mixes"))
    qds = positive_ints("pts_run_mixed_queue_depths", get("mixed_queue_depths"), maximum=MAX_IODEPTH)
    size = parse_block_sizes("pts_run_mixed_block_size", [get("mixed_block_size")])
    return {**base, "mixes": mixes, "queue_depths": qds, "block_sizes": size,
            "iodepth": max(qds)}


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    bs = sizes[0]
    rounds = [{"label": f"QD {qd}", "iodepth": qd,
               "combinations": [_sweeps.cell(f"mixed-r{mix}-qd{qd}", random_rw(mix), mix, bs, iodepth=qd)
                                for mix in test["mixes"]]}
              for qd in test["queue_depths"]]
    return [{"name": "", "rounds": rounds}]


TEST = Test(
    name="mixed_sweep", title="Mixed Reads/Writes Sweep", family="characterisation", stop="sweep", purge="test",
    report="characterisation", inputs=_inputs, segments=_sweeps.segments(_parts),
    profile=_sweeps.profile(("sweep_precondition_seconds", "sweep_seconds"), {
        "standard": {"mixed_mixes": [100, 99, 95, 90, 70, 50, 0], "mixed_queue_depths": _sweeps.QUEUE_DEPTHS,
                     "mixed_block_size": "4k"},
        "quick": {"mixed_queue_depths": [4, 32]},
    }),
    raw_variables=("sweep_precondition_seconds", "sweep_seconds", "mixed_mixes", "mixed_queue_depths",
                   "mixed_block_size"),
    size_fields=(("pts_run_mixed_block_size", "block_sizes"),),
)
