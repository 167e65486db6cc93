# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the round loop's and the stop rules' tests judge: real fio rounds, scaled, and a steady-state rule."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def jobs(name: str, factor: float = 1.0) -> list[dict]:
    """The fio jobs of a captured round, their IOPS and bandwidth times ``factor``."""
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        parsed = _fio.parse(handle.read())["jobs"]
    for job in parsed:
        for part in ("read", "write", "total"):
            job[part]["iops"] *= factor
            job[part]["bw_bytes"] *= factor
    return parsed


IOPS = jobs("fio-3.33-iops-round.json")
WSAT = jobs("fio-3.33-wsat-round.json")
STEADY = {"kind": "steady", "dvs": [{"name": "w", "mix": 0, "bs": 4096, "metric": "iops"}], "window": 5,
          "max_rounds": 2000, "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0}
