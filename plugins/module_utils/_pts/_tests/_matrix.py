# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The PTS-E 1.1 matrix tests (IOPS, latency): every R/W mix x block size in each round, tracked by DVs of the
matrix to steady state."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._dv import dv_name
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, drop_small


def random_combinations(test: str, mixes: list[int], sizes: list[int]) -> list[dict]:
    # PTS loop order: R/W mix outer, block size inner.
    return [{"name": f"{test}-r{mix}-{bs}", "rw": "randrw", "mix": mix, "bs": bs} for mix in mixes for bs in sizes]


def segments(test: dict, logical_block_size: int) -> tuple[list[dict], list[str]]:
    """One segment of the whole matrix at the block sizes the drive can run, and a note for each it cannot."""
    name = test["name"]
    sizes, notes = drop_small(test["block_sizes"], logical_block_size)
    dvs = []
    for dv in test.get("dvs") or [test["dv"]]:
        dv = dict(dv)
        if dv["bs"] not in sizes:
            raise InputError(f"the DV block size {block_size_label(dv['bs'])} is below the drive's "
                             f"logical block size {logical_block_size}: the {name} test cannot run")
        dv["name"] = dv_name(dv)
        dvs.append(dv)
    return [{"name": "", "combinations": random_combinations(name, test["mixes"], sizes), "dvs": dvs}], notes
