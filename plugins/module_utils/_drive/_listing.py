# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A drive as the inventory lists it (an entry of pts_devices): its option spec, the device it resolves to (by path,
serial or WWN), its description file (TKperf's -dsc), its results key and how a message names it."""

from __future__ import annotations

import os
import re
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _probe, _sysfs, _text


_KEY_RE = re.compile(r"[^A-Za-z0-9._-]+")

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
        if _sysfs.hidden(disk_dir):
            continue
        have_serial, have_wwn = _sysfs.serial_wwn(disk_dir)
        if (serial and _sysfs.same_identity("serial", serial, have_serial)) or (wwn and _sysfs.same_identity("wwn", wwn, have_wwn)):
            found.append(os.path.join(dev_root, name))
    wanted = " and ".join(f"{k} '{_text.show(v)}'" for k, v in (("serial", serial), ("wwn", wwn)) if v)
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
    where = f"description file {_text.show(path)}"
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
        if _text.has_control(line):
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
        elif key in ("serial", "wwn") and not _sysfs.same_identity(key, value, have):
            info["description_error"] = (f"description file {_text.show(path)} says {key} '{_text.show(value)}', "
                                         f"the device reports '{_text.show(have)}'")


def probe_listed(spec: dict, sys_root: str = "/sys", proc_root: str = "/proc", dev_root: str = "/dev",
                 check_exclusive: bool = True) -> dict:
    """_probe.probe() for an inventory entry: resolve it by path, serial or WWN, then apply its description file."""
    path, error = resolve(spec, sys_root, dev_root)
    if error:
        return {"path": None, "resolved": None, "exists": False, "is_block": False, "resolve_error": error}
    info = _probe.probe(path, sys_root, proc_root, check_exclusive, dev_root)
    if spec.get("description_file") and info.get("is_block"):
        fields, error = read_description(spec["description_file"])
        if error:
            info["description_error"] = error
        else:
            apply_description(info, fields, spec["description_file"])
    return info


def entry_label(index: int, spec: dict) -> str:
    """An inventory entry named the way the user wrote it: its path, else pts_devices[i] and what it gives."""
    if spec.get("path"):
        return _text.show(spec["path"])
    given = [f"{k} '{_text.show(spec[k])}'" for k in ("name", "serial", "wwn") if spec.get(k)]
    return f"pts_devices[{index}]" + (f" ({', '.join(given)})" if given else "")


def drive_key(spec: dict, info: dict) -> str:
    """Directory name for a drive's results: the operator's name, else serial, WWN or kernel name."""
    raw = spec.get("name") or info.get("serial") or info.get("wwn") or info.get("name") or spec.get("path", "drive")
    return _KEY_RE.sub("_", str(raw)).strip("._") or "drive"
