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

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
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


# --- where each payload is filed (what the actions file as their results come back) -----------------------------------

RUN = "run-7"
LOOP = "loop-iops-d1-1"
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
ROUND_SETTINGS = {"profile": "quick", "round_seconds": 0.5, "max_rounds": 8, "window": 5}


def raw_fio(name: str = "fio-3.33-iops-round.json") -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def fio_round(name: str = "fio-3.33-iops-round.json", job_text: str = "[global]\nrw=randrw\n") -> dict:
    """A real fio round as fio_job returns it: the parsed figures with the job file's text."""
    return dict(_fio.parse(raw_fio(name)), job_text=job_text)


def round_context(test: str = "iops", number: int | None = None, **extra) -> dict:
    found = {"run_id": RUN, "host": "h1", "drive": "d1", "test": test, "settings": ROUND_SETTINGS, "segment": ""}
    if number is not None:
        found.update(phase="round", round=number, loop=LOOP)
    return dict(found, **extra)


def read(path) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def files_under(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, dummy, names in os.walk(root) for f in names)


def test_a_round_is_filed_whole_with_its_verdict_and_where_the_loop_stands(tmp_path):
    run_dir = str(tmp_path)
    verdict = {"round": 2, "steady": True, "stop": True, "reason": "steady after round 2", "dvs": []}
    written = _results.file_payload(run_dir, "worker-name-not-used", {
        "pts_fio": fio_round(job_text="# round 2\n"), "pts_fio_raw": raw_fio(), "pts_context": round_context(number=2),
        "pts_steady_state": verdict})
    test_dir = tmp_path / "h1" / "d1" / "iops"
    # The parsed round last: its presence means the round is complete on disk.
    assert [os.path.relpath(p, test_dir) for p in written] == ["round-02.fio", "round-02.raw.json", "round-02.json",
                                                               "steady-state.json"]
    record = _results.read_json(str(test_dir / "round-02.json"))
    assert record["verdict"] == verdict and (record["round"], record["loop"], record["settings"]) == \
        (2, LOOP, ROUND_SETTINGS)
    assert (record["host"], record["drive"], record["test"], record["phase"]) == ("h1", "d1", "iops", "round")
    assert "job_text" not in record["fio"] and record["fio"]["jobs"] == _fio.parse(raw_fio())["jobs"]
    assert read(test_dir / "round-02.fio") == "# round 2\n" and read(test_dir / "round-02.raw.json") == raw_fio()
    state = _results.read_json(str(test_dir / "steady-state.json"))
    assert (state["last_round"], state["steady"], state["stop"], state["loop"]) == (2, True, True, LOOP)


@pytest.mark.parametrize("key, test, segment, verdict", [
    ("pts_wsat", "wsat", "", {"round": 7, "stop": False, "reason": "written 1.8 of 4.0 GiB", "written": 1932735283,
                              "iops": 45678.94, "lat_mean_ns": 350123.0}),
    ("pts_sweep", "hir", "burst", {"round": 7, "rounds": 12, "label": "burst 5 s", "cells": [], "stop": False,
                                   "reason": "row 7 of 12"}),
    ("pts_sample", "xsr", "group-1", {"round": 7, "rounds": 10, "stop": False, "reason": "sample 7 of 10",
                                      "mb_s": 1234.56, "offset": 10 ** 9, "next_offset": 2 * 10 ** 9}),
])
def test_each_kind_of_verdict_is_filed_with_its_round(tmp_path, key, test, segment, verdict):
    context = round_context(test, 7, segment=segment, row={"label": "row 7"})
    _results.file_payload(str(tmp_path), "h1", {"pts_fio": fio_round(job_text=f"[{test}]\n"), "pts_fio_raw": raw_fio(),
                                                "pts_context": context, key: verdict})
    segment_dir = tmp_path / "h1" / "d1" / test / segment if segment else tmp_path / "h1" / "d1" / test
    assert sorted(os.listdir(segment_dir)) == ["round-07.fio", "round-07.json", "round-07.raw.json",
                                               "steady-state.json"]
    record = _results.read_json(str(segment_dir / "round-07.json"))
    assert (record["verdict"], record["row"], record["segment"], record["loop"]) == \
        (verdict, {"label": "row 7"}, segment, LOOP)
    assert _results.read_json(str(segment_dir / "steady-state.json"))["last_round"] == 7


def test_a_failed_round_files_its_failure_and_no_round(tmp_path):
    run_dir = str(tmp_path)
    _results.file_payload(run_dir, "h1", {"pts_fio": fio_round(), "pts_context": round_context(number=1)})
    stderr = "x" * 5000 + "fio: io_u error on file /dev/nvme0n1: Input/output error: write offset=0"
    _results.file_payload(run_dir, "h1", {
        "failed": True, "msg": "fio exited with status 1", "rc": 1, "stderr": stderr,
        "job_file": "/tmp/pts/round-02.fio", "job_text": "[global]\n", "pts_context": round_context(number=2)})
    test_dir = str(tmp_path / "h1" / "d1" / "iops")
    assert _results.round_files(test_dir) == [os.path.join(test_dir, "round-01.json")]
    failure = _results.read_json(os.path.join(test_dir, "failure.json"))
    assert (failure["phase"], failure["round"], failure["msg"], failure["rc"]) == \
        ("round", 2, "fio exited with status 1", 1)
    assert failure["stderr"] == stderr[-4000:] and failure["stderr"].endswith("write offset=0")
    assert (failure["job_file"], failure["job_text"]) == ("/tmp/pts/round-02.fio", "[global]\n")


def test_a_failed_purge_is_the_tests_failure(tmp_path):
    _results.file_payload(str(tmp_path), "h1", {"failed": True, "msg": "blkdiscard failed", "rc": 1,
                                                "pts_purge": {"method": "discard", "elapsed_s": 0.1},
                                                "pts_context": round_context(phase="purge")})
    test_dir = tmp_path / "h1" / "d1" / "iops"
    failure = _results.read_json(str(test_dir / "failure.json"))
    assert (failure["phase"], failure["round"], failure["msg"]) == ("purge", None, "blkdiscard failed")
    assert _results.read_json(str(test_dir / "purge.json"))["method"] == "discard"


def test_the_plan_is_filed_under_the_host_its_context_names(tmp_path):
    plan = {"run_id": RUN, "drives": [{"key": "d1"}], "settings": {"purge_method": "auto"}}
    written = _results.file_payload(str(tmp_path), "localhost", {"pts_plan": plan, "pts_context": {"host": "h1"},
                                                                 "changed": False})
    assert files_under(tmp_path) == ["h1/plan.json"] and written == [str(tmp_path / "h1" / "plan.json")]
    record = _results.read_json(str(tmp_path / "h1" / "plan.json"))
    assert record["host"] == "h1" and record["plan"] == plan and record["command"] is None  # not ansible-playbook


def test_identity_guard_and_health_are_filed_per_drive(tmp_path):
    run_dir = str(tmp_path)
    drive = {"key": "d1", "path": "/dev/loop9", "size_bytes": 1 << 28, "model": "loop device"}
    _results.file_payload(run_dir, "h1", {"pts_drives": [drive, dict(drive, key="d2")],
                                          "pts_host": {"hostname": "h1", "kernel": "6.1.0"}})
    _results.file_payload(run_dir, "h1", {"pts_guard": [{"key": "d1", "path": "/dev/loop9", "passed": True}]})
    _results.file_payload(run_dir, "h1", {"pts_health": {"temperature_c": 41}, "pts_context": {"drive": "d1"}})
    _results.file_payload(run_dir, "h1", {"pts_health": {}, "pts_context": {"drive": "d2"}})  # nothing read
    assert files_under(tmp_path) == ["h1/d1/drive.json", "h1/d1/guard.json", "h1/d1/health-after.json",
                                     "h1/d2/drive.json"]
    record = _results.read_json(str(tmp_path / "h1" / "d1" / "drive.json"))
    assert record["drive"] == drive and record["host_info"]["kernel"] == "6.1.0" and record["schema"] == _results.SCHEMA
    assert _results.read_json(str(tmp_path / "h1" / "d1" / "guard.json"))["passed"] is True
    assert _results.read_json(str(tmp_path / "h1" / "d1" / "health-after.json"))["temperature_c"] == 41


def test_each_write_cache_change_is_one_more_event(tmp_path):
    run_dir = str(tmp_path)
    _results.file_payload(run_dir, "h1", {"pts_write_cache": {"before": True, "after": False},
                                          "pts_context": {"drive": "d1", "phase": "set"}})
    _results.file_payload(run_dir, "h1", {"pts_write_cache": {"before": False, "after": False},
                                          "failed": True, "msg": "hdparm -W1 failed",
                                          "pts_context": {"drive": "d1", "phase": "restore", "member": "sdb"}})
    events = _results.read_json(str(tmp_path / "h1" / "d1" / "write-cache.json"))["events"]
    assert [(e["phase"], e["after"], e["failed"], e["msg"], e["member"]) for e in events] == [
        ("set", False, False, None, None), ("restore", False, True, "hdparm -W1 failed", "sdb")]


def test_an_md_array_is_filed_with_its_members_and_its_teardown(tmp_path):
    run_dir = str(tmp_path)
    context = {"drive": "md-r0", "members": ["d1", "d2"]}
    _results.file_payload(run_dir, "h1", {"pts_md_array": {"device": "/dev/md127", "level": "raid0"},
                                          "cmd": ["mdadm", "--create"], "pts_context": context})
    _results.file_payload(run_dir, "h1", {"pts_md_array": {"device": "/dev/md127", "stopped": True},
                                          "pts_context": dict(context, phase="teardown")})
    raid = _results.read_json(str(tmp_path / "h1" / "md-r0" / "raid.json"))
    assert raid["array"]["level"] == "raid0" and raid["members"] == ["d1", "d2"]
    assert raid["cmd"] == ["mdadm", "--create"]
    assert raid["teardown"]["stopped"] is True and raid["array"]["failed"] is False
    for member in ("d1", "d2"):
        assert _results.read_json(str(tmp_path / "h1" / member / "raid-member.json"))["array"] == "md-r0"


def test_a_refused_md_array_leaves_its_members_as_themselves(tmp_path):
    _results.file_payload(str(tmp_path), "h1", {"pts_md_array": {"device": None}, "failed": True,
                                                "msg": "mdadm: /dev/sdb is busy",
                                                "pts_context": {"drive": "md-r0", "members": ["d1"]}})
    raid = _results.read_json(str(tmp_path / "h1" / "md-r0" / "raid.json"))
    assert raid["array"]["failed"] is True and raid["array"]["msg"] == "mdadm: /dev/sdb is busy"
    assert not os.path.exists(tmp_path / "h1" / "d1")


def test_a_filed_test_is_whole_json_with_nothing_temporary_left(tmp_path):
    run_dir = str(tmp_path)
    write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "iops", [1.0, 1.0])
    names = files_under(tmp_path)
    assert names and not [n for n in names if os.path.basename(n).startswith(".")]
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(tmp_path, name), encoding="utf-8") as handle:
                json.load(handle)
    assert "h1/d1/iops/round-02.json" in names and "h1/d1/iops/purge.json" in names


def test_a_tree_that_cannot_be_written_raises_and_leaves_the_blocker_alone(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory\n")
    with pytest.raises(OSError):
        _results.file_payload(str(blocked), "h1", {"pts_fio": fio_round(), "pts_context": round_context(number=3)})
    assert blocked.read_text() == "not a directory\n"


# --- a tree that is not what the collection wrote (issue 43) ---------------------------------------------------------

SECRET = '{"drive": {"model": "SECRET-MODEL-T01", "key": "d1"}, "host": "h1"}\n'


@pytest.fixture
def outside(tmp_path):
    """A root-only record and a root-owned directory beside the tree, and their bytes, to compare after."""
    secret = tmp_path / "secret.json"
    secret.write_text(SECRET)
    os.chmod(secret, 0o600)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "fleet.md").write_text("the victim's own\n")
    return secret, victim


def _bytes_of(*paths) -> dict:
    found = {}
    for top in paths:
        for root, dirs, files in os.walk(top):
            for name in files:
                with open(os.path.join(root, name), "rb") as handle:
                    found[os.path.join(root, name)] = handle.read()
    return found


def test_a_drive_json_linked_to_a_root_only_file_is_never_read_into_a_report(make_run, outside):
    secret, victim = outside
    drive_dir = make_run([1.0] * 5)
    os.unlink(os.path.join(drive_dir, "drive.json"))
    os.symlink(secret, os.path.join(drive_dir, "drive.json"))
    with pytest.raises(OSError, match="drive.json: is a symbolic link, not a regular file"):
        _drive_report.write_drive_report(drive_dir)
    for root, dirs, files in os.walk(os.path.dirname(os.path.dirname(drive_dir))):
        for name in files:
            if os.path.islink(os.path.join(root, name)):
                continue  # the planted link itself
            with open(os.path.join(root, name), "rb") as handle:
                assert b"SECRET-MODEL-T01" not in handle.read(), os.path.join(root, name)


@pytest.mark.parametrize("planted", ["plots", "iops"])
def test_a_directory_of_the_tree_linked_elsewhere_is_never_written_through(make_run, outside, planted):
    secret, victim = outside
    drive_dir = make_run([1.0] * 5)
    before = _bytes_of(victim, secret)
    path = os.path.join(drive_dir, planted)
    if os.path.isdir(path):
        os.rename(path, path + ".real")
    os.symlink(victim, path)
    with pytest.raises(OSError, match=f"{planted}: is a symbolic link"):
        if planted == "plots":
            _drive_report.write_drive_report(drive_dir)
        else:
            _results.file_payload(os.path.dirname(os.path.dirname(drive_dir)), "h1", {
                "pts_purge": {"method": "discard"}, "pts_context": {"drive": "d1", "test": planted}})
    assert _bytes_of(victim, secret) == before


def test_a_host_directory_linked_elsewhere_takes_no_round(tmp_path, outside):
    secret, victim = outside
    run_dir = tmp_path / "run-1"
    run_dir.mkdir()
    (run_dir / "h1").symlink_to(victim)
    with pytest.raises(OSError, match="h1: is a symbolic link"):
        write_segment(str(run_dir), "h1", "d1", "iops", [1.0])
    assert os.listdir(victim) == ["fleet.md"]


def _alarm(seconds: int):
    def expired(signum, frame):
        raise TimeoutError(f"still blocked after {seconds} s")
    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)


def test_a_fifo_planted_as_a_round_file_is_refused_at_once(make_run):
    drive_dir = make_run([1.0] * 3)
    os.mkfifo(os.path.join(drive_dir, "iops", "round-04.json"))
    _alarm(10)
    try:
        with pytest.raises(OSError, match="round-04.json: is a FIFO, not a regular file: not read"):
            _results.load_drive(drive_dir)
    finally:
        signal.alarm(0)


@pytest.mark.parametrize("kind, why", [
    ("sparse", "bytes, more than the 67,108,864 bytes allowed for it: not read"),
    ("bomb", "JSON nested deeper than 64 levels: not read"),
    ("no io", "completed no I/O (a run fio aborted or in which it wrote nothing): a failed round, not a figure of 0"),
    ("string", "fio.jobs[0].read.iops is a str, not a number"),
])
def test_a_bad_round_file_is_named_with_why(make_run, kind, why):
    drive_dir = make_run([1.0] * 3)
    path = os.path.join(drive_dir, "iops", "round-02.json")
    record = _results.read_json(path)
    if kind == "sparse":
        with open(path, "r+b") as handle:
            handle.truncate(300 << 20)
    elif kind == "bomb":
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("[" * 100000 + "]" * 100000)
    else:
        for job in record["fio"]["jobs"]:
            for direction in ("read", "write"):
                if kind == "no io":
                    job[direction].update(iops=0.0, total_ios=0, io_bytes=0, bw_bytes=0.0)
                else:
                    job[direction]["iops"] = "lots"
        _results.atomic_write_json(path, record)
    with pytest.raises(ValueError) as caught:
        _results.load_drive(drive_dir)
    assert str(caught.value).startswith(f"{path}: ") and why in str(caught.value)


def test_what_fio_wrote_counts_every_round_and_preconditioning_on_disk_and_nothing_else(tmp_path):
    def record(written):
        return {"fio": {"jobs": [{"read": {"io_bytes": 7, "total_ios": 1},
                                  "write": {"io_bytes": written, "total_ios": written // 4096}}]}}
    drive = tmp_path / "d1"
    _results.atomic_write_json(str(drive / "iops" / "wipc.json"), record(4096 * 10))
    _results.atomic_write_json(str(drive / "iops" / "round-01.json"), record(4096 * 3))
    _results.atomic_write_json(str(drive / "superseded" / "wsat-1" / "round-12.json"), record(4096 * 5))
    # Not rounds pts_segment filed: a list, jobs of the wrong type, a job that completed nothing, another name.
    (drive / "iops" / "round-02.json").write_text("[1, 2]")
    _results.atomic_write_json(str(drive / "iops" / "round-03.json"), {"fio": {"jobs": "many"}})
    _results.atomic_write_json(str(drive / "iops" / "round-04.json"), {"fio": {"jobs": [{"read": {}, "write": {}}]}})
    _results.atomic_write_json(str(drive / "iops" / "steady-state.json"), record(4096 * 1000))
    assert _results.written_by_fio(str(drive)) == 4096 * 18
