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


@pytest.mark.parametrize(
    "change, expected, allow_signatures, reason",
    [
        ({"signatures": [{"device": "sdb", "offset": "0x438", "type": "ext4"}]}, {}, False,
         "it carries signatures (ext4 on sdb at 0x438)"),
        ({"signatures": None}, {}, True, "its signatures could not be read"),
        ({"mounts": [{"device": "dm-0", "mountpoint": "/", "fstype": "ext4"}], "stacked": ["dm-0"]}, {}, False,
         "dm-0 (stacked on this drive) is mounted on / (ext4): this is the system disk"),
        ({"serial": "D1", "described": ["serial"]}, {"serial": "S1"}, False,
         "serial mismatch: expected 'S1', the device reports 'D1' (from its description file)"),
        ({"resolve_error": "no disk on this host reports serial 'X'"}, {}, False, "no disk on this host reports"),
    ],
)
def test_refusals_for_signatures_stacks_and_descriptions(change, expected, allow_signatures, reason):
    reasons = _devices.refusals(dict(FREE, **change), expected, allow_destroy=True, allow_signatures=allow_signatures)
    assert any(reason in r for r in reasons), reasons


def test_signatures_pass_only_when_allowed():
    info = dict(FREE, signatures=[{"device": "sdb", "offset": "0x200", "type": "gpt"}])
    assert _devices.refusals(info, {}, allow_destroy=True, allow_signatures=True) == []
    assert _devices.refusals(dict(FREE, signatures=[]), {}, allow_destroy=True) == []


@pytest.mark.parametrize("want, have, same", [
    ("0x5000C500A1B2C3D4", "naa.5000c500a1b2c3d4", True),
    ("eui.0025388b91b2c3d4", "eui.0025388B91B2C3D4", True),
    ("naa.5000c500a1b2c3d4", "naa.5000c500a1b2c3d5", False),
])
def test_wwns_compare_by_their_digits(want, have, same):
    assert (_devices.refusals(dict(FREE, wwn=have), {"wwn": want}, allow_destroy=True) == []) is same


def _disk(sys_root, name, serial=None, wwid=None, dev="8:0", holders=()):
    disk = sys_root / "block" / name
    (disk / "device").mkdir(parents=True)
    (disk / "holders").mkdir()
    (disk / "dev").write_text(dev + "\n")
    if serial:
        (disk / "device" / "serial").write_text(serial + "\n")
    if wwid:
        (disk / "wwid").write_text(wwid + "\n")
    for holder in holders:
        (disk / "holders" / holder).write_text("")
    return disk


def test_resolve_finds_the_one_disk_with_the_serial_or_wwn(tmp_path):
    _disk(tmp_path, "sda", serial="SYS0001", wwid="naa.5000c500aaaa0001")
    _disk(tmp_path, "nvme0n1", serial="NVME0001", wwid="eui.0025388b00000001")
    assert _devices.resolve({"serial": "NVME0001"}, str(tmp_path), "/dev") == ("/dev/nvme0n1", None)
    assert _devices.resolve({"wwn": "0x5000C500AAAA0001"}, str(tmp_path), "/dev") == ("/dev/sda", None)
    assert _devices.resolve({"path": "/dev/disk/by-id/x", "serial": "NVME0001"}, str(tmp_path)) == \
        ("/dev/disk/by-id/x", None)
    path, error = _devices.resolve({"serial": "MISSING"}, str(tmp_path))
    assert path is None and error == "no disk on this host reports serial 'MISSING'"
    assert _devices.resolve({"name": "x"}, str(tmp_path))[1].startswith("the entry has no path, serial or wwn")


def test_resolve_refuses_to_pick_between_two_disks_with_one_serial(tmp_path):
    _disk(tmp_path, "sdb", serial="DUP1")
    _disk(tmp_path, "sdc", serial="DUP1")
    path, error = _devices.resolve({"serial": "DUP1"}, str(tmp_path))
    assert path is None and "2 disks report serial 'DUP1' (/dev/sdb, /dev/sdc)" in error


def test_holder_tree_follows_stacks(tmp_path):
    _disk(tmp_path, "sdb", dev="8:16", holders=["md0"])
    (tmp_path / "class" / "block").mkdir(parents=True)
    for name, dev, holders in (("md0", "9:0", ["dm-0"]), ("dm-0", "253:0", [])):
        node = _disk(tmp_path, name, dev=dev, holders=holders)
        (tmp_path / "class" / "block" / name).symlink_to(node)
    assert _devices.holder_tree({"sdb": ["md0"]}, str(tmp_path)) == {"9:0": "md0", "253:0": "dm-0"}


def test_description_file_fills_but_never_overrides(tmp_path):
    path = tmp_path / "drive.dsc"
    path.write_text("# lab notes\nvendor: Acme\nmodel: Loop 9000\nserial: A1\nnotes: bay 3, rack 12\n")
    fields, error = _devices.read_description(str(path))
    assert error is None and fields == {"vendor": "Acme", "model": "Loop 9000", "serial": "A1", "notes": "bay 3, rack 12"}
    info = {"vendor": "Linux", "model": "loop device", "placeholders": ["vendor", "model"], "serial": None}
    _devices.apply_description(info, fields, str(path))
    assert (info["vendor"], info["model"], info["serial"]) == ("Acme", "Loop 9000", "A1")
    assert sorted(info["described"]) == ["model", "notes", "serial", "vendor"]
    real = {"vendor": "ATA", "model": "X", "serial": "REAL1"}
    _devices.apply_description(real, fields, str(path))
    assert real["serial"] == "REAL1" and real["vendor"] == "ATA"
    assert real["description_error"] == f"description file {path} says serial 'A1', the device reports 'REAL1'"


def test_description_file_errors_name_the_line(tmp_path):
    path = tmp_path / "drive.dsc"
    path.write_text("model: X\ncapacity 4TB\n")
    fields, error = _devices.read_description(str(path))
    assert fields == {} and f"description file {path} line 2: 'capacity 4TB'" in error
    assert _devices.read_description(str(tmp_path / "missing.dsc"))[1].endswith("cannot be read")
