# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Baseline against candidate from the history (SQLite or PostgreSQL, plugin_utils/_history): two sets of runs (two
run ids, or one model's runs under two firmware versions), per drive model and headline figure the median and spread over drives on each side, the change in
%, and a REGRESSION / IMPROVEMENT / SAME verdict against a tolerance; the history of every compared drive (same
serial) across all indexed runs; compare.md, compare.json and compare.html.

Definitions (compare.md says them too):
- A drive's value on one side is its headline figure; a drive (same serial) tested in several runs of one side
  counts once, with the median of its runs.
- median: the median of the drives' values. spread over drives: (max - min) / median x 100 of the drives' values.
- run-to-run spread: the runs of the baseline's model and firmware run with the baseline's settings, the candidate's
  runs left out; per run the median over its drives; (max - min) / median x 100 of those run medians. Needs two runs.
- tolerance: ``pts_compare_tolerance_pct`` when given, else the larger of 5 % and the run-to-run spread.
- delta: (candidate median - baseline median) / baseline median x 100. Worse by more than the tolerance (lower for
  IOPS and MB/s, higher for latency) is a REGRESSION, better by more an IMPROVEMENT, else SAME."""

from __future__ import annotations

import json
import math
import statistics

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _acceptance

REGRESSION, IMPROVEMENT, SAME, NOT_COMPARED = "REGRESSION", "IMPROVEMENT", "SAME", "NOT COMPARED"
VERDICTS = (REGRESSION, IMPROVEMENT, SAME, NOT_COMPARED)
MIN_TOLERANCE_PCT = 5.0
UNKNOWN_MODEL = "(model not reported)"
SPREAD_TEXT = ("spread over drives = (max − min) / median × 100 of the drives' values on that side (a drive tested in "
               "several runs of one side counts once, with the median of its runs)")
RUN_SPREAD_TEXT = ("run-to-run spread = (max − min) / median × 100 of the per-run medians of the baseline's model and "
                   "firmware, over the indexed runs run with the baseline's settings, the candidate's runs left out "
                   "(needs two such runs)")


class CompareError(PtsError, ValueError):
    """Bad input: names the variable and the value."""


def better(figure: str) -> str:
    """"higher" or "lower": from the acceptance criteria's direction (min_* is higher-is-better, max_* lower), else
    from the unit (a time is lower-is-better)."""
    for dummy, (name, direction, dummy2) in _acceptance.CRITERIA.items():
        if name == figure:
            return "higher" if direction == "min" else "lower"
    unit = (_headline_figures.FIGURES.get(figure) or {}).get("unit")
    return "lower" if unit in ("ms", "us", "s", "min") else "higher"


def tolerance_input(value: object, variable: str = "pts_compare_tolerance_pct") -> float | None:
    """The tolerance as given: None (not given), or a finite number >= 0 (a numeric string too: -e key=value)."""
    if value is None or value == "":
        return None
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or number < 0:
        raise CompareError(f"{variable}={value!r}: must be a number ≥ 0 (a percentage, such as 5), or left unset for "
                           f"the larger of {MIN_TOLERANCE_PCT:g} % and the run-to-run spread")
    return number


# --- selection ----------------------------------------------------------------------------------------------------

def _indexed_runs(conn) -> dict:
    return {r["run_id"]: r for r in conn.runs()}


def select(conn, baseline_runs: list[str] | None, candidate_runs: list[str] | None, model: str | None,
           baseline_firmware: str | None, candidate_firmware: str | None, db: str = "the index") -> dict:
    """The two sides as rows of the index; raise CompareError naming the variable for a selection that finds
    nothing. Runs mode: baseline_runs and candidate_runs (model optional: only that model's drives). Firmware mode:
    model, baseline_firmware and candidate_firmware, across every indexed run."""
    by_runs = bool(baseline_runs or candidate_runs)
    by_firmware = baseline_firmware not in (None, "") or candidate_firmware not in (None, "")
    if by_runs and by_firmware:
        raise CompareError("give either pts_compare_baseline_run and pts_compare_candidate_run (two runs), or "
                           "pts_compare_model with pts_compare_baseline_firmware and pts_compare_candidate_firmware "
                           f"(a firmware comparison), not both: baseline_run={baseline_runs!r}, "
                           f"baseline_firmware={baseline_firmware!r}")
    if not by_runs and not by_firmware:
        raise CompareError("nothing to compare: give pts_compare_baseline_run and pts_compare_candidate_run, or "
                           "pts_compare_model, pts_compare_baseline_firmware and pts_compare_candidate_firmware")
    indexed = _indexed_runs(conn)
    if by_runs:
        for variable, runs in (("pts_compare_baseline_run", baseline_runs), ("pts_compare_candidate_run", candidate_runs)):
            if not runs:
                raise CompareError(f"{variable}={runs!r}: give a run id (the other side has "
                                   f"{baseline_runs or candidate_runs!r})")
            missing = [r for r in runs if r not in indexed]
            if missing:
                raise CompareError(f"{variable}={runs!r}: run {', '.join(repr(m) for m in missing)} is not indexed in "
                                   f"{db} (indexed: {', '.join(sorted(indexed)) or 'none'}); a run is indexed when "
                                   "its fleet summary is written, and playbooks/report.yml indexes it again")
        overlap = sorted(set(baseline_runs) & set(candidate_runs))
        if overlap:
            raise CompareError(f"pts_compare_baseline_run={baseline_runs!r} and pts_compare_candidate_run="
                               f"{candidate_runs!r} share run {', '.join(overlap)}: a run cannot be both sides")
        base = conn.query(runs=baseline_runs, model=model or None)
        cand = conn.query(runs=candidate_runs, model=model or None)
        if model and not base:
            raise CompareError(f"pts_compare_model={model!r}: no drive of that model in pts_compare_baseline_run="
                               f"{baseline_runs!r} (models indexed: {', '.join(conn.models()) or 'none'})")
        if model and not cand:
            raise CompareError(f"pts_compare_model={model!r}: no drive of that model in pts_compare_candidate_run="
                               f"{candidate_runs!r}")
        return {"mode": "runs", "model": model or None, "baseline": base, "candidate": cand,
                "baseline_label": _runs_label(baseline_runs), "candidate_label": _runs_label(candidate_runs),
                "baseline_runs": list(baseline_runs), "candidate_runs": list(candidate_runs)}
    if not model:
        raise CompareError(f"pts_compare_model={model!r}: a firmware comparison needs the drive model (models "
                           f"indexed: {', '.join(conn.models()) or 'none'})")
    known_models = conn.models()
    if model not in known_models:
        raise CompareError(f"pts_compare_model={model!r}: no indexed run has a drive of that model (models indexed: "
                           f"{', '.join(repr(m) for m in known_models) or 'none'})")
    versions = conn.firmware_of(model)
    sides = {}
    for variable, firmware in (("pts_compare_baseline_firmware", baseline_firmware),
                               ("pts_compare_candidate_firmware", candidate_firmware)):
        if firmware in (None, ""):
            raise CompareError(f"{variable}={firmware!r}: a firmware comparison needs both firmware versions "
                               f"(indexed for {model!r}: {', '.join(versions) or 'none'})")
        rows = conn.query(model=model, firmware=[str(firmware)])
        if not rows:
            raise CompareError(f"{variable}={firmware!r}: no indexed run has a {model!r} drive with that firmware "
                               f"(indexed for {model!r}: {', '.join(repr(v) for v in versions) or 'none'})")
        sides[variable] = rows
    if str(baseline_firmware) == str(candidate_firmware):
        raise CompareError(f"pts_compare_baseline_firmware={baseline_firmware!r} and pts_compare_candidate_firmware="
                           f"{candidate_firmware!r} are the same version: nothing to compare")
    base, cand = sides["pts_compare_baseline_firmware"], sides["pts_compare_candidate_firmware"]
    return {"mode": "firmware", "model": model, "baseline": base, "candidate": cand,
            "baseline_firmware": str(baseline_firmware), "candidate_firmware": str(candidate_firmware),
            "baseline_label": f"{model} firmware {baseline_firmware}",
            "candidate_label": f"{model} firmware {candidate_firmware}",
            "baseline_runs": _distinct(r["run_id"] for r in base), "candidate_runs": _distinct(r["run_id"] for r in cand)}


def _runs_label(runs: list[str]) -> str:
    return ("run " if len(runs) == 1 else "runs ") + ", ".join(runs)


def _distinct(values) -> list:
    out: list = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


# --- statistics ---------------------------------------------------------------------------------------------------

def drive_key(row: dict) -> str:
    """A drive across runs: its serial; a drive without one (a loop device) is its host and name in its run."""
    return f"serial {row['serial']}" if row.get("serial") else f"{row['run_id']}:{row['host']}/{row['drive']}"


def _spread_pct(values: list[float]) -> float | None:
    if len(values) < 2:
        return 0.0 if values else None
    middle = statistics.median(values)
    if middle == 0:
        return None
    return (max(values) - min(values)) / abs(middle) * 100.0


def side_stats(rows: list[dict]) -> dict:
    """One side of one figure: per drive one value (the median of its runs on this side), then the median, min,
    max and spread over drives; how many drives' values come from steady windows."""
    per_drive: dict[str, list[dict]] = {}
    for row in rows:
        if row.get("value") is not None:
            per_drive.setdefault(drive_key(row), []).append(row)
    drives = []
    for key, found in per_drive.items():
        drives.append({"drive": key, "value": statistics.median([r["value"] for r in found]),
                       "runs": _distinct(r["run_id"] for r in found), "steady": all(r.get("steady") for r in found),
                       "ids": _distinct(f"{r['run_id']}:{r['host']}/{r['drive']}" for r in found),
                       "dirs": _distinct(r["drive_dir"] for r in found if r.get("drive_dir"))})
    values = [d["value"] for d in drives]
    return {"n": len(drives), "median": statistics.median(values) if values else None,
            "min": min(values) if values else None, "max": max(values) if values else None,
            "spread_pct": _spread_pct(values), "steady": sum(1 for d in drives if d["steady"]),
            "missing": len({drive_key(r) for r in rows} - set(per_drive)), "drives": drives}


def run_to_run(rows: list[dict], exclude_runs: list[str]) -> dict:
    """The per-run medians of ``rows`` (one figure of the baseline's cohort), the excluded runs left out, and their
    spread; spread None with fewer than two runs."""
    per_run: dict[str, list[float]] = {}
    for row in rows:
        if row.get("value") is not None and row["run_id"] not in exclude_runs:
            per_run.setdefault(row["run_id"], []).append(row["value"])
    medians = {run: statistics.median(values) for run, values in per_run.items()}
    spread = _spread_pct(list(medians.values())) if len(medians) >= 2 else None
    return {"runs": medians, "spread_pct": spread}


def judge(delta_pct: float | None, tolerance_pct: float, direction: str) -> str:
    """REGRESSION when the candidate is worse than the baseline by more than the tolerance, IMPROVEMENT when better
    by more, SAME within it (the boundary itself is SAME)."""
    if delta_pct is None:
        return NOT_COMPARED
    gain = delta_pct if direction == "higher" else -delta_pct
    if gain < -tolerance_pct:
        return REGRESSION
    if gain > tolerance_pct:
        return IMPROVEMENT
    return SAME


def _settings_key(row: dict) -> str:
    return json.dumps(row.get("settings") or {}, sort_keys=True)


def _test_of_setting() -> dict:
    """Each test's own variables (pts_run_<test>_...) by name: the test they belong to."""
    out = {}
    for test in _registry.TESTS:
        for key in tuple(test.raw_variables) + tuple(test.variables):
            out[f"pts_run_{key}"] = test.name
    return out


def _ran(row: dict) -> set | None:
    """The tests a row's drive ran (the index keeps them as JSON), or None when not known."""
    tests = row.get("tests")
    if isinstance(tests, str):
        try:
            tests = json.loads(tests)
        except ValueError:
            return None
    return set(tests) if isinstance(tests, list) else None


def settings_differences(baseline: list[dict], candidate: list[dict]) -> list[dict]:
    """The run settings (pts_run_* and pts_precondition_* as the plans recorded them) that differ between the sides:
    figures from runs not run alike differ for that reason too. A test's own setting on a side that did not run the
    test is said so, not "not recorded"."""
    owner = _test_of_setting()

    def values(rows):
        out: dict = {}
        for row in rows:
            for key, value in (row.get("settings") or {}).items():
                shown = repr(value)
                if shown not in out.setdefault(key, []):
                    out[key].append(shown)
        return out

    def absent(rows, key):
        ran = [_ran(row) for row in rows]
        test = owner.get(key)
        if test and ran and all(r is not None and test not in r for r in ran):
            return [f"(not run: {_registry.BY_NAME[test].short})"]
        return ["(not recorded)"]

    base, cand = values(baseline), values(candidate)
    diffs = []
    for key in sorted(set(base) | set(cand)):
        if sorted(base.get(key, [])) != sorted(cand.get(key, [])):
            diffs.append({"setting": key, "baseline": base.get(key) or absent(baseline, key),
                          "candidate": cand.get(key) or absent(candidate, key)})
    return diffs


def _model(row: dict) -> str:
    return row.get("model") or UNKNOWN_MODEL


def compare(selection: dict, cohort_rows: list[dict], tolerance_pct: float | None = None,
            min_tolerance_pct: float = MIN_TOLERANCE_PCT) -> dict:
    """The comparison of ``select``'s two sides, per drive model on both sides and headline figure. ``cohort_rows``:
    the indexed rows of the compared models (any run), from which each model's run-to-run spread is taken."""
    base_by_model: dict[str, list[dict]] = {}
    cand_by_model: dict[str, list[dict]] = {}
    for row in selection["baseline"]:
        base_by_model.setdefault(_model(row), []).append(row)
    for row in selection["candidate"]:
        cand_by_model.setdefault(_model(row), []).append(row)
    groups = []
    for model in sorted(set(base_by_model) & set(cand_by_model)):
        base, cand = base_by_model[model], cand_by_model[model]
        base_firmware = sorted({r.get("firmware") or "" for r in base})
        base_settings = {_settings_key(r) for r in base}
        cohort = [r for r in cohort_rows if _model(r) == model and (r.get("firmware") or "") in base_firmware
                  and _settings_key(r) in base_settings]
        rows, unmeasured, no_value = [], [], []
        for figure, spec in _headline_figures.FIGURES.items():
            b = side_stats([r for r in base if r["figure"] == figure])
            c = side_stats([r for r in cand if r["figure"] == figure])
            spread = run_to_run([r for r in cohort if r["figure"] == figure], selection["candidate_runs"])
            if tolerance_pct is not None:
                tolerance, source = tolerance_pct, "given"
            elif spread["spread_pct"] is not None and spread["spread_pct"] > min_tolerance_pct:
                tolerance, source = spread["spread_pct"], "run-to-run spread"
            else:
                tolerance, source = min_tolerance_pct, "minimum"
            delta, reason = None, None
            if not b["n"] and not c["n"]:
                if spec.get("optional") and not any(r["figure"] == figure for r in base + cand):
                    continue  # a PTS 2.0 test neither side ran: no row in the index, nothing to list
                # No value on either side: the test did not run there, or ran without giving the figure (a
                # percentile its IOs do not resolve, a recovery not reached).
                ran = any((r.get("state") or "not run") != "not run" for r in base + cand if r["figure"] == figure)
                (no_value if ran else unmeasured).append(figure)
                continue
            if not b["n"]:
                reason = "no baseline value"
            elif not c["n"]:
                reason = "no candidate value"
            elif b["median"] == 0:
                reason = "the baseline median is 0"
            else:
                delta = (c["median"] - b["median"]) / abs(b["median"]) * 100.0
            direction = better(figure)
            rows.append({"figure": figure, "label": spec["label"], "short": spec["short"], "unit": spec["unit"],
                         "digits": spec["digits"], "better": direction, "baseline": b, "candidate": c,
                         "delta_pct": delta, "tolerance_pct": tolerance, "tolerance_source": source,
                         "run_to_run_spread_pct": spread["spread_pct"], "run_to_run_runs": spread["runs"],
                         "verdict": judge(delta, tolerance, direction), "reason": reason})
        groups.append({"model": model, "baseline_firmware": base_firmware,
                       "candidate_firmware": sorted({r.get("firmware") or "" for r in cand}),
                       "baseline_drives": len({drive_key(r) for r in base}),
                       "candidate_drives": len({drive_key(r) for r in cand}), "figures": rows,
                       "not_measured": unmeasured, "no_value": no_value,
                       "quick_profile": any(r.get("quick_profile") for r in base + cand)})
    counts = {v: sum(1 for g in groups for f in g["figures"] if f["verdict"] == v) for v in VERDICTS}
    return {
        "schema": _results.SCHEMA, "generated_at": _results.now_iso(), "mode": selection["mode"],
        "model": selection.get("model"),
        "baseline": {"label": selection["baseline_label"], "runs": selection["baseline_runs"]},
        "candidate": {"label": selection["candidate_label"], "runs": selection["candidate_runs"]},
        "tolerance": {"given_pct": tolerance_pct, "min_pct": min_tolerance_pct,
                      "rule": (f"{tolerance_pct:g} % as given (pts_compare_tolerance_pct)" if tolerance_pct is not None
                               else f"the larger of {min_tolerance_pct:g} % and the run-to-run spread")},
        "definitions": {"spread_over_drives": SPREAD_TEXT, "run_to_run_spread": RUN_SPREAD_TEXT},
        "groups": groups, "counts": counts,
        "not_compared_models": {"baseline": sorted(set(base_by_model) - set(cand_by_model)),
                                "candidate": sorted(set(cand_by_model) - set(base_by_model))},
        "regressions": [f"{g['model']}: {f['label']}" for g in groups for f in g["figures"]
                        if f["verdict"] == REGRESSION],
        "settings_differences": settings_differences(selection["baseline"], selection["candidate"]),
        "history": [],
    }


def build(conn, selection: dict, tolerance_pct: float | None = None,
          min_tolerance_pct: float = MIN_TOLERANCE_PCT) -> dict:
    """``compare`` with its cohorts and the compared drives' history read from the index."""
    models = {_model(r) for r in selection["baseline"]} & {_model(r) for r in selection["candidate"]}
    cohort: list[dict] = []
    for model in sorted(models):
        cohort += conn.query(model=None if model == UNKNOWN_MODEL else model, no_model=model == UNKNOWN_MODEL)
    result = compare(selection, cohort, tolerance_pct, min_tolerance_pct)
    serials = sorted({r["serial"] for r in selection["baseline"] + selection["candidate"]
                      if r.get("serial") and _model(r) in models})
    if serials:
        result["history"] = history(conn.query(serials=serials), serials, min_tolerance_pct)
    return result


def history(rows: list[dict], serials: list[str], min_tolerance_pct: float = MIN_TOLERANCE_PCT) -> list[dict]:
    """Per serial indexed in two runs or more: its figures run by run (oldest first) and each figure's change from
    its first run to its last, judged like a comparison with the minimum tolerance (does the drive degrade?)."""
    out = []
    for serial in serials:
        mine = [r for r in rows if r.get("serial") == serial]
        runs = _distinct(r["run_id"] for r in mine)
        if len(runs) < 2:
            continue
        entries = []
        for run in runs:
            first = next(r for r in mine if r["run_id"] == run)
            entries.append({"run": run, "run_time": first.get("run_time"), "firmware": first.get("firmware"),
                            "host": first["host"], "drive": first["drive"], "verdict": first.get("verdict"),
                            "quick_profile": bool(first.get("quick_profile")),
                            "figures": {r["figure"]: r["value"] for r in mine if r["run_id"] == run}})
        trend = {}
        for figure in _headline_figures.FIGURES:
            points = [e["figures"].get(figure) for e in entries if e["figures"].get(figure) is not None]
            if len(points) >= 2 and points[0] != 0:
                delta = (points[-1] - points[0]) / abs(points[0]) * 100.0
                trend[figure] = {"first": points[0], "last": points[-1], "delta_pct": delta,
                                 "verdict": judge(delta, min_tolerance_pct, better(figure))}
        out.append({"serial": serial, "model": mine[0].get("model"), "runs": entries, "trend": trend})
    return out
