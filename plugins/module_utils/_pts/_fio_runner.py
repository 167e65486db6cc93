# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The one road to fio on a host: every fio the collection starts - preconditioning, every round, the sweeps, the
continuous XSR and HIR runs - is one ``run_job()`` here, run by a segment's fio server (``serve()``) or by the fio_job
module itself, with one set of checks.

The job's directory is held as a descriptor, opened level by level from ``/`` (_remote_dir.open_dir); the job file is
checked as fio reads it (_job_check.py) and against the guard's record of the drive right before fio starts, then
written relative to that descriptor (never through a link) and read by fio from there (fio works in that directory:
the job file, its output and its interval logs are bare names in it). While fio runs, its time limit and the wear
bound are watched here: past its time fio is stopped (TERM, then KILL 30 s later) and the run fails. The wear bound -
the bytes the run may still write - holds against the device's own write counter (``/sys/dev/block/MAJ:MIN/stat``,
sectors written), read every WATCH_S: fio is stopped once what the device has taken, plus what fio can have in flight
(threads x queue depth x block size, from the job file) and what it writes at its current rate in MARGIN_S, would
reach the bound, and the run fails, never recorded as a result. (fio cannot be handed the bound itself: it ignores
``number_ios`` in a time-based job.) A job whose writes in flight alone exceed what is left is not started.

A segment's fio server is one small process that runs each job when the controller asks. The fio_job module starts it
once per segment, detached (a session of its own, working in the segment's job directory, which it holds). For each
job the controller writes a request (``request.json``, renamed into place) carrying the job file's text; the server
takes it, runs it (``run_job``) and writes fio's exit status with its start and end times (``<output>.status``,
written last) - or, when a check refuses, ``-1`` and the reason in ``<output>.log``. The server does nothing on its own:
it ends when the controller says so (``stop``), after its one job (``once``), or after ``idle_s`` without a request (a
controller that went away). A stop that comes while a job runs ends fio first (its worker gave the job up: the
controller is gone) - fio would otherwise write the device, section after section, for nobody. Its pidfile (``server.pid``, root's, in its directory) names
its PID, start time, run id and run token: a release of the run finds it there, proves it by its start time and
working directory, and stops it and what it started (its session) - nothing else.
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import time

from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check

REFUSED = -1
# fio was stopped because the device had taken the run's remaining wear budget (_WEAR_WORDS in the log says so).
OVER_BUDGET = -2
TIMED_OUT, KILLED = 124, 137
KILL_AFTER_S = 30.0
WATCH_S = 0.02
# How far ahead of the bound fio is stopped at its current write rate: a look, and fio's own reaction to TERM.
MARGIN_S = 0.1
SECTOR = 512
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
OUTPUT_FORMATS = ("json", "json+")


def bare(name: object, what: str = "file name") -> str:
    """``name`` when it is a bare file name of the job's directory (no '/', no leading dot); ValueError otherwise."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"{what} {name!r} is not a file name of the job's directory")
    return name


def status_name(output: str) -> str:
    return output + ".status"


def log_name(output: str) -> str:
    return output + ".log"


def write_file(dirfd: int, name: str, text: str, mode: int = 0o600) -> None:
    """``name`` in the held directory, replaced whole (a new file renamed into place; never written through a link or
    into a FIFO someone put there). Not fsynced: these files live as long as a round, and the host's watch for fio's
    end reads them the moment they are there."""
    _safe_path.write_at(dirfd, name, text.encode("utf-8"), mode, sync=False)


def read_file(dirfd: int, name: str, limit: int = 1 << 20) -> str:
    """A regular file of the held directory (never followed through a link), at most ``limit`` bytes."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dirfd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{name} is not a regular file")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"{name} is larger than {limit} bytes")
    return data.decode("utf-8")


def remove(dirfd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dirfd)
    except FileNotFoundError:
        pass


def sectors_written(devnum: str, sys_root: str = "/sys") -> int | None:
    """The device's count of 512-byte sectors written since boot (the kernel's block statistics), or None."""
    try:
        with open(os.path.join(sys_root, "dev", "block", devnum, "stat"), encoding="ascii") as handle:
            return int(handle.read().split()[6])
    except (OSError, IndexError, ValueError):
        return None


def devnum_of(device: str) -> str | None:
    """major:minor of the block device node ``device``, or None."""
    try:
        st = os.stat(device)
    except OSError:
        return None
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" if stat.S_ISBLK(st.st_mode) else None


def command(fio: str, request: dict) -> list[str]:
    """fio's command line, in the job's directory: with ``status_interval_ms`` fio appends a whole status document
    (counters since the job started) to its output every that many milliseconds, and its final report after them."""
    argv = [fio, f"--output-format={request['output_format']}", f"--output={request['output']}"]
    if request.get("status_interval_ms"):
        argv.append(f"--status-interval={int(request['status_interval_ms'])}ms")
    argv.append(request["job"])
    return argv


def _status(dirfd: int, output: str, rc: int, start: float, end: float) -> str:
    line = f"{rc} {start:.6f} {end:.6f}"
    write_file(dirfd, status_name(output), line + "\n")
    return line


def _refused(dirfd: int, output: str, why: str, clock) -> str:
    write_file(dirfd, log_name(output), f"fio_job refused the job, nothing was written: {why}\n")
    now = clock()
    return _status(dirfd, output, REFUSED, now, now)


def run_job(dirfd: int, request: dict, device: str, refusal, fio: str, sys_root: str = "/sys",
            popen=subprocess.Popen, clock=time.time, monotonic=time.monotonic, sleep=time.sleep) -> str:
    """Run one job: check it, write it, run fio on it, watch it; returns the status line written last (``rc start
    end``; ``rc`` is fio's, REFUSED when the job was not run, OVER_BUDGET when fio was stopped at the wear bound,
    TIMED_OUT or KILLED when it was stopped at its time limit).

    ``request``: ``job`` and ``output`` (bare names), ``job_text``, ``timeout`` (s, 0 none), ``output_format``,
    ``status_interval_ms``, ``logs`` (a log prefix whose earlier files go first) and ``max_write_bytes`` (0 none).
    ``refusal(job_text)``: the guard's answer right before fio starts (None: go).
    """
    output = request["output"]
    stale = [output, status_name(output), log_name(output)]
    if request.get("logs"):
        # fio appends to its interval logs: an earlier attempt's must not run into this run's.
        stale += [name for name in os.listdir(dirfd) if name.startswith(request["logs"] + "_") and name.endswith(".log")]
    for name in stale:
        remove(dirfd, name)
    text = request["job_text"]
    problem = "; ".join(_job_check.refusals(text, device)) or refusal(text)
    if problem:
        return _refused(dirfd, output, problem, clock)
    write_file(dirfd, request["job"], text)
    budget = int(request.get("max_write_bytes") or 0)
    devnum = devnum_of(device) if budget else None
    first = sectors_written(devnum, sys_root) if devnum else None
    if budget and first is None:
        return _refused(dirfd, output, f"the wear bound cannot be watched: no write counter for device {devnum}",
                        clock)
    flight = _job_check.most_in_flight(text) if budget else 0
    if budget and flight >= budget:
        return _refused(dirfd, output, f"the run's wear bound leaves {budget:,} bytes for this fio run, and fio can "
                                       f"have {flight:,} bytes of writes in flight at once: it would pass the bound",
                        clock)
    log = os.open(log_name(output), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                  dir_fd=dirfd)
    start = clock()
    try:
        with open(os.devnull, "rb") as nothing:
            # fio works in the held directory: its job file, output and logs are bare names there, reached through
            # the descriptor, never through the directory's path again.
            # A process group of its own, so that its job processes end with it (_end_group), in the server's
            # session, where a release finds it (_run_io). This process runs no other thread.
            proc = popen(command(fio, request), stdin=nothing, stdout=log, stderr=subprocess.STDOUT,  # pylint: disable=ansible-bad-function
                         cwd=f"/proc/self/fd/{dirfd}", pass_fds=(dirfd,),
                         preexec_fn=os.setpgrp)  # pylint: disable=subprocess-popen-preexec-fn
    finally:
        os.close(log)
    rc, why = _watch(proc, float(request.get("timeout") or 0), (budget, flight), devnum, first, sys_root, monotonic,
                     sleep, lambda: _stop_asked(dirfd))
    _end_group(proc.pid, monotonic, sleep)
    if why:
        with os.fdopen(os.open(log_name(output), os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC,
                               dir_fd=dirfd), "a", encoding="utf-8") as handle:
            handle.write(f"\nfleetqual.pts: {why}\n")
    return _status(dirfd, output, rc, start, clock())


def _stop_asked(dirfd: int) -> bool:
    """Has the controller's side asked the server to stop (the segment is over, or its controller is gone)?"""
    try:
        os.stat(STOP, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _watch(proc, timeout: float, bound: tuple[int, int], devnum: str | None, first: int | None, sys_root: str,
           monotonic, sleep, stop_asked=lambda: False) -> tuple[int, str | None]:
    """Wait for fio; stop it at its time limit, before its wear bound (``bound``: the bytes it may write, and the
    most it can have in flight) or when ``stop_asked()``: a job that started after its worker had given it up (its
    controller gone) writes nothing for nobody. Returns (rc, why it was stopped or None)."""
    budget, flight = bound
    started = term_at = last_at = monotonic()
    stopped, why, killed_at, last = None, None, None, 0
    while True:
        rc = proc.poll()
        if rc is not None:
            if stopped == "budget":
                return OVER_BUDGET, why
            if stopped == "timeout":
                return (KILLED if killed_at else TIMED_OUT), why
            if stopped == "stop":
                return KILLED, why
            return rc, None
        now = monotonic()
        if stopped is None and stop_asked():
            stopped, why = "stop", "fio was stopped: the server was asked to stop (its segment is over)"
            proc.send_signal(signal.SIGTERM)
            term_at = now
        elif stopped is None and timeout and now - started >= timeout:
            stopped, why = "timeout", f"fio ran past its time limit of {timeout:g} s and was stopped"
            proc.send_signal(signal.SIGTERM)
            term_at = now
        elif stopped is None and budget:
            done = sectors_written(devnum, sys_root)
            if done is not None:
                taken = (done - first) * SECTOR
                rate = (taken - last) / max(now - last_at, WATCH_S)
                last, last_at = taken, now
                if taken + flight + rate * MARGIN_S >= budget:
                    stopped = "budget"
                    why = (f"fio was stopped at the run's wear bound: the device had taken {taken:,} bytes of writes "
                           f"in this fio run, and with what fio has in flight ({flight:,} bytes) and writes at its "
                           f"rate in {MARGIN_S:g} s it would pass the {budget:,} bytes the bound left for it")
                    proc.send_signal(signal.SIGTERM)
                    term_at = now
        elif stopped is not None and killed_at is None and now - term_at >= KILL_AFTER_S:
            proc.kill()
            killed_at = now
        sleep(WATCH_S)


def _end_group(pgid: int | None, monotonic, sleep, wait_s: float = 10.0) -> None:
    """Once fio's first process has ended: none of its job processes outlives it. fio waits for its jobs before it
    exits, but one killed at its time limit (SIGKILL reaches that process alone) leaves them running, the device
    open and written - past the bound, and in the way of the next step's guard check. What is left of its process
    group is killed and waited for."""
    if not pgid:
        return
    deadline = monotonic() + wait_s
    while True:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # none is left, or (a runner not root) none of fio's
            return
        if monotonic() >= deadline:
            return
        sleep(WATCH_S)


REQUEST = "request.json"
STOP = "stop"
PIDFILE = "server.pid"
PID_FORMAT = "fleetqual.pts fio server 1"
MAX_REQUEST_BYTES = 4 << 20


def take_request(dirfd: int) -> dict | None:
    """The controller's next request, removed as it is taken; None when there is none. ValueError when it is not a
    request this collection writes (it is not run; when it names its output, that output's status says so at once)."""
    try:
        text = read_file(dirfd, REQUEST, MAX_REQUEST_BYTES)
    except FileNotFoundError:
        # Nothing is removed: the controller may be renaming its request into place right now.
        return None
    except (OSError, ValueError, UnicodeDecodeError):
        remove(dirfd, REQUEST)
        raise
    remove(dirfd, REQUEST)
    request = json.loads(text)
    if not isinstance(request, dict):
        raise ValueError("the request is not a JSON object")
    output = bare(request.get("output"), "output")
    try:
        checked = {"output": output, "job": bare(request.get("job"), "job file")}
        for name in ("timeout", "status_interval_ms", "max_write_bytes"):
            value = request.get(name, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} {value!r} is not a whole number of at least 0")
            checked[name] = value
        checked["output_format"] = request.get("output_format", "json")
        if checked["output_format"] not in OUTPUT_FORMATS:
            raise ValueError(f"output_format {checked['output_format']!r} is not json or json+")
        logs = request.get("logs") or ""
        checked["logs"] = bare(logs, "logs prefix") if logs else ""
        if not isinstance(request.get("job_text"), str):
            raise ValueError("the request carries no job file text")
        checked["job_text"] = request["job_text"]
    except ValueError as exc:
        # The controller waits for this output's status: it gets the refusal at once, not a time-out.
        write_file(dirfd, log_name(output), f"fio_job refused the request, nothing was written: {exc}\n")
        write_file(dirfd, status_name(output), f"{REFUSED} {time.time():.6f} {time.time():.6f}\n")
        raise
    return checked


def write_pidfile(dirfd: int, pid: int, start_time: int | None, run_id: str, token: str) -> None:
    record = {"format": PID_FORMAT, "pid": pid, "start_time": start_time, "run_id": run_id, "token": token}
    write_file(dirfd, PIDFILE, json.dumps(record) + "\n")


def read_pidfile(dirfd: int) -> dict | None:
    """The server a directory names: {pid, start_time, run_id, token}, or None."""
    try:
        data = json.loads(read_file(dirfd, PIDFILE, 4096))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != PID_FORMAT or not isinstance(data.get("pid"), int):
        return None
    return data


def serve(dirfd: int, device: str, refusal, fio: str, idle_s: float, once: bool = False, poll_s: float = 0.01,
          monotonic=time.monotonic, sleep=time.sleep, run=None) -> str:
    """Run requests until told to stop, after the first when ``once``, or idle for ``idle_s``; returns why it ended."""
    run = run or run_job
    last = monotonic()
    while True:
        if _stop_asked(dirfd):
            remove(dirfd, STOP)
            return "stopped"
        try:
            request = take_request(dirfd)
        except (OSError, ValueError) as exc:
            write_file(dirfd, "request.refused", f"{exc}\n")
            request = None
        if request is not None:
            run(dirfd, request, device, refusal, fio)
            if once:
                return "done"
            last = monotonic()
            continue
        if monotonic() - last > idle_s:
            return "idle"
        sleep(poll_s)
