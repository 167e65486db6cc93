# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs, _plan

TB = 10**12
# The SNIA PTS as the standard profile runs it: 60 s per combination, 25 rounds.
STANDARD = {
    "pts_run_tests": ["iops", "throughput", "latency", "wsat"], "pts_run_profile": "standard",
    "pts_run_round_seconds": 60, "pts_run_max_rounds": 25, "pts_run_window": 5, "pts_run_numjobs": 2,
    "pts_run_iodepth": 16, "pts_run_max_data_excursion_pct": 20, "pts_run_max_slope_excursion_pct": 10,
}
NVME = {"key": "bay1", "size_bytes": 3840 * 10**9, "logical_block_size": 512, "interface": "NVMe",
        "model": "ACME X1", "firmware": "1.0", "purge_methods": ["nvme_sanitize_crypto", "discard"],
        "health": {"percentage_used": 3, "tool": "nvme smart-log"}}


def planned(variables: dict, device: dict) -> tuple[dict, dict]:
    """(the drive's plan, the run settings the wear estimate reads) as pts_plan passes them."""
    plan = _plan.build_plan(variables, [device])
    run = {"max_rounds": plan["max_rounds"], "wipc_capacity_multiple": plan["wipc"]["capacity_multiple"],
           "purge_method": plan["settings"]["purge_method"], "rate_iops": plan["settings"]["rate_iops"]}
    return plan["drives"][0], run


def by_test(record: dict) -> dict:
    return {t["test"]: t for t in record["tests"]}


def test_the_standard_pts_estimate_at_the_interface_bound():
    drive, run = planned(STANDARD, NVME)
    found = by_test(_wear.estimate(drive, NVME, run, _wear.INTERFACE_BYTES_PER_S["NVMe"]))
    rate = 16e9
    # IOPS: WIPC 2 x capacity, then 25 rounds x 8 block sizes x 60 s of the 6 mixes that write (100/0 only reads),
    # each at the whole rate: a mix's writes are not bounded by its share of it.
    assert found["iops"]["parts"] == {"purge": 0, "precondition": 2 * 3840 * 10**9,
                                      "rounds": int(25 * 8 * 60 * 6 * rate)}
    # Throughput: per block size (5) 25 rounds of one 60 s sequential write (the read writes nothing); no WIPC.
    assert found["throughput"]["parts"] == {"purge": 0, "precondition": 0, "rounds": int(5 * 25 * 60 * rate)}
    # Latency: WIPC, then 25 rounds x 3 block sizes x 60 s of the mixes 65/35 and 0/100 (100/0 only reads).
    assert found["latency"]["parts"]["rounds"] == int(25 * 3 * 60 * 2 * rate)
    # Write saturation: 4 x capacity plus the round that crosses it, well within 24 h at this rate.
    assert found["wsat"]["bytes"] == 4 * 3840 * 10**9 + int(60 * rate)


@pytest.mark.parametrize("hours, expected", [
    (24, 4 * 10**9 * 1000 + 60 * 200e6),     # 4 TB target reached: target + one 60 s round at 200 MB/s
    (1, (3600 + 60) * 200e6),                 # the time limit comes first: (1 h + one round) at 200 MB/s
])
def test_write_saturation_is_bounded_by_its_target_or_its_time_limit(hours, expected):
    device = dict(NVME, size_bytes=10**12)
    drive, run = planned(dict(STANDARD, pts_run_tests=["wsat"], pts_run_wsat_max_hours=hours), device)
    found = _wear.estimate(drive, device, run, 200e6)
    assert found["bytes"] == pytest.approx(expected, rel=1e-9)


def test_rate_iops_caps_the_rate_and_an_overwriting_purge_counts_its_passes():
    device = dict(NVME, size_bytes=10**9, purge_methods=["nvme_sanitize_overwrite"])
    variables = dict(STANDARD, pts_run_tests=["iops"], pts_run_iops_mixes=[0], pts_run_iops_block_sizes=["4k"],
                     pts_run_max_rounds=6, pts_run_rate_iops=100)
    drive, run = planned(variables, device)
    (test,) = _wear.estimate(drive, device, run, 16e9)["tests"]
    # 6 rounds x 60 s x (100 IOPS x 2 jobs x 4096 B), not the interface's 16 GB/s; nvme sanitize --sanact=3 without
    # --owpass overwrites 16 times.
    assert test["parts"] == {"purge": 16 * 10**9, "precondition": 2 * 10**9, "rounds": 6 * 60 * 100 * 2 * 4096}
    run["purge_method"] = "scsi_sanitize_overwrite"
    assert _wear.estimate(drive, device, run, 16e9)["tests"][0]["parts"]["purge"] == 10**9
    run["purge_method"] = "nvme_sanitize_crypto"
    assert _wear.estimate(drive, device, run, 16e9)["tests"][0]["parts"]["purge"] == 0


def test_a_characterisation_test_counts_its_timed_preconditioning_per_purged_part():
    device = dict(NVME, size_bytes=10**9)
    variables = dict(STANDARD, pts_run_tests=["entropy_sweep"], pts_run_sweep_precondition_seconds=10,
                     pts_run_sweep_seconds=1, pts_run_entropy_mixes=[0, 70], pts_run_entropy_queue_depths=[4],
                     pts_run_entropy_percents=[50, 100])
    drive, run = planned(variables, device)
    (test,) = _wear.estimate(drive, device, run, 1e9)["tests"]
    # Two parts (mix 0 and 70), each purged and preconditioned 10 s; each row: 2 cells of 1 s, each at the whole rate
    # (the 70/30 mix's writes are bounded by the rate, not by 30 % of it).
    assert test["parts"]["precondition"] == 2 * 10 * 10**9
    assert test["parts"]["rounds"] == int(1e9 * 4)


def test_a_finished_test_of_a_resumed_run_writes_nothing():
    drive, run = planned(dict(STANDARD, pts_run_tests=["iops", "wsat"]), NVME)
    drive["tests"][0]["done"] = True
    found = by_test(_wear.estimate(drive, NVME, run, 16e9))
    assert found["iops"]["bytes"] == 0 and found["iops"]["note"] == "finished in this run already"
    assert found["wsat"]["bytes"] > 0


@pytest.mark.parametrize("rule, expected, basis", [
    ({"endurance_tbw": 7008}, 7008 * TB, "endurance_tbw 7008"),
    ({"dwpd": 1, "warranty_years": 5}, 3840 * 10**9 * 365 * 5, "dwpd 1 x 3.84 TB x 365 x warranty_years 5"),
    ({"dwpd": 3, "warranty_years": 5, "endurance_tbw": 10000}, 10000 * TB, "(the smaller of endurance_tbw and dwpd)"),
    ({}, None, None),
    (None, None, None),
])
def test_rated_endurance_from_tbw_or_dwpd(rule, expected, basis):
    found = _wear.endurance(rule, 3840 * 10**9)
    if expected is None:
        assert found is None
    else:
        assert found["bytes"] == pytest.approx(expected) and basis in found["basis"]


@pytest.mark.parametrize("rule, message", [
    ({"dwpd": 1}, "dwpd=1 needs warranty_years"),
    ({"endurance_tbw": 0}, "endurance_tbw=0: must be a positive number"),
    ({"endurance_tbw": "600"}, "endurance_tbw='600': must be a positive number"),
    ({"dwpd": True, "warranty_years": 5}, "dwpd=True: must be a positive number"),
])
def test_bad_endurance_is_refused(rule, message):
    with pytest.raises(ValueError, match=message):
        _wear.endurance(rule, 10**12)


@pytest.mark.parametrize("rule, message", [
    ({"rated_write_mb_s": 1e-9, "endurance_tbw": 1}, r"rated_write_mb_s=1e-09: must be from 1 to 1e\+06 MB/s"),
    ({"rated_write_mb_s": 4e9, "endurance_tbw": 1}, r"rated_write_mb_s=4000000000.0: must be from 1 to 1e\+06 MB/s"),
    ({"endurance_tbw": 1e9}, r"endurance_tbw=1000000000.0: must be from 1e-06 to 1e\+06 TB"),
    ({"dwpd": 0.001, "warranty_years": 5}, r"dwpd=0.001: must be from 0.01 to 1000 drive writes per day"),
])
def test_a_rule_outside_the_physical_range_is_never_judged(rule, message):
    # pts_plan validates the rules first; the estimate itself refuses too, whoever calls it.
    drive, run = planned(dict(STANDARD, pts_run_tests=["iops"]), NVME)
    with pytest.raises(ValueError, match=message):
        _wear.judge(NVME, drive, run, rule, 5.0)


@pytest.mark.parametrize("rated, shown", [(1, "1 MB/s"), (1.5, "1.5 MB/s"), (550, "550 MB/s"), (4000, "4,000 MB/s"),
                                          (12345.6, "12,345.6 MB/s")])
def test_the_rules_rate_is_shown_as_given(rated, shown):
    assert _wear.drive_rate({"interface": "NVMe"}, {"rated_write_mb_s": rated}) == \
        (rated * 1e6, f"{shown}, the rule's rated_write_mb_s")


@pytest.mark.parametrize("health, used, source", [
    ({"percentage_used": 40, "tool": "nvme smart-log"}, 40.0, "nvme smart-log at identification"),
    ({"percentage_used": 180, "tool": "smartctl"}, 100.0, "smartctl at identification"),  # NVMe counts past 100
    ({"temperature_c": 40}, 0.0, "the drive reports no percentage used: 0 % assumed"),
    (None, 0.0, "the drive reports no percentage used: 0 % assumed"),
    ({"tool": "smartctl", "error": "smartctl printed no JSON (rc 2)"}, 0.0,
     "the health read at identification failed (smartctl printed no JSON (rc 2)): 0 % assumed"),
])
def test_percentage_used(health, used, source):
    assert _wear.percentage_used({"health": health}) == (used, source)


def test_a_run_within_the_budget_passes_with_its_figures():
    drive, run = planned(STANDARD, NVME)
    # A mixed-use drive: 3 drive writes per day for 5 years.
    rule = {"name": "lab", "model": "ACME*", "dwpd": 3, "warranty_years": 5, "rated_write_mb_s": 4000}
    wear = _wear.judge(NVME, drive, run, rule, 5.0)
    assert wear["judged"] and not wear["refused"]
    assert wear["endurance_bytes"] == 3 * 7008 * TB
    assert wear["remaining_bytes"] == int(3 * 7008 * TB * 0.97)
    assert wear["use_pct"] == pytest.approx(100.0 * wear["estimated_bytes"] / (3 * 7008 * TB * 0.97))
    assert 1.5 < wear["use_pct"] < 2.5 and wear["rate_basis"] == "4,000 MB/s, the rule's rated_write_mb_s"
    # The same run at the link's bound is over budget.
    del rule["rated_write_mb_s"]
    assert _wear.judge(NVME, drive, run, rule, 5.0)["refused"]


def test_a_run_over_the_budget_is_refused_with_every_figure_in_the_message():
    device = dict(NVME, size_bytes=10**12, health={"percentage_used": 50, "tool": "nvme smart-log"})
    variables = dict(STANDARD, pts_run_tests=["wsat"], pts_run_wsat_round_seconds=60)
    drive, run = planned(variables, device)
    rule = {"name": "lab", "model": "ACME*", "endurance_tbw": 600, "rated_write_mb_s": 1000}
    wear = _wear.judge(device, drive, run, rule, 5.0)
    # 4 TB + one 60 s round at 1 GB/s = 4.06 TB of the 300 TB left (600 TBW, 50 % used): 1.35 %.
    assert wear["estimated_bytes"] == 4 * TB + 60 * 10**9
    assert wear["remaining_bytes"] == 300 * TB
    assert wear["use_pct"] == pytest.approx(100 * 4.06 / 300)
    assert not wear["refused"]
    wear = _wear.judge(device, drive, run, rule, 1.0)
    assert wear["refused"]
    message = _wear.refusal("bay1", device, wear)
    for part in ("the wear budget refuses drive bay1 (ACME X1 firmware 1.0)", "the run writes up to 4.06 TB",
                 "wsat 4.06 TB", "rates up to 1,000 MB/s, the rule's rated_write_mb_s", "1.35 % of the remaining life",
                 "of 300 TB", "rated endurance 600 TBW from endurance_tbw 600", "percentage used 50 %",
                 "budget 1 % (pts_wear_budget_pct)", "Raise pts_wear_budget_pct"):
        assert part in message, part
    assert "or give the rule" not in message  # the rate is the rule's already


def test_a_drive_with_no_life_left_is_refused():
    device = dict(NVME, health={"percentage_used": 110, "tool": "nvme smart-log"})
    drive, run = planned(dict(STANDARD, pts_run_tests=["wsat"]), device)
    wear = _wear.judge(device, drive, run, {"model": "ACME*", "endurance_tbw": 7008}, 100.0)
    assert wear["refused"] and wear["use_pct"] is None and wear["remaining_bytes"] == 0
    assert "and no rated life remains" in wear["text"] and "percentage used 100 %" in wear["text"]


@pytest.mark.parametrize("rule, reason", [
    (None, "no acceptance rule matches the drive"),
    ({"name": "perf only", "model": "ACME*", "min_iops_4k_write": 1000}, "its acceptance rule (perf only) gives no "
                                                                         "endurance_tbw or dwpd"),
])
def test_a_drive_without_endurance_is_not_judged(rule, reason):
    drive, run = planned(STANDARD, NVME)
    wear = _wear.judge(NVME, drive, run, rule, 0.0001)
    assert wear["judged"] is False and wear["refused"] is False and wear["reason"] == reason
    assert wear["estimated_bytes"] > 0 and wear["text"].startswith(f"wear not judged ({reason}); the run writes up to")


@pytest.mark.parametrize("interface, rate", [("SATA", 600e6), ("SCSI/SAS", 2400e6), ("NVMe", 16e9),
                                             ("loop", 16e9), (None, 16e9)])
def test_the_rate_bound_by_interface(interface, rate):
    assert _wear.drive_rate({"interface": interface}, None)[0] == rate
    assert _wear.drive_rate({"interface": interface}, {"rated_write_mb_s": 550})[0] == 550e6


@pytest.mark.parametrize("value, expected", [(None, 5.0), ("", 5.0), (5, 5.0), ("2.5", 2.5), (100, 100.0)])
def test_the_budget_variable(value, expected):
    assert _wear.budget_pct(value) == expected


@pytest.mark.parametrize("value, message", [
    (0, "pts_run_wear_budget_pct=0: must be a positive number"),
    (-1, "pts_run_wear_budget_pct=-1: must be a positive number"),
    (101, "pts_run_wear_budget_pct=101: a share of the drive's remaining life cannot exceed 100 %"),
    ("five", "pts_run_wear_budget_pct='five': must be a positive number"),
    (True, "pts_run_wear_budget_pct=True: must be a positive number"),
    (float("nan"), "pts_run_wear_budget_pct=nan: must be a positive number"),
])
def test_a_bad_budget_is_refused_naming_the_variable(value, message):
    with pytest.raises(_inputs.PlanError) as caught:
        _wear.budget_pct(value)
    assert str(caught.value) == message and caught.value.variable == "pts_run_wear_budget_pct"


@pytest.mark.parametrize("combination, fraction", [
    ({"rw": "randwrite"}, 1.0), ({"rw": "write"}, 1.0), ({"rw": "read"}, 0.0), ({"rw": "randread"}, 0.0),
    ({"rw": "randrw", "mix": 65}, 0.35), ({"rw": "randrw", "mix": 0}, 1.0),
])
def test_write_fraction(combination, fraction):
    assert _wear.write_fraction(combination) == pytest.approx(fraction)


@pytest.mark.parametrize("size, text", [(921.4e12, "921 TB"), (16.32e12, "16.3 TB"), (7.68e12, "7.68 TB"),
                                        (48.1e9, "0.0481 TB"), (134217728, "0.000134 TB (134,217,728 bytes)")])
def test_terabytes_as_the_message_shows_them(size, text):
    assert _wear.tb(size) == text


GB = 10**9


@pytest.mark.parametrize("segments, expected", [
    ([[({"bytes_written": 10 * GB}, {"bytes_written": 12 * GB}),
       ({"bytes_written": 12 * GB}, {"bytes_written": 15 * GB})]], 5 * GB),
    # Two segments (throughput block sizes): what happened between them (a purge) is left out.
    ([[({"bytes_written": 0}, {"bytes_written": GB})], [({"bytes_written": 7 * GB}, {"bytes_written": 9 * GB})]],
     3 * GB),
    # A reading missing at one end of a round is taken from the next round that has it.
    ([[({}, {"bytes_written": 2 * GB}), ({"bytes_written": 2 * GB}, {"bytes_written": 3 * GB})]], GB),
    ([[(None, None), (None, None)]], None),                   # a loop device: no counter at all
    ([[({"bytes_written": GB}, {"temperature_c": 40})]], None),  # no reading after: not a delta
    ([[], []], None),
])
def test_the_drives_counter_over_the_rounds(segments, expected):
    assert _wear.counter_delta(segments) == expected


def test_measured_wear_per_test_and_for_the_run():
    tests = [{"test": "iops", "precondition_bytes": 2 * GB, "rounds_bytes": 3 * GB,
              "segments": [[({"bytes_written": 2 * GB}, {"bytes_written": 5 * GB})]]},
             {"test": "latency", "precondition_bytes": 0, "rounds_bytes": GB, "segments": [[(None, None)]]}]
    wear = _wear.measured(tests, {"bytes_written": 0, "tool": "nvme smart-log"}, {"bytes_written": 6 * GB})
    assert [(t["test"], t["host_bytes_written"], t["drive_bytes_written"]) for t in wear["tests"]] == [
        ("iops", 5 * GB, 3 * GB), ("latency", GB, None)]
    assert wear["host_bytes_written"] == 6 * GB and wear["drive_bytes_written"] == 6 * GB
    assert wear["counter"] == "nvme smart-log"
    # The drive's standard counters count host writes: no write amplification, and the report says why.
    assert wear["write_amplification"] is None and wear["tests"][0]["write_amplification"] is None
    assert wear["nand_note"].startswith("no NAND-writes counter is exposed")
    assert "nvme ocp smart-add-log" in wear["nand_note"] and "nvme intel smart-log-add" in wear["nand_note"]
    # Without the snapshot after the run there is no run-level counter.
    assert _wear.measured(tests, {"bytes_written": 0}, None)["drive_bytes_written"] is None


def test_write_amplification_only_from_a_nand_counter():
    tests = [{"test": "wsat", "precondition_bytes": 0, "rounds_bytes": 4 * GB,
              "segments": [[({"bytes_written": 0, "nand_bytes_written": 0},
                             {"bytes_written": 4 * GB, "nand_bytes_written": 12 * GB})]]}]
    wear = _wear.measured(tests, {"bytes_written": 0, "nand_bytes_written": 0},
                          {"bytes_written": 4 * GB, "nand_bytes_written": 12 * GB})
    assert wear["tests"][0]["write_amplification"] == 3.0 and wear["write_amplification"] == 3.0
    assert wear["nand_note"] is None


@pytest.mark.parametrize("value, text", [(6467.1, "6,467 %"), (13.548, "13.55 %"), (0.0, "0.00 %"),
                                         (0.000647, "0.00065 %")])
def test_percentages_as_the_message_shows_them(value, text):
    assert _wear._pct(value) == text


def test_an_interface_without_a_bound_is_named():
    assert _wear.drive_rate({"interface": "loop"}, None)[1] == (
        "16,000 MB/s, the fastest interface's bound (no bound is known for the loop interface)")
    assert _wear.drive_rate({"interface": "SATA"}, None)[1] == "600 MB/s, the SATA 6 Gb/s link's bound"
