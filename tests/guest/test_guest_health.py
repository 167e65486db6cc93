# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drive health per round on real tools: QEMU's NVMe controller reports a composite temperature (50 °C) and its
thresholds (70 / 100 °C); lowering its over-temperature threshold (Set Features 04h) below that sets the critical
warning's temperature bit, so every round reads as past the warning temperature - shown in the report, marked on
the plots, and failed by an acceptance rule. A SATA disk beside it is read with smartctl. One boot (TCG), root."""

from __future__ import annotations

import glob
import json
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import guest  # noqa: E402  pylint: disable=wrong-import-position
from test_guest_drives import run_pts, sh  # noqa: E402  pylint: disable=wrong-import-position

N_HOT, S_RUN = "GNVMEHOT1", "GSATAHLT1"
QUICK = {"pts_run_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
         "pts_run_hdd_iops_mixes": [0], "pts_run_hdd_iops_block_sizes": ["4k"],
         "pts_run_round_seconds": 1, "pts_run_max_rounds": 5, "pts_run_window": 5}
# 315 K = 42 °C: below QEMU's fixed 323 K composite temperature, above nothing else.
OVER_TEMPERATURE_K = 315
RULE = {"name": "hot QEMU", "model": "QEMU NVMe Ctrl", "max_temperature_c": 45, "allow_throttling": False,
        "require_steady": False}


@pytest.fixture(scope="module")
def vm():
    with guest.running_guest(nvme=[f"serial={N_HOT},size=128M"], sata=[f"serial={S_RUN},size=128M"]) as desc:
        yield desc


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def rounds(drive_dir: str, test: str) -> list[dict]:
    return [load(p) for p in sorted(glob.glob(os.path.join(drive_dir, test, "round-[0-9][0-9].json")))]


def test_a_hot_nvme_drive_is_marked_per_round_and_failed_by_its_rule(vm, tmp_path):
    # Right after boot udev may not have made the by-id links yet.
    link = f"/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_{N_HOT}"
    node = os.path.basename(sh(vm, f"udevadm settle --timeout=120; readlink -e {link}").strip())
    ctrl = "/dev/" + node[:node.index("n", 4)]
    assert json.loads(sh(vm, f"nvme smart-log {ctrl} -o json"))["critical_warning"] & 2 == 0
    # Temperature Threshold (FID 04h), composite sensor, over-temperature: 42 °C. Controller-wide: NSID 0, or
    # broadcast where the controller refuses 0.
    sh(vm, f"nvme set-feature {ctrl} --namespace-id=0 -f 4 -v {OVER_TEMPERATURE_K} || "
           f"nvme set-feature {ctrl} --namespace-id=0xffffffff -f 4 -v {OVER_TEMPERATURE_K}")
    try:
        log = json.loads(sh(vm, f"nvme smart-log {ctrl} -o json"))
        assert log["critical_warning"] & 2 and log["temperature"] == 323
        devices = [{"serial": N_HOT, "name": "nvme"},
                   {"path": f"/dev/disk/by-id/ata-QEMU_HARDDISK_{S_RUN}", "name": "sata", "serial": S_RUN,
                    "mode": "hdd"}]
        proc, host_dir = run_pts(vm, tmp_path, {"pts_devices": devices, "pts_acceptance": [RULE]}, QUICK, "health")
    finally:
        sh(vm, f"nvme set-feature {ctrl} --namespace-id=0 -f 4 -v 343 || "
               f"nvme set-feature {ctrl} --namespace-id=0xffffffff -f 4 -v 343")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]

    nvme_dir = os.path.join(host_dir, "nvme")
    records = rounds(nvme_dir, "iops")
    assert 1 <= len(records) <= 5
    health = [r["fio"]["health"] for r in records]
    for entry in health:
        assert entry["tool"] == "nvme smart-log" and entry["device"] == ctrl
        assert entry["thresholds"] == {"warning_c": 70, "critical_c": 100}
        for reading in (entry["before"], entry["after"]):
            assert reading["temperature_c"] == 50 and reading["critical_warning"] & 2
            assert reading["thermal_transitions"] == [0, 0] and reading["media_errors"] == 0
    # The drive counted what the round wrote.
    assert health[-1]["after"]["bytes_written"] > health[0]["before"]["bytes_written"]
    costs = [e["cost_s"] for e in health]
    print(f"health per round on QEMU NVMe over SSH: cost_s {costs} (round 1 includes the probe module run)")
    assert max(costs[1:] or [0]) < 10

    result = load(os.path.join(nvme_dir, "result.json"))
    marked = result["round_health"]["marked"]
    assert [(m["round"], m["kinds"]) for m in marked] == [(n, ["warning"]) for n in range(1, len(records) + 1)]
    assert result["verdict"]["verdict"] == "FAIL"
    assert "highest drive temperature 50 °C (iops round 1) misses ≤ 45 °C (max_temperature_c)" in \
        result["verdict"]["reasons"]
    assert any(c["criterion"] == "allow_throttling" and c["passed"] for c in result["verdict"]["checks"])
    report = open(os.path.join(nvme_dir, "report.md"), encoding="utf-8").read()
    every = {1: "round 1", 2: "rounds 1, 2"}.get(len(records), f"rounds 1–{len(records)}")
    assert f"- **At or past its warning temperature** in iops {every}." in report
    assert "critical warning bit 1 set (a temperature threshold passed)" in report
    for plot in ("iops-temperature.png", "iops-convergence.png"):
        with open(os.path.join(nvme_dir, "plots", plot), "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"

    # The SATA disk (HDD mode on QEMU's AHCI disk) is read with smartctl; it has no throttling counters.
    sata_dir = os.path.join(host_dir, "sata")
    sata = [r["fio"]["health"] for r in rounds(sata_dir, "hdd_iops")]
    assert sata and all(e["tool"] == "smartctl" and e["before"] and e["after"] for e in sata)
    assert all("thermal_transitions" not in e["after"] for e in sata)
    print(f"SATA readings: {sata[0]['before']}; cost_s {[e['cost_s'] for e in sata]}")
    sata_report = open(os.path.join(sata_dir, "report.md"), encoding="utf-8").read()
    assert "The drive reports no thermal-management counters" in sata_report
    assert re.search(r"Per round \(smartctl, read just before and just after each of \d rounds", sata_report)
