# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A drive report's history comparison: the run that tested its model and firmware last before it, found in the
history index, and the comparison the fleet summary writes where the report's link points."""

from __future__ import annotations

import os
import time

from conftest import write_run

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _previous


def _run(root: str, run: str, factor: float) -> str:
    run_dir = os.path.join(root, run)
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [], "acceptance": [],
                                                       "drives": [], "fleet": {"fail_on": []}}})
    return write_run(run_dir, [1.6, 1.3] + [factor] * 5)


def test_the_report_links_the_comparison_with_the_previous_run_the_summary_writes(tmp_path):
    root = str(tmp_path / "results")
    first = _run(root, "run-1", 1.0)
    _fleet_summary.summarize([os.path.join(root, "run-1")], os.path.join(root, "run-1"))  # indexes run-1
    assert _drive_report.build_model(first)["previous"] is None  # no run before it (run-1 is this run)
    time.sleep(0.01)
    second = _run(root, "run-2", 0.8)
    written = _drive_report.write_drive_report(second)
    previous = written["model"]["previous"]
    name = _previous.comparison_name("run-1", "run-2", "loop device")
    assert (previous["run_id"], previous["drives"], previous["comparison"]) == ("run-1", 1, name)
    assert previous["link"] == f"../../../compare/{name}/compare.html"
    with open(written["report"], encoding="utf-8") as handle:
        summary = handle.read().split("## Contents")[0]
    assert "History: run `run-1` (" in summary and f"]({previous['link']})" in summary
    # The fleet summary indexes run-2, then writes the comparison the link points at: its IOPS 20 % lower.
    result = _fleet_summary.summarize([os.path.join(root, "run-2")], os.path.join(root, "run-2"))
    (written_comparison,) = result["history"]["comparisons"]
    assert written_comparison["comparison"] == name and written_comparison["counts"]["REGRESSION"] == 1
    target = os.path.normpath(os.path.join(second, previous["link"]))
    assert os.path.exists(target) and os.path.exists(target[:-5] + ".md")
    compare = _results.read_json(os.path.join(os.path.dirname(target), "compare.json"))
    assert compare["baseline"]["runs"] == ["run-1"] and compare["candidate"]["runs"] == ["run-2"]


def test_no_index_or_another_model_or_other_tests_means_no_link(tmp_path):
    root = str(tmp_path / "results")
    drive_dir = _run(root, "run-1", 1.0)
    model = _drive_report.build_model(drive_dir)
    found = _previous.find(drive_dir, model)
    assert found["previous"] is None  # no index yet: said in the population block, no link
    population = found["population"]  # no index yet: a population of no earlier run, where it looked
    assert population["history"] == os.path.join(root, "pts-history.sqlite") and population["runs"] == 0
    assert population["figures"] and all(entry["n"] == 0 for entry in population["figures"].values())
    _fleet_summary.summarize([os.path.join(root, "run-1")], os.path.join(root, "run-1"))
    later = _run(root, "run-2", 1.0)
    other = dict(_drive_report.build_model(later))
    assert _previous.find(later, other)["previous"]["run_id"] == "run-1"
    assert _previous.find(later, dict(other, drive=dict(other["drive"], model="ACME X1")))["previous"] is None
    assert _previous.find(later, dict(other, drive=dict(other["drive"], firmware="2.1")))["previous"] is None
    assert _previous.find(later, dict(other, tests={"wsat": {}}))["previous"] is None  # run-1 ran no write saturation
    # No model reported: nothing to compare with, no population either.
    unknown = dict(other, drive=dict(other["drive"], model=None))
    assert _previous.find(later, unknown) == {"previous": None, "population": None}


def test_a_report_says_the_same_of_its_history_before_and_after_its_run_is_written_into_it(tmp_path):
    """Drawn during the run (no history yet) and again by report.yml (the history holds this run alone): one line."""
    root = str(tmp_path / "results")
    drive_dir = _run(root, "run-1", 1.0)
    before = _drive_report.write_drive_report(drive_dir)
    with open(before["report"], encoding="utf-8") as handle:
        drawn = [line for line in handle if line.startswith("Against the fleet's memory")]
    _fleet_summary.summarize([os.path.join(root, "run-1")], os.path.join(root, "run-1"))  # writes run-1 into it
    assert os.path.exists(os.path.join(root, "pts-history.sqlite"))
    after = _drive_report.write_drive_report(drive_dir)
    with open(after["report"], encoding="utf-8") as handle:
        again = [line for line in handle if line.startswith("Against the fleet's memory")]
    assert len(drawn) == 1 and drawn == again and "no earlier" in drawn[0], (drawn, again)
    assert before["model"]["population"] == after["model"]["population"]
    assert _results.read_json(os.path.join(drive_dir, "result.json"))["population"] == after["model"]["population"]
