# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Every other block device that reaches a drive's medium.

A drive's *medium* is reached by more than its own node: its partitions, what the kernel shows as its holders
(device-mapper, md, bcache), loop devices over it or over files on its filesystems (the loop driver records no holder
and takes no claim), and other paths to the same disk (dual-path SAS/NVMe without multipath: one serial, two nodes; two
loop devices over one file). related_devices() finds them all; the guard judges each like the drive itself.
"""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _loop, _sysfs, _text


def _loop_of(device: dict, dev_root: str) -> dict | None:
    if "loop" not in device:
        device["loop"] = None if device["parent"] else _loop.loop_identity(
            device["sysdir"], os.path.join(dev_root, device["name"]), ranges=False)
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
            device["name"].startswith("nvme") and _sysfs.hidden(device["sysdir"])):
        serial, wwn = _sysfs.serial_wwn(device["sysdir"])
        if wwn:
            keys.add(("wwn", _sysfs.normalize_wwn(wwn)))
        if serial and not _blank_serial(serial):
            if device["name"].startswith("nvme"):
                # An NVMe serial is the controller's (the subsystem's): namespaces of one controller share it.
                nsid = _sysfs.read(os.path.join(device["sysdir"], "nsid"))
                if nsid:
                    keys.add(("serial", serial.strip(), nsid))
            else:
                keys.add(("serial", serial.strip()))
    device["keys"] = keys
    return keys


def _key_words(key: tuple) -> str:
    if key[0] == "serial":
        return f"the same serial '{_text.show(key[1])}'" + (f" and namespace {key[2]}" if len(key) > 2 else "")
    if key[0] == "wwn":
        return f"the same WWN '{_text.show(key[1])}'"
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
                how = f"a loop device over the same {kind} as {current} ({_text.show(loop['backing_file'])})"
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
        place = [_sysfs.read(os.path.join(listed["sysdir"], f)) for f in ("start", "size")]
        for disk, how in aliases:
            for part, device in devices.items():
                if device["parent"] == disk and [_sysfs.read(os.path.join(device["sysdir"], f)) for f in ("start", "size")] == place:
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
        for holder in _sysfs.holders(devices[current]["sysdir"]):
            add(holder, "stacked", "holder", holder_how, current)
        number = devices[current]["devnum"]
        filesystems = {e["devnum"] for e in mountinfo if number and number in (e["devnum"], e["source_devnum"])}
        for loop_name in loops:
            loop = devices[loop_name]["loop"]
            if number and loop["backing_rdev"] == number:
                _loop.fill_range(loop, os.path.join(devices[loop_name]["sysdir"], "loop"))
                add(loop_name, "stacked", "loop",
                    f"a loop device over {_text.show(loop['backing_file'])}{_range_words(loop)}{tail}", current)
            elif loop["backing_dev"] in filesystems and not loop["backing_rdev"]:
                add(loop_name, "stacked", "loop",
                    f"a loop device over {_text.show(loop['backing_file'])}, a file on the filesystem of {current}{tail}", current)
        queue.extend(n for n in found if n not in before)
    return list(found.values())
