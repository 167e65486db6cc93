# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""HDD IOPS by zone (TKperf's HDD mode): the drive's LBA range in zones from outer to inner, one row per zone, each
row every R/W mix x block size within the zone. No purge, no preconditioning."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import random_rw
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import parse_block_sizes, parse_mixes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    return {"zones": _sweeps.zone_count(get), "precondition": None,
            "mixes": parse_mixes("pts_run_hdd_iops_mixes", get("hdd_iops_mixes")),
            "block_sizes": parse_block_sizes("pts_run_hdd_iops_block_sizes", get("hdd_iops_block_sizes")),
            "numjobs": common["numjobs"], "iodepth": common["iodepth"], "round_seconds": common["round_seconds"]}


def _parts(test: dict, sizes: list[int], capacity: int) -> list[dict]:
    return _sweeps.zone_segments(test, capacity, lambda zone: [
        _sweeps.cell(f"hdd-r{mix}-{bs}-z{zone['zone']}", random_rw(mix), mix, bs, offset=zone["offset"],
                     size=zone["size"]) for mix in test["mixes"] for bs in sizes])


TEST = Test(
    name="hdd_iops", title="HDD IOPS by Zone", family="hdd", stop="sweep", purge=None, report="hdd",
    inputs=_inputs, segments=_sweeps.segments(_parts), space=_sweeps.zone_space,
    profile=_sweeps.profile(("hdd_zones",), {
        "standard": {"hdd_iops_mixes": [100, 50, 0], "hdd_iops_block_sizes": ["64k", "16k", "4k"]}}),
    raw_variables=("hdd_zones", "hdd_iops_mixes", "hdd_iops_block_sizes"),
    size_fields=(("pts_run_hdd_iops_block_sizes", "block_sizes"),),
)
