# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Latency (PTS-E 1.1 and 2.0): random R/W mixes x block sizes at one thread and queue depth 1, to steady state of
4k 0/100 mean latency; the window's percentiles are of all its IOs (each round's histograms, fio json+)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, parse_block_sizes, parse_mixes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _matrix
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

MIXES = (100, 65, 0)
BLOCK_SIZES = ("8k", "4k", "512")
DV = {"mix": 0, "bs": 4096, "metric": "lat_mean_ns"}


def _inputs(params: dict, common: dict) -> dict:
    mixes = parse_mixes("pts_run_latency_mixes", params.get("pts_run_latency_mixes", list(MIXES)))
    sizes = parse_block_sizes("pts_run_latency_block_sizes", params.get("pts_run_latency_block_sizes", list(BLOCK_SIZES)))
    if DV["mix"] not in mixes:
        raise fail("pts_run_latency_mixes", mixes, "must include 0: the latency DV is 4k 0/100 mean latency")
    if DV["bs"] not in sizes:
        raise fail("pts_run_latency_block_sizes", params.get("pts_run_latency_block_sizes"),
                   "must include 4k: the latency DV is 4k 0/100 mean latency")
    # The PTS latency test runs one thread at queue depth 1; not a variable.
    return {"mixes": mixes, "block_sizes": sizes, "dv": dict(DV), "wipc": True, "numjobs": 1, "iodepth": 1}


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    segments, notes = _matrix.segments(test, logical_block_size)
    segments[0]["output_format"] = "json+"
    return segments, notes


TEST = Test(
    name="latency", title="Latency", family="pts", stop="steady", purge="test", report="latency",
    inputs=_inputs, segments=_segments,
    variables={"pts_run_latency_mixes": "mixes", "pts_run_latency_block_sizes": "block_sizes"},
    size_fields=(("pts_run_latency_block_sizes", "block_sizes"),),
)
