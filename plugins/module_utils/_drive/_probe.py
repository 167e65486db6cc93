# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""probe(): the identity and usage of one block device and of every device related to its medium, read-only.

Nothing here writes to a device: the opens are an exclusive read-only open used as the kernel's own answer to "is
anything else using this device?", and a read-only LOOP_GET_STATUS64 of a loop device. A run holds each drive it passed
with a detached holder process (see _hold): a process with a holder's command line is named as that run's holder only
when its lock file proves it.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _aliases, _bus, _hold, _loop, _sysfs, _usage


def probe(path: str, sys_root: str = "/sys", proc_root: str = "/proc", check_exclusive: bool = True,
          dev_root: str = "/dev", ignore_pids: frozenset = frozenset(), held: bool = False,
          lock_dir: str = _hold.LOCK_DIR) -> dict:
    """Identity and usage of the block device at ``path`` (a /dev node, by-id link or symlink), and of every
    device related to its medium (see _aliases.related_devices()).

    ``held``: this run's holder has the drive open exclusively (proved by the caller, its PID in ``ignore_pids``), so
    the drive's own exclusive-open probe is skipped - it would fail on our own claim, and that claim already proves
    nobody else has one on the drive or its partitions. Other paths to the medium are still probed.
    """
    info: dict = {"path": path, "resolved": os.path.realpath(path), "exists": False, "is_block": False}
    try:
        st = _sysfs.node_stat(info["resolved"])
    except OSError as exc:
        info["error"] = exc.strerror
        return info
    info["exists"] = True
    if not stat.S_ISBLK(st.st_mode):
        return info
    info["is_block"] = True
    devnum = _sysfs.devnum_of(st.st_rdev)
    sysdir = os.path.realpath(os.path.join(sys_root, "dev", "block", devnum))
    name = os.path.basename(sysdir)
    is_partition = os.path.exists(os.path.join(sysdir, "partition"))
    disk_dir = os.path.dirname(sysdir) if is_partition else sysdir
    queue = os.path.join(disk_dir, "queue")
    device = os.path.join(disk_dir, "device")
    sectors = _sysfs.read_int(os.path.join(sysdir, "size")) or 0

    partitions = _sysfs.partitions(sysdir) if not is_partition else []
    holders = {name: _sysfs.holders(sysdir)}
    holders.update({part: _sysfs.holders(os.path.join(sysdir, part)) for part in partitions})

    devices = _sysfs.block_devices(sys_root)
    loop = _loop.loop_identity(disk_dir, None if is_partition else info["resolved"], ask_kernel=not is_partition)
    if name in devices and not is_partition:
        devices[name]["loop"] = loop  # the kernel's answer for the listed drive, for the alias search too
    mountinfo = _usage.mountinfo(proc_root)
    related = _aliases.related_devices(name, devices, mountinfo, dev_root)
    all_devnums = _devnums(devnum, name, sysdir, partitions, related)
    names = {name, *partitions, *(r["name"] for r in related)}
    files = _backing_files([loop] + [devices[r["name"]].get("loop") for r in related if r["relation"] == "alias"])
    if check_exclusive:
        _probe_aliases_exclusive(related, devices, dev_root)

    serial, wwn = _sysfs.serial_wwn(disk_dir)
    backing = loop["backing_file"] if loop else None
    bus = _bus.probe_bus(disk_dir, sys_root)
    info.update(
        name=name,
        devnum=devnum,
        kind="partition" if is_partition else "disk",
        interface=bus["interface"],
        # Which source decided the interface: sysfs transport (as lsblk TRAN), udev ID_BUS or the kernel name.
        bus={k: bus[k] for k in ("source", "transport", "udev_bus")},
        vendor=_sysfs.read(os.path.join(device, "vendor")) or ("Linux" if backing else None),
        model=_sysfs.read(os.path.join(device, "model")) or ("loop device" if backing else None),
        placeholders=["vendor", "model"] if backing and not _sysfs.read(os.path.join(device, "model")) else [],
        serial=serial or None,
        wwn=wwn or None,
        firmware=_sysfs.read(os.path.join(device, "firmware_rev")) or _sysfs.read(os.path.join(device, "rev")),
        size_bytes=sectors * 512,
        **_queue_facts(queue),
        backing_file=backing,
        loop=loop,
        controller=_sysfs.controller_of(disk_dir),
        direct_io=_sysfs.read(os.path.join(disk_dir, "loop", "dio")) == "1" if backing else None,
        read_only=_sysfs.read(os.path.join(sysdir, "ro")) == "1",
        partitions=partitions,
        holders={k: v for k, v in holders.items() if v},
        related=related,
        mounts=_usage.mounts_matching(mountinfo, all_devnums, names),
        swaps=_usage.swaps_of(names, proc_root),
        stacked=sorted(r["name"] for r in related if r["relation"] == "stacked"),
        in_use=_usage.exclusive_errors(info["resolved"], partitions) if check_exclusive and not held else None,
        openers=_usage.openers_of({st.st_rdev} | _sysfs.rdevs_of(all_devnums), proc_root, frozenset(files), frozenset(ignore_pids)),
    )
    _name_openers(info["openers"], files, proc_root, lock_dir)
    return info


def _queue_facts(queue: str) -> dict:
    """What the disk's request queue says: block sizes, rotational, write cache, discard (the one purge it proves)."""
    discard_max = _sysfs.read_int(os.path.join(queue, "discard_max_bytes")) or 0
    return {
        "logical_block_size": _sysfs.read_int(os.path.join(queue, "logical_block_size")) or 512,
        "physical_block_size": _sysfs.read_int(os.path.join(queue, "physical_block_size")) or 512,
        "rotational": _sysfs.read(os.path.join(queue, "rotational")) == "1",
        "write_cache": _sysfs.read(os.path.join(queue, "write_cache")),
        "discard": discard_max > 0,
        "purge_methods": ["discard"] if discard_max > 0 else [],
    }


def _devnums(devnum: str, name: str, sysdir: str, partitions: list, related: list) -> dict:
    """Every device number of the medium - the drive's, its partitions', the related devices' - to its name."""
    found = {devnum: name}
    for part in partitions:
        dev = _sysfs.read(os.path.join(sysdir, part, "dev"))
        if dev:
            found[dev] = part
    found.update({r["devnum"]: r["name"] for r in related if r["devnum"]})
    return found


def _backing_files(loops: list) -> dict[tuple[int, int], str]:
    """The regular files behind loop devices, by (device, inode) as /proc shows an opener's file."""
    files: dict[tuple[int, int], str] = {}
    for other in loops:
        if other and other["backing_dev"] and other["backing_ino"] is not None and not other["backing_rdev"]:
            major, minor = other["backing_dev"].split(":")
            files.setdefault((os.makedev(int(major), int(minor)), int(other["backing_ino"])), other["backing_file"])
    return files


def _probe_aliases_exclusive(related: list, devices: dict, dev_root: str) -> None:
    """The exclusive-open probe of each other path to the medium (its ``in_use``)."""
    aliases = {r["name"] for r in related if r["relation"] == "alias"}
    for entry in related:
        # Each alias once, with its partitions; closing the last open of an autoclear loop device detaches it.
        if entry["relation"] != "alias" or entry["on"] in aliases or (
                devices[entry["name"]].get("loop") and _sysfs.read(os.path.join(devices[entry["name"]]["sysdir"], "loop", "autoclear")) != "0"):
            continue
        parts = [p for p, d in devices.items() if d["parent"] == entry["name"]]
        entry["in_use"] = _usage.exclusive_errors(os.path.join(dev_root, entry["name"]), parts)


def _name_openers(openers: list, files: dict, proc_root: str, lock_dir: str) -> None:
    """Each opener's file by name, and a run's holder named as one when its lock file proves it."""
    for opener in openers:
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
