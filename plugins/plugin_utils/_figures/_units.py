# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The units an acceptance figure is measured in, the units a requirement may give its limit in (converted to the
figure's own), and each unit's physical range: a limit outside it is a typo or a unit mix-up that would pass or fail
every drive, so it is refused before the first write."""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError

# Per unit a figure is measured in: the units a limit may be given in, and what one of them is in the figure's unit.
# MB/s is 10^6 bytes/s (every report's); MiB/s and GiB/s are binary.
UNITS = {
    "IOPS": {"IOPS": 1.0, "kIOPS": 1e3, "KIOPS": 1e3, "MIOPS": 1e6},
    "MB/s": {"MB/s": 1.0, "GB/s": 1e3, "kB/s": 1e-3, "MiB/s": 1.048576, "GiB/s": 1073.741824},
    "ms": {"ms": 1.0, "us": 1e-3, "µs": 1e-3, "ns": 1e-6, "s": 1e3},
    "min": {"min": 1.0, "s": 1 / 60, "h": 60.0},
    "×": {"×": 1.0, "x": 1.0},
    "°C": {"°C": 1.0, "C": 1.0},
    "rounds": {"rounds": 1.0},
    "%": {"%": 1.0},
}
# The physical range of a limit in the figure's unit: (lowest, highest). A 4k random write at PCIe 5.0 x4's 16 GB/s is
# 3.9 M IOPS and the fastest links carry well under a TB/s, so 100 M IOPS and 1,000,000 MB/s leave room for any drive or
# array; an IO takes more than 1 µs (0.001 ms) and less than an hour on anything that still counts as working; a drive
# reports temperatures above 0 and below 200 °C; counts of rounds are whole and not negative.
RANGES = {
    "IOPS": (1.0, 1e8),
    "MB/s": (1.0, 1e6),
    "ms": (0.001, 3.6e6),
    "min": (0.0, 1e5),
    "×": (0.0, 1e3),
    "°C": (1.0, 199.0),
    "rounds": (0.0, 1e9),
    "%": (0.0, 100.0),
}


def number(where: str, value: object) -> float:
    """A finite number as YAML gives it (an int or float, never a bool or a string); ValueError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}={value!r}: must be a number")
    return float(value)


def factor(unit: str, given: object, where: str) -> float:
    """What one ``given`` unit is in the figure's ``unit``; ValueError naming ``where`` when it is not one of them."""
    known = UNITS[unit]
    if not isinstance(given, str) or given not in known:
        raise InputError(f"{where}={given!r}: not a unit of this figure, which is measured in {unit}: give "
                         f"{', '.join(known)}")
    return known[given]


def in_range(unit: str, value: float, where: str) -> float:
    """The value, when it lies in the unit's physical range; ValueError naming ``where`` and the range otherwise."""
    low, high = RANGES[unit]
    if not low <= value <= high:
        raise InputError(f"{where}: {value:g} {unit} is outside {low:g} to {high:g} {unit}: a limit outside that "
                         "range is no drive's (a typo or a unit mix-up?)")
    return value


def hours(value) -> str:
    """A time limit given in hours, in the unit a reader expects: 0.05 h is 3 min."""
    if value is None:
        return "—"
    value = float(value)
    if value < 1:
        minutes = value * 60
        return f"{minutes:g} min" if minutes >= 1 else f"{minutes * 60:g} s"
    return f"{value:g} h"
