# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import stat
from types import SimpleNamespace

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _devices, _hold

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
    assert (info["system_vendor"], info["system_model"], info["dmi"]) == (None, None, False)


@pytest.mark.parametrize("vendor, model, expected", [
    ("Supermicro\n", "SYS-1029U-TN10RT\n", ("Supermicro", "SYS-1029U-TN10RT")),
    ("To Be Filled By O.E.M.\n", "Default string\n", (None, None)),
    ("QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n", ("QEMU", "Standard PC (Q35 + ICH9, 2009)")),
])
def test_host_info_reads_the_test_systems_make_and_model_from_dmi(tmp_path, vendor, model, expected):
    dmi = tmp_path / "dmi"
    dmi.mkdir()
    (dmi / "sys_vendor").write_text(vendor)
    (dmi / "product_name").write_text(model)
    info = _devices.host_info(str(tmp_path), str(tmp_path), str(dmi))
    assert (info["system_vendor"], info["system_model"], info["dmi"]) == (*expected, True)


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
    fields, error = _devices.read_description(str(path))
    assert fields == {} and error == f"description file {path} {why}"
    assert secret not in error.replace(str(path), "").replace(KEYS, "")


def test_description_file_that_is_not_a_small_text_file(tmp_path):
    binary = tmp_path / "binary.dsc"
    binary.write_bytes(b"model: X\nserial: \xff\xfe secret\n")
    assert _devices.read_description(str(binary)) == ({}, f"description file {binary} line 2 is malformed: it is not UTF-8 text")
    big = tmp_path / "big.dsc"
    big.write_text("notes: x\n" * 10000)
    assert "is larger than 64 KiB" in _devices.read_description(str(big))[1]
    assert _devices.read_description(str(tmp_path))[1] == f"description file {tmp_path} is not a regular file"
    missing = _devices.read_description(str(tmp_path / "missing.dsc"))[1]
    assert missing == f"description file {tmp_path / 'missing.dsc'} cannot be read (No such file or directory)"
    fields, error = _devices.read_description(str(_write(tmp_path / "tabs.dsc", "serial:\tS1\r\nmodel:  M 1 \n")))
    assert error is None and fields == {"serial": "S1", "model": "M 1"}


def _write(path, text):
    path.write_text(text)
    return path


# A fake host for the searches that span every block device: sysfs (block/, dev/block/), procfs (mountinfo,
# swaps, fd links) and device nodes. Device nodes are plain files that _devices._stat reports as block devices.
class FakeHost:
    def __init__(self, tmp_path, monkeypatch):
        self.root = tmp_path
        self.sys, self.proc, self.dev = tmp_path / "sys", tmp_path / "proc", tmp_path / "dev"
        self.locks = tmp_path / "run"
        for folder in (self.sys / "block", self.sys / "class" / "block", self.sys / "dev" / "block", self.proc / "self",
                       self.dev, self.locks):
            folder.mkdir(parents=True)
        self.mountinfo, self.swaps = [], []
        self.nodes: dict[str, SimpleNamespace] = {}
        self.kernel: dict[str, dict] = {}  # node -> what LOOP_GET_STATUS64 would answer
        self._write_proc()
        monkeypatch.setattr(_devices, "_stat", self._stat)
        monkeypatch.setattr(_hold, "_stat", self._stat)
        monkeypatch.setattr(_devices, "_loop_status", self.kernel.get)

    def _stat(self, path):
        real = os.path.realpath(path)
        if real in self.nodes:
            return self.nodes[real]
        return os.stat(path)

    def _write_proc(self):
        (self.proc / "self" / "mountinfo").write_text("".join(self.mountinfo))
        (self.proc / "swaps").write_text("Filename\tType\tSize\tUsed\tPriority\n" + "".join(self.swaps))

    def _node(self, name, devnum):
        node = self.dev / name
        node.write_text("")
        major, minor = (int(n) for n in devnum.split(":"))
        self.nodes[str(node)] = SimpleNamespace(st_mode=stat.S_IFBLK | 0o660, st_rdev=os.makedev(major, minor),
                                                st_dev=os.makedev(0, 5), st_ino=abs(hash(name)) % 100000)
        self.nodes[f"/dev/{name}"] = self.nodes[str(node)]  # as a mount's source names it
        (self.sys / "dev" / "block" / devnum).symlink_to(self._sysdir(name))
        (self.sys / "class" / "block" / name).symlink_to(self._sysdir(name))
        return str(node)

    def _sysdir(self, name):
        for disk in (self.sys / "block").iterdir():
            if disk.name == name:
                return disk
            if (disk / name).is_dir():
                return disk / name
        raise KeyError(name)

    def disk(self, name, devnum, serial=None, wwid=None, nsid=None, holders=(), hidden=False, loop=None):
        disk = self.sys / "block" / name
        for folder in ("holders", "queue", "device"):
            (disk / folder).mkdir(parents=True)
        (disk / "dev").write_text(devnum + "\n")
        (disk / "size").write_text("131072\n")
        (disk / "ro").write_text("0\n")
        if serial:
            (disk / "device" / "serial").write_text(serial + "\n")
        if wwid:
            (disk / "wwid").write_text(wwid + "\n")
        if nsid:
            (disk / "nsid").write_text(nsid + "\n")
        if hidden:
            (disk / "hidden").write_text("1\n")
        for holder in holders:
            (disk / "holders" / holder).mkdir()
        if loop:
            (disk / "loop").mkdir()
            (disk / "loop" / "backing_file").write_text(loop["backing_file"] + "\n")
            for field in ("offset", "sizelimit", "autoclear"):
                (disk / "loop" / field).write_text(f"{loop.get(field, 0)}\n")
        return self._node(name, devnum)

    def part(self, disk, name, devnum, start=2048, size=65536, holders=()):
        part = self.sys / "block" / disk / name
        (part / "holders").mkdir(parents=True)
        (part / "partition").write_text("1\n")
        (part / "dev").write_text(devnum + "\n")
        (part / "start").write_text(f"{start}\n")
        (part / "size").write_text(f"{size}\n")
        for holder in holders:
            (part / "holders" / holder).mkdir()
        return self._node(name, devnum)

    def image(self, name, on_devnum=None):
        """A backing file: a real file, or one that stats as living on the filesystem of device on_devnum."""
        path = self.root / "files" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text("")
        if on_devnum:
            major, minor = (int(n) for n in on_devnum.split(":"))
            self.nodes[str(path)] = SimpleNamespace(st_mode=stat.S_IFREG | 0o600, st_rdev=0,
                                                    st_dev=os.makedev(major, minor), st_ino=4242)
        return str(path)

    def mount(self, devnum, source, mountpoint, fstype="ext4"):
        self.mountinfo.append(f"{len(self.mountinfo) + 50} 1 {devnum} / {mountpoint} rw shared:1 - {fstype} {source} rw\n")
        self._write_proc()

    def swap(self, node):
        self.swaps.append(f"{node}\tpartition\t65532\t0\t-2\n")
        self._write_proc()

    def opener(self, pid, command, target):
        (self.proc / str(pid) / "fd").mkdir(parents=True)
        (self.proc / str(pid) / "comm").write_text(command + "\n")
        (self.proc / str(pid) / "fd" / "0").symlink_to(target)

    def holder(self, pid, name, devnum, run_id, start_time=500, lock_pid=None, token=""):
        """A drive holder process of ``run_id`` (and run ``token``) with ``name`` open, and its lock file (naming
        ``lock_pid`` if given)."""
        lock = _hold.lock_path(devnum, str(self.locks))
        if not (self.proc / str(pid)).exists():
            self.opener(pid, "python3", self.dev / name)
        args = ["/usr/bin/python3", "-I", "-S", "-c", _hold.BOOTSTRAP, _hold.MARKER, f"/dev/{name}", devnum, run_id, lock,
                "1.0", token]
        (self.proc / str(pid) / "cmdline").write_bytes("\0".join(args).encode() + b"\0")
        self.state(pid, "S", start_time)
        record = {"format": _hold.LOCK_FORMAT, "run_id": run_id, "token": token, "pid": lock_pid or pid,
                  "start_time": start_time, "device": f"/dev/{name}", "devnum": devnum}
        with open(lock, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(record))
        return {"pid": pid, "run_id": run_id, "devnum": devnum, "start_time": start_time, "lock": lock}

    def state(self, pid, letter, start_time=500):
        (self.proc / str(pid) / "stat").write_text(f"{pid} (python3) {letter} " + "0 " * 18 + f"{start_time} 0\n")

    def probe(self, name):
        return _devices.probe(str(self.dev / name), str(self.sys), str(self.proc), check_exclusive=False,
                              dev_root=str(self.dev), lock_dir=str(self.locks))

    def refusals(self, name, **kwargs):
        return _devices.refusals(self.probe(name), {}, allow_destroy=True, **kwargs)

    def recheck(self, name, expect, passed=True):
        """recheck() with ``expect`` as the guard's record (pts_guard marks each record it passes)."""
        record = dict(expect, passed=True) if passed else expect
        return _devices.recheck(str(self.dev / name), record, str(self.sys), str(self.proc), str(self.dev),
                                str(self.locks))


@pytest.fixture
def host(tmp_path, monkeypatch):
    return FakeHost(tmp_path, monkeypatch)


def _related(info):
    return {r["name"]: (r["relation"], r["how"]) for r in info["related"]}


def test_a_free_loop_device_has_nothing_related(host):
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
    assert _related(info) == {
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
    related = _related(host.probe("sdb"))
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
    assert _related(host.probe("sdc"))["loop2"][1] == f"a loop device over {image}, a file on the filesystem of sdc, stacked on this drive"


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
    assert _related(info)["loop5"][0] == "alias"
    reasons = _devices.refusals(info, {}, allow_destroy=True, allow_signatures=True)
    if reason is None:
        assert reasons == []
    else:
        assert reason.format(image=image) in reasons, reasons


def test_a_signature_on_an_alias_is_named(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    info = dict(host.probe("loop4"), signatures=[{"device": "loop5", "offset": "0x438", "type": "ext4"}])
    reasons = _devices.refusals(info, {}, allow_destroy=True)
    assert reasons == [f"it carries signatures (ext4 on loop5 (another path to this drive: a loop device over the same file as "
                       f"loop4 ({image})) at 0x438): it may hold data; wipe it yourself or set pts_allow_signatures: true"]
    assert _devices.refusals(info, {}, allow_destroy=True, allow_signatures=True) == []


def test_a_dual_path_disk_is_found_by_serial_and_its_partition_mount_refused(host):
    host.disk("sda", "8:0", serial="ZA1", wwid="naa.5000c500aaaa0001")
    host.disk("sdb", "8:16", serial="ZA1", wwid="naa.5000c500aaaa0001")
    host.part("sdb", "sdb1", "8:17")
    host.mount("8:17", str(host.dev / "sdb1"), "/data", fstype="xfs")
    host.disk("sdc", "8:32", serial="OTHER")
    info = host.probe("sda")
    assert _related(info) == {
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
    assert ("sdy" in _related(host.probe("sdx"))) is alias
    assert bool(host.refusals("sdx")) is alias


def test_the_hidden_paths_of_native_nvme_multipath_are_not_aliases(host):
    # With native multipath the head (nvme0n1) is the drive; its paths (nvme0c0n1, nvme0c1n1) are hidden disks.
    host.disk("nvme0n1", "259:0", serial="NV1", nsid="1", wwid="eui.0025388b00000001")
    host.disk("nvme0c0n1", "259:1", serial="NV1", nsid="1", wwid="eui.0025388b00000001", hidden=True)
    host.disk("nvme0c1n1", "259:2", serial="NV1", nsid="1", wwid="eui.0025388b00000001", hidden=True)
    assert host.probe("nvme0n1")["related"] == []
    assert _devices.resolve({"serial": "NV1"}, str(host.sys), "/dev") == ("/dev/nvme0n1", None)


def test_nvme_namespaces_of_one_controller_are_not_aliases_two_controllers_are(host):
    # One controller serial for every namespace; a second controller of the same subsystem shows namespace 1 again.
    host.disk("nvme0n1", "259:0", serial="NV1", nsid="1")
    host.disk("nvme0n2", "259:1", serial="NV1", nsid="2")
    host.disk("nvme1n1", "259:2", serial="NV1", nsid="1")
    related = _related(host.probe("nvme0n1"))
    assert related == {"nvme1n1": ("alias", "another path to this drive: the same serial 'NV1' and namespace 1 as nvme0n1")}


def test_a_listed_partition_has_the_same_partition_of_the_other_path_as_alias(host):
    host.disk("sda", "8:0", serial="ZA1")
    host.part("sda", "sda1", "8:1", start=2048)
    host.disk("sdb", "8:16", serial="ZA1")
    host.part("sdb", "sdb1", "8:17", start=2048)
    host.part("sdb", "sdb2", "8:18", start=67584)
    host.mount("8:18", str(host.dev / "sdb2"), "/other")
    info = host.probe("sda1")
    assert list(_related(info)) == ["sdb1"] and host.refusals("sda1") == []
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


def test_a_loop_over_a_deleted_file_is_identified_by_the_kernels_answer(host):
    host.disk("loop4", "7:4", loop={"backing_file": "/gone/a.img (deleted)"})
    host.disk("loop5", "7:5", loop={"backing_file": "/gone/a.img (deleted)"})
    host.disk("loop6", "7:6", loop={"backing_file": "/other/b.img (deleted)", "autoclear": 1})
    answer = {"backing_dev": "254:0", "backing_ino": 77, "backing_rdev": None, "offset": 0, "sizelimit": 0}
    host.kernel.update({str(host.dev / "loop4"): answer, str(host.dev / "loop6"): answer})
    info = host.probe("loop4")
    assert info["loop"]["backing_ino"] == 77
    # loop5: same path as sysfs shows it; loop6: autoclear, so never opened (its close would detach it) -> unknown.
    assert _related(info) == {"loop5": ("alias", "another path to this drive: a loop device over the same file as loop4 "
                                                 "(/gone/a.img (deleted))")}


def test_recheck_refuses_a_loop_device_attached_to_another_file(host):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    record = _devices.guard_record(host.probe("loop4"))
    assert record["loop"] == {"backing_file": image, "backing_dev": _devnum_of(image), "backing_ino": os.stat(image).st_ino,
                              "backing_rdev": None, "offset": 0, "sizelimit": 0}
    assert host.recheck("loop4", record) == []
    other = host.image("b.img")
    (host.sys / "block" / "loop4" / "loop" / "backing_file").write_text(other + "\n")
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1 and reasons[0].startswith(f"{host.dev}/loop4 is now a loop device over {other} (device ")
    assert f"; the guard passed a loop device over {image} (device " in reasons[0]


@pytest.mark.parametrize("change", ["inode", "offset", "sizelimit", "not a loop"])
def test_recheck_compares_the_whole_loop_identity(host, change):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    record = _devices.guard_record(host.probe("loop4"))
    loop_dir = host.sys / "block" / "loop4" / "loop"
    if change == "inode":  # the same path, a new file (deleted and made again)
        os.remove(image)
        host.image("spacer.img")
        host.image("a.img")
        assert os.stat(image).st_ino != record["loop"]["backing_ino"]
    elif change in ("offset", "sizelimit"):
        (loop_dir / change).write_text("4096\n")
    else:
        for entry in loop_dir.iterdir():
            entry.unlink()
        loop_dir.rmdir()
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1, reasons
    assert "no longer a loop device" in reasons[0] if change == "not a loop" else "it is not the device the guard passed" in reasons[0]


def test_recheck_finds_what_was_stacked_or_mounted_after_the_guard(host):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    record = _devices.guard_record(host.probe("loop4"))
    assert host.recheck("loop4", record) == []
    host.mount("7:5", str(host.dev / "loop5"), "/late")
    host.disk("loop9", "7:9", loop={"backing_file": str(host.dev / "loop4")})
    reasons = host.recheck("loop4", record)
    assert any(r.startswith("loop5 (another path to this drive") and r.endswith("is mounted on /late (ext4)") for r in reasons)
    assert any(r.startswith("loop9 (a loop device over ") for r in reasons), reasons


def test_recheck_of_an_old_record_without_loop_still_compares_the_devnum(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    assert host.recheck("loop4", {"devnum": "7:4"}) == []
    assert host.recheck("loop4", {"devnum": "7:5"}) == [f"{host.dev}/loop4 is now device 7:4, the guard passed 7:5"]


def test_listed_aliases_and_stacks_are_duplicates(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    infos = [host.probe("loop4"), host.probe("loop5")]
    reasons = _devices.duplicate_refusals(infos, ["a", "b"], ["/dev/loop4", "/dev/loop5"])
    assert reasons == [
        [f"/dev/loop5 is listed too, and it is loop5 (another path to this drive: a loop device over the same file as loop4 "
         f"({image})): list each drive once"],
        [f"/dev/loop4 is listed too, and it is loop4 (another path to this drive: a loop device over the same file as loop5 "
         f"({image})): list each drive once"],
    ]


@pytest.mark.parametrize("info, expected, reason", [
    ({"path": "/dev/x\n[evil]\nexec_prerun=sh"}, {},
     "the pts_devices[].path '/dev/x\\n[evil]\\nexec_prerun=sh' contains a control character"),
    ({"resolved": "/dev/loop\x1b[2J"}, {}, "the device node it resolves to '/dev/loop\\x1b[2J' contains a control character"),
    ({}, {"backing_file": "/srv/a\r.img"}, "the pts_devices[].backing_file '/srv/a\\r.img' contains"),
    ({"loop": {"backing_file": "/srv/b\udcff.img"}}, {}, "the loop device's backing file '/srv/b\\udcff.img' contains"),
])
def test_control_characters_are_refused_before_anything_else(info, expected, reason):
    reasons = _devices.refusals(dict(FREE, **info), expected, allow_destroy=True)
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons
    assert "\n" not in reasons[0] and "\x1b" not in reasons[0]


@pytest.mark.parametrize("index, spec, label", [
    (0, {"path": "/dev/sdb", "name": "x"}, "/dev/sdb"),
    (2, {"name": "x"}, "pts_devices[2] (name 'x')"),
    (1, {"serial": "S1", "name": "bay 3"}, "pts_devices[1] (name 'bay 3', serial 'S1')"),
    (4, {}, "pts_devices[4]"),
    (0, {"path": "/dev/a\nb"}, "/dev/a\\nb"),
])
def test_entries_are_named_the_way_the_user_wrote_them(index, spec, label):
    assert _devices.entry_label(index, spec) == label


def test_a_loop_device_status_from_the_kernel_is_decoded():
    raw = _devices._LOOP_INFO64.pack(os.makedev(254, 0), 123, os.makedev(8, 16), 1048576, 67108864, 0, 0, 0, 0,
                                     b"", b"", b"", 0, 0)
    assert _devices._LOOP_INFO64.size == 232  # sizeof(struct loop_info64)
    fields = _devices._LOOP_INFO64.unpack(raw)[:5]
    assert fields == (os.makedev(254, 0), 123, os.makedev(8, 16), 1048576, 67108864)


def _devnum_of(path):
    number = os.stat(path).st_dev
    return f"{os.major(number)}:{os.minor(number)}"


def test_recheck_with_the_runs_hold_counts_its_holder_and_nothing_else_out(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    hold = host.holder(70, "loop4", "7:4", "r1")
    record = dict(_devices.guard_record(host.probe("loop4")), hold=hold)
    assert host.recheck("loop4", record) == []
    # Without the hold in the record, the holder is what it is to anyone else: another run's claim on the drive.
    reasons = host.recheck("loop4", {k: v for k, v in record.items() if k != "hold"})
    assert reasons == [f"loop4 is held for run r1 by its drive holder, process 70 (lock file {hold['lock']}): that run "
                       "has the drive until its tests end; if run r1 is gone, resume it with the same run id "
                       "(pts_run_id=r1) to finish and release the drive, or release it as root on this host with "
                       "`kill 70`"]
    host.opener(71, "fio", host.dev / "loop4")
    assert host.recheck("loop4", record) == ["loop4 is open by process 71 (fio)"]


@pytest.mark.parametrize("change, why", [
    (lambda h: h.state(70, "Z"), "process 70 is not running"),
    (lambda h: h.state(70, "S", start_time=900), "process 70 is another process than the holder"),
    (lambda h: os.unlink(h.locks / "hold-7-4.json"), "its lock file"),
    (lambda h: h.holder(70, "loop4", "7:4", "r1", lock_pid=99), "names process 99 of run r1"),
    (lambda h: (h.proc / "70" / "fd" / "0").unlink(), "process 70 no longer has device 7:4 open"),
], ids=["ended", "pid-reused", "lock-removed", "lock-replaced", "device-closed"])
def test_recheck_refuses_when_the_runs_hold_is_lost(host, change, why):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = dict(_devices.guard_record(host.probe("loop4")), hold=host.holder(70, "loop4", "7:4", "r1"))
    change(host)
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1 and reasons[0].startswith(f"{host.dev}/loop4: this run's hold on the drive is lost - ")
    assert why in reasons[0] and reasons[0].endswith("run again with the same run id (pts_run_id=r1) to guard it and "
                                                     "hold it again")


def test_the_guard_names_another_runs_holder_on_another_path_to_the_drive(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    hold = host.holder(80, "loop5", "7:5", "r2")
    info = host.probe("loop4")
    assert _devices.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) is None
    info["related"][0]["in_use"] = "the kernel refuses an exclusive open (EBUSY): another user holds it"
    reasons = _devices.refusals(info, {}, allow_destroy=True, run_id="r1")
    assert reasons == [f"loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is "
                       f"held for run r2 by its drive holder, process 80 (lock file {hold['lock']}): that run has the "
                       "drive until its tests end; if run r2 is gone, resume it with the same run id (pts_run_id=r2) "
                       "to finish and release the drive, or release it as root on this host with `kill 80`"]


def test_a_process_with_a_holders_command_line_is_named_as_a_holder_only_when_its_lock_file_proves_it(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    host.holder(80, "loop4", "7:4", "intruder")
    os.unlink(host.locks / "hold-7-4.json")
    # It has the drive open, so the drive is refused - but as what it is, not as run intruder's holder.
    assert host.refusals("loop4", run_id="r1") == [
        f"loop4 is open by process 80 (python3), which has a drive holder's command line for run intruder but is not "
        f"one (its lock file {host.locks / 'hold-7-4.json'} does not exist or cannot be read): no run holds the drive, "
        "something else has it open"]
    # Without the device open it is no opener at all: nothing to refuse.
    (host.proc / "80" / "fd" / "0").unlink()
    assert host.refusals("loop4", run_id="r1") == []


def test_a_resumed_run_takes_over_its_proved_holder_and_refuses_an_unproved_one(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    hold = host.holder(70, "loop4", "7:4", "r1")
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _devices.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) == {
        "pid": 70, "run_id": "r1", "token": "", "lock": hold["lock"]}
    assert info["openers"] == [] and info["in_use"] is None
    assert _devices.refusals(info, {}, allow_destroy=True, run_id="r1") == []

    host.holder(70, "loop4", "7:4", "r1", lock_pid=99)
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _devices.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) is None and "takeover" not in info
    # Named once, as this run's holder that cannot be proved; the exclusive-open failure it causes is not repeated.
    assert _devices.refusals(info, {}, allow_destroy=True, run_id="r1") == [
        f"loop4 is held by a drive holder of this run (r1), process 70 (lock file {hold['lock']}), which cannot be "
        f"taken over: its lock file {hold['lock']} names process 99 of run r1; release it as root on this host with "
        "`kill 70`"]


def test_a_holder_of_the_same_run_id_with_another_token_is_another_run_and_never_taken_over(host):
    # Two results trees (or controllers) chose run id r1: the holder of the other one is refused, named as such.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    hold = host.holder(70, "loop4", "7:4", "r1", token="a" * 32)
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _devices.claim_own_hold(info, "r1", str(host.locks), str(host.proc), token="b" * 32) is None
    assert "takeover" not in info
    assert _devices.refusals(info, {}, allow_destroy=True, run_id="r1", token="b" * 32) == [
        f"loop4 is held for another run of the same run id r1 (run token {'a' * 32}, not {'b' * 32}: results in "
        f"another directory or on another controller) by its drive holder, process 70 (lock file {hold['lock']}): "
        "that run has the drive until its tests end; if run r1 is gone, resume it with the same run id "
        "(pts_run_id=r1) to finish and release the drive, or release it as root on this host with `kill 70`"]
    # The run whose token it carries takes it over.
    assert _devices.claim_own_hold(info, "r1", str(host.locks), str(host.proc), token="a" * 32) == {
        "pid": 70, "run_id": "r1", "token": "a" * 32, "lock": hold["lock"]}


@pytest.mark.parametrize("record", [{}, {"devnum": "7:4"}, {"devnum": "7:4", "passed": False}, {"passed": True}])
def test_recheck_refuses_without_the_guards_record_of_the_device(host, record):
    # Every module that writes rechecks with the record; no record, no write, whatever called it.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    assert host.recheck("loop4", record, passed=False) == [
        f"{host.dev}/loop4: the guard has not passed it in this run (no guard record to check it against); nothing "
        "is written to a drive the guard did not pass"]


def test_a_holder_of_this_run_that_another_live_playbook_holds_is_refused_never_taken_over():
    """Job slices share a run id and token: a drive one of them holds (the drive listed under another host name) is
    refused for the other, with why - not taken over as a resume's own holder would be."""
    hold = {"run_id": "r1", "token": "t" * 32, "lock": "/run/fleetqual-pts/hold-7-0.json"}
    info = {"path": "/dev/loop0", "resolved": "/dev/loop0", "exists": True, "is_block": True, "devnum": "7:0",
            "openers": [{"pid": 42, "command": "python3", "device": "7:0", "hold": dict(hold)}]}
    _devices.mark_concurrent(info, "r1", token="t" * 32)
    (reason,) = [r for r in _devices.refusals(info, {}, allow_destroy=True, run_id="r1", token="t" * 32)
                 if "process 42" in r]
    assert "for another ansible-playbook of this run that is still going on" in reason and "kill" not in reason
    # Another run id is none of this: its holder is refused as that run's, as before.
    other = {"path": "/dev/loop0", "is_block": True, "devnum": "7:0",
             "openers": [{"pid": 43, "command": "python3", "device": "7:0", "hold": dict(hold, run_id="r2")}]}
    _devices.mark_concurrent(other, "r1", token="t" * 32)
    assert "concurrent" not in other["openers"][0]["hold"]
