# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""RAID mode on the controller: validate the operator's arrays (pts_raid) against the listed drives before anything
is touched, and after the guard, find each array's members among the drives it passed."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, fail
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._md_raid import BITMAPS, validate_layout

ARRAY_KEYS = ("name", "level", "members", "chunk", "assume_clean", "bitmap")


class MemberRefused(PtsError, ValueError):
    """An array member that was not identified, or has not passed the guard, on this host."""


def _entry_for(ref: object, listed: list[dict]) -> dict | None:
    return next((spec for spec in listed if ref in (spec.get("path"), spec.get("name"))), None)


def validate_arrays(arrays: object, listed: list[dict]) -> list[dict]:
    """Each array's layout, with members named by a pts_devices entry's path or name; raises PlanError."""
    if arrays in (None, ""):
        return []
    if not isinstance(arrays, list):
        raise fail("pts_raid", arrays, "must be a list of arrays (name, level, members, optional chunk)")
    out, used, names = [], {}, set()
    # An array's results directory is named after it: it must not take a listed drive's name.
    taken = set()
    for spec in listed:
        taken.update(v for v in (spec.get("name"), spec.get("serial"), spec.get("wwn"),
                                 (spec.get("path") or "").rsplit("/", 1)[-1]) if v)
    for index, array in enumerate(arrays):
        label = f"pts_raid[{index}]"
        if not isinstance(array, dict):
            raise fail(label, array, "an array is a mapping with name, level and members")
        unknown = sorted(set(array) - set(ARRAY_KEYS))
        if unknown:
            raise fail(label, unknown, f"unknown keys; known: {', '.join(ARRAY_KEYS)}")
        members = array.get("members")
        if not isinstance(members, list):
            raise fail(f"{label}.members", members, "must be a list of pts_devices paths or names")
        paths = []
        for position, ref in enumerate(members):
            entry = _entry_for(ref, listed)
            if entry is None:
                raise fail(f"{label}.members[{position}]", ref,
                           "is not a pts_devices entry of this host (give the entry's path or name)")
            # The same drive may be named by its path in one array and by its name in another.
            if id(entry) in used:
                raise fail(f"{label}.members[{position}]", ref, f"is already a member of {used[id(entry)]}")
            used[id(entry)] = array.get("name")
            # Serial-only entries have no path yet; the layout check only needs distinct absolute names.
            paths.append(entry.get("path") or f"/dev/by-pts-name/{ref}")
        try:
            layout = validate_layout(array.get("name"), array.get("level"), paths, array.get("chunk"), label)
        except ValueError as exc:
            raise PlanError(str(exc)) from exc
        if layout["name"] in names:
            raise fail(f"{label}.name", layout["name"], "two arrays have this name")
        if layout["name"] in taken:
            raise fail(f"{label}.name", layout["name"], "is also a listed drive's name, serial or device")
        names.add(layout["name"])
        bitmap = array.get("bitmap", "none")
        if bitmap not in BITMAPS:
            raise fail(f"{label}.bitmap", bitmap, f"must be one of {', '.join(BITMAPS)}")
        assume_clean = array.get("assume_clean", True)
        if not isinstance(assume_clean, bool):
            raise fail(f"{label}.assume_clean", assume_clean, "must be true or false")
        out.append({"name": layout["name"], "level": layout["level"], "chunk_kib": layout["chunk_kib"],
                    "members": list(members), "assume_clean": assume_clean, "bitmap": bitmap})
    return out


def resolve_members(arrays: list[dict], drives: list[dict], passed: dict) -> dict:
    """Per array its member drives (identity and guard record, in the order listed), and the drives left to test
    on their own; a member the guard did not pass stops its array before anything is written."""
    built, members_of = [], {}
    for array in arrays:
        records = []
        for ref in array["members"]:
            drive = next((d for d in drives if ref in ((d.get("spec") or {}).get("path"), (d.get("spec") or {}).get("name"),
                                                       d.get("key"))), None)
            if drive is None:
                raise MemberRefused(f"pts_raid array {array['name']}: member {ref} was not identified on this host")
            guard = passed.get(drive.get("path"))
            if not guard or not guard.get("resolved"):
                raise MemberRefused(f"pts_raid array {array['name']}: member {ref} ({drive.get('path')}) has not "
                                    "passed the guard in this run; the array is not built and nothing was written")
            records.append({"key": drive["key"], "path": drive["path"], "resolved": guard["resolved"], "guard": guard})
            members_of[drive["key"]] = array["name"]
        built.append(dict(array, member_drives=records))
    return {"arrays": built, "remaining": [d for d in drives if d["key"] not in members_of],
            "members_of": members_of,
            "member_paths": [m["path"] for array in built for m in array["member_drives"]]}
