# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Which drives a specification applies to: a model glob, and optionally a firmware glob, an interface (glob, any case:
nvme, sata, scsi/sas, loop) and a capacity class - a datasheet's capacity ("3.84TB", decimal) matched within 2 %
(user capacities sit a little above the class: 3.84 TB drives hold 3,840,755,982,336 bytes), or a range {min, max}."""

from __future__ import annotations

import fnmatch
import math
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError

KEYS = ("model", "firmware", "capacity", "interface")
# A datasheet's capacity and a drive's user capacity: the class is the size marketed; drives hold it or a little more.
CAPACITY_TOLERANCE = 0.02
_SIZE_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([kKMGTP]?)(i?)B?", re.ASCII)
_DECIMAL = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"": 1, "k": 2 ** 10, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40, "P": 2 ** 50}


def size(value: object, where: str) -> float:
    """A capacity as a datasheet writes it: bytes, or 3.84TB / 960G (decimal) / 64MiB (binary)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    found = _SIZE_RE.fullmatch(value.strip()) if isinstance(value, str) else None
    if not found or float(found.group(1)) <= 0:
        raise InputError(f"{where}={value!r}: must be a capacity such as 3.84TB, 960GB, 64MiB or a number of bytes")
    table = _BINARY if found.group(3) else _DECIMAL
    return float(found.group(1)) * table[found.group(2)]


def _glob(where: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}={value!r}: must be a glob such as 'SAMSUNG MZQL2*'")
    return value


def validate(applies: object, where: str) -> dict:
    """The drives a specification applies to, checked: {model, firmware, interface, capacity: {min, max, class}}."""
    if not isinstance(applies, dict) or not applies.get("model"):
        raise InputError(f"{where}: needs a model glob (model: 'SAMSUNG MZQL2*', or '*' for every model)")
    unknown = sorted(str(k) for k in set(applies) - set(KEYS))
    if unknown:
        raise InputError(f"{where}: unknown keys {unknown}; known: {', '.join(KEYS)}")
    out = {key: _glob(f"{where}.{key}", applies.get(key)) for key in ("model", "firmware", "interface")}
    capacity = applies.get("capacity")
    if capacity is None:
        out["capacity"] = None
    elif isinstance(capacity, dict):
        if set(capacity) - {"min", "max"} or not capacity:
            raise InputError(f"{where}.capacity={capacity!r}: a range is a mapping of min and/or max")
        low = size(capacity["min"], f"{where}.capacity.min") if capacity.get("min") is not None else 0.0
        high = size(capacity["max"], f"{where}.capacity.max") if capacity.get("max") is not None else math.inf
        if low > high:
            raise InputError(f"{where}.capacity: min is above max")
        out["capacity"] = {"min": low, "max": None if high == math.inf else high, "class": None}
    else:
        nominal = size(capacity, f"{where}.capacity")
        out["capacity"] = {"min": nominal * (1 - CAPACITY_TOLERANCE), "max": nominal * (1 + CAPACITY_TOLERANCE),
                           "class": str(capacity)}
    return out


def matches(applies: dict, drive: dict) -> bool:
    """Does the specification apply to the drive (its identity: model, firmware, interface, size_bytes)?"""
    if not fnmatch.fnmatchcase(drive.get("model") or "", applies["model"]):
        return False
    if applies.get("firmware") and not fnmatch.fnmatchcase(drive.get("firmware") or "", applies["firmware"]):
        return False
    if applies.get("interface") and not fnmatch.fnmatchcase((drive.get("interface") or "").lower(),
                                                            applies["interface"].lower()):
        return False
    capacity = applies.get("capacity")
    if capacity:
        found = float(drive.get("size_bytes") or 0)
        if found < capacity["min"] or (capacity.get("max") is not None and found > capacity["max"]):
            return False
    return True


def words(applies: dict) -> str:
    """Whom a specification applies to, in words: "model SAMSUNG MZQL2*, capacity class 3.84TB"."""
    parts = [f"model {applies['model']}"]
    if applies.get("firmware"):
        parts.append(f"firmware {applies['firmware']}")
    if applies.get("interface"):
        parts.append(f"interface {applies['interface']}")
    capacity = applies.get("capacity")
    if capacity and capacity.get("class"):
        parts.append(f"capacity class {capacity['class']}")
    elif capacity:
        parts.append(f"capacity {capacity['min']:,.0f} to "
                     f"{'any' if capacity.get('max') is None else format(capacity['max'], ',.0f')} bytes")
    return ", ".join(parts)
