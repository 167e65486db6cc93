# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Who uses a block device: mounts and swaps (procfs), processes that have it - or a loop device's backing file -
open, and the kernel's own answer, an exclusive read-only open ("is anything else using this device?")."""

from __future__ import annotations

import errno
import re
import os
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _sysfs


_OCTAL_RE = re.compile(r"\\([0-7]{3})")


def mountinfo(proc_root: str) -> list[dict]:
    """/proc/self/mountinfo as (devnum of the superblock, source, mount point, fstype) entries."""
    entries = []
    text = _sysfs.read_line(os.path.join(proc_root, "self", "mountinfo")) or ""
    for line in text.splitlines():
        if " - " not in line:
            continue
        pre, post = line.split(" - ", 1)
        fields, post_fields = pre.split(), post.split()
        if len(fields) < 5 or not post_fields:
            continue
        source = _OCTAL_RE.sub(lambda m: chr(int(m.group(1), 8)), post_fields[1]) if len(post_fields) > 1 else ""
        entries.append({
            "devnum": fields[2],
            "mountpoint": _OCTAL_RE.sub(lambda m: chr(int(m.group(1), 8)), fields[4]),
            "fstype": post_fields[0],
            "source": source,
            # btrfs (and others) give their files an anonymous st_dev: the source node says which device it is.
            "source_devnum": _node_devnum(source) if source.startswith("/dev/") else None,
        })
    return entries


def _node_devnum(path: str) -> str | None:
    try:
        st = _sysfs.node_stat(path)
    except OSError:
        return None
    return _sysfs.devnum_of(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None


def mounts_matching(entries: list[dict], devnums: dict[str, str], names: set[str]) -> list[dict]:
    found = []
    for entry in entries:
        source = entry["source"]
        name = devnums.get(entry["devnum"]) or devnums.get(entry.get("source_devnum") or "") or (
            os.path.basename(source) if source.startswith("/dev/") and os.path.basename(source) in names else None
        )
        if name:
            found.append({"device": name, "mountpoint": entry["mountpoint"], "fstype": entry["fstype"]})
    return found


def swaps_of(names: set[str], proc_root: str = "/proc") -> list[str]:
    text = _sysfs.read(os.path.join(proc_root, "swaps")) or ""
    found = []
    for line in text.splitlines()[1:]:
        source = line.split()[0] if line.split() else ""
        if os.path.basename(source) in names:
            found.append(source)
    return found


def openers_of(devnums: set[int], proc_root: str = "/proc", files: frozenset = frozenset(),
               ignore_pids: frozenset = frozenset()) -> list[dict]:
    """Processes holding any of the devices open (an exclusive open does not see plain opens).

    ``files`` are (st_dev, st_ino) of loop backing files: a process with the file open reaches the medium too.
    ``ignore_pids``: processes not to count (this run's own holder of the drive, once proved).
    """
    found = []
    try:
        pids = [p for p in os.listdir(proc_root) if p.isdigit() and int(p) != os.getpid() and int(p) not in ignore_pids]
    except OSError:
        return found
    for pid in pids:
        fd_dir = f"{proc_root}/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                st = _sysfs.node_stat(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if stat.S_ISBLK(st.st_mode) and st.st_rdev in devnums:
                comm = _sysfs.read(os.path.join(proc_root, pid, "comm")) or "?"
                found.append({"pid": int(pid), "command": comm, "device": _sysfs.devnum_of(st.st_rdev)})
                break
            if files and stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) in files:
                comm = _sysfs.read(os.path.join(proc_root, pid, "comm")) or "?"
                found.append({"pid": int(pid), "command": comm, "file": [st.st_dev, st.st_ino]})
                break
    return found


def exclusive_open_error(path: str) -> str | None:
    """Try the kernel's exclusive open (read-only); return why it failed, or None if it succeeded."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_EXCL)
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            return "the kernel refuses an exclusive open (EBUSY): another user holds it"
        return f"cannot open it: {exc.strerror}"
    os.close(fd)
    return None


def exclusive_errors(path: str, partitions: list[str]) -> str | None:
    # A whole-disk exclusive open succeeds while only a partition is claimed (a ZFS vdev on part1,
    # a second btrfs member), so each partition is tried too.
    for node in [path] + [os.path.join(os.path.dirname(path), part) for part in partitions]:
        error = exclusive_open_error(node)
        if error:
            return f"{os.path.basename(node)}: {error}"
    return None
