# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What sysfs says about a disk (module_utils/_drive/_sysfs.py)."""

from __future__ import annotations


from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _sysfs


def test_vpd_page_80_serial(tmp_path):
    serial = b"  WD-WCC4E1234567"
    (tmp_path / "vpd_pg80").write_bytes(bytes([0, 0x80, 0, len(serial)]) + serial)
    assert _sysfs._vpd_serial(str(tmp_path)) == "WD-WCC4E1234567"
    (tmp_path / "vpd_pg80").write_bytes(bytes([0, 0x83, 0, 2]) + b"xx")
    assert _sysfs._vpd_serial(str(tmp_path)) is None


def test_controller_is_the_pci_function_above_the_disk(tmp_path):
    pci = tmp_path / "devices" / "pci0000:00" / "0000:00:04.0"
    (pci / "nvme" / "nvme0").mkdir(parents=True)
    (pci / "vendor").write_text("0x1b36\n")
    (pci / "device").write_text("0x0010\n")
    driver = tmp_path / "bus" / "pci" / "drivers" / "nvme"
    driver.mkdir(parents=True)
    (pci / "driver").symlink_to(driver)
    disk = tmp_path / "block" / "nvme0n1"
    disk.mkdir(parents=True)
    (disk / "device").symlink_to(pci / "nvme" / "nvme0")
    assert _sysfs.controller_of(str(disk)) == {"pci": "0000:00:04.0", "ids": "1b36:0010", "driver": "nvme"}
    loop = tmp_path / "block" / "loop0"
    loop.mkdir()
    assert _sysfs.controller_of(str(loop)) == {}
