# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Signatures (filesystems, partition tables, RAID and LVM labels) on a device and every other path to its medium, as
``wipefs --json`` lists them without changing anything; the guard reads them before it passes a drive and every write
reads them again (a signature that was not there when the guard passed the drive is someone else's data)."""

from __future__ import annotations

import json
import os


def nodes(info: dict) -> list[str]:
    """The device, its partitions and its aliases (the same disk by serial or WWN, loop devices over one file)."""
    found = [info["resolved"]] + [os.path.join("/dev", part) for part in info.get("partitions", [])]
    return found + [os.path.join("/dev", r["name"]) for r in info.get("related", []) if r["relation"] == "alias"]


def read(info: dict, run, wipefs: str | None) -> list[dict] | None:
    """``[{device, offset, type}]`` on every node of the medium, [] for none; None when it cannot tell (no wipefs,
    wipefs failed or printed something else). ``run(argv)`` returns (rc, stdout, stderr)."""
    if not info.get("is_block"):
        return []
    if not wipefs:
        return None
    found = []
    for node in nodes(info):
        rc, out, dummy = run([wipefs, "--json", node])
        if rc != 0:
            return None
        try:
            listed = (json.loads(out) if out.strip() else {}).get("signatures", [])
            found += [{k: sig.get(k) for k in ("device", "offset", "type")} for sig in listed]
        except (ValueError, AttributeError):
            return None
    return found


def added(found: list[dict], accepted: list[dict]) -> list[dict]:
    """The signatures in ``found`` that are not among ``accepted`` (by type and offset; a device node's name may
    differ between two probes of one medium)."""
    known = {(str(s.get("type")), str(s.get("offset"))) for s in accepted or []}
    return [s for s in found if (str(s.get("type")), str(s.get("offset"))) not in known]


def bytes_at(signature: dict, length: int = 16, dev_root: str = "/dev") -> str | None:
    """The first ``length`` bytes where ``signature`` ({device, offset} as wipefs lists it: the device by its kernel
    name, under ``dev_root``) says it is, in hex, for a refusal to show what was found there; None when they cannot be
    read. Read only, and never through a link."""
    device = str(signature.get("device"))
    path = device if "/" in device else os.path.join(dev_root, device)
    try:
        offset = int(str(signature.get("offset")), 16)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        found = os.pread(fd, length, offset)
    except OSError:
        return None
    finally:
        os.close(fd)
    return found.hex(" ", 2) if found else None
