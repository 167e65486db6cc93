# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

import pytest
from conftest import CAPACITY, write_segment

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _resume
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._recorded_drives import LOOP_A, NVME


def _verdict(run_dir: str, test: str, number: int, segment: str = "", **verdict) -> None:
    """The stop rule's verdict after a round, filed as the run files it (with the round)."""
    context = {"drive": "d1", "test": test, "segment": segment, "phase": "round", "round": number}
    _results.file_payload(run_dir, "h1", {"pts_steady_state": dict(verdict, round=number), "pts_context": context})


def _planned(test: str, *segments: tuple[str, str]) -> dict:
    return {"test": test, "stop": "steady", "done": False,
            "segments": [{"name": name, "stop": stop} for name, stop in segments or [("", "steady")]]}


def test_finished_tests_are_kept_and_interrupted_ones_are_not(make_run, tmp_path):
    drive_dir = make_run([1.0] * 5)  # IOPS steady at round 5
    run_dir = os.path.dirname(os.path.dirname(drive_dir))
    _verdict(run_dir, "iops", 5, stop=True, steady=True)
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.0])  # interrupted after two rounds
    _verdict(run_dir, "latency", 2, stop=False, steady=False)
    planned = [_planned("iops"), _planned("latency")]
    assert _resume.finished_tests(drive_dir, planned) == {"iops": "steady"}
    plan = {"drives": [{"key": "d1", "tests": planned}]}
    _resume.mark_done(plan, str(tmp_path), "run-1", "h1")
    assert [(t["test"], t["done"], t.get("status")) for t in plan["drives"][0]["tests"]] == [
        ("iops", True, "steady"), ("latency", False, None)]
    assert _resume.finished_tests(str(tmp_path / "nothing"), planned) == {}


def test_a_test_is_finished_only_when_every_segment_ran_to_its_stop_rule(make_run):
    drive_dir = make_run([1.0] * 3)
    run_dir = os.path.dirname(os.path.dirname(drive_dir))
    # The round limit without steady state is the stop rule's end too: not steady, and finished.
    _verdict(run_dir, "iops", 3, stop=True, steady=False)
    assert _resume.finished_tests(drive_dir, [_planned("iops")]) == {"iops": "not steady"}
    # A multi-phase test: its preconditioning steady, its first wait state done, its second never started.
    write_segment(run_dir, "h1", "d1", "iops", [1.0], segment="precondition", purge=False)
    _verdict(run_dir, "iops", 1, segment="precondition", stop=True, steady=True)
    write_segment(run_dir, "h1", "d1", "iops", [1.0, 1.0], segment="ws1", purge=False)
    _verdict(run_dir, "iops", 2, segment="ws1", stop=True)
    hir = _planned("iops", ("precondition", "steady"), ("ws1", "sweep"))
    assert _resume.test_status(os.path.join(drive_dir, "iops"), hir) == "steady"
    hir["segments"].append({"name": "ws2", "stop": "sweep"})
    assert _resume.test_status(os.path.join(drive_dir, "iops"), hir) is None
    # A failure after the last verdict: the test starts again.
    _results.file_payload(run_dir, "h1", {"failed": True, "msg": "fio exited with rc 1", "pts_context": {
        "drive": "d1", "test": "iops", "segment": "ws1", "phase": "round", "round": 3}})
    assert _resume.test_status(os.path.join(drive_dir, "iops"), _planned("iops", ("ws1", "sweep"))) is None


def test_a_failure_is_recorded_as_evidence_and_the_test_reads_failed(tmp_path):
    from conftest import write_drive
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "iops", [1.0, 1.0])
    context = {"drive": "d1", "test": "iops", "phase": "round", "round": 3}
    _results.file_payload(run_dir, "h1", {
        "failed": True, "msg": "fio exited with rc 1 running round-03.fio: fio: io_u error", "rc": 1,
        "stderr": "fio: io_u error on file /dev/loop9: No space left on device: write offset=16777216\n",
        "job_file": "/x/round-03.fio", "job_text": "[global]\n", "pts_context": context})
    failure = _results.read_json(os.path.join(drive_dir, "iops", "failure.json"))
    assert failure["round"] == 3 and failure["rc"] == 1 and "No space left" in failure["stderr"]
    model = _drive_report.write_drive_report(drive_dir)["model"]
    result = model["tests"]["iops"]
    assert result["status"] == "failed" and result["rounds_run"] == 2
    with open(os.path.join(drive_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **Failed** in round 3: fio exited with rc 1" in markdown
    assert "No space left on device" in markdown


def test_another_device_under_a_recorded_name_is_refused_naming_both():
    other = dict(LOOP_A, backing_file="/srv/b.img")
    listed = [{"path": "/dev/loop4", "name": "other"}, {"path": "/dev/loop5", "name": "victim"}]
    with pytest.raises(_resume.ResumeRefused) as caught:
        _resume.check_identities([other], {"victim": _resume.identity(LOOP_A)}, "it-1", listed)
    message = str(caught.value)
    assert "pts_devices[1] (name 'victim'): run it-1 recorded model 'loop device', size_bytes 67108864, backing_file " \
           "'/srv/a.img' under the name 'victim', but /dev/loop5 is now model 'loop device', size_bytes 67108864, " \
           "backing_file '/srv/b.img'" in message
    assert "Nothing was written" in message


def test_the_same_drives_pass_and_new_ones_are_recorded_from_now_on():
    recorded = {"victim": _resume.identity(LOOP_A)}
    merged = _resume.check_identities([dict(LOOP_A, path="/dev/loop7"), NVME], recorded, "it-1", [])
    assert merged == {"victim": _resume.identity(LOOP_A), "bay0": _resume.identity(NVME)}


def test_recorded_identities_come_from_the_plan_else_drive_json_and_only_for_drives_with_results(make_run, tmp_path):
    drive_dir = make_run([1.0, 1.0])  # h1/d1 with a purge and two rounds, a loop device of CAPACITY bytes
    from conftest import write_drive
    write_drive(str(tmp_path / "run-1"), "h1", "refused")  # identified, never tested: binds nothing
    found = _resume.recorded_identities(str(tmp_path), "run-1", "h1", None)
    assert list(found) == ["d1"] and found["d1"]["model"] == "loop device" and found["d1"]["size_bytes"] == CAPACITY
    # The plan's record wins: drive.json may have been rewritten by this attempt's identification.
    plan = {"identities": {"d1": {"model": "loop device", "size_bytes": 1, "backing_file": "/srv/a.img"}}}
    assert _resume.recorded_identities(str(tmp_path), "run-1", "h1", plan)["d1"]["size_bytes"] == 1
    assert _resume.recorded_identities(str(tmp_path), "run-2", "h1", plan) == {}
    assert os.path.isdir(drive_dir)


@pytest.mark.parametrize("recorded, now, changes", [
    (None, {"pts_run_max_rounds": 6}, []),  # a first attempt (or a run from before variables were recorded)
    ({"pts_run_max_rounds": 6}, {"pts_run_max_rounds": 6}, []),
    ({"pts_run_max_rounds": 6, "pts_run_iops_block_sizes": [4096]},
     {"pts_run_max_rounds": 8, "pts_run_iops_block_sizes": [4096, 8192]},
     ["pts_run_iops_block_sizes: [4096] → [4096, 8192]", "pts_run_max_rounds: 6 → 8"]),
    ({"pts_run_tests": ["iops"], "pts_run_iops_mixes": [0]},
     {"pts_run_tests": ["iops", "latency"], "pts_run_iops_mixes": [0], "pts_run_latency_mixes": [0]},
     ['pts_run_tests: ["iops"] → ["iops", "latency"]']),
])
def test_variable_changes(recorded, now, changes):
    assert _resume.variable_changes(recorded, now) == changes


def test_changed_settings_are_refused_unless_allowed():
    previous = {"variables": {"pts_run_max_rounds": 6, "pts_run_round_seconds": 0.5}}
    plan = {"variables": {"pts_run_max_rounds": 6, "pts_run_round_seconds": 1.0}}
    with pytest.raises(_resume.ResumeRefused) as caught:
        _resume.check_settings(previous, plan, "it-1", allow_changes=False)
    assert "pts_run_round_seconds: 0.5 → 1.0" in str(caught.value)
    assert "plan.json is unchanged" in str(caught.value) and "pts_allow_changed_settings: true" in str(caught.value)
    assert _resume.check_settings(previous, plan, "it-1", allow_changes=True) == ["pts_run_round_seconds: 0.5 → 1.0"]
    assert _resume.check_settings(previous, dict(plan, variables=previous["variables"]), "it-1", False) == []
