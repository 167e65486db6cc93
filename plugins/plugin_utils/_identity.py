# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Whether two records of a drive (pts_drives entries, drive.json) are the same drive: resume refuses another drive
under a recorded name, and the results tree never files one drive's identity over another's results."""

from __future__ import annotations

# What makes a drive the same drive across attempts of one run: its identity as pts_drive_info recorded it. The
# device node (sdb today, sdc after a reboot) is not part of it. For a loop device the backing file is.
IDENTITY_FIELDS = ("vendor", "model", "serial", "wwn", "firmware", "size_bytes", "logical_block_size", "backing_file",
                   "backing_inode")
# Fields compared even when one record lacks them: a loop device is never the same drive as a disk.
_STRICT = ("size_bytes", "logical_block_size", "backing_file")
_SHOWN = ("model", "serial", "wwn", "firmware", "size_bytes", "backing_file")


def identity(drive: dict) -> dict:
    """The fields that make ``drive`` (an entry of pts_drives, or drive.json's "drive") the drive it is."""
    return {field: drive.get(field) for field in IDENTITY_FIELDS if drive.get(field) not in (None, "")}


def _norm(field: str, value: object) -> object:
    if field == "wwn" and isinstance(value, str):
        text = value.strip().lower()
        for prefix in ("0x", "naa.", "eui.", "t10.", "wwn-0x", "wwn-"):
            if text.startswith(prefix):
                return text[len(prefix):]
        return text
    return value.strip() if isinstance(value, str) else value


def identity_changes(recorded: dict, now: dict) -> list[str]:
    """Each identity field in which ``now`` is not the drive ``recorded`` ("serial 'S1' -> 'S2'"); [] for the same
    drive. A field one side does not report counts only for size, sector size and backing file."""
    old, new = identity(recorded), identity(now)
    changes = []
    for field in IDENTITY_FIELDS:
        if field not in old and field not in new:
            continue
        if (field not in old or field not in new) and field not in _STRICT:
            continue
        if _norm(field, old.get(field)) != _norm(field, new.get(field)):
            changes.append(f"{field} {old.get(field)!r} → {new.get(field)!r}")
    return changes


def describe(drive: dict) -> str:
    """A drive's identity in a few words, for messages."""
    ident = identity(drive)
    return ", ".join(f"{field} {ident[field]!r}" for field in _SHOWN if field in ident) or "no identity recorded"


# What a loop device, zram or a virtio disk reports where a drive reports its maker and model: kernel placeholders.
_PLACEHOLDERS = {("vendor", "Linux"), ("model", "loop device"), ("model", "zram"), ("vendor", "Virtio")}


def placeholder(drive: dict, field: str) -> bool:
    """Is this identity field a placeholder of a virtual device rather than something a drive reported?"""
    return (field, drive.get(field)) in _PLACEHOLDERS and drive.get("interface") in ("loop", "zram", "virtio", None)


def guarded_refusals(devices: list[dict], guarded: dict) -> list[str]:
    """Drives that identify read on one device and the guard passed on another - a path that came to point elsewhere
    between the two: its identity, plan and report would name a device that is not the one tested. ``guarded``:
    listed path -> the guard's verdict (pts_guard_passed)."""
    found = []
    for device in devices:
        verdict = guarded.get(device.get("path")) if isinstance(guarded, dict) else None
        if not isinstance(verdict, dict):
            continue
        if verdict.get("resolved") != device.get("resolved"):
            found.append(f"{device.get('key')}: {device.get('path')} was {device.get('resolved')} when it was identified "
                         f"and {verdict.get('resolved')} when the guard passed it: the path changed in between; run "
                         "again once it points at one device")
    return found
