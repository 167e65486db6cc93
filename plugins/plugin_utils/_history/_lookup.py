# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What the history says about one drive, for its report: the latest earlier run of its model and firmware (the
History line's comparison) and its population (population.py). Read-only, one connection; a history that cannot be
read is said in the block, never raised - the report stands without it."""

from __future__ import annotations

import contextlib
import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance, _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._run import FLEET_DEFAULTS
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location, _population
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError, NoHistory, SqlStore
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store


def run_time(model: dict) -> str | None:
    """When this run started on the drive's host: its plan's command time (the history keeps run times so)."""
    return (model.get("command") or {}).get("recorded_at")


def _percentile(model: dict, plan: dict | None) -> float | None:
    """The fleet percentile the drive's acceptance rule asks for (population_percentile), if any."""
    drive = model.get("drive") or {}
    rule = _acceptance.matching_rule((plan or {}).get("acceptance") or [], drive.get("model"), drive.get("firmware"))
    value = (rule or {}).get("population_percentile")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _previous(store: SqlStore, model: dict, run: str, started: str | None) -> dict | None:
    """The latest earlier run of the drive's model and firmware, of the same kind of profile (a quick run is no
    baseline for a full one), that ran at least one of the same tests."""
    drive = model.get("drive") or {}
    tests = set(model.get("tests") or {})
    quick = bool(model.get("quick_profile"))
    for found in store.previous_runs(drive["model"], drive.get("firmware") or None, run, started, quick):
        if store.tests_of(found["run_id"], drive["model"], drive.get("firmware") or None) & tests:
            return found
    return None


def outlier_settings(plan: dict | None) -> dict:
    """The outlier thresholds the run was told (pts_fleet_*, recorded with the plan), else the defaults."""
    fleet = (plan or {}).get("fleet") if isinstance((plan or {}).get("fleet"), dict) else {}
    out = {}
    for key, kind in (("outlier_robust_z", float), ("outlier_min_deviation_pct", float), ("outlier_min_cohort", int)):
        value = fleet.get(key)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        out[key] = kind(value) if ok else kind(FLEET_DEFAULTS[key])
    return out


def _population_of(store: SqlStore | None, shown: str, model: dict, run: str, started: str | None,
                   plan: dict | None) -> dict:
    """The drive's population block; ``store`` None (no history yet) reads as a population of no earlier run, as the
    history will once this run is written into it - the report drawn now and one rebuilt later say the same."""
    drive = model.get("drive") or {}
    figures = _headline_figures.values(model)
    steady = _headline_figures.steady(model)
    measured = [f for f in _headline_figures.HEADLINES if figures.get(f) is not None]
    quick = bool(model.get("quick_profile"))
    settings = outlier_settings(plan)
    identity = {"history": shown, "model": drive["model"], "firmware": drive.get("firmware") or None,
                "profile": "quick" if quick else "full", "before": started, "run": run, "outlier_settings": settings}
    # Only the ranks, counts and deviations the statistics need are read, all from one snapshot of the history.
    with store.reading() if store is not None else contextlib.nullcontext():
        read = store.population_ranks(drive["model"], drive.get("firmware") or None, quick,
                                      {f: figures[f] for f in measured}, run, started) if store is not None \
            else {"values": {f: [] for f in measured}, "runs": 0, "from": None, "to": None}
        block = _population.block(read, figures, steady, identity, _percentile(model, plan))
    for entry in block["figures"].values():
        entry["outlier"] = _population.is_outlier(entry, settings["outlier_robust_z"],
                                                  settings["outlier_min_deviation_pct"], settings["outlier_min_cohort"])
    return block


def drive_history(drive_dir: str, model: dict, spec: Spec | None = None, plan: dict | None = None) -> dict:
    """{"previous": {run_id, run_time, drives} or None, "population": block or None} for the drive's report. No model
    reported: nothing to compare with. A history not written yet: a population of no earlier run. One unreachable or
    of a newer schema: the population block says so (``error``), with where it looked."""
    drive = model.get("drive") or {}
    if not drive.get("model"):
        return {"previous": None, "population": None}
    run_dir = os.path.dirname(os.path.dirname(os.path.abspath(drive_dir)))
    root, run = os.path.dirname(run_dir), os.path.basename(run_dir)
    try:
        spec = spec or _location.resolve()
    except ValueError as exc:
        return {"previous": None, "population": {"history": _location.ENV, "error": str(exc)}}
    shown = spec.shown(root)
    started = run_time(model)
    try:
        with open_store(spec, root, readonly=True) as store:
            return {"previous": _previous(store, model, run, started),
                    "population": _population_of(store, store.shown, model, run, started, plan)}
    except NoHistory:
        return {"previous": None, "population": _population_of(None, shown, model, run, started, plan)}
    except (HistoryError, OSError, ValueError) as exc:
        return {"previous": None, "population": {"history": shown, "error": spec.scrub(str(exc))}}
