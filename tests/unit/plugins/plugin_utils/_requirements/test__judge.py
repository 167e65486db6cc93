# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Requirements judged on a drive: PASS, FAIL or not judged (the n/r rule), what not judged does to the verdict as the
specification says, which specifications apply. The pass rates across a fleet are test__pass_rates.py's, the JUnit
cases _fleet/test__fleet_junit.py's."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _judge, _spec_file
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._requirements._judged_fleet import model, spec


@pytest.mark.parametrize("drive, statuses, verdict", [
    (model(), {"RR4K": "PASS", "QOS-R1": "PASS"}, "PASS"),
    (model(read_iops=850000.0), {"RR4K": "FAIL", "QOS-R1": "PASS"}, "FAIL"),
    (model(p9999=0.6), {"RR4K": "PASS", "QOS-R1": "FAIL"}, "FAIL"),
    # Too few IOs to resolve p99.99: not judged - the specification's default leaves the drive INCOMPLETE.
    (model(p9999=None, ios=40000), {"RR4K": "PASS", "QOS-R1": "NOT JUDGED"}, "INCOMPLETE"),
])
def test_each_requirement_is_judged_on_its_figure_and_decides_the_verdict(drive, statuses, verdict):
    judged = _acceptance.verdict(drive, ["iops", "qos"], None, specs=[spec()])
    assert {r["id"]: r["status"] for r in judged["requirements"]} == statuses
    assert judged["verdict"] == verdict
    assert judged["failed_requirements"] == [f"ACME PM1 2.1: {i}" for i, s in statuses.items() if s == "FAIL"]


def test_a_requirement_record_traces_its_source_limit_figure_and_round_files():
    judged = _acceptance.verdict(model(p9999=None, ios=40000), ["iops", "qos"], None, specs=[spec()])
    rr, qos = judged["requirements"]
    assert rr["case"] == "ACME PM1 2.1: RR4K" and rr["source"] == "ACME PM1 product brief, 4"
    assert rr["limit"] == 900000.0 and rr["limit_text"] == "≥ 90 % of rated 1,000 kIOPS (900,000 IOPS)"
    assert rr["files"] == [f"iops/round-{n:02d}.json" for n in (3, 4, 5, 6, 7)] and rr["measured"] == 950000.0
    assert qos["source"] == "ACME PM1 product brief, 5.2" and qos["limit_text"] == "≤ 500 us (0.5 ms)"
    assert (qos["ios"], qos["needed"], qos["files"]) == (40000, 100000, ["qos/measure/round-01.json"])
    assert "counted 40,000 IOs; p99.99 needs at least 100,000" in qos["reason"]
    assert judged["reasons"] == ["ACME PM1 2.1: QOS-R1 (qos.read.qd1.p99.99): not judged: the QoS run of 4k random "
                                 "read at QD1 counted 40,000 IOs; p99.99 needs at least 100,000 (10 beyond it) to be "
                                 "resolved"]
    assert judged["not_judged"] == ["ACME PM1 2.1: QOS-R1 (qos.read.qd1.p99.99): " + qos["reason"]]


def test_not_judged_fails_the_drive_when_its_specification_says_so():
    unresolved = model(p9999=None, ios=40000)
    failing = _acceptance.verdict(unresolved, ["iops", "qos"], None, specs=[spec(not_judged="fail")])
    assert failing["verdict"] == "FAIL" and failing["failed_requirements"] == ["ACME PM1 2.1: QOS-R1"]
    assert any("its specification fails a requirement it cannot judge" in r for r in failing["reasons"])
    # The requirement's own choice wins over its specification's.
    own = spec()
    own["requirements"][1]["not_judged"] = "fail"
    assert _acceptance.verdict(unresolved, ["iops", "qos"], None, specs=[own])["verdict"] == "FAIL"


def test_a_spec_applies_by_its_drives_and_an_inline_rule_by_first_match():
    rules = [{"name": "old", "model": "ACME*", "min_iops_4k_write": 1}, {"name": "other", "model": "ACME PM1*"}]
    other = spec(applies_to={"model": "OTHER*"})
    specs = _acceptance.inline_specs(rules) + [spec(), other]
    found = _judge.applicable(specs, model()["drive"])
    assert [(s["name"], s.get("inline")) for s in found] == [("old", 0), ("ACME PM1", None)]
    judged = _acceptance.verdict(model(), ["iops", "qos"], rules[0], specs=found)
    assert [r["case"] for r in judged["requirements"]] == ["min_iops_4k_write", "ACME PM1 2.1: RR4K",
                                                           "ACME PM1 2.1: QOS-R1"]
    # An inline rule's limit of before 3.0.0 keeps its words and its key.
    legacy = next(c for c in judged["checks"] if c["criterion"] == "min_iops_4k_write")
    assert legacy["text"] == "4k random write 200,000.0 IOPS meets ≥ 1 IOPS (iops_4k_write)"


def test_a_plan_of_before_3_0_0_is_judged_on_its_inline_rules():
    plan = {"acceptance": [{"name": "old", "model": "ACME*", "min_iops_4k_write": 1}]}
    (found,) = _judge.specs_of_plan(plan)
    assert (found["name"], found["inline"], [r["id"] for r in found["requirements"]]) == (
        "old", 0, ["min_iops_4k_write"])
    assert _judge.specs_of_plan({"acceptance_specs": [], "acceptance": plan["acceptance"]}) == []


def test_a_requirement_the_plan_measures_with_the_qos_measurement_is_judged_on_that_figure():
    stood_in = _spec_file.validate({
        "name": "S", "version": "1", "source": "doc", "applies_to": {"model": "*"},
        "requirements": [{"id": "L", "figure": "latency.4k.100/0.read.p99.99", "limit": 1}]}, "s.yml")
    stood_in["requirements"][0]["measured_as"] = "qos.read.qd1.p99.99"
    (record,) = _acceptance.verdict(model(), ["iops", "qos"], None, specs=[stood_in])["requirements"]
    assert (record["figure"], record["measured_as"], record["measured"], record["status"]) == (
        "latency.4k.100/0.read.p99.99", "qos.read.qd1.p99.99", 0.4, "PASS")
