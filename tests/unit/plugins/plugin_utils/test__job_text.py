# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Job files from validated values only (plugin_utils/_job_text.py): every job file of every plan - both PTS versions,
both profiles, SSD and HDD mode, 512 and 4096-byte sectors, throttled or not - renders from the plan alone and passes
the job-file check; a value that would not is refused before anything leaves the controller."""

from __future__ import annotations

import itertools

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check, _plan
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _job_text

DEVICE = "/dev/loop9"
LIMITS = {"pts_run_window": 5, "pts_run_max_data_excursion_pct": 20, "pts_run_max_slope_excursion_pct": 10}


def every_round():
    for spec, profile, mode, lbs, rate in itertools.product(("1.1", "2.0"), ("standard", "quick"), ("ssd", "hdd"),
                                                            (512, 4096), (0, 50)):
        params = dict(LIMITS, pts_run_tests=list(_registry.NAMES), pts_run_profile=profile, pts_run_spec=spec,
                      pts_run_drive_mode=mode, pts_run_rate_iops=rate)
        plan = _plan.build_plan(params, [{"key": "d1", "size_bytes": 64 * 2 ** 30, "logical_block_size": lbs}])
        for test in plan["drives"][0]["tests"]:
            for segment in test["segments"]:
                if segment.get("stop") == "points":
                    continue  # rows chosen while the test runs (test_pts_segment renders them)
                for number, row in enumerate(segment.get("rounds") or [None], 1):
                    round_ = {"number": number, "row": row}
                    if segment.get("log_ms"):
                        round_["log"] = {"prefix": f"round-{number:02d}", "avg_ms": int(segment["log_ms"])}
                    yield plan, test, segment, round_


def test_every_job_file_of_every_plan_renders_from_the_plan_and_passes_the_check():
    options = set()
    count = 0
    for plan, test, segment, round_ in every_round():
        text = _job_text.round_text(test, segment, round_, DEVICE, plan["ioengine"], plan["settings"]["rate_iops"], "d1")
        assert _job_check.refusals(text, DEVICE) == []
        assert text.startswith(f"# {_job_text.HEADER}\n") and f"\nfilename={DEVICE}\n" in text
        options |= {line.split("=")[0] for line in text.split("\n") if line and line[0] not in "#;["}
        count += 1
    assert count > 3000
    # Every option the check allows is one a job file writes (or the throughput streams' own offsets).
    assert set(_job_check.ALLOWED) - options == {"offset_increment", "loops", "zero_buffers"}


def test_a_round_is_what_the_plan_says_and_nothing_else():
    plan = _plan.build_plan(dict(LIMITS, pts_run_tests=["wsat"], pts_run_profile="quick"),
                            [{"key": "d1", "size_bytes": 2 ** 30, "logical_block_size": 512}])
    test = plan["drives"][0]["tests"][0]
    text = _job_text.round_text(test, test["segments"][0], {"number": 3}, DEVICE, "io_uring", 0, "d1")
    settings = [line for line in text.split("\n") if line and line[0] not in "#"]
    assert settings == ["[global]", f"filename={DEVICE}", "ioengine=io_uring", "direct=1", "numjobs=2", "iodepth=16",
                        "group_reporting=1", "time_based=1", f"runtime={int(test['round_seconds'] * 1000)}ms",
                        "norandommap=1", "randrepeat=0", "refill_buffers=1", "lat_percentiles=1",
                        "percentile_list=50:99:99.9:99.99:99.999", "[wsat-4096]", "stonewall", "rw=randwrite",
                        "bs=4096"]


@pytest.mark.parametrize("mode, seconds, expected", [
    ("wipc", 0, ["rw=write", "bs=128k", "iodepth=32", "numjobs=1", "loops=2", "refill_buffers=1"]),
    ("random", 7200, ["rw=randwrite", "bs=4k", "iodepth=32", "zero_buffers=1", "time_based=1", "runtime=7200000ms"]),
])
def test_the_preconditioning_job_file(mode, seconds, expected):
    text = _job_text.wipc_text(mode, DEVICE, "libaio", "d1", "128k", 2, 32, seconds)
    assert _job_check.refusals(text, DEVICE) == [] and all(f"\n{line}\n" in text for line in expected)


@pytest.mark.parametrize("change, why", [
    ({"ioengine": "exec"}, "ioengine='exec' must be one of"),
    ({"ioengine": "libaio\ninclude\t/etc/x"}, "U+0009"),
    ({"block_size": "128k\nfilename=/dev/sda"}, "writes to '/dev/sda'"),
    ({"iodepth": 100000}, "iodepth='100000' must be a whole number from 1 to 4096"),
    ({"device": "/dev/loop9\u2028:/dev/sda"}, "is not a plain /dev path"),
])
def test_a_value_the_check_would_refuse_is_refused_on_the_controller(change, why):
    args = dict({"mode": "wipc", "device": DEVICE, "ioengine": "libaio", "drive_key": "d1", "block_size": "128k",
                 "capacity_multiple": 2, "iodepth": 32, "seconds": 0}, **change)
    with pytest.raises(_job_text.JobTextError, match="would be refused: .*" + why.replace("(", r"\(").replace(
            ")", r"\)").replace("+", r"\+")):
        _job_text.wipc_text(**args)


def test_a_round_gets_nothing_but_its_context():
    # A variable of the play (which an extra variable could replace) cannot reach the template: only the context.
    plan = _plan.build_plan(dict(LIMITS, pts_run_tests=["iops"], pts_run_profile="quick"),
                            [{"key": "d1", "size_bytes": 2 ** 30, "logical_block_size": 512}])
    test = dict(plan["drives"][0]["tests"][0])
    segment = dict(test["segments"][0])
    segment["combinations"] = [dict(segment["combinations"][0], options={"exec_prerun": "touch /tmp/x"})]
    with pytest.raises(_job_text.JobTextError, match="sets 'exec_prerun'"):
        _job_text.round_text(test, segment, {"number": 1}, DEVICE, "libaio", 0, "d1")
