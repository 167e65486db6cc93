# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _relaunch


def _summary(run_dir, drives, errors=(), in_progress=()):
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "fleet.json").write_text(json.dumps({
        "generated_at": "2026-11-27T10:00:00.000+00:00", "drives": [{"host": h, "id": f"{h}/d"} for h in drives],
        "errors": [{"host": h, "task": "t", "msg": "m"} for h in errors],
        "in_progress": [{"host": h, "run": run_dir.name, "by": "x"} for h in in_progress]}))


def test_a_finished_run_is_refused_for_its_hosts_unless_resumed(tmp_path):
    run = tmp_path / "R1"
    _summary(run, ["s-a", "s-b"], errors=["s-c"])
    said = _relaunch.refusal("R1", str(run), ["s-a", "s-z"], False, "pts_run_id")
    assert said.startswith("run R1 (pts_run_id) already finished at 2026-11-27T10:00:00.000+00:00 for s-a:")
    assert "resume only with pts_resume: true" in said and said.endswith("nothing was written")
    assert "s-c" in _relaunch.refusal("R1", str(run), ["s-c"], False, "pts_run_id")  # its host failed: judged too
    assert _relaunch.refusal("R1", str(run), ["s-a"], True, "pts_run_id") is None
    # Another slice's hosts, never judged in this run: not refused.
    assert _relaunch.refusal("R1", str(run), ["s-y", "s-z"], False, "pts_run_id") is None


def test_a_run_never_judged_or_still_in_progress_is_not_finished(tmp_path):
    assert _relaunch.refusal("R2", str(tmp_path / "R2"), ["s-a"], False, "pts_run_id") is None
    (tmp_path / "R3").mkdir()  # a cancelled run: rounds, no fleet summary
    assert _relaunch.refusal("R3", str(tmp_path / "R3"), ["s-a"], False, "pts_run_id") is None
    _summary(tmp_path / "R4", ["s-a", "s-b"], in_progress=["s-b"])  # a slice judged, the other still running
    assert _relaunch.finished(str(tmp_path / "R4"))["hosts"] == ["s-a"]
    assert _relaunch.refusal("R4", str(tmp_path / "R4"), ["s-b"], False, "pts_run_id") is None


def test_an_unreadable_summary_is_no_proof_and_refused(tmp_path):
    run = tmp_path / "R5"
    run.mkdir()
    (run / "fleet.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot tell whether run R5 has finished"):
        _relaunch.refusal("R5", str(run), ["s-a"], False, "pts_run_id")


def test_resume_is_a_yaml_boolean():
    assert _relaunch.resume(None) is False and _relaunch.resume(True) is True
    with pytest.raises(ValueError, match="pts_resume='yes'"):
        _relaunch.resume("yes")
