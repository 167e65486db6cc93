# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from conftest import write_segment

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report, _results, _resume


def test_finished_tests_are_kept_and_interrupted_ones_are_not(make_run, tmp_path):
    drive_dir = make_run([1.0] * 5)  # IOPS steady at round 5
    run_dir = os.path.dirname(os.path.dirname(drive_dir))
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.0])  # interrupted after two rounds
    assert _resume.finished_tests(drive_dir) == {"iops": "steady"}
    plan = {"drives": [{"key": "d1", "tests": [{"test": "iops", "done": False}, {"test": "latency", "done": False}]}]}
    _resume.mark_done(plan, str(tmp_path), "run-1", "h1")
    assert plan["drives"][0]["tests"] == [{"test": "iops", "done": True, "status": "steady"},
                                          {"test": "latency", "done": False}]
    assert _resume.finished_tests(str(tmp_path / "nothing")) == {}


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
    model = _report.write_drive_report(drive_dir)["model"]
    result = model["tests"]["iops"]
    assert result["status"] == "failed" and result["rounds_run"] == 2
    with open(os.path.join(drive_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **Failed** in round 3: fio exited with rc 1" in markdown
    assert "No space left on device" in markdown
