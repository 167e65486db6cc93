# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fio client: a segment's fio server started by the module, each job sent with one command (the request, with
the job file's text, over stdin), fio's end waited for on the host, and the host's loop itself (run by /bin/sh)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _fio_runner
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _fio_client
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fake_fio_host import RAW, STARTED, Host


@pytest.fixture
def clock(fio_clock):
    return fio_clock


@pytest.fixture(autouse=True)
def display(fio_display):
    return fio_display


def make_client(host: Host) -> _fio_client.FioClient:
    return _fio_client.FioClient(host.execute_module, host.command)


# --- a segment's fio server -------------------------------------------------------------------------------------------

def test_the_wait_stops_once_the_controller_is_gone(clock):
    host = Host(clock, finish_at=None)
    client = make_client(host)
    client.wanted = lambda: False  # pts_segment's: its ansible-playbook died and this worker is an orphan
    found = client.wait(dict(STARTED), 100, 86400)
    assert found == {"failed": True, "msg": f"fio_job: stopped waiting for {STARTED['job_file']}: the controller "
                                            "(ansible-playbook) is gone; its fio was stopped"}
    assert clock.sleeps == []
    # Nobody files the round: its fio is stopped rather than left to write the drive to the round's end.
    assert host.commands == [f"pkill -TERM -P {STARTED['pid']} 2>/dev/null; true"]


def test_a_controller_gone_during_a_long_wait_is_noticed_within_a_second_and_its_fio_stopped(clock):
    host = Host(clock, finish_at=None)
    client = make_client(host)
    gone_at = clock.now + 40.3
    client.wanted = lambda: clock.now < gone_at
    found = client.wait(dict(STARTED), 600, 86400)
    assert found["failed"] and "is gone; its fio was stopped" in found["msg"]
    # The waits between two looks at the host grow to a minute, but the controller is asked every second.
    assert max(clock.sleeps) <= 1.0 and gone_at <= clock.now <= gone_at + 1.0
    assert host.commands[-1] == f"pkill -TERM -P {STARTED['pid']} 2>/dev/null; true"
    assert all("pkill" not in c for c in host.commands[:-1])


SERVER = {"pid": 77, "dir": "/var/lib/pts/r1/d1/wsat", "idle_s": 600.0}


def round_args(**changes) -> dict:
    args = {"job_file": "/var/lib/pts/r1/d1/wsat/round-02.fio", "job_text": "[wsat]\nrw=randwrite\n",
            "expected_seconds": 0.5, "timeout": 60, "reconnect_timeout": 300, "output_format": "json"}
    args.update(changes)
    return args


def test_the_server_is_started_by_the_module_with_its_idle_time(clock):
    host = Host(clock, finish_at=None)
    started = make_client(host).start_server({"x": 1}, round_args(), 900.0)
    assert host.modules == [dict(round_args(), serve=900.0, _name="fleetqual.pts.fio_job")]
    assert started["pts_fio_server"] == {"pid": 77, "dir": SERVER["dir"], "idle_s": 900.0}


def test_a_round_is_sent_with_one_command_then_waited_for_on_the_host(clock):
    host = Host(clock, finish_at=1000.6, end=f"0 5.0 5.6\n{RAW}")
    found = make_client(host).run_round(SERVER, round_args(max_write_bytes=10 ** 9))
    send, *waits = host.commands
    assert send.startswith("kill -0 77 2>/dev/null || exit 5; ")
    # An earlier attempt's files of the round go first: they are never read as this round's.
    assert ("rm -f /var/lib/pts/r1/d1/wsat/round-02.json /var/lib/pts/r1/d1/wsat/round-02.json.status "
            "/var/lib/pts/r1/d1/wsat/round-02.json.log && cat >/var/lib/pts/r1/d1/wsat/request.json.tmp") in send
    # The request, with the job file's text (the server checks it and writes it itself), comes over stdin.
    request = json.loads(host.stdin[0])
    assert request == {"job": "round-02.fio", "output": "round-02.json", "timeout": 60, "output_format": "json",
                       "status_interval_ms": 0, "logs": "", "max_write_bytes": 10 ** 9,
                       "job_text": "[wsat]\nrw=randwrite\n"}
    # The request is renamed into place last: the server never reads a half-written one.
    assert send.endswith("mv /var/lib/pts/r1/d1/wsat/request.json.tmp /var/lib/pts/r1/d1/wsat/request.json")
    assert "/var/lib/pts/r1/d1/wsat/round-02.json.status" in waits[-1] and "kill -0 77" in waits[-1]
    assert found["pts_fio"]["elapsed_s"] == 0.6 and found["pts_fio"]["jobs"] == _fio.parse(RAW)["jobs"]
    assert found["pts_fio"]["command"] == ["fio", "--output-format=json", "--output=round-02.json", "round-02.fio"]


def test_a_run_stopped_at_its_wear_bound_fails_in_the_runners_words(clock):
    end = ("-2 5.0 5.3\nfio: note\n\nfleetqual.pts: fio was stopped at the run's wear bound: the device had taken "
           "2,097,152 bytes of writes in this fio run, and with what fio has in flight (131,072 bytes) and writes at "
           "its rate in 0.1 s it would pass the 4,194,304 bytes the bound left for it\n")
    found = make_client(Host(clock, finish_at=1000.3, end=end)).run_round(SERVER, round_args())
    assert found["failed"] is True and found["pts_over_budget"] is True and "pts_fio" not in found
    assert found["msg"] == ("fio was stopped at the run's wear bound: the device had taken 2,097,152 bytes of writes in "
                            "this fio run, and with what fio has in flight (131,072 bytes) and writes at its rate in "
                            "0.1 s it would pass the 4,194,304 bytes the bound left for it (running "
                            "/var/lib/pts/r1/d1/wsat/round-02.fio)")


@pytest.mark.parametrize("answer, expected", [
    ({"rc": 5, "stdout": "", "stderr": ""}, "fio_job: the fio server of /var/lib/pts/r1/d1/wsat (PID 77) is gone"),
    ({"rc": 1, "stdout": "", "stderr": "No space left on device\n"},
     "fio_job: cannot send /var/lib/pts/r1/d1/wsat/round-02.fio to the host: rc 1, No space left on device"),
])
def test_a_round_the_server_cannot_take_fails_without_waiting(clock, answer, expected):
    host = Host(clock, finish_at=None, failures=[answer])
    assert make_client(host).run_round(SERVER, round_args()) == {"failed": True, "msg": expected}
    assert len(host.commands) == 1 and clock.sleeps == []


def test_a_job_file_outside_the_servers_directory_is_not_sent(clock):
    host = Host(clock, finish_at=None)
    found = make_client(host).run_round(SERVER, round_args(job_file="/etc/cron.d/round-02.fio"))
    assert found["failed"] and "is not in the fio server's directory /var/lib/pts/r1/d1/wsat" in found["msg"]
    assert host.commands == []


def test_stopping_the_server_touches_its_stop_file_and_a_lost_host_is_a_warning(clock, display):
    host = Host(clock, finish_at=None)
    client = make_client(host)
    client.stop_server(SERVER)
    assert host.commands == ["touch /var/lib/pts/r1/d1/wsat/stop"]
    host.failures = [AnsibleConnectionFailure("ssh: closed")]
    client.stop_server(SERVER)
    (call,) = display.warning.call_args_list
    assert call.args[0] == "fio_job: could not stop the fio server of /var/lib/pts/r1/d1/wsat: ssh: closed"


# --- the host's side of the wait, run by a real shell -----------------------------------------------------------------

def sh(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=False, timeout=20)


def paths(tmp_path, pid: int) -> dict:
    output = str(tmp_path / "round 01.json")  # a space: every path is quoted
    return {"pid": pid, "job_file": str(tmp_path / "round 01.fio"), "output": output,
            "status": _fio_runner.status_name(output), "log": _fio_runner.log_name(output)}


def test_the_host_loop_prints_the_status_and_fios_output(tmp_path):
    started = paths(tmp_path, os.getpid())
    with open(started["output"], "w", encoding="utf-8") as handle:
        handle.write(RAW)
    with open(started["status"], "w", encoding="utf-8") as handle:
        handle.write("0 10.5 12.75\n")
    done = sh(_fio_client.host_wait_command(started, 0.02, 1.0))
    assert done.returncode == 0 and done.stdout == f"0 10.5 12.75\n{RAW}"
    found = _fio_client.outcome(started, done.stdout, "[x]\n", 0)
    assert found["pts_fio"]["elapsed_s"] == 2.25 and found["pts_fio_raw"] == RAW


def test_the_host_loop_prints_the_end_of_fios_messages_when_it_failed(tmp_path):
    started = paths(tmp_path, os.getpid())
    with open(started["log"], "w", encoding="utf-8") as handle:
        handle.write("x" * 10_000 + "\nfio: pid=1, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error\n")
    with open(started["status"], "w", encoding="utf-8") as handle:
        handle.write("1 10.0 11.0\n")
    done = sh(_fio_client.host_wait_command(started, 0.02, 1.0))
    assert done.returncode == 0 and len(done.stdout) == len("1 10.0 11.0\n") + 4000
    found = _fio_client.outcome(started, done.stdout, None, 0)
    assert found["failed"] and found["msg"].endswith("error=Input/output error")


def test_the_host_loop_says_not_yet_while_fio_runs_and_gone_when_it_vanished(tmp_path):
    running = paths(tmp_path, os.getpid())  # this test's process stands for a running fio
    assert sh(_fio_client.host_wait_command(running, 0.01, 0.05)).returncode == 3
    gone = paths(tmp_path, 2 ** 22 + 1)  # above pid_max's largest value: no such process
    assert sh(_fio_client.host_wait_command(gone, 0.01, 0.05)).returncode == 4
    assert sh(_fio_client.host_wait_command(running, 0, 0)).returncode == 3  # a single look


def test_a_server_round_on_disk_is_read_by_the_host_loop_as_the_action_expects(tmp_path):
    """The runner's status file (_fio_runner.run) and the client's wait (host_wait_command, outcome) agree."""
    class Fio:
        pid = None  # no process: no process group to end after it

        def __init__(self, argv, stdin, stdout, stderr, cwd, pass_fds, preexec_fn=None):
            output = next(a.split("=", 1)[1] for a in argv if a.startswith("--output="))
            with open(os.path.join(cwd, output), "w", encoding="utf-8") as handle:
                handle.write(RAW)

        @staticmethod
        def poll():
            return 0

    job_text = "[global]\nfilename=/dev/loop9\n\n[r3]\nrw=randread\n"
    request = {"job": "round-03.fio", "output": "round-03.json", "timeout": 0, "output_format": "json",
               "job_text": job_text}
    dirfd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _fio_runner.run_job(dirfd, request, "/dev/loop9", lambda text: None, "fio", popen=Fio,
                            clock=iter([50.0, 53.5]).__next__)
    finally:
        os.close(dirfd)
    output = str(tmp_path / "round-03.json")
    started = {"pid": os.getpid(), "job_file": str(tmp_path / "round-03.fio"), "output": output,
               "status": _fio_runner.status_name(output), "log": _fio_runner.log_name(output)}
    done = sh(_fio_client.host_wait_command(started, 0.02, 1.0))
    found = _fio_client.outcome(started, done.stdout, job_text, 0)
    assert found["changed"] is True and found["pts_fio"]["elapsed_s"] == 3.5
    assert (tmp_path / "round-03.fio").read_text() == job_text


# --- a run read as it goes: the host watches for fio's next status dump -----------------------------------------------

def test_the_follow_loop_answers_the_moment_fios_output_grows(tmp_path):
    started = paths(tmp_path, os.getpid())
    (tmp_path / "round 01.json").write_text("{\"a\": 1}\n")
    writer = subprocess.Popen(["/bin/sh", "-c", f"sleep 0.3; printf '%s' '{{\"b\": 2}}' >> '{started['output']}'"])
    try:
        began = time.monotonic()
        seen = sh(_fio_client.host_follow_command(started, len("{\"a\": 1}\n"), 2.0))
        took = time.monotonic() - began
    finally:
        writer.wait()
    head, dummy, body = seen.stdout.partition("\n")
    # What came after the offset, within a few looks of its coming: not at the end of the look's 2 s.
    assert seen.returncode == 0 and body == "{\"b\": 2}" and 0.3 <= took < 1.0, (seen, took)
    # It says it saw it come (looks were left, not all of them): the next dump is due a period from now.
    assert head.startswith("running ") and 0 < int(head.split()[1]) < 100


def test_the_follow_loop_says_whether_the_output_was_there_before_it_looked_or_never_came(tmp_path):
    started = paths(tmp_path, os.getpid())
    (tmp_path / "round 01.json").write_text("{\"a\": 1}\n")
    # There before the first look: printed at the second, once it held still; the next look comes half a period on.
    there = sh(_fio_client.host_follow_command(started, 0, 0.2))
    assert there.stdout == "running 9 9\n{\"a\": 1}\n"
    assert _fio_client._next_due("running 9 9", "{}", 0.5, 0.2) == pytest.approx(time.monotonic() + 0.25, abs=0.05)
    began = time.monotonic()
    none = sh(_fio_client.host_follow_command(started, 9, 0.2))
    assert none.stdout == "running 0 9\n" and time.monotonic() - began >= 0.15
    assert _fio_client._next_due("running 0 9", "", 0.5, 0.2) == pytest.approx(time.monotonic(), abs=0.05)
    assert _fio_client._next_due("running 4 9", "{}", 0.5, 0.2) == pytest.approx(time.monotonic() + 0.5, abs=0.05)


def test_the_follow_loop_prints_the_exit_status_then_the_rest_and_says_when_fio_is_gone(tmp_path):
    started = paths(tmp_path, os.getpid())
    (tmp_path / "round 01.json").write_text("{\"a\": 1}\n{\"b\": 2}\n")
    with open(started["status"], "w", encoding="utf-8") as handle:
        handle.write("0 10.5 12.75\n")
    done = sh(_fio_client.host_follow_command(started, 9, 1.0))
    assert done.returncode == 0 and done.stdout == "0 10.5 12.75\n{\"b\": 2}\n"
    os.unlink(started["status"])
    gone = paths(tmp_path, 2 ** 22 + 1)
    assert sh(_fio_client.host_follow_command(gone, 0, 0.2)).returncode == 4


def test_a_run_followed_over_a_pseudo_terminal_reads_every_dump_whole(clock, tmp_path):
    # An SSH connection runs these commands with -tt: every line end comes back as CR LF, and the host's cut may split
    # a character. The offsets are the host's byte counts, so every dump is read once and whole.
    dumps = [json.dumps({"jobs": [{"jobname": "xsr-é", "n": n}]}, indent=1, ensure_ascii=False) + "\n" for n in (1, 2, 3)]
    data = "".join(dumps).encode("utf-8")
    cut = data.index("é".encode("utf-8")) + 1  # in the middle of the first dump's two-byte character
    ends = [cut, len(dumps[0].encode()), len((dumps[0] + dumps[1]).encode()), len(data)]
    answers = []
    offset = 0
    for end in ends:
        chunk = data[offset:end].decode("utf-8", "surrogateescape").replace("\n", "\r\n")
        answers.append({"rc": 0, "stdout": f"running 5 {end}\r\n" + chunk, "stderr": ""})
        offset = end
    answers.append({"rc": 0, "stdout": "0 1.0 2.5\r\n", "stderr": ""})
    host = Host(clock, finish_at=None, failures=answers)
    seen = []
    found = make_client(host)._follow(dict(SERVER), dict(STARTED), 0.5, 600, 300,
                                      lambda text, final: seen.append((text and json.loads(text), final)))
    assert [s for s, dummy in seen if s] == [json.loads(d) for d in dumps] and seen[-1] == (None, True)
    assert found["text"].startswith("0 1.0 2.5\n")
    # Each look asked for what follows the host's count of the bytes it had sent.
    assert [int(re.search(r"tail -c \+(\d+)", c).group(1)) - 1 for c in host.commands] == [0] + ends
