# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.action import fio_job


class Clock:
    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def make_action(async_val=600, poll=0, args=None):
    task = MagicMock()
    task.async_val = async_val
    task.poll = poll
    task.check_mode = False
    task.args = args or {"job_file": "/x.fio", "expected_seconds": 100}
    connection = MagicMock()
    connection.has_native_async = False
    return fio_job.ActionModule(task, connection, MagicMock(), MagicMock(), MagicMock(), MagicMock())


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(fio_job.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(fio_job.time, "sleep", fake.sleep)
    return fake


STARTED = {"ansible_job_id": "j1", "started": 1, "finished": 0, "results_file": "/root/.ansible_async/j1"}
RUNNING = json.dumps({"started": 1, "finished": 0, "ansible_job_id": "j1"})


def shell(action, monkeypatch, answer):
    """Stand in for the host's shell: `cat` of the status file gets answer(), `rm -f` is recorded."""
    commands = []

    def low_level(cmd, **kwargs):
        commands.append(cmd)
        if cmd.startswith("rm -f"):
            return {"rc": 0, "stdout": "", "stderr": ""}
        value = answer()
        if isinstance(value, Exception):
            raise value
        return value if isinstance(value, dict) and "rc" in value else {"rc": 0, "stdout": value, "stderr": ""}

    monkeypatch.setattr(action, "_low_level_execute_command", low_level)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: dict(STARTED))
    return commands


def test_waits_quietly_then_polls_closely_near_the_expected_end(clock, monkeypatch):
    action = make_action()
    finish_at = clock.now + 100.4

    def answer():
        if clock.now >= finish_at:
            return json.dumps({"changed": True, "pts_fio": {"jobs": []}})
        return RUNNING

    commands = shell(action, monkeypatch, answer)
    result = action.run(task_vars={})

    assert result["pts_fio"] == {"jobs": []} and result["changed"] is True
    assert "ansible_job_id" not in result and "finished" not in result
    assert commands[0] == "cat /root/.ansible_async/j1" and commands[-1] == "rm -f /root/.ansible_async/j1"
    # back-off (1, 2, 4, ... s) until a second before the expected end, then a quarter second
    assert clock.sleeps[:6] == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert sum(clock.sleeps[:7]) == pytest.approx(99.0)
    assert set(clock.sleeps[7:]) == {0.25}
    # the result is seen within a quarter second of fio's end, with few polls
    assert 0 <= clock.now - finish_at <= 0.25
    assert len(commands) <= 16


def test_a_late_fio_is_polled_every_second_after_the_close_window(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio", "expected_seconds": 10})
    finish_at = clock.now + 100
    shell(action, monkeypatch, lambda: json.dumps({"rc": 0}) if clock.now >= finish_at else RUNNING)
    assert action.run(task_vars={})["rc"] == 0
    assert clock.sleeps[-1] == 1.0 and clock.now - finish_at <= 1.0


def test_an_empty_or_half_written_status_file_means_still_running(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio", "expected_seconds": 1})
    answers = iter(["", '{"changed": tr', json.dumps({"failed": True, "msg": "fio: bad option"})])
    shell(action, monkeypatch, lambda: next(answers))
    result = action.run(task_vars={})
    assert result["failed"] is True and result["msg"] == "fio: bad option"


def test_a_vanished_status_file_fails_the_round(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio", "expected_seconds": 1})
    shell(action, monkeypatch, lambda: {"rc": 1, "stdout": "", "stderr": "cat: No such file or directory"})
    result = action.run(task_vars={})
    assert result["failed"] is True and "the status of job j1 is gone" in result["msg"]


def test_a_dropped_connection_is_retried(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio"})
    answers = iter([AnsibleConnectionFailure("ssh: connection reset"), json.dumps({"rc": 0})])
    shell(action, monkeypatch, lambda: next(answers))
    assert action.run(task_vars={})["rc"] == 0


def test_gives_up_at_the_async_limit(clock, monkeypatch):
    action = make_action(async_val=30, args={"job_file": "/x.fio"})
    shell(action, monkeypatch, lambda: RUNNING)
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "did not finish within async=30 s" in result["msg"]


def test_without_async_the_module_result_is_returned_as_is(monkeypatch):
    action = make_action(async_val=0)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"changed": True, "pts_fio": {"jobs": [1]}})
    assert action.run(task_vars={})["pts_fio"] == {"jobs": [1]}


def test_a_host_that_stays_away_is_reported_unreachable(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio", "reconnect_timeout": 10})
    commands = shell(action, monkeypatch, lambda: AnsibleConnectionFailure("ssh: no route to host"))
    result = action.run(task_vars={})
    assert result["unreachable"] is True and "no connection to the host for 10 s" in result["msg"]
    assert clock.now - 1000.0 < 15  # gave up after the reconnect time-out, not the async limit of 600 s
    assert not any(c.startswith("rm -f") for c in commands)
