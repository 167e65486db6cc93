# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A segment's fio server on the host: requests taken from the directory it holds (never through a link), refused
ones said at once, its pidfile, and the loop's end. Real temporary directories; a runner stands in for fio's run, and
a clock for time."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_server

JOB = "[global]\nfilename=/dev/loop9\n\n[r1]\nrw=randread\n"


@pytest.fixture
def held(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def put_request(directory, **request) -> None:
    body = {"job": "round-01.fio", "output": "round-01.json", "job_text": JOB}
    body.update(request)
    with open(os.path.join(directory, _fio_server.REQUEST), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(body))


def read(path) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Runs:
    """Stands in for _fio_runner.run: records each request, writes its status, and does ``then`` meanwhile."""

    def __init__(self, then=None):
        self.requests: list[dict] = []
        self.then = then

    def __call__(self, dirfd, request, device, refusal, fio):
        self.requests.append(dict(request, device=device, refused=refusal(request["job_text"])))
        with open(os.open(request["output"] + ".status", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=dirfd), "w",
                  encoding="ascii") as handle:
            handle.write("0 1.0 2.0\n")
        if self.then:
            self.then()


class Time:
    def __init__(self):
        self.now = 0.0
        self.sleeps = 0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps += 1
        self.now += seconds


# --- take_request -----------------------------------------------------------------------------------------------------

def test_no_request_is_none(held):
    assert _fio_server.take_request(held) is None


def test_a_request_is_taken_once_with_its_defaults(tmp_path, held):
    put_request(str(tmp_path))
    assert _fio_server.take_request(held) == {
        "job": "round-01.fio", "output": "round-01.json", "timeout": 0, "status_interval_ms": 0, "max_write_bytes": 0,
        "output_format": "json", "logs": "", "job_text": JOB}
    assert os.listdir(tmp_path) == [] and _fio_server.take_request(held) is None


@pytest.mark.parametrize("change, message", [
    ({"job": "/etc/cron.d/evil.fio"}, "job file '/etc/cron.d/evil.fio' is not a file name of the job's directory"),
    ({"job": "../elsewhere/round-01.fio"}, "is not a file name of the job's directory"),
    ({"job": "sub/round-01.fio"}, "is not a file name of the job's directory"),
    ({"job": ".hidden.fio"}, "is not a file name of the job's directory"),
    ({"job": None}, "job file None is not a file name"),
    ({"timeout": -1}, "timeout -1 is not a whole number of at least 0"),
    ({"timeout": 1.5}, "timeout 1.5 is not a whole number of at least 0"),
    ({"timeout": True}, "timeout True is not a whole number of at least 0"),
    ({"max_write_bytes": -3}, "max_write_bytes -3 is not a whole number of at least 0"),
    ({"output_format": "normal"}, "output_format 'normal' is not json or json\\+"),
    ({"status_interval_ms": 0.5}, "status_interval_ms 0.5 is not a whole number"),
    ({"logs": "../round-01"}, "logs prefix '../round-01' is not a file name"),
    ({"logs": 3}, "logs prefix 3 is not a file name"),
    ({"job_text": None}, "the request carries no job file text"),
])
def test_a_request_the_collection_would_not_write_is_refused_at_once(tmp_path, held, change, message):
    put_request(str(tmp_path), **change)
    with pytest.raises(ValueError, match=message):
        _fio_server.take_request(held)
    assert not os.path.exists(tmp_path / _fio_server.REQUEST)  # never taken again
    # The round's output is known: the controller waiting for it gets the refusal at once, not a time-out.
    assert read(tmp_path / "round-01.json.status").startswith("-1 ")
    assert "nothing was written" in read(tmp_path / "round-01.json.log")


def test_a_request_that_names_no_output_of_the_directory_is_refused(tmp_path, held):
    put_request(str(tmp_path), output="/root/.ssh/authorized_keys")
    with pytest.raises(ValueError, match="output '/root/.ssh/authorized_keys' is not a file name"):
        _fio_server.take_request(held)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("text", ["[1, 2]", "not json"])
def test_a_request_that_is_no_json_object_is_refused(tmp_path, held, text):
    (tmp_path / _fio_server.REQUEST).write_text(text)
    with pytest.raises(ValueError):
        _fio_server.take_request(held)


def test_a_request_planted_as_a_link_or_a_fifo_is_never_followed(tmp_path, held):
    secret = tmp_path.parent / f"{tmp_path.name}-secret.json"
    secret.write_text('{"job": "x.fio", "output": "x.json", "job_text": ""}')
    os.symlink(secret, tmp_path / _fio_server.REQUEST)
    with pytest.raises(OSError):
        _fio_server.take_request(held)
    assert not os.path.lexists(tmp_path / _fio_server.REQUEST) and secret.exists()
    os.mkfifo(tmp_path / _fio_server.REQUEST)
    with pytest.raises(OSError, match="not a regular file"):
        _fio_server.take_request(held)  # opened without blocking, refused for what it is


# --- pidfile ----------------------------------------------------------------------------------------------------------

def test_the_pidfile_names_the_server_and_its_run(tmp_path, held):
    _fio_server.write_pidfile(held, 4242, 777, "r1", "a" * 32)
    assert _fio_server.read_pidfile(held) == {"format": _fio_server.PID_FORMAT, "pid": 4242, "start_time": 777,
                                              "run_id": "r1", "token": "a" * 32}
    assert oct(os.stat(tmp_path / _fio_server.PIDFILE).st_mode & 0o777) == "0o600"
    (tmp_path / _fio_server.PIDFILE).write_text("4242\n")  # not one this collection writes
    assert _fio_server.read_pidfile(held) is None


# --- serve ------------------------------------------------------------------------------------------------------------

def test_the_stop_file_ends_the_server_and_is_taken(tmp_path, held):
    (tmp_path / _fio_server.STOP).write_text("")
    assert _fio_server.serve(held, "/dev/loop9", lambda text: None, "fio", 600.0, run=Runs()) == "stopped"
    assert os.listdir(tmp_path) == []


def test_idle_for_its_time_the_server_ends_by_itself(held):
    clock = Time()
    ended = _fio_server.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=Runs())
    assert ended == "idle" and clock.now == pytest.approx(2.5) and clock.sleeps == 5


def test_each_request_runs_once_then_the_controller_stops_it(tmp_path, held):
    put_request(str(tmp_path))
    clock = Time()
    runs = Runs(then=lambda: (tmp_path / _fio_server.STOP).write_text(""))
    ended = _fio_server.serve(held, "/dev/loop9", lambda text: "mounted at /srv", "fio", idle_s=600.0,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=runs)
    assert ended == "stopped" and len(runs.requests) == 1
    assert runs.requests[0]["device"] == "/dev/loop9" and runs.requests[0]["refused"] == "mounted at /srv"
    assert clock.sleeps == 0  # a request and a stop are seen at once, without waiting


def test_a_server_for_one_job_ends_after_it(tmp_path, held):
    put_request(str(tmp_path))
    runs = Runs()
    assert _fio_server.serve(held, "/dev/loop9", lambda text: None, "fio", 600.0, once=True, run=runs) == "done"
    assert len(runs.requests) == 1


def test_a_round_resets_the_idle_time(tmp_path, held):
    clock = Time()

    def sleep(seconds):
        clock.sleep(seconds)
        if clock.sleeps == 3:  # the controller's next round arrives 1.5 s in, after an idle time of 2 s minus a bit
            put_request(str(tmp_path))

    runs = Runs()
    ended = _fio_server.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=sleep, run=runs)
    assert ended == "idle" and len(runs.requests) == 1 and clock.now == pytest.approx(4.0)


def test_a_refused_request_is_recorded_and_the_server_goes_on(tmp_path, held):
    put_request(str(tmp_path), job="/etc/passwd")
    clock = Time()
    runs = Runs()
    ended = _fio_server.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=1.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=runs)
    assert ended == "idle" and runs.requests == []
    assert "'/etc/passwd' is not a file name" in read(tmp_path / "request.refused")
    assert sorted(os.listdir(tmp_path)) == ["request.refused", "round-01.json.log", "round-01.json.status"]


def test_a_request_renamed_into_place_just_after_a_look_that_found_none_is_kept(tmp_path, held, monkeypatch):
    # The server looks (no request yet); the controller's mv lands right then: the next look must still find it.
    real = _fio_server._fio_runner.read_file

    def read_then_arrive(dirfd, name, limit):
        try:
            return real(dirfd, name, limit)
        finally:
            put_request(str(tmp_path))

    monkeypatch.setattr(_fio_server._fio_runner, "read_file", read_then_arrive)
    assert _fio_server.take_request(held) is None
    monkeypatch.setattr(_fio_server._fio_runner, "read_file", real)
    assert _fio_server.take_request(held)["job"] == "round-01.fio"
