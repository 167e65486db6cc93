# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pts_drive_health mode=round: the probe a round loop starts with - which command reads the drive, its thresholds
and the first reading - with nvme-cli and smartctl stood in for."""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.modules import pts_drive_health

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")


def fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def which(name):
    return f"/usr/sbin/{name}"


class Tools:
    def __init__(self, answers: dict):
        self.answers = answers
        self.calls: list[list[str]] = []

    def __call__(self, argv):
        self.calls.append(argv)
        return self.answers[argv[1] if argv[1] != "-j" else "smartctl"]


NVME = {"is_block": True, "kind": "disk", "interface": "NVMe", "name": "nvme0n1", "resolved": "/dev/nvme0n1"}


def test_an_nvme_probe_reads_thresholds_and_the_first_smart_log():
    run = Tools({"id-ctrl": (0, fixture("health-nvme-cli-2.3-id-ctrl-thresholds.json"), ""),
                 "smart-log": (0, fixture("health-nvme-cli-2.3-smart-log-throttling.json"), "")})
    probe = pts_drive_health.round_probe(NVME, run, which)
    assert run.calls == [["/usr/sbin/nvme", "id-ctrl", "/dev/nvme0", "-o", "json"],
                         ["/usr/sbin/nvme", "smart-log", "/dev/nvme0", "-o", "json"]]
    assert probe["argv"] == run.calls[1] and probe["format"] == "nvme" and probe["device"] == "/dev/nvme0"
    assert probe["thresholds"] == {"warning_c": 80, "critical_c": 85}
    assert probe["reading"]["temperature_c"] == 78 and probe["reading"]["thermal_transitions"] == [7, 1]
    assert "error" not in probe


def test_a_sata_probe_takes_its_thresholds_from_the_reading():
    run = Tools({"smartctl": (4, fixture("health-smartctl-7.3-ata-devstat.json"), "")})
    probe = pts_drive_health.round_probe(dict(NVME, interface="SATA", name="sdb", resolved="/dev/sdb"), run, which)
    assert run.calls == [["/usr/sbin/smartctl", "-j", "-H", "-A", "-l", "devstat", "/dev/sdb"]]
    assert probe["thresholds"] == {"warning_c": 70} and probe["reading"]["temperature_c"] == 42


def test_a_failed_read_is_reported_with_the_command_to_try_again():
    run = Tools({"id-ctrl": (1, "", "permission denied"), "smart-log": (1, "", "NVMe status: busy")})
    probe = pts_drive_health.round_probe(NVME, run, which)
    assert probe["reading"] is None and probe["thresholds"] == {}
    assert probe["error"].startswith("nvme smart-log failed (rc 1): NVMe status: busy")
    assert probe["argv"][1] == "smart-log"


def test_devices_without_health_run_nothing():
    run = Tools({})
    assert pts_drive_health.round_probe(dict(NVME, interface="loop", name="loop0"), run, which) == {
        "none": "a loop device (a file) has no SMART or NVMe health log"}
    assert pts_drive_health.round_probe({"is_block": False, "path": "/tmp/x"}, run, which) == {
        "none": "/tmp/x is not a block device"}
    assert run.calls == []
    assert json.dumps(pts_drive_health.round_probe(NVME, Tools({}), lambda name: None))  # no nvme-cli: says so
