# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

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


def test_waits_quietly_with_back_off_then_every_second(clock, monkeypatch):
    action = make_action()
    finish_at = clock.now + 103.5
    calls = []

    def status(jid, task_vars, mode):
        calls.append(mode)
        if mode == "cleanup":
            return {}
        if clock.now >= finish_at:
            return {"finished": 1, "started": 1, "ansible_job_id": jid, "results_file": "/r", "changed": True,
                    "pts_fio": {"jobs": []}}
        return {"finished": 0, "started": 1, "ansible_job_id": jid}

    monkeypatch.setattr(action, "_async_status", status)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"ansible_job_id": "j1", "started": 1, "finished": 0})
    result = action.run(task_vars={})

    assert result["pts_fio"] == {"jobs": []} and result["changed"] is True
    assert "ansible_job_id" not in result and "finished" not in result
    assert calls[-1] == "cleanup"
    # back-off until the expected end (1, 2, 4, ... capped at the remaining time), then 1 s steps
    assert clock.sleeps[:6] == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert sum(clock.sleeps[:7]) == pytest.approx(100.0)
    assert clock.sleeps[7:] == [1.0] * (len(clock.sleeps) - 7)
    # at most about a second of polling beyond the moment fio finished
    assert clock.now - finish_at <= 1.0
    assert calls.count("status") <= 12


def test_a_dropped_connection_is_retried(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio"})
    answers = iter([AnsibleConnectionFailure("ssh: connection reset"), {"finished": 1, "started": 1, "rc": 0}])

    def status(jid, task_vars, mode):
        if mode == "cleanup":
            return {}
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(action, "_async_status", status)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"ansible_job_id": "j1", "started": 1, "finished": 0})
    assert action.run(task_vars={})["rc"] == 0


def test_gives_up_at_the_async_limit(clock, monkeypatch):
    action = make_action(async_val=30, args={"job_file": "/x.fio"})
    monkeypatch.setattr(action, "_async_status", lambda jid, tv, mode: {"finished": 0, "started": 1})
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"ansible_job_id": "j1", "started": 1, "finished": 0})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert "did not finish within async=30 s" in result["msg"]


def test_without_async_the_module_result_is_returned_as_is(monkeypatch):
    action = make_action(async_val=0)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"changed": True, "pts_fio": {"jobs": [1]}})
    assert action.run(task_vars={})["pts_fio"] == {"jobs": [1]}


def test_a_host_that_stays_away_is_reported_unreachable(clock, monkeypatch):
    action = make_action(args={"job_file": "/x.fio", "reconnect_timeout": 10})

    calls = []

    def status(jid, task_vars, mode):
        calls.append(mode)
        raise AnsibleConnectionFailure("ssh: no route to host")

    monkeypatch.setattr(action, "_async_status", status)
    monkeypatch.setattr(action, "_execute_module", lambda **kw: {"ansible_job_id": "j1", "started": 1, "finished": 0})
    result = action.run(task_vars={})
    assert result["unreachable"] is True and "no connection to the host for 10 s" in result["msg"]
    assert clock.now - 1000.0 < 15  # gave up after the reconnect time-out, not the async limit of 600 s
    assert "cleanup" not in calls
