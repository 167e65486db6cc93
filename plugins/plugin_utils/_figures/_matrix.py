# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What the matrix tests' figures (IOPS, latency) share: whether the drive's plan runs a block size and R/W mix, and
what the plan adds to run it."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME


def matrix_planned(test: str, variable_bs: str, variable_mix: str):
    """Whether a matrix test (IOPS, latency) of the drive's plan runs the block size and mix, else why not."""
    def planned(tests: dict, params: dict, plan: dict) -> str | None:
        entry = tests.get(test)
        if entry is None:
            return f"the {BY_NAME[test].short} test is not selected (pts_tests)"
        if parse_block_size(params["bs"]) not in (entry.get("block_sizes") or []):
            return f"{params['bs']} is not among the {BY_NAME[test].short} test's block sizes ({variable_bs})"
        if params["mix"] not in (entry.get("mixes") or []):
            return f"{params['mix']}/{100 - params['mix']} is not among the {BY_NAME[test].short} test's R/W mixes ({variable_mix})"
        return None
    return planned


def matrix_needs(test: str, variable_bs: str, variable_mix: str):
    """What the plan adds to run it: the test, the block size and the mix."""
    def needs(params: dict) -> dict:
        return {"test": test, "add": {variable_bs: ("block_sizes", parse_block_size(params["bs"])),
                                      variable_mix: ("mixes", params["mix"])}}
    return needs
