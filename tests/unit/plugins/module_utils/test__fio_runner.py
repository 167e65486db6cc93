# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one road to fio on a host (module_utils/_pts/_fio_runner.py): the job checked as fio reads it and by the guard,
written relative to the held directory, fio run there, its time and wear bound watched. A stand-in for fio's process
and a fake sysfs counter; real directories."""

from __future__ import annotations

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

    def __init__(self, rc=0, polls=3, counter=None, writes=0):
        self.rc, self.polls, self.counter, self.writes = rc, polls, counter, writes
        self.signals: list[int] = []
        self.argv = self.cwd = None

    def __call__(self, argv, stdin, stdout, stderr, cwd, pass_fds):
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
    line = _fio_runner.run(held, request(), DEVICE, lambda text: None, "/usr/bin/fio", popen=fio,
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
    _fio_runner.run(held, request(), DEVICE, lambda text: None, "fio", popen=Fio(), sleep=lambda s: None)
    assert target.read_text() == "keep me\n" and files(held)["round-01.fio"] == JOB


@pytest.mark.parametrize("text, why", [
    (JOB.replace(DEVICE, "/dev/sda"), "writes to '/dev/sda', not to the guarded device /dev/loop9"),
    (JOB + "include\t/etc/other.fio\n", "includes another file"),
    (JOB + "exec_prerun=touch /x\n", "sets 'exec_prerun', which no job file of this collection sets"),
])
def test_a_job_the_check_refuses_runs_no_fio_and_says_why(held, text, why):
    fio = Fio()
    line = _fio_runner.run(held, request(job_text=text), DEVICE, lambda t: None, "fio", popen=fio,
                           clock=ticks(7.0, 7.0))
    assert line.startswith("-1 ") and fio.argv is None
    assert why in files(held)["round-01.json.log"] and "round-01.fio" not in files(held)


def test_the_guards_refusal_right_before_fio_runs_no_fio(held):
    fio = Fio()
    line = _fio_runner.run(held, request(), DEVICE, lambda t: "it is mounted on /srv (ext4)", "fio", popen=fio,
                           clock=ticks(7.0, 7.0))
    assert line == "-1 7.000000 7.000000" and fio.argv is None
    assert files(held)["round-01.json.log"] == ("fio_job refused the job, nothing was written: it is mounted on /srv "
                                                "(ext4)\n")


def test_an_earlier_attempts_files_and_interval_logs_go_first(held):
    for name in ("round-01.json", "round-01.json.status", "round-02_bw.log", "round-02_iops.log", "round-01_bw.log",
                 "round-02_bw.log.keep"):
        with open(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=held), "w", encoding="utf-8") as handle:
            handle.write("an earlier attempt's\n")
    _fio_runner.run(held, request(logs="round-02"), DEVICE, lambda t: None, "fio", popen=Fio(), sleep=lambda s: None)
    assert sorted(files(held)) == ["round-01.fio", "round-01.json", "round-01.json.log", "round-01.json.status",
                                   "round-01_bw.log", "round-02_bw.log.keep"]
    assert files(held)["round-01.json"] == '{"jobs": []}'


def test_fio_past_its_time_is_stopped_and_the_run_fails(held):
    fio = Fio(polls=10 ** 6)
    now = iter(range(0, 10 ** 6))
    line = _fio_runner.run(held, request(timeout=5), DEVICE, lambda t: None, "fio", popen=fio,
                           monotonic=lambda: float(next(now)), clock=ticks(1.0, 9.0), sleep=lambda s: None)
    assert line == "124 1.000000 9.000000" and fio.signals == [signal.SIGTERM]
    assert "fio ran past its time limit of 5 s and was stopped" in files(held)["round-01.json.log"]


def test_fio_that_ignores_the_stop_is_killed(held):
    class Stubborn(Fio):
        def poll(self):
            return -9 if signal.SIGKILL in self.signals else None

    fio = Stubborn()
    now = iter(range(0, 10 ** 6))
    line = _fio_runner.run(held, request(timeout=5), DEVICE, lambda t: None, "fio", popen=fio,
                           monotonic=lambda: float(next(now)), clock=ticks(1.0, 40.0), sleep=lambda s: None)
    assert line.startswith("137 ") and fio.signals == [signal.SIGTERM, signal.SIGKILL]


def test_fio_is_stopped_at_the_wear_bound_and_the_run_fails(held, tmp_path, monkeypatch):
    counter = Counter(tmp_path / "sys")
    monkeypatch.setattr(_fio_runner, "devnum_of", {DEVICE: "7:9"}.get)
    fio = Fio(polls=100, counter=counter, writes=2048)  # 1 MiB per look
    line = _fio_runner.run(held, request(max_write_bytes=3 * 2 ** 20), DEVICE, lambda t: None, "fio", popen=fio,
                           sys_root=str(tmp_path / "sys"), clock=ticks(1.0, 2.0), sleep=lambda s: None)
    assert line == f"{_fio_runner.OVER_BUDGET} 1.000000 2.000000" and fio.signals == [signal.SIGTERM]
    assert ("fio was stopped: the device had taken 4,194,304 bytes of writes in this fio run, past the 3,145,728 bytes "
            "the run's wear bound left for it") in files(held)["round-01.json.log"]
    # Within its bound, fio runs to its end.
    fio = Fio(polls=2, counter=counter, writes=2048)
    line = _fio_runner.run(held, request(max_write_bytes=3 * 2 ** 20), DEVICE, lambda t: None, "fio", popen=fio,
                           sys_root=str(tmp_path / "sys"), clock=ticks(1.0, 2.0), sleep=lambda s: None)
    assert line.startswith("0 ") and fio.signals == []


def test_a_wear_bound_that_cannot_be_watched_runs_no_fio(held, tmp_path, monkeypatch):
    monkeypatch.setattr(_fio_runner, "devnum_of", {DEVICE: "7:9"}.get)
    fio = Fio()
    line = _fio_runner.run(held, request(max_write_bytes=10), DEVICE, lambda t: None, "fio", popen=fio,
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
