# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet table's cells say what the drive's report says: a figure measured but not resolved is n/r, not a dash
(which means the figure does not exist); and which headline figures are unresolved, from a drive's model."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_md

P9999 = "latency_4k_write_p9999_ms"


def _model(latency_ios=None, p9999=None, cbw_iops=None, cbw_p99999=None, cbw_ios=0, hir_not_valid=None):
    tests = {}
    if latency_ios is not None:
        tests["latency"] = {"rounds_run": 5, "status": "steady", "percentile_ios": {"4k 0/100 write": latency_ios},
                            "percentile_source": {"4k 0/100 write": "histogram"},
                            "percentiles_ms": {"4k 0/100 write": {"99.99": p9999}}}
    if cbw_iops is not None:
        tests["cbw"] = {"status": "steady", "headline": {"max_measured_iops": cbw_iops, "max_measured_art_ms": 0.5,
                                                         "max_p99999_ms": cbw_p99999, "max_total_ios": cbw_ios}}
    if hir_not_valid is not None:
        tests["hir"] = {"status": "steady", "headline": {"gain": {"1": 1.2, "2": None}, "not_valid": hir_not_valid}}
    return {"tests": tests}


@pytest.mark.parametrize("model, figures", [
    pytest.param(_model(latency_ios=5000), {P9999}, id="p9999-too-few-ios"),
    pytest.param(_model(latency_ios=5_000_000, p9999=1.2), set(), id="p9999-resolved"),
    pytest.param(_model(), set(), id="latency-not-run"),
    pytest.param(_model(cbw_iops=9000.0, cbw_ios=40000), {"cbw_max_p99999_ms"}, id="cbw-five-nines-n-r"),
    pytest.param(_model(cbw_iops=9000.0, cbw_p99999=3.0, cbw_ios=4_000_000), set(), id="cbw-five-nines-resolved"),
    pytest.param(_model(hir_not_valid={"2": "schedule not held: burst 3 started 0.83 s late"}), {"hir_gain_ws2"},
                 id="hir-schedule-not-held"),
])
def test_unresolved_names_the_figures_measured_but_not_given(model, figures):
    found = _headline_figures.unresolved(model)
    assert set(found) == figures
    for figure in figures:
        assert found[figure]["reason"]


def _drive(model: dict, tests_run: list[str]) -> dict:
    return {"headline": _headline_figures.values(model), "headline_steady": _headline_figures.steady(model),
            "unresolved": _headline_figures.unresolved(model), "tests_run": tests_run, "maxiops_points": {}}


@pytest.mark.parametrize("drive, cell", [
    pytest.param(_drive(_model(latency_ios=5000), ["latency"]), "n/r", id="unresolved"),
    pytest.param(_drive(_model(latency_ios=5_000_000, p9999=1.25), ["latency"]), "1.250", id="resolved-steady"),
    pytest.param(_drive(_model(), []), "—", id="not-run"),
])
def test_the_p9999_cell(drive, cell):
    assert _fleet_md._figure_cell(drive, P9999) == cell


@pytest.mark.parametrize("drive, test, cell", [
    pytest.param(_drive(_model(cbw_iops=9000.0, cbw_ios=40000), ["cbw"]), "cbw", "9,000 · 0.500 · n/r",
                 id="cbw-five-nines-n-r"),
    pytest.param(_drive(_model(hir_not_valid={"2": "schedule not held"}), ["hir"]), "hir",
                 "WS1 ×1.20 · WS2 n/r (schedule not held)", id="hir-wait-state-n-r"),
    pytest.param(_drive(_model(), ["xsr"]), "xsr", "not recovered", id="xsr-not-recovered"),
    pytest.param(_drive(_model(), []), "cbw", "—", id="cbw-not-run"),
])
def test_the_pts2_cells(drive, test, cell):
    (column,) = [c for c in _fleet_md._columns("pts2") if c.test == test]
    assert _fleet_md._pts2_cell(drive, column) == cell
