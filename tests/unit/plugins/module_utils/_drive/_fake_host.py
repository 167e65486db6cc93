# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fake host for the drive probe's unit tests (the guard's, the aliases', the loop devices', the bus's)."""

from __future__ import annotations

import json
import os
import stat
from types import SimpleNamespace

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard, _guard_record, _hold, _loop, _probe, _sysfs


# A fake host for the searches that span every block device: sysfs (block/, dev/block/), procfs (mountinfo,
# swaps, fd links) and device nodes. Device nodes are plain files that _sysfs.node_stat reports as block devices.
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
        monkeypatch.setattr(_sysfs, "node_stat", self._stat)
        monkeypatch.setattr(_hold, "_stat", self._stat)
        monkeypatch.setattr(_loop, "_kernel_status", self.kernel.get)

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
        return _probe.probe(str(self.dev / name), str(self.sys), str(self.proc), check_exclusive=False,
                            dev_root=str(self.dev), lock_dir=str(self.locks))

    def refusals(self, name, **kwargs):
        return _guard.refusals(self.probe(name), {}, allow_destroy=True, **kwargs)

    def guarded(self, name, devnum, run_id="r1", pid=70, token="", key="d1", signatures=(), allow_signatures=False):
        """What pts_guard leaves when it passes and holds drive ``name`` for a run: the holder, the host's guard record
        (module_utils/_drive/_guard_record.py) and the verdict the controller gets (passed, key, hold)."""
        hold = dict(self.holder(pid, name, devnum, run_id, token=token), token=token)
        node = str(self.dev / name)
        verdict = dict(_guard.guard_record(self.probe(name)), path=node, resolved=node, key=key, passed=True,
                       signatures=[dict(s) for s in signatures])
        _guard_record.write(_guard_record.make(verdict, hold, run_id, token, allow_signatures, "now"), str(self.locks))
        return dict(verdict, hold=hold)

    def recheck(self, name, expect, **kwargs):
        """recheck() of node ``name`` for the run and drive ``expect`` (a guarded() verdict) names."""
        return _guard.recheck(str(self.dev / name), expect, str(self.sys), str(self.proc), str(self.dev),
                              str(self.locks), **kwargs)


def related_of(info):
    """What probe() found related to the drive: name -> (relation, how)."""
    return {r["name"]: (r["relation"], r["how"]) for r in info["related"]}
