# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The report's test setup section (_setup_section): the test system's, motherboard's and DRAM's cells, each saying
why a value is missing; an md array's layout, members and teardown, and a hardware RAID as the operator describes it."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _setup_section


@pytest.mark.parametrize("host, cell", [
    ({"system_vendor": "Supermicro", "system_model": "SYS-1029U", "dmi": True}, "Supermicro SYS-1029U"),
    ({"system_vendor": None, "system_model": None, "dmi": True}, "not reported (the host's DMI names none)"),
    ({"system_vendor": None, "system_model": None, "dmi": False}, "not reported (the host has no DMI tables)"),
    ({}, "not recorded (results from a version that did not read DMI)"),
])
def test_the_test_system_cell_says_why_a_make_and_model_is_missing(host, cell):
    assert _setup_section._system_cell(host) == cell


@pytest.mark.parametrize("host, board, memory", [
    pytest.param({"dmi": True, "board_vendor": "Supermicro", "board_name": "X12DPi-NT6",
                  "memory_modules": {"type": "DDR4", "modules": 8, "size_bytes": 256 << 30, "speed_mts": 3200,
                                     "configured_mts": 2933}},
                 "Supermicro X12DPi-NT6", "24.0 GiB; DDR4, 8 modules at 2,933 MT/s (the firmware's SMBIOS table)",
                 id="dmi-and-smbios"),
    pytest.param({"dmi": True, "board_vendor": None, "board_name": None, "memory_modules": None},
                 "not reported (the host's DMI names none)",
                 "24.0 GiB; DRAM type not reported (no SMBIOS memory device readable on the host)", id="not-told"),
    pytest.param({"dmi": False, "board_vendor": None, "board_name": None, "memory_modules": None},
                 "not reported (the host has no DMI tables)",
                 "24.0 GiB; DRAM type not reported (no SMBIOS memory device readable on the host)", id="no-dmi"),
    pytest.param({"dmi": True}, "not recorded (results from a version that did not read it)",
                 "24.0 GiB; DRAM type not recorded (results from a version that did not read it)", id="older-results"),
])
def test_the_platforms_motherboard_and_dram_type(host, board, memory):
    assert _setup_section._board_cell(host) == board
    assert _setup_section._memory_cell(host, 24 << 30) == memory


def test_the_report_records_an_md_layout_and_a_hardware_raid_description():
    md = {"drive": {}, "raid": {
        "array": {"path": "/dev/md/fq0", "resolved": "/dev/md127", "level": "raid0", "raid_devices": 2, "chunk_kib": 64,
                  "metadata": "1.2", "bitmap": "none", "assume_clean": True},
        "member_drives": [{"key": "a", "resolved": "/dev/nvme0n1", "vendor": "ACME", "model": "X1", "serial": "S1",
                           "firmware": "F1"}],
        "teardown": {"failed": False, "stopped": ["/dev/md/fq0"], "zeroed": ["/dev/nvme0n1"], "skipped": [],
                     "recorded_at": "t"}}}
    rows = dict(_setup_section._raid_rows(md))
    assert rows["RAID layout"].startswith("Linux md `/dev/md/fq0` (/dev/md127): raid0, 2 members, chunk 64 KiB")
    assert rows["RAID member 1"] == "a: `/dev/nvme0n1` ACME X1, serial S1, firmware F1"
    assert rows["RAID teardown"] == "stopped /dev/md/fq0; superblocks zeroed on /dev/nvme0n1 (t)"
    hardware = {"drive": {"spec": {"raid_controller": "Broadcom 9560-16i, RAID10 of 8 × PM1743, 256k stripe"}}}
    assert _setup_section._raid_rows(hardware) == [["Hardware RAID (as the operator describes it)",
                                                   "Broadcom 9560-16i, RAID10 of 8 × PM1743, 256k stripe"]]
