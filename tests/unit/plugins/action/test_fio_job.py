# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio_job action: the module starts fio detached (or a segment's fio server), the controller waits with one shell
command that loops on the host, and fio's output is parsed here. The module, the host's shell and the clock are
stand-ins; the waiting schedule, the parsing, the filing and the shell loop itself (run by /bin/sh) are real."""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import subprocess
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.action import fio_job
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _fio_server
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _filing, _results

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
with open(os.path.join(FIXTURES, "fio-3.33-iops-round.json"), encoding="utf-8") as _handle:
    RAW = _handle.read()
STARTED = {"pid": 4242, "job_file": "/var/lib/pts/r1/d1/iops/round-01.fio",
           "output": "/var/lib/pts/r1/d1/iops/round-01.json", "status": "/var/lib/pts/r1/d1/iops/round-01.json.status",
           "log": "/var/lib/pts/r1/d1/iops/round-01.json.log", "command": ["fio", "--output-format=json"]}
CONTEXT = {"run_id": "r1", "host": "h1", "drive": "d1", "test": "iops", "segment": "", "phase": "round", "round": 1,
           "loop": "d1/iops/@1"}


class Clock:
    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


class Host:
    """The host: the fio_job module's answers, and a shell that runs host_wait_command against a fio that ends at
    ``finish_at`` on the fake clock with ``end`` (its exit status line and what follows it)."""

    def __init__(self, clock: Clock, finish_at: float | None, end: str | None = None, started: dict | None = None,
                 failures: list | None = None):
        self.clock = clock
        self.finish_at = finish_at
        self.end = end if end is not None else f"0 1.000000 101.400000\n{RAW}"
        self.started = dict(STARTED) if started is None else started
        self.failures = list(failures or [])  # answers that replace the next shell commands' (exceptions, dicts)
        self.modules: list[dict] = []
        self.commands: list[str] = []

    def execute_module(self, module_name=None, module_args=None, task_vars=None):
        self.modules.append(dict(module_args, _name=module_name))
        if isinstance(self.started, Exception):
            raise self.started
        if module_args.get("serve"):
            return {"changed": False, "pts_fio_server": {"pid": 77, "dir": os.path.dirname(module_args["job_file"]),
                                                         "idle_s": module_args["serve"]}}
        if module_args.get("detach"):
            return {"changed": True, "pts_fio_started": self.started, "pts_context": module_args.get("context") or {}}
        return {"changed": False, "msg": "check mode: fio not started", "command": ["fio"]}

    def command(self, cmd, sudoable=True, in_data=None):
        self.commands.append(cmd)
        if self.failures:
            answer = self.failures.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer
        if "while :" not in cmd:  # the job file and request of a round, or the stop file
            return {"rc": 0, "stdout": "", "stderr": ""}
        count = int(re.match(r"n=(\d+);", cmd).group(1))
        step = float(re.search(r"sleep ([0-9.]+); done$", cmd).group(1))
        span = count * step if count > 1 else 0.0
        if self.finish_at is not None and self.finish_at <= self.clock.now + span:
            # The host looks every step: it sees the status within one step of fio's end.
            waited = max(0.0, self.finish_at - self.clock.now)
            self.clock.now += (int(waited / step) + (waited % step > 1e-9)) * step if span else 0.0
            return {"rc": 0, "stdout": self.end, "stderr": ""}
        self.clock.now += span
        return {"rc": 3, "stdout": "", "stderr": ""}


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(fio_job.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(fio_job.time, "sleep", fake.sleep)
    return fake


@pytest.fixture(autouse=True)
def display(monkeypatch):
    fake = MagicMock()
    monkeypatch.setattr(fio_job, "display", fake)
    monkeypatch.setattr(_filing, "display", fake)
    return fake


def make_action(host: Host, args: dict | None = None, check: bool = False):
    task = MagicMock(check_mode=check, async_val=0)
    task.args = {"job_file": STARTED["job_file"], "job_text": "[global]\nrw=randrw\n", "expected_seconds": 100,
                 "context": CONTEXT} if args is None else args
    action = fio_job.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    action._execute_module = host.execute_module
    action._low_level_execute_command = host.command
    return action


# --- waiting for a detached fio ---------------------------------------------------------------------------------------

def test_waits_quietly_then_lets_the_host_watch_and_parses_fios_output_here(clock):
    host = Host(clock, finish_at=1100.4)
    result = make_action(host).run(task_vars={})

    assert host.modules[0]["detach"] is True and host.modules[0]["_name"] == "fleetqual.pts.fio_job"
    # Back-off (1, 2, 4, ... s) with one look each, until a second before the expected end ...
    assert clock.sleeps == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 36.0]
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
    # 30 s past the expected end the host looks every 0.25 s, for 30 s a command.
    assert late and all(c.startswith("n=120;") for c in late)
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
    result = make_action(host, args).run(task_vars={"pts_run_dir": run_dir, "inventory_hostname": "h1/d1"})
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
    result = make_action(host, args).run(task_vars={"pts_run_dir": str(tmp_path / "r1"), "inventory_hostname": "h1"})
    assert result["failed"] and result["pts_lost"] and "ssh: timed out" in result["msg"] and host.commands == []


def test_a_connection_lost_while_starting_fio_in_a_run_is_recorded_for_the_drive(clock, tmp_path):
    host = Host(clock, finish_at=None, started=AnsibleConnectionFailure("ssh: timed out"))
    args = {"job_file": STARTED["job_file"], "job_text": "x", "context": CONTEXT}
    run_dir = str(tmp_path / "r1")
    make_action(host, args).run(task_vars={"pts_run_dir": run_dir, "inventory_hostname": "h1/d1"})
    assert os.path.exists(os.path.join(run_dir, "h1", "d1", "lost.json"))


def test_the_wait_stops_once_the_controller_is_gone(clock):
    host = Host(clock, finish_at=None)
    action = make_action(host)
    action.wanted = lambda: False  # pts_segment's: its ansible-playbook died and this worker is an orphan
    result = action.run(task_vars={})
    assert result["failed"] is True and host.commands == [] and clock.sleeps == []
    assert result["msg"] == (f"fio_job: stopped waiting for {STARTED['job_file']}: the controller (ansible-playbook) "
                             "is gone")


def test_the_job_text_the_module_wrote_is_kept_when_the_task_gave_none(clock):
    host = Host(clock, finish_at=1000.0, started=dict(STARTED, job_text="[from the module]\n"))
    result = make_action(host, {"job_file": STARTED["job_file"]}).run(task_vars={})
    assert result["pts_fio"]["job_text"] == "[from the module]\n"


# --- in a run: filed on the controller, and slim ----------------------------------------------------------------------

def test_in_a_run_the_result_is_filed_and_the_task_result_keeps_a_summary(clock, tmp_path):
    run_dir = str(tmp_path / "r1")
    host = Host(clock, finish_at=1000.2)
    args = {"job_file": STARTED["job_file"], "job_text": "[wipc]\n", "context": dict(CONTEXT, phase="wipc")}
    result = make_action(host, args).run(task_vars={"pts_run_dir": run_dir, "inventory_hostname": "h1/d1"})
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
    ({"job_file": "/x.fio", "wait": "yes"}, "fio_job: wait='yes' must be a boolean"),
    ({"job_file": "/x.fio", "timeout": "soon"}, "fio_job: timeout='soon' must be a number of seconds"),
    ({"job_file": "/x.fio", "expected_seconds": [1]}, "fio_job: expected_seconds=[1] must be a number of seconds"),
])
def test_bad_arguments_are_refused_before_the_host_is_asked(clock, args, expected):
    host = Host(clock, finish_at=None)
    with pytest.raises(AnsibleActionFail, match=re.escape(expected)):
        make_action(host, args).run(task_vars={})
    assert host.modules == []


# --- a segment's fio server -------------------------------------------------------------------------------------------

SERVER = {"pid": 77, "dir": "/var/lib/pts/r1/d1/wsat", "idle_s": 600.0}


def round_args(**changes) -> dict:
    args = {"job_file": "/var/lib/pts/r1/d1/wsat/round-02.fio", "job_text": "[wsat]\nrw=randwrite\n",
            "expected_seconds": 0.5, "timeout": 60, "reconnect_timeout": 300, "output_format": "json"}
    args.update(changes)
    return args


def test_the_server_is_started_by_the_module_with_its_idle_time(clock):
    host = Host(clock, finish_at=None)
    started = make_action(host).start_server({"x": 1}, round_args(), 900.0)
    assert host.modules == [dict(round_args(), serve=900.0, _name="fleetqual.pts.fio_job")]
    assert started["pts_fio_server"] == {"pid": 77, "dir": SERVER["dir"], "idle_s": 900.0}


def test_a_round_is_sent_with_one_command_then_waited_for_on_the_host(clock):
    host = Host(clock, finish_at=1000.6, end=f"0 5.0 5.6\n{RAW}")
    found = make_action(host).run_round(SERVER, round_args())
    send, *waits = host.commands
    assert send.startswith("kill -0 77 2>/dev/null || exit 5; ")
    job = base64.b64encode(b"[wsat]\nrw=randwrite\n").decode()
    assert f"printf %s {job} | base64 -d >/var/lib/pts/r1/d1/wsat/round-02.fio.tmp && " in send
    # An earlier attempt's files of the round go first: they are never read as this round's.
    assert ("rm -f /var/lib/pts/r1/d1/wsat/round-02.json /var/lib/pts/r1/d1/wsat/round-02.json.status "
            "/var/lib/pts/r1/d1/wsat/round-02.json.log && printf %s ") in send
    request = json.loads(shlex.split(send.split("&& printf %s ", 2)[2])[0])
    assert request == {"job_file": round_args()["job_file"], "output": "/var/lib/pts/r1/d1/wsat/round-02.json",
                       "timeout": 60, "output_format": "json"}
    # The request is renamed into place last: the server never reads a half-written one.
    assert send.endswith("mv /var/lib/pts/r1/d1/wsat/request.json.tmp /var/lib/pts/r1/d1/wsat/request.json")
    assert "/var/lib/pts/r1/d1/wsat/round-02.json.status" in waits[-1] and "kill -0 77" in waits[-1]
    assert found["pts_fio"]["elapsed_s"] == 0.6 and found["pts_fio"]["jobs"] == _fio.parse(RAW)["jobs"]
    assert found["pts_fio"]["command"] == ["timeout", "--kill-after=30", "60", "fio", "--output-format=json",
                                           "--output=/var/lib/pts/r1/d1/wsat/round-02.json", round_args()["job_file"]]


@pytest.mark.parametrize("answer, expected", [
    ({"rc": 5, "stdout": "", "stderr": ""}, "fio_job: the fio server of /var/lib/pts/r1/d1/wsat (PID 77) is gone"),
    ({"rc": 1, "stdout": "", "stderr": "No space left on device\n"},
     "fio_job: cannot send /var/lib/pts/r1/d1/wsat/round-02.fio to the host: rc 1, No space left on device"),
])
def test_a_round_the_server_cannot_take_fails_without_waiting(clock, answer, expected):
    host = Host(clock, finish_at=None, failures=[answer])
    assert make_action(host).run_round(SERVER, round_args()) == {"failed": True, "msg": expected}
    assert len(host.commands) == 1 and clock.sleeps == []


def test_a_job_file_outside_the_servers_directory_is_not_sent(clock):
    host = Host(clock, finish_at=None)
    found = make_action(host).run_round(SERVER, round_args(job_file="/etc/cron.d/round-02.fio"))
    assert found["failed"] and "is not in the fio server's directory /var/lib/pts/r1/d1/wsat" in found["msg"]
    assert host.commands == []


def test_stopping_the_server_touches_its_stop_file_and_a_lost_host_is_a_warning(clock, display):
    host = Host(clock, finish_at=None)
    action = make_action(host)
    action.stop_server(SERVER)
    assert host.commands == ["touch /var/lib/pts/r1/d1/wsat/stop"]
    host.failures = [AnsibleConnectionFailure("ssh: closed")]
    action.stop_server(SERVER)
    (call,) = display.warning.call_args_list
    assert call.args[0] == "fio_job: could not stop the fio server of /var/lib/pts/r1/d1/wsat: ssh: closed"


# --- the host's side of the wait, run by a real shell -----------------------------------------------------------------

def sh(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=False, timeout=20)


def paths(tmp_path, pid: int) -> dict:
    output = str(tmp_path / "round 01.json")  # a space: every path is quoted
    return {"pid": pid, "job_file": str(tmp_path / "round 01.fio"), "output": output,
            "status": _fio_server.status_path(output), "log": _fio_server.log_path(output)}


def test_the_host_loop_prints_the_status_and_fios_output(tmp_path):
    started = paths(tmp_path, os.getpid())
    with open(started["output"], "w", encoding="utf-8") as handle:
        handle.write(RAW)
    with open(started["status"], "w", encoding="utf-8") as handle:
        handle.write("0 10.5 12.75\n")
    done = sh(fio_job.host_wait_command(started, 0.02, 1.0))
    assert done.returncode == 0 and done.stdout == f"0 10.5 12.75\n{RAW}"
    found = fio_job.outcome(started, done.stdout, "[x]\n", 0)
    assert found["pts_fio"]["elapsed_s"] == 2.25 and found["pts_fio_raw"] == RAW


def test_the_host_loop_prints_the_end_of_fios_messages_when_it_failed(tmp_path):
    started = paths(tmp_path, os.getpid())
    with open(started["log"], "w", encoding="utf-8") as handle:
        handle.write("x" * 10_000 + "\nfio: pid=1, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error\n")
    with open(started["status"], "w", encoding="utf-8") as handle:
        handle.write("1 10.0 11.0\n")
    done = sh(fio_job.host_wait_command(started, 0.02, 1.0))
    assert done.returncode == 0 and len(done.stdout) == len("1 10.0 11.0\n") + 4000
    found = fio_job.outcome(started, done.stdout, None, 0)
    assert found["failed"] and found["msg"].endswith("error=Input/output error")


def test_the_host_loop_says_not_yet_while_fio_runs_and_gone_when_it_vanished(tmp_path):
    running = paths(tmp_path, os.getpid())  # this test's process stands for a running fio
    assert sh(fio_job.host_wait_command(running, 0.01, 0.05)).returncode == 3
    gone = paths(tmp_path, 2 ** 22 + 1)  # above pid_max's largest value: no such process
    assert sh(fio_job.host_wait_command(gone, 0.01, 0.05)).returncode == 4
    assert sh(fio_job.host_wait_command(running, 0, 0)).returncode == 3  # a single look


def test_a_server_round_on_disk_is_read_by_the_host_loop_as_the_action_expects(tmp_path):
    """The server's status file (run_request) and the action's wait (host_wait_command, outcome) agree."""
    def runner(argv, stdin, stdout, stderr, check):
        output = next(a.split("=", 1)[1] for a in argv if a.startswith("--output="))
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(RAW)
        return subprocess.CompletedProcess(argv, 0)

    request = {"job_file": str(tmp_path / "round-03.fio"), "output": str(tmp_path / "round-03.json"), "timeout": 0,
               "output_format": "json"}
    _fio_server.run_request(request, lambda job: None, "fio", "timeout", runner, clock=iter([50.0, 53.5]).__next__)
    started = {"pid": os.getpid(), "job_file": request["job_file"], "output": request["output"],
               "status": _fio_server.status_path(request["output"]), "log": _fio_server.log_path(request["output"])}
    done = sh(fio_job.host_wait_command(started, 0.02, 1.0))
    found = fio_job.outcome(started, done.stdout, "[r3]\n", 0)
    assert found["changed"] is True and found["pts_fio"]["elapsed_s"] == 3.5
