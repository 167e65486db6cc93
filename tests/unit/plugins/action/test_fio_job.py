# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio_job action: the module starts fio detached (a fio server for one job), the controller waits with one shell
command that loops on the host, and fio's output is parsed here. The module, the host's shell and the clock are
stand-ins; the waiting schedule, the parsing and the filing are real."""

from __future__ import annotations

import os
import re
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.action import fio_job
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _fio_job_args
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fake_fio_host import CONTEXT, RAW, STARTED, Host


@pytest.fixture
def clock(fio_clock):
    return fio_clock


@pytest.fixture(autouse=True)
def display(fio_display):
    return fio_display


# What the module requires of every task (the pts_precondition role and pts_segment pass them).
GUARDED = {"device": "/dev/loop7", "expect": {"serial": "S1"}}


def make_action(host: Host, args: dict | None = None, check: bool = False):
    task = MagicMock(check_mode=check, async_val=0)
    task.args = dict(GUARDED, **({"job_file": STARTED["job_file"], "job_text": "[global]\nrw=randrw\n",
                                  "expected_seconds": 100, "context": CONTEXT} if args is None else args))
    action = fio_job.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    action._execute_module = host.execute_module
    action._low_level_execute_command = host.command
    return action


# --- waiting for a detached fio ---------------------------------------------------------------------------------------

def test_waits_quietly_then_lets_the_host_watch_and_parses_fios_output_here(clock):
    host = Host(clock, finish_at=1100.4)
    result = make_action(host).run(task_vars={})

    assert host.modules[0]["detach"] is True and host.modules[0]["_name"] == "fleetqual.pts.fio_job"
    # Back-off (1, 2, 4, ... s) with one look each, until a second before the expected end (asking every second
    # whether the controller is still there) ...
    assert [round(b - a, 6) for a, b in zip([1000.0] + host.at, host.at[:7])] == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 36.0]
    assert max(clock.sleeps) <= 1.0
    assert all(c.startswith("n=1;") for c in host.commands[:7])
    # ... then one command in which the host looks every 0.02 s for up to 5 s: seen within a step of fio's end.
    assert host.commands[7].startswith("n=250;") and host.commands[7].endswith("sleep 0.02; done")
    assert len(host.commands) == 8 and 0 <= clock.now - 1100.4 <= 0.02 + 1e-9
    assert result["pts_fio"]["jobs"] == _fio.parse(RAW)["jobs"] and result["pts_fio_raw"] == RAW
    assert result["pts_fio"]["elapsed_s"] == 100.4 and result["pts_fio"]["command"] == STARTED["command"]
    assert result["pts_fio"]["job_file"] == STARTED["job_file"]
    assert result["pts_fio"]["job_text"] == "[global]\nrw=randrw\n"
    assert result["changed"] is True and result["pts_context"] == CONTEXT and not result.get("failed")


def test_a_late_fio_is_watched_in_longer_steps_after_the_close_window(clock):
    host = Host(clock, finish_at=1100.0)
    args = {"job_file": STARTED["job_file"], "job_text": "x", "expected_seconds": 10}
    assert "pts_fio" in make_action(host, args).run(task_vars={})
    late = [c for c in host.commands if c.endswith("sleep 0.25; done")]
    # 30 s past the expected end the host looks every 0.25 s, for 5 s a command (a worker whose controller is gone
    # asks between two).
    assert late and all(c.startswith("n=20;") for c in late)
    assert host.commands.index(late[0]) > 0 and all(c.endswith("sleep 0.02; done") or c.startswith("n=1;")
                                                    for c in host.commands[:host.commands.index(late[0])])
    assert 0 <= clock.now - 1100.0 <= 0.25


@pytest.mark.parametrize("end, timeout, expected", [
    ("1 1.0 2.0\nfio: bad option\nfio: job file invalid\n", 0,
     f"fio exited with rc 1 running {STARTED['job_file']}: fio: bad option | fio: job file invalid"),
    # coreutils timeout: 124 after TERM; 137 (KILL) counts as a time-out once the time-out has passed.
    ("124 1.0 31.0\n", 30, f"fio timed out after 30 s running {STARTED['job_file']}"),
    ("137 1.0 62.0\n", 30, f"fio timed out after 30 s running {STARTED['job_file']}"),
    ("137 1.0 5.0\nKilled\n", 30, f"fio exited with rc 137 running {STARTED['job_file']}: Killed"),
    # The fio server's refusal: the guard's check failed right before fio would have started.
    ("-1 1.0 1.0\nfio_job refused round-01.fio, nothing was written: /dev/sdz is not the guarded drive\n", 0,
     "fio_job refused round-01.fio, nothing was written: /dev/sdz is not the guarded drive"),
    ("0 1.0 2.0\nnot json at all", 0, f"unusable fio output for {STARTED['job_file']}: "),
    ("garbage\n", 0, f"fio_job: unreadable exit status of {STARTED['job_file']}: 'garbage'"),
])
def test_how_fio_ended_is_told_in_fios_own_words(clock, end, timeout, expected):
    host = Host(clock, finish_at=1000.5, end=end)
    args = {"job_file": STARTED["job_file"], "job_text": "[job]\n", "expected_seconds": 1, "timeout": timeout}
    result = make_action(host, args).run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith(expected)
    assert "pts_fio" not in result
    if not end.startswith("garbage"):
        assert result["job_file"] == STARTED["job_file"] and result["job_text"] == "[job]\n"
        assert result["rc"] == int(end.split()[0])


@pytest.mark.parametrize("answer, expected", [
    ({"rc": 4, "stdout": "", "stderr": ""}, "fio_job: fio (PID 4242) ended without an exit status for "),
    ({"rc": 1, "stdout": "", "stderr": "tail: cannot open\n"}, "fio_job: cannot read the end of "),
])
def test_a_fio_gone_without_a_status_or_an_unreadable_end_fails_the_round(clock, answer, expected):
    host = Host(clock, finish_at=None, failures=[answer])
    result = make_action(host, {"job_file": STARTED["job_file"], "job_text": "x"}).run(task_vars={})
    assert result["failed"] is True and result["msg"].startswith(expected) and len(host.commands) == 1
    assert "tail: cannot open" in result["msg"] or answer["rc"] == 4


def test_a_dropped_connection_is_retried_and_said(clock, display):
    host = Host(clock, finish_at=1000.0, failures=[AnsibleConnectionFailure("ssh: connection reset")])
    result = make_action(host, {"job_file": STARTED["job_file"], "job_text": "x"}).run(task_vars={})
    assert "pts_fio" in result and len(host.commands) == 2
    (call,) = display.warning.call_args_list
    assert "lost the connection while waiting for" in call.args[0] and "ssh: connection reset" in call.args[0]


def test_gives_up_after_the_time_out_and_its_grace(clock):
    host = Host(clock, finish_at=None)
    result = make_action(host, {"job_file": STARTED["job_file"], "job_text": "x", "timeout": 10}).run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == (f"fio_job: fio did not finish within 130 s ({STARTED['job_file']}, PID 4242 on the host)")
    assert 1130.0 <= clock.now <= 1131.0


def test_a_host_that_stays_away_is_unreachable_outside_a_run(clock):
    host = Host(clock, finish_at=None, failures=[AnsibleConnectionFailure("ssh: no route to host")] * 100)
    result = make_action(host, {"job_file": STARTED["job_file"], "job_text": "x", "reconnect_timeout": 10}).run(
        task_vars={})
    assert result["unreachable"] is True and result["pts_lost"] is True
    assert result["msg"].startswith("fio_job: no connection to the host for 10 s while waiting for fio")
    assert 1010.0 <= clock.now <= 1012.0  # the reconnect time-out, not the day-long limit


def test_in_a_run_a_lost_host_is_recorded_for_the_drive_and_fails(clock, tmp_path):
    run_dir = str(tmp_path / "r1")
    host = Host(clock, finish_at=None, failures=[AnsibleConnectionFailure("ssh: no route to host")] * 100)
    args = {"job_file": STARTED["job_file"], "job_text": "x", "reconnect_timeout": 5, "context": CONTEXT}
    result = make_action(host, dict(args, run_dir=run_dir)).run(
        task_vars={"inventory_hostname": "h1/d1"})
    assert result["failed"] is True and result["pts_lost"] is True and "unreachable" not in result
    lost = _results.read_json(os.path.join(run_dir, "h1", "d1", "lost.json"))
    assert lost["msg"].startswith("fio_job: no connection to the host for 5 s")
    # The test's failure is on record too, where its rounds go.
    assert _results.read_json(os.path.join(run_dir, "h1", "d1", "iops", "failure.json"))["round"] == 1


def test_a_connection_lost_while_starting_fio_outside_a_run_is_ansible_cores_unreachable(clock):
    host = Host(clock, finish_at=None, started=AnsibleConnectionFailure("ssh: timed out"))
    with pytest.raises(AnsibleConnectionFailure):
        make_action(host, {"job_file": STARTED["job_file"], "job_text": "x", "context": CONTEXT}).run(task_vars={})


def test_a_connection_lost_while_starting_fio_in_a_run_fails_the_step(clock, tmp_path):
    host = Host(clock, finish_at=None, started=AnsibleConnectionFailure("ssh: timed out"))
    args = {"job_file": STARTED["job_file"], "job_text": "x", "context": CONTEXT}
    result = make_action(host, dict(args, run_dir=str(tmp_path / "r1"))).run(
        task_vars={"inventory_hostname": "h1"})
    assert result["failed"] and result["pts_lost"] and "ssh: timed out" in result["msg"] and host.commands == []


def test_a_connection_lost_while_starting_fio_in_a_run_is_recorded_for_the_drive(clock, tmp_path):
    host = Host(clock, finish_at=None, started=AnsibleConnectionFailure("ssh: timed out"))
    args = {"job_file": STARTED["job_file"], "job_text": "x", "context": CONTEXT}
    run_dir = str(tmp_path / "r1")
    make_action(host, dict(args, run_dir=run_dir)).run(
        task_vars={"inventory_hostname": "h1/d1"})
    assert os.path.exists(os.path.join(run_dir, "h1", "d1", "lost.json"))


def test_the_job_text_the_module_wrote_is_kept_when_the_task_gave_none(clock):
    host = Host(clock, finish_at=1000.0, started=dict(STARTED, job_text="[from the module]\n"))
    result = make_action(host, {"job_file": STARTED["job_file"]}).run(task_vars={})
    assert result["pts_fio"]["job_text"] == "[from the module]\n"


# --- in a run: filed on the controller, and slim ----------------------------------------------------------------------

def test_in_a_run_the_result_is_filed_and_the_task_result_keeps_a_summary(clock, tmp_path):
    run_dir = str(tmp_path / "r1")
    host = Host(clock, finish_at=1000.2)
    args = {"job_file": STARTED["job_file"], "job_text": "[wipc]\n", "context": dict(CONTEXT, phase="wipc")}
    result = make_action(host, dict(args, run_dir=run_dir)).run(
        task_vars={"inventory_hostname": "h1/d1"})
    test_dir = os.path.join(run_dir, "h1", "d1", "iops")
    record = _results.read_json(os.path.join(test_dir, "wipc.json"))
    assert record["fio"]["jobs"] == _fio.parse(RAW)["jobs"] and record["phase"] == "wipc"
    with open(os.path.join(test_dir, "wipc.raw.json"), encoding="utf-8") as handle:
        assert handle.read() == RAW
    with open(os.path.join(test_dir, "wipc.fio"), encoding="utf-8") as handle:
        assert handle.read() == "[wipc]\n"
    assert "pts_fio_raw" not in result and "job_text" not in result
    assert result["pts_fio"] == {"elapsed_s": 100.4, "sections": len(record["fio"]["jobs"]),
                                 "job_file": STARTED["job_file"]}


def test_outside_a_run_nothing_is_filed(clock, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = make_action(Host(clock, finish_at=1000.2)).run(task_vars={})
    assert result["pts_fio_raw"] == RAW and os.listdir(tmp_path) == []


# --- what is passed through as the module gave it ---------------------------------------------------------------------

def test_check_mode_runs_the_module_as_is(clock):
    host = Host(clock, finish_at=None)
    result = make_action(host, {"job_file": "/x.fio"}, check=True).run(task_vars={})
    assert result["msg"] == "check mode: fio not started" and "detach" not in host.modules[0]
    assert host.commands == []


def test_without_wait_the_start_is_returned(clock):
    host = Host(clock, finish_at=None)
    result = make_action(host, {"job_file": "/x.fio", "wait": False}).run(task_vars={})
    assert result["pts_fio_started"] == STARTED and host.commands == []


def test_a_module_that_did_not_start_fio_is_returned_as_is(clock):
    host = Host(clock, finish_at=None, started={})
    host.execute_module = lambda **kw: {"failed": True, "msg": "fio_job refused /x.fio: not the guarded drive"}
    action = make_action(host, {"job_file": "/x.fio"})
    result = action.run(task_vars={})
    assert result["failed"] and result["msg"] == "fio_job refused /x.fio: not the guarded drive"
    assert host.commands == []


@pytest.mark.parametrize("args, expected", [
    # The module's own argument spec, checked on the controller.
    ({"job_file": "/x.fio", "wait": "maybe"}, "argument 'wait' is of type"),
    ({"job_file": "/x.fio", "timeout": "soon"}, "argument 'timeout' is of type"),
    ({"job_file": "/x.fio", "expected_seconds": [1]}, "argument 'expected_seconds' is of type"),
    ({"job_file": "/x.fio", "output_format": "xml"}, "output_format must be one of: json, json+"),
    ({"job_file": "/x.fio", "jobfile": "/y.fio"}, "Unsupported parameters"),
])
def test_bad_arguments_are_refused_before_the_host_is_asked(clock, args, expected):
    host = Host(clock, finish_at=None)
    with pytest.raises(AnsibleActionFail, match=re.escape(expected)):
        make_action(host, args).run(task_vars={})
    assert host.modules == []


def test_a_task_without_the_guarded_device_is_refused_before_the_host_is_asked(clock):
    host = Host(clock, finish_at=None)
    action = make_action(host, {"job_file": "/x.fio"})
    del action._task.args["device"]
    with pytest.raises(AnsibleActionFail, match="missing required arguments: device"):
        action.run(task_vars={})
    assert host.modules == []


def test_the_action_checks_the_modules_own_argument_spec():
    assert fio_job.ActionModule.ARGUMENT_SPEC is _fio_job_args.ARGUMENT_SPEC
