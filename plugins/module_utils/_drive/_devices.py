# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Read-only drive probing from sysfs and procfs, and the safety verdict built on it.

Every function takes the sysfs/procfs roots as arguments so unit tests can point them at a fake tree.
Nothing here writes to a device: the opens are an exclusive read-only open used as the kernel's own
answer to "is anything else using this device?", and a read-only LOOP_GET_STATUS64 of a loop device.

A drive's *medium* is reached by more than its own node: its partitions, what the kernel shows as its
holders (device-mapper, md, bcache), loop devices over it or over files on its filesystems (the loop
driver records no holder and takes no claim), and other paths to the same disk (dual-path SAS/NVMe
without multipath: one serial, two nodes; two loop devices over one file). probe() finds them all
("related" devices) and refusals() judges each like the drive itself.

A run holds each drive it passed with a detached holder process (see _hold): another run's holder on the drive or on
anything related to it is a refusal naming that run, and recheck() with the run's own hold in its record proves the
holder and leaves it out of the drive's users.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
import struct

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _bus, _hold

_KEY_RE = re.compile(r"[^A-Za-z0-9._-]+")
_PCI_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# C0 and C1 control characters, DEL, and the surrogates Python uses for bytes that are not UTF-8.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_OCTAL_RE = re.compile(r"\\([0-7]{3})")

# One listed drive (an entry of the inventory's pts_devices), as modules take it.
DEVICE_SPEC = dict(
    path=dict(type="str"),
    name=dict(type="str"),
    serial=dict(type="str"),
    wwn=dict(type="str"),
    backing_file=dict(type="str"),
    description_file=dict(type="str"),
    mode=dict(type="str", choices=["auto", "ssd", "hdd"]),
    raid_controller=dict(type="str"),
)
# What a description file (TKperf's -dsc) may fill when the host cannot read it from the device.
DESCRIPTION_FIELDS = ("vendor", "model", "serial", "wwn", "firmware", "interface", "notes")
# A description is a few lines; anything larger is not one (and /dev/zero must not be read forever).
DESCRIPTION_MAX_BYTES = 64 * 1024
# Mount points that make a disk the system disk, named as such in the refusal.
SYSTEM_MOUNTS = ("/", "/boot", "/boot/efi", "/usr", "/var")
# The loop identity the guard records and every re-check compares (see loop_identity()).
LOOP_FIELDS = ("backing_file", "backing_dev", "backing_ino", "backing_rdev", "offset", "sizelimit")

# linux/loop.h: LOOP_GET_STATUS64 fills struct loop_info64 (lo_device, lo_inode, lo_rdevice, lo_offset,
# lo_sizelimit, then fields not used here).
_LOOP_GET_STATUS64 = 0x4C05
_LOOP_INFO64 = struct.Struct("=QQQQQIIII64s64s32sQQ")


def _stat(path: str) -> os.stat_result:
    """os.stat, in one place so unit tests can give fake nodes a block device's mode and number."""
    return os.stat(path)


def show(text: object) -> str:
    """``text`` for a message: control characters written as escapes, so a newline cannot start a new line."""
    return _CONTROL_RE.sub(lambda match: repr(match.group())[1:-1], str(text))


def has_control(text: str | None) -> bool:
    return bool(text) and bool(_CONTROL_RE.search(text))


def _read_bytes(path: str) -> bytes | None:
    # os-level reads: a re-check reads a few files of every block device, and open() costs several times more.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    chunks = []
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _read(path: str) -> str | None:
    data = _read_bytes(path)
    return None if data is None else data.decode("utf-8", "replace").strip()


def _read_line(path: str) -> str | None:
    """One sysfs line without its newline, other whitespace kept (a file name may end in a space)."""
    data = _read_bytes(path)
    if data is None:
        return None
    text = data.decode("utf-8", "surrogateescape")
    return text[:-1] if text.endswith("\n") else text


def _read_int(path: str) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _devnum(number: int) -> str:
    return f"{os.major(number)}:{os.minor(number)}"


def _partitions(sysdir: str) -> list[str]:
    # A partition's directory sits inside its disk's and carries the disk's name as a prefix (sda1, nvme0n1p1).
    name = os.path.basename(sysdir)
    try:
        entries = sorted(os.listdir(sysdir))
    except OSError:
        return []
    return [e for e in entries if e.startswith(name) and os.path.exists(os.path.join(sysdir, e, "partition"))]


def _holders(sysdir: str) -> list[str]:
    try:
        return sorted(os.listdir(os.path.join(sysdir, "holders")))
    except OSError:
        return []


def holder_tree(holders: dict[str, list[str]], sys_root: str = "/sys") -> dict[str, str]:
    """Every device stacked on the drive (dm, LVM, md, bcache, and what sits on those): devnum -> name."""
    found: dict[str, str] = {}
    todo = [h for names in holders.values() for h in names]
    while todo:
        name = todo.pop()
        sysdir = os.path.join(sys_root, "class", "block", name)
        dev = _read(os.path.join(sysdir, "dev"))
        if not dev or dev in found:
            continue
        found[dev] = name
        todo.extend(_holders(sysdir))
    return found


def _mountinfo(proc_root: str) -> list[dict]:
    """/proc/self/mountinfo as (devnum of the superblock, source, mount point, fstype) entries."""
    entries = []
    text = _read_line(os.path.join(proc_root, "self", "mountinfo")) or ""
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
        st = _stat(path)
    except OSError:
        return None
    return _devnum(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None


def _mounts_matching(entries: list[dict], devnums: dict[str, str], names: set[str]) -> list[dict]:
    found = []
    for entry in entries:
        source = entry["source"]
        name = devnums.get(entry["devnum"]) or devnums.get(entry.get("source_devnum") or "") or (
            os.path.basename(source) if source.startswith("/dev/") and os.path.basename(source) in names else None
        )
        if name:
            found.append({"device": name, "mountpoint": entry["mountpoint"], "fstype": entry["fstype"]})
    return found


def mounts_of(devnums: dict[str, str], names: set[str], proc_root: str = "/proc") -> list[dict]:
    """Mounts whose source is one of the devices (by major:minor, or by /dev/<name> source)."""
    return _mounts_matching(_mountinfo(proc_root), devnums, names)


def swaps_of(names: set[str], proc_root: str = "/proc") -> list[str]:
    text = _read(os.path.join(proc_root, "swaps")) or ""
    found = []
    for line in text.splitlines()[1:]:
        source = line.split()[0] if line.split() else ""
        if os.path.basename(source) in names:
            found.append(source)
    return found


def _vpd_serial(device_dir: str) -> str | None:
    """Unit serial number from SCSI VPD page 0x80 (SATA and SAS disks have no sysfs serial file)."""
    try:
        with open(os.path.join(device_dir, "vpd_pg80"), "rb") as handle:
            page = handle.read()
    except OSError:
        return None
    if len(page) < 4 or page[1] != 0x80:
        return None
    length = int.from_bytes(page[2:4], "big")
    return page[4:4 + length].decode("ascii", "replace").strip() or None


def _serial_wwn(disk_dir: str) -> tuple[str | None, str | None]:
    device = os.path.join(disk_dir, "device")
    serial = (_read(os.path.join(device, "serial")) or _read(os.path.join(disk_dir, "serial"))
              or _vpd_serial(device))
    wwn = _read(os.path.join(disk_dir, "wwid")) or _read(os.path.join(device, "wwid"))
    return serial or None, wwn or None


def _hidden(sysdir: str) -> bool:
    # Native NVMe multipath shows each path (nvme0c1n1) as a hidden disk under the visible head (nvme0n1).
    return _read(os.path.join(sysdir, "hidden")) == "1"


def resolve(spec: dict, sys_root: str = "/sys", dev_root: str = "/dev") -> tuple[str | None, str | None]:
    """The device node of a listed drive: its path, else the one disk whose serial or WWN matches.

    Returns (path, None) or (None, why not). Two disks answering to one serial is an error, not a pick.
    """
    if spec.get("path"):
        return spec["path"], None
    serial, wwn = spec.get("serial"), spec.get("wwn")
    if not serial and not wwn:
        return None, "the entry has no path, serial or wwn: list the drive by one of them"
    try:
        names = sorted(os.listdir(os.path.join(sys_root, "block")))
    except OSError as exc:
        return None, f"cannot list the host's disks: {exc.strerror}"
    found = []
    for name in names:
        disk_dir = os.path.join(sys_root, "block", name)
        if _hidden(disk_dir):
            continue
        have_serial, have_wwn = _serial_wwn(disk_dir)
        if (serial and _same("serial", serial, have_serial)) or (wwn and _same("wwn", wwn, have_wwn)):
            found.append(os.path.join(dev_root, name))
    wanted = " and ".join(f"{k} '{show(v)}'" for k, v in (("serial", serial), ("wwn", wwn)) if v)
    if not found:
        return None, f"no disk on this host reports {wanted}"
    if len(found) > 1:
        return None, f"{len(found)} disks report {wanted} ({', '.join(found)}): list the drive by path"
    return found[0], None


def read_description(path: str) -> tuple[dict, str | None]:
    """A device description file (TKperf's -dsc): ``key: value`` lines, ``#`` comments. Returns (fields, error).

    An error names the line and what is wrong with it, never the line itself: a mistyped path can point
    at any file of the host, and its content must not reach the console or the results.
    """
    where = f"description file {show(path)}"
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return {}, f"{where} is not a regular file"
        if st.st_size > DESCRIPTION_MAX_BYTES:
            return {}, f"{where} is larger than {DESCRIPTION_MAX_BYTES // 1024} KiB: a description is a few key: value lines"
        with open(path, "rb") as handle:
            raw = handle.read(DESCRIPTION_MAX_BYTES + 1)
    except OSError as exc:
        return {}, f"{where} cannot be read ({exc.strerror})"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = raw[:exc.start].count(b"\n") + 1
        return {}, f"{where} line {number} is malformed: it is not UTF-8 text"
    fields = {}
    for number, line in enumerate(text.split("\n"), 1):
        line = (line[:-1] if line.endswith("\r") else line).replace("\t", " ").strip(" ")  # strip() would drop \x85
        if not line or line.startswith("#"):
            continue
        if has_control(line):
            return {}, f"{where} line {number} is malformed: it contains a control character"
        key, sep, value = line.partition(":")
        if not sep:
            return {}, f"{where} line {number} is malformed: it has no ':' between a key and its value"
        if key.strip(" ").lower() not in DESCRIPTION_FIELDS:
            return {}, f"{where} line {number} is malformed: its key is not one of {', '.join(DESCRIPTION_FIELDS)}"
        fields[key.strip(" ").lower()] = value.strip(" ")
    return fields, None


def apply_description(info: dict, fields: dict, path: str) -> None:
    """Fill what the device does not report from its description; a contradiction is an error, never an override."""
    info["described"] = []
    for key, value in fields.items():
        have = info.get(key)
        if have in (None, "") or key == "notes" or key in info.get("placeholders", []):
            info[key] = value
            info["described"].append(key)
        elif key in ("serial", "wwn") and not _same(key, value, have):
            info["description_error"] = (f"description file {show(path)} says {key} '{show(value)}', "
                                         f"the device reports '{show(have)}'")


def controller_of(disk_dir: str) -> dict:
    """The PCI function the disk hangs off (the HBA, NVMe controller or virtio device), as sysfs shows it."""
    path = os.path.realpath(os.path.join(disk_dir, "device"))
    while path not in ("/", "") and not _PCI_RE.match(os.path.basename(path)):
        path = os.path.dirname(path)
    if not _PCI_RE.match(os.path.basename(path)):
        return {}
    ids = [(_read(os.path.join(path, name)) or "").replace("0x", "") for name in ("vendor", "device")]
    driver = os.path.realpath(os.path.join(path, "driver"))
    return {
        "pci": os.path.basename(path),
        "ids": ":".join(ids) if all(ids) else None,
        "driver": os.path.basename(driver) if os.path.exists(driver) else None,
    }


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
                st = _stat(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if stat.S_ISBLK(st.st_mode) and st.st_rdev in devnums:
                comm = _read(os.path.join(proc_root, pid, "comm")) or "?"
                found.append({"pid": int(pid), "command": comm, "device": _devnum(st.st_rdev)})
                break
            if files and stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) in files:
                comm = _read(os.path.join(proc_root, pid, "comm")) or "?"
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


def _loop_status(node: str) -> dict | None:
    """LOOP_GET_STATUS64 of a loop device node: its backing file's device and inode as the kernel holds them."""
    try:
        fd = os.open(node, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, _LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
    except OSError:
        return None
    finally:
        os.close(fd)
    device, inode, rdevice, offset, sizelimit = _LOOP_INFO64.unpack(raw)[:5]
    return {"backing_dev": _devnum(device), "backing_ino": inode, "backing_rdev": _devnum(rdevice) if rdevice else None,
            "offset": offset, "sizelimit": sizelimit}


def _loop_range(identity: dict, loop_dir: str) -> dict:
    if identity["offset"] is None:
        identity["offset"] = _read_int(os.path.join(loop_dir, "offset")) or 0
        identity["sizelimit"] = _read_int(os.path.join(loop_dir, "sizelimit")) or 0
    return identity


def loop_identity(disk_dir: str, node: str | None = None, ask_kernel: bool = False, ranges: bool = True) -> dict | None:
    """What a loop device is over: backing file path, its st_dev and inode (st_rdev when it is a block device),
    offset and size limit (None unless ``ranges``: the search for aliases needs only the file). None for a device
    that is not a bound loop device.

    The path comes from sysfs and is stat'ed. The kernel's own answer (an ioctl on ``node``) is used when
    ``ask_kernel`` (the listed drive, which the guard opens anyway) or when the path cannot be stat'ed (its
    file was deleted, or lives in another mount namespace). Never for an autoclear loop device: closing the
    last open of one detaches it.
    """
    loop_dir = os.path.join(disk_dir, "loop")
    path = _read_line(os.path.join(loop_dir, "backing_file"))
    if path is None:
        return None
    identity = {"backing_file": path, "backing_dev": None, "backing_ino": None, "backing_rdev": None,
                "offset": None, "sizelimit": None}
    if ranges:
        _loop_range(identity, loop_dir)
    try:
        st = _stat(path)
    except OSError:
        st = None
    if st is not None:
        identity.update(backing_dev=_devnum(st.st_dev), backing_ino=st.st_ino,
                        backing_rdev=_devnum(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None)
    if node and (ask_kernel or st is None) and _read(os.path.join(loop_dir, "autoclear")) == "0":
        kernel = _loop_status(node)
        if kernel:
            identity.update(kernel)
    return identity


def _block_devices(sys_root: str) -> dict[str, dict]:
    """Every block device of the host, disks and partitions: name -> name, sysdir, parent disk, devnum."""
    devices: dict[str, dict] = {}
    block = f"{sys_root}/block"
    try:
        disks = sorted(os.listdir(block))
    except OSError:
        return devices
    for disk in disks:
        sysdir = f"{block}/{disk}"
        devices[disk] = {"name": disk, "sysdir": sysdir, "parent": None, "devnum": _read(f"{sysdir}/dev")}
    # A partition is in class/block but not in block/; its link ends in .../<disk>/<partition>. One readlink
    # each instead of listing every disk's directory.
    class_block = f"{sys_root}/class/block"
    try:
        partitions = sorted(set(os.listdir(class_block)) - set(disks))
    except OSError:
        partitions = []
    for part in partitions:
        try:
            disk = os.path.basename(os.path.dirname(os.readlink(f"{class_block}/{part}")))
        except OSError:
            continue
        if disk in devices:
            sysdir = f"{block}/{disk}/{part}"
            devices[part] = {"name": part, "sysdir": sysdir, "parent": disk, "devnum": _read(f"{sysdir}/dev")}
    return devices


def _loop_of(device: dict, dev_root: str) -> dict | None:
    if "loop" not in device:
        device["loop"] = None if device["parent"] else loop_identity(device["sysdir"], os.path.join(dev_root, device["name"]),
                                                                     ranges=False)
    return device["loop"]


def _blank_serial(serial: str) -> bool:
    # Some cheap drives all report "000...0": equal serials would make every such drive an alias of the others.
    return not serial.strip("0 ")


def _identity_keys(device: dict, dev_root: str) -> set[tuple]:
    """What makes two block devices one medium: a serial (per namespace for NVMe), a WWN, a loop's backing file."""
    if "keys" in device:
        return device["keys"]
    keys: set[tuple] = set()
    loop = _loop_of(device, dev_root)
    if loop:
        keys.add(("path", loop["backing_file"]))
        if loop["backing_rdev"]:
            keys.add(("block", loop["backing_rdev"]))
        elif loop["backing_dev"] and loop["backing_ino"] is not None:
            keys.add(("file", loop["backing_dev"], str(loop["backing_ino"])))
    elif not device["parent"] and not device["name"].startswith("loop") and not (
            device["name"].startswith("nvme") and _hidden(device["sysdir"])):
        serial, wwn = _serial_wwn(device["sysdir"])
        if wwn:
            keys.add(("wwn", normalize_wwn(wwn)))
        if serial and not _blank_serial(serial):
            if device["name"].startswith("nvme"):
                # An NVMe serial is the controller's (the subsystem's): namespaces of one controller share it.
                nsid = _read(os.path.join(device["sysdir"], "nsid"))
                if nsid:
                    keys.add(("serial", serial.strip(), nsid))
            else:
                keys.add(("serial", serial.strip()))
    device["keys"] = keys
    return keys


def _key_words(key: tuple) -> str:
    if key[0] == "serial":
        return f"the same serial '{show(key[1])}'" + (f" and namespace {key[2]}" if len(key) > 2 else "")
    if key[0] == "wwn":
        return f"the same WWN '{show(key[1])}'"
    return "the same backing file"


def _alias_disks(base: str, devices: dict[str, dict], dev_root: str) -> list[tuple[str, str]]:
    """Other disks with the same medium as ``base``, recursively, with how each was found."""
    by_devnum = {d["devnum"]: name for name, d in devices.items() if d["devnum"]}
    disks = [name for name, d in devices.items() if not d["parent"]]
    found: list[tuple[str, str]] = []
    seen, todo = {base}, [base]
    while todo:
        current = todo.pop(0)
        keys = _identity_keys(devices[current], dev_root)
        for other in disks:
            if other in seen:
                continue
            common = keys & _identity_keys(devices[other], dev_root)
            if not common:
                continue
            seen.add(other)
            todo.append(other)
            loop = devices[other].get("loop")
            if loop:
                kind = "block device" if loop["backing_rdev"] else "file"
                how = f"a loop device over the same {kind} as {current} ({show(loop['backing_file'])})"
            else:
                how = f"{_key_words(sorted(common)[0])} as {current}"
            found.append((other, f"another path to this drive: {how}"))
        loop = _loop_of(devices[current], dev_root)
        lower = by_devnum.get(loop["backing_rdev"]) if loop and loop["backing_rdev"] else None
        if lower and lower not in seen:
            seen.add(lower)
            found.append((lower, f"another path to this drive: {current} is a loop device over it"))
            if not devices[lower]["parent"]:
                todo.append(lower)
    return found


def _range_words(loop: dict) -> str:
    words = [f"at offset {loop['offset']}" if loop["offset"] else "", f"size limit {loop['sizelimit']}" if loop["sizelimit"] else ""]
    return "".join(f" {w}" for w in words if w)


def related_devices(name: str, devices: dict[str, dict], mountinfo: list[dict], dev_root: str = "/dev") -> list[dict]:
    """Every other block device that reaches the medium of the drive ``name`` (a disk or a partition).

    relation "alias": another path to the same medium (same serial or WWN, the same loop backing file, the
    device a listed loop is over) and its partitions; "stacked": a holder (dm, md, bcache), a loop device over
    the drive, an alias or a file on one of their filesystems, and anything on those, recursively.
    """
    listed = devices.get(name)
    if not listed:
        return []
    own = {name} | {n for n, d in devices.items() if d["parent"] == name}
    found: dict[str, dict] = {}

    def add(other: str, relation: str, kind: str, how: str, on: str | None) -> None:
        if other in own or other in found or other not in devices:
            return
        found[other] = {"name": other, "devnum": devices[other]["devnum"], "relation": relation, "kind": kind,
                        "how": how, "on": on}

    base = listed["parent"] or name
    aliases = _alias_disks(base, devices, dev_root)
    if listed["parent"]:
        # A listed partition: the partition at the same place on each other path to its disk.
        place = [_read(os.path.join(listed["sysdir"], f)) for f in ("start", "size")]
        for disk, how in aliases:
            for part, device in devices.items():
                if device["parent"] == disk and [_read(os.path.join(device["sysdir"], f)) for f in ("start", "size")] == place:
                    add(part, "alias", "partition", f"{how}; the same partition on {disk}", disk)
    else:
        for disk, how in aliases:
            add(disk, "alias", "partition" if devices[disk]["parent"] else "disk", how, None)

    loops = [n for n, d in devices.items() if not d["parent"] and _loop_of(d, dev_root)]
    queue = sorted(own) + list(found)
    while queue:
        current = queue.pop(0)
        mine = found.get(current)
        if mine is None or (mine["kind"] == "holder" and mine["how"] == "stacked on this drive"):
            tail, holder_how = ", stacked on this drive", "stacked on this drive"
        else:
            tail = f", which is {mine['how']}"
            holder_how = f"holding {current}{tail}"
        before = set(found)
        relation = "alias" if mine and mine["relation"] == "alias" else "stacked"
        for part, device in devices.items():
            if device["parent"] == current:
                add(part, relation, "partition", f"a partition of {current}{tail}", current)
        for holder in _holders(devices[current]["sysdir"]):
            add(holder, "stacked", "holder", holder_how, current)
        number = devices[current]["devnum"]
        filesystems = {e["devnum"] for e in mountinfo if number and number in (e["devnum"], e["source_devnum"])}
        for loop_name in loops:
            loop = devices[loop_name]["loop"]
            if number and loop["backing_rdev"] == number:
                _loop_range(loop, os.path.join(devices[loop_name]["sysdir"], "loop"))
                add(loop_name, "stacked", "loop",
                    f"a loop device over {show(loop['backing_file'])}{_range_words(loop)}{tail}", current)
            elif loop["backing_dev"] in filesystems and not loop["backing_rdev"]:
                add(loop_name, "stacked", "loop",
                    f"a loop device over {show(loop['backing_file'])}, a file on the filesystem of {current}{tail}", current)
        queue.extend(n for n in found if n not in before)
    return list(found.values())


def probe(path: str, sys_root: str = "/sys", proc_root: str = "/proc", check_exclusive: bool = True,
          dev_root: str = "/dev", ignore_pids: frozenset = frozenset(), held: bool = False,
          lock_dir: str = _hold.LOCK_DIR) -> dict:
    """Identity and usage of the block device at ``path`` (a /dev node, by-id link or symlink), and of every
    device related to its medium (see related_devices()).

    ``held``: this run's holder has the drive open exclusively (proved by the caller, its PID in ``ignore_pids``), so
    the drive's own exclusive-open probe is skipped - it would fail on our own claim, and that claim already proves
    nobody else has one on the drive or its partitions. Other paths to the medium are still probed.
    """
    info: dict = {"path": path, "resolved": os.path.realpath(path), "exists": False, "is_block": False}
    try:
        st = _stat(info["resolved"])
    except OSError as exc:
        info["error"] = exc.strerror
        return info
    info["exists"] = True
    if not stat.S_ISBLK(st.st_mode):
        return info
    info["is_block"] = True
    devnum = _devnum(st.st_rdev)
    sysdir = os.path.realpath(os.path.join(sys_root, "dev", "block", devnum))
    name = os.path.basename(sysdir)
    is_partition = os.path.exists(os.path.join(sysdir, "partition"))
    disk_dir = os.path.dirname(sysdir) if is_partition else sysdir
    queue = os.path.join(disk_dir, "queue")
    device = os.path.join(disk_dir, "device")
    sectors = _read_int(os.path.join(sysdir, "size")) or 0

    partitions = _partitions(sysdir) if not is_partition else []
    holders = {name: _holders(sysdir)}
    holders.update({part: _holders(os.path.join(sysdir, part)) for part in partitions})

    devices = _block_devices(sys_root)
    loop = loop_identity(disk_dir, None if is_partition else info["resolved"], ask_kernel=not is_partition)
    if name in devices and not is_partition:
        devices[name]["loop"] = loop  # the kernel's answer for the listed drive, for the alias search too
    mountinfo = _mountinfo(proc_root)
    related = related_devices(name, devices, mountinfo, dev_root)
    all_devnums = {devnum: name}
    for part in partitions:
        dev = _read(os.path.join(sysdir, part, "dev"))
        if dev:
            all_devnums[dev] = part
    all_devnums.update({r["devnum"]: r["name"] for r in related if r["devnum"]})
    names = {name, *partitions, *(r["name"] for r in related)}
    files: dict[tuple[int, int], str] = {}
    for other in [loop] + [devices[r["name"]].get("loop") for r in related if r["relation"] == "alias"]:
        if other and other["backing_dev"] and other["backing_ino"] is not None and not other["backing_rdev"]:
            major, minor = other["backing_dev"].split(":")
            files.setdefault((os.makedev(int(major), int(minor)), int(other["backing_ino"])), other["backing_file"])
    if check_exclusive:
        aliases = {r["name"] for r in related if r["relation"] == "alias"}
        for entry in related:
            # Each alias once, with its partitions; closing the last open of an autoclear loop device detaches it.
            if entry["relation"] != "alias" or entry["on"] in aliases or (
                    devices[entry["name"]].get("loop") and _read(os.path.join(devices[entry["name"]]["sysdir"], "loop", "autoclear")) != "0"):
                continue
            parts = [p for p, d in devices.items() if d["parent"] == entry["name"]]
            entry["in_use"] = _exclusive_errors(os.path.join(dev_root, entry["name"]), parts)

    serial, wwn = _serial_wwn(disk_dir)
    backing = loop["backing_file"] if loop else None
    bus = _bus.probe_bus(disk_dir, sys_root)
    write_cache = _read(os.path.join(queue, "write_cache"))
    discard_max = _read_int(os.path.join(queue, "discard_max_bytes")) or 0
    info.update(
        name=name,
        devnum=devnum,
        kind="partition" if is_partition else "disk",
        interface=bus["interface"],
        # Which source decided the interface: sysfs transport (as lsblk TRAN), udev ID_BUS or the kernel name.
        bus={k: bus[k] for k in ("source", "transport", "udev_bus")},
        vendor=_read(os.path.join(device, "vendor")) or ("Linux" if backing else None),
        model=_read(os.path.join(device, "model")) or ("loop device" if backing else None),
        placeholders=["vendor", "model"] if backing and not _read(os.path.join(device, "model")) else [],
        serial=serial or None,
        wwn=wwn or None,
        firmware=_read(os.path.join(device, "firmware_rev")) or _read(os.path.join(device, "rev")),
        size_bytes=sectors * 512,
        logical_block_size=_read_int(os.path.join(queue, "logical_block_size")) or 512,
        physical_block_size=_read_int(os.path.join(queue, "physical_block_size")) or 512,
        rotational=_read(os.path.join(queue, "rotational")) == "1",
        write_cache=write_cache,
        discard=discard_max > 0,
        purge_methods=["discard"] if discard_max > 0 else [],
        backing_file=backing,
        loop=loop,
        controller=controller_of(disk_dir),
        direct_io=_read(os.path.join(disk_dir, "loop", "dio")) == "1" if backing else None,
        read_only=_read(os.path.join(sysdir, "ro")) == "1",
        partitions=partitions,
        holders={k: v for k, v in holders.items() if v},
        related=related,
        mounts=_mounts_matching(mountinfo, all_devnums, names),
        swaps=swaps_of(names, proc_root),
        stacked=sorted(r["name"] for r in related if r["relation"] == "stacked"),
        in_use=_exclusive_errors(info["resolved"], partitions) if check_exclusive and not held else None,
        openers=openers_of({st.st_rdev} | _rdevs(all_devnums), proc_root, frozenset(files), frozenset(ignore_pids)),
    )
    for opener in info["openers"]:
        if "file" in opener:
            opener["file"] = files.get(tuple(opener["file"]), "?")
        hold = _hold.holder_args(opener["pid"], proc_root)
        if hold:
            # Anyone can start a process with a holder's command line: it is named as its run's holder only when its
            # lock file proves it; otherwise it is a process that has the drive open, as any other.
            problem = _hold.proof_problem(hold, lock_dir, proc_root)
            if problem:
                hold["unproved"] = problem
            opener["hold"] = hold
    return info


def probe_listed(spec: dict, sys_root: str = "/sys", proc_root: str = "/proc", dev_root: str = "/dev",
                 check_exclusive: bool = True) -> dict:
    """probe() for an inventory entry: resolve it by path, serial or WWN, then apply its description file."""
    path, error = resolve(spec, sys_root, dev_root)
    if error:
        return {"path": None, "resolved": None, "exists": False, "is_block": False, "resolve_error": error}
    info = probe(path, sys_root, proc_root, check_exclusive, dev_root)
    if spec.get("description_file") and info.get("is_block"):
        fields, error = read_description(spec["description_file"])
        if error:
            info["description_error"] = error
        else:
            apply_description(info, fields, spec["description_file"])
    return info


def _rdevs(devnums: dict[str, str]) -> set[int]:
    rdevs = set()
    for dev in devnums:
        major, sep, minor = dev.partition(":")
        if sep and major.isdigit() and minor.isdigit():
            rdevs.add(os.makedev(int(major), int(minor)))
    return rdevs


def _exclusive_errors(path: str, partitions: list[str]) -> str | None:
    # A whole-disk exclusive open succeeds while only a partition is claimed (a ZFS vdev on part1,
    # a second btrfs member), so each partition is tried too.
    for node in [path] + [os.path.join(os.path.dirname(path), part) for part in partitions]:
        error = exclusive_open_error(node)
        if error:
            return f"{os.path.basename(node)}: {error}"
    return None


def normalize_wwn(value: str | None) -> str | None:
    """WWNs are written many ways (0x5000c500..., naa.5000c500..., eui.00...): compare the hex digits."""
    if not value:
        return None
    text = value.strip().lower()
    for prefix in ("0x", "naa.", "eui.", "t10.", "wwn-0x", "wwn-"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text


def _same(field: str, want: str, have: str | None) -> bool:
    if field == "wwn":
        return normalize_wwn(want) == normalize_wwn(have)
    return have is not None and want.strip() == have.strip()


def _control_refusals(info: dict, expected: dict) -> list[str]:
    # A newline in a device path once wrote a job section of its own into fio's job file.
    listed = info.get("path") or expected.get("path")
    found = []
    for what, value in (("pts_devices[].path", listed),
                        ("device node it resolves to", info.get("resolved") if info.get("resolved") != listed else None),
                        ("pts_devices[].backing_file", expected.get("backing_file")),
                        ("loop device's backing file", (info.get("loop") or {}).get("backing_file"))):
        if has_control(value):
            found.append(f"the {what} '{show(value)}' contains a control character or a byte that is not UTF-8: "
                         "refused before anything is written with it; use a path without them")
    return found


def _label(name: str, related: dict[str, dict]) -> str:
    entry = related.get(name)
    return f"{name} ({entry['how']})" if entry else name


def _held_words(what: str, opener: dict, run_id: str | None, token: str = "") -> str:
    hold, pid = opener["hold"], opener["pid"]
    owner, lock = show(hold["run_id"]), show(hold.get("lock"))
    if run_id and _hold.same_run(hold, run_id, token) and hold.get("concurrent"):
        return (f"{what} is held by a drive holder of this run ({owner}), process {pid} (lock file {lock}), for another "
                "ansible-playbook of this run that is still going on (a job slice, or the drive listed under another "
                "host name): two processes of one run never share a drive; let that one finish, it releases the drive")
    if run_id and _hold.same_run(hold, run_id, token):
        why = hold.get("unproved") or "it holds another path to the drive or a device stacked on it, not the listed device"
        return (f"{what} is held by a drive holder of this run ({owner}), process {pid} (lock file {lock}), which cannot "
                f"be taken over: {why}; release it as root on this host with `kill {pid}`")
    if hold.get("unproved"):
        return (f"{what} is open by process {pid} ({show(opener.get('command'))}), which has a drive holder's "
                f"command line for run {owner} but is not one ({show(hold['unproved'])}): no run holds the drive, "
                "something else has it open")
    return (f"{what} is held for {show(_hold.owner_words(hold, run_id, token))} by its drive holder, process {pid} "
            f"(lock file {lock}): that run has the drive until its tests end; {_hold.release_words(pid, owner)}")


def mark_concurrent(info: dict, run_id: str | None, token: str = "") -> None:
    """Another live ansible-playbook of this run is going on: a holder of this run on the drive is that process's, to be
    refused and never taken over (claim_own_hold is for a resume whose controller died)."""
    for opener in info.get("openers", []):
        hold = opener.get("hold")
        if hold and run_id and _hold.same_run(hold, run_id, token):
            hold["concurrent"] = True


def claim_own_hold(info: dict, run_id: str | None, lock_dir: str = _hold.LOCK_DIR, proc_root: str = "/proc",
                   token: str = "") -> dict | None:
    """A resumed run finds its own holder on the listed drive (the controller died, the holder did not).

    When that holder is proved to be this run's (lock file, command line, the device open), it is no refusal: it leaves
    the drive's openers, and its exclusive claim explains the drive's exclusive-open failure (while it holds the disk the
    kernel lets nobody else claim it or a partition). It is returned, to be taken over by pts_drive_hold. A holder of this
    run that is not proved stays an opener, with why, and is refused. A holder of the same run id with another run
    token is another run's (another results directory or controller chose the same id) and is never taken over.
    """
    if not run_id or not info.get("is_block"):
        return None
    for opener in info.get("openers", []):
        hold = opener.get("hold")
        if not hold or not _hold.same_run(hold, run_id, token) or opener.get("device") != info.get("devnum"):
            continue
        problem = _hold.holder_problem(opener["pid"], info["devnum"], run_id, lock_dir, proc_root, token=token)
        if problem:
            hold["unproved"] = problem
            continue
        info["openers"] = [o for o in info["openers"] if o is not opener]
        info["in_use"] = None
        info["takeover"] = {"pid": opener["pid"], "run_id": run_id, "token": token,
                            "lock": _hold.lock_path(info["devnum"], lock_dir)}
        return info["takeover"]
    return None


def refusals(info: dict, expected: dict, allow_destroy: bool, allow_signatures: bool = False,
             run_id: str | None = None, token: str = "") -> list[str]:
    """Every reason not to write to this device; an empty list means the guard passes. ``run_id`` and ``token`` are
    the run the guard is for: a drive holder of another run is named as that run's."""
    reasons = []
    if not allow_destroy:
        reasons.append("pts_allow_destroy is not true for this host: destroying data needs an explicit yes")
    controls = _control_refusals(info, expected)
    if controls:
        return reasons + controls
    if info.get("resolve_error"):
        reasons.append(info["resolve_error"])
        return [show(r) for r in reasons]
    if not info.get("exists"):
        reasons.append(f"{info.get('resolved')} does not exist ({info.get('error', 'not found')})")
        return [show(r) for r in reasons]
    if not info.get("is_block"):
        reasons.append(f"{info.get('resolved')} is not a block device")
        return [show(r) for r in reasons]
    related = {r["name"]: r for r in info.get("related", [])}
    if info.get("description_error"):
        reasons.append(info["description_error"])
    for field in ("serial", "wwn", "backing_file"):
        want = expected.get(field)
        if want and not _same(field, want, info.get(field)):
            source = " (from its description file)" if field in info.get("described", []) else ""
            reasons.append(f"{field} mismatch: expected {want!r}, the device reports {info.get(field)!r}{source}")
    if info.get("signatures") is None and "signatures" in info:
        reasons.append("its signatures could not be read (wipefs failed), so it may hold data")
    elif info.get("signatures") and not allow_signatures:
        found = ", ".join(f"{sig['type']} on {_label(os.path.basename(str(sig['device'])), related)} at {sig['offset']}"
                          for sig in info["signatures"])
        reasons.append(f"it carries signatures ({found}): it may hold data; wipe it yourself or set "
                       "pts_allow_signatures: true")
    if info.get("read_only"):
        reasons.append("the device is read-only")
    stacked_names = set(info.get("stacked", []))
    for mount in info.get("mounts", []):
        device = mount["device"]
        label = _label(device, related) if device in related else (
            f"{device} (stacked on this drive)" if device in stacked_names else device)
        system = ": this is the system disk" if mount["mountpoint"] in SYSTEM_MOUNTS else ""
        reasons.append(f"{label} is mounted on {mount['mountpoint']} ({mount['fstype']}){system}")
    for name, holders in sorted(info.get("holders", {}).items()):
        reasons.append(f"{name} is held by {', '.join(holders)} (device-mapper, LVM, md or bcache)")
    for entry in related.values():
        if entry["kind"] == "holder" and entry["on"] in related and related[entry["on"]]["relation"] == "alias":
            reasons.append(f"{_label(entry['on'], related)} is held by {entry['name']} (device-mapper, LVM, md or bcache)")
        elif entry["kind"] == "loop":
            # The loop driver makes no holder link and takes no claim: judged as a holder all the same.
            reasons.append(f"{_label(entry['name'], related)}: writing this drive changes what it holds (a loop device "
                           f"shows no holder); detach it first (losetup -d /dev/{entry['name']})")
    for swap in info.get("swaps", []):
        reasons.append(f"{_label(os.path.basename(swap), related)} is active swap" if os.path.basename(swap) in related
                       else f"{swap} is active swap")
    names = {r["devnum"]: r["name"] for r in related.values()}
    held_related, held_here = set(), False
    for opener in info.get("openers", []):
        if "file" in opener:
            what = f"the backing file {opener['file']}"
        elif opener.get("device") in names:
            what = _label(names[opener["device"]], related)
        else:
            what = info.get("name") or "it"
        if opener.get("hold"):
            reasons.append(_held_words(what, opener, run_id, token))
            if opener.get("device") in names:
                held_related.add(names[opener["device"]])
            else:
                held_here = True
        else:
            reasons.append(f"{what} is open by process {opener['pid']} ({opener['command']})")
    # A holder's exclusive claim is what the exclusive open runs into: it is named above.
    if info.get("in_use") and not info.get("mounts") and not info.get("holders") and not info.get("swaps") \
            and not held_here:
        reasons.append(info["in_use"])
    # An alias the kernel will not open exclusively, when no mount, swap or holder above already says why.
    claimed = {m["device"] for m in info.get("mounts", [])} | {os.path.basename(s) for s in info.get("swaps", [])}
    claimed |= {e["on"] for e in related.values() if e["kind"] == "holder"} | held_related
    for entry in related.values():
        family = {entry["name"]} | {r["name"] for r in related.values() if r["on"] == entry["name"]}
        if entry.get("in_use") and not family & claimed:
            reasons.append(f"{_label(entry['name'], related)}: {entry['in_use']}")
    return [show(r) for r in reasons]


def guard_record(info: dict) -> dict:
    """The identity the guard passed, as every later write checks it again (see recheck())."""
    loop = info.get("loop")
    return {
        "devnum": info.get("devnum"),
        "serial": info.get("serial"),
        "wwn": info.get("wwn"),
        "loop": {k: loop.get(k) for k in LOOP_FIELDS} if loop else None,
    }


def _loop_words(loop: dict) -> str:
    return (f"a loop device over {show(loop.get('backing_file'))} (device {loop.get('backing_dev')}, inode "
            f"{loop.get('backing_ino')}, offset {loop.get('offset') or 0}, size limit {loop.get('sizelimit') or 0})")


def identity_refusals(info: dict, expect: dict) -> list[str]:
    """Is the device still the one the guard recorded (device number, loop backing file and range)?"""
    reasons = []
    where = show(info.get("resolved"))
    if expect.get("devnum") and info.get("devnum") != expect["devnum"]:
        reasons.append(f"{where} is now device {info.get('devnum')}, the guard passed {expect['devnum']}")
    if "loop" not in expect:
        return reasons  # a record from before loop identities were kept
    want, have = expect.get("loop"), info.get("loop")
    if want and not have:
        reasons.append(f"{where} is no longer a loop device; the guard passed {_loop_words(want)}")
    elif have and not want:
        reasons.append(f"{where} is now {_loop_words(have)}; the guard passed no loop device")
    elif want and have and any(str(want.get(k)) != str(have.get(k)) for k in LOOP_FIELDS if k in want):
        reasons.append(f"{where} is now {_loop_words(have)}; the guard passed {_loop_words(want)}: it is not the "
                       "device the guard passed")
    return reasons


def recheck(path: str, expect: dict, sys_root: str = "/sys", proc_root: str = "/proc", dev_root: str = "/dev",
            lock_dir: str = _hold.LOCK_DIR) -> list[str]:
    """Right before a write: is the device still free, still the one the guard passed, and is nothing stacked on it
    or on another path to it?

    With this run's hold in ``expect`` (see pts_drive_hold), the holder must still be alive, ours and holding the
    device; it is then the one opener that does not count, and the drive's own exclusive-open probe is skipped (the
    holder's claim is the proof that nobody else has one). Any other opener is a refusal as before.

    ``expect`` must be the guard's record of the device in this run (an entry of pts_guard_passed: passed, its
    major:minor): without one nothing is written, whichever module or role asks.
    """
    if not isinstance(expect, dict) or expect.get("passed") is not True or not expect.get("devnum"):
        return [show(f"{path}: the guard has not passed it in this run (no guard record to check it against); "
                     "nothing is written to a drive the guard did not pass")]
    hold = expect.get("hold")
    if hold:
        problem = _hold.verify(hold, expect.get("devnum"), lock_dir, proc_root)
        if problem:
            rid = show(hold.get("run_id")) if isinstance(hold, dict) else "?"
            return [show(f"{path}: this run's hold on the drive is lost - {problem}; something else may have claimed "
                         f"the drive since, so nothing more is written to it: run again with the same run id "
                         f"(pts_run_id={rid}) to guard it and hold it again")]
        info = probe(path, sys_root, proc_root, dev_root=dev_root, ignore_pids=frozenset([hold["pid"]]), held=True,
                     lock_dir=lock_dir)
    else:
        info = probe(path, sys_root, proc_root, dev_root=dev_root, lock_dir=lock_dir)
    # A serial the description file gave cannot be read back from the device; the devnum check covers it.
    fields = [k for k in ("serial", "wwn") if k not in expect.get("described", [])]
    reasons = refusals(info, {k: v for k, v in expect.items() if k in fields}, allow_destroy=True,
                       run_id=hold.get("run_id") if hold else None, token=(hold or {}).get("token") or "")
    if info.get("is_block"):
        reasons += identity_refusals(info, expect)
    return reasons


def duplicate_refusals(infos: list[dict], keys: list[str], labels: list[str] | None = None) -> list[list[str]]:
    """Per listed drive, a refusal when two entries share a results key, resolve to one device, or reach one
    medium (one is an alias of the other, a partition of it or stacked on it)."""
    labels = labels or [show(info.get("path")) for info in infos]
    reasons: list[list[str]] = [[] for dummy in infos]
    for i, (info, key) in enumerate(zip(infos, keys)):
        related = {r["devnum"]: r for r in info.get("related", []) if r.get("devnum")}
        for j, (other, other_key) in enumerate(zip(infos, keys)):
            if i == j:
                continue
            if key == other_key:
                reasons[i].append(f"results key {key!r} is also used by {labels[j]}: give each drive a unique name")
            elif info.get("devnum") and info.get("devnum") == other.get("devnum"):
                reasons[i].append(f"{labels[j]} resolves to the same device")
            elif other.get("devnum") in related:
                entry = related[other["devnum"]]
                reasons[i].append(f"{labels[j]} is listed too, and it is {entry['name']} ({entry['how']}): "
                                  "list each drive once")
    return reasons


def entry_label(index: int, spec: dict) -> str:
    """An inventory entry named the way the user wrote it: its path, else pts_devices[i] and what it gives."""
    if spec.get("path"):
        return show(spec["path"])
    given = [f"{k} '{show(spec[k])}'" for k in ("name", "serial", "wwn") if spec.get(k)]
    return f"pts_devices[{index}]" + (f" ({', '.join(given)})" if given else "")


def drive_key(spec: dict, info: dict) -> str:
    """Directory name for a drive's results: the operator's name, else serial, WWN or kernel name."""
    raw = spec.get("name") or info.get("serial") or info.get("wwn") or info.get("name") or spec.get("path", "drive")
    return _KEY_RE.sub("_", str(raw)).strip("._") or "drive"


# What firmware tables fill in when the maker did not (PTS common reporting wants the real make and model).
_DMI_PLACEHOLDERS = ("", "to be filled by o.e.m.", "default string", "system manufacturer", "system product name",
                     "not specified", "none", "o.e.m.", "unknown")


def _dmi(dmi_root: str, name: str) -> str | None:
    value = (_read(os.path.join(dmi_root, name)) or "").strip()
    return None if value.lower() in _DMI_PLACEHOLDERS else value


def host_info(proc_root: str = "/proc", etc_root: str = "/etc", dmi_root: str = "/sys/class/dmi/id") -> dict:
    """The PTS common reporting items the host can tell about itself."""
    uname = os.uname()
    os_release = _read(os.path.join(etc_root, "os-release")) or ""
    pretty = next(
        (line.split("=", 1)[1].strip('"') for line in os_release.splitlines() if line.startswith("PRETTY_NAME=")),
        None,
    )
    cpuinfo = _read(os.path.join(proc_root, "cpuinfo")) or ""
    models = [line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")]
    meminfo = _read(os.path.join(proc_root, "meminfo")) or ""
    mem_kib = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")), 0)
    return {
        "hostname": uname.nodename,
        "kernel": uname.release,
        "architecture": uname.machine,
        "os": pretty,
        "cpu_model": models[0] if models else None,
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem_kib * 1024,
        # The test system's make and model (world-readable DMI; absent on hosts without firmware tables).
        "system_vendor": _dmi(dmi_root, "sys_vendor"),
        "system_model": _dmi(dmi_root, "product_name"),
        "dmi": os.path.isdir(dmi_root),
    }
