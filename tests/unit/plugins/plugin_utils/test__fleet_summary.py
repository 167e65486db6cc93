# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
from xml.etree import ElementTree

import pytest

from conftest import write_drive, write_segment

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary


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
    summary = _fleet_summary.summarize([run_dir], out, {"fail_on": ["FAIL", "INCOMPLETE"]})
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
    # These drives ran the quick profile (conftest): their verdicts never read as a qualification's.
    quick = "(quick profile — not a qualification)"
    assert f"**4 PASS {quick} · 1 FAIL {quick} · 1 INCOMPLETE** of 6 drives." in markdown
    assert f"| h1 | d3 | — | ACME X1 | 2.1 | **FAIL {quick}** ⚑ |" in markdown
    assert "[report](../results/run-1/h1/d3/report.html)" in markdown
    assert _results.read_json(os.path.join(out, "fleet.json"))["counts"]["FAIL"] == 1
    assert os.path.exists(os.path.join(out, "plots", "cohort-01.png"))


def test_fail_on_can_ignore_incomplete(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/x"}], [])
    summary = _fleet_summary.summarize([run_dir], str(tmp_path / "out"), {"fail_on": ["FAIL"]})
    assert summary["counts"]["INCOMPLETE"] == 1 and summary["failed"] is False


def test_slices_of_several_controllers_merge_into_one_summary(tmp_path):
    slices = [str(tmp_path / "controller-a" / "slice1"), str(tmp_path / "controller-b" / "slice2")]
    _plan(slices[0], "h1", [{"path": "/dev/d0"}], [])
    _drive(slices[0], "h1", "d0", 1.0)
    _plan(slices[1], "h2", [{"path": "/dev/d0"}], [])
    _drive(slices[1], "h2", "d0", 1.0)
    summary = _fleet_summary.summarize(slices, str(tmp_path / "merged"), {"fail_on": ["FAIL"]})
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
    summary = _fleet_summary.summarize([run_dir], run_dir)
    assert summary["fail_on"] == [] and summary["failed"] is False
    (drive,) = summary["drives"]
    assert drive["verdict"] == "INCOMPLETE"
    assert drive["reasons"] == ["IOPS: the purge failed before the first round: blkdiscard /dev/d1 failed (rc 1): "
                                "Operation not supported"]
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **passes** — `pts_fleet_fail_on` is empty, so no verdict fails the run" in markdown
    assert "IOPS: the purge failed before the first round: blkdiscard /dev/d1 failed" in markdown
    assert "not run" not in markdown


def test_drive_strings_cannot_shift_the_verdict_column_or_inject_markup(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/d0"}], [])
    # $...$ would be matplotlib math in the plots' titles (an unknown command fails the whole report).
    _drive(run_dir, "h1", "d0", 1.0, model="X1 | PASS | <img src=x>\x1b[2J $\\nocommand$")
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": []})
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    row = next(line for line in markdown.splitlines() if line.startswith("| h1 | d0 |"))
    assert row.startswith("| h1 | d0 | — | X1 \\| PASS \\| &lt;img src=x&gt; $\\\\nocommand$ | 2.1 | **PASS (quick")
    assert "\x1b" not in markdown and "<img" not in markdown
    assert summary["drives"][0]["model"].startswith("X1 | PASS | <img src=x>\x1b[2J")  # fleet.json keeps the drive's own
    ElementTree.parse(os.path.join(run_dir, "junit.xml"))  # no control character breaks the XML


def test_a_quick_profile_fleet_reads_as_no_qualification_and_junit_has_times_and_write_saturation(tmp_path):
    from conftest import SETTINGS
    run_dir = str(tmp_path / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}, {"name": "wsat"}], "listed": [],
                                                       "acceptance": [], "drives": [], "fleet": {"fail_on": []}}})
    for name in ("d0", "d1"):
        _drive(run_dir, "h1", name, 1.0)  # 5 equal rounds: steady at round 5 (quick profile)
        wsat = dict(SETTINGS["wsat"], wsat={"target_bytes": 200_000_000, "capacity_multiple": 4, "max_hours": 0.05})
        write_segment(run_dir, "h1", name, "wsat", [1.0] * 4, settings=wsat)
    summary = _fleet_summary.summarize([run_dir], run_dir)
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **Quick profile — not a qualification**: every drive ran the quick profile" in markdown
    assert "some drives ran the quick profile" not in markdown
    assert "The run fails on: nothing — passed" not in markdown
    assert "**2 PASS (quick profile — not a qualification) · 0 FAIL · 0 INCOMPLETE** of 2 drives." in markdown
    assert "| h1 | d0 | — | ACME X1 | 2.1 | **PASS (quick profile — not a qualification)** |" in markdown
    assert "| complete, 4.22 × |" in markdown
    # Only the figure columns some drive has: these ran IOPS and write saturation, no latency.
    assert "| Verdict | 4k write IOPS | Write saturation |" in markdown
    assert "4k write p99.99 ms" not in markdown and "mean of the window rounds' own p99.99 values" not in markdown
    assert summary["drives"][0]["label"] == "PASS (quick profile — not a qualification)"
    assert summary["drives"][0]["time_s"] == pytest.approx(sum(summary["drives"][0]["test_times"].values()))

    suite = ElementTree.parse(os.path.join(run_dir, "junit.xml")).getroot()
    assert float(suite.get("time")) == pytest.approx(sum(d["time_s"] for d in summary["drives"]), abs=0.002)
    cases = {(c.get("classname"), c.get("name")): c for c in suite}
    wsat = cases[("pts.h1.d0", "wsat: write saturation")]
    assert wsat.find("failure") is None and "complete: 4.22 × capacity written" in wsat.find("system-out").text
    assert float(wsat.get("time")) == pytest.approx(summary["drives"][0]["test_times"]["wsat"], abs=0.002)
    verdict = cases[("pts.h1.d0", "verdict")]
    assert verdict.find("system-out").text == "PASS (quick profile — not a qualification)"
    assert verdict.find("properties/property").get("value") == "quick (not a qualification)"
    # The fleet view: both drives of the model on one overlay plot, linked from fleet.md and embedded in fleet.html.
    assert "![Model ACME X1](plots/model-01.png)" in markdown
    assert os.path.exists(os.path.join(run_dir, "plots", "model-01.png"))
    with open(os.path.join(run_dir, "fleet.html"), encoding="utf-8") as handle:
        page = handle.read()
    assert 'src="data:image/png;base64,' in page and "plots/model-01.png" not in page


def test_throughput_not_steady_names_the_block_sizes_and_the_limit_per_block_size(tmp_path):
    from conftest import write_segment as segment
    run_dir = str(tmp_path / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "throughput"}], "listed": [],
                                                       "acceptance": [], "drives": [], "fleet": {"fail_on": []}}})
    write_drive(run_dir, "h1", "d0")
    segment(run_dir, "h1", "d0", "throughput", [1.0] * 5, segment="1024k", fixture="fio-3.33-throughput-1048576.json")
    segment(run_dir, "h1", "d0", "throughput", [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2], segment="64k",
            fixture="fio-3.33-throughput-65536.json")
    summary = _fleet_summary.summarize([run_dir], run_dir)
    reason = ("Throughput: steady state required, not reached by 64k read, 64k write within the 8-round limit per "
              "block size")
    assert summary["drives"][0]["reasons"] == [reason]
    for name in ("fleet.md", "fleet.json", "junit.xml"):
        with open(os.path.join(run_dir, name), encoding="utf-8") as handle:
            text = handle.read()
        assert reason in text, name
        assert "not reached in 13 rounds" not in text, name


def test_fleet_md_says_when_no_rule_matched_no_cohort_was_compared_and_when_the_drives_were_tested(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [], [{"name": "other", "model": "OTHER*", "min_iops_4k_write": 1.0}])
    for name in ("d0", "d1"):
        _drive(run_dir, "h1", name, 1.0)
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]})
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    tested = [d["tested"] for d in summary["drives"]]
    first, last = min(t["from"] for t in tested), max(t["to"] for t in tested)
    assert f"Tested {first[:16].replace('T', ' ')} – {last[:16].replace('T', ' ')} UTC" in markdown
    assert ("No acceptance rule matched: no drive's model and firmware matches a rule of `pts_acceptance` "
            "(ACME X1); every drive is judged on its tests alone") in markdown
    assert ("**No cohort was compared**: none had 3 drives or more with a steady figure "
            "(`pts_fleet_outlier_min_cohort`). Cohorts: ACME X1 / 2.1: 2 drives.") in markdown
    # The exit status and its line come from one function (every reason to fail the run decided there).
    assert _fleet_summary.exit_status(summary["drives"], ["FAIL"]) == {
        "failed": False, "line": "Exit status: **passes** — no drive has a verdict in `pts_fleet_fail_on` (FAIL)."}
    assert _fleet_summary.exit_status([{"verdict": "FAIL"}], ["FAIL"])["failed"] is True
    assert "Exit status: **passes** — no drive has a verdict in `pts_fleet_fail_on` (FAIL)." in markdown
