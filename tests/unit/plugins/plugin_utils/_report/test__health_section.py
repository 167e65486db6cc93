# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Health per round in the drive report: the summary names the rounds the drive throttled or ran hot in, the
convergence plots mark them, each test gets a temperature plot, an acceptance rule fails on them - and a drive that
reports none says so once. Results trees are filed through the real filing code."""

from __future__ import annotations

import os

import pytest
from conftest import SETTINGS, scaled_round, write_drive, write_wipc

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

FACTORS = [1.6, 1.3, 1.02, 0.98, 1.0, 1.01, 0.99]
THRESHOLDS = {"warning_c": 75, "critical_c": 85}


def reading(temp: int, transitions: int = 0, media: int = 0) -> dict:
    return {"temperature_c": temp, "thermal_transitions": [transitions, 0], "thermal_seconds": [transitions * 10, 0],
            "warning_temp_minutes": 0, "critical_temp_minutes": 0, "critical_warning": 0, "media_errors": media}


def nvme_entry(before: dict, after: dict) -> dict:
    return {"tool": "nvme smart-log", "device": "/dev/nvme0", "before": before, "after": after,
            "thresholds": THRESHOLDS, "cost_s": 0.02}


def file_rounds(run_dir: str, test: str, factors: list, health: list, segment: str = "", fixture: str | None = None):
    """A purge and one round per factor, each round's fio record carrying its health entry as pts_round files it."""
    context = {"drive": "d1", "test": test, "settings": SETTINGS[test], "segment": segment}
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    for number, (factor, entry) in enumerate(zip(factors, health), 1):
        fio = scaled_round(fixture or "fio-3.33-iops-round.json", factor)
        fio.update(job_text=f"# round {number}\n", health=entry)
        _results.file_payload(run_dir, "h1", {"pts_fio": fio, "pts_fio_raw": "{}",
                                              "pts_context": dict(context, phase="round", round=number)})


def plan(run_dir: str, acceptance: list, tests=("iops", "throughput")) -> None:
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": t} for t in tests], "listed": [],
                                                       "acceptance": acceptance, "drives": []}})


@pytest.fixture(scope="module")
def hot(tmp_path_factory):
    """An NVMe drive that runs hot in IOPS round 3, throttles in round 5 and in throughput 1024k round 2, under a
    rule that allows neither."""
    run_dir = str(tmp_path_factory.mktemp("health") / "run")
    path = write_drive(run_dir, "h1", "d1")
    info = _results.read_json(os.path.join(path, "drive.json"))
    info["drive"].update(interface="NVMe", vendor=None, model="SAMSUNG MZQL23T8HCLS-00A07", placeholders=[],
                         health={"tool": "nvme smart-log", "temperature_c": 41, "media_errors": 0})
    _results.atomic_write_json(os.path.join(path, "drive.json"), info)
    plan(run_dir, [{"name": "hot rule", "model": "SAMSUNG*", "max_temperature_c": 80, "allow_throttling": False,
                    "require_steady": False}])
    temps = [(50, 60), (60, 70), (70, 77), (72, 74), (74, 79), (70, 72), (70, 71)]
    counts = [(0, 0), (0, 0), (0, 0), (0, 0), (0, 2), (2, 2), (2, 2)]
    file_rounds(run_dir, "iops", FACTORS, [nvme_entry(reading(b, cb), reading(a, ca))
                                           for (b, a), (cb, ca) in zip(temps, counts)])
    write_wipc(run_dir, "h1", "d1", "iops")
    file_rounds(run_dir, "throughput", [1.0] * 6,
                [nvme_entry(reading(60, 2), reading(66, 2)), nvme_entry(reading(66, 2), reading(82, 3))]
                + [nvme_entry(reading(70, 3), reading(72, 3))] * 4,
                segment="1024k", fixture="fio-3.33-throughput-1048576.json")
    written = _drive_report.write_drive_report(path)
    with open(written["report"], encoding="utf-8") as handle:
        return path, written, handle.read()


def test_the_summary_names_the_rounds_the_drive_throttled_and_ran_hot_in(hot):
    dummy, written, markdown = hot
    summary = markdown[markdown.index("## Summary"):markdown.index("## Contents")]
    assert ("Per round (nvme smart-log, read just before and just after each of 13 rounds, outside fio's measuring "
            "time): highest temperature 82 °C (throughput 1024k round 2); the drive's warning threshold 75 °C, "
            "critical threshold 85 °C.") in summary
    assert ("- **Throttled** (a thermal-management transition counter grew) in iops round 5; throughput 1024k "
            "round 2.") in summary
    assert "- **At or past its warning temperature** in iops rounds 3, 5; throughput 1024k round 2." in summary


def test_an_acceptance_rule_fails_on_temperature_and_throttling(hot):
    dummy, written, markdown = hot
    verdict = written["model"]["verdict"]
    assert verdict["verdict"] == "FAIL"
    assert verdict["reasons"] == [
        "highest drive temperature 82 °C (throughput 1024k round 2) misses ≤ 80 °C (max_temperature_c)",
        "the drive throttled (thermal management) in 2 round(s): iops round 5, throughput 1024k round 2 "
        "(allow_throttling: false)"]
    assert "> Acceptance rule hot rule: drive temperature ≤ 80 °C in every round; no thermal throttling in any " \
           "round; steady state not required." in markdown


def test_a_health_section_with_the_marked_rounds_and_a_temperature_plot_per_test(hot):
    path, written, markdown = hot
    assert "9. [Drive health per round](#9-drive-health-per-round)" not in markdown  # numbered after the tests
    assert "6. [Drive health per round](#6-drive-health-per-round)" in markdown
    section = markdown[markdown.index("## 6 Drive health per round"):]
    assert ("| Throughput | 1024k | 2 | throttled, warning | thermal management temperature 1 transitions 2 → 3; "
            "thermal management temperature 1 seconds 20 → 30; 82 °C at or above the warning threshold 75 °C |") \
        in section
    assert "| IOPS | — | 3 | warning | 77 °C at or above the warning threshold 75 °C |" in section
    plots = written["plots"]
    assert plots["iops"]["temperature"] == "plots/iops-temperature.png"
    assert plots["throughput"]["temperature"] == "plots/throughput-temperature.png"
    assert "![IOPS](plots/iops-temperature.png)" in section
    for name in ("iops", "throughput"):
        with open(os.path.join(path, plots[name]["temperature"]), "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    model = _results.read_json(written["result"])
    assert model["round_health"]["tests"]["iops"]["marks"] == [
        {"round": 3, "kind": "warning", "series": None}, {"round": 5, "kind": "throttled", "series": None},
        {"round": 5, "kind": "warning", "series": None}]


def test_a_loop_device_says_it_reports_none_once_and_nothing_else(tmp_path):
    run_dir = str(tmp_path / "run")
    path = write_drive(run_dir, "h1", "d1")
    none = {"none": "a loop device (a file) has no SMART or NVMe health log", "cost_s": 0.0}
    file_rounds(run_dir, "iops", FACTORS, [none] * len(FACTORS))
    plan(run_dir, [{"model": "loop*", "max_temperature_c": 70}], tests=("iops",))
    written = _drive_report.write_drive_report(path)
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert markdown.count("reports none") == 1 and markdown.count("health log") == 1
    assert "Nothing is read before or after its rounds either." in markdown
    assert "Drive health per round" not in markdown and "Per round" not in markdown
    assert "temperature" not in written["plots"]["iops"]
    assert written["model"]["verdict"]["reasons"] == ["max_temperature_c: the drive reported no temperature in any round"]


@pytest.mark.parametrize("rule, error", [
    ({"model": "x", "max_temperature_c": 0}, "max_temperature_c=0: must be a temperature"),
    ({"model": "x", "max_temperature_c": "70"}, "max_temperature_c='70'"),
    ({"model": "x", "max_temperature_c": True}, "max_temperature_c=True"),
    ({"model": "x", "allow_throttling": "no"}, "allow_throttling='no': must be true or false"),
])
def test_health_criteria_are_validated_with_the_plan(rule, error):
    with pytest.raises(ValueError, match=error):
        _acceptance.validate_rules([rule])
    assert _acceptance.validate_rules([{"model": "x", "max_temperature_c": 70.5, "allow_throttling": True}])


@pytest.mark.parametrize("health, rule, checks, unjudged", [
    # cool and steady: both criteria pass
    ({"read": 5, "max_c": 61, "max_at": {"test": "iops", "segment": "", "round": 4}, "marked": [],
      "throttle_counters": True}, {"max_temperature_c": 70, "allow_throttling": False},
     [("max_temperature_c", True), ("allow_throttling", True)], []),
    # a SATA drive: temperatures, but no thermal-management counters to judge throttling by
    ({"read": 5, "max_c": 44, "max_at": {"test": "iops", "segment": "", "round": 1}, "marked": [],
      "throttle_counters": False}, {"allow_throttling": False}, [], ["allow_throttling: false: the drive reports "
                                                                     "no thermal-management counters"]),
    # throttling allowed (the default): not a criterion
    ({"read": 5, "marked": [{"test": "iops", "segment": "", "round": 2, "kinds": ["throttled"], "why": []}],
      "throttle_counters": True}, {}, [], []),
])
def test_health_checks(health, rule, checks, unjudged):
    found, incomplete = _acceptance.health_checks({"round_health": health}, rule)
    assert [(c["criterion"], c["passed"]) for c in found] == checks
    assert [i[:len(u)] for i, u in zip(incomplete, unjudged)] == unjudged and len(incomplete) == len(unjudged)
