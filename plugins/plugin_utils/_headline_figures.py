# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's headline figures - the ones acceptance rules, the summary page, result.json and the fleet summary show -
in the units the report uses, each with whether it comes from a steady measurement window; and write saturation's
end state."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue

# figure -> what it is, its unit and digits, and the test that measures it: each report kind's (_figures/_headline).
FIGURES = {figure: spec for headlines in _catalogue.HEADLINES for figure, spec in headlines.figures.items()}
HEADLINES = tuple(FIGURES)
_KIND = {figure: headlines for headlines in _catalogue.HEADLINES for figure in headlines.figures}


def values(model: dict) -> dict:
    """The figures verdicts and cohorts look at, from the drive's report model (window averages)."""
    tests = model.get("tests") or {}
    figures: dict = dict.fromkeys(HEADLINES)
    for headlines in _catalogue.HEADLINES:
        figures.update(headlines.values(tests))
    return figures


def unresolved(model: dict) -> dict:
    """Per headline figure measured but not given (n/r), why ({"reason"}, and where its IOs do not resolve it "ios" and
    "needed"), as its report kind says. A figure of a test that did not run, or that has its value, is not here."""
    tests = model.get("tests") or {}
    found = values(model)
    out: dict = {}
    for headlines in _catalogue.HEADLINES:
        out.update(headlines.unresolved(tests, found))
    return out


def maxiops_point(model: dict, name: str) -> str | None:
    """Where a CBW or DIRTH MaxIOPS was measured: "TC2/QD4"."""
    return (((model.get("tests") or {}).get(name) or {}).get("headline") or {}).get("max_point")


def states(model: dict) -> dict:
    """Per headline figure, the state of the window it comes from: steady, not steady (the round limit), or the
    test's own status when it did not finish (incomplete, failed, no rounds), or not run."""
    tests = model.get("tests") or {}
    out = {}
    for figure, spec in FIGURES.items():
        result, state = tests.get(spec["test"]), _KIND[figure].state
        if result is None:
            out[figure] = "not run"
        elif state:
            out[figure] = state(tests, figure)
        else:
            out[figure] = result.get("status") or "not run"
    return out


def final(figure: str, state: str | None) -> bool:
    """Whether a figure in this state is one to compare and judge: from a steady window, or from a test with no steady
    state of its own that completed (XSR)."""
    return state == "steady" or state in _KIND[figure].final_states


def steady(model: dict) -> dict:
    """Per headline figure, whether it comes from a steady measurement window (or a completed test that has no steady
    state)."""
    return {figure: final(figure, state) for figure, state in states(model).items()}


def wsat_end(model: dict) -> dict | None:
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


def wsat_text(end: dict | None) -> str:
    """Write saturation's end state in words (plain text; the caller escapes nothing: all figures)."""
    if not end:
        return "not run"
    if not end["rounds"]:
        return f"{end['status']}: no round finished"
    written = f"{end['capacity_written']:.2f} × capacity" if end.get("capacity_written") is not None else \
        f"{end['written_bytes']:,} bytes"
    how = {"complete": f"complete: {written} written (target {end.get('capacity_multiple') or 0:g} ×)",
           "time limit": f"time limit ({hours(end.get('max_hours'))}) reached with {written} written",
           }.get(end["status"], f"{end['status']} with {written} written")
    last = ""
    if end.get("last_round_iops") is not None:
        last = f"; last round {end['last_round_iops']:,.0f} IOPS"
        if end.get("last_round_lat_mean_ms") is not None:
            last += f", {end['last_round_lat_mean_ms']:.3f} ms mean"
    return f"{how} in {end['rounds']:,} round{'s' if end['rounds'] != 1 else ''}{last}"


def hours(value) -> str:
    """A time limit given in hours, in the unit a reader expects: 0.05 h is 3 min."""
    if value is None:
        return "—"
    value = float(value)
    if value < 1:
        minutes = value * 60
        return f"{minutes:g} min" if minutes >= 1 else f"{minutes * 60:g} s"
    return f"{value:g} h"


def duration(seconds) -> str:
    """A wall time for tables: seconds under two minutes, minutes under two hours, else hours."""
    if seconds is None:
        return "—"
    if seconds < 120:
        return f"{seconds:,.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:,.1f} min"
    return f"{seconds / 3600:,.2f} h"


def block(model: dict) -> dict:
    """The headline figures for result.json: value, unit, state and what each is."""
    found, state, missing = values(model), states(model), unresolved(model)
    out = {}
    for figure, spec in FIGURES.items():
        out[figure] = {"value": found[figure], "unit": spec["unit"], "state": state[figure],
                       "steady": final(figure, state[figure]), "what": spec["label"]}
        if spec.get("note"):
            out[figure]["note"] = spec["note"]
        if figure in missing:
            out[figure]["unresolved"] = missing[figure]
    for headlines in _catalogue.HEADLINES:
        for figure, details in headlines.details(model.get("tests") or {}).items():
            out[figure].update(details)
    out["wsat"] = wsat_end(model)
    return out
