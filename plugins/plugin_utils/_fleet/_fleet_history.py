# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary and the history: each drive against its population (read by its report, result.json's
``population``: the summary shows what the report judged), outliers against it with the summary's thresholds, the run
written into the history (never failing the summary: what was not written, where and why is said), and the comparison
with the previous run of each model."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _location, _population
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec

# What fleet.json keeps of a drive's population, per figure: enough to read the summary without the drive's report.
_BRIEF = ("n", "median", "p5", "p95", "mad", "spread_pct", "better_than_pct", "value", "steady", "better", "outlier",
          "robust_z", "robust_z_infinite", "deviation_pct", "limit", "percentile")


def spec_or_error(given: Spec | None) -> tuple[Spec, str | None]:
    """The history in force (``given``, else PTS_HISTORY_URL, else SQLite beside the runs), or SQLite's with why the
    environment's is not one."""
    if given is not None:
        return given, None
    try:
        return _location.resolve(), None
    except ValueError as exc:
        return Spec(), str(exc)


def brief(block: object) -> dict | None:
    """A drive's population block as fleet.json keeps it."""
    if not isinstance(block, dict):
        return None
    out = {k: block.get(k) for k in ("history", "model", "firmware", "profile", "before", "runs", "from", "to", "error",
                                     "none") if block.get(k) is not None}
    figures = block.get("figures")
    if isinstance(figures, dict):
        out["figures"] = {f: {k: e.get(k) for k in _BRIEF if e.get(k) is not None}
                          for f, e in figures.items() if isinstance(e, dict)}
    return out


def population_outliers(records: list[dict], settings: dict) -> dict:
    """Per drive id, its figures that are outliers against their population, with the summary's thresholds."""
    out = {}
    for record in records:
        found = _population.outliers(record.get("population"), float(settings["outlier_robust_z"]),
                                     float(settings["outlier_min_deviation_pct"]), int(settings["outlier_min_cohort"]))
        if found:
            out[record["id"]] = found
    return out


def cohorts(drives: list[dict]) -> list[dict]:
    """Per model, firmware and profile of this run with a population: its size and dates (the largest a drive of it
    read), and per figure the population beside this run's drives - their median, and how many are worse than the
    fleet's 5th percentile."""
    groups: dict = {}
    for drive in drives:
        block = drive.get("population")
        if not isinstance(block, dict) or block.get("error") or block.get("none") or not block.get("figures"):
            continue
        groups.setdefault((block.get("model"), block.get("firmware"), block.get("profile")), []).append(drive)
    out = []
    for (model, firmware, profile), members in sorted(groups.items(), key=lambda item: tuple(str(k) for k in item[0])):
        widest = max((m["population"] for m in members),
                     key=lambda b: max((e.get("n") or 0 for e in b["figures"].values()), default=0))
        figures = []
        for figure, entry in widest["figures"].items():
            if not entry.get("n"):
                continue
            direction = _population.better(figure)
            fifth = entry.get("p5") if direction == "higher" else entry.get("p95")
            values = [m["population"]["figures"].get(figure, {}).get("value") for m in members]
            values = sorted(v for v in values if isinstance(v, (int, float)))
            worse = [v for v in values if (v < fifth if direction == "higher" else v > fifth)]
            figures.append({"figure": figure, "n": entry["n"], "median": entry.get("median"), "p5": entry.get("p5"),
                            "p95": entry.get("p95"), "spread_pct": entry.get("spread_pct"), "better": direction,
                            "drives": len(values), "run_median": _population.quantile(values, 0.5),
                            "worse_than_fifth": len(worse)})
        if figures:
            out.append({"model": model, "firmware": firmware, "profile": profile, "drives": len(members),
                        "runs": widest.get("runs"), "from": widest.get("from"), "to": widest.get("to"),
                        "figures": figures})
    return out


def unread(drives: list[dict]) -> dict:
    """{why: [drive ids]} for the drives whose report could not read the history."""
    out: dict = {}
    for drive in drives:
        block = drive.get("population")
        if isinstance(block, dict) and block.get("error"):
            out.setdefault(str(block["error"]), []).append(drive["id"])
    return out


def write(run_dirs: list[str], records: list[dict], spec: Spec, out_dir: str, problem: str | None = None) -> dict:
    """The runs written into the history with the summary's verdicts, then each model's comparison with its previous
    run (``link``: its compare.html from ``out_dir``, where fleet.md is); ``{"written", "databases", "runs", "rows",
    "error", "comparisons"}``, never raised."""
    if problem:
        return {"written": False, "databases": [], "runs": [], "rows": 0, "error": problem}
    verdicts: dict = {}
    for record in records:
        verdicts.setdefault(record["run"], {})[(record["host"], record["drive"])] = record["verdict"]
    out = _index.after_summary(run_dirs, spec, verdicts)
    out["comparisons"] = _compare_report.previous_comparisons(run_dirs, spec) if out["written"] else []
    for entry in out["comparisons"]:
        if entry.get("path"):
            entry["link"] = os.path.relpath(os.path.join(entry["path"], "compare.html"), out_dir)
    return out
