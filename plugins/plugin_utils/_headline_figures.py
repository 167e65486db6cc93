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
    for key, end in _catalogue.ENDS.items():
        out[key] = end(model)
    return out
