# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

from conftest import scaled_round, write_drive, write_segment


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


def test_each_round_file_holds_its_verdict_and_steady_state_json_only_where_the_loop_stands(tmp_path):
    run_dir = str(tmp_path)
    write_drive(run_dir, "h", "d1")
    context = {"drive": "d1", "test": "iops", "loop": "d1/iops@1"}
    sizes = []
    for number in range(1, 41):
        fio = scaled_round("fio-3.33-iops-round.json", 1.0)
        verdict = {"round": number, "steady": number == 40, "stop": number == 40, "reason": f"after {number}"}
        _results.file_payload(run_dir, "h", {"pts_fio": fio, "pts_steady_state": verdict,
                                             "pts_context": dict(context, phase="round", round=number)})
        sizes.append(os.path.getsize(tmp_path / "h" / "d1" / "iops" / "steady-state.json"))
    segment = _results.load_segment(str(tmp_path / "h" / "d1" / "iops"))
    live = _results.live_verdicts(segment)
    assert [v["round"] for v in live] == list(range(1, 41)) and live[-1]["steady"] is True
    assert segment["rounds"][6]["loop"] == "d1/iops@1"
    state = segment["steady_state"]
    assert state["last_round"] == 40 and state["stop"] is True and "verdicts" not in state
    # Where the loop stands is the same size at round 40 as at round 2 (no history in it).
    assert max(sizes) - min(sizes) < 16


def test_a_verdict_judged_apart_from_its_round_joins_the_round_file(tmp_path):
    run_dir = str(tmp_path)
    write_segment(run_dir, "h", "d1", "iops", [1.0, 1.0], purge=False)
    _results.file_payload(run_dir, "h", {"pts_steady_state": {"round": 2, "steady": False, "stop": False},
                                         "pts_context": {"drive": "d1", "test": "iops", "round": 2}})
    segment = _results.load_segment(str(tmp_path / "h" / "d1" / "iops"))
    assert [v["round"] for v in _results.live_verdicts(segment)] == [2]
    assert segment["rounds"][1]["fio"]["jobs"]  # the round's figures stay


def test_live_verdicts_of_an_older_results_tree_come_from_steady_state_json():
    segment = {"rounds": [{"round": 1}], "steady_state": {"verdicts": [{"round": 1, "steady": False}]}}
    assert _results.live_verdicts(segment) == [{"round": 1, "steady": False}]


def test_atomic_write_leaves_no_temporary_files_and_keeps_the_old_file_on_failure(tmp_path):
    path = str(tmp_path / "a" / "x.json")
    _results.atomic_write_json(path, {"a": 1})
    with pytest.raises(TypeError):
        _results.atomic_write_text(path, object())
    assert os.listdir(tmp_path / "a") == ["x.json"]
    with open(path, encoding="utf-8") as handle:
        assert json.load(handle) == {"a": 1}


_KILLED_WRITE = """
import os, signal, sys
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # killed after the data, before the rename
_results.atomic_write_json(sys.argv[1], {"method": "discard"})
"""


def _killed_write(path: str) -> None:
    """An atomic write killed (SIGKILL) between mkstemp and the rename, as a kill during the purge leaves it."""
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITE, path], env=dict(os.environ, PYTHONPATH=os.pathsep.join(
        sys.path)), check=False)
    assert done.returncode == -signal.SIGKILL


def test_the_temporary_file_of_a_killed_atomic_write_is_removed_and_nothing_else(tmp_path):
    test_dir = tmp_path / "run" / "h1" / "victim" / "iops"
    _killed_write(str(test_dir / "purge.json"))
    left = os.listdir(test_dir)
    assert len(left) == 1 and left[0].startswith(".purge.json.") and _results.is_leftover(left[0])
    kept = {"purge.json": "", ".pts-run-token": "", ".pts-run.lock": "", ".purge.json.ABCDEFGH": "",
            ".purge.json.abcdefg": "", ".purge.json.abcdefghi": "", "purge.json.abcdefgh": "", ".x.json.abc-efgh": ""}
    for name, text in kept.items():
        (test_dir / name).write_text(text)
    (test_dir / ".round-01.json.dir12345").mkdir()
    (test_dir / ".round-02.json.link1234").symlink_to(tmp_path / "outside")
    (tmp_path / "outside").write_text("not the writer's")
    superseded = tmp_path / "run" / "h1" / "victim" / "superseded" / "iops-1"
    superseded.mkdir(parents=True)
    (superseded / ".purge.json.abcd1234").write_text("")
    removed = _results.remove_leftovers(str(tmp_path / "run"))
    assert removed == [str(test_dir / left[0])]
    assert sorted(os.listdir(test_dir)) == sorted(list(kept) + [".round-01.json.dir12345", ".round-02.json.link1234"])
    assert os.listdir(superseded) == [".purge.json.abcd1234"] and (tmp_path / "outside").exists()


def test_a_purge_after_the_cleanup_finds_no_earlier_attempt_to_supersede(tmp_path):
    run_dir = str(tmp_path / "run")
    context = {"drive": "victim", "test": "iops"}
    _killed_write(os.path.join(_results.drive_dir(run_dir, "h1", "victim"), "iops", "purge.json"))
    assert _results.remove_leftovers(run_dir)
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard"}, "pts_context": context})
    assert sorted(os.listdir(_results.drive_dir(run_dir, "h1", "victim"))) == ["iops"]


@pytest.mark.parametrize("name, safe", [("rack12/host 1", "rack12_host_1"), ("..", "unnamed"), ("a.b-c", "a.b-c")])
def test_safe_name(name, safe):
    assert _results.safe_name(name) == safe


def test_payloads_without_pts_keys_write_nothing(tmp_path):
    assert _results.file_payload(str(tmp_path), "h", {"changed": True}) == []
    assert os.listdir(tmp_path) == []


def test_a_later_refusal_never_overwrites_the_records_of_a_drive_with_results(make_run):
    drive_dir = make_run([1.0, 1.0])
    run_dir = os.path.dirname(os.path.dirname(drive_dir))
    guard = {"key": "d1", "passed": True, "refusals": []}
    _results.file_payload(run_dir, "h1", {"pts_guard": [guard]})
    drive = _results.read_json(os.path.join(drive_dir, "drive.json"))
    # A resume: the guard refuses the drive (mounted meanwhile), and another drive is listed under its name.
    _results.file_payload(run_dir, "h1", {"pts_guard": [dict(guard, passed=False, refusals=["mounted on /mnt"])]})
    other = dict(drive["drive"], backing_file="/var/tmp/other.img", size_bytes=1 << 30)
    _results.file_payload(run_dir, "h1", {"pts_drives": [other]})
    assert _results.read_json(os.path.join(drive_dir, "guard.json"))["passed"] is True
    assert _results.read_json(os.path.join(drive_dir, "drive.json"))["drive"] == drive["drive"]
    loaded = _results.load_drive(drive_dir)
    assert loaded["guard_refused"]["refusals"] == ["mounted on /mnt"]
    assert loaded["drive_refused"]["drive"]["backing_file"] == "/var/tmp/other.img"
    report = _drive_report.write_drive_report(drive_dir)["report"]
    with open(report, encoding="utf-8") as handle:
        text = handle.read()
    assert "A later attempt of this run was refused by the guard" in text and "mounted on /mnt" in text
    assert "Another drive was listed under this name" in text and "Refused by the guard — nothing was written" not in text


def test_a_refused_drive_without_results_records_its_refusal(tmp_path):
    run_dir = str(tmp_path)
    write_drive(run_dir, "h1", "d1")
    _results.file_payload(run_dir, "h1", {"pts_guard": [{"key": "d1", "passed": False, "refusals": ["x"]}]})
    assert _results.read_json(str(tmp_path / "h1" / "d1" / "guard.json"))["passed"] is False


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_results_files_get_the_mode_of_an_ordinary_write_not_mkstemps_0600(tmp_path, umask, mode):
    # A lab serves its reports (a web server reads them as another user): mkstemp alone would leave every one 0600.
    old = os.umask(umask)
    try:
        _results.atomic_write_text(str(tmp_path / "report.md"), "# report\n")
        _results.atomic_write_bytes(str(tmp_path / "report.pdf"), b"%PDF")
    finally:
        os.umask(old)
    for name in ("report.md", "report.pdf"):
        assert os.stat(tmp_path / name).st_mode & 0o777 == mode
