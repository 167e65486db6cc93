# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""IOPS (PTS-E 1.1 and 2.0): random R/W mixes x block sizes per round, to steady state of its tracking variables
(4k 0/100 IOPS; under PTS 2.0 also 64k 65/35 and 1024k 100/0)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts_versions
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, parse_block_sizes, parse_mixes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _matrix
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

MIXES = (100, 95, 65, 50, 35, 5, 0)
BLOCK_SIZES = ("1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512")
DV = {"mix": 0, "bs": 4096, "metric": "iops"}


def tracking_variables(value: object, mixes: list[int], sizes: list[int], variable: str = "pts_run_iops_dvs") -> list[dict]:
    """The IOPS test's tracking variables: each a block size and R/W mix of the matrix, IOPS, all to be steady."""
    if not isinstance(value, (list, tuple)) or not value:
        raise fail(variable, value, "must be a non-empty list of {bs, mix} entries, e.g. [{bs: 4k, mix: 0}]")
    dvs = []
    for index, entry in enumerate(value):
        where = f"{variable}[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"bs", "mix"} or "bs" not in entry or "mix" not in entry:
            raise fail(where, entry, "must be a mapping with exactly bs (a block size) and mix (the read percentage)")
        try:
            bs = parse_block_size(entry["bs"])
        except ValueError as exc:
            raise fail(f"{where}.bs", entry["bs"], str(exc)) from exc
        mix = parse_mixes(f"{where}.mix", [entry["mix"]])[0]
        if bs not in sizes:
            raise fail(f"{where}.bs", entry["bs"], "is not in pts_run_iops_block_sizes: a tracking variable must be "
                                                   "one of the matrix's combinations")
        if mix not in mixes:
            raise fail(f"{where}.mix", entry["mix"], "is not in pts_run_iops_mixes: a tracking variable must be one "
                                                     "of the matrix's combinations")
        if any(d["bs"] == bs and d["mix"] == mix for d in dvs):
            raise fail(where, entry, "listed twice")
        dvs.append({"mix": mix, "bs": bs, "metric": "iops"})
    return dvs


def _inputs(params: dict, common: dict) -> dict:
    chosen = common["spec"]
    mixes = parse_mixes("pts_run_iops_mixes", params.get("pts_run_iops_mixes", list(MIXES)))
    sizes = parse_block_sizes("pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes", list(BLOCK_SIZES)))
    if params.get("pts_run_iops_dvs") is None:
        # The spec's tracking variables: a matrix without one of them is the matrix variable's mistake.
        for dv in _pts_versions.SPEC_DEFAULTS[chosen]["iops_dvs"]:
            name = f"{dv['bs']} {dv['mix']}/{100 - dv['mix']}"
            what = "the IOPS DV is 4k 0/100" if chosen == "1.1" else \
                f"PTS {chosen}'s IOPS tracking variable {name} needs it (or set pts_run_iops_dvs)"
            if dv["mix"] not in mixes:
                raise fail("pts_run_iops_mixes", mixes, f"must include {dv['mix']}"
                           f"{' (100 % write)' if dv['mix'] == 0 else ''}: {what}")
            if parse_block_size(dv["bs"]) not in sizes:
                raise fail("pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes"),
                           f"must include {dv['bs']}: {what}")
    dvs = tracking_variables(_pts_versions.spec_value(params, chosen, "iops_dvs"), mixes, sizes)
    return {"mixes": mixes, "block_sizes": sizes, "dv": dict(dvs[0]), "dvs": dvs, "wipc": True,
            "numjobs": common["numjobs"], "iodepth": common["iodepth"]}


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    return _matrix.segments(test, logical_block_size)


TEST = Test(
    name="iops", title="IOPS", family="pts", stop="steady", purge="test", report="iops",
    inputs=_inputs, segments=_segments, hdd_instead="hdd_iops",
    variables={"pts_run_iops_mixes": "mixes", "pts_run_iops_block_sizes": "block_sizes", "pts_run_iops_dvs": "dvs"},
    size_fields=(("pts_run_iops_block_sizes", "block_sizes"),),
)
