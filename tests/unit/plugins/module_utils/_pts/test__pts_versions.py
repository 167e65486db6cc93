# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""PTS 2.0: what pts_spec switches, and the HIR, XSR, CBW and DIRTH tests as the plan builds them."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs, _plan, _pts_versions, _rounds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests.cbw import BSSPLIT as CBW_BSSPLIT

BASE = {
    "pts_run_tests": ["iops"],
    "pts_run_profile": "standard",
    "pts_run_round_seconds": 60,
    "pts_run_max_rounds": 25,
    "pts_run_window": 5,
    "pts_run_max_data_excursion_pct": 20,
    "pts_run_max_slope_excursion_pct": 10,
}
DRIVE = {"key": "d1", "size_bytes": 3_840_000_000_000, "logical_block_size": 512}


def plan(tests, drive=None, **params):
    return _plan.build_plan(dict(BASE, pts_run_tests=tests, **params), [dict(drive or DRIVE)])


def entry(tests, name, **params):
    return next(t for t in plan(tests, **params)["drives"][0]["tests"] if t["test"] == name)


@pytest.mark.parametrize("given, chosen", [(None, "1.1"), ("1.1", "1.1"), (1.1, "1.1"), ("2.0", "2.0"), (2.0, "2.0")])
def test_the_spec_is_one_of_two_versions_however_yaml_spells_it(given, chosen):
    params = {} if given is None else {"pts_run_spec": given}
    found = plan(["iops"], **params)
    assert found["spec"] == chosen and found["variables"]["pts_run_spec"] == chosen
    assert found["spec_name"] == _pts_versions.SPEC_NAMES[chosen]


@pytest.mark.parametrize("value", ["2.1", "1.0", True, "latest", 2, "2.0.2"])
def test_an_unknown_spec_is_refused_naming_it(value):
    with pytest.raises(_inputs.PlanError, match=r"pts_run_spec=.*unknown PTS version; known: 1.1, 2.0"):
        plan(["iops"], pts_run_spec=value)


def test_spec_1_1_keeps_tkperfs_choices():
    found = plan(["iops", "throughput", "wsat"])
    assert (found["numjobs"], found["iodepth"]) == (2, 16)
    iops, throughput, wsat = found["drives"][0]["tests"]
    assert iops["segments"][0]["dvs"] == [{"mix": 0, "bs": 4096, "metric": "iops", "name": "4k 0/100 iops"}]
    assert [s["name"] for s in throughput["segments"]] == ["1024k", "64k", "8k", "4k", "512"]
    assert not throughput["segment_wipc"] and "wipc_block_size" not in throughput["segments"][0]
    assert wsat["latency_plots"] is False


def test_spec_2_0_sets_its_defaults():
    found = plan(["iops", "throughput", "wsat"], pts_run_spec="2.0")
    assert (found["numjobs"], found["iodepth"]) == (4, 32)
    iops, throughput, wsat = found["drives"][0]["tests"]
    assert (iops["numjobs"], iops["iodepth"]) == (4, 32) and (wsat["numjobs"], wsat["iodepth"]) == (4, 32)
    # Three tracking variables, all judged every round: the test stops when all are steady.
    assert [(d["bs"], d["mix"]) for d in iops["segments"][0]["dvs"]] == [(4096, 0), (65536, 65), (1048576, 100)]
    # Throughput: 1024k first, then 128k, each purged and preconditioned at its own block size; TC1/QD32.
    assert [s["name"] for s in throughput["segments"]] == ["1024k", "128k"]
    assert throughput["segment_wipc"] and [s["wipc_block_size"] for s in throughput["segments"]] == [1048576, 131072]
    assert (throughput["numjobs"], throughput["iodepth"]) == (1, 32) and throughput["purge"] == "segment"
    assert wsat["latency_plots"] is True


def test_each_spec_default_stays_overridable_by_its_own_variable():
    found = plan(["iops", "throughput", "wsat"], pts_run_spec="2.0", pts_run_numjobs=2, pts_run_iodepth=8,
                 pts_run_iops_dvs=[{"bs": "64k", "mix": 65}], pts_run_throughput_block_sizes=["128k"],
                 pts_run_throughput_wipc=False, pts_run_wsat_latency_plots=False)
    iops, throughput, wsat = found["drives"][0]["tests"]
    assert (iops["numjobs"], iops["iodepth"]) == (2, 8)
    assert [(d["bs"], d["mix"]) for d in iops["segments"][0]["dvs"]] == [(65536, 65)]
    assert [s["name"] for s in throughput["segments"]] == ["128k"] and not throughput["segment_wipc"]
    assert wsat["latency_plots"] is False
    # ... and 1.1 can ask for 2.0's throughput WIPC, at CloudHarmony's 128k.
    throughput = entry(["throughput"], "throughput", pts_run_throughput_wipc=True,
                       pts_run_throughput_wipc_block_size="128k")
    assert throughput["segment_wipc"] and {s["wipc_block_size"] for s in throughput["segments"]} == {131072}


@pytest.mark.parametrize("params, message", [
    ({"pts_run_spec": "2.0", "pts_run_iops_mixes": [100, 0]},
     "pts_run_iops_mixes=[100, 0]: must include 65: PTS 2.0's IOPS tracking variable 64k 65/35 needs it (or set "
     "pts_run_iops_dvs)"),
    ({"pts_run_iops_dvs": [{"bs": "4k", "mix": 50, "x": 1}]}, "pts_run_iops_dvs[0]="),
    ({"pts_run_iops_dvs": [{"bs": "4kk", "mix": 0}]}, "pts_run_iops_dvs[0].bs='4kk'"),
    ({"pts_run_iops_dvs": [{"bs": "4k", "mix": 40}]}, "pts_run_iops_dvs[0].mix=40: is not in pts_run_iops_mixes"),
    ({"pts_run_iops_dvs": []}, "pts_run_iops_dvs=[]: must be a non-empty list"),
    ({"pts_run_throughput_wipc": "yes"}, "pts_run_throughput_wipc='yes': must be a YAML boolean"),
    ({"pts_run_throughput_wipc_block_size": "big"}, "pts_run_throughput_wipc_block_size='big': must be 'segment'"),
    ({"pts_run_hir_wait_states": [1, 0]}, "pts_run_hir_wait_states=0: must be a positive number"),
    ({"pts_run_hir_burst_seconds": 0.001}, "pts_run_hir_burst_seconds=0.001: must be at least 0.01 s"),
    ({"pts_run_xsr_group_minutes": [480, 360]}, "pts_run_xsr_group_minutes=[480, 360]: must be three durations"),
    ({"pts_run_xsr_group_minutes": [480, 0.001, 480]}, "pts_run_xsr_group_minutes=0.001: is shorter than one sample"),
    ({"pts_run_xsr_recovery_tolerance_pct": 100}, "pts_run_xsr_recovery_tolerance_pct=100: must be a percentage"),
    ({"pts_run_xsr_random_block_size": "8kk"}, "pts_run_xsr_random_block_size='8kk'"),
    ({"pts_run_intensity_thread_counts": [32, 32]}, "pts_run_intensity_thread_counts=32: listed twice"),
    ({"pts_run_intensity_point_prewrite_seconds": 30}, "pts_run_intensity_point_prewrite_seconds=30.0: is shorter"),
    ({"pts_run_cbw_bssplit": "4k/50:8k/40"}, "pts_run_cbw_bssplit='4k/50:8k/40': its percentages add up to 90"),
    ({"pts_run_cbw_bssplit": "4k:50"}, "is not size/percent"),
    ({"pts_run_cbw_bssplit": "4k/33\n:8k/67"}, "without spaces"),
    ({"pts_run_cbw_bssplit": "4k/33: 8k/67"}, "without spaces"),
    ({"pts_run_hir_repetitions": 1200, "pts_run_numjobs": 4},
     "pts_run_hir_repetitions=1200: makes hir's bursts one fio job file of 4,800 threads (its sections' threads added "
     "up); fio runs at most 4,096: lower it or pts_run_numjobs (1200 bursts x 4 threads each (pts_run_numjobs))"),
    ({"pts_run_hir_baseline_sample_seconds": 2000},
     "pts_run_hir_baseline_sample_seconds=2000.0: is longer than the return to baseline of 1800 s"),
    ({"pts_run_intensity_sample_seconds": 20},
     "pts_run_intensity_sample_seconds=20.0: makes cbw's operating point one fio job file of 5,792 threads"),
    ({"pts_run_intensity_thread_counts": [128, 256, 200]},
     "pts_run_intensity_thread_counts=[256, 200, 128]: makes cbw's TC x QD loop round one fio job file of 4,344 threads"),
    ({"pts_run_cbw_distribution": "zoned:50/5:50/15"}, "its LBA shares add up to 20, not 100"),
    ({"pts_run_cbw_distribution": "random"}, "must be a fio zoned distribution"),
    ({"pts_run_dirth_mix": 101}, "pts_run_dirth_mix=101"),
])
def test_bad_pts2_input_names_the_variable_and_value(params, message):
    # Every test's variables are checked, selected or not: a typo is a mistake either way.
    with pytest.raises(_inputs.PlanError) as caught:
        plan(["iops"], **params)
    assert message in str(caught.value)


@pytest.mark.parametrize("variable, value, expected", [
    ("pts_run_xsr_recovery_tolerance_pct", "2.5", 2.5), ("pts_run_cbw_mix", "30", 30), ("pts_run_dirth_mix", "70", 70)])
def test_numbers_given_with_dash_e_are_strings_and_taken(variable, value, expected):
    test = {"pts_run_xsr_recovery_tolerance_pct": "xsr", "pts_run_cbw_mix": "cbw", "pts_run_dirth_mix": "dirth"}[variable]
    found = entry([test], test, **{variable: value})
    key = "recovery_tolerance_pct" if test == "xsr" else "mix"
    assert found["parameters"][key] == expected


def test_hir_precondition_then_each_wait_state_on_a_fixed_schedule():
    hir = entry(["hir"], "hir")
    assert hir["purge"] == "test" and not hir["wipc"] and hir["stop"] == "phases" and (hir["numjobs"], hir["iodepth"]) == (2, 16)
    pc, *states = hir["segments"]
    assert pc["name"] == "precondition" and pc["stop"] == "steady" and pc["round_limit"] == 25
    assert pc["dvs"] == [{"name": "4k 0/100 IOPS", "job": "hir-pc", "mix": 0, "bs": 4096, "metric": "iops"}]
    assert pc["combinations"][0]["seconds"] == 1800
    assert [s["name"] for s in states] == ["ws1", "ws2", "ws3", "ws5", "ws10"]
    ws5 = states[3]
    assert ws5["stop"] == "sweep" and ws5["round_limit"] == 2
    bursts, baseline = ws5["rounds"]
    assert (bursts["phase"], baseline["phase"]) == ("bursts", "baseline") and bursts["wait_state"] == 5
    assert len(bursts["combinations"]) == 360 and {c["seconds"] for c in bursts["combinations"]} == {5.0}
    # 5 s of writes, then 25 s idle: each burst starts 30 s after the one before, counted from fio's start, its own
    # reporting group that does not wait for the one before it.
    assert [c.get("start_s", 0) for c in bursts["combinations"][:3]] == [0, 30.0, 60.0]
    assert bursts["combinations"][-1]["start_s"] == 359 * 30.0
    assert {c["group"] for c in bursts["combinations"]} == {"new"}
    # The return to baseline: 1,800 s of continuous writes, one section, cut into 60-s samples at fio's status dumps.
    (section,) = baseline["combinations"]
    assert section["seconds"] == 1800 and "start_s" not in section and "group" not in section
    assert baseline["samples"] == {"sample_s": 60.0, "count": 30}
    # Both rounds keep fio's interval logs, a line per second (a fifth of a 5-s burst).
    assert ws5["log_ms"] == 1000
    # The round lasts the schedule (the last burst starts at 10,770 s), not the sum of its sections.
    assert bursts["round_s"] == pytest.approx(359 * 30 + 5 + _plan.JOB_SWITCH_S + _plan.FIO_START_S)
    # The plan's time: 5 to 25 preconditioning rounds, then every wait state and baseline.
    rows = sum(r["round_s"] for s in states for r in s["rounds"])
    assert hir["min_s"] == pytest.approx(5 * pc["round_s"] + rows)
    assert hir["max_s"] == pytest.approx(25 * pc["round_s"] + rows)


def test_xsr_three_groups_each_one_continuous_fio_run_cut_into_samples():
    xsr = entry(["xsr"], "xsr")
    groups = xsr["segments"]
    assert [(g["name"], g["stop"], g["samples"], g["sample_s"], g["access"]) for g in groups] == [
        ("group1", "samples", 480, 60.0, "SEQ 1024k write"), ("group2", "samples", 360, 60.0, "RND 8k write"),
        ("group3", "samples", 480, 60.0, "SEQ 1024k write")]
    # One fio section per group for the whole group (no idle between its samples); the status dumps may cut it into
    # one sample more than planned.
    assert [[(c["name"], c["rw"], c["seconds"]) for c in g["combinations"]] for g in groups] == [
        [("xsr-group1", "write", 28800.0)], [("xsr-group2", "randwrite", 21600.0)], [("xsr-group3", "write", 28800.0)]]
    assert [g["round_limit"] for g in groups] == [481, 361, 481] and xsr["combinations"] == 3
    assert {g["log_ms"] for g in groups} == {1000} and {g["output_format"] for g in groups} == {"json+"}
    assert (xsr["numjobs"], xsr["iodepth"]) == (1, 32)
    assert xsr["min_s"] == xsr["max_s"] == pytest.approx(1320 * 60 + 3 * (_plan.JOB_SWITCH_S + _plan.FIO_START_S))


def test_the_samples_rule_files_each_sample_and_stops_at_fios_end():
    rule = _rounds.check_rule({"kind": "samples", "rounds": 3, "sample_s": 60.0})
    state = _rounds.start("xsr/group1@1", "samples", 0.0)
    job = {"name": "xsr-group1", "runtime_ms": 60_000, "window": {"from_ms": 0, "to_ms": 60_000},
           "total": {"bw_bytes": 2e9, "iops": 2000.0, "lat_ns": {"mean": 1.6e7, "max": 4e7}},
           "write": {"io_bytes": 100 << 20}}
    for number in (1, 2, 3, 4):
        state, key, verdict = _rounds.advance(state, rule, [job], 10.0,
                                              row={"label": f"sample {number}", "final": number == 4})
        assert key == "pts_sample" and verdict["stop"] == (number == 4)
    assert verdict["written"] == 400 << 20 and verdict["mb_s"] == 2000.0 and verdict["lat_max_ns"] == 4e7
    assert verdict["reason"] == "last sample: fio's run of the group ended" and verdict["seconds"] == 60.0
    with pytest.raises(ValueError, match="a sample is one fio section"):
        _rounds.advance(_rounds.start("x", "samples", 0.0), rule, [job, job], 1.0)
    with pytest.raises(ValueError, match="sample_s"):
        _rounds.check_rule({"kind": "samples", "rounds": 3})


def test_cbw_precondition_then_tc_qd_loop_then_operating_points():
    cbw = entry(["cbw"], "cbw")
    assert cbw["wipc"] and cbw["purge"] == "test"
    pc, loop, points = cbw["segments"]
    assert pc["dvs"][0]["job"] == "cbw-pc" and pc["combinations"][0]["options"]["numjobs"] == 32
    assert pc["combinations"][0]["options"]["bssplit"] == CBW_BSSPLIT
    assert pc["combinations"][0]["options"]["random_distribution"] == "zoned:50/5:30/15:20/80"
    prewrite, *grid = loop["combinations"]
    assert prewrite["name"] == "cbw-prewrite" and prewrite["mix"] == 0 and prewrite["seconds"] == 300
    # Thread count outer, queue depth inner, both from high to low: 49 points at 40/60.
    assert len(grid) == 49 and [c["name"] for c in grid[:3]] == ["cbw-tc32-qd32", "cbw-tc32-qd16", "cbw-tc32-qd8"]
    assert grid[-1]["name"] == "cbw-tc1-qd1" and {c["mix"] for c in grid} == {40} and {c["rw"] for c in grid} == {"randrw"}
    assert (grid[8]["options"]["numjobs"], grid[8]["options"]["iodepth"]) == (16, 16)
    assert loop["dvs"][0]["job"] == "cbw-tc32-qd32" and loop["round_limit"] == 25
    assert points["stop"] == "points" and points["output_format"] == "json+" and points["round_limit"] == 3
    assert [r["point"] for r in points["rounds"]] == ["max", "mid", "min"]
    # Until the loop has chosen them, each point's row holds the heaviest: the estimates are upper bounds.
    cells = points["rounds"][0]["combinations"]
    assert len(cells) == 61 and cells[-1]["name"] == "cbw-max-measure" and cells[-1]["seconds"] == 600
    assert cbw["min_s"] < cbw["max_s"]


def test_dirth_is_cbw_with_one_block_size_and_mix():
    dirth = entry(["dirth"], "dirth", pts_run_dirth_block_size="16k", pts_run_dirth_mix=70)
    pc, loop, dummy = dirth["segments"]
    assert pc["combinations"][0]["bs"] == 16384 and "bssplit" not in pc["combinations"][0]["options"]
    assert {c["mix"] for c in loop["combinations"][1:]} == {70} and loop["dvs"][0]["name"] == "16k 70/30 TC32/QD32 IOPS"


def test_a_4kn_drive_cannot_run_cbws_sub_4k_sizes_and_says_so():
    found = plan(["cbw", "dirth"], dict(DRIVE, logical_block_size=4096))["drives"][0]
    cbw, dirth = found["tests"]
    assert cbw["segments"] == [] and dirth["segments"]
    assert cbw["notes"][-1] == ("cbw not run: its block sizes 512, 1k, 1536, 2k, 2560, 3k, 3584 are below or not a "
                                "multiple of the drive's logical block size of 4096 bytes (give pts_run_cbw_bssplit a "
                                "mix without them)")
    # A mix without them runs.
    assert plan(["cbw"], dict(DRIVE, logical_block_size=4096),
                pts_run_cbw_bssplit="4k/70:8k/20:64k/10")["drives"][0]["tests"][0]["segments"]


def test_the_wear_estimate_covers_every_phase_of_a_pts2_test():
    run = {"max_rounds": 25, "wipc_capacity_multiple": 2, "purge_method": "discard", "rate_iops": 0}
    rate = 1e9
    xsr = entry(["xsr"], "xsr")
    found = _wear.test_bytes(xsr, DRIVE["size_bytes"], rate, run, "discard")
    # Every sample of the three groups writes for 60 s at the rate bound.
    assert found["parts"]["rounds"] == pytest.approx(1320 * 60 * rate)
    cbw = entry(["cbw"], "cbw")
    found = _wear.test_bytes(cbw, DRIVE["size_bytes"], rate, run, "discard")
    assert found["parts"]["precondition"] == 2 * DRIVE["size_bytes"]
    pc, loop, points = cbw["segments"]
    # An upper bound: every section that writes at all counts at the rate bound. 25 preconditioning rounds of 1,800 s;
    # 25 loop rounds (300 s pre-write + 49 points x 60 s); the three points' pre-writes and measurements.
    loop_round = 300 * rate + 49 * 60 * rate
    point = 3600 * rate + 600 * rate
    assert found["parts"]["rounds"] == pytest.approx(25 * 1800 * rate + 25 * loop_round + 3 * point)
    tp = entry(["throughput"], "throughput", pts_run_spec="2.0")
    assert _wear.test_bytes(tp, DRIVE["size_bytes"], rate, run, "discard")["parts"]["precondition"] == \
        2 * 2 * DRIVE["size_bytes"]


def test_a_throughput_wipc_block_size_the_drive_cannot_write_is_refused_at_the_plan():
    with pytest.raises(_inputs.PlanError, match=r"pts_devices='d1': pts_run_throughput_wipc_block_size=512: below or "
                                                r"not a multiple of the drive's logical block size of 4096 bytes"):
        plan(["throughput"], dict(DRIVE, logical_block_size=4096), pts_run_spec="2.0",
             pts_run_throughput_wipc_block_size="512")


def test_a_throttled_cbw_estimate_uses_the_largest_size_of_its_mix_not_the_nominal_4k():
    cbw = entry(["cbw"], "cbw")
    run = {"max_rounds": 1, "wipc_capacity_multiple": 2, "purge_method": "discard", "rate_iops": 100}
    found = _wear.test_bytes(cbw, DRIVE["size_bytes"], 1e12, run, "discard")
    pc = cbw["segments"][0]
    # 32 threads x 100 IOPS x the mix's largest IO size (64k) for the preconditioning round's 1,800 s: fio draws each
    # IO's size at random, so the mix's mean is what a round writes on average, not at most.
    assert _wear.test_bytes(dict(cbw, segments=[pc]), DRIVE["size_bytes"], 1e12, run, "discard")["parts"]["rounds"] \
        == pytest.approx(1800 * 32 * 100 * 65536)
    assert found["parts"]["rounds"] > 0


# Every number and size the plan takes, given as -e gives it (a string) in another script's digits: Python's int() and
# float() read them ("٤" is 4), fio does not. The plan refuses each, naming it, before anything is written.
ARABIC = {"1": "١", "2": "٢", "4": "٤", "5": "٥"}
NUMBER_INPUTS = [
    "pts_run_round_seconds", "pts_run_max_rounds", "pts_run_window", "pts_run_numjobs", "pts_run_iodepth",
    "pts_run_max_data_excursion_pct", "pts_run_max_slope_excursion_pct", "pts_run_rate_iops", "pts_run_round_timeout_s",
    "pts_run_reconnect_timeout_s", "pts_precondition_capacity_multiple", "pts_precondition_iodepth",
    "pts_precondition_min_bytes_per_second", "pts_run_wsat_round_seconds", "pts_run_wsat_capacity_multiple",
    "pts_run_wsat_max_hours", "pts_run_throughput_numjobs", "pts_run_throughput_iodepth",
    "pts_run_hir_precondition_seconds", "pts_run_hir_burst_seconds", "pts_run_hir_repetitions",
    "pts_run_hir_baseline_seconds", "pts_run_hir_baseline_sample_seconds", "pts_run_xsr_sample_seconds",
    "pts_run_xsr_iodepth", "pts_run_xsr_recovery_tolerance_pct", "pts_run_intensity_precondition_seconds",
    "pts_run_intensity_prewrite_seconds", "pts_run_intensity_point_seconds", "pts_run_intensity_max_art_ms",
    "pts_run_intensity_point_prewrite_seconds", "pts_run_intensity_sample_seconds",
    "pts_run_intensity_point_measure_seconds", "pts_run_cbw_mix", "pts_run_dirth_mix",
    "pts_run_sweep_precondition_seconds", "pts_run_demand_iodepth", "pts_run_demand_start_iops",
    "pts_run_demand_step_iops", "pts_run_demand_max_iops", "pts_run_demand_seconds", "pts_run_demand_tolerance_pct",
    "pts_run_demand_misses", "pts_run_sweep_seconds", "pts_run_hdd_zones",
]
SIZE_INPUTS = ["pts_precondition_block_size", "pts_run_throughput_wipc_block_size", "pts_run_xsr_sequential_block_size",
               "pts_run_xsr_random_block_size", "pts_run_dirth_block_size", "pts_run_mixed_block_size"]
LIST_INPUTS = {
    "pts_run_iops_block_sizes": ["٤k"], "pts_run_throughput_block_sizes": ["١٠٢٤k"], "pts_run_latency_block_sizes": ["٤k"],
    "pts_run_hir_wait_states": ["١", 2], "pts_run_xsr_group_minutes": ["٥", 1, 1],
    "pts_run_intensity_thread_counts": ["٢", 1], "pts_run_intensity_queue_depths": ["٢", 1],
    "pts_run_sweep_queue_depths": ["٤"], "pts_run_sweep_block_sizes": ["٤k"], "pts_run_mixed_queue_depths": ["٤"],
    "pts_run_entropy_percents": ["٥"], "pts_run_entropy_queue_depths": ["٤"], "pts_run_hdd_iops_block_sizes": ["٤k"],
    "pts_run_hdd_throughput_block_sizes": ["٤k"],
    "pts_run_cbw_bssplit": "٤k/100", "pts_run_cbw_distribution": "zoned:١٠٠/100",
}


@pytest.mark.parametrize("variable, value", [(v, "٤") for v in NUMBER_INPUTS] + [(v, "٤k") for v in SIZE_INPUTS]
                         + list(LIST_INPUTS.items()))
def test_every_number_and_size_in_other_digits_is_refused_naming_it(variable, value):
    with pytest.raises(_inputs.PlanError) as caught:
        plan(["iops"], **{variable: value})
    assert str(caught.value).startswith(f"{variable}=")
    assert "ASCII digits" in str(caught.value) or "R/W mix" in str(caught.value) or "percentage" in str(caught.value)


@pytest.mark.parametrize("variable, value, message", [
    # fio 3.33 never ends a job whose bssplit has a 0 % share, and reads a zoned distribution's shares as whole
    # numbers (50.5 + 49.5 = 99, refused): both only after the purge.
    ("pts_run_cbw_bssplit", "4k/0:8k/100", "pts_run_cbw_bssplit='4k/0:8k/100': '4k/0' has a share of 0 %"),
    ("pts_run_cbw_distribution", "zoned:50.5/5:49.5/95", "must be a fio zoned distribution such as"),
    ("pts_run_cbw_distribution", "zoned:100/100\nfilename=/dev/sda", "must be a fio zoned distribution"),
])
def test_cbw_input_fio_would_refuse_or_hang_on_is_refused_first(variable, value, message):
    with pytest.raises(_inputs.PlanError, match=message):
        plan(["cbw"], **{variable: value})


def test_what_cbw_hands_fio_is_the_parsed_workload_not_the_text_as_given():
    cbw = entry(["cbw"], "cbw", pts_run_cbw_bssplit="4K/50:8k/25:1m/25",
                pts_run_cbw_distribution=" zoned:50/5:50/95 ")
    options = cbw["segments"][0]["combinations"][0]["options"]
    assert (options["bssplit"], options["random_distribution"]) == ("4k/50:8k/25:1024k/25", "zoned:50/5:50/95")
    assert entry(["cbw"], "cbw")["segments"][0]["combinations"][0]["options"]["bssplit"] == CBW_BSSPLIT


SMALL = {"key": "victim", "size_bytes": 64 * 1024 * 1024, "logical_block_size": 512}


@pytest.mark.parametrize("tests, variable, value, part", [
    (["cbw"], "pts_run_cbw_bssplit", "1024m/100", "the drive (67,108,864 bytes, drive victim)"),
    (["cbw"], "pts_run_cbw_bssplit", "4k/99:128m/1", "the drive (67,108,864 bytes, drive victim)"),
    (["iops"], "pts_run_iops_block_sizes", ["4k", "128m"], "the drive (67,108,864 bytes, drive victim)"),
    (["iops"], "pts_precondition_block_size", "128m", "the drive (67,108,864 bytes, drive victim)"),
    (["latency"], "pts_run_latency_block_sizes", ["4k", "1g"], "the drive (67,108,864 bytes, drive victim)"),
    (["dirth"], "pts_run_dirth_block_size", "65m", "the drive (67,108,864 bytes, drive victim)"),
    (["xsr"], "pts_run_xsr_sequential_block_size", "128m", "the drive (67,108,864 bytes, drive victim)"),
    (["rw_sweep"], "pts_run_sweep_block_sizes", ["4k", "100m"], "the drive (67,108,864 bytes, drive victim)"),
    (["mixed_sweep"], "pts_run_mixed_block_size", "128m", "the drive (67,108,864 bytes, drive victim)"),
    (["throughput"], "pts_run_throughput_block_sizes", ["48m"],
     "each of its 2 streams' slice of the drive (33,554,432 bytes, drive victim)"),
])
def test_a_block_size_larger_than_the_drive_is_refused_by_the_plan_naming_it(tests, variable, value, part):
    extra = {"pts_run_throughput_numjobs": 2} if tests == ["throughput"] else {}
    with pytest.raises(_inputs.PlanError) as caught:
        plan(tests, SMALL, **{variable: value}, **extra)
    assert str(caught.value).startswith(f"{variable}=")
    assert f"is larger than {part}: fio cannot run it; give a smaller one" in str(caught.value)
    # The same input fits a larger drive; and no drive, no drive to judge it against.
    assert plan(tests, None, **{variable: value}, **extra)["drives"][0]["tests"]
    assert _plan.build_plan(dict(BASE, pts_run_tests=tests, **{variable: value}, **extra))["tests"]


def test_a_block_size_larger_than_an_hdd_zone_is_refused():
    hdd = dict(SMALL, rotational=True)
    with pytest.raises(_inputs.PlanError, match=r"^pts_run_hdd_iops_block_sizes='32m': its block size 32768k "
                                                r"\(33,554,432 bytes\) is larger than the smallest LBA zone "
                                                r"\(16,777,216 bytes, drive victim\)"):
        plan(["iops"], hdd, pts_run_profile="quick", pts_run_hdd_iops_block_sizes=["4k", "32m"], pts_run_drive_mode="hdd")
    assert plan(["iops"], hdd, pts_run_profile="quick", pts_run_hdd_iops_block_sizes=["4k", "8m"],
                pts_run_drive_mode="hdd")["drives"][0]["tests"]


def test_an_unselected_tests_block_size_is_not_held_against_the_drive():
    assert plan(["iops"], SMALL, pts_run_cbw_bssplit="1024m/100")["drives"][0]["tests"][0]["test"] == "iops"
