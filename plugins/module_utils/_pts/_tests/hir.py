# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Host idle recovery (PTS 2.0): 4k random writes to steady state, then per wait state bursts of writes with idle
time between them, each followed by a return to baseline (continuous writes). The bursts and each return to baseline
are one fio run with interval logs, so no idle time the PTS does not ask for lies between them."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, positive, positive_ints, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _sections
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

BLOCK_SIZE = 4096
# The preconditioning's tracking variable.
PC_DV = {"name": "4k 0/100 IOPS", "job": "hir-pc", "mix": 0, "bs": BLOCK_SIZE, "metric": "iops"}


def baseline_samples(test: dict) -> int:
    """The return to baseline: how many samples of about pts_run_hir_baseline_sample_seconds its one continuous fio
    run is cut into (at fio's status dumps)."""
    return max(1, int(round(test["baseline_seconds"] / test["baseline_sample_seconds"])))


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    found = dict(wipc=False, precondition=None, mixes=[0], block_sizes=[BLOCK_SIZE], numjobs=common["numjobs"],
                 iodepth=common["iodepth"],
                 wait_states=positive_ints("pts_run_hir_wait_states", get("hir_wait_states"), maximum=1000),
                 round_seconds=seconds("pts_run_hir_burst_seconds", get("hir_burst_seconds")),
                 precondition_seconds=seconds("pts_run_hir_precondition_seconds", get("hir_precondition_seconds")),
                 repetitions=int(positive("pts_run_hir_repetitions", get("hir_repetitions"), int)),
                 baseline_seconds=seconds("pts_run_hir_baseline_seconds", get("hir_baseline_seconds")),
                 baseline_sample_seconds=seconds("pts_run_hir_baseline_sample_seconds",
                                                 get("hir_baseline_sample_seconds")))
    threads = f"{found['numjobs']} threads each (pts_run_numjobs)"
    _sections.jobs_fit("hir", [
        ("bursts", found["repetitions"] * found["numjobs"], "pts_run_hir_repetitions", found["repetitions"],
         f"lower it or pts_run_numjobs ({found['repetitions']} bursts x {threads})")])
    if found["baseline_sample_seconds"] > found["baseline_seconds"]:
        raise fail("pts_run_hir_baseline_sample_seconds", found["baseline_sample_seconds"],
                   f"is longer than the return to baseline of {found['baseline_seconds']:g} s "
                   "(pts_run_hir_baseline_seconds)")
    return found


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    notes = _sections.unfit_sizes(test, logical_block_size)
    if notes:
        return [], notes
    cell = _sections.section
    pc = cell("hir-pc", "randwrite", 0, BLOCK_SIZE, test["precondition_seconds"])
    segments = [{"name": "precondition", "stop": "steady", "combinations": [pc], "dvs": [dict(PC_DV)]}]
    burst, reps = test["round_seconds"], test["repetitions"]
    sample = test["baseline_sample_seconds"]
    # Whole logging intervals per baseline sample (its samples are cut from the log), at least five per burst.
    log_ms = _interval.log_interval_ms(min(burst, sample), sample)
    for state in test["wait_states"]:
        idle = burst * state
        # One fio run: each burst its own reporting group (new_group, fio's figures per burst), none waiting for the
        # one before it (no stonewall, whose floor would be idle time of its own); each starts on a fixed schedule
        # from fio's start (startdelay counts from there), so the idle between bursts is the wait state's and never
        # drifts over 360 bursts.
        bursts = [cell(f"hir-ws{state}-burst-{i + 1:04d}", "randwrite", 0, BLOCK_SIZE, burst,
                       start_s=i * (burst + idle), group="new") for i in range(reps)]
        # The return to baseline: one section of continuous writes, its samples cut at fio's status dumps.
        baseline = [cell(f"hir-ws{state}-base", "randwrite", 0, BLOCK_SIZE, test["baseline_seconds"])]
        rows = [{"label": f"wait state {state}: {reps} x ({burst:g} s write, {idle:g} s idle)", "phase": "bursts",
                 "wait_state": state, "combinations": bursts},
                {"label": f"return to baseline after wait state {state}: {test['baseline_seconds']:g} s of continuous "
                          "write", "phase": "baseline", "wait_state": state, "combinations": baseline,
                 "samples": {"sample_s": float(sample), "count": baseline_samples(test)}}]
        segments.append({"name": f"ws{state}", "stop": "sweep", "rounds": rows, "dvs": [], "log_ms": log_ms})
    return _sections.finish(segments)


TEST = Test(
    name="hir", title="Host Idle Recovery", short="HIR", family="pts2", stop="phases", purge="test", report="hir",
    inputs=_inputs, segments=_segments,
    profile={
        "standard": {"hir_precondition_seconds": 1800, "hir_wait_states": [1, 2, 3, 5, 10], "hir_burst_seconds": 5,
                     "hir_repetitions": 360, "hir_baseline_seconds": 1800, "hir_baseline_sample_seconds": 60},
        "quick": {"hir_precondition_seconds": 1, "hir_burst_seconds": 0.5, "hir_repetitions": 3,
                  "hir_baseline_seconds": 1.5, "hir_baseline_sample_seconds": 0.5},
    },
    raw_variables=("hir_precondition_seconds", "hir_wait_states", "hir_burst_seconds", "hir_repetitions",
                   "hir_baseline_seconds", "hir_baseline_sample_seconds"),
)
