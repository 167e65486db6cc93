# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
from xml.etree import ElementTree

from conftest import write_drive, write_segment

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _fleet, _results


def _plan(run_dir, host, listed, acceptance):
    _results.file_payload(run_dir, host, {"pts_plan": {"tests": [{"name": "iops"}], "listed": listed,
                                                       "acceptance": acceptance, "drives": []}})


def _drive(run_dir, host, drive, factor, model="ACME X1"):
    path = write_drive(run_dir, host, drive)
    info = _results.read_json(os.path.join(path, "drive.json"))
    info["drive"].update(model=model, firmware="2.1", spec={"path": f"/dev/{drive}"})
    _results.atomic_write_json(os.path.join(path, "drive.json"), info)
    write_segment(run_dir, host, drive, "iops", [factor] * 5)


def test_fleet_summary_verdicts_outliers_and_junit(tmp_path, base_dv):
    run_dir = str(tmp_path / "results" / "run-1")
    rule = [{"name": "ACME", "model": "ACME*", "min_iops_4k_write": base_dv * 0.9}]
    _plan(run_dir, "h1", [{"path": f"/dev/d{i}"} for i in range(4)], rule)
    _plan(run_dir, "h2", [{"path": "/dev/d9", "name": "gone"}, {"path": "/dev/d8"}], rule)
    for i, factor in enumerate((1.0, 1.01, 0.99, 0.8)):  # d3: below the limit and far from its cohort
        _drive(run_dir, "h1", f"d{i}", factor)
    _drive(run_dir, "h2", "d8", 1.0)
    _results.atomic_write_json(os.path.join(run_dir, "h2", "lost.json"), {"msg": "ssh: connect timed out"})

    out = str(tmp_path / "fleet")
    summary = _fleet.summarize([run_dir], out, fail_on=["FAIL", "INCOMPLETE"])
    verdicts = {d["id"]: d["verdict"] for d in summary["drives"]}
    assert verdicts == {"h1/d0": "PASS", "h1/d1": "PASS", "h1/d2": "PASS", "h1/d3": "FAIL", "h2/d8": "PASS",
                        "h2/gone": "INCOMPLETE"}
    assert summary["counts"] == {"PASS": 4, "FAIL": 1, "INCOMPLETE": 1} and summary["failed"] is True
    by_id = {d["id"]: d for d in summary["drives"]}
    assert by_id["h2/gone"]["reasons"] == ["host lost: ssh: connect timed out"]
    (outlier,) = by_id["h1/d3"]["outliers"]
    assert outlier["figure"] == "iops_4k_write" and outlier["cohort_size"] == 5
    assert by_id["h1/d3"]["headline"]["iops_4k_write"] == base_dv * 0.8

    suite = ElementTree.parse(os.path.join(out, "junit.xml")).getroot()
    assert suite.get("failures") == "2" and suite.get("errors") == "1"  # the criterion + the FAIL verdict; gone
    cases = {(c.get("classname"), c.get("name")): c for c in suite}
    assert cases[("pts.h1.d3", "min_iops_4k_write")].find("failure") is not None
    assert cases[("pts.h1.d0", "min_iops_4k_write")].find("failure") is None
    assert cases[("pts.h2.gone", "verdict")].find("error") is not None
    with open(os.path.join(out, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "**4 PASS · 1 FAIL · 1 INCOMPLETE** of 6 drive(s)" in markdown
    assert "| h1 | d3 | ACME X1 | 2.1 | **FAIL** ⚑ |" in markdown
    assert "[report](../results/run-1/h1/d3/report.md)" in markdown
    assert _results.read_json(os.path.join(out, "fleet.json"))["counts"]["FAIL"] == 1
    assert os.path.exists(os.path.join(out, "plots", "cohort-01.png"))


def test_fail_on_can_ignore_incomplete(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/x"}], [])
    summary = _fleet.summarize([run_dir], str(tmp_path / "out"), fail_on=["FAIL"])
    assert summary["counts"]["INCOMPLETE"] == 1 and summary["failed"] is False


def test_slices_of_several_controllers_merge_into_one_summary(tmp_path):
    slices = [str(tmp_path / "controller-a" / "slice1"), str(tmp_path / "controller-b" / "slice2")]
    _plan(slices[0], "h1", [{"path": "/dev/d0"}], [])
    _drive(slices[0], "h1", "d0", 1.0)
    _plan(slices[1], "h2", [{"path": "/dev/d0"}], [])
    _drive(slices[1], "h2", "d0", 1.0)
    summary = _fleet.summarize(slices, str(tmp_path / "merged"), fail_on=["FAIL"])
    assert summary["runs"] == ["slice1", "slice2"]
    assert sorted(d["id"] for d in summary["drives"]) == ["h1/d0", "h2/d0"]
    assert {d["run"] for d in summary["drives"]} == {"slice1", "slice2"}


def _failed_purge(run_dir, host, drive, msg):
    _results.file_payload(run_dir, host, {"pts_guard": [{"key": drive, "path": f"/dev/{drive}", "passed": True}]})
    _results.file_payload(run_dir, host, {"failed": True, "msg": msg,
                                          "pts_context": {"drive": drive, "test": "iops", "settings": {}}})


def test_every_drive_failed_and_fail_on_as_the_plan_recorded_it(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [], "drives": [],
                                                       "fleet": {"fail_on": []}}})
    write_drive(run_dir, "h1", "d1")
    _failed_purge(run_dir, "h1", "d1", "blkdiscard /dev/d1 failed (rc 1): Operation not supported")
    # The callback's summary after a play that lost every drive: no fail_on given, the plan's empty one applies.
    summary = _fleet.summarize([run_dir], run_dir)
    assert summary["fail_on"] == [] and summary["failed"] is False
    (drive,) = summary["drives"]
    assert drive["verdict"] == "INCOMPLETE"
    assert drive["reasons"] == ["iops: the purge failed before the first round: blkdiscard /dev/d1 failed (rc 1): "
                                "Operation not supported"]
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "The run fails on: nothing — passed." in markdown
    assert "iops: the purge failed before the first round: blkdiscard /dev/d1 failed" in markdown
    assert "not run" not in markdown


def test_fail_on_recorded_by_several_plans_and_none_recorded(tmp_path):
    run_dir = str(tmp_path / "run-1")
    assert _fleet.recorded_fail_on([run_dir]) == ["FAIL", "INCOMPLETE"]
    _results.file_payload(run_dir, "h1", {"pts_plan": {"fleet": {"fail_on": ["FAIL"]}}})
    _results.file_payload(run_dir, "h2", {"pts_plan": {"fleet": {"fail_on": []}}})
    assert _fleet.recorded_fail_on([run_dir]) == ["FAIL"]


def test_drive_strings_cannot_shift_the_verdict_column_or_inject_markup(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/d0"}], [])
    # $...$ would be matplotlib math in the plots' titles (an unknown command fails the whole report).
    _drive(run_dir, "h1", "d0", 1.0, model="X1 | PASS | <img src=x>\x1b[2J $\\nocommand$")
    summary = _fleet.summarize([run_dir], run_dir, fail_on=[])
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    row = next(line for line in markdown.splitlines() if line.startswith("| h1 | d0 |"))
    assert row.startswith("| h1 | d0 | X1 \\| PASS \\| &lt;img src=x&gt; $\\\\nocommand$ | 2.1 | **PASS** |")
    assert "\x1b" not in markdown and "<img" not in markdown
    assert summary["drives"][0]["model"].startswith("X1 | PASS | <img src=x>\x1b[2J")  # fleet.json keeps the drive's own
    ElementTree.parse(os.path.join(run_dir, "junit.xml"))  # no control character breaks the XML
