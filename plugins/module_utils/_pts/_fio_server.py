# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A segment's rounds on the host: one small process that runs each round's fio when the controller asks.

The fio_job module starts it once per segment, detached (its own session), in the segment's job directory. For each
round the controller writes the round's job file and then a request (``request.json``, renamed into place); the
server takes it, checks the job file against the guard's record of the drive right then (the same check as the
module's), runs fio, and writes fio's exit status with its start and end times (``<output>.status``, renamed into
place, written last) - or, when the check refuses, ``-1`` and the reason in ``<output>.log``. The controller waits on
the host for that status. A round then costs the controller two short shell commands, not a module run.

The server does nothing on its own: it only runs a job file the controller asked for, and it ends when the
controller says so (``stop``), or after ``idle_s`` without a request (a controller that went away), never in the middle
of a round. Everything it reads and writes is inside its directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

REQUEST = "request.json"
STOP = "stop"
PIDFILE = "server.pid"
REFUSED = -1
_PREFIX_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def status_path(output: str) -> str:
    return output + ".status"


def log_path(output: str) -> str:
    return output + ".log"


def _open_new(path: str) -> int:
    """A file of the server's directory opened for writing, never through a symbolic link planted in its place."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.tmp"
    with os.fdopen(_open_new(tmp), "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def _inside(directory: str, path: object) -> str:
    """``path`` when it names a file directly in ``directory``; ValueError otherwise."""
    if not isinstance(path, str) or os.path.dirname(os.path.abspath(path)) != os.path.abspath(directory):
        raise ValueError(f"{path!r} is not a file of {directory}")
    return path


def take_request(directory: str) -> dict | None:
    """The controller's next request, removed as it is taken; None when there is none. ValueError when it is not a
    request this collection writes (it is not run)."""
    path = os.path.join(directory, REQUEST)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    os.unlink(path)
    request = json.loads(text)
    if not isinstance(request, dict):
        raise ValueError("the request is not a JSON object")
    output = _inside(directory, request.get("output"))
    try:
        timeout = request.get("timeout", 0)
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 0:
            raise ValueError(f"timeout {timeout!r} is not a number of seconds")
        if request.get("output_format", "json") not in ("json", "json+"):
            raise ValueError(f"output_format {request.get('output_format')!r} is not json or json+")
        interval = request.get("status_interval_ms", 0)
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 0:
            raise ValueError(f"status_interval_ms {interval!r} is not a number of milliseconds")
        job_file = _inside(directory, request.get("job_file"))
        logs = request.get("logs") or ""
        if not isinstance(logs, str) or (logs and not _PREFIX_RE.match(logs)):
            raise ValueError(f"logs {logs!r} is not a file name prefix")
    except ValueError as exc:
        # The controller waits for this output's status: it gets the refusal at once, not a time-out.
        _write_atomic(log_path(output), f"fio_job refused the request, nothing was written: {exc}\n")
        _write_atomic(status_path(output), f"{REFUSED} {time.time():.6f} {time.time():.6f}\n")
        raise
    return {"job_file": job_file, "output": output, "timeout": timeout,
            "output_format": request.get("output_format", "json"), "status_interval_ms": interval, "logs": logs}


def command(fio: str, timeout_bin: str | None, request: dict) -> list[str]:
    """fio's command line for a request; under ``timeout`` (TERM, then KILL 30 s later) when it has one. With
    ``status_interval_ms`` fio appends a whole status document (counters since the job started) to its output every
    that many milliseconds while it runs, and its final report after them."""
    argv = [fio, f"--output-format={request['output_format']}", f"--output={request['output']}"]
    if request.get("status_interval_ms"):
        argv.append(f"--status-interval={int(request['status_interval_ms'])}ms")
    argv.append(request["job_file"])
    if request["timeout"] and timeout_bin:
        argv = [timeout_bin, "--kill-after=30", str(request["timeout"])] + argv
    return argv


def run_request(request: dict, refusal, fio: str, timeout_bin: str | None, runner=subprocess.run,
                clock=time.time) -> str:
    """Run one request: the guard's check, then fio; returns the status line written (``rc start end``)."""
    output = request["output"]
    stale = [output, status_path(output), log_path(output)]
    if request.get("logs"):
        # fio appends to its interval logs: an earlier attempt's must not run into this run's.
        directory = os.path.dirname(output)
        stale += [os.path.join(directory, name) for name in os.listdir(directory)
                  if name.startswith(request["logs"] + "_") and name.endswith(".log")]
    for path in stale:
        if os.path.exists(path):
            os.unlink(path)
    problem = refusal(request["job_file"])
    if problem:
        _write_atomic(log_path(output), f"fio_job refused {request['job_file']}, nothing was written: {problem}\n")
        line = f"{REFUSED} {clock():.6f} {clock():.6f}"
    else:
        start = clock()
        with os.fdopen(_open_new(log_path(output)), "wb") as log, open(os.devnull, "rb") as nothing:
            # The server runs detached from any module (no AnsibleModule, so no run_command): fio is its child.
            rc = runner(command(fio, timeout_bin, request),  # pylint: disable=ansible-bad-function
                        stdin=nothing, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
        line = f"{rc} {start:.6f} {clock():.6f}"
    _write_atomic(status_path(output), line + "\n")
    return line


def serve(directory: str, refusal, fio: str, timeout_bin: str | None, idle_s: float, poll_s: float = 0.01,
          monotonic=time.monotonic, sleep=time.sleep, runner=subprocess.run) -> str:
    """Run requests until told to stop or idle for ``idle_s``; returns why it ended."""
    last = monotonic()
    while True:
        stop = os.path.join(directory, STOP)
        if os.path.exists(stop):
            os.unlink(stop)
            return "stopped"
        try:
            request = take_request(directory)
        except (OSError, ValueError) as exc:
            _write_atomic(os.path.join(directory, "request.refused"), f"{exc}\n")
            request = None
        if request is not None:
            run_request(request, refusal, fio, timeout_bin, runner)
            last = monotonic()
            continue
        if monotonic() - last > idle_s:
            return "idle"
        sleep(poll_s)
