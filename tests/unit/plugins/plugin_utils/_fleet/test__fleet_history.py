# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet summary judged against the fleet's memory: a lone drive (no cohort in its run) named an outlier against
every earlier run of its model and firmware, its acceptance rule's percentile, fleet.md's History, fleet.json and
junit.xml; the drive report's History; and a history that cannot be written - said, no verdict changed."""

from __future__ import annotations

import os

from conftest import write_run

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import make_run

IOPS = "iops_4k_write"
RULE = {"name": "loops", "model": "loop*", "population_percentile": 5, "population_min_size": 5}


def earlier(root: str) -> None:
    """Six earlier quick runs of the same model (no firmware reported, like a loop device) far faster than the new
    drive, and two full ones - which never count in a quick drive's population."""
    for number in range(1, 7):
        make_run(root, f"old-{number}", [{"drive": "d1", "serial": f"S{number}", "model": "loop device",
                                          "firmware": None, "quick": True, "figures": {IOPS: 900000.0 + number}}],
                 when=f"2026-10-0{number}T10:00:00.000+00:00")
    for number in (7, 8):
        make_run(root, f"full-{number}", [{"drive": "d1", "serial": f"F{number}", "model": "loop device",
                                           "firmware": None, "figures": {IOPS: 5.0}}],
                 when=f"2026-10-0{number}T10:00:00.000+00:00")
    _index.rebuild(root)


def new_run(root: str, run: str = "new") -> str:
    run_dir = os.path.join(root, run)
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [], "drives": [],
                                                       "acceptance": [RULE], "fleet": {"fail_on": []}}})
    write_run(run_dir, [1.0] * 6)
    return run_dir


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def test_a_lone_drive_is_judged_against_every_earlier_run_of_its_model(tmp_path):
    root = str(tmp_path / "results")
    earlier(root)
    run_dir = new_run(root)
    summary = _fleet_summary.summarize([run_dir], run_dir)
    (drive,) = summary["drives"]
    # Alone in its run: no cohort. Against its population: the acceptance rule fails it, and it is an outlier.
    assert drive["verdict"] == "FAIL" and summary["failed"] is False  # pts_fleet_fail_on: []
    assert drive["reasons"][0].startswith("4k random write ") and "misses the fleet's 5th percentile" in \
        drive["reasons"][0] and "6 earlier loop device / — measurement(s), quick profile" in drive["reasons"][0]
    (outlier,) = drive["outliers"]
    assert (outlier["against"], outlier["figure"], outlier["cohort_size"]) == ("population", IOPS, 6)
    population = drive["population"]
    assert (population["profile"], population["runs"], population["from"], population["to"]) == (
        "quick", 6, "2026-10-01T10:00:00.000+00:00", "2026-10-06T10:00:00.000+00:00")
    assert population["figures"][IOPS]["n"] == 6 and population["figures"][IOPS]["better_than_pct"] == 0.0
    assert summary["history"]["written"] is True and summary["history"]["runs"] == ["new"]
    fleet = read(os.path.join(run_dir, "fleet.md"))
    history = fleet[fleet.index("## History"):]
    assert f"This run was written into the history `{os.path.join(root, 'pts-history.sqlite')}` (5 rows)" in history
    assert "### loop device / —, quick profile: 6 earlier runs, 2026-10-01 – 2026-10-06" in history
    assert "| 4k random write (IOPS) | higher | 6 | 900,004 | 900,001 – 900,006 |" in history
    assert "| 1 of 1 |" in history  # this run's one drive is worse than the fleet's 5th percentile
    assert "- ⚑ **h1/d1**: 4k write IOPS " in history and "from the fleet's median 900,004 for loop device / None" \
        in history and "6 earlier measurements in 6 run(s), 2026-10-01 – 2026-10-06, quick profile" in history
    # Not among the cohort outliers: there is no cohort.
    cohorts = fleet[fleet.index("## Cohorts"):fleet.index("## History")]
    assert "⚑ **h1/d1**" not in cohorts and "**FAIL (quick profile — not a qualification)** ⚑" in fleet
    junit = read(os.path.join(run_dir, "junit.xml"))
    assert 'name="population iops_4k_write"' in junit and 'name="population_percentile iops_4k_write"' in junit
    report = read(os.path.join(run_dir, "h1", "d1", "report.md"))
    summary_page = report[:report.index("## Contents")]
    assert "Against the fleet's memory: each headline figure beside every earlier quick-profile run of loop device / " \
           "— in the history" in summary_page and "6 runs, 2026-10-01 – 2026-10-06" in summary_page
    assert "| 6 | 900,004 | 900,001 – 900,006 | 0.0 % | **better than 0 % ⚑** |" in summary_page
    # The full-profile runs of the model (5 IOPS) never counted.
    assert "900,001 – 900,006" in summary_page and " 5.0 " not in summary_page


def test_outliers_fail_and_the_summarys_thresholds_decide(tmp_path):
    root = str(tmp_path / "results")
    earlier(root)
    run_dir = new_run(root)
    # A rule without the percentile: the drive passes on its own, and is flagged, then failed with outliers_fail.
    _results.atomic_write_json(os.path.join(run_dir, "h1", "plan.json"), dict(
        _results.read_json(os.path.join(run_dir, "h1", "plan.json")),
        plan={"tests": [{"name": "iops"}], "listed": [], "drives": [], "acceptance": [], "fleet": {"fail_on": []}}))
    flagged = _fleet_summary.summarize([run_dir], run_dir, {"outliers_fail": True})
    (drive,) = flagged["drives"]
    assert drive["verdict"] == "FAIL" and drive["reasons"][0].startswith("4k write IOPS ")
    # Populations of at least seven: this one of six is no population to judge by.
    relaxed = _fleet_summary.summarize([run_dir], run_dir, {"outliers_fail": True, "outlier_min_cohort": 7})
    assert relaxed["drives"][0]["outliers"] == [] and relaxed["drives"][0]["verdict"] == "PASS"


def test_a_history_that_cannot_be_written_is_said_and_changes_no_verdict(tmp_path):
    root = str(tmp_path / "results")
    run_dir = new_run(root)
    written = _fleet_summary.summarize([run_dir], run_dir)
    assert written["history"]["written"] is True
    # A server that is not there (nothing listens on port 1): the summary and its verdicts stand.
    gone = Spec("postgresql://pts:not-the-pass@127.0.0.1:1/pts", None, "pts_history_url")
    summary = _fleet_summary.summarize([run_dir], run_dir, history=gone)
    assert [d["verdict"] for d in summary["drives"]] == [d["verdict"] for d in written["drives"]]
    assert summary["failed"] == written["failed"]
    assert summary["history"]["written"] is False and summary["history"]["comparisons"] == []
    assert summary["history"]["error"].startswith("postgresql://pts@127.0.0.1:1/pts: could not connect")
    fleet = read(os.path.join(run_dir, "fleet.md"))
    assert "**This run was not written into the history** `postgresql://pts@127.0.0.1:1/pts`: " in fleet
    assert "`playbooks/report.yml` (with the same `pts_history_url`) writes it into the history later" in fleet
    on_disk = _results.read_json(os.path.join(run_dir, "fleet.json"))
    assert on_disk["history"]["written"] is False and "could not connect" in on_disk["history"]["error"]
    for path in ("fleet.md", "fleet.json", "junit.xml", os.path.join("h1", "d1", "result.json"),
                 os.path.join("h1", "d1", "report.md")):
        assert "not-the-pass" not in read(os.path.join(run_dir, path))
    # The drive's report, drawn again with the history gone, says so.
    report = read(_drive_report.write_drive_report(os.path.join(run_dir, "h1", "d1"), (), gone)["report"])
    assert "Against the fleet's memory: **the history `postgresql://pts@127.0.0.1:1/pts` could not be read**" in report
