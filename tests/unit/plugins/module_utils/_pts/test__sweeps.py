# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs, _plan, _sweeps

GOOD = {
    "pts_run_profile": "standard", "pts_run_round_seconds": 60, "pts_run_max_rounds": 25, "pts_run_window": 5,
    "pts_run_numjobs": 2, "pts_run_iodepth": 16, "pts_run_max_data_excursion_pct": 20,
    "pts_run_max_slope_excursion_pct": 10,
}
SSD = {"key": "d1", "size_bytes": 10 * 2 ** 30, "logical_block_size": 512, "rotational": False}
HDD = {"key": "h1", "size_bytes": 10 * 2 ** 30, "logical_block_size": 512, "rotational": True}


def _drive(tests, device=None, **extra):
    plan = _plan.build_plan(dict(GOOD, pts_run_tests=tests, **extra), [device or SSD])
    return plan["drives"][0]


def _test(name, device=None, **extra):
    (test,) = _drive([name], device, **extra)["tests"]
    return test


def test_latency_vs_demand_follows_the_methodology():
    test = _test("latency_demand")
    assert [s["name"] for s in test["segments"]] == ["randread", "randwrite"]
    assert test["purge"] == "segment" and test["stop"] == "demand" and not test["wipc"]
    assert test["precondition"] == {"kind": "random", "seconds": 7200, "block_size": 4096, "iodepth": 32,
                                    "data": "zero fill"}
    rounds = test["segments"][0]["rounds"]
    assert len(rounds) == 120 and test["numjobs"] == 1 and test["iodepth"] == 32 and test["round_seconds"] == 120
    first, last = rounds[0]["combinations"], rounds[-1]["combinations"]
    assert first == [{"name": "demand-randread-1000", "rw": "randread", "mix": 100, "bs": 4096,
                      "options": {"rate_iops": 1000}}]
    assert last[0]["options"] == {"rate_iops": 120000} and rounds[-1]["offered_iops"] == 120000
    assert test["sweep"]["tolerance_pct"] == 5 and test["sweep"]["misses"] == 2


def test_reads_and_writes_sweep_is_qd_by_block_size_per_workload():
    test = _test("rw_sweep")
    assert [s["name"] for s in test["segments"]] == ["randread", "randwrite", "read", "write"]
    assert test["purge"] == "test" and test["precondition"]["seconds"] == 7200
    segment = test["segments"][3]
    assert [r["iodepth"] for r in segment["rounds"]] == [4, 8, 16, 32, 64, 128]
    cells = segment["rounds"][1]["combinations"]
    assert [c["bs"] for c in cells] == [512, 1024, 2048, 4096, 8192, 16384, 32768]
    assert {c["rw"] for c in cells} == {"write"} and {c["options"]["iodepth"] for c in cells} == {8}
    assert test["combinations"] == 4 * 6 * 7


def test_mixed_and_entropy_sweeps():
    mixed = _test("mixed_sweep")
    (segment,) = mixed["segments"]
    cells = segment["rounds"][0]["combinations"]
    expected = [("randread", 100), ("randrw", 99), ("randrw", 95), ("randrw", 90), ("randrw", 70), ("randrw", 50),
                ("randwrite", 0)]
    assert [(c["rw"], c["mix"]) for c in cells] == expected
    entropy = _test("entropy_sweep")
    assert entropy["purge"] == "segment"
    assert [s["name"] for s in entropy["segments"]] == ["mix-0-100", "mix-70-30"]
    cells = entropy["segments"][1]["rounds"][0]["combinations"]
    assert len(cells) == 20 and cells[0]["rw"] == "randrw" and cells[0]["mix"] == 70
    # fio's buffer_compress_percentage is how compressible the data is: 100 - entropy
    assert [c["options"]["buffer_compress_percentage"] for c in cells] == [100 - e for e in range(5, 101, 5)]


def test_quick_profile_values_and_operator_values_win():
    test = _test("rw_sweep", pts_run_profile="quick")
    assert test["round_seconds"] == 0.5 and test["precondition"]["seconds"] == 3
    assert [r["iodepth"] for r in test["segments"][0]["rounds"]] == [4, 32]
    test = _test("rw_sweep", pts_run_profile="quick", pts_run_sweep_queue_depths=[1, 2], pts_run_sweep_seconds=2)
    assert [r["iodepth"] for r in test["segments"][0]["rounds"]] == [1, 2] and test["round_seconds"] == 2


@pytest.mark.parametrize("extra, message", [
    ({"pts_run_entropy_percents": [5, 101]}, "pts_run_entropy_percents=101: must be at most 100"),
    ({"pts_run_entropy_mixes": [100]}, "pts_run_entropy_mixes=[100]"),
    ({"pts_run_sweep_queue_depths": [4, 4]}, "pts_run_sweep_queue_depths=4: listed twice"),
    ({"pts_run_sweep_queue_depths": [0]}, "pts_run_sweep_queue_depths=0: must be a positive number"),
    ({"pts_run_sweep_block_sizes": ["4kk"]}, "pts_run_sweep_block_sizes='4kk'"),
    ({"pts_run_sweep_workloads": ["randrw"]}, "pts_run_sweep_workloads='randrw': unknown workload"),
    ({"pts_run_demand_max_iops": 10}, "pts_run_demand_max_iops=10: is below pts_run_demand_start_iops=1000"),
    ({"pts_run_demand_step_iops": 1, "pts_run_demand_max_iops": 100000}, "pts_run_demand_step_iops=1: makes"),
    # Refused by counting, not by listing the steps (a MemoryError and an OverflowError before).
    ({"pts_run_demand_max_iops": 10 ** 15}, "pts_run_demand_step_iops=1000: makes 1,000,000,000,000 steps"),
    ({"pts_run_demand_max_iops": 1e300}, "pts_run_demand_step_iops=1000: makes "),
    ({"pts_run_demand_tolerance_pct": 100}, "pts_run_demand_tolerance_pct=100.0: must be below 100"),
    ({"pts_run_hdd_zones": 101}, "pts_run_hdd_zones=101: at most 100 zones"),
    ({"pts_run_drive_mode": "sdd"}, "pts_run_drive_mode='sdd': unknown drive mode"),
])
def test_bad_sweep_input_names_the_variable(extra, message):
    # Checked whether or not the test is selected: a typo is a mistake either way.
    with pytest.raises(_inputs.PlanError) as caught:
        _plan.build_plan(dict(GOOD, pts_run_tests=["iops"], **extra), [SSD])
    assert message in str(caught.value)


LOOP = dict(HDD, key="l1", interface="loop", loop={"backing_file": "/var/tmp/x.img"})


@pytest.mark.parametrize("tests, device, extra, mode, reason, run", [
    # Asked for: the plan line says which tests run in place of the selected ones.
    (["iops", "throughput", "latency", "rw_sweep"], HDD, {"pts_run_drive_mode": "hdd"}, "hdd",
     "HDD mode set by pts_drive_mode (runs iops as hdd_iops, throughput as hdd_throughput)",
     ["hdd_iops", "hdd_throughput"]),
    (["iops"], dict(HDD, spec={"mode": "hdd"}), {}, "hdd", "HDD mode set by the drive entry (runs iops as hdd_iops)",
     ["hdd_iops"]),
    (["iops"], dict(SSD, spec={"mode": "hdd"}), {}, "hdd", "HDD mode set by the drive entry (runs iops as hdd_iops)",
     ["hdd_iops"]),
    # auto with HDD tests only changes nothing: no note, nothing refused.
    (["hdd_iops"], HDD, {}, "hdd", "HDD mode: the drive reports itself rotational", ["hdd_iops"]),
    (["iops"], HDD, {"pts_run_drive_mode": "ssd"}, "ssd", "SSD mode set by pts_drive_mode", ["iops"]),
    (["iops"], dict(HDD, spec={"mode": "ssd"}), {"pts_run_drive_mode": "hdd"}, "ssd", "SSD mode set by the drive entry",
     ["iops"]),
    (["iops", "hdd_iops"], SSD, {}, "ssd", "SSD mode: the drive reports itself non-rotational", ["iops"]),
    # A loop device's rotational flag is no evidence of a disk.
    (["iops"], LOOP, {}, "ssd", "SSD mode: a loop device (its rotational flag says nothing of the file behind it)",
     ["iops"]),
    (["iops"], dict(LOOP, spec={"mode": "hdd"}), {}, "hdd", "HDD mode set by the drive entry (runs iops as hdd_iops)",
     ["hdd_iops"]),
])
def test_the_drive_mode_and_the_tests_it_runs(tests, device, extra, mode, reason, run):
    drive = _drive(tests, device, **extra)
    assert (drive["mode"], drive["mode_reason"]) == (mode, reason)
    assert [t["test"] for t in drive["tests"]] == run


def test_hdd_mode_leaves_out_ssd_only_tests_with_a_note():
    drive = _drive(["iops", "latency", "rw_sweep"], HDD, pts_run_drive_mode="hdd")
    assert drive["skipped"] == ["latency not run: an SSD test, and the drive runs in HDD mode",
                                "rw_sweep not run: an SSD test, and the drive runs in HDD mode"]
    ssd = _drive(["iops", "hdd_iops"], SSD)
    assert ssd["skipped"][0].startswith("hdd_iops not run")


@pytest.mark.parametrize("tests, effect", [
    (["iops", "throughput", "latency"], "it would run iops as hdd_iops, throughput as hdd_throughput and not run latency"),
    (["latency"], "it would not run latency"),
    (["iops", "hdd_iops"], "it would run iops as hdd_iops"),
])
def test_auto_does_not_change_the_tests_of_a_rotational_drive_on_its_own(tests, effect):
    for extra in ({}, {"pts_run_drive_mode": "auto"}):
        with pytest.raises(_inputs.PlanError) as caught:
            _drive(tests, dict(HDD, spec={"mode": "auto"}), **extra)
        message = str(caught.value)
        assert caught.value.variable == "pts_run_drive_mode"
        assert message.startswith("pts_run_drive_mode=")
        assert f"drive h1 reports itself rotational, so drive mode auto would test it as a disk (HDD mode) and change " \
               f"the tests selected: {effect}; auto does not change a selection on its own: set mode: hdd on the " \
               f"drive's pts_devices entry (or pts_drive_mode: hdd) to test it as a disk, or mode: ssd to run " \
               f"{', '.join(tests)} as selected" in message, message


def test_hdd_tests_cover_the_lba_range_in_zones_outer_to_inner():
    test = _test("hdd_iops", HDD)
    assert test["purge"] is None and test["precondition"] is None and not test["wipc"]
    (segment,) = test["segments"]
    zones = [r["zone"] for r in segment["rounds"]]
    assert len(zones) == 10 and zones[0]["offset"] == 0
    assert all(a["offset"] + a["size"] == b["offset"] for a, b in zip(zones, zones[1:]))
    assert zones[-1]["offset"] + zones[-1]["size"] == 10 * 2 ** 30
    assert all(z["offset"] % 2 ** 20 == 0 for z in zones)
    cells = segment["rounds"][2]["combinations"]
    assert len(cells) == 9 and cells[0]["options"] == {"offset": zones[2]["offset"], "size": zones[2]["size"]}
    throughput = _test("hdd_throughput", HDD)
    cells = throughput["segments"][0]["rounds"][0]["combinations"]
    assert [(c["rw"], c["bs"]) for c in cells] == [("read", 1048576), ("write", 1048576), ("read", 4096),
                                                   ("write", 4096)]
    assert throughput["numjobs"] == 1 and throughput["iodepth"] == 32


def test_a_4kn_drive_drops_small_block_sizes_with_a_note():
    test = _test("rw_sweep", dict(SSD, logical_block_size=4096))
    assert {c["bs"] for r in test["segments"][0]["rounds"] for c in r["combinations"]} == {4096, 8192, 16384, 32768}
    assert test["notes"][0] == "512 dropped: the drive's logical block size is 4096 bytes"


def test_a_drive_too_small_for_its_zones_is_refused():
    with pytest.raises(_inputs.PlanError, match="too small for 10 zones"):
        _plan.build_plan(dict(GOOD, pts_run_tests=["hdd_iops"]), [dict(HDD, size_bytes=5 * 2 ** 20)])


def test_the_demand_ramp_stops_after_misses_and_its_knee_is_the_last_step_delivered_before_them():
    assert _sweeps.demand_step(1000, 950, 5) and not _sweeps.demand_step(1000, 949.9, 5)
    assert _sweeps.demand_stop(1, 2, 2, 10) == (False, "step 2 of 10")
    assert _sweeps.demand_stop(2, 2, 3, 10)[0] is True
    assert _sweeps.demand_stop(0, 2, 2, 2) == (True, "last offered step run")
    steps = [{"offered_iops": o, "delivered": d}
             for o, d in ((1, True), (2, True), (3, False), (4, True), (5, False), (6, False))]
    # An isolated miss the ramp tolerated does not make the knee; the misses that ended it do.
    assert _sweeps.knee(steps)["offered_iops"] == 4
    assert _sweeps.knee([{"offered_iops": 1, "delivered": False}]) is None
    # A ramp whose last step was delivered never reached the drive's limit: no knee.
    assert _sweeps.knee(steps[:4]) is None


def test_estimates_count_preconditioning_and_rows():
    drive = _drive(["mixed_sweep"], pts_run_sweep_seconds=10, pts_run_sweep_precondition_seconds=100,
                   pts_run_mixed_queue_depths=[4, 8])
    (test,) = drive["tests"]
    row = 7 * (10 + _plan.JOB_SWITCH_S) + _plan.FIO_START_S
    assert test["min_s"] == pytest.approx(100 + 2 * row) and test["max_s"] == pytest.approx(100 + 2 * row)
    demand = _drive(["latency_demand"], pts_run_demand_seconds=10, pts_run_sweep_precondition_seconds=100)["tests"][0]
    step = 10 + _plan.JOB_SWITCH_S + _plan.FIO_START_S
    # Two ramps, each purged and preconditioned; the shortest ramp ends after two missed steps.
    assert demand["min_s"] == pytest.approx(200 + 2 * 2 * step)
    assert demand["max_s"] == pytest.approx(200 + 2 * 120 * step)


@pytest.mark.parametrize("variable", ["pts_run_sweep_seconds", "pts_run_demand_seconds",
                                      "pts_run_sweep_precondition_seconds"])
@pytest.mark.parametrize("value, why", [(0.0001, "must be at least 0.01 s"), (float("nan"), "must be a positive number")])
def test_sweep_run_times_below_fios_resolution_or_not_finite_are_refused(variable, value, why):
    params = {"pts_run_tests": ["latency_demand", "rw_sweep"], variable: value}
    with pytest.raises(_inputs.PlanError) as caught:
        _plan.build_plan(dict(GOOD, **params))
    assert str(caught.value).startswith(f"{variable}={value!r}: {why}")
