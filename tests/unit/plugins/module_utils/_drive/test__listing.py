# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Listed drives: resolved by serial or WWN, description files, results keys, labels (module_utils/_drive/_listing.py)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _listing


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
    assert _listing.drive_key(spec, info) == key


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
    assert _listing.resolve({"serial": "NVME0001"}, str(tmp_path), "/dev") == ("/dev/nvme0n1", None)
    assert _listing.resolve({"wwn": "0x5000C500AAAA0001"}, str(tmp_path), "/dev") == ("/dev/sda", None)
    assert _listing.resolve({"path": "/dev/disk/by-id/x", "serial": "NVME0001"}, str(tmp_path)) == \
        ("/dev/disk/by-id/x", None)
    path, error = _listing.resolve({"serial": "MISSING"}, str(tmp_path))
    assert path is None and error == "no disk on this host reports serial 'MISSING'"
    assert _listing.resolve({"name": "x"}, str(tmp_path))[1].startswith("the entry has no path, serial or wwn")


def test_resolve_refuses_to_pick_between_two_disks_with_one_serial(tmp_path):
    _disk(tmp_path, "sdb", serial="DUP1")
    _disk(tmp_path, "sdc", serial="DUP1")
    path, error = _listing.resolve({"serial": "DUP1"}, str(tmp_path))
    assert path is None and "2 disks report serial 'DUP1' (/dev/sdb, /dev/sdc)" in error


def test_description_file_fills_but_never_overrides(tmp_path):
    path = tmp_path / "drive.dsc"
    path.write_text("# lab notes\nvendor: Acme\nmodel: Loop 9000\nserial: A1\nnotes: bay 3, rack 12\n")
    fields, error = _listing.read_description(str(path))
    assert error is None and fields == {"vendor": "Acme", "model": "Loop 9000", "serial": "A1", "notes": "bay 3, rack 12"}
    info = {"vendor": "Linux", "model": "loop device", "placeholders": ["vendor", "model"], "serial": None}
    _listing.apply_description(info, fields, str(path))
    assert (info["vendor"], info["model"], info["serial"]) == ("Acme", "Loop 9000", "A1")
    assert sorted(info["described"]) == ["model", "notes", "serial", "vendor"]
    real = {"vendor": "ATA", "model": "X", "serial": "REAL1"}
    _listing.apply_description(real, fields, str(path))
    assert real["serial"] == "REAL1" and real["vendor"] == "ATA"
    assert real["description_error"] == f"description file {path} says serial 'A1', the device reports 'REAL1'"


KEYS = "vendor, model, serial, wwn, firmware, interface, notes"


@pytest.mark.parametrize("content, why, secret", [
    ("model: X\ncapacity 4TB\n", "line 2 is malformed: it has no ':' between a key and its value", "4TB"),
    ("# notes\n\nroot:$6$secret-hash:19000:0:99999:7:::\n", f"line 3 is malformed: its key is not one of {KEYS}",
     "secret-hash"),
    ("model: X\nnotes: \x1b[31mred\n", "line 2 is malformed: it contains a control character", "[31m"),
    ("model: X\r\nserial: S\u0085\n", "line 2 is malformed: it contains a control character", "S"),
])
def test_description_file_errors_name_the_line_never_its_text(tmp_path, content, why, secret):
    path = tmp_path / "drive.dsc"
    path.write_text(content, encoding="utf-8")
    fields, error = _listing.read_description(str(path))
    assert fields == {} and error == f"description file {path} {why}"
    assert secret not in error.replace(str(path), "").replace(KEYS, "")


def test_description_file_that_is_not_a_small_text_file(tmp_path):
    binary = tmp_path / "binary.dsc"
    binary.write_bytes(b"model: X\nserial: \xff\xfe secret\n")
    assert _listing.read_description(str(binary)) == ({}, f"description file {binary} line 2 is malformed: it is not UTF-8 text")
    big = tmp_path / "big.dsc"
    big.write_text("notes: x\n" * 10000)
    assert "is larger than 64 KiB" in _listing.read_description(str(big))[1]
    assert _listing.read_description(str(tmp_path))[1] == f"description file {tmp_path} is not a regular file"
    missing = _listing.read_description(str(tmp_path / "missing.dsc"))[1]
    assert missing == f"description file {tmp_path / 'missing.dsc'} cannot be read (No such file or directory)"
    fields, error = _listing.read_description(str(_write(tmp_path / "tabs.dsc", "serial:\tS1\r\nmodel:  M 1 \n")))
    assert error is None and fields == {"serial": "S1", "model": "M 1"}


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("index, spec, label", [
    (0, {"path": "/dev/sdb", "name": "x"}, "/dev/sdb"),
    (2, {"name": "x"}, "pts_devices[2] (name 'x')"),
    (1, {"serial": "S1", "name": "bay 3"}, "pts_devices[1] (name 'bay 3', serial 'S1')"),
    (4, {}, "pts_devices[4]"),
    (0, {"path": "/dev/a\nb"}, "/dev/a\\nb"),
])
def test_entries_are_named_the_way_the_user_wrote_them(index, spec, label):
    assert _listing.entry_label(index, spec) == label
