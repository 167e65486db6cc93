# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's headline figures - the ones acceptance rules, the summary page, result.json and the fleet summary show -
in the units the report uses, each with whether it comes from a steady measurement window; and write saturation's
end state."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME, OPERATING_POINT_TESTS

# The window's p99.99 is of all its IOs: the rounds' fio latency histograms (json+) merged. Too few IOs to resolve it
# (fewer than 10 / (1 - p)) leave it unjudged, never a number.
P9999_NOTE = "99.99 % of all the measurement window's 4k random writes, from fio's merged latency histograms (json+)"
P9999_KEY = "4k 0/100 write"

# figure -> what it is, its unit and digits, and the test that measures it.
FIGURES = {
    "iops_4k_write": {"label": "4k random write", "short": "4k write IOPS", "unit": "IOPS", "digits": 0,
                      "test": "iops"},
    "throughput_1024k_read_mb_s": {"label": "1024k sequential read", "short": "1024k read MB/s", "unit": "MB/s",
                                   "digits": 1, "test": "throughput"},
    "throughput_1024k_write_mb_s": {"label": "1024k sequential write", "short": "1024k write MB/s", "unit": "MB/s",
                                    "digits": 1, "test": "throughput"},
    "latency_4k_write_mean_ms": {"label": "4k random write mean latency", "short": "4k write mean lat. ms",
                                 "unit": "ms", "digits": 3, "test": "latency"},
    "latency_4k_write_p9999_ms": {"label": "4k random write p99.99 latency", "short": "4k write p99.99 ms *",
                                  "unit": "ms", "digits": 3, "test": "latency", "note": P9999_NOTE},
}
# PTS 2.0's tests, as OakGate's summary page gives them: CBW's and DIRTH's MaxIOPS point measured (IOPS, mean response
# time, the 99.999 % of all its IOs from fio's merged histogram), XSR's recovery time and HIR's gain per wait state.
# Each is optional: a drive that did not run the test has no such figure (no history row, no fleet column).
for _name, _title in ((name, BY_NAME[name].short) for name in OPERATING_POINT_TESTS):
    FIGURES[f"{_name}_max_iops"] = {"label": f"{_title} MaxIOPS", "short": f"{_title} MaxIOPS", "unit": "IOPS",
                                    "digits": 0, "test": _name, "optional": True}
    FIGURES[f"{_name}_max_art_ms"] = {"label": f"{_title} MaxIOPS mean response time", "short": f"{_title} ART ms",
                                      "unit": "ms", "digits": 3, "test": _name, "optional": True}
    FIGURES[f"{_name}_max_p99999_ms"] = {"label": f"{_title} MaxIOPS 99.999 % response time",
                                         "short": f"{_title} 5 nines ms", "unit": "ms", "digits": 3, "test": _name,
                                         "optional": True}
FIGURES["xsr_recovery_min"] = {"label": "XSR recovery (group 3 back at group 1's throughput)",
                               "short": "XSR recovery min", "unit": "min", "digits": 1, "test": "xsr",
                               "optional": True}
# The PTS's wait states (pts_run_hir_wait_states may run others: their gains are in the report's HIR section).
HIR_WAIT_STATES = (1, 2, 3, 5, 10)
for _state in HIR_WAIT_STATES:
    FIGURES[f"hir_gain_ws{_state}"] = {"label": f"HIR gain, wait state {_state}", "short": f"HIR gain WS{_state}",
                                       "unit": "×", "digits": 2, "test": "hir", "optional": True}
HEADLINES = tuple(FIGURES)
# The tests whose figures are final when the test completes, with no steady state of their own.
NO_STEADY_STATE = {"xsr": ("complete",)}


def _throughput_dv(tests: dict, direction: str) -> tuple[dict, dict]:
    segment = next((s for s in (tests.get("throughput") or {}).get("segments") or [] if s["name"] == "1024k"), {})
    index = 0 if direction == "read" else 1
    dvs = segment.get("dvs") or []
    return segment, (dvs[index] if len(dvs) > index else {})


def values(model: dict) -> dict:
    """The figures verdicts and cohorts look at, from the drive's report model (window averages)."""
    tests = model.get("tests") or {}
    figures: dict = dict.fromkeys(HEADLINES)
    iops = tests.get("iops") or {}
    figures["iops_4k_write"] = ((iops.get("tables") or {}).get("iops") or {}).get("4k", {}).get("0")
    for direction in ("read", "write"):
        segment, dummy = _throughput_dv(tests, direction)
        figures[f"throughput_1024k_{direction}_mb_s"] = (segment.get("mb_per_s") or {}).get(direction)
    latency = tests.get("latency") or {}
    figures["latency_4k_write_mean_ms"] = ((latency.get("tables") or {}).get("mean_ms") or {}).get("4k", {}).get("0")
    figures["latency_4k_write_p9999_ms"] = ((latency.get("percentiles_ms") or {}).get("4k 0/100 write") or {}).get("99.99")
    for name in OPERATING_POINT_TESTS:
        point = (tests.get(name) or {}).get("headline") or {}
        figures[f"{name}_max_iops"] = point.get("max_measured_iops")
        figures[f"{name}_max_art_ms"] = point.get("max_measured_art_ms")
        figures[f"{name}_max_p99999_ms"] = point.get("max_p99999_ms")
    recovery = (((tests.get("xsr") or {}).get("transitions") or {}).get("recovery") or {})
    figures["xsr_recovery_min"] = recovery.get("minutes")
    gains = (((tests.get("hir") or {}).get("headline") or {}).get("gain") or {})
    for state in HIR_WAIT_STATES:
        figures[f"hir_gain_ws{state}"] = gains.get(str(state))
    return figures


def unresolved(model: dict) -> dict:
    """Per headline figure measured but not given (n/r), why: the latency test's p99.99 and a MaxIOPS point's 99.999 %
    when its IOs do not resolve it ({"reason", "ios", "needed"}), a HIR wait state whose bursts did not keep their
    schedule ({"reason"}). A figure of a test that did not run, or that has its value, is not here."""
    tests = model.get("tests") or {}
    found = values(model)
    out: dict = {}
    latency = tests.get("latency") or {}
    if latency.get("rounds_run") and found["latency_4k_write_p9999_ms"] is None:
        ios = int((latency.get("percentile_ios") or {}).get(P9999_KEY) or 0)
        source = (latency.get("percentile_source") or {}).get(P9999_KEY)
        needed = _histogram.needed("99.99")
        if not ios:
            why = "the latency test's window has no 4k random write IOs"
        elif ios < needed:
            what = "IOs" if source == "histogram" else "IOs (the window's rounds have no histograms; its fewest)"
            why = (f"the latency test's measurement window holds {ios:,} 4k random write {what}; p99.99 needs at "
                   f"least {needed:,} (10 beyond it) to be resolved")
        else:
            why = "the latency test's round files have no p99.99 of the 4k random writes"
        out["latency_4k_write_p9999_ms"] = {"reason": why, "ios": ios, "needed": needed}
    for name in OPERATING_POINT_TESTS:
        point = (tests.get(name) or {}).get("headline") or {}
        if found[f"{name}_max_iops"] is not None and found[f"{name}_max_p99999_ms"] is None:
            ios, needed = int(point.get("max_total_ios") or 0), _histogram.needed("99.999")
            out[f"{name}_max_p99999_ms"] = {
                "reason": f"the MaxIOPS point's {ios:,} IOs do not resolve the 99.999 % (it needs {needed:,})",
                "ios": ios, "needed": needed}
    for state, why in (((tests.get("hir") or {}).get("headline") or {}).get("not_valid") or {}).items():
        if f"hir_gain_ws{state}" in found:
            out[f"hir_gain_ws{state}"] = {"reason": why}
    return out


def maxiops_point(model: dict, name: str) -> str | None:
    """Where a CBW or DIRTH MaxIOPS was measured: "TC2/QD4"."""
    return (((model.get("tests") or {}).get(name) or {}).get("headline") or {}).get("max_point")


FINISHED = ("steady", "not steady")


def states(model: dict) -> dict:
    """Per headline figure, the state of the window it comes from: steady, not steady (the round limit), or the
    test's own status when it did not finish (incomplete, failed, no rounds), or not run."""
    tests = model.get("tests") or {}
    out = {}
    for figure, spec in FIGURES.items():
        result = tests.get(spec["test"])
        if result is None:
            out[figure] = "not run"
        elif spec["test"] == "throughput":
            segment, dv = _throughput_dv(tests, "read" if "read" in figure else "write")
            if not segment:
                out[figure] = "not run"
            elif segment.get("status") not in FINISHED:
                out[figure] = segment.get("status") or "not run"
            else:
                # Each direction has its own window verdict; the block size is steady only when both are.
                out[figure] = "steady" if dv.get("steady") else "not steady"
        else:
            out[figure] = result.get("status") or "not run"
    return out


def final(figure: str, state: str | None) -> bool:
    """Whether a figure in this state is one to compare and judge: from a steady window, or from a test with no steady
    state of its own that completed (XSR)."""
    return state == "steady" or state in NO_STEADY_STATE.get(FIGURES[figure]["test"], ())


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
        if figure.endswith("_max_iops") and maxiops_point(model, spec["test"]):
            out[figure]["what"] += f" ({maxiops_point(model, spec['test'])})"
    latency = (model.get("tests") or {}).get("latency") or {}
    if (latency.get("percentile_ios") or {}).get(P9999_KEY) is not None:
        out["latency_4k_write_p9999_ms"]["ios"] = latency["percentile_ios"][P9999_KEY]
    out["wsat"] = wsat_end(model)
    return out
