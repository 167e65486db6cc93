# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
from xml.etree import ElementTree

import pytest

from conftest import write_drive, write_segment

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_figures, _fleet_md, _fleet_summary


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


@pytest.mark.parametrize("fail_on", [[], ["FAIL"], ["FAIL", "INCOMPLETE"]])
def test_an_incomplete_drive_fails_the_run_whatever_fail_on_says(tmp_path, fail_on):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/x"}], [])
    summary = _fleet_summary.summarize([run_dir], str(tmp_path / "out"), {"fail_on": fail_on})
    assert summary["counts"]["INCOMPLETE"] == 1 and summary["failed"] is True and summary["fail_on"] == fail_on
    with open(os.path.join(tmp_path, "out", "fleet.md"), encoding="utf-8") as handle:
        assert "Exit status: **fails** — 1 drive INCOMPLETE (not every planned test finished)." in handle.read()


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
    # A summary written after a play that lost every drive: no fail_on given, the plan's empty one applies - and the
    # run still fails, as a drive that was not tested never passes.
    summary = _fleet_summary.summarize([run_dir], run_dir)
    assert summary["fail_on"] == [] and summary["failed"] is True and summary["errors"] == []
    (drive,) = summary["drives"]
    assert drive["verdict"] == "INCOMPLETE"
    assert drive["reasons"] == ["IOPS: the purge failed before the first round: blkdiscard /dev/d1 failed (rc 1): "
                                "Operation not supported"]
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **fails** — 1 drive INCOMPLETE (not every planned test finished)." in markdown
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


# --- the exit status: drives not tested always fail the run -----------------------------------------------------------

def _drives(*verdicts: str) -> list[dict]:
    return [{"verdict": v} for v in verdicts]


@pytest.mark.parametrize("fail_on, verdicts, errors, line", [
    ([], ("PASS", "FAIL"), 0,
     "Exit status: **passes** — every drive finished its tests, and `pts_fleet_fail_on` names no other verdict that "
     "fails the run (the verdicts above still stand)."),
    (["INCOMPLETE"], ("PASS", "FAIL"), 0,
     "Exit status: **passes** — every drive finished its tests, and `pts_fleet_fail_on` names no other verdict that "
     "fails the run (the verdicts above still stand)."),
    (["FAIL", "INCOMPLETE"], ("PASS", "PASS"), 0,
     "Exit status: **passes** — every drive finished its tests, and none has a verdict in `pts_fleet_fail_on` "
     "(FAIL, INCOMPLETE)."),
    (["FAIL", "INCOMPLETE"], ("PASS", "FAIL", "FAIL"), 0,
     "Exit status: **fails** — 2 drives with a verdict in `pts_fleet_fail_on` (FAIL, INCOMPLETE)."),
    # An INCOMPLETE drive is said once, as not tested, not again as a verdict of fail_on.
    (["FAIL", "INCOMPLETE"], ("INCOMPLETE", "FAIL"), 0,
     "Exit status: **fails** — 1 drive INCOMPLETE (not every planned test finished); 1 drive with a verdict in "
     "`pts_fleet_fail_on` (FAIL, INCOMPLETE)."),
    ([], ("INCOMPLETE", "INCOMPLETE", "PASS"), 0,
     "Exit status: **fails** — 2 drives INCOMPLETE (not every planned test finished)."),
    ([], ("PASS",), 1,
     "Exit status: **fails** — 1 run error (a host whose drives were not tested, results not published)."),
    (["FAIL"], ("FAIL", "INCOMPLETE"), 2,
     "Exit status: **fails** — 2 run errors (a host whose drives were not tested, results not published); 1 drive "
     "INCOMPLETE (not every planned test finished); 1 drive with a verdict in `pts_fleet_fail_on` (FAIL)."),
])
def test_the_exit_line_says_what_fails_the_run(fail_on, verdicts, errors, line):
    summary = {"fail_on": fail_on, "drives": _drives(*verdicts),
               "errors": [{"host": f"h{i}", "msg": "x"} for i in range(errors)]}
    assert _fleet_md._exit_line(summary) == line


def _host_failure(run_dir, host_dir, **record):
    _results.atomic_write_json(os.path.join(run_dir, host_dir, "host-failure.json"), record)


def test_a_host_that_failed_before_its_drives_is_a_run_error_whatever_fail_on_says(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/d0"}], [])
    _drive(run_dir, "h1", "d0", 1.0)
    # h2 never got as far as a plan: the guard's task failed.
    _host_failure(run_dir, "h2", host="h2", task="Refuse a drive the guard does not pass",
                  msg="the guard refused /dev/sdb: mounted at /srv", recorded_at="2026-11-26T07:00:00.000+00:00")
    (tmp_path / "run-1" / "h3").mkdir()
    (tmp_path / "run-1" / "h3" / "host-failure.json").write_text("[1, 2]")
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": []})
    assert summary["errors"] == [
        {"host": "h2", "task": "Refuse a drive the guard does not pass", "msg": "the guard refused /dev/sdb: mounted "
         "at /srv", "recorded_at": "2026-11-26T07:00:00.000+00:00"},
        {"host": "h3", "task": None, "msg": f"its failure record cannot be read: {run_dir}/h3/host-failure.json: holds "
         "a JSON list, not the mapping the collection writes there", "recorded_at": None}]
    assert summary["failed"] is True and [d["id"] for d in summary["drives"]] == ["h1/d0"]
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **fails** — 2 run errors (a host whose drives were not tested" in markdown
    assert ("## Run errors\n\n- **h2**: Refuse a drive the guard does not pass failed — the guard refused /dev/sdb: "
            "mounted at /srv\n- **h3**: a step failed — ") in markdown
    suite = ElementTree.parse(os.path.join(run_dir, "junit.xml")).getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in suite}
    assert cases[("pts.h2", "Refuse a drive the guard does not pass")].find("error").get("message") == \
        "the guard refused /dev/sdb: mounted at /srv"
    assert ("pts.h3", "run") in cases and suite.get("errors") == "2"
    # A later error (a publishing that failed) is one more.
    later = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": []},
                                     errors=[{"host": "results-1", "task": "Publish", "msg": "rsync: denied"}])
    assert later["errors"][-1] == {"host": "results-1", "task": "Publish", "msg": "rsync: denied"}
    assert len(later["errors"]) == 3


def test_hosts_another_live_process_runs_are_listed_not_judged(tmp_path):
    run_dir = str(tmp_path / "run-1")
    for host in ("h1", "h2"):
        _plan(run_dir, host, [{"path": "/dev/d0"}], [])
        _drive(run_dir, host, "d0", 1.0)
    _plan(run_dir, "h3", [{"path": "/dev/d0"}], [])  # nothing tested yet: INCOMPLETE, were it judged
    _host_failure(run_dir, "h3", msg="an earlier attempt's")  # and not an error either, while it runs
    busy = [{"run_dir": run_dir, "host": "h3", "by": "ansible-playbook PID 4711 on ctl1 (slice 2)"}]
    # The judge of one slice of the run (judge.yml): the other slice's hosts are listed, and do not fail it.
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]}, in_progress=busy, slice_of_run=True)
    assert [d["id"] for d in summary["drives"]] == ["h1/d0", "h2/d0"]
    assert summary["errors"] == [] and summary["failed"] is False
    by = "ansible-playbook PID 4711 on ctl1 (slice 2)"
    assert summary["in_progress"] == [{"host": "h3", "run": "run-1", "by": by}]
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "## Still running" in markdown and f"- **h3** (run-1): {by}" in markdown
    assert "## Run errors" not in markdown
    # Once that slice is over, the same tree judges h3 too.
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]})
    assert "h3/d0" in [d["id"] for d in summary["drives"]] and summary["failed"] is True
    assert summary["in_progress"] == [] and len(summary["errors"]) == 1


@pytest.mark.parametrize("failed_purge, reason", [
    (False, "none of its tests started: no drive worker ran it (a host limit that left the run's workers out, or a "
            "run stopped before its drives)"),
    (True, "IOPS: the purge failed before the first round: blkdiscard failed"),
])
def test_a_planned_drive_no_worker_ran_is_incomplete_and_says_why(tmp_path, failed_purge, reason):
    run_dir = str(tmp_path / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [],
                                                       "drives": [{"key": "d1", "tests": [{"test": "iops"}]}],
                                                       "fleet": {"fail_on": ["FAIL"]}}})
    write_drive(run_dir, "h1", "d1")
    if failed_purge:
        _failed_purge(run_dir, "h1", "d1", "blkdiscard failed")
    summary = _fleet_summary.summarize([run_dir], run_dir)
    (drive,) = summary["drives"]
    assert drive["verdict"] == "INCOMPLETE" and summary["failed"] is True
    assert any(reason in r for r in drive["reasons"]), drive["reasons"]


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
    line = ("Exit status: **passes** — every drive finished its tests, and none has a verdict in "
            "`pts_fleet_fail_on` (FAIL).")
    assert _fleet_figures.exit_status(summary["drives"], ["FAIL"]) == {"failed": False, "line": line}
    assert _fleet_figures.exit_status([{"verdict": "FAIL"}], ["FAIL"])["failed"] is True
    assert line in markdown


# --- files that are not what they claim, a summary of a live run (issue 43) -------------------------------------------

def _spoil(drive_dir: str, how: str) -> str:
    """One file of the drive made what an attacker or a broken disk would leave: return its path."""
    path = os.path.join(drive_dir, "iops", "round-03.json")
    if how == "sparse":
        with open(path, "r+b") as handle:
            handle.truncate(300 << 20)
    elif how == "bomb":
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("{\"a\": " * 50000 + "1" + "}" * 50000)
    elif how == "fifo":
        os.unlink(path)
        os.mkfifo(path)
    elif how == "aborted":
        # A round the f5a0f10 code recorded from a fio that aborted: every figure 0.0.
        record = _results.read_json(path)
        for job in record["fio"]["jobs"]:
            for direction in ("read", "write"):
                job[direction].update(iops=0.0, bw_bytes=0.0, io_bytes=0, total_ios=0)
        _results.atomic_write_json(path, record)
    return path


def test_each_bad_file_fails_its_drive_alone_naming_it_and_the_summary_is_written(tmp_path, base_dv):
    run_dir = str(tmp_path / "run-1")
    kinds = ("sparse", "bomb", "fifo", "aborted")
    rule = [{"name": "ACME", "model": "ACME*", "min_iops_4k_write": base_dv * 0.5}]
    _plan(run_dir, "h1", [{"path": f"/dev/{d}"} for d in ("good",) + kinds], rule)
    _drive(run_dir, "h1", "good", 1.0)
    spoiled = {}
    for kind in kinds:
        _drive(run_dir, "h1", kind, 1.0)
        spoiled[kind] = _spoil(os.path.join(run_dir, "h1", kind), kind)
    # result.json whose verdict is a string: not used as it is - the drive is judged from its rounds again.
    good = os.path.join(run_dir, "h1", "good")
    _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]})
    model = _results.read_json(os.path.join(good, "result.json"))
    model["verdict"] = "PASS"
    _results.atomic_write_json(os.path.join(good, "result.json"), model)

    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]})
    by_id = {d["id"]: d for d in summary["drives"]}
    assert by_id["h1/good"]["verdict"] == "PASS"
    assert isinstance(_results.read_json(os.path.join(good, "result.json"))["verdict"], dict)
    whys = {"sparse": "bytes, more than the 67,108,864 bytes allowed for it: not read",
            "bomb": "JSON nested deeper than 64 levels: not read", "fifo": "is a FIFO, not a regular file: not read",
            "aborted": "completed no I/O (a run fio aborted or in which it wrote nothing): a failed round, not a "
                       "figure of 0"}
    for kind in kinds:
        drive = by_id[f"h1/{kind}"]
        assert drive["verdict"] == "INCOMPLETE", kind
        assert drive["reasons"][0].startswith(f"its results cannot be read: {spoiled[kind]}: "), drive["reasons"]
        assert whys[kind] in drive["reasons"][0]
    assert summary["failed"] is True
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **fails**" in markdown and "h1 | aborted" in markdown
    assert _results.read_json(os.path.join(run_dir, "fleet.json"))["counts"] == {"PASS": 1, "FAIL": 0, "INCOMPLETE": 4}


def test_a_summary_from_outside_a_live_run_fails_in_progress(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/d0"}], [])
    _drive(run_dir, "h1", "d0", 1.0)
    _plan(run_dir, "h2", [{"path": "/dev/d0"}], [])
    busy = [{"run_dir": run_dir, "host": "h2", "by": "ansible-playbook PID 4711 on ctl1 (playbooks/pts.yml)"}]
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]}, in_progress=busy)
    assert summary["failed"] is True and summary["in_progress_fails"] is True
    assert summary["counts"] == {"PASS": 1, "FAIL": 0, "INCOMPLETE": 0}
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **fails** — in progress: 1 host still running, not judged yet" in markdown
    assert "this summary was written from outside the run while it runs" in markdown
    suite = ElementTree.parse(os.path.join(run_dir, "junit.xml")).getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in suite}
    assert cases[("pts.h2", "in progress")].find("error") is not None and suite.get("errors") == "1"


def test_a_host_directory_another_user_owns_is_a_run_error_and_nothing_below_it_is_read(tmp_path):
    run_dir = str(tmp_path / "run-1")
    _plan(run_dir, "h1", [{"path": "/dev/d0"}], [])
    _drive(run_dir, "h1", "d0", 1.0)
    _plan(run_dir, "h2", [{"path": "/dev/d0"}], [])
    _drive(run_dir, "h2", "d0", 1.0)
    os.chown(os.path.join(run_dir, "h2"), 65534, 65534)
    summary = _fleet_summary.summarize([run_dir], run_dir, {"fail_on": ["FAIL"]})
    assert [d["id"] for d in summary["drives"]] == ["h1/d0"]
    (error,) = summary["errors"]
    assert error["host"] == "h2" and error["msg"] == (
        f"its results cannot be read: {run_dir}/h2: it is owned by uid 65534, not root: root reads and writes nothing "
        "that another user could swap for a link (make it root's and writable by nobody else)")
    assert summary["failed"] is True
