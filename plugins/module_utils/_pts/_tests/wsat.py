# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Write saturation (PTS-E 1.1 and 2.0): rounds of 4k random writes until capacity_multiple x the drive's capacity is
written or max_hours pass."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts_versions
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import boolean, fail, positive, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

BLOCK_SIZE = 4096


MAX_CAPACITY_MULTIPLE = 1000


def _capacity_multiple(value: object) -> float:
    """How many times the drive's capacity write saturation writes at most: positive and at most
    MAX_CAPACITY_MULTIPLE (the PTS writes 4; a bound keeps the target a number of bytes)."""
    multiple = positive("pts_run_wsat_capacity_multiple", value, float)
    if multiple > MAX_CAPACITY_MULTIPLE:
        raise fail("pts_run_wsat_capacity_multiple", value, f"must be at most {MAX_CAPACITY_MULTIPLE} (the PTS writes 4 "
                                                            "times the capacity)")
    return multiple


def _inputs(params: dict, common: dict) -> dict:
    return {
        "mixes": [0], "block_sizes": [BLOCK_SIZE], "wipc": False,
        "numjobs": common["numjobs"], "iodepth": common["iodepth"],
        "round_seconds": seconds("pts_run_wsat_round_seconds", TEST.effective(params, common["profile"],
                                                                              "wsat_round_seconds")),
        "capacity_multiple": _capacity_multiple(params.get("pts_run_wsat_capacity_multiple", 4)),
        "max_hours": positive("pts_run_wsat_max_hours", TEST.effective(params, common["profile"], "wsat_max_hours"),
                              float),
        "latency_plots": boolean("pts_run_wsat_latency_plots",
                                 _pts_versions.spec_value(params, common["spec"], "wsat_latency_plots")),
    }


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    if BLOCK_SIZE < logical_block_size:
        return [], [f"4k dropped: the drive's logical block size is {logical_block_size} bytes"]
    combos = [{"name": "wsat-4096", "rw": "randwrite", "mix": 0, "bs": BLOCK_SIZE}]
    segment = {"name": "", "combinations": combos, "dvs": []}
    if test.get("latency_plots") or test.get("spec") == "2.0":
        # Its 99.999 % response times over several rounds are of all their IOs: the rounds' histograms merged.
        segment["output_format"] = "json+"
    return [segment], []


def written_bytes(jobs: list[dict]) -> int:
    """Bytes fio wrote in one round (all jobs)."""
    return sum(int(job["write"]["io_bytes"]) for job in jobs)


def stop(written: int, target: int, elapsed_s: float, max_seconds: float) -> tuple[bool, str]:
    """Write saturation stops once capacity_multiple x capacity is written or max_hours have passed."""
    if written >= target:
        return True, f"{written:,} bytes written, target {target:,} reached"
    if elapsed_s >= max_seconds:
        return True, f"time limit of {max_seconds / 3600:g} h reached with {written:,} of {target:,} bytes written"
    return False, f"{written:,} of {target:,} bytes written ({100.0 * written / target:.1f} %)" if target else "no target"


TEST = Test(
    name="wsat", title="Write Saturation", short="Write saturation", family="pts", stop="written", purge="test",
    report="wsat", inputs=_inputs, segments=_segments,
    # PTS: 60 s rounds for up to 24 hours.
    profile={"standard": {"wsat_round_seconds": 60, "wsat_max_hours": 24},
             "quick": {"wsat_round_seconds": 3, "wsat_max_hours": 0.05}},
    variables={"pts_run_wsat_round_seconds": "round_seconds", "pts_run_wsat_capacity_multiple": "capacity_multiple",
               "pts_run_wsat_max_hours": "max_hours", "pts_run_wsat_latency_plots": "latency_plots"},
)
