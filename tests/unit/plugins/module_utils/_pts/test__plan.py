# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs, _plan

GOOD = {
    "pts_run_tests": ["iops"],
    "pts_run_profile": "standard",
    "pts_run_round_seconds": 60,
    "pts_run_max_rounds": 25,
    "pts_run_window": 5,
    "pts_run_numjobs": 2,
    "pts_run_iodepth": 16,
    "pts_run_max_data_excursion_pct": 20,
    "pts_run_max_slope_excursion_pct": 10,
    "pts_run_iops_mixes": [100, 95, 65, 50, 35, 5, 0],
    "pts_run_iops_block_sizes": ["1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512"],
}


def test_the_pts_iops_matrix():
    plan = _plan.build_plan(GOOD, [{"key": "d1", "size_bytes": 10**9, "logical_block_size": 512}])
    (test,) = plan["tests"]
    assert test["mixes"] == [100, 95, 65, 50, 35, 5, 0]
    assert test["block_sizes"] == [1048576, 131072, 65536, 32768, 16384, 8192, 4096, 512]
    assert test["dv"] == {"mix": 0, "bs": 4096, "metric": "iops"}
    (drive,) = plan["drives"]
    (iops,) = drive["tests"]
    (segment,) = iops["segments"]
    assert iops["combinations"] == 56 and iops["wipc"] and iops["purge"] == "test" and iops["stop"] == "steady"
    # PTS loop order: mix outer, block size inner
    assert [(c["mix"], c["bs"]) for c in segment["combinations"][:2]] == [(100, 1048576), (100, 131072)]
    assert segment["dvs"] == [{"mix": 0, "bs": 4096, "metric": "iops", "name": "4k 0/100 iops"}]
    round_s = 56 * (60 + _plan.JOB_SWITCH_S) + _plan.FIO_START_S
    assert segment["round_s"] == pytest.approx(round_s)
    assert drive["min_s"] == pytest.approx(4 + 5 * round_s)
    assert drive["max_s"] == pytest.approx(4 + 25 * round_s)


def _planned(tests, lbs=512, **extra):
    params = dict(GOOD, pts_run_tests=tests, **extra)
    return _plan.build_plan(params, [{"key": "d1", "size_bytes": 10**9, "logical_block_size": lbs}])


def test_tests_run_in_pts_order_whatever_the_order_given():
    plan = _planned(["wsat", "latency", "iops", "throughput"])
    assert [t["name"] for t in plan["tests"]] == ["iops", "throughput", "latency", "wsat"]


def test_throughput_is_purged_and_judged_per_block_size_and_direction():
    (tp,) = _planned(["throughput"])["drives"][0]["tests"]
    assert tp["purge"] == "segment" and not tp["wipc"] and tp["numjobs"] == 1 and tp["iodepth"] == 32
    assert [s["name"] for s in tp["segments"]] == ["1024k", "64k", "8k", "4k", "512"]
    first = tp["segments"][0]
    combinations = [(c["rw"], c["mix"], c["bs"]) for c in first["combinations"]]
    assert combinations == [("read", 100, 1048576), ("write", 0, 1048576)]
    dvs = [(d["name"], d["mix"], d["metric"]) for d in first["dvs"]]
    assert dvs == [("1024k read", 100, "bw_bytes"), ("1024k write", 0, "bw_bytes")]
    pts2 = _planned(["throughput"], pts_run_throughput_block_sizes=["128k", "1024k"])["drives"][0]["tests"][0]
    assert [s["name"] for s in pts2["segments"]] == ["128k", "1024k"]


def test_latency_runs_one_thread_at_queue_depth_one():
    (lat,) = _planned(["latency"], pts_run_numjobs=8, pts_run_iodepth=64)["drives"][0]["tests"]
    assert lat["numjobs"] == 1 and lat["iodepth"] == 1 and lat["wipc"]
    (segment,) = lat["segments"]
    assert len(segment["combinations"]) == 9
    assert segment["dvs"][0]["metric"] == "lat_mean_ns" and segment["dvs"][0]["bs"] == 4096


def test_wsat_stops_on_bytes_written_or_time():
    (wsat,) = _planned(["wsat"], pts_run_wsat_capacity_multiple=4, pts_run_wsat_max_hours=24)["drives"][0]["tests"]
    assert wsat["stop"] == "written" and wsat["target_bytes"] == 4 * 10**9 and wsat["max_seconds"] == 86400
    (segment,) = wsat["segments"]
    assert segment["combinations"] == [{"name": "wsat-4096", "rw": "randwrite", "mix": 0, "bs": 4096}]
    assert segment["dvs"] == []


def test_a_4kn_drive_drops_512_everywhere_and_keeps_the_4k_dvs():
    plan = _planned(["iops", "throughput", "latency", "wsat"], lbs=4096)
    iops, tp, lat, wsat = plan["drives"][0]["tests"]
    for test in (iops, tp, lat):
        assert test["notes"] == ["512 dropped: the drive's logical block size is 4096 bytes"]
        assert all(c["bs"] >= 4096 for s in test["segments"] for c in s["combinations"])
    assert iops["segments"][0]["dvs"][0]["bs"] == 4096 and lat["segments"][0]["dvs"][0]["bs"] == 4096
    assert [s["name"] for s in tp["segments"]] == ["1024k", "64k", "8k", "4k"]
    assert wsat["segments"][0]["combinations"][0]["bs"] == 4096


def test_a_drive_whose_sectors_exceed_the_dv_block_size_is_refused_before_any_write():
    with pytest.raises(_inputs.PlanError, match="pts_devices='big': the DV block size 4k is below the drive's logical"):
        _plan.build_plan(GOOD, [{"key": "big", "size_bytes": 10**9, "logical_block_size": 8192}])


@pytest.mark.parametrize("given, label", [("128KiB", "128k"), ("1m", "1024k"), (131072, "128k"), ("512", "512")])
def test_the_preconditioning_gets_the_parsed_block_size(given, label):
    plan = _plan.build_plan(dict(GOOD, pts_precondition_block_size=given))
    assert plan["settings"]["wipc_block_size"] == label and plan["wipc"]["block_size"] == label


def test_strings_from_extra_vars_are_numbers():
    plan = _plan.build_plan(dict(GOOD, pts_run_max_rounds="8", pts_run_round_seconds="0.5"))
    assert plan["max_rounds"] == 8 and plan["round_seconds"] == 0.5


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("pts_run_tests", ["iops", "iosp"], "pts_run_tests='iosp': unknown test"),
        ("pts_run_throughput_block_sizes", ["1m", "64kk"], "pts_run_throughput_block_sizes='64kk'"),
        ("pts_run_latency_mixes", [100, 65], "pts_run_latency_mixes=[100, 65]: must include 0"),
        ("pts_run_latency_block_sizes", ["8k"], "pts_run_latency_block_sizes=['8k']: must include 4k"),
        ("pts_run_wsat_capacity_multiple", 0, "pts_run_wsat_capacity_multiple=0: must be a positive number"),
        # (an OverflowError computing the target in bytes before)
        ("pts_run_wsat_capacity_multiple", 1e300, "pts_run_wsat_capacity_multiple=1e+300: must be at most 1000"),
        ("pts_run_wsat_max_hours", "soon", "pts_run_wsat_max_hours='soon': must be a positive number"),
        ("pts_run_wsat_round_seconds", -60, "pts_run_wsat_round_seconds=-60: must be a positive number"),
        ("pts_run_tests", [], "pts_run_tests=[]: must be a non-empty list"),
        ("pts_run_profile", "quik", "pts_run_profile='quik': unknown profile"),
        ("pts_run_round_seconds", 0, "pts_run_round_seconds=0: must be a positive number"),
        ("pts_run_round_seconds", "soon", "pts_run_round_seconds='soon': must be a positive number"),
        ("pts_run_max_rounds", 2.5, "pts_run_max_rounds=2.5: must be a whole number"),
        ("pts_run_max_rounds", 4, "pts_run_window=5: window 5 is larger than max_rounds 4"),
        ("pts_run_max_rounds", 0, "pts_run_max_rounds=0: must be a positive number"),
        ("pts_run_window", 30, "pts_run_window=30: window 30 is larger than max_rounds 25"),
        ("pts_run_window", 1, "pts_run_window=1: window 1 is below 2"),
        ("pts_run_numjobs", -2, "pts_run_numjobs=-2: must be a positive number"),
        ("pts_run_iodepth", 0, "pts_run_iodepth=0: must be a positive number"),
        ("pts_run_max_data_excursion_pct", 120, "pts_run_max_data_excursion_pct=120.0: a percentage"),
        ("pts_run_max_slope_excursion_pct", 0, "pts_run_max_slope_excursion_pct=0: must be a positive number"),
        ("pts_run_iops_mixes", [100, 101, 0], "pts_run_iops_mixes=101: a R/W mix is the read percentage"),
        ("pts_run_iops_mixes", [100, 65], "pts_run_iops_mixes=[100, 65]: must include 0"),
        ("pts_run_iops_mixes", [0, 0], "pts_run_iops_mixes=0: listed twice"),
        ("pts_run_iops_block_sizes", ["4kk", "4k"], "pts_run_iops_block_sizes='4kk': '4kk' is not a block size"),
        ("pts_run_iops_block_sizes", ["64k"], "pts_run_iops_block_sizes=['64k']: must include 4k"),
        ("pts_run_iops_block_sizes", ["4k", "1000"], "pts_run_iops_block_sizes='1000': '1000' is not a positive multiple"),
        ("pts_run_ioengine", "libaio\nfilename=/dev/sda", "pts_run_ioengine='libaio\\nfilename=/dev/sda': must be one of libaio"),
        ("pts_run_ioengine", "libaio\n", "pts_run_ioengine='libaio\\n': must be one of libaio"),
        ("pts_run_ioengine", "exec", "pts_run_ioengine='exec': must be one of libaio, io_uring"),
        ("pts_run_ioengine", "null", "pts_run_ioengine='null': must be one of"),
        ("pts_run_ioengine", "nosuchengine", "pts_run_ioengine='nosuchengine': must be one of"),
        ("pts_run_iodepth", 100000, "pts_run_iodepth=100000: must be at most 4096 outstanding IOs per thread"),
        ("pts_run_numjobs", 1000, "pts_run_numjobs=1000: must be at most 256 threads"),
        ("pts_run_throughput_iodepth", 5000, "pts_run_throughput_iodepth=5000: must be at most 4096"),
        ("pts_run_sweep_queue_depths", [1, 8192], "pts_run_sweep_queue_depths=8192: must be at most 4096"),
        ("pts_run_remote_dir", "/var/lib/x\ty", "pts_run_remote_dir='/var/lib/x\\ty': contains a control character"),
        ("pts_precondition_block_size", "128kk", "pts_precondition_block_size='128kk'"),
        ("pts_precondition_capacity_multiple", 0, "pts_precondition_capacity_multiple=0: must be a positive number"),
    ],
)
def test_bad_input_names_the_variable_and_value(variable, value, message):
    with pytest.raises(_inputs.PlanError) as caught:
        _plan.build_plan(dict(GOOD, **{variable: value}))
    assert message in str(caught.value)


@pytest.mark.parametrize("variable, value, message", [
    ("pts_run_round_seconds", 0.0001, "pts_run_round_seconds=0.0001: must be at least 0.01 s"),
    ("pts_run_round_seconds", float("nan"), "pts_run_round_seconds=nan: must be a positive number"),
    ("pts_run_round_seconds", float("inf"), "pts_run_round_seconds=inf: must be a positive number"),
    ("pts_run_wsat_round_seconds", 0.001, "pts_run_wsat_round_seconds=0.001: must be at least 0.01 s"),
    ("pts_run_wsat_max_hours", float("nan"), "pts_run_wsat_max_hours=nan: must be a positive number"),
    ("pts_run_max_data_excursion_pct", float("nan"), "pts_run_max_data_excursion_pct=nan: must be a positive number"),
    ("pts_run_reconnect_timeout_s", float("inf"), "pts_run_reconnect_timeout_s=inf: must be a positive number"),
    ("pts_allow_destroy", "on", "pts_allow_destroy='on': must be a YAML boolean, not a string: write true or false "
                                "without quotes"),
    ("pts_allow_destroy", "true", "pts_allow_destroy='true': must be a YAML boolean, not a string"),
    ("pts_allow_destroy", 1, "pts_allow_destroy=1: must be true or false"),
])
def test_non_finite_too_short_and_non_boolean_inputs_are_refused(variable, value, message):
    with pytest.raises(_inputs.PlanError) as caught:
        _plan.build_plan(dict(GOOD, **{variable: value}))
    assert str(caught.value).startswith(message), str(caught.value)
    assert caught.value.variable == variable


@pytest.mark.parametrize("allow", [True, False])
def test_a_boolean_allow_destroy_reaches_the_settings_unchanged(allow):
    assert _plan.build_plan(dict(GOOD, pts_allow_destroy=allow))["settings"]["allow_destroy"] is allow


def test_the_plan_records_the_measurement_variables_of_the_selected_tests_in_one_spelling():
    spelled = _plan.build_plan(dict(GOOD, pts_run_iops_block_sizes=["4096", "1m"], pts_run_round_seconds="60"))
    plain = _plan.build_plan(dict(GOOD, pts_run_iops_block_sizes=["4k", "1024k"], pts_run_round_seconds=60.0))
    assert spelled["variables"] == plain["variables"]
    variables = plain["variables"]
    assert variables["pts_run_tests"] == ["iops"] and variables["pts_run_iops_block_sizes"] == [4096, 1048576]
    assert variables["pts_precondition_block_size"] == 131072  # iops preconditions (WIPC)
    # Unselected tests and what changes no figure are left out.
    assert "pts_run_latency_mixes" not in variables and "pts_run_remote_dir" not in variables
    assert "pts_run_round_timeout_s" not in variables and "pts_allow_destroy" not in variables
    sweep = _plan.build_plan(dict(GOOD, pts_run_tests=["rw_sweep"], pts_run_profile="quick",
                                  pts_run_sweep_block_sizes=["4k"]))["variables"]
    assert sweep["pts_run_sweep_block_sizes"] == [4096] and sweep["pts_run_sweep_seconds"] == 0.5
    assert "pts_precondition_block_size" not in sweep and "pts_run_iops_mixes" not in sweep
