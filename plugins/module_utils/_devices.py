# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Read-only drive probing from sysfs and procfs, and the safety verdict built on it.

Every function takes the sysfs/procfs roots as arguments so unit tests can point them at a fake tree.
Nothing here writes to a device: the only open is an exclusive read-only open used as the kernel's
own answer to "is anything else using this device?".
"""

from __future__ import annotations

import errno
import os
import re
import stat

_KEY_RE = re.compile(r"[^A-Za-z0-9._-]+")
_PCI_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")

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
# Mount points that make a disk the system disk, named as such in the refusal.
SYSTEM_MOUNTS = ("/", "/boot", "/boot/efi", "/usr", "/var")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _read_int(path: str) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _interface(name: str, sysdir: str) -> str:
    if name.startswith("nvme"):
        return "NVMe"
    if name.startswith("loop"):
        return "loop"
    if name.startswith("zram"):
        return "zram"
    if name.startswith("vd"):
        return "virtio"
    if name.startswith("md"):
        return "md"
    if name.startswith("dm-"):
        return "device-mapper"
    if name.startswith("sd"):
        return "SATA" if os.path.exists(os.path.join(sysdir, "device", "vpd_pg89")) else "SCSI/SAS"
    return "unknown"


def _partitions(sysdir: str) -> list[str]:
    try:
        entries = sorted(os.listdir(sysdir))
    except OSError:
        return []
    return [e for e in entries if os.path.exists(os.path.join(sysdir, e, "partition"))]


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


def mounts_of(devnums: dict[str, str], names: set[str], proc_root: str = "/proc") -> list[dict]:
    """Mounts whose source is one of the devices (by major:minor, or by /dev/<name> source)."""
    found = []
    text = _read(os.path.join(proc_root, "self", "mountinfo")) or ""
    for line in text.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        post = line.split(" - ", 1)[1].split()
        source = post[1] if len(post) > 1 else ""
        name = devnums.get(fields[2]) or (
            os.path.basename(source) if source.startswith("/dev/") and os.path.basename(source) in names else None
        )
        if name:
            found.append({"device": name, "mountpoint": fields[4].replace("\\040", " "), "fstype": post[0]})
    return found


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
        have_serial, have_wwn = _serial_wwn(os.path.join(sys_root, "block", name))
        if (serial and _same("serial", serial, have_serial)) or (wwn and _same("wwn", wwn, have_wwn)):
            found.append(os.path.join(dev_root, name))
    wanted = " and ".join(f"{k} {v!r}" for k, v in (("serial", serial), ("wwn", wwn)) if v)
    if not found:
        return None, f"no disk on this host reports {wanted}"
    if len(found) > 1:
        return None, f"{len(found)} disks report {wanted} ({', '.join(found)}): list the drive by path"
    return found[0], None


def read_description(path: str) -> tuple[dict, str | None]:
    """A device description file (TKperf's -dsc): ``key: value`` lines, ``#`` comments. Returns (fields, error)."""
    text = _read(path)
    if text is None:
        return {}, f"description file {path} cannot be read"
    fields = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep or key not in DESCRIPTION_FIELDS:
            return {}, (f"description file {path} line {number}: {line!r} is not 'key: value' with a key of "
                        f"{', '.join(DESCRIPTION_FIELDS)}")
        fields[key] = value.strip()
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
            info["description_error"] = f"description file {path} says {key} {value!r}, the device reports {have!r}"


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


def openers_of(devnums: set[int], proc_root: str = "/proc") -> list[dict]:
    """Processes holding any of the devices open (an exclusive open does not see plain opens)."""
    found = []
    try:
        pids = [p for p in os.listdir(proc_root) if p.isdigit() and int(p) != os.getpid()]
    except OSError:
        return found
    for pid in pids:
        fd_dir = os.path.join(proc_root, pid, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if stat.S_ISBLK(st.st_mode) and st.st_rdev in devnums:
                comm = _read(os.path.join(proc_root, pid, "comm")) or "?"
                found.append({"pid": int(pid), "command": comm, "device": f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"})
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


def probe(path: str, sys_root: str = "/sys", proc_root: str = "/proc", check_exclusive: bool = True) -> dict:
    """Identity and usage of the block device at ``path`` (a /dev node, by-id link or symlink)."""
    info: dict = {"path": path, "resolved": os.path.realpath(path), "exists": False, "is_block": False}
    try:
        st = os.stat(info["resolved"])
    except OSError as exc:
        info["error"] = exc.strerror
        return info
    info["exists"] = True
    if not stat.S_ISBLK(st.st_mode):
        return info
    info["is_block"] = True
    devnum = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    sysdir = os.path.realpath(os.path.join(sys_root, "dev", "block", devnum))
    name = os.path.basename(sysdir)
    is_partition = os.path.exists(os.path.join(sysdir, "partition"))
    disk_dir = os.path.dirname(sysdir) if is_partition else sysdir
    queue = os.path.join(disk_dir, "queue")
    device = os.path.join(disk_dir, "device")
    sectors = _read_int(os.path.join(sysdir, "size")) or 0

    partitions = _partitions(sysdir) if not is_partition else []
    devnums = {devnum: name}
    for part in partitions:
        dev = _read(os.path.join(sysdir, part, "dev"))
        if dev:
            devnums[dev] = part
    names = {name, *partitions}
    holders = {name: _holders(sysdir)}
    holders.update({part: _holders(os.path.join(sysdir, part)) for part in partitions})
    stacked = holder_tree(holders, sys_root)

    serial, wwn = _serial_wwn(disk_dir)
    backing = _read(os.path.join(disk_dir, "loop", "backing_file"))
    write_cache = _read(os.path.join(queue, "write_cache"))
    discard_max = _read_int(os.path.join(queue, "discard_max_bytes")) or 0
    info.update(
        name=name,
        devnum=devnum,
        kind="partition" if is_partition else "disk",
        interface=_interface(os.path.basename(disk_dir), disk_dir),
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
        controller=controller_of(disk_dir),
        direct_io=_read(os.path.join(disk_dir, "loop", "dio")) == "1" if backing else None,
        read_only=_read(os.path.join(sysdir, "ro")) == "1",
        partitions=partitions,
        holders={k: v for k, v in holders.items() if v},
        mounts=mounts_of({**devnums, **stacked}, names | set(stacked.values()), proc_root),
        swaps=swaps_of(names | set(stacked.values()), proc_root),
        stacked=sorted(set(stacked.values())),
        in_use=_exclusive_errors(info["resolved"], partitions) if check_exclusive else None,
        openers=openers_of({st.st_rdev} | _partition_rdevs(sysdir, partitions), proc_root),
    )
    return info


def probe_listed(spec: dict, sys_root: str = "/sys", proc_root: str = "/proc", dev_root: str = "/dev",
                 check_exclusive: bool = True) -> dict:
    """probe() for an inventory entry: resolve it by path, serial or WWN, then apply its description file."""
    path, error = resolve(spec, sys_root, dev_root)
    if error:
        return {"path": None, "resolved": None, "exists": False, "is_block": False, "resolve_error": error}
    info = probe(path, sys_root, proc_root, check_exclusive)
    if spec.get("description_file") and info.get("is_block"):
        fields, error = read_description(spec["description_file"])
        if error:
            info["description_error"] = error
        else:
            apply_description(info, fields, spec["description_file"])
    return info


def _partition_rdevs(sysdir: str, partitions: list[str]) -> set[int]:
    rdevs = set()
    for part in partitions:
        dev = _read(os.path.join(sysdir, part, "dev"))
        if dev and ":" in dev:
            major, minor = dev.split(":", 1)
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


def refusals(info: dict, expected: dict, allow_destroy: bool, allow_signatures: bool = False) -> list[str]:
    """Every reason not to write to this device; an empty list means the guard passes."""
    reasons = []
    if not allow_destroy:
        reasons.append("pts_allow_destroy is not true for this host: destroying data needs an explicit yes")
    if info.get("resolve_error"):
        reasons.append(info["resolve_error"])
        return reasons
    if not info.get("exists"):
        reasons.append(f"{info.get('resolved')} does not exist ({info.get('error', 'not found')})")
        return reasons
    if not info.get("is_block"):
        reasons.append(f"{info.get('resolved')} is not a block device")
        return reasons
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
        found = ", ".join(f"{sig['type']} on {sig['device']} at {sig['offset']}" for sig in info["signatures"])
        reasons.append(f"it carries signatures ({found}): it may hold data; wipe it yourself or set "
                       "pts_allow_signatures: true")
    if info.get("read_only"):
        reasons.append("the device is read-only")
    for mount in info.get("mounts", []):
        on_top = " (stacked on this drive)" if mount["device"] in info.get("stacked", []) else ""
        system = ": this is the system disk" if mount["mountpoint"] in SYSTEM_MOUNTS else ""
        reasons.append(f"{mount['device']}{on_top} is mounted on {mount['mountpoint']} ({mount['fstype']}){system}")
    for name, holders in sorted(info.get("holders", {}).items()):
        reasons.append(f"{name} is held by {', '.join(holders)} (device-mapper, LVM, md or bcache)")
    for swap in info.get("swaps", []):
        reasons.append(f"{swap} is active swap")
    for opener in info.get("openers", []):
        reasons.append(f"open by process {opener['pid']} ({opener['command']})")
    if info.get("in_use") and not info.get("mounts") and not info.get("holders") and not info.get("swaps"):
        reasons.append(info["in_use"])
    return reasons


def recheck(path: str, expect: dict) -> list[str]:
    """Right before a write: is the device still free and still the one the guard passed?"""
    info = probe(path)
    # A serial the description file gave cannot be read back from the device; the devnum check covers it.
    fields = [k for k in ("serial", "wwn") if k not in expect.get("described", [])]
    reasons = refusals(info, {k: v for k, v in expect.items() if k in fields}, allow_destroy=True)
    if expect.get("devnum") and info.get("devnum") != expect["devnum"]:
        reasons.append(f"{info['resolved']} is now device {info.get('devnum')}, the guard passed {expect['devnum']}")
    return reasons


def duplicate_refusals(infos: list[dict], keys: list[str]) -> list[list[str]]:
    """Per listed drive, a refusal when two entries share a results key or resolve to one device."""
    reasons: list[list[str]] = [[] for dummy in infos]
    for i, (info, key) in enumerate(zip(infos, keys)):
        for j, (other, other_key) in enumerate(zip(infos, keys)):
            if i == j:
                continue
            if key == other_key:
                reasons[i].append(f"results key {key!r} is also used by {other['path']}: give each drive a unique name")
            elif info.get("devnum") and info.get("devnum") == other.get("devnum"):
                reasons[i].append(f"{other['path']} resolves to the same device")
    return reasons


def drive_key(spec: dict, info: dict) -> str:
    """Directory name for a drive's results: the operator's name, else serial, WWN or kernel name."""
    raw = spec.get("name") or info.get("serial") or info.get("wwn") or info.get("name") or spec.get("path", "drive")
    return _KEY_RE.sub("_", str(raw)).strip("._") or "drive"


def host_info(proc_root: str = "/proc", etc_root: str = "/etc") -> dict:
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
    }
