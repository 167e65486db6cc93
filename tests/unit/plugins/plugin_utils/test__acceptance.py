# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance as v
from ansible_collections.fleetqual.pts.plugins.plugin_utils._run import FLEET_DEFAULTS

# The fleet summary's defaults: robust z 3.5, 10 % from the median, cohorts of 3 or more.
OUTLIERS = {"threshold": FLEET_DEFAULTS["outlier_robust_z"],
            "min_deviation_pct": FLEET_DEFAULTS["outlier_min_deviation_pct"],
            "min_size": FLEET_DEFAULTS["outlier_min_cohort"]}


def model(iops_status="steady", iops=100000.0, lat_status="steady", lat_mean=0.08, p9999=1.5, failure=None,
          guard=None, ios=6_000_000, source="histogram"):
    return {
        "guard": guard or {"passed": True},
        "tests": {
            "iops": {"status": iops_status, "rounds_run": 7, "steady_round": 7 if iops_status == "steady" else None,
                     "tables": {"iops": {"4k": {"0": iops}}}, "failure": failure},
            "latency": {"status": lat_status, "rounds_run": 5, "steady_round": 5,
                        "tables": {"mean_ms": {"4k": {"0": lat_mean}}},
                        "percentiles_ms": {"4k 0/100 write": {"99.99": p9999}},
                        "percentile_ios": {"4k 0/100 write": ios}, "percentile_source": {"4k 0/100 write": source}},
        },
    }


RULE = {"name": "lab SSD", "model": "ACME*", "min_iops_4k_write": 90000, "max_latency_4k_write_mean_ms": 0.1,
        "max_latency_4k_write_p9999_ms": 2.0}


@pytest.mark.parametrize(
    "drive, lost, outcome, reason",
    [
        (model(), None, "PASS", None),
        (model(iops=80000.0), None, "FAIL", "4k random write 80,000.0 IOPS misses ≥ 90,000 IOPS (iops_4k_write)"),
        # The p99.99 a rule judges is of all the window's IOs (its rounds' histograms merged), and its reason says so.
        (model(p9999=3.0), None, "FAIL", "4k random write p99.99 latency 3.000 ms (99.99 % of all the measurement "
                                         "window's 4k random writes, from fio's merged latency histograms (json+)) "
                                         "misses ≤ 2.0 ms (latency_4k_write_p9999_ms)"),
        # Too few IOs to resolve it: not judged - INCOMPLETE with the reason, never a PASS.
        (model(p9999=None, ios=2815), None, "INCOMPLETE",
         "max_latency_4k_write_p9999_ms: not judged: the latency test's measurement window holds 2,815 4k random "
         "write IOs; p99.99 needs at least 100,000 (10 beyond it) to be resolved"),
        (model(p9999=None, ios=1905, source="rounds"), None, "INCOMPLETE",
         "holds 1,905 4k random write IOs (the window's rounds have no histograms; its fewest)"),
        (model(iops_status="not steady"), None, "FAIL", "IOPS: steady state required, not reached in 7 rounds"),
        (model(lat_status="incomplete"), "host lost", "INCOMPLETE", "Latency: stopped after 5 round(s) (host lost)"),
        (model(iops_status="failed", failure={"msg": "fio timed out after 600 s"}), None, "INCOMPLETE",
         "IOPS: failed (fio timed out after 600 s)"),
        (model(iops_status="failed", failure={"msg": "fio exited with rc 1", "stderr": "fio: io_u error on file"}),
         None, "FAIL", "IOPS: the drive returned I/O errors"),
        (model(guard={"passed": False, "refusals": ["sdb1 is mounted on /data"]}), None, "INCOMPLETE",
         "refused by the guard: sdb1 is mounted on /data"),
        (None, None, "INCOMPLETE", "no results: the host was not reached"),
    ],
)
def test_verdicts(drive, lost, outcome, reason):
    result = v.verdict(drive, ["iops", "latency"], RULE, lost=lost)
    assert result["verdict"] == outcome
    if reason:
        assert any(reason in r for r in result["reasons"]), result["reasons"]


def test_an_unresolved_p9999_is_said_not_judged_even_when_another_limit_fails_the_drive():
    result = v.verdict(model(iops=80000.0, p9999=None, ios=14014), ["iops", "latency"], RULE)
    assert result["verdict"] == "FAIL" and not any("not judged" in r for r in result["reasons"])
    assert result["not_judged"] == ["max_latency_4k_write_p9999_ms: the latency test's measurement window holds 14,014 "
                                    "4k random write IOs; p99.99 needs at least 100,000 (10 beyond it) to be resolved"]
    assert "max_latency_4k_write_p9999_ms" not in {c["criterion"] for c in result["checks"]}
    assert v.verdict(model(), ["iops", "latency"], RULE)["not_judged"] == []


def test_a_fail_wins_over_incomplete_and_every_check_is_listed():
    result = v.verdict(model(iops=1.0, lat_status="incomplete"), ["iops", "latency"], RULE)
    assert result["verdict"] == "FAIL"
    criteria = {c["criterion"]: c["passed"] for c in result["checks"]}
    assert criteria["min_iops_4k_write"] is False and criteria["iops: steady state"] is True


def test_without_a_rule_steady_tests_pass_and_a_missing_figure_is_incomplete():
    assert v.verdict(model(), ["iops"], None)["verdict"] == "PASS"
    lenient = dict(RULE, require_steady=False, min_throughput_1024k_write_mb_s=500)
    result = v.verdict(model(iops_status="not steady"), ["iops"], lenient)
    assert result["verdict"] == "INCOMPLETE"
    assert "min_throughput_1024k_write_mb_s: no figure measured for it" in result["reasons"]


@pytest.mark.parametrize(
    "rules, message",
    [
        ("x", "must be a list"),
        ([{"min_iops_4k_write": 1}], "needs a model"),
        ([{"model": "A*", "min_iops": 1}], "unknown keys ['min_iops']"),
        ([{"model": "A*", "max_latency_4k_write_mean_ms": -1}], "pts_acceptance[0].max_latency_4k_write_mean_ms=-1"),
        ([{"model": "A*", "require_steady": "yes"}], "require_steady='yes'"),
    ],
)
def test_bad_rules_are_named(rules, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        v.validate_rules(rules)


def test_rules_match_model_then_firmware_first_wins():
    rules = [{"model": "ACME X*", "firmware": "2.*", "name": "new fw"}, {"model": "ACME X*", "name": "any fw"}]
    assert v.matching_rule(rules, "ACME X1", "2.1")["name"] == "new fw"
    assert v.matching_rule(rules, "ACME X1", "1.9")["name"] == "any fw"
    assert v.matching_rule(rules, "OTHER", "2.1") is None


def _drive(drive_id, iops, model_name="ACME X1", firmware="2.1"):
    return {"id": drive_id, "model": model_name, "firmware": firmware,
            "headline": dict.fromkeys(v.HEADLINES) | {"iops_4k_write": iops}}


def test_a_weak_drive_stands_out_of_its_cohort():
    drives = [_drive(f"d{i}", value) for i, value in enumerate([100000, 101000, 99000, 100500, 98500, 60000])]
    drives.append(_drive("other", 10000, model_name="OTHER"))  # its own cohort of one: never flagged
    flagged = v.cohort_outliers(drives, **OUTLIERS)
    assert list(flagged) == ["d5"]
    (entry,) = flagged["d5"]
    assert entry["figure"] == "iops_4k_write" and entry["median"] == 99500 and entry["robust_z"] < -3.5


def test_small_deviations_in_a_tight_cohort_are_not_flagged():
    drives = [_drive(f"d{i}", value) for i, value in enumerate([100000, 100001, 100000, 100002, 95000])]
    assert v.cohort_outliers(drives, **OUTLIERS) == {}  # 5 % off the median: robust z is huge, but below 10 %
    drives = [_drive(f"d{i}", value) for i, value in enumerate([100000, 100000, 100000, 80000])]
    assert list(v.cohort_outliers(drives, **OUTLIERS)) == ["d3"]  # MAD 0: the percentage decides


def test_only_steady_figures_enter_a_cohort():
    drives = [_drive(f"d{i}", value) for i, value in enumerate([100000, 100000, 100000, 50000])]
    drives[3]["headline_steady"] = {"iops_4k_write": False}
    assert v.cohort_outliers(drives, **OUTLIERS) == {}


def test_a_drive_no_selected_test_applies_to_is_incomplete_not_pass():
    result = v.verdict({"guard": {"passed": True}, "tests": {}}, [], None)
    assert result["verdict"] == "INCOMPLETE" and "no selected test applies to this drive" in result["reasons"][0]


def test_a_finished_sweep_passes_without_a_steady_state():
    drive = {"guard": {"passed": True}, "tests": {"hdd_iops": {"status": "complete", "rounds_run": 4}}}
    assert v.verdict(drive, ["hdd_iops"], None)["verdict"] == "PASS"
    drive["tests"]["hdd_iops"]["status"] = "incomplete"
    assert v.verdict(drive, ["hdd_iops"], None)["verdict"] == "INCOMPLETE"


@pytest.mark.parametrize("recovery, shown", [
    pytest.param({"minutes": None, "reason": "not recovered within group 3"}, "not recovered", id="not-recovered"),
    pytest.param({"minutes": 1.5, "reason": ""}, "1.5 min", id="recovered"),
])
def test_an_xsr_check_passed_says_what_passed_not_the_recovery(recovery, shown):
    drive = {"guard": {"passed": True}, "tests": {"xsr": {"status": "complete", "rounds_run": 18, "samples": [{}] * 18,
                                                          "transitions": {"recovery": recovery}}}}
    result = v.verdict(drive, ["xsr"], None)
    assert result["verdict"] == "PASS"
    (check,) = [c for c in result["checks"] if c["passed"]]
    assert check["text"] == "XSR: all three groups sampled (18 samples)"
    assert shown not in check["text"] and "recover" not in check["text"]


@pytest.mark.parametrize("rules, message", [
    ([{"model": "X*", "min_iops_4k_write": float("nan")}], "pts_acceptance[0].min_iops_4k_write=nan: must be a positive"),
    ([{"model": "X*", "max_latency_4k_write_mean_ms": float("inf")}], "max_latency_4k_write_mean_ms=inf: must be a "),
])
def test_non_finite_limits_are_refused(rules, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        v.validate_rules(rules)


def test_a_test_that_failed_before_its_first_round_is_incomplete_with_the_reason():
    model = {"tests": {}, "guard": {"passed": True},
             "failed_before_rounds": {"iops": {"phase": None, "msg": "pts_purge /dev/x: refused, it is mounted"}}}
    judged = v.verdict(model, ["iops", "latency"], None)
    assert judged["verdict"] == v.INCOMPLETE
    assert judged["reasons"] == ["IOPS: the purge failed before the first round: pts_purge /dev/x: refused, it is mounted"]


@pytest.mark.parametrize("rule", [
    {"model": "A*", "endurance_tbw": 7008},
    {"model": "A*", "dwpd": 1, "warranty_years": 5},
    {"model": "A*", "dwpd": 0.3, "warranty_years": 3, "endurance_tbw": 1000, "rated_write_mb_s": 4000},
    {"model": "A*", "endurance_tbw": 600, "warranty_years": 5},
])
def test_endurance_keys_are_accepted(rule):
    assert v.validate_rules([rule]) == [rule]


@pytest.mark.parametrize("rule, message", [
    ({"model": "A*", "endurance_tbw": 0}, "pts_acceptance[0].endurance_tbw=0: must be a positive number"),
    ({"model": "A*", "endurance_tbw": "600"}, "pts_acceptance[0].endurance_tbw='600': must be a positive number"),
    ({"model": "A*", "dwpd": -1, "warranty_years": 5}, "pts_acceptance[0].dwpd=-1: must be a positive number"),
    ({"model": "A*", "dwpd": 1, "warranty_years": True}, "pts_acceptance[0].warranty_years=True: must be a positive"),
    ({"model": "A*", "rated_write_mb_s": float("inf")}, "pts_acceptance[0].rated_write_mb_s=inf: must be a positive"),
    ({"model": "A*", "dwpd": 1}, "pts_acceptance[0].dwpd=1: needs warranty_years"),
    ({"model": "A*", "warranty_years": 5}, "pts_acceptance[0].warranty_years=5: gives no endurance without dwpd"),
    ({"model": "A*", "endurance_TBW": 5}, "unknown keys ['endurance_TBW']"),
])
def test_bad_endurance_keys_are_named(rule, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        v.validate_rules([rule])


# Every number of a rule within its physical range; a value outside it names the rule, the key and the value. A rate
# of 1e-9 MB/s made the wear estimate count the rounds as writing nothing (134 MB estimated, 294 MB written).
@pytest.mark.parametrize("key, low, high, unit", [
    ("rated_write_mb_s", 1, 1e6, "MB/s"), ("endurance_tbw", 1e-6, 1e6, "TB"), ("dwpd", 0.01, 1000, "drive writes per day"),
    ("warranty_years", 1 / 365, 100, "years"), ("min_iops_4k_write", 1, 1e8, "IOPS"),
    ("min_throughput_1024k_write_mb_s", 1, 1e6, "MB/s"), ("min_throughput_1024k_read_mb_s", 1, 1e6, "MB/s"),
    ("max_latency_4k_write_mean_ms", 0.001, 3.6e6, "ms"), ("max_latency_4k_write_p9999_ms", 0.001, 3.6e6, "ms"),
])
@pytest.mark.parametrize("where", ["below", "at_low", "at_high", "above"])
def test_every_number_of_a_rule_is_bounded_to_a_physical_range(key, low, high, unit, where):
    value = {"below": low / 1000, "at_low": low, "at_high": high, "above": high * 1000}[where]
    rule = {"model": "A*", key: value}
    if key == "dwpd":
        rule["warranty_years"] = 5
    if key == "warranty_years":
        rule["dwpd"] = 1
    if where in ("at_low", "at_high"):
        assert v.validate_rules([dict(rule, name="ok")]) == [dict(rule, name="ok")]
        return
    with pytest.raises(ValueError) as caught:
        v.validate_rules([{"model": "B*"}, rule])
    assert str(caught.value) == (f"pts_acceptance[1].{key}={value!r}: must be from {low:g} to {high:g} {unit}: a "
                                 f"{'value' if key in v.ENDURANCE_KEYS else 'limit'} outside that range is no drive's")


def test_the_rate_of_the_wear_bypass_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"^pts_acceptance\[0\]\.rated_write_mb_s=1e-09: must be from 1 to 1e\+06 MB/s"):
        v.validate_rules([{"model": "loop device", "endurance_tbw": 0.00016, "rated_write_mb_s": 1e-9}])
