# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""HDD throughput by zone (TKperf's HDD mode): one row per LBA zone, each row a sequential read and write per block
size within the zone, one stream at the throughput test's queue depth. No purge, no preconditioning."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import parse_block_sizes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    return {"zones": _sweeps.zone_count(get), "precondition": None, "mixes": [100, 0],
            "block_sizes": parse_block_sizes("pts_run_hdd_throughput_block_sizes", get("hdd_throughput_block_sizes")),
            "numjobs": 1, "iodepth": common["throughput_iodepth"], "round_seconds": common["round_seconds"]}


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    return _sweeps.zone_segments(test, capacity, lambda zone: [
        _sweeps.cell(f"hdd-{rw}-{bs}-z{zone['zone']}", rw, 100 if rw == "read" else 0, bs, offset=zone["offset"],
                     size=zone["size"]) for bs in sizes for rw in ("read", "write")])


TEST = Test(
    name="hdd_throughput", title="HDD Throughput by Zone", family="hdd", stop="sweep", purge=None, report="hdd",
    inputs=_inputs, segments=_sweeps.segments(_parts), space=_sweeps.zone_space,
    profile=_sweeps.profile(("hdd_zones",), {"standard": {"hdd_throughput_block_sizes": ["1024k", "4k"]}}),
    raw_variables=("hdd_zones", "hdd_throughput_block_sizes"),
    size_fields=(("pts_run_hdd_throughput_block_sizes", "block_sizes"),),
)
