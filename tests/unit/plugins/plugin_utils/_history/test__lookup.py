# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drive report's look-up in the history (_lookup.drive_history): the drive's previous run and its population
(model, firmware, profile, the earlier runs), each measured figure against it with the rule's percentile and the outlier
settings; no population without a model, an empty one where the history does not exist yet."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _lookup
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._earlier_runs import IOPS, _earlier


def test_the_drive_reports_lookup(tmp_path):
    root = str(tmp_path / "results")
    _earlier(root)
    drive_dir = os.path.join(root, "this", "h1", "d1")
    model = {"drive": {"model": "ACME X1", "firmware": "1.0"}, "tests": {"iops": {"status": "steady"}},
             "command": {"recorded_at": "2026-11-01T10:00:00.000+00:00"}, "quick_profile": False}
    # _headline_figures reads the drive's figures from its tests: give it the IOPS test's window table.
    model["tests"]["iops"]["tables"] = {"iops": {"4k": {"0": 500.0}}}
    plan = {"acceptance": [{"model": "ACME*", "population_percentile": 5}], "fleet": {"outlier_min_cohort": 4}}
    found = _lookup.drive_history(drive_dir, model, Spec(), plan)
    assert found["previous"]["run_id"] == "full-10"
    block = found["population"]
    assert (block["model"], block["firmware"], block["profile"], block["runs"], block["run"]) == (
        "ACME X1", "1.0", "full", 10, "this")
    assert block["outlier_settings"] == {"outlier_robust_z": 3.5, "outlier_min_deviation_pct": 10.0,
                                         "outlier_min_cohort": 4}
    entry = block["figures"][IOPS]
    assert (entry["n"], entry["value"], entry["better_than_pct"], entry["outlier"]) == (10, 500.0, 0.0, True)
    assert entry["percentile"] == 5 and entry["limit"] == pytest.approx(1001.45)
    assert set(block["figures"]) == {IOPS}  # only the figures the drive measured
    # No model: no population; a history that does not exist yet: a population of no earlier run, not raised.
    assert _lookup.drive_history(drive_dir, dict(model, drive={}), Spec()) == {"previous": None, "population": None}
    elsewhere = str(tmp_path / "empty" / "run" / "h1" / "d1")
    os.makedirs(elsewhere)
    empty = _lookup.drive_history(elsewhere, model, Spec())["population"]
    assert empty["runs"] == 0 and empty["figures"][IOPS]["n"] == 0 and not empty["figures"][IOPS]["outlier"]
