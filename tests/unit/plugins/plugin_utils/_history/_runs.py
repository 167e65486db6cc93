# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hand-made runs: a drive's drive.json and result.json and a host's plan.json as the report writes them (only what
the history index reads), for the tests of the history and of the fleet's reports that read it."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import DB_NAME

SETTINGS = {"pts_run_tests": ["iops"], "pts_run_round_seconds": 0.5, "pts_run_rate_iops": 0}


def drive_files(run_dir: str, host: str, drive: str, figures: dict, serial: str | None = "S1",
                model: str | None = "ACME X1", firmware: str | None = "1.0", verdict: str = "PASS",
                steady: bool = True, health: dict | None = None, health_after: dict | None = None,
                wear: dict | None = None, round_health: dict | None = None, no_value: tuple = (),
                quick: bool = False) -> str:
    """One drive's drive.json and result.json as the report writes them (only what the index reads); ``no_value``:
    figures whose test ran without giving them (n/r, not recovered)."""
    path = os.path.join(run_dir, host, drive)
    identity = {"serial": serial, "model": model, "firmware": firmware, "vendor": "ACME", "size_bytes": 10 ** 9,
                "interface": "nvme", "health": health}
    headline = {f: {"value": figures.get(f), "unit": spec["unit"], "steady": steady and figures.get(f) is not None,
                    "state": ("steady" if steady else "not steady") if figures.get(f) is not None or f in no_value
                    else "not run"}
                for f, spec in _headline_figures.FIGURES.items()}
    result = {"drive": identity, "headline": headline, "quick_profile": quick, "health_after": health_after,
              "tests": {spec["test"]: {} for f, spec in _headline_figures.FIGURES.items()
                        if figures.get(f) is not None or f in no_value},
              "verdict": {"verdict": verdict}}
    if wear:
        result["wear"] = wear
    if round_health:
        result["round_health"] = round_health
    _results.atomic_write_json(os.path.join(path, "drive.json"), {"drive": identity})
    _results.atomic_write_json(os.path.join(path, "result.json"), result)
    return path


def plan_file(run_dir: str, host: str, recorded_at: str, settings: dict | None = None) -> None:
    _results.atomic_write_json(os.path.join(run_dir, host, "plan.json"), {
        "command": {"recorded_at": recorded_at},
        "plan": {"profile": "full", "variables": dict(SETTINGS, **(settings or {}), pts_run_remote_dir="/tmp/x")}})


def make_run(root: str, run: str, drives: list[dict], when: str = "2026-11-01T10:00:00.000+00:00",
             settings: dict | None = None, fleet: dict | None = None) -> str:
    """A hand-made run: per drive {host, drive, figures, ...drive_files keywords}; ``fleet``: {(host, drive):
    verdict} written as the run's fleet.json."""
    run_dir = os.path.join(root, run)
    for spec in drives:
        spec = dict(spec)
        host, drive, figures = spec.pop("host", "h1"), spec.pop("drive"), spec.pop("figures")
        plan_file(run_dir, host, when, settings)
        drive_files(run_dir, host, drive, figures, **spec)
    if fleet is not None:
        _results.atomic_write_json(os.path.join(run_dir, "fleet.json"), {"drives": [
            {"run": run, "host": h, "drive": d, "verdict": v} for (h, d), v in fleet.items()]})
    return run_dir


def db_path(root: str) -> str:
    return os.path.join(root, DB_NAME)


def _garbage(path: str) -> bytes:
    data = b"this is not a database\n" * 100
    with open(path, "wb") as handle:
        handle.write(data)
    return data
