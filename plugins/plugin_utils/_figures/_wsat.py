# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The write saturation report kind's acceptance figures: the level its 4k random writes settle at - the mean IOPS and
mean latency of its last rounds (as many as the steady-state window), written once the capacity multiple (or the time
limit) was reached. Write saturation has no steady state of its own; these are its end state's figures."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, round_files

FINISHED = ("complete", "time limit")


def _level(key: str, unit: str):
    def value(model: dict, params: dict) -> dict:
        result = (model.get("tests") or {}).get("wsat") or {}
        rows = result.get("per_round") or []
        if not rows:
            return measured(None, unit, "wsat", reason="the write saturation test ran no round")
        window = int((result.get("settings") or {}).get("window") or 5)
        last = rows[-window:]
        values = [r.get(key) for r in last]
        files = round_files("wsat", "", [f"round-{int(r['round']):02d}" for r in last])
        if None in values:
            return measured(None, unit, "wsat", files, result.get("status"),
                            reason="a round of the last ones measured no latency")
        return measured(sum(values) / len(values), unit, "wsat", files, result.get("status"))
    return value


def _planned(tests: dict, params: dict, plan: dict) -> str | None:
    return None if "wsat" in tests else "the write saturation test is not selected (pts_tests)"


def _needs(params: dict) -> dict:
    return {"test": "wsat", "add": {}}


FIGURES = (
    Figure("wsat.level.iops", unit="IOPS", direction="higher", test="wsat",
           what="Write saturation: the mean 4k random write IOPS of its last rounds (as many as the measurement "
                "window), the level the drive settles at", example="wsat.level.iops", value=_level("iops", "IOPS"),
           planned=_planned, needs=_needs),
    Figure("wsat.level.mean", unit="ms", direction="lower", test="wsat",
           what="Write saturation: the mean latency of the same rounds", example="wsat.level.mean",
           value=_level("lat_mean_ms", "ms"), planned=_planned, needs=_needs),
)
