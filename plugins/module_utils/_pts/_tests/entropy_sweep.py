# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Entropy sweep (Myce/OakGate 5.4): per R/W mix (each purged on its own) one row per queue depth, each row every
data entropy (fio's compressibility is its complement)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import random_rw
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, parse_mixes, positive_ints
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._job_check import MAX_IODEPTH


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    base = _sweeps.timed(get)
    percents = positive_ints("pts_run_entropy_percents", get("entropy_percents"), maximum=100)
    mixes = parse_mixes("pts_run_entropy_mixes", get("entropy_mixes"))
    if 100 in mixes:
        raise fail("pts_run_entropy_mixes", mixes, "100 % reads writes no data: entropy cannot show")
    qds = positive_ints("pts_run_entropy_queue_depths", get("entropy_queue_depths"), maximum=MAX_IODEPTH)
    return {**base, "percents": percents, "mixes": mixes, "queue_depths": qds,
            "block_sizes": [4096], "iodepth": max(qds)}


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    out = []
    for mix in test["mixes"]:
        rounds = [{"label": f"QD {qd}", "iodepth": qd,
                   "combinations": [_sweeps.cell(f"entropy-r{mix}-qd{qd}-e{entropy}", random_rw(mix), mix, 4096,
                                                 iodepth=qd,
                                                 # fio's compressibility is the complement of the entropy.
                                                 buffer_compress_percentage=100 - entropy)
                                    for entropy in test["percents"]]}
                  for qd in test["queue_depths"]]
        out.append({"name": f"mix-{mix}-{100 - mix}", "rounds": rounds})
    return out


TEST = Test(
    name="entropy_sweep", title="Entropy Sweep", family="characterisation", stop="sweep", purge="segment",
    report="characterisation", inputs=_inputs, segments=_sweeps.segments(_parts),
    profile=_sweeps.profile(("sweep_precondition_seconds", "sweep_seconds"), {
        "standard": {"entropy_percents": list(range(5, 101, 5)), "entropy_mixes": [0, 70],
                     "entropy_queue_depths": _sweeps.QUEUE_DEPTHS},
        "quick": {"entropy_percents": [5, 50, 100], "entropy_queue_depths": [4, 32]},
    }),
    raw_variables=("sweep_precondition_seconds", "sweep_seconds", "entropy_percents", "entropy_mixes",
                   "entropy_queue_depths"),
)
