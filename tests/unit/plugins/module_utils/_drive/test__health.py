# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Health per round: what to run for which device, how nvme-cli's and smartctl's JSON read, and what a round did.

Fixtures are shaped from the tools' sources: nvme-cli 2.3 json_smart_log / id-ctrl (Kelvin temperatures, minutes
above the thresholds, thermal-management counters) and smartmontools 7.3 (ATA attributes and device statistics,
SCSI temperature and trip point, NVMe smart log with media errors)."""

from __future__ import annotations

import copy
import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def fixture(name: str) -> dict:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return json.load(handle)


THROTTLING = fixture("health-nvme-cli-2.3-smart-log-throttling.json")
ID_CTRL = fixture("health-nvme-cli-2.3-id-ctrl-thresholds.json")
ATA = fixture("health-smartctl-7.3-ata-devstat.json")
SCSI = fixture("health-smartctl-7.3-scsi.json")
NVME_SMARTCTL = fixture("health-smartctl-7.3-nvme-media-errors.json")


# ------------------------------------------------------------------------------------------------ readings


def test_nvme_cli_smart_log_reads_temperatures_in_celsius_and_the_thermal_counters():
    assert _health.nvme_reading(THROTTLING) == {
        "temperature_c": 78, "sensors_c": [78, 70], "critical_warning": 0, "warning_temp_minutes": 14,
        "critical_temp_minutes": 0, "thermal_transitions": [7, 1], "thermal_seconds": [412, 3], "media_errors": 0,
        "error_log_entries": 12, "percentage_used": 4, "available_spare_pct": 100,
        "bytes_written": 34125838 * 512000,
    }


def test_nvme_cli_verbose_warning_object_zero_sensors_and_missing_counters():
    log = {"critical_warning": {"value": 2, "temp_threshold": 1}, "temperature": 323, "temperature_sensor_1": 0,
           "temperature_sensor_3": 330, "thm_temp2_trans_count": 5}
    reading = _health.nvme_reading(log)
    # A sensor reading 0 K is "not reported"; a missing counter is left out, not zero.
    assert reading == {"temperature_c": 50, "sensors_c": [57], "critical_warning": 2,
                       "thermal_transitions": [None, 5]}


def test_nvme_thresholds_from_id_ctrl_and_zero_means_not_reported():
    assert _health.nvme_thresholds(ID_CTRL) == {"warning_c": 80, "critical_c": 85}
    assert _health.nvme_thresholds({"wctemp": 0, "cctemp": 373}) == {"critical_c": 100}
    assert _health.nvme_thresholds({}) == {}


def test_smartctl_ata_reads_attributes_device_statistics_and_limits():
    assert _health.smartctl_reading(ATA) == {
        "passed": True, "temperature_c": 42, "warning_temp_minutes": 6, "reallocated_sectors": 3,
        "pending_sectors": 2, "offline_uncorrectable": 0, "reported_uncorrect": 1, "percentage_used": 3,
        "wear_attribute": {"attribute": "Wear_Leveling_Count", "id": 177, "normalized": 96},
        "bytes_written": 61275346911 * 512,
    }
    assert _health.smartctl_thresholds(ATA) == {"warning_c": 70}


def test_smartctl_ata_temperature_from_the_attribute_when_smartctl_gives_no_current():
    data = dict(ATA, temperature={})
    # Attribute 194's raw value packs vendor min/max above its low byte (42, min 19, max 59).
    assert _health.smartctl_reading(data)["temperature_c"] == 42
    airflow = {"ata_smart_attributes": {"table": [{"id": 190, "name": "Airflow_Temperature_Cel",
                                                   "raw": {"value": 0x1F001F1F}}]}}
    assert _health.smartctl_reading(airflow)["temperature_c"] == 31


def test_smartctl_scsi_trip_temperature_defects_and_endurance():
    assert _health.smartctl_reading(SCSI) == {"passed": True, "temperature_c": 38, "grown_defects": 4,
                                              "percentage_used": 1}
    assert _health.smartctl_thresholds(SCSI) == {"critical_c": 65}
    # smartmontools before 7.4 printed the trip point under scsi_temperature.
    older = {"temperature": {"current": 38}, "scsi_temperature": {"drive_trip": 68}}
    assert _health.smartctl_thresholds(older) == {"critical_c": 68}


def test_smartctl_nvme_media_errors_warning_bits_and_temperature_times():
    reading = _health.smartctl_reading(NVME_SMARTCTL)
    assert reading["media_errors"] == 2 and reading["critical_warning"] == 4 and reading["passed"] is False
    assert (reading["warning_temp_minutes"], reading["critical_temp_minutes"]) == (3, 1)
    assert "thermal_transitions" not in reading  # smartctl prints no thermal-management counters in JSON


@pytest.mark.parametrize("fmt, rc, stdout, expect", [
    ("nvme", 0, json.dumps(THROTTLING), {"temperature_c": 78}),
    ("nvme", 1, "NVMe status: INVALID_FIELD", "nvme smart-log failed (rc 1)"),
    ("nvme", 0, "not json", "printed no JSON"),
    ("nvme", 0, "[1, 2]", "not an object"),
    # smartctl's exit status is a bit mask: 4 (a command failed), 64 (errors in the log) still read the drive.
    ("smartctl", 4 | 64, json.dumps(ATA), {"temperature_c": 42}),
    ("smartctl", 2, "{}", "smartctl read nothing (exit status 2)"),
])
def test_parse_one_run_of_the_command(fmt, rc, stdout, expect):
    reading, thresholds, error = _health.parse(fmt, rc, stdout)
    if isinstance(expect, dict):
        assert error is None and expect.items() <= reading.items()
    else:
        assert reading is None and expect in error


def test_parse_smartctl_brings_the_thresholds_nvme_cli_needs_id_ctrl_for():
    assert _health.parse("smartctl", 0, json.dumps(ATA))[1] == {"warning_c": 70}
    assert _health.parse("nvme", 0, json.dumps(THROTTLING))[1] == {}


# ------------------------------------------------------------------------------------------------- sources


def which(name):
    return {"nvme": "/usr/sbin/nvme", "smartctl": "/usr/sbin/smartctl"}.get(name)


@pytest.mark.parametrize("info, expect", [
    ({"kind": "disk", "interface": "NVMe", "name": "nvme1n1", "resolved": "/dev/nvme1n1"},
     {"tool": "nvme smart-log", "format": "nvme", "device": "/dev/nvme1",
      "argv": ["/usr/sbin/nvme", "smart-log", "/dev/nvme1", "-o", "json"],
      "thresholds_argv": ["/usr/sbin/nvme", "id-ctrl", "/dev/nvme1", "-o", "json"]}),
    ({"kind": "disk", "interface": "SATA", "name": "sdb", "resolved": "/dev/sdb"},
     {"tool": "smartctl", "format": "smartctl", "device": "/dev/sdb", "thresholds_argv": None,
      "argv": ["/usr/sbin/smartctl", "-j", "-H", "-A", "-l", "devstat", "/dev/sdb"]}),
    ({"kind": "disk", "interface": "SCSI/SAS", "name": "sdc", "resolved": "/dev/sdc"},
     {"tool": "smartctl", "format": "smartctl", "device": "/dev/sdc", "thresholds_argv": None,
      "argv": ["/usr/sbin/smartctl", "-j", "-H", "-A", "/dev/sdc"]}),
])
def test_source_names_the_one_command_a_reading_takes(info, expect):
    assert _health.source(info, which) == expect


@pytest.mark.parametrize("info, words", [
    ({"kind": "disk", "interface": "loop", "name": "loop3"}, "a loop device (a file) has no SMART or NVMe health log"),
    ({"kind": "disk", "interface": "zram", "name": "zram0"}, "a zram device (memory)"),
    ({"kind": "disk", "interface": "virtio", "name": "vdb"}, "a virtio disk has no SMART"),
    ({"kind": "disk", "interface": "md", "name": "md0"}, "an md array has no health log of its own"),
    ({"kind": "partition", "interface": "NVMe", "name": "nvme0n1p1"}, "a partition has no health log of its own"),
    ({"kind": "disk", "interface": "unknown", "name": "xvda"}, "unknown reports no SMART or NVMe health log"),
])
def test_source_says_why_a_device_has_none(info, words):
    assert words in _health.source(info, which)["none"]


def test_source_without_the_tool_on_the_host_says_so():
    found = _health.source({"kind": "disk", "interface": "SATA", "name": "sda", "resolved": "/dev/sda"},
                           lambda name: None)
    assert found == {"none": "smartctl is not installed on the host, so the SATA drive's health is not read"}


# ----------------------------------------------------------------------------------------------- one round


def nvme(temp=50, transitions=(0, 0), seconds=(0, 0), warning=0, critical=0, bits=0, media=0):
    return {"temperature_c": temp, "thermal_transitions": list(transitions), "thermal_seconds": list(seconds),
            "warning_temp_minutes": warning, "critical_temp_minutes": critical, "critical_warning": bits,
            "media_errors": media}


@pytest.mark.parametrize("before, after, thresholds, expect", [
    # a quiet round
    (nvme(), nvme(55), {"warning_c": 70}, {"max_c": 55, "throttled": False, "warning": False, "errors": False}),
    # TMT1 entered twice during the round: throttled (the drive slowed itself to cool down)
    (nvme(70, (7, 1), (412, 3)), nvme(78, (9, 1), (430, 3)), {},
     {"max_c": 78, "throttled": True, "warning": False, "errors": False}),
    # only the time in the thermal state grew (a transition that began before the round)
    (nvme(70, (7, 1), (412, 3)), nvme(71, (7, 1), (440, 3)), {}, {"throttled": True}),
    # the warning temperature time grew: over WCTEMP for at least a minute
    (nvme(70, warning=14), nvme(74, warning=15), {}, {"warning": True, "throttled": False}),
    # a reading at the warning threshold, without a minute counted yet
    (nvme(69), nvme(80), {"warning_c": 80, "critical_c": 85}, {"warning": True, "max_c": 80}),
    # critical warning bit 1: a temperature threshold (Set Features 04h) was passed
    (nvme(50, bits=2), nvme(50, bits=2), {"warning_c": 70}, {"warning": True}),
    # new media errors in the round
    (nvme(media=0), nvme(media=3), {}, {"errors": True, "warning": False}),
])
def test_judge_a_round_from_its_readings(before, after, thresholds, expect):
    judged = _health.judge({"before": before, "after": after, "thresholds": thresholds})
    assert expect.items() <= judged.items()


def test_judge_gives_the_evidence_in_words():
    judged = _health.judge({"before": nvme(70, (7, 1), (412, 3), warning=14, media=0),
                            "after": nvme(81, (9, 1), (430, 3), warning=15, media=2),
                            "thresholds": {"warning_c": 80}})
    assert judged["why"] == [
        "thermal management temperature 1 transitions 7 → 9", "thermal management temperature 1 seconds 412 → 430",
        "warning temperature time 14 → 15 min", "81 °C at or above the warning threshold 80 °C",
        "media and data integrity errors 0 → 2"]


def test_judge_with_one_reading_missing_still_judges_the_other():
    assert _health.judge({"before": None, "after": nvme(90), "thresholds": {"warning_c": 80}})["warning"]
    assert _health.judge({"before": nvme(40), "after": None})["max_c"] == 40
    assert _health.judge({}) == {"max_c": None, "throttled": False, "warning": False, "errors": False, "why": []}


def test_sata_counters_over_limit_minutes_and_pending_sectors():
    later = copy.deepcopy(ATA)
    later["ata_device_statistics"]["pages"][1]["table"][2]["value"] = 7  # Time in Over-Temperature
    later["ata_smart_attributes"]["table"][5]["raw"] = {"value": 5, "string": "5"}  # Current_Pending_Sector
    before, after = _health.smartctl_reading(ATA), _health.smartctl_reading(later)
    judged = _health.judge({"before": before, "after": after, "thresholds": {"warning_c": 70}})
    assert judged["warning"] and judged["errors"] and not judged["throttled"]
    assert judged["why"] == ["warning temperature time 6 → 7 min", "pending sectors 2 → 5"]


# ------------------------------------------------------------------------------------------- across rounds


def entry(before, after, thresholds=None):
    return {"tool": "nvme smart-log", "device": "/dev/nvme0", "before": before, "after": after,
            "thresholds": thresholds or {"warning_c": 75, "critical_c": 85}, "cost_s": 0.02}


def test_summarize_names_the_rounds_that_throttled_or_ran_hot_per_test_and_segment():
    rounds = [
        ("iops", "", 1, entry(nvme(50), nvme(60))),
        ("iops", "", 2, entry(nvme(60), nvme(76))),  # warning: 76 ≥ 75
        ("iops", "", 3, entry(nvme(70, (1, 0)), nvme(72, (2, 0)))),  # throttled
        ("throughput", "1024k", 1, entry(nvme(60), nvme(66))),
        ("throughput", "1024k", 2, entry(nvme(66, (2, 0)), nvme(79, (3, 0)))),  # both
        ("throughput", "64k", 1, entry(nvme(55, media=1), nvme(58, media=1))),
    ]
    health = _health.summarize(rounds)
    assert health["read"] == 6 and health["none"] is None and health["tools"] == ["nvme smart-log"]
    assert (health["max_c"], health["max_at"]) == (79, {"test": "throughput", "segment": "1024k", "round": 2})
    assert (health["warning_c"], health["critical_c"]) == (75, 85) and health["throttle_counters"]
    assert [(m["test"], m["segment"], m["round"], m["kinds"]) for m in health["marked"]] == [
        ("iops", "", 2, ["warning"]), ("iops", "", 3, ["throttled"]),
        ("throughput", "1024k", 2, ["throttled", "warning"])]
    assert health["tests"]["iops"]["marks"] == [{"round": 2, "kind": "warning", "series": None},
                                                {"round": 3, "kind": "throttled", "series": None}]
    assert health["tests"]["throughput"]["marks"] == [{"round": 2, "kind": "throttled", "series": "1024k"},
                                                      {"round": 2, "kind": "warning", "series": "1024k"}]
    assert [r["after_c"] for r in health["tests"]["throughput"]["series"]["1024k"]] == [66, 79]
    assert _health.rounds_text(health["marked"], "throttled") == "iops round 3; throughput 1024k round 2"
    assert _health.rounds_text(health["marked"], "warning") == "iops round 2; throughput 1024k round 2"


def test_a_device_that_reports_none_says_so_once_and_is_not_counted():
    rounds = [(test, "", n, {"none": _health.none_reason("loop"), "cost_s": 0.0})
              for test in ("iops", "latency") for n in (1, 2, 3)]
    health = _health.summarize(rounds)
    assert health["read"] == 0 and health["tests"] == {} and health["marked"] == []
    assert health["none"] == "a loop device (a file) has no SMART or NVMe health log"


def test_rounds_of_older_runs_and_failed_reads():
    rounds = [("iops", "", 1, None),
              ("iops", "", 2, {"tool": "smartctl", "before": None, "after": None, "error": "smartctl read nothing"}),
              ("iops", "", 3, entry(nvme(40), None))]
    health = _health.summarize(rounds)
    assert health["read"] == 1 and health["none"] is None and not health["marked"]
    assert health["errors_read"] == ["iops round 2: smartctl read nothing"]


def test_entry_for_the_round_file():
    assert _health.entry({"none": "a loop device"}, None, None, 0.00001) == {"none": "a loop device", "cost_s": 0.0}
    probe = {"tool": "nvme smart-log", "device": "/dev/nvme0", "argv": ["nvme"], "thresholds": {"warning_c": 70}}
    assert _health.entry(probe, {"temperature_c": 50}, None, 0.031234, "nvme smart-log could not be run") == {
        "tool": "nvme smart-log", "device": "/dev/nvme0", "before": {"temperature_c": 50}, "after": None,
        "thresholds": {"warning_c": 70}, "cost_s": 0.0312, "error": "nvme smart-log could not be run"}


def test_rounds_text_shortens_runs_of_rounds():
    marked = [{"test": "wsat", "segment": "", "round": n, "kinds": ["warning"]} for n in [*range(1, 1501), 1503]]
    marked += [{"test": "iops", "segment": "", "round": n, "kinds": ["warning"]} for n in (2, 3, 7)]
    assert _health.rounds_text(marked, "warning") == "wsat rounds 1–1500, 1503; iops rounds 2, 3, 7"
    assert _health.rounds_text(marked, "throttled") == ""
