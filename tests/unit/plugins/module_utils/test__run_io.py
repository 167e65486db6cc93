# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _run_io

ROOT_UID = os.geteuid()


def _proc(proc, pid, args, cwd, uid=ROOT_UID, ppid=1, state="S", start=1000):
    folder = proc / str(pid)
    folder.mkdir()
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
    (folder / "stat").write_text(f"{pid} ({os.path.basename(args[0])}) {state} {ppid} " + "0 " * 17 + f"{start} 0\n")
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


def test_only_the_runs_own_programs_of_its_user_are_its_processes(tmp_path):
    run = tmp_path / "remote" / "R1.aaaaaaaaaaaa"
    job = run / "d.loop0" / "d" / "iops"
    job.mkdir(parents=True)
    (job / "server.pid").write_text("200\n")
    proc = tmp_path / "proc"
    proc.mkdir()
    _proc(proc, 200, ["/usr/bin/python3"], str(job))                                # the segment's fio server
    _proc(proc, 201, ["timeout", "60", "fio", "round-01.fio"], str(job), ppid=200)  # what it started
    _proc(proc, 202, ["fio", "round-01.fio"], str(job), ppid=201)
    _proc(proc, 300, ["/bin/sh", "-c", f"fio {job}/wipc.fio"], "/")                 # a detached round
    _proc(proc, 301, ["fio", "--output=x", "--output-format=json"], str(job))      # fio working there
    _proc(proc, 400, ["bash"], str(job))                                           # an admin's shell cd'd in...
    _proc(proc, 401, ["tail", "-f", f"{job}/round-01.log"], "/")                    # ...and a tail of a round log
    _proc(proc, 500, ["python3", "-c", "pass", f"{job}/x"], "/", uid=65534)         # another user naming the run
    _proc(proc, 501, ["fio", f"{job}/round-01.fio"], str(job), uid=65534)
    _proc(proc, 502, ["fio", f"{job}/round-01.fio"], str(job), state="Z")           # a zombie has ended
    _proc(proc, 600, ["/usr/bin/python3"], str(job), ppid=1)                        # not the server of the pidfile
    found = {e["pid"]: e["why"] for e in _run_io.processes([str(run)], proc_root=str(proc), own=1)}
    assert found == {200: "the fio server of one of the run's job directories", 201: "started by the run's fio server",
                     202: "started by the run's fio server", 300: "its command line names the run's files",
                     301: "it works in the run's directory", 400: "it works in the run's directory"}


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
    # A parent that never reaps its child, a shell that names the run's directory: once killed, the child stays a
    # zombie, which must not make a release fail ("did not end").
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, time; "
                               f"subprocess.Popen(['sh', '-c', 'sleep 30; :', '{run}/x']); time.sleep(60)"])
    try:
        deadline = time.monotonic() + 10
        while not _children(parent.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        found = _run_io.processes([str(run)])
        assert [e["pid"] for e in found] == [pid for pid, _state in _children(parent.pid)]
        ended = _run_io.stop(found, timeout=5)
        assert ended == found and [state for _pid, state in _children(parent.pid)] == ["Z"]
        assert _run_io.processes([str(run)]) == []
    finally:
        parent.kill()
        parent.wait()
