# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Results trees made by hand for the history's tests: the files the history reads (plan.json, drive.json,
result.json, fleet.json), as the collection writes them, through its own atomic writer."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _results

PTS1 = tuple(f for f, spec in _headline_figures.FIGURES.items() if not spec.get("optional"))


def drive(run_dir: str, host: str, name: str, figures: dict, serial: str | None, model: str | None = "ACME X1",
          firmware: str | None = "1.0", quick: bool = False, verdict: str = "PASS") -> str:
    path = os.path.join(run_dir, host, name)
    identity = {"serial": serial, "model": model, "firmware": firmware, "vendor": "ACME", "size_bytes": 10 ** 12,
                "interface": "nvme"}
    headline = {f: {"value": figures.get(f), "unit": spec["unit"], "steady": figures.get(f) is not None,
                    "state": "steady" if figures.get(f) is not None else "not run"}
                for f, spec in _headline_figures.FIGURES.items()}
    result = {"drive": identity, "headline": headline, "quick_profile": quick,
              "tests": {_headline_figures.FIGURES[f]["test"]: {} for f in figures},
              "verdict": {"verdict": verdict}}
    _results.atomic_write_json(os.path.join(path, "drive.json"), {"drive": identity})
    _results.atomic_write_json(os.path.join(path, "result.json"), result)
    return path


def run(root: str, run_id: str, when: str, drives: list[dict], quick: bool = False) -> str:
    """A run: per drive {host, drive, figures, serial, model, firmware}; every host's plan.json says when it began."""
    run_dir = os.path.join(root, run_id)
    for spec in drives:
        spec = dict(spec)
        host = spec.pop("host", "h1")
        _results.atomic_write_json(os.path.join(run_dir, host, "plan.json"), {
            "command": {"recorded_at": when},
            "plan": {"profile": "quick" if quick else "full", "variables": {"pts_run_tests": ["iops"]}}})
        drive(run_dir, host, spec.pop("drive"), spec.pop("figures"), spec.pop("serial", None), quick=quick, **spec)
    return run_dir


def day(number: int, hour: int = 10) -> str:
    return f"2026-10-{number:02d}T{hour:02d}:00:00.000+00:00"
