# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A segment's fio server on the host: requests taken from its directory, the guard's check, fio's status written
last, and the loop's end. Real temporary directories; a runner stands in for fio, and a clock for time."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_server


def put_request(directory, **request) -> None:
    body = {"job_file": os.path.join(directory, "round-01.fio"), "output": os.path.join(directory, "round-01.json")}
    body.update(request)
    with open(os.path.join(directory, _fio_server.REQUEST), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(body))


def read(path) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Fio:
    """Stands in for fio: records each command line, writes its output file and a message, exits with ``rc``."""

    def __init__(self, rc: int = 0, then=None):
        self.rc = rc
        self.calls: list[dict] = []
        self.then = then  # what the controller does while fio runs (say, ask the server to stop)

    def __call__(self, argv, stdin, stdout, stderr, check):
        self.calls.append({"argv": argv, "stderr": stderr, "check": check, "stdin": stdin.name})
        output = next(a.split("=", 1)[1] for a in argv if a.startswith("--output="))
        with open(output, "w", encoding="utf-8") as handle:
            handle.write('{"jobs": []}')
        stdout.write(b"fio: note\n")
        if self.then:
            self.then()
        return subprocess.CompletedProcess(argv, self.rc)


def ticks(*values: float):
    return iter(values).__next__


# --- take_request -----------------------------------------------------------------------------------------------------

def test_no_request_is_none(tmp_path):
    assert _fio_server.take_request(str(tmp_path)) is None


def test_a_request_is_taken_once_with_its_defaults(tmp_path):
    directory = str(tmp_path)
    put_request(directory)
    assert _fio_server.take_request(directory) == {
        "job_file": os.path.join(directory, "round-01.fio"), "output": os.path.join(directory, "round-01.json"),
        "timeout": 0, "output_format": "json", "status_interval_ms": 0, "logs": ""}
    assert os.listdir(directory) == [] and _fio_server.take_request(directory) is None


@pytest.mark.parametrize("change, message", [
    ({"job_file": "/etc/cron.d/evil.fio"}, "'/etc/cron.d/evil.fio' is not a file of "),
    ({"job_file": "{dir}/../elsewhere/round-01.fio"}, "is not a file of "),
    ({"job_file": "{dir}/sub/round-01.fio"}, "is not a file of "),
    ({"output": "/root/.ssh/authorized_keys"}, "'/root/.ssh/authorized_keys' is not a file of "),
    ({"job_file": None}, "None is not a file of "),
    ({"timeout": -1}, "timeout -1 is not a number of seconds"),
    ({"timeout": 1.5}, "timeout 1.5 is not a number of seconds"),
    ({"timeout": True}, "timeout True is not a number of seconds"),
    ({"output_format": "normal"}, "output_format 'normal' is not json or json+"),
    ({"status_interval_ms": -5}, "status_interval_ms -5 is not a number of milliseconds"),
    ({"status_interval_ms": 0.5}, "status_interval_ms 0.5 is not a number of milliseconds"),
    ({"logs": "../round-01"}, "logs '../round-01' is not a file name prefix"),
    ({"logs": "/tmp/x"}, "logs '/tmp/x' is not a file name prefix"),
    ({"logs": 3}, "logs 3 is not a file name prefix"),
])
def test_a_request_the_collection_would_not_write_is_refused_and_removed(tmp_path, change, message):
    directory = str(tmp_path)
    put_request(directory, **{k: v.format(dir=directory) if isinstance(v, str) else v for k, v in change.items()})
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("+", r"\+")):
        _fio_server.take_request(directory)
    assert not os.path.exists(os.path.join(directory, _fio_server.REQUEST))  # never taken again


@pytest.mark.parametrize("text", ["[1, 2]", "not json"])
def test_a_request_that_is_no_json_object_is_refused(tmp_path, text):
    (tmp_path / _fio_server.REQUEST).write_text(text)
    with pytest.raises(ValueError):
        _fio_server.take_request(str(tmp_path))


# --- command and run_request ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("timeout, timeout_bin, expected", [
    (0, "/usr/bin/timeout", ["/usr/bin/fio", "--output-format=json+", "--output=/d/r.json", "/d/r.fio"]),
    (90, None, ["/usr/bin/fio", "--output-format=json+", "--output=/d/r.json", "/d/r.fio"]),
    (90, "/usr/bin/timeout", ["/usr/bin/timeout", "--kill-after=30", "90", "/usr/bin/fio", "--output-format=json+",
                              "--output=/d/r.json", "/d/r.fio"]),
])
def test_fios_command_line(timeout, timeout_bin, expected):
    request = {"job_file": "/d/r.fio", "output": "/d/r.json", "timeout": timeout, "output_format": "json+"}
    assert _fio_server.command("/usr/bin/fio", timeout_bin, request) == expected


def test_a_continuous_stimulus_dumps_its_status_every_interval():
    request = {"job_file": "/d/r.fio", "output": "/d/r.json", "timeout": 0, "output_format": "json+",
               "status_interval_ms": 500}
    assert _fio_server.command("/usr/bin/fio", None, request) == [
        "/usr/bin/fio", "--output-format=json+", "--output=/d/r.json", "--status-interval=500ms", "/d/r.fio"]


def test_an_earlier_attempts_interval_logs_go_before_fio_appends_to_them(tmp_path):
    request = dict(request_in(str(tmp_path)), logs="round-02")
    for name in ("round-02_bw.log", "round-02_iops.log", "round-01_bw.log", "round-02_bw.log.keep"):
        (tmp_path / name).write_text("1, 2, 1, 0, 0\n")
    _fio_server.run_request(request, lambda job: None, "fio", None, Fio(rc=0), clock=ticks(1.0, 2.0))
    assert sorted(os.listdir(tmp_path)) == ["round-01_bw.log", "round-02.json", "round-02.json.log",
                                            "round-02.json.status", "round-02_bw.log.keep"]


def request_in(directory: str, timeout: int = 0) -> dict:
    return {"job_file": os.path.join(directory, "round-02.fio"), "output": os.path.join(directory, "round-02.json"),
            "timeout": timeout, "output_format": "json"}


def test_a_round_runs_fio_and_writes_its_status_last(tmp_path):
    request = request_in(str(tmp_path), timeout=60)
    output = request["output"]
    for stale in (output, _fio_server.status_path(output), _fio_server.log_path(output)):
        with open(stale, "w", encoding="utf-8") as handle:
            handle.write("an earlier attempt's\n")
    seen = []

    def fio(argv, **kwargs):
        # While fio runs, the earlier attempt's status is gone: the controller cannot take it for this round's.
        seen.append(os.path.exists(_fio_server.status_path(output)))
        return Fio(rc=0)(argv, **kwargs)

    line = _fio_server.run_request(request, lambda job: None, "/usr/bin/fio", "/usr/bin/timeout", fio,
                                   clock=ticks(100.0, 160.25))
    assert line == "0 100.000000 160.250000" and seen == [False]
    assert read(_fio_server.status_path(output)) == "0 100.000000 160.250000\n"
    assert read(output) == '{"jobs": []}' and read(_fio_server.log_path(output)) == "fio: note\n"
    assert not os.path.exists(_fio_server.status_path(output) + ".tmp")


def test_fios_exit_status_is_the_status_lines(tmp_path):
    runner = Fio(rc=124)
    line = _fio_server.run_request(request_in(str(tmp_path), 5), lambda job: None, "fio", "timeout", runner,
                                   clock=ticks(1.0, 36.0))
    assert line == "124 1.000000 36.000000"
    assert runner.calls[0]["argv"][:3] == ["timeout", "--kill-after=30", "5"]
    assert runner.calls[0]["check"] is False and runner.calls[0]["stdin"] == os.devnull
    assert runner.calls[0]["stderr"] == subprocess.STDOUT


def test_a_refusal_runs_no_fio_and_says_why(tmp_path):
    request = request_in(str(tmp_path))
    runner = Fio()
    checked = []

    def refusal(job_file):
        checked.append(job_file)
        return "filename=/dev/sda is not the guarded drive /dev/loop9"

    line = _fio_server.run_request(request, refusal, "fio", "timeout", runner, clock=ticks(7.0, 7.0))
    assert runner.calls == [] and checked == [request["job_file"]]
    assert line == f"{_fio_server.REFUSED} 7.000000 7.000000" and line.startswith("-1 ")
    assert read(_fio_server.log_path(request["output"])) == (
        f"fio_job refused {request['job_file']}, nothing was written: filename=/dev/sda is not the guarded drive "
        "/dev/loop9\n")
    assert not os.path.exists(request["output"])


# --- serve ------------------------------------------------------------------------------------------------------------

class Time:
    def __init__(self):
        self.now = 0.0
        self.sleeps = 0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps += 1
        self.now += seconds


def test_the_stop_file_ends_the_server_and_is_taken(tmp_path):
    (tmp_path / _fio_server.STOP).write_text("")
    assert _fio_server.serve(str(tmp_path), lambda job: None, "fio", None, 600.0, runner=Fio()) == "stopped"
    assert os.listdir(tmp_path) == []


def test_idle_for_its_time_the_server_ends_by_itself(tmp_path):
    clock = Time()
    ended = _fio_server.serve(str(tmp_path), lambda job: None, "fio", None, idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, runner=Fio())
    assert ended == "idle" and clock.now == pytest.approx(2.5) and clock.sleeps == 5


def test_each_request_runs_once_then_the_controller_stops_it(tmp_path):
    directory = str(tmp_path)
    put_request(directory)
    clock = Time()
    runner = Fio(then=lambda: (tmp_path / _fio_server.STOP).write_text(""))
    ended = _fio_server.serve(directory, lambda job: None, "fio", "timeout", idle_s=600.0, monotonic=clock.monotonic,
                              sleep=clock.sleep, runner=runner)
    assert ended == "stopped" and len(runner.calls) == 1
    assert read(os.path.join(directory, "round-01.json.status")).startswith("0 ")
    assert clock.sleeps == 0  # a request and a stop are seen at once, without waiting


def test_a_round_resets_the_idle_time(tmp_path):
    directory = str(tmp_path)
    clock = Time()

    def sleep(seconds):
        clock.sleep(seconds)
        if clock.sleeps == 3:  # the controller's next round arrives 1.5 s in, after an idle time of 2 s minus a bit
            put_request(directory)

    runner = Fio()
    ended = _fio_server.serve(directory, lambda job: None, "fio", None, idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=sleep, runner=runner)
    assert ended == "idle" and len(runner.calls) == 1 and clock.now == pytest.approx(4.0)


def test_a_refused_request_is_recorded_and_the_server_goes_on(tmp_path):
    directory = str(tmp_path)
    put_request(directory, job_file="/etc/passwd")
    clock = Time()
    runner = Fio()
    ended = _fio_server.serve(directory, lambda job: None, "fio", None, idle_s=1.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, runner=runner)
    assert ended == "idle" and runner.calls == []
    assert "'/etc/passwd' is not a file of " in read(os.path.join(directory, "request.refused"))
    # The round's output is known: the controller waiting for it gets the refusal at once, not a time-out.
    assert sorted(os.listdir(directory)) == ["request.refused", "round-01.json.log", "round-01.json.status"]
    assert read(os.path.join(directory, "round-01.json.status")).startswith("-1 ")
    assert "is not a file of" in read(os.path.join(directory, "round-01.json.log"))


def test_a_round_the_guard_refuses_leaves_a_refusal_status_and_no_fio(tmp_path):
    directory = str(tmp_path)
    put_request(directory)
    runner = Fio()
    runner_stop = Time()

    def sleep(seconds):
        runner_stop.sleep(seconds)
        (tmp_path / _fio_server.STOP).write_text("")

    ended = _fio_server.serve(directory, lambda job: "mounted at /srv", "fio", None, idle_s=60.0,
                              monotonic=runner_stop.monotonic, sleep=sleep, runner=runner)
    assert ended == "stopped" and runner.calls == []
    assert read(os.path.join(directory, "round-01.json.status")).startswith("-1 ")
    assert read(os.path.join(directory, "round-01.json.log")).endswith("nothing was written: mounted at /srv\n")
