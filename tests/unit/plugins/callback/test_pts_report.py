# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pts_report callback's declaration: an optional aggregate watcher that reads where the results are from what the
run recorded (pts_run_start's pts_run_dir) and defines neither the results directory nor the run id. Then the callback
driven through its v2_* events, as ansible-core calls it: it remembers the run directory a result names, and at the
end of the playbook draws the reports still missing from the files on disk and says where the results are. It only
observes: filing is the actions' (see plugin_utils/test__filing.py), the locks the judge's."""

from __future__ import annotations

import inspect
import os
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
import yaml
from ansible.executor.task_result import TaskResult
from ansible.inventory.host import Host

from ansible_collections.fleetqual.pts.plugins.callback import pts_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run, _run_lock
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

NAME = "fleetqual.pts.pts_report"


def test_it_is_an_aggregate_callback_that_must_be_enabled():
    assert pts_report.CallbackModule.CALLBACK_TYPE == "aggregate"
    assert pts_report.CallbackModule.CALLBACK_NEEDS_ENABLED is True
    assert pts_report.CallbackModule.CALLBACK_NAME == NAME


def test_it_files_nothing_itself():
    # Filing moved to the actions (plugin_utils/_filing.py, pts_segment, pts_plan): no event but ok and the end.
    own = {name for name in vars(pts_report.CallbackModule) if name.startswith("v2_")}
    assert own == {"v2_runner_on_ok", "v2_playbook_on_stats"}


def test_it_has_no_option_of_its_own():
    # The run's id and results directory are the run's (pts_run_id, pts_results_dir, PTS_RUN_ID, PTS_RESULTS_DIR):
    # the callback's old output_dir and run_id settings (the [callback_pts_report] section) are gone.
    assert "options" not in yaml.safe_load(pts_report.DOCUMENTATION)


def test_nothing_in_the_run_reads_the_callbacks_configuration():
    assert not hasattr(_run, "callback_option") and not hasattr(_run, "callback_loader")


def ok(payload: dict) -> SimpleNamespace:
    return SimpleNamespace(result=payload)


def test_it_takes_the_run_directory_the_run_fixed_and_nothing_else(monkeypatch, tmp_path):
    monkeypatch.setenv("PTS_RESULTS_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("PTS_RUN_ID", "not-this-one")
    callback = pts_report.CallbackModule()
    run_dir = str(tmp_path / "results" / "r1")
    for payload in ({"pts_run_id": "r1", "pts_run_dir": run_dir}, {"changed": False}, {"pts_run_dir": ""},
                    {"pts_run_dir": None}):
        callback.v2_runner_on_ok(ok(payload))
    assert callback._run_dirs == {run_dir}


def test_at_the_end_it_says_where_the_run_it_saw_is(monkeypatch, tmp_path):
    run_dir = tmp_path / "results" / "r1"
    run_dir.mkdir(parents=True)
    monkeypatch.setattr(pts_report.ansible_context, "CLIARGS", {})
    callback = pts_report.CallbackModule()
    said = []
    monkeypatch.setattr(callback._display, "display", lambda text, **kwargs: said.append(text))
    callback.v2_runner_on_ok(ok({"pts_run_dir": str(run_dir)}))
    callback.v2_playbook_on_stats(None)
    assert said == [f"PTS results: {run_dir} (no fleet summary was written)"]


# --- the callback driven through its events ---------------------------------------------------------------------------

RUN = "run-7"
CAPACITY = 268435456


def task_result(data: dict, host: str = "localhost", legacy: bool = False):
    """What a callback receives: ansible-core's TaskResult (``.host``/``.task``/``.result`` from 2.19 on), or an object
    with only the older ``_host``/``_task``/``_result``."""
    inventory_host = Host(host)
    task = MagicMock(action="fleetqual.pts.pts_plan", no_log=False)
    if legacy:
        return SimpleNamespace(_host=inventory_host, _task=task, _result=data)
    if len(inspect.signature(TaskResult).parameters) == 3:
        # From 2.21 the callback's result wraps the task's unified result instead of taking the dict itself.
        from ansible._internal._task import UnifiedTaskResult  # pylint: disable=import-outside-toplevel

        return TaskResult(inventory_host, task, UnifiedTaskResult.from_action_result_dict(dict(data)))
    return TaskResult(inventory_host, task, data, {})


def read(path) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def said(callback) -> list[str]:
    return [c.args[0] for c in callback._display.display.call_args_list]


@pytest.fixture
def callback(monkeypatch):
    monkeypatch.setenv("PTS_REPORT_FORMATS", "")  # report.md alone: no HTML/PDF engine in a unit test
    display = MagicMock()
    display.verbosity = 0
    return pts_report.CallbackModule(display=display)


@pytest.fixture
def run_dir(tmp_path) -> str:
    return str(tmp_path / "results" / RUN)


def identify(run_dir: str, host: str = "h1", drive: str = "d1") -> str:
    """A drive as the run filed it (its plan and identity; no rounds: the fastest report there is)."""
    _results.file_payload(run_dir, host, {"pts_plan": {"run_id": RUN, "tests": [{"name": "iops"}],
                                                       "listed": [{"path": "/dev/loop9"}], "drives": [],
                                                       "fleet": {"fail_on": []}}, "pts_context": {"host": host}})
    _results.file_payload(run_dir, host, {"pts_drives": [
        {"key": drive, "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": CAPACITY,
         "logical_block_size": 512, "physical_block_size": 512, "interface": "loop", "vendor": "Linux",
         "model": "loop device", "serial": f"SER-{drive}", "firmware": "1.0", "write_cache": "write back"}],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"}})
    return _results.drive_dir(run_dir, host, drive)


def end(callback, run_dir: str) -> None:
    callback.v2_runner_on_ok(task_result({"changed": False, "pts_run_id": RUN, "pts_run_dir": run_dir}))
    callback.v2_playbook_on_stats(MagicMock())


# --- what it remembers ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data, remembered", [
    ({"pts_run_id": RUN, "pts_run_dir": "/srv/results/run-7"}, {"/srv/results/run-7"}),
    ({"pts_run_dir": ""}, set()),
    ({"pts_run_dir": None}, set()),
    ({"pts_run_dir": ["/srv/results/run-7"]}, set()),
    ({"pts_plan": {"run_id": RUN}, "pts_context": {"host": "h1"}}, set()),
    ({"changed": True, "stdout": "ok"}, set()),
])
def test_the_run_directory_is_remembered_from_the_result_that_names_it(callback, data, remembered):
    callback.v2_runner_on_ok(task_result(data))
    assert callback._run_dirs == remembered


def test_a_legacy_result_with_only_underscored_attributes_is_read_the_same(callback):
    callback.v2_runner_on_ok(task_result({"pts_run_dir": "/srv/results/run-7"}, legacy=True))
    assert callback._run_dirs == {"/srv/results/run-7"}


def test_it_files_no_payload_of_its_own(callback, run_dir):
    callback.v2_runner_on_ok(task_result({"pts_drives": [{"key": "d1", "size_bytes": 1}], "pts_host": {},
                                          "pts_run_dir": run_dir}, host="h1"))
    callback.v2_runner_on_failed(task_result({"msg": "boom", "pts_context": {"drive": "d1", "test": "iops"}}))
    assert not os.path.exists(run_dir)


# --- the end of the playbook ------------------------------------------------------------------------------------------

def test_the_end_draws_a_missing_report_from_disk_and_says_where_the_results_are(callback, run_dir):
    path = identify(run_dir)
    end(callback, run_dir)
    # No fleet.md was written (the judging play writes it): the line never names one that is not there.
    assert said(callback) == [f"PTS report (drawn at the end): {path}/report.md",
                              f"PTS results: {run_dir} (no fleet summary was written)"]
    model = _results.read_json(os.path.join(path, "result.json"))
    assert model["drive_key"] == "d1" and model["host"] == "h1" and model["run_id"] == RUN
    assert "loop device" in read(os.path.join(path, "report.md"))
    # Drawing reports is all it does: the judging play writes the fleet summary.
    assert not os.path.exists(os.path.join(run_dir, "fleet.md"))
    callback._display.warning.assert_not_called()


def test_a_report_the_worker_drew_is_not_drawn_again_and_an_out_of_date_one_is(callback, run_dir):
    path = identify(run_dir)
    _drive_report.write_drive_report(path)  # the drive's worker drew it when its tests ended
    built = os.path.getmtime(os.path.join(path, "result.json"))
    end(callback, run_dir)
    assert said(callback) == [f"PTS results: {run_dir} (no fleet summary was written)"]
    assert os.path.getmtime(os.path.join(path, "result.json")) == built
    # Something the report is built from changed after it was drawn (a resume filed more): drawn again.
    later = built + 5
    guard = os.path.join(path, "guard.json")
    _results.atomic_write_json(guard, {"key": "d1", "passed": True})
    os.utime(guard, (later, later))
    callback.v2_playbook_on_stats(MagicMock())
    assert said(callback)[-2] == f"PTS report (drawn at the end): {path}/report.md"


def test_every_drive_of_the_run_is_considered_not_only_those_of_this_process(callback, run_dir):
    first = identify(run_dir, "h1", "d1")
    second = identify(run_dir, "h2", "d7")
    end(callback, run_dir)
    assert said(callback)[:2] == [f"PTS report (drawn at the end): {first}/report.md",
                                  f"PTS report (drawn at the end): {second}/report.md"]


def test_a_report_that_cannot_be_written_is_a_warning_and_the_results_line_still_comes(
        callback, run_dir, monkeypatch):
    path = identify(run_dir)

    def broken(drive_dir, formats=None):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(_drive_report, "write_drive_report", broken)
    end(callback, run_dir)
    callback._display.warning.assert_called_once_with(
        f"pts_report: no report for {path}: [Errno 30] Read-only file system")
    assert said(callback) == [f"PTS results: {run_dir} (no fleet summary was written)"]


def test_a_bug_drawing_a_report_is_a_traceback_not_a_warning(callback, run_dir, monkeypatch):
    identify(run_dir)

    def buggy(drive_dir, formats=None):
        return {}["report"]

    monkeypatch.setattr(_drive_report, "write_drive_report", buggy)
    with pytest.raises(KeyError, match="report"):
        end(callback, run_dir)
    callback._display.warning.assert_not_called()


def test_a_drive_path_with_terminal_escapes_reaches_the_console_plain(callback, tmp_path):
    run_dir = str(tmp_path / "results" / "run\x1b[2J-7")
    os.makedirs(run_dir)
    end(callback, run_dir)
    shown = f"{tmp_path}/results/run-7"
    assert said(callback) == [f"PTS results: {shown} (no fleet summary was written)"]


@pytest.mark.parametrize("data", [{}, {"pts_run_dir": "/nonexistent/results/run-7"}])
def test_a_playbook_without_a_run_on_disk_says_nothing(callback, data):
    # No run fixed, or --check (which names a run directory and writes nothing).
    callback.v2_runner_on_ok(task_result(dict(data, changed=False)))
    callback.v2_playbook_on_stats(MagicMock())
    assert said(callback) == []
    callback._display.warning.assert_not_called()


def test_several_run_directories_are_each_seen_to(callback, tmp_path):
    runs = [str(tmp_path / "b" / "r2"), str(tmp_path / "a" / "r1")]
    for run in runs:
        identify(run)
        callback.v2_runner_on_ok(task_result({"pts_run_dir": run}))
    callback.v2_playbook_on_stats(MagicMock())
    assert [line for line in said(callback) if line.startswith("PTS results: ")] == [
        f"PTS results: {run} (no fleet summary was written)" for run in sorted(runs)]


# --- host locks -------------------------------------------------------------------------------------------------------

def test_the_end_releases_no_lock(callback, run_dir):
    # The judge (fleet_summary's release_locks) and a host's own early end (pts_run_lock state=absent) release them.
    for host in ("h1", "h2"):
        assert _run_lock.acquire(run_dir, RUN, os.getpid(), host=host)["status"] == "acquired"
    _run_lock.acquire(run_dir, RUN, os.getpid())
    before = {host: read(_run_lock.lock_path(run_dir, host)) for host in ("h1", "h2")}
    end(callback, run_dir)
    assert {host: read(_run_lock.lock_path(run_dir, host)) for host in ("h1", "h2")} == before
    assert os.path.exists(_run_lock.lock_path(run_dir))
    callback._display.warning.assert_not_called()


def test_a_host_this_process_still_locks_gets_its_missing_report(callback, run_dir):
    # A host whose lock this very process holds is not another slice's: its reports are drawn here.
    path = identify(run_dir)
    _run_lock.acquire(run_dir, RUN, os.getpid(), host="h1")
    end(callback, run_dir)
    assert os.path.exists(os.path.join(path, "report.md"))
    callback._display.warning.assert_not_called()


@pytest.mark.parametrize("owner", ["parent process", "other controller"])
def test_the_end_leaves_another_processs_host_lock(callback, run_dir, owner):
    if owner == "parent process":  # alive on this controller, not this process: a job slice
        _run_lock.acquire(run_dir, RUN, os.getppid(), host="h2")
    else:  # this very PID, but taken on another controller of a shared results tree
        _run_lock.acquire(run_dir, RUN, os.getpid(), hostname="lab-controller-2", host="h2")
    before = read(_run_lock.lock_path(run_dir, "h2"))
    end(callback, run_dir)
    assert sorted(_run_lock.host_locks(run_dir)) == ["h2"]
    assert read(_run_lock.lock_path(run_dir, "h2")) == before
    callback._display.warning.assert_not_called()


def test_check_writes_nothing_into_an_existing_run(callback, run_dir, monkeypatch):
    from ansible import context

    path = identify(run_dir)  # a run interrupted before its report: a resume previewed with --check
    monkeypatch.setattr(context, "CLIARGS", {"check": True})
    end(callback, run_dir)
    assert sorted(os.listdir(path)) == ["drive.json"]


def test_the_drives_of_a_host_another_live_slice_runs_are_left_to_it(callback, run_dir):
    identify(run_dir, "h2", "d7")  # mid-test in the other slice: no report yet
    _run_lock.acquire(run_dir, RUN, os.getppid(), host="h2")  # alive on this controller, not this process
    end(callback, run_dir)
    assert not os.path.exists(os.path.join(_results.drive_dir(run_dir, "h2", "d7"), "report.md"))
