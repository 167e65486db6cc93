# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one road to fio on a host (module_utils/_pts/_fio_runner.py): the job checked as fio reads it and by the guard,
written relative to the held directory, fio run there, its time and wear bound watched; and the segment's fio server,
which takes the controller's requests from the directory it holds (never through a link) and ends when told, after its
one job or when idle. A stand-in for fio's process, a fake sysfs counter and a fake clock; real directories."""

from __future__ import annotations

import json
import os
import signal

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner

DEVICE = "/dev/loop9"
JOB = f"[global]\nfilename={DEVICE}\nioengine=libaio\ndirect=1\n\n[r1]\nstonewall\nrw=randwrite\nbs=4k\n"


@pytest.fixture
def held(tmp_path):
    job_dir = tmp_path / "job"
    job_dir.mkdir(mode=0o700)
    fd = os.open(job_dir, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


class Fio:
    """fio's process: writes its output in its working directory, runs ``polls`` polls, then exits ``rc`` - unless it
    is sent SIGTERM (exits 0 at the next poll, as fio does) or SIGKILL; ``writes`` adds sectors to a device counter per
    poll."""

    instances: list = []
    pid = None  # no process: no process group to end after it

    def __init__(self, rc=0, polls=3, counter=None, writes=0):
        self.rc, self.polls, self.counter, self.writes = rc, polls, counter, writes
        self.signals: list[int] = []
        self.argv = self.cwd = None

    def __call__(self, argv, stdin, stdout, stderr, cwd, pass_fds, preexec_fn=None):
        self.argv, self.cwd, self.pass_fds = argv, cwd, pass_fds
        output = next(a.split("=", 1)[1] for a in argv if a.startswith("--output="))
        # fio reaches its files through the held directory: cwd is /proc/self/fd/N of the descriptor passed to it.
        with open(os.open(output, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=pass_fds[0]), "w", encoding="utf-8") as out:
            out.write('{"jobs": []}')
        os.write(stdout, b"fio: note\n")
        return self

    def poll(self):
        if self.signals:
            return 0 if self.signals[-1] == signal.SIGTERM else -9
        if self.counter is not None:
            self.counter.add(self.writes)
        self.polls -= 1
        return self.rc if self.polls < 0 else None

    def send_signal(self, sig):
        self.signals.append(sig)

    def kill(self):
        self.signals.append(signal.SIGKILL)


class Counter:
    """/sys/dev/block/7:9/stat with its sectors-written field."""

    def __init__(self, root):
        self.path = root / "dev" / "block" / "7:9" / "stat"
        self.path.parent.mkdir(parents=True)
        self.sectors = 1000
        self.add(0)

    def add(self, sectors):
        self.sectors += sectors
        fields = [0] * 17
        fields[6] = self.sectors
        self.path.write_text(" ".join(str(f) for f in fields) + "\n")


def request(**changes) -> dict:
    found = {"job": "round-01.fio", "output": "round-01.json", "job_text": JOB, "timeout": 0, "output_format": "json",
             "status_interval_ms": 0, "logs": "", "max_write_bytes": 0}
    found.update(changes)
    return found


def files(held) -> dict:
    found = {}
    for name in sorted(os.listdir(held)):
        with open(os.open(name, os.O_RDONLY, dir_fd=held), encoding="utf-8") as handle:
            found[name] = handle.read()
    return found


def ticks(*values):
    return iter(values).__next__


def test_a_job_runs_in_the_held_directory_and_its_status_is_written_last(held):
    fio = Fio()
    line = _fio_runner.run_job(held, request(), DEVICE, lambda text: None, "/usr/bin/fio", popen=fio,
                               clock=ticks(10.0, 12.5), sleep=lambda s: None)
    assert line == "0 10.000000 12.500000"
    assert fio.argv == ["/usr/bin/fio", "--output-format=json", "--output=round-01.json", "round-01.fio"]
    assert fio.cwd == f"/proc/self/fd/{held}" and fio.pass_fds == (held,)
    assert files(held) == {"round-01.fio": JOB, "round-01.json": '{"jobs": []}', "round-01.json.log": "fio: note\n",
                           "round-01.json.status": "0 10.000000 12.500000\n"}
    assert oct(os.stat("round-01.fio", dir_fd=held).st_mode & 0o777) == "0o600"


def test_a_job_file_planted_as_a_link_is_replaced_not_followed(held, tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    os.symlink(target, "round-01.fio", dir_fd=held)
    _fio_runner.run_job(held, request(), DEVICE, lambda text: None, "fio", popen=Fio(), sleep=lambda s: None)
    assert target.read_text() == "keep me\n" and files(held)["round-01.fio"] == JOB


@pytest.mark.parametrize("text, why", [
    (JOB.replace(DEVICE, "/dev/sda"), "writes to '/dev/sda', not to the guarded device /dev/loop9"),
    (JOB + "include\t/etc/other.fio\n", "includes another file"),
    (JOB + "exec_prerun=touch /x\n", "sets 'exec_prerun', which no job file of this collection sets"),
])
def test_a_job_the_check_refuses_runs_no_fio_and_says_why(held, text, why):
    fio = Fio()
    line = _fio_runner.run_job(held, request(job_text=text), DEVICE, lambda t: None, "fio", popen=fio,
                               clock=ticks(7.0, 7.0))
    assert line.startswith("-1 ") and fio.argv is None
    assert why in files(held)["round-01.json.log"] and "round-01.fio" not in files(held)


def test_the_guards_refusal_right_before_fio_runs_no_fio(held):
    fio = Fio()
    line = _fio_runner.run_job(held, request(), DEVICE, lambda t: "it is mounted on /srv (ext4)", "fio", popen=fio,
                               clock=ticks(7.0, 7.0))
    assert line == "-1 7.000000 7.000000" and fio.argv is None
    assert files(held)["round-01.json.log"] == ("fio_job refused the job, nothing was written: it is mounted on /srv "
                                                "(ext4)\n")


def test_an_earlier_attempts_files_and_interval_logs_go_first(held):
    for name in ("round-01.json", "round-01.json.status", "round-02_bw.log", "round-02_iops.log", "round-01_bw.log",
                 "round-02_bw.log.keep"):
        with open(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=held), "w", encoding="utf-8") as handle:
            handle.write("an earlier attempt's\n")
    _fio_runner.run_job(held, request(logs="round-02"), DEVICE, lambda t: None, "fio", popen=Fio(), sleep=lambda s: None)
    assert sorted(files(held)) == ["round-01.fio", "round-01.json", "round-01.json.log", "round-01.json.status",
                                   "round-01_bw.log", "round-02_bw.log.keep"]
    assert files(held)["round-01.json"] == '{"jobs": []}'


def test_fio_past_its_time_is_stopped_and_the_run_fails(held):
    fio = Fio(polls=10 ** 6)
    now = iter(range(0, 10 ** 6))
    line = _fio_runner.run_job(held, request(timeout=5), DEVICE, lambda t: None, "fio", popen=fio,
                               monotonic=lambda: float(next(now)), clock=ticks(1.0, 9.0), sleep=lambda s: None)
    assert line == "124 1.000000 9.000000" and fio.signals == [signal.SIGTERM]
    assert "fio ran past its time limit of 5 s and was stopped" in files(held)["round-01.json.log"]


def test_a_job_whose_server_was_asked_to_stop_is_stopped_and_fails(held):
    # The worker gave the round up (its controller gone) a moment before the server started fio: the stop it leaves
    # ends fio at the next look, rather than at the round's end.
    class Stopped(Fio):
        def poll(self):
            if self.polls == 10 ** 6 - 3 and not self.signals:
                with open(os.open(_fio_runner.STOP, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=held), "w",
                          encoding="utf-8"):
                    pass
            return super().poll()

    fio = Stopped(polls=10 ** 6)
    line = _fio_runner.run_job(held, request(), DEVICE, lambda t: None, "fio", popen=fio, clock=ticks(1.0, 2.0),
                               sleep=lambda s: None)
    assert line == f"{_fio_runner.KILLED} 1.000000 2.000000" and fio.signals == [signal.SIGTERM]
    assert "fio was stopped: the server was asked to stop" in files(held)["round-01.json.log"]
    # The stop is the server's to take: it ends once the job has.
    assert _fio_runner.STOP in files(held)


def test_fio_that_ignores_the_stop_is_killed(held):
    class Stubborn(Fio):
        def poll(self):
            return -9 if signal.SIGKILL in self.signals else None

    fio = Stubborn()
    now = iter(range(0, 10 ** 6))
    line = _fio_runner.run_job(held, request(timeout=5), DEVICE, lambda t: None, "fio", popen=fio,
                               monotonic=lambda: float(next(now)), clock=ticks(1.0, 40.0), sleep=lambda s: None)
    assert line.startswith("137 ") and fio.signals == [signal.SIGTERM, signal.SIGKILL]


def test_a_fio_killed_at_its_time_limit_leaves_no_job_process_behind(held, tmp_path, monkeypatch):
    # A real process group: fio's first process ignores SIGTERM and is killed; its job process (which ignores
    # SIGTERM too) would go on writing the device unless the whole group ends with it.
    fake = tmp_path / "fio"
    fake.write_text("#!/bin/sh\ntrap '' TERM\ncut -d' ' -f6 /proc/$$/stat > session\n"
                    "sh -c 'trap \"\" TERM; exec sleep 60' &\necho $! > job.pid\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(_fio_runner, "KILL_AFTER_S", 0.3)
    line = _fio_runner.run_job(held, request(timeout=0.5), DEVICE, lambda t: None, str(fake))
    assert line.startswith("137 ")
    written = files(held)
    # In the runner's session still: a release finds fio there (_run_io).
    assert int(written["session"]) == os.getsid(0)
    job = int(written["job.pid"])
    assert not os.path.exists(f"/proc/{job}") or open(f"/proc/{job}/stat", encoding="ascii").read().split()[2] == "Z"


def test_fio_is_stopped_before_the_wear_bound_and_the_run_fails(held, tmp_path, monkeypatch):
    counter = Counter(tmp_path / "sys")
    monkeypatch.setattr(_fio_runner, "devnum_of", {DEVICE: "7:9"}.get)
    ticks_ = iter(x * 0.02 for x in range(10 ** 6))
    fio = Fio(polls=1000, counter=counter, writes=256)  # 128 KiB a look (20 ms): 6.4 MiB/s
    line = _fio_runner.run_job(held, request(max_write_bytes=3 * 2 ** 20), DEVICE, lambda t: None, "fio", popen=fio,
                               sys_root=str(tmp_path / "sys"), clock=ticks(1.0, 2.0), monotonic=lambda: next(ticks_),
                               sleep=lambda s: None)
    assert line == f"{_fio_runner.OVER_BUDGET} 1.000000 2.000000" and fio.signals == [signal.SIGTERM]
    said = files(held)["round-01.json.log"].splitlines()[-1]
    # Stopped while 4 KiB in flight plus 0.1 s at its rate would still fit: the device took less than the bound.
    taken = int(said.split("the device had taken ")[1].split(" bytes")[0].replace(",", ""))
    assert 3 * 2 ** 20 - 4096 - 0.1 * 6.4 * 2 ** 20 - 2 ** 17 <= taken < 3 * 2 ** 20
    assert said.startswith("fleetqual.pts: fio was stopped at the run's wear bound: the device had taken ")
    assert said.endswith("would pass the 3,145,728 bytes the bound left for it")
    # Within its bound, fio runs to its end.
    fio = Fio(polls=2, counter=counter, writes=256)
    line = _fio_runner.run_job(held, request(max_write_bytes=3 * 2 ** 20), DEVICE, lambda t: None, "fio", popen=fio,
                               sys_root=str(tmp_path / "sys"), clock=ticks(1.0, 2.0), monotonic=lambda: next(ticks_),
                               sleep=lambda s: None)
    assert line.startswith("0 ") and fio.signals == []


def test_a_job_whose_writes_in_flight_alone_would_pass_the_bound_is_not_started(held, tmp_path, monkeypatch):
    Counter(tmp_path / "sys")
    monkeypatch.setattr(_fio_runner, "devnum_of", {DEVICE: "7:9"}.get)
    fio = Fio()
    line = _fio_runner.run_job(held, request(max_write_bytes=2048), DEVICE, lambda t: None, "fio", popen=fio,
                               sys_root=str(tmp_path / "sys"), clock=ticks(1.0, 1.0))
    assert line.startswith("-1 ") and fio.argv is None
    assert ("the run's wear bound leaves 2,048 bytes for this fio run, and fio can have 4,096 bytes of writes in "
            "flight at once: it would pass the bound") in files(held)["round-01.json.log"]


def test_a_wear_bound_that_cannot_be_watched_runs_no_fio(held, tmp_path, monkeypatch):
    monkeypatch.setattr(_fio_runner, "devnum_of", {DEVICE: "7:9"}.get)
    fio = Fio()
    line = _fio_runner.run_job(held, request(max_write_bytes=10), DEVICE, lambda t: None, "fio", popen=fio,
                               sys_root=str(tmp_path / "nosys"), clock=ticks(1.0, 1.0))
    assert line.startswith("-1 ") and fio.argv is None
    assert "the wear bound cannot be watched" in files(held)["round-01.json.log"]


@pytest.mark.parametrize("name", ["round-01.fio", "wipc.fio", "round-1500.json.status"])
def test_bare_names_pass(name):
    assert _fio_runner.bare(name) == name


@pytest.mark.parametrize("name", ["", ".x", "../x", "a/b", "/etc/passwd", "a\nb", None, 3, "x" * 200])
def test_anything_else_is_no_file_name_of_the_directory(name):
    with pytest.raises(ValueError, match="is not a file name of the job's directory"):
        _fio_runner.bare(name)


# --- the segment's fio server -----------------------------------------------------------------------------------------

SERVED = "[global]\nfilename=/dev/loop9\n\n[r1]\nrw=randread\n"


@pytest.fixture
def job_dir(tmp_path):
    return tmp_path / "job"


def put_request(directory, **request) -> None:
    body = {"job": "round-01.fio", "output": "round-01.json", "job_text": SERVED}
    body.update(request)
    with open(os.path.join(directory, _fio_runner.REQUEST), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(body))


def read_text(path) -> str:
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
    assert _fio_runner.take_request(held) is None


def test_a_request_is_taken_once_with_its_defaults(job_dir, held):
    put_request(str(job_dir))
    assert _fio_runner.take_request(held) == {
        "job": "round-01.fio", "output": "round-01.json", "timeout": 0, "status_interval_ms": 0, "max_write_bytes": 0,
        "output_format": "json", "logs": "", "job_text": SERVED}
    assert os.listdir(job_dir) == [] and _fio_runner.take_request(held) is None


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
def test_a_request_the_collection_would_not_write_is_refused_at_once(job_dir, held, change, message):
    put_request(str(job_dir), **change)
    with pytest.raises(ValueError, match=message):
        _fio_runner.take_request(held)
    assert not os.path.exists(job_dir / _fio_runner.REQUEST)  # never taken again
    # The round's output is known: the controller waiting for it gets the refusal at once, not a time-out.
    assert read_text(job_dir / "round-01.json.status").startswith("-1 ")
    assert "nothing was written" in read_text(job_dir / "round-01.json.log")


def test_a_request_that_names_no_output_of_the_directory_is_refused(job_dir, held):
    put_request(str(job_dir), output="/root/.ssh/authorized_keys")
    with pytest.raises(ValueError, match="output '/root/.ssh/authorized_keys' is not a file name"):
        _fio_runner.take_request(held)
    assert os.listdir(job_dir) == []


@pytest.mark.parametrize("text", ["[1, 2]", "not json"])
def test_a_request_that_is_no_json_object_is_refused(job_dir, held, text):
    (job_dir / _fio_runner.REQUEST).write_text(text)
    with pytest.raises(ValueError):
        _fio_runner.take_request(held)


def test_a_request_planted_as_a_link_or_a_fifo_is_never_followed(job_dir, held, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"job": "x.fio", "output": "x.json", "job_text": ""}')
    os.symlink(secret, job_dir / _fio_runner.REQUEST)
    with pytest.raises(OSError):
        _fio_runner.take_request(held)
    assert not os.path.lexists(job_dir / _fio_runner.REQUEST) and secret.exists()
    os.mkfifo(job_dir / _fio_runner.REQUEST)
    with pytest.raises(OSError, match="not a regular file"):
        _fio_runner.take_request(held)  # opened without blocking, refused for what it is


# --- pidfile ----------------------------------------------------------------------------------------------------------

def test_the_pidfile_names_the_server_and_its_run(job_dir, held):
    _fio_runner.write_pidfile(held, 4242, 777, "r1", "a" * 32)
    assert _fio_runner.read_pidfile(held) == {"format": _fio_runner.PID_FORMAT, "pid": 4242, "start_time": 777,
                                              "run_id": "r1", "token": "a" * 32}
    assert oct(os.stat(job_dir / _fio_runner.PIDFILE).st_mode & 0o777) == "0o600"
    (job_dir / _fio_runner.PIDFILE).write_text("4242\n")  # not one this collection writes
    assert _fio_runner.read_pidfile(held) is None


# --- serve ------------------------------------------------------------------------------------------------------------

def test_the_stop_file_ends_the_server_and_is_taken(job_dir, held):
    (job_dir / _fio_runner.STOP).write_text("")
    assert _fio_runner.serve(held, "/dev/loop9", lambda text: None, "fio", 600.0, run=Runs()) == "stopped"
    assert os.listdir(job_dir) == []


def test_idle_for_its_time_the_server_ends_by_itself(held):
    clock = Time()
    ended = _fio_runner.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=Runs())
    assert ended == "idle" and clock.now == pytest.approx(2.5) and clock.sleeps == 5


def test_each_request_runs_once_then_the_controller_stops_it(job_dir, held):
    put_request(str(job_dir))
    clock = Time()
    runs = Runs(then=lambda: (job_dir / _fio_runner.STOP).write_text(""))
    ended = _fio_runner.serve(held, "/dev/loop9", lambda text: "mounted at /srv", "fio", idle_s=600.0,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=runs)
    assert ended == "stopped" and len(runs.requests) == 1
    assert runs.requests[0]["device"] == "/dev/loop9" and runs.requests[0]["refused"] == "mounted at /srv"
    assert clock.sleeps == 0  # a request and a stop are seen at once, without waiting


def test_a_server_for_one_job_ends_after_it(job_dir, held):
    put_request(str(job_dir))
    runs = Runs()
    assert _fio_runner.serve(held, "/dev/loop9", lambda text: None, "fio", 600.0, once=True, run=runs) == "done"
    assert len(runs.requests) == 1


def test_a_round_resets_the_idle_time(job_dir, held):
    clock = Time()

    def sleep(seconds):
        clock.sleep(seconds)
        if clock.sleeps == 3:  # the controller's next round arrives 1.5 s in, after an idle time of 2 s minus a bit
            put_request(str(job_dir))

    runs = Runs()
    ended = _fio_runner.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=2.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=sleep, run=runs)
    assert ended == "idle" and len(runs.requests) == 1 and clock.now == pytest.approx(4.0)


def test_a_refused_request_is_recorded_and_the_server_goes_on(job_dir, held):
    put_request(str(job_dir), job="/etc/passwd")
    clock = Time()
    runs = Runs()
    ended = _fio_runner.serve(held, "/dev/loop9", lambda text: None, "fio", idle_s=1.0, poll_s=0.5,
                              monotonic=clock.monotonic, sleep=clock.sleep, run=runs)
    assert ended == "idle" and runs.requests == []
    assert "'/etc/passwd' is not a file name" in read_text(job_dir / "request.refused")
    assert sorted(os.listdir(job_dir)) == ["request.refused", "round-01.json.log", "round-01.json.status"]


def test_a_request_renamed_into_place_just_after_a_look_that_found_none_is_kept(job_dir, held, monkeypatch):
    # The server looks (no request yet); the controller's mv lands right then: the next look must still find it.
    real = _fio_runner.read_file

    def read_then_arrive(dirfd, name, limit):
        try:
            return real(dirfd, name, limit)
        finally:
            put_request(str(job_dir))

    monkeypatch.setattr(_fio_runner, "read_file", read_then_arrive)
    assert _fio_runner.take_request(held) is None
    monkeypatch.setattr(_fio_runner, "read_file", real)
    assert _fio_runner.take_request(held)["job"] == "round-01.fio"
