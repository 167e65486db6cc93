# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils import _devices

FREE = {
    "path": "/dev/disk/by-id/x", "resolved": "/dev/sdb", "exists": True, "is_block": True, "serial": "S1",
    "wwn": "naa.1", "backing_file": None, "read_only": False, "mounts": [], "holders": {}, "swaps": [],
    "in_use": None,
}


def test_a_free_allowed_drive_passes():
    assert _devices.refusals(FREE, {"path": "/dev/sdb", "serial": "S1"}, allow_destroy=True) == []


@pytest.mark.parametrize(
    "change, expected, allow, reason",
    [
        ({}, {}, False, "pts_allow_destroy is not true"),
        ({"exists": False, "error": "No such file or directory"}, {}, True, "/dev/sdb does not exist"),
        ({"is_block": False}, {}, True, "is not a block device"),
        ({}, {"serial": "S2"}, True, "serial mismatch: expected 'S2', the device reports 'S1'"),
        ({}, {"wwn": "naa.2"}, True, "wwn mismatch"),
        ({"backing_file": "/a.img"}, {"backing_file": "/b.img"}, True, "backing_file mismatch"),
        ({"read_only": True}, {}, True, "read-only"),
        ({"mounts": [{"device": "sdb1", "mountpoint": "/data", "fstype": "xfs"}]}, {}, True,
         "sdb1 is mounted on /data (xfs)"),
        ({"holders": {"sdb": ["dm-0"]}}, {}, True, "sdb is held by dm-0"),
        ({"swaps": ["/dev/sdb2"]}, {}, True, "/dev/sdb2 is active swap"),
        ({"in_use": "the kernel refuses an exclusive open (EBUSY): another user holds it"}, {}, True, "EBUSY"),
    ],
)
def test_each_refusal_names_its_reason(change, expected, allow, reason):
    reasons = _devices.refusals(dict(FREE, **change), expected, allow_destroy=allow)
    assert any(reason in r for r in reasons), reasons


def test_mountinfo_matches_by_devnum_and_partitions(tmp_path):
    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountinfo").write_text(
        "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "40 22 7:1 / /mnt/a rw shared:2 - ext4 /dev/loop1 rw\n"
        "41 22 259:3 / /mnt/my\\040data rw shared:3 - xfs /dev/loop2p1 rw\n"
        "42 22 0:50 / /mnt/b rw shared:4 - btrfs /dev/loop2p2 rw\n"
    )
    found = _devices.mounts_of({"7:2": "loop2", "259:3": "loop2p1"}, {"loop2", "loop2p1", "loop2p2"}, str(tmp_path))
    assert found == [
        {"device": "loop2p1", "mountpoint": "/mnt/my data", "fstype": "xfs"},
        {"device": "loop2p2", "mountpoint": "/mnt/b", "fstype": "btrfs"},
    ]


def test_swaps(tmp_path):
    (tmp_path / "swaps").write_text(
        "Filename\tType\tSize\tUsed\tPriority\n/dev/loop3\tpartition\t65532\t0\t-2\n/swapfile\tfile\t1\t0\t-3\n")
    assert _devices.swaps_of({"loop3"}, str(tmp_path)) == ["/dev/loop3"]
    assert _devices.swaps_of({"loop4"}, str(tmp_path)) == []


@pytest.mark.parametrize(
    "spec, info, key",
    [
        ({"name": "rack12 bay 3"}, {"serial": "S1"}, "rack12_bay_3"),
        ({}, {"serial": "S1/X"}, "S1_X"),
        ({}, {"wwn": "eui.0025"}, "eui.0025"),
        ({}, {"name": "loop0"}, "loop0"),
    ],
)
def test_drive_key(spec, info, key):
    assert _devices.drive_key(spec, info) == key


def test_host_info_reads_proc_and_os_release(tmp_path):
    proc = tmp_path / "proc"
    etc = tmp_path / "etc"
    proc.mkdir()
    etc.mkdir()
    (proc / "cpuinfo").write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n")
    (proc / "meminfo").write_text("MemTotal:       24576000 kB\n")
    (etc / "os-release").write_text('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n')
    info = _devices.host_info(str(proc), str(etc))
    assert info["cpu_model"] == "Test CPU 9000"
    assert info["memory_bytes"] == 24576000 * 1024
    assert info["os"] == "Debian GNU/Linux 12 (bookworm)"


def test_vpd_page_80_serial(tmp_path):
    serial = b"  WD-WCC4E1234567"
    (tmp_path / "vpd_pg80").write_bytes(bytes([0, 0x80, 0, len(serial)]) + serial)
    assert _devices._vpd_serial(str(tmp_path)) == "WD-WCC4E1234567"
    (tmp_path / "vpd_pg80").write_bytes(bytes([0, 0x83, 0, 2]) + b"xx")
    assert _devices._vpd_serial(str(tmp_path)) is None


def test_duplicates_are_refused():
    infos = [{"path": "/dev/a", "devnum": "8:0"}, {"path": "/dev/disk/by-id/x", "devnum": "8:0"},
             {"path": "/dev/c", "devnum": "8:32"}]
    reasons = _devices.duplicate_refusals(infos, ["k1", "k2", "k1"])
    assert reasons[0] == ["/dev/disk/by-id/x resolves to the same device",
                          "results key 'k1' is also used by /dev/c: give each drive a unique name"]
    assert reasons[1] == ["/dev/a resolves to the same device"]
    assert reasons[2] == ["results key 'k1' is also used by /dev/a: give each drive a unique name"]


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
    assert _devices.controller_of(str(disk)) == {"pci": "0000:00:04.0", "ids": "1b36:0010", "driver": "nvme"}
    loop = tmp_path / "block" / "loop0"
    loop.mkdir()
    assert _devices.controller_of(str(loop)) == {}
