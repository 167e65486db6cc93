# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner, _run_io

ROOT_UID = os.geteuid()


def _proc(proc, pid, args, cwd, uid=ROOT_UID, ppid=1, state="S", start=1000, session=None):
    folder = proc / str(pid)
    folder.mkdir()
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
    (folder / "stat").write_text(f"{pid} ({os.path.basename(args[0])}) {state} {ppid} 0 {session or pid} "
                                 + "0 " * 15 + f"{start} 0\n")
    (folder / "status").write_text(f"Name:\tx\nState:\t{state}\nPPid:\t{ppid}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n")
    os.symlink(cwd, folder / "cwd")


def test_a_run_id_is_not_the_prefix_of_another(tmp_path):
    for name in ("R1.aaaaaaaaaaaa", "R1.untokened", "R1.5.bbbbbbbbbbbb", "R1.5.untokened", "R10.cccccccccccc", "R1.x"):
        (tmp_path / name).mkdir()
    assert [os.path.basename(d) for d in _run_io.run_dirs(str(tmp_path), "R1")] == ["R1.aaaaaaaaaaaa", "R1.untokened"]
    found = [os.path.basename(d) for d in _run_io.run_dirs(str(tmp_path), "R1.5")]
    assert found == ["R1.5.bbbbbbbbbbbb", "R1.5.untokened"]
    assert [os.path.basename(d) for d in _run_io.run_dirs(str(tmp_path), "R1", "aaaaaaaaaaaa" + "f" * 20)] == \
        ["R1.aaaaaaaaaaaa"]


def _pidfile(job, pid, start, run_id="R1", token="a" * 32):
    fd = os.open(job, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _fio_runner.write_pidfile(fd, pid, start, run_id, token)
    finally:
        os.close(fd)


def test_only_a_proved_fio_server_of_the_run_and_its_session_are_its_processes(tmp_path):
    run = tmp_path / "remote" / "R1.aaaaaaaaaaaa"
    job = run / "d.loop0" / "d" / "iops"
    other = run / "d.loop1" / "d" / "iops"
    stale = run / "d.loop2" / "d" / "iops"
    for folder in (job, other, stale):
        folder.mkdir(parents=True)
    _pidfile(job, 200, 1000)
    _pidfile(other, 210, 1000, token="b" * 32)   # another run of the run id: not this one's when a token is given
    _pidfile(stale, 220, 999)                    # a pidfile whose PID another process has now (other start time)
    proc = tmp_path / "proc"
    proc.mkdir()
    _proc(proc, 200, ["/usr/bin/python3"], str(job))                                # the segment's fio server
    _proc(proc, 201, ["fio", "round-01.fio"], str(job), ppid=200, session=200)      # what it started: its session
    _proc(proc, 202, ["fio", "round-01.fio"], "/", ppid=201, session=200)           # fio's own job process
    _proc(proc, 210, ["/usr/bin/python3"], str(other))
    _proc(proc, 220, ["/usr/bin/python3"], str(stale))
    _proc(proc, 300, ["/bin/sh", "-c", f"fio {job}/wipc.fio"], "/")                 # names the run's files: not proof
    _proc(proc, 301, ["fio", "--output=x", "--output-format=json"], str(job))      # fio working there, not the run's
    _proc(proc, 400, ["bash"], str(job))                                           # an admin's shell cd'd in...
    _proc(proc, 401, ["tail", "-f", f"{job}/round-01.log"], "/")                    # ...and a tail of a round log
    _proc(proc, 502, ["fio", f"{job}/round-01.fio"], str(job), state="Z", session=200)  # a zombie has ended
    _proc(proc, 600, ["/usr/bin/python3"], "/", ppid=1)                             # not working in its directory
    found = {e["pid"]: e["why"] for e in _run_io.processes([str(run)], proc_root=str(proc), own=1, run_id="R1",
                                                           token="a" * 32)}
    assert found == {200: f"the fio server of {job}", 201: "started by the run's fio server",
                     202: "started by the run's fio server"}
    # Without a token: every run of the run id on the host (its results directory may be gone).
    assert set(e["pid"] for e in _run_io.processes([str(run)], proc_root=str(proc), own=1, run_id="R1")) == \
        {200, 201, 202, 210}


def test_stop_signals_only_the_processes_found_and_counts_zombies_and_reused_pids_as_ended(tmp_path):
    proc = tmp_path / "proc"
    proc.mkdir()
    _proc(proc, 10, ["fio"], "/", start=5)
    _proc(proc, 11, ["fio"], "/", start=6)
    _proc(proc, 12, ["fio"], "/", start=7, state="Z")
    sent = []

    def kill(pid, sig):
        sent.append((pid, sig))
        if pid == 10:  # ends on SIGTERM
            (proc / "10" / "stat").write_text("10 (fio) Z 1 " + "0 " * 17 + "5 0\n")
    found = [{"pid": 10, "start": 5}, {"pid": 11, "start": 99}, {"pid": 12, "start": 7}]
    ended = _run_io.stop(found, timeout=0.1, kill=kill, proc_root=str(proc), sleep=lambda s: None)
    # 11 is another process now (another start time): never signalled; 12 is a zombie: ended already.
    assert sent == [(10, signal.SIGTERM)] and [e["pid"] for e in ended] == [10, 11, 12]


def _children(pid: int) -> list[tuple[int, str]]:
    """(PID, state) of the processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status", encoding="ascii") as handle:
                fields = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
        except (OSError, ValueError):
            continue
        if fields.get("PPid", "").strip() == str(pid):
            found.append((int(entry), fields["State"].split()[0]))
    return found


def test_a_process_that_ends_as_a_zombie_has_ended(tmp_path):
    run = tmp_path / "R2.cccccccccccc"
    run.mkdir()
    # A server that never reaps its child (fio): once killed, the child stays a zombie, which must not make a
    # release fail ("did not end").
    server = subprocess.Popen([sys.executable, "-c", "import os, subprocess, time; os.setsid(); "
                               "subprocess.Popen(['sh', '-c', 'sleep 30; :']); time.sleep(60)"], cwd=run)
    try:
        # Until the shell runs its sleep: a child caught between fork and exec is not yet the shell.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            kids = _children(server.pid)
            if kids and _children(kids[0][0]):
                break
            time.sleep(0.02)
        with open(f"/proc/{server.pid}/stat", encoding="ascii") as handle:
            start = int(handle.read().rsplit(")", 1)[1].split()[19])
        _pidfile(run, server.pid, start, run_id="R2", token="c" * 32)
        found = _run_io.processes([str(run)], run_id="R2")
        child = [pid for pid, _state in _children(server.pid)]
        # The server, the shell it started and the sleep that shell started: all of its session.
        assert server.pid in [e["pid"] for e in found] and set(child) < {e["pid"] for e in found}
        ended = _run_io.stop([e for e in found if e["pid"] != server.pid], timeout=5)
        assert len(ended) == len(found) - 1 and [state for _pid, state in _children(server.pid)] == ["Z"]
        assert [e["pid"] for e in _run_io.processes([str(run)], run_id="R2")] == [server.pid]
    finally:
        server.kill()
        server.wait()
