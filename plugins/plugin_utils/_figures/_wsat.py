# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The write saturation report kind's acceptance figures: the level its 4k random writes settle at - the mean IOPS and
mean latency of its last rounds (as many as the steady-state window), written once the capacity multiple (or the time
limit) was reached. Write saturation has no steady state of its own; these are its end state's figures."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _units
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._checks import Checks
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


def end(model: dict) -> dict | None:
    """Write saturation's end state: how it stopped, how much was written against the capacity, the last round."""
    result = (model.get("tests") or {}).get("wsat")
    if not result:
        return None
    rows = result.get("per_round") or []
    multiple = result.get("capacity_multiple")
    capacity = (result.get("target_bytes") or 0) / multiple if multiple else 0
    last = rows[-1] if rows else {}
    return {
        "status": result.get("status"), "rounds": result.get("rounds_run", 0),
        "written_bytes": result.get("written_bytes"), "target_bytes": result.get("target_bytes"),
        "capacity_multiple": multiple, "max_hours": result.get("max_hours"),
        "capacity_written": (result.get("written_bytes") or 0) / capacity if capacity else None,
        "last_round_iops": last.get("iops"), "last_round_lat_mean_ms": last.get("lat_mean_ms"),
        "first_round_iops": rows[0].get("iops") if rows else None, "wall_s": result.get("wall_s"),
    }


def end_text(found: dict | None) -> str:
    """Write saturation's end state (end()) in words (plain text; the caller escapes nothing: all figures)."""
    if not found:
        return "not run"
    if not found["rounds"]:
        return f"{found['status']}: no round finished"
    written = f"{found['capacity_written']:.2f} × capacity" if found.get("capacity_written") is not None else \
        f"{found['written_bytes']:,} bytes"
    how = {"complete": f"complete: {written} written (target {found.get('capacity_multiple') or 0:g} ×)",
           "time limit": f"time limit ({_units.hours(found.get('max_hours'))}) reached with {written} written",
           }.get(found["status"], f"{found['status']} with {written} written")
    last = ""
    if found.get("last_round_iops") is not None:
        last = f"; last round {found['last_round_iops']:,.0f} IOPS"
        if found.get("last_round_lat_mean_ms") is not None:
            last += f", {found['last_round_lat_mean_ms']:.3f} ms mean"
    return f"{how} in {found['rounds']:,} round{'s' if found['rounds'] != 1 else ''}{last}"


# The PTS's end of a write saturation: the capacity multiple written, or the time limit, whichever first.
CHECKS = Checks(ended=("write saturation", FINISHED, lambda model, result: end_text(end(model))))
