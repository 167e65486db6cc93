# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Throughput (PTS-E 1.1 and 2.0): per block size - each purged (and under PTS 2.0 preconditioned) on its own - a
sequential read and a sequential write per round, to steady state of both."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts_versions
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import boolean, fail, parse_block_sizes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, drop_small
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import queue_depth, thread_count


def _wipc(params: dict, chosen: str, profile: str) -> dict:
    """Whether each throughput block size is preconditioned (WIPC) after its purge, and at which block size."""
    wipc = boolean("pts_run_throughput_wipc", _pts_versions.spec_value(params, chosen, "throughput_wipc"))
    size = TEST.effective(params, profile, "throughput_wipc_block_size")
    if size != "segment":
        try:
            size = parse_block_size(size)
        except ValueError as exc:
            raise fail("pts_run_throughput_wipc_block_size", size, f"must be 'segment' (the block size under test) or "
                                                                   f"a block size: {exc}") from exc
    return {"segment_wipc": wipc, "wipc_block_size": size}


def _inputs(params: dict, common: dict) -> dict:
    chosen = common["spec"]
    sizes = parse_block_sizes("pts_run_throughput_block_sizes",
                              _pts_versions.spec_value(params, chosen, "throughput_block_sizes"))
    return dict(_wipc(params, chosen, common["profile"]), mixes=[100, 0], block_sizes=sizes, wipc=False,
                numjobs=thread_count("pts_run_throughput_numjobs", params.get("pts_run_throughput_numjobs", 1)),
                iodepth=queue_depth("pts_run_throughput_iodepth", params.get("pts_run_throughput_iodepth", 32)))


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    sizes, notes = drop_small(test["block_sizes"], logical_block_size)
    segments = []
    for bs in sizes:
        combos = [{"name": f"tp-read-{bs}", "rw": "read", "mix": 100, "bs": bs},
                  {"name": f"tp-write-{bs}", "rw": "write", "mix": 0, "bs": bs}]
        dvs = [{"name": f"{block_size_label(bs)} read", "mix": 100, "bs": bs, "metric": "bw_bytes"},
               {"name": f"{block_size_label(bs)} write", "mix": 0, "bs": bs, "metric": "bw_bytes"}]
        segment = {"name": block_size_label(bs), "combinations": combos, "dvs": dvs}
        if test.get("segment_wipc"):
            # WIPC after this block size's own purge: at the block size under test ([A]) or the one set.
            wipc_bs = bs if test["wipc_block_size"] == "segment" else test["wipc_block_size"]
            if wipc_bs < logical_block_size or wipc_bs % logical_block_size:
                raise InputError(f"pts_run_throughput_wipc_block_size={block_size_label(wipc_bs)}: below or not a "
                                 f"multiple of the drive's logical block size of {logical_block_size} bytes")
            segment["wipc_block_size"] = wipc_bs
        segments.append(segment)
    return segments, notes


def _space(test: dict, capacity: int) -> tuple[int, str]:
    """Several streams each write their own slice of the drive."""
    if test["numjobs"] > 1:
        return capacity // test["numjobs"], f"each of its {test['numjobs']} streams' slice of the drive"
    return capacity, "the drive"


TEST = Test(
    name="throughput", title="Throughput", family="pts", stop="steady", purge="segment", report="throughput",
    inputs=_inputs, segments=_segments, hdd_instead="hdd_throughput", space=_space,
    # The HDD throughput test's stream runs at the throughput test's queue depth.
    gives={"throughput_iodepth": "iodepth"},
    profile={"standard": {"throughput_wipc_block_size": "segment"}},
    variables={"pts_run_throughput_block_sizes": "block_sizes", "pts_run_throughput_numjobs": "numjobs",
               "pts_run_throughput_iodepth": "iodepth", "pts_run_throughput_wipc": "segment_wipc",
               "pts_run_throughput_wipc_block_size": "wipc_block_size"},
    size_fields=(("pts_run_throughput_block_sizes", "block_sizes"),
                 ("pts_run_throughput_wipc_block_size", "wipc_block_size")),
)
