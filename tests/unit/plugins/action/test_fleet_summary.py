# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet_summary action: the exit status it returns (``fail``), hosts another live ansible-playbook still holds,
and the host locks of this ansible-playbook it releases (``release_locks``). Results trees and locks are real; the
action's parent process (os.getppid()) stands for this ansible-playbook."""

from __future__ import annotations

import os
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.action import fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run_lock

RUN = "run-1"


@pytest.fixture(autouse=True)
def _report_md_only(monkeypatch):
    monkeypatch.setenv("PTS_REPORT_FORMATS", "")


def run(args: dict, task_vars: dict | None = None) -> dict:
    task = MagicMock(check_mode=False, async_val=0)
    task.args = args
    action = fleet_summary.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    return action.run(task_vars=task_vars or {})


def planned(root, host: str, listed: list[dict]) -> str:
    """A host that planned drives and tested none of them: each is INCOMPLETE."""
    run_dir = os.path.join(str(root), RUN)
    _results.file_payload(run_dir, host, {"pts_plan": {"tests": [{"name": "iops"}], "listed": listed, "drives": [],
                                                       "acceptance": [], "fleet": {"fail_on": ["FAIL"]}},
                                          "pts_context": {"host": host}})
    return run_dir


@pytest.mark.parametrize("fail, failed", [(True, True), (False, False)])
def test_fail_decides_whether_a_failing_exit_status_fails_the_task(tmp_path, fail, failed):
    planned(tmp_path, "h1", [{"path": "/dev/d0"}])
    result = run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "fail": fail})
    assert result["failed"] is failed and result["pts_fleet"]["failed"] is True
    assert result["msg"].startswith("0 PASS, 0 FAIL, 1 INCOMPLETE; exit status fails; fleet summary in ")
    assert result["pts_fleet"]["verdicts"] == {"h1/d0": "INCOMPLETE"}


def test_errors_given_count_as_hosts_not_tested(tmp_path):
    planned(tmp_path, "h1", [])
    result = run({"results_dirs": [str(tmp_path)], "run_ids": [RUN],
                  "errors": [{"host": "results-1", "task": "Publish the results", "msg": "rsync: denied"}]})
    assert result["failed"] is True and result["pts_fleet"]["errors"] == 1
    assert "0 INCOMPLETE, 1 host(s) not tested; exit status fails" in result["msg"]


def test_a_host_another_live_playbook_holds_is_left_to_it(tmp_path):
    run_dir = planned(tmp_path, "h1", [{"path": "/dev/d0"}])
    planned(tmp_path, "h2", [{"path": "/dev/d0"}])
    _run_lock.acquire(run_dir, RUN, os.getpid(), host="h2")  # this test process: another, live ansible-playbook
    result = run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "release_locks": True})
    assert result["pts_fleet"]["in_progress"] == 1 and list(result["pts_fleet"]["verdicts"]) == ["h1/d0"]
    assert ", 1 host(s) still running in another process; exit status fails" in result["msg"]
    assert sorted(_run_lock.host_locks(run_dir)) == ["h2"]  # never another process's lock
    with open(os.path.join(run_dir, "fleet.md"), encoding="utf-8") as handle:
        assert "## Still running\n" in handle.read()


@pytest.mark.parametrize("release, left", [(True, []), (False, ["h1"])])
def test_release_locks_gives_up_this_playbooks_host_locks(tmp_path, release, left):
    run_dir = planned(tmp_path, "h1", [])
    _run_lock.acquire(run_dir, RUN, os.getppid(), host="h1")  # the action's parent: this ansible-playbook
    result = run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "release_locks": release})
    assert sorted(_run_lock.host_locks(run_dir)) == left
    assert result["pts_fleet"]["in_progress"] == 0 and not result["failed"]


def test_the_locks_are_released_even_when_the_summary_fails(tmp_path, monkeypatch):
    run_dir = planned(tmp_path, "h1", [])
    _run_lock.acquire(run_dir, RUN, os.getppid(), host="h1")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fleet_summary._fleet_summary, "summarize", broken)
    with pytest.raises(AnsibleActionFail, match=r"fleet_summary: \[Errno 28\] No space left on device"):
        run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "release_locks": True})
    assert _run_lock.host_locks(run_dir) == {}


@pytest.mark.parametrize("release, left", [(True, []), (False, ["h1"])])
def test_the_judge_that_refuses_still_releases_the_locks(tmp_path, monkeypatch, release, left):
    # The judge is the run's last step: refused (an unusable history), it still ends this playbook's part of the run.
    run_dir = planned(tmp_path, "h1", [])
    _run_lock.acquire(run_dir, RUN, os.getppid(), host="h1")

    def unusable(*args, **kwargs):
        raise InputError("history_url: not a PostgreSQL URL")

    monkeypatch.setattr(fleet_summary._location, "resolve", unusable)
    with pytest.raises(AnsibleActionFail, match="fleet_summary: history_url: not a PostgreSQL URL; nothing was written"):
        run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "release_locks": release})
    assert sorted(_run_lock.host_locks(run_dir)) == left


def test_the_history_is_the_actions_argument_never_a_variable_of_the_play(tmp_path, monkeypatch):
    # Explicit inputs: the playbooks pass pts_history_url as history_url; a play's variable alone changes nothing.
    monkeypatch.delenv("PTS_HISTORY_URL", raising=False)
    planned(tmp_path, "h1", [])
    args = {"results_dirs": [str(tmp_path)], "run_ids": [RUN]}
    result = run(args, {"pts_history_url": "mysql://u:pw12345@h/db", "pts_history_password": "pw12345"})
    assert result["pts_fleet"]["history"]["databases"] == [str(tmp_path / "pts-history.sqlite")]
    with pytest.raises(AnsibleActionFail) as caught:
        run(dict(args, history_url="mysql://u:pw12345@h/db", history_password="pw12345"))
    assert str(caught.value) == ("fleet_summary: history_url (pts_history_url)='mysql://u@h/db': must be a postgresql:// "
                                 "URL (one PostgreSQL database for every controller), or unset for SQLite beside the runs "
                                 "(pts-history.sqlite); nothing was written")


def test_a_bug_in_reading_the_history_setting_is_a_traceback_not_a_refusal(tmp_path, monkeypatch):
    # Only a PtsError (here an InputError) is worded for the operator; a builtin ValueError is a bug and stays one.
    planned(tmp_path, "h1", [])

    def buggy(*args, **kwargs):
        return float("not a number")

    monkeypatch.setattr(fleet_summary._location, "resolve", buggy)
    with pytest.raises(ValueError, match="could not convert string to float") as caught:
        run({"results_dirs": [str(tmp_path)], "run_ids": [RUN]})
    assert not isinstance(caught.value, AnsibleActionFail)


@pytest.mark.parametrize("args, message", [
    ({"run_ids": ["../x"]}, "fleet_summary: run_ids[0] (pts_run_ids[0], or pts_run_id)='../x': "),
    ({"run_ids": [RUN], "fail_on": ["FAILED"]}, "fleet_summary: fail_on=['FAILED']: unknown verdicts ['FAILED']"),
    ({"run_ids": ["nope"]}, "fleet_summary: no run ['nope'] under "),
])
def test_bad_arguments_are_refused(tmp_path, args, message):
    planned(tmp_path, "h1", [])
    with pytest.raises(AnsibleActionFail) as refused:
        run(dict(args, results_dirs=[str(tmp_path)]))
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize("release_locks, failed, said", [
    # The run's own judge (judge.yml passes release_locks): one slice of the run; its own drives decide.
    (True, False, "0 PASS, 0 FAIL, 0 INCOMPLETE, 1 host(s) still running in another process; exit status passes"),
    # playbooks/fleet_summary.yml while the run runs: nothing that was not judged can pass.
    (False, True, "0 PASS, 0 FAIL, 0 INCOMPLETE, 1 host(s) still running in another process (in progress: this "
                  "summary passes nothing not judged yet); exit status fails"),
])
def test_a_summary_from_outside_a_live_run_fails_in_progress(tmp_path, release_locks, failed, said):
    run_dir = planned(tmp_path, "h1", [{"path": "/dev/d0"}])
    _run_lock.acquire(run_dir, RUN, os.getpid(), host="h1")  # this test process: the live run
    result = run({"results_dirs": [str(tmp_path)], "run_ids": [RUN], "release_locks": release_locks})
    assert result["msg"].startswith(said)
    assert result["failed"] is failed and result["pts_fleet"]["failed"] is failed
    assert _results.read_json(os.path.join(run_dir, "fleet.json"))["failed"] is failed


def test_a_results_dir_another_user_owns_is_refused_and_nothing_is_written(tmp_path):
    run_dir = planned(tmp_path / "theirs", "h1", [{"path": "/dev/d0"}])
    os.chown(tmp_path / "theirs", 65534, 65534)
    with pytest.raises(AnsibleActionFail) as caught:
        run({"results_dirs": [str(tmp_path / "theirs")], "run_ids": [RUN]})
    assert str(caught.value) == (
        f"fleet_summary: results_dirs[0]='{tmp_path / 'theirs'}': {tmp_path / 'theirs'}: it is owned by uid 65534, "
        "not root: root reads and writes nothing that another user could swap for a link (make it root's and "
        "writable by nobody else); nothing was written")
    assert sorted(os.listdir(run_dir)) == ["h1"]
