# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A PTS 2.0 drive's report up front: its tests' key figures in the summary, fleet.md/json and the history index,
each traced back to the round files of real quick runs (fixtures: hir, xsr, cbw and dirth on loop devices)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics

import pytest

from conftest import write_drive

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
TREES = {"hir": os.path.join(FIXTURES, "hir", "fio-3.33-quick-loop-device", "hir"), "xsr": os.path.join(FIXTURES, "xsr"),
         "cbw": os.path.join(FIXTURES, "intensity", "fio-3.33-quick-loop-device", "cbw"),
         "dirth": os.path.join(FIXTURES, "intensity", "fio-3.33-quick-loop-device", "dirth")}


@pytest.fixture(scope="module")
def pts2(tmp_path_factory):
    """One drive that ran the four PTS 2.0 tests (and nothing else), its report and its run's fleet summary."""
    run_dir = str(tmp_path_factory.mktemp("pts2") / "results" / "run-2")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": t} for t in TREES], "listed": [],
                                                       "acceptance": [], "drives": [], "fleet": {"fail_on": []}}})
    drive_dir = write_drive(run_dir, "h1", "d1")
    for name, tree in TREES.items():
        shutil.copytree(tree, os.path.join(drive_dir, name))
    previous = os.environ.get("PTS_REPORT_FORMATS")
    os.environ["PTS_REPORT_FORMATS"] = "html"
    try:
        written = _drive_report.write_drive_report(drive_dir)
        summary = _fleet_summary.summarize([run_dir], run_dir)
    finally:
        if previous is None:
            del os.environ["PTS_REPORT_FORMATS"]
        else:
            os.environ["PTS_REPORT_FORMATS"] = previous
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        fleet = handle.read()
    return run_dir, drive_dir, written["model"], markdown, summary, fleet


def _measure(drive_dir: str, test: str) -> dict:
    """The MaxIOPS point's measurement section, read straight from its round file (points round 1)."""
    rnd = _results.read_json(os.path.join(drive_dir, test, "points", "round-01.json"))
    assert rnd["row"]["point"] == "max"
    return next(j for j in rnd["fio"]["jobs"] if j["name"] == f"{test}-max-measure")


def test_maxiops_figures_are_the_points_own_measurement(pts2):
    dummy, drive_dir, model, markdown, dummy2, dummy3 = pts2
    block = model["headline"]
    for test in ("cbw", "dirth"):
        job = _measure(drive_dir, test)
        merged = _histogram.merge(*[job[d]["histogram"]["bins"] for d in ("read", "write") if job[d]["total_ios"]])
        assert block[f"{test}_max_iops"]["value"] == pytest.approx(job["total"]["iops"])
        assert block[f"{test}_max_art_ms"]["value"] == pytest.approx(job["total"]["lat_ns"]["mean"] / 1e6)
        # The point's IOs are a quick run's tens of thousands: too few for its 99.999 % - flagged, not a number.
        ios = _histogram.total(merged)
        assert ios < _histogram.needed("99.999") and block[f"{test}_max_p99999_ms"]["value"] is None
        point = model["tests"][test]["headline"]["max_point"]
        assert block[f"{test}_max_iops"]["what"].endswith(f"({point})")
        assert (f"| {test.upper()} MaxIOPS ({point}) | {job['total']['iops']:,.0f} IOPS · mean response time "
                f"{job['total']['lat_ns']['mean'] / 1e6:,.3f} ms · 99.999 % n/r ({ios:,} IOs, 1,000,000 needed) |") \
            in markdown


def test_xsr_recovery_and_hir_gains_come_from_their_samples(pts2):
    dummy, drive_dir, model, markdown, dummy2, dummy3 = pts2
    xsr, hir = model["tests"]["xsr"], model["tests"]["hir"]
    assert model["headline"]["xsr_recovery_min"]["value"] == xsr["transitions"]["recovery"]["minutes"]
    assert model["headline"]["xsr_recovery_min"]["steady"] is (xsr["status"] == "complete")
    for entry in hir["wait_states"]:
        bursts = [r for r in os.listdir(os.path.join(drive_dir, "hir", f"ws{entry['wait_state']}"))
                  if r == "round-01.json"]
        assert bursts and entry["gain"] == pytest.approx(entry["bursts"]["mean"] / hir["precondition"]["iops"])
        assert model["headline"][f"hir_gain_ws{entry['wait_state']}"]["value"] == pytest.approx(entry["gain"])
    gains = " · ".join(f"{e['label']} ×{e['gain']:.2f}" for e in hir["wait_states"])
    assert f"| HIR gain per wait state (mean burst IOPS ÷ preconditioning) | {gains}" in markdown
    assert "| XSR recovery |" in markdown


def test_a_pts2_only_summary_has_no_rows_of_tests_it_did_not_run(pts2):
    dummy, dummy2, model, markdown, dummy3, dummy4 = pts2
    summary = markdown.split("## Contents")[0]
    assert "not measured" not in summary and "4k random write" not in summary and "Write saturation" not in summary
    # Rounds by part, and fio's I/O against its processes' time.
    assert "| Composite Block Size Workload | " in summary
    assert "(preconditioning: " in summary and " + TC × QD loop: " in summary and " + operating points: 3)" in summary
    assert "TC x QD" not in markdown
    assert "| Round | CBW 0/100 TC2/QD4 IOPS |" in markdown and "| Round | 4k 40/60 IOPS" not in markdown


def test_fleet_summary_gives_each_pts2_test_a_column_and_json_the_figures(pts2):
    run_dir, drive_dir, model, dummy, summary, fleet = pts2
    (drive,) = summary["drives"]
    for figure in ("cbw_max_iops", "dirth_max_p99999_ms", "xsr_recovery_min", "hir_gain_ws1"):
        assert drive["headline"][figure] == model["headline"][figure]["value"]
    assert "## PTS 2.0 tests" in fleet and "| Host | Drive | CBW MaxIOPS (IOPS · ART ms · 99.999 % ms) |" in fleet
    # No PTS-E 1.1 test ran: none of their columns, whose cells would all be dashes.
    assert "4k write IOPS" not in fleet and "1024k read MB/s" not in fleet and "Write saturation" not in fleet
    cbw = f"{drive['headline']['cbw_max_iops']:,.0f} · {drive['headline']['cbw_max_art_ms']:,.3f} · "
    assert cbw in fleet


def test_the_history_index_holds_the_pts2_figures_of_a_drive_that_ran_them(pts2):
    run_dir = pts2[0]
    conn = sqlite3.connect(os.path.join(os.path.dirname(run_dir), "pts-history.sqlite"))
    figures = {row[0]: row[1] for row in conn.execute("SELECT figure, value FROM figures WHERE run_id = 'run-2'")}
    conn.close()
    model = pts2[2]
    for figure in ("cbw_max_iops", "cbw_max_art_ms", "dirth_max_iops", "xsr_recovery_min", "hir_gain_ws10"):
        assert figures[figure] == model["headline"][figure]["value"]
    # PTS-E 1.1's figures always have a row (without a value here); no other optional figure does.
    assert figures["iops_4k_write"] is None and len(figures) == 5 + 3 + 3 + 1 + 5
    assert statistics.fmean(v for k, v in figures.items() if k.startswith("hir_gain") and v is not None) > 0
