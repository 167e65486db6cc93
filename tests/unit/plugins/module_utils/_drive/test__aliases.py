# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every device that reaches a drive's medium, and the guard's word on each (module_utils/_drive/_aliases.py)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard, _listing
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._drive._fake_host import FakeHost, related_of


@pytest.fixture
def host(tmp_path, monkeypatch):
    return FakeHost(tmp_path, monkeypatch)


def test_a_free_loop_device_has_nothingrelated(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    host.disk("loop5", "7:5", loop={"backing_file": host.image("b.img")})
    host.disk("vda", "254:0", serial="ROOT1")
    info = host.probe("loop4")
    assert info["related"] == [] and host.refusals("loop4") == []
    assert info["loop"]["backing_file"] == host.image("a.img") and info["loop"]["backing_ino"] == os.stat(host.image("a.img")).st_ino


def test_a_loop_stacked_on_the_drive_is_judged_as_a_holder_recursively(host):
    listed = host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    host.disk("loop7", "7:7", loop={"backing_file": listed, "offset": 1048576, "sizelimit": 67108864})
    host.disk("loop8", "7:8", loop={"backing_file": str(host.dev / "loop7")})
    host.mount("7:8", str(host.dev / "loop8"), "/mnt/deep")
    info = host.probe("loop4")
    assert related_of(info) == {
        "loop7": ("stacked", f"a loop device over {listed} at offset 1048576 size limit 67108864, stacked on this drive"),
        "loop8": ("stacked", f"a loop device over {host.dev}/loop7, which is a loop device over {listed} at offset "
                             "1048576 size limit 67108864, stacked on this drive"),
    }
    reasons = host.refusals("loop4")
    assert reasons[0].startswith("loop8 (a loop device over") and reasons[0].endswith(") is mounted on /mnt/deep (ext4)")
    assert any(r.startswith("loop7 (a loop device over ") and r.endswith("detach it first (losetup -d /dev/loop7)")
               for r in reasons), reasons
    assert len(reasons) == 3, reasons


def test_a_loop_over_a_partition_and_over_a_file_on_the_drive_are_stacked(host):
    host.disk("sdb", "8:16", serial="DISK1")
    part = host.part("sdb", "sdb1", "8:17")
    host.disk("loop3", "7:3", loop={"backing_file": part})
    host.mount("8:17", part, "/srv/data")
    image = host.image("vm.img", on_devnum="8:17")
    host.disk("loop9", "7:9", loop={"backing_file": image})
    related = related_of(host.probe("sdb"))
    assert related == {
        "loop3": ("stacked", f"a loop device over {part}, stacked on this drive"),
        "loop9": ("stacked", f"a loop device over {image}, a file on the filesystem of sdb1, stacked on this drive"),
    }
    reasons = host.refusals("sdb")
    assert "sdb1 is mounted on /srv/data (ext4)" in reasons
    assert any(r.startswith("loop9 (a loop device over ") and "losetup -d /dev/loop9" in r for r in reasons), reasons


def test_a_btrfs_like_mount_maps_its_anonymous_device_to_the_drive(host):
    # btrfs reports an anonymous st_dev (0:45) for its files; the mount's source names the drive.
    host.disk("sdc", "8:32", serial="DISK2")
    host.mount("0:45", "/dev/sdc", "/pool", fstype="btrfs")
    image = host.image("disk.img", on_devnum="0:45")
    host.disk("loop2", "7:2", loop={"backing_file": image})
    assert related_of(host.probe("sdc"))["loop2"][1] == f"a loop device over {image}, a file on the filesystem of sdc, stacked on this drive"


@pytest.mark.parametrize("use, reason", [
    ("mount", "loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is mounted on /mnt/a (ext4)"),
    ("open", "loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is open by process 4321 (sleep)"),
    ("swap", "loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is active swap"),
    ("holder", "loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is held by dm-3 "
               "(device-mapper, LVM, md or bcache)"),
    ("file", "the backing file {image} is open by process 4321 (qemu)"),
    ("none", None),
])
def test_two_loops_over_one_file_are_one_drive(host, use, reason):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image, "offset": 512}, holders=["dm-3"] if use == "holder" else ())
    if use == "holder":
        host.disk("dm-3", "253:3")
    if use == "mount":
        host.mount("7:5", str(host.dev / "loop5"), "/mnt/a")
    elif use == "open":
        host.opener(4321, "sleep", host.dev / "loop5")
    elif use == "swap":
        host.swap(str(host.dev / "loop5"))
    elif use == "file":
        host.opener(4321, "qemu", image)
    info = host.probe("loop4")
    assert related_of(info)["loop5"][0] == "alias"
    reasons = _guard.refusals(info, {}, allow_destroy=True, allow_signatures=True)
    if reason is None:
        assert reasons == []
    else:
        assert reason.format(image=image) in reasons, reasons


def test_a_dual_path_disk_is_found_by_serial_and_its_partition_mount_refused(host):
    host.disk("sda", "8:0", serial="ZA1", wwid="naa.5000c500aaaa0001")
    host.disk("sdb", "8:16", serial="ZA1", wwid="naa.5000c500aaaa0001")
    host.part("sdb", "sdb1", "8:17")
    host.mount("8:17", str(host.dev / "sdb1"), "/data", fstype="xfs")
    host.disk("sdc", "8:32", serial="OTHER")
    info = host.probe("sda")
    assert related_of(info) == {
        "sdb": ("alias", "another path to this drive: the same serial 'ZA1' as sda"),
        "sdb1": ("alias", "a partition of sdb, which is another path to this drive: the same serial 'ZA1' as sda"),
    }
    assert host.refusals("sda") == ["sdb1 (a partition of sdb, which is another path to this drive: the same serial 'ZA1' "
                                    "as sda) is mounted on /data (xfs)"]


@pytest.mark.parametrize("a, b, alias", [
    ({"serial": "S1"}, {"serial": "S1"}, True),
    ({"wwid": "naa.5000C500AAAA0001"}, {"wwid": "0x5000c500aaaa0001"}, True),
    ({"serial": "S1"}, {"serial": "S2"}, False),
    ({}, {}, False),  # no serial on either (loop, zram, md, dm): not the same drive
    ({"serial": "0000000000"}, {"serial": "0000000000"}, False),  # a placeholder serial is no identity
])
def test_what_makes_two_disks_one(host, a, b, alias):
    host.disk("sdx", "8:80", **a)
    host.disk("sdy", "8:96", **b)
    host.mount("8:96", str(host.dev / "sdy"), "/y")
    assert ("sdy" in related_of(host.probe("sdx"))) is alias
    assert bool(host.refusals("sdx")) is alias


def test_the_hidden_paths_of_native_nvme_multipath_are_not_aliases(host):
    # With native multipath the head (nvme0n1) is the drive; its paths (nvme0c0n1, nvme0c1n1) are hidden disks.
    host.disk("nvme0n1", "259:0", serial="NV1", nsid="1", wwid="eui.0025388b00000001")
    host.disk("nvme0c0n1", "259:1", serial="NV1", nsid="1", wwid="eui.0025388b00000001", hidden=True)
    host.disk("nvme0c1n1", "259:2", serial="NV1", nsid="1", wwid="eui.0025388b00000001", hidden=True)
    assert host.probe("nvme0n1")["related"] == []
    assert _listing.resolve({"serial": "NV1"}, str(host.sys), "/dev") == ("/dev/nvme0n1", None)


def test_nvme_namespaces_of_one_controller_are_not_aliases_two_controllers_are(host):
    # One controller serial for every namespace; a second controller of the same subsystem shows namespace 1 again.
    host.disk("nvme0n1", "259:0", serial="NV1", nsid="1")
    host.disk("nvme0n2", "259:1", serial="NV1", nsid="2")
    host.disk("nvme1n1", "259:2", serial="NV1", nsid="1")
    related = related_of(host.probe("nvme0n1"))
    assert related == {"nvme1n1": ("alias", "another path to this drive: the same serial 'NV1' and namespace 1 as nvme0n1")}


def test_a_listed_partition_has_the_same_partition_of_the_other_path_as_alias(host):
    host.disk("sda", "8:0", serial="ZA1")
    host.part("sda", "sda1", "8:1", start=2048)
    host.disk("sdb", "8:16", serial="ZA1")
    host.part("sdb", "sdb1", "8:17", start=2048)
    host.part("sdb", "sdb2", "8:18", start=67584)
    host.mount("8:18", str(host.dev / "sdb2"), "/other")
    info = host.probe("sda1")
    assert list(related_of(info)) == ["sdb1"] and host.refusals("sda1") == []
    host.opener(77, "dd", host.dev / "sdb1")
    assert host.refusals("sda1") == ["sdb1 (another path to this drive: the same serial 'ZA1' as sda; the same partition on sdb) "
                                     "is open by process 77 (dd)"]


def test_a_listed_loop_over_a_block_device_reaches_that_device(host):
    host.disk("sdd", "8:48", serial="LOWER")
    host.part("sdd", "sdd1", "8:49")
    host.mount("8:49", str(host.dev / "sdd1"), "/home")
    host.disk("loop6", "7:6", loop={"backing_file": str(host.dev / "sdd")})
    assert host.refusals("loop6") == ["sdd1 (a partition of sdd, which is another path to this drive: loop6 is a loop device "
                                      "over it) is mounted on /home (ext4)"]
