# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results


def test_layout_of_a_filed_run(make_run):
    drive_dir = make_run([1.0, 1.0])
    test_dir = os.path.join(drive_dir, "iops")
    assert sorted(os.listdir(test_dir)) == [
        "purge.json", "round-01.fio", "round-01.json", "round-01.raw.json",
        "round-02.fio", "round-02.json", "round-02.raw.json", "wipc.fio", "wipc.json",
    ]
    round_two = _results.read_json(os.path.join(test_dir, "round-02.json"))
    assert round_two["round"] == 2 and round_two["phase"] == "round" and round_two["test"] == "iops"
    assert "job_text" not in round_two["fio"]
    with open(os.path.join(test_dir, "round-02.fio"), encoding="utf-8") as handle:
        assert handle.read() == "# iops  round 2\n"
    assert _results.drive_dirs(os.path.dirname(os.path.dirname(drive_dir))) == [drive_dir]


def test_a_test_started_again_supersedes_the_earlier_attempt(make_run):
    first = make_run([1.0, 1.0, 1.0])
    second = make_run([1.0])  # the same run id again: a new purge, fewer rounds
    assert second == first
    assert _results.round_files(os.path.join(second, "iops")) == [os.path.join(second, "iops", "round-01.json")]
    old = os.path.join(second, "superseded", "iops-1")
    assert len(_results.round_files(old)) == 3
    assert list(_results.load_drive(second)["tests"]) == ["iops"]


def test_steady_state_verdicts_accumulate_per_round(tmp_path):
    context = {"drive": "d1", "test": "iops"}
    for number, steady in ((1, False), (2, False), (2, True)):
        payload = {"pts_steady_state": {"round": number, "steady": steady}, "pts_context": context}
        _results.file_payload(str(tmp_path), "h", payload)
    state = _results.read_json(str(tmp_path / "h" / "d1" / "iops" / "steady-state.json"))
    assert [(v["round"], v["steady"]) for v in state["verdicts"]] == [(1, False), (2, True)]
    assert state["last_round"] == 2 and state["steady"] is True


def test_atomic_write_leaves_no_temporary_files_and_keeps_the_old_file_on_failure(tmp_path):
    path = str(tmp_path / "a" / "x.json")
    _results.atomic_write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        _results.atomic_write_text(path, object())
    assert os.listdir(tmp_path / "a") == ["x.json"]
    with open(path, encoding="utf-8") as handle:
        assert json.load(handle) == {"a": 1}


@pytest.mark.parametrize("name, safe", [("rack12/host 1", "rack12_host_1"), ("..", "unnamed"), ("a.b-c", "a.b-c")])
def test_safe_name(name, safe):
    assert _results.safe_name(name) == safe


def test_payloads_without_pts_keys_write_nothing(tmp_path):
    assert _results.file_payload(str(tmp_path), "h", {"changed": True}) == []
    assert os.listdir(tmp_path) == []
