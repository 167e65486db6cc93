# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The PTS 2.0 report kinds' acceptance figures: CBW's and DIRTH's operating points as measured (the "intensity" kind:
IOPS, mean and maximum response time, the 99.999 % of all the point's IOs), XSR's recovery and HIR's gain per wait
state."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._intensity import POINT_WORDS
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME, OPERATING_POINT_TESTS
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._checks import Checks
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, needed_ios
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import round_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._headline import Headlines


def _selected(test: str):
    def planned(tests: dict, params: dict, plan: dict) -> str | None:
        return None if test in tests else f"the {BY_NAME[test].short} test is not selected (pts_tests)"
    return planned


def _adds(test: str):
    def needs(params: dict) -> dict:
        return {"test": test, "add": {}}
    return needs


def _point(test: str, key: str, unit: str):
    """An operating point's figure as its measurement gave it (the headline of the intensity report kind)."""
    def value(model: dict, params: dict) -> dict:
        result = (model.get("tests") or {}).get(test) or {}
        headline = result.get("headline") or {}
        point = params["point"]
        entry = next((p for p in result.get("points") or [] if p.get("point") == point), None)
        files = round_files(test, "points", [entry["round_file"]]) if entry and entry.get("round_file") else []
        if not result.get("rounds_run"):
            return measured(None, unit, test, reason=f"the {BY_NAME[test].short} test did not run")
        found = headline.get(f"{point}_{key}")
        if key != "p99999_ms":
            why = None if found is not None else f"the {POINT_WORDS[point]} point was not measured"
            return measured(found, unit, test, files, result.get("status"), reason=why)
        ios, needed = int(headline.get(f"{point}_total_ios") or 0), needed_ios("99.999")
        why = None if found is not None else (
            f"the {POINT_WORDS[point]} point's {ios:,} IOs do not resolve the 99.999 % (it needs {needed:,})" if ios
            else f"the {POINT_WORDS[point]} point was not measured")
        return measured(found, unit, test, files, result.get("status"), reason=why, ios=ios, needed=needed)
    return value


def _xsr(model: dict, params: dict) -> dict:
    result = (model.get("tests") or {}).get("xsr") or {}
    if not result.get("rounds_run"):
        return measured(None, "min", "xsr", reason="the XSR test did not run")
    recovery = ((result.get("transitions") or {}).get("recovery")) or {}
    group = next((g for g in result.get("groups") or [] if g.get("number") == 3), {})
    files = round_files("xsr", group.get("name") or "group3", group.get("round_files") or [])
    why = None if recovery.get("minutes") is not None else (recovery.get("reason") or "group 3 did not recover")
    return measured(recovery.get("minutes"), "min", "xsr", files, result.get("status"), reason=why)


def _hir(model: dict, params: dict) -> dict:
    result = (model.get("tests") or {}).get("hir") or {}
    if not result.get("rounds_run"):
        return measured(None, "×", "hir", reason="the HIR test did not run")
    state = str(params["ws"])
    headline = result.get("headline") or {}
    entry = next((s for s in result.get("wait_states") or [] if str(s.get("wait_state")) == state), None)
    files = round_files("hir", f"ws{state}", (entry or {}).get("round_files") or [])
    found = (headline.get("gain") or {}).get(state)
    why = None if found is not None else ((headline.get("not_valid") or {}).get(state)
                                          or f"wait state {state} was not run")
    return measured(found, "×", "hir", files, result.get("status"), reason=why)


def _hir_planned(tests: dict, params: dict, plan: dict) -> str | None:
    entry = tests.get("hir")
    if entry is None:
        return "the HIR test is not selected (pts_tests)"
    if params["ws"] not in ((entry.get("parameters") or {}).get("wait_states") or []):
        return f"wait state {params['ws']} is not among HIR's (pts_run_hir_wait_states)"
    return None


def _hir_needs(params: dict) -> dict:
    return {"test": "hir", "add": {"pts_run_hir_wait_states": ("wait_states", params["ws"])}}


# The intensity report kind's (CBW, DIRTH).
INTENSITY = tuple(
    Figure(f"{test}.<point>.{suffix}", unit=unit, direction=direction, test=test,
           what=f"{BY_NAME[test].short}: {words} of an operating point (MaxIOPS, MidIOPS, MinIOPS) as measured after "
                "its pre-write", example=f"{test}.max.{suffix}", value=_point(test, key, unit),
           planned=_selected(test), needs=_adds(test))
    for test in OPERATING_POINT_TESTS
    for suffix, key, unit, direction, words in (
        ("iops", "measured_iops", "IOPS", "higher", "the IOPS"),
        ("art", "measured_art_ms", "ms", "lower", "the mean response time (ART)"),
        ("mrt", "mrt_ms", "ms", "lower", "the maximum response time (MRT)"),
        ("p99.999", "p99999_ms", "ms", "lower", "the 99.999 % of all the IOs (with the IOs it counts; not judged "
                                                "when they do not resolve it)"))
)
XSR = (
    Figure("xsr.recovery", unit="min", direction="lower", test="xsr",
           what="XSR: the minutes into group 3 until its throughput is back at group 1's (within the tolerance)",
           example="xsr.recovery", value=_xsr, planned=_selected("xsr"), needs=_adds("xsr")),
)
HIR = (
    Figure("hir.ws<ws>.gain", unit="×", direction="higher", test="hir",
           what="HIR: the mean burst IOPS of a wait state over the preconditioning's; not judged when the bursts "
                "did not keep their schedule", example="hir.ws5.gain", value=_hir, planned=_hir_planned,
           needs=_hir_needs),
)


def _intensity_headlines(name: str) -> Headlines:
    """CBW's or DIRTH's MaxIOPS point as measured: IOPS, mean response time, the 99.999 % of all its IOs from fio's
    merged histogram."""
    title = BY_NAME[name].short
    figures = {f"{name}_max_iops": {"label": f"{title} MaxIOPS", "short": f"{title} MaxIOPS", "unit": "IOPS",
                                    "digits": 0, "test": name, "optional": True},
               f"{name}_max_art_ms": {"label": f"{title} MaxIOPS mean response time", "short": f"{title} ART ms",
                                      "unit": "ms", "digits": 3, "test": name, "optional": True},
               f"{name}_max_p99999_ms": {"label": f"{title} MaxIOPS 99.999 % response time",
                                         "short": f"{title} 5 nines ms", "unit": "ms", "digits": 3, "test": name,
                                         "optional": True}}

    def point(tests: dict) -> dict:
        return (tests.get(name) or {}).get("headline") or {}

    def values(tests: dict) -> dict:
        found = point(tests)
        return {f"{name}_max_iops": found.get("max_measured_iops"), f"{name}_max_art_ms": found.get("max_measured_art_ms"),
                f"{name}_max_p99999_ms": found.get("max_p99999_ms")}

    def unresolved(tests: dict, found: dict) -> dict:
        if found[f"{name}_max_iops"] is None or found[f"{name}_max_p99999_ms"] is not None:
            return {}
        ios, needed = int(point(tests).get("max_total_ios") or 0), _histogram.needed("99.999")
        return {f"{name}_max_p99999_ms": {
            "reason": f"the MaxIOPS point's {ios:,} IOs do not resolve the 99.999 % (it needs {needed:,})",
            "ios": ios, "needed": needed}}

    def details(tests: dict) -> dict:
        where = point(tests).get("max_point")
        return {f"{name}_max_iops": {"what": f"{title} MaxIOPS ({where})"}} if where else {}
    return Headlines(figures=figures, values=values, unresolved=unresolved, details=details)


def _hir_values(tests: dict) -> dict:
    gains = (((tests.get("hir") or {}).get("headline") or {}).get("gain") or {})
    return {f"hir_gain_ws{state}": gains.get(str(state)) for state in HIR_WAIT_STATES}


def _hir_unresolved(tests: dict, found: dict) -> dict:
    """A wait state whose bursts did not keep their schedule."""
    not_valid = (((tests.get("hir") or {}).get("headline") or {}).get("not_valid") or {}).items()
    return {f"hir_gain_ws{state}": {"reason": why} for state, why in not_valid if f"hir_gain_ws{state}" in found}


# The PTS's wait states (pts_run_hir_wait_states may run others: their gains are in the report's HIR section).
HIR_WAIT_STATES = (1, 2, 3, 5, 10)
# As OakGate's summary page gives them; each is optional: a drive that did not run the test has no such figure (no
# history row, no fleet column). XSR's recovery is final once the test completes: it has no steady state of its own.
HEADLINES = tuple(_intensity_headlines(name) for name in OPERATING_POINT_TESTS) + (
    Headlines(figures={"xsr_recovery_min": {"label": "XSR recovery (group 3 back at group 1's throughput)",
                                            "short": "XSR recovery min", "unit": "min", "digits": 1, "test": "xsr",
                                            "optional": True}},
              values=lambda tests: {"xsr_recovery_min": ((((tests.get("xsr") or {}).get("transitions") or {})
                                                          .get("recovery") or {}).get("minutes"))},
              final_states=("complete",)),
    Headlines(figures={f"hir_gain_ws{state}": {"label": f"HIR gain, wait state {state}",
                                               "short": f"HIR gain WS{state}", "unit": "×", "digits": 2, "test": "hir",
                                               "optional": True} for state in HIR_WAIT_STATES},
              values=_hir_values, unresolved=_hir_unresolved),
)


def _xsr_sampled(model: dict, result: dict) -> str:
    """What a finished cross stimulus recovery passed: every group sampled. Whether group 3 recovered is a figure (the
    summary's PTS 2.0 table), not a check this test passes or fails."""
    samples = len(result.get("samples") or []) or result.get("rounds_run", 0)
    return f"all three groups sampled ({samples:,} samples)"


XSR_CHECKS = Checks(ended=("every sample", ("complete",), _xsr_sampled))
