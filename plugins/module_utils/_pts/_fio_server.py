# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A segment's fio runs on the host: one small process that runs each job when the controller asks.

The fio_job module starts it once per segment, detached (a session of its own, working in the segment's job
directory, which it holds as a descriptor: see _remote_dir.open_dir). For each job the controller writes a request
(``request.json``, renamed into place) carrying the job file's text; the server takes it, and the runner
(_fio_runner.run) checks the text as fio reads it and against the guard's record of the drive right then, writes the
job file relative to the held directory, runs fio there, watches its time and wear bound, and writes fio's exit status
with its start and end times (``<output>.status``, written last) - or, when the check refuses, ``-1`` and the reason
in ``<output>.log``. The controller waits on the host for that status. A round costs the controller two short shell
commands, not a module run.

The server does nothing on its own: it only runs what the controller asked for, and it ends when the controller says
so (``stop``), after its one job (``once``), or after ``idle_s`` without a request (a controller that went away),
never in the middle of a job. Its pidfile (``server.pid``, root's, in its directory) names its PID, start time, run id
and run token: a release of the run finds it there, proves it by its start time and working directory, and stops it
and what it started (its session) - nothing else.
"""

from __future__ import annotations

import json
import os
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner

REQUEST = "request.json"
STOP = "stop"
PIDFILE = "server.pid"
PID_FORMAT = "fleetqual.pts fio server 1"
REFUSED = _fio_runner.REFUSED
MAX_REQUEST_BYTES = 4 << 20


def status_path(output: str) -> str:
    return _fio_runner.status_name(output)


def log_path(output: str) -> str:
    return _fio_runner.log_name(output)


def take_request(dirfd: int) -> dict | None:
    """The controller's next request, removed as it is taken; None when there is none. ValueError when it is not a
    request this collection writes (it is not run; when it names its output, that output's status says so at once)."""
    try:
        text = _fio_runner.read_file(dirfd, REQUEST, MAX_REQUEST_BYTES)
    except FileNotFoundError:
        # Nothing is removed: the controller may be renaming its request into place right now.
        return None
    except (OSError, ValueError, UnicodeDecodeError):
        _fio_runner.remove(dirfd, REQUEST)
        raise
    _fio_runner.remove(dirfd, REQUEST)
    request = json.loads(text)
    if not isinstance(request, dict):
        raise ValueError("the request is not a JSON object")
    output = _fio_runner.bare(request.get("output"), "output")
    try:
        checked = {"output": output, "job": _fio_runner.bare(request.get("job"), "job file")}
        for name in ("timeout", "status_interval_ms", "max_write_bytes"):
            value = request.get(name, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} {value!r} is not a whole number of at least 0")
            checked[name] = value
        checked["output_format"] = request.get("output_format", "json")
        if checked["output_format"] not in _fio_runner.OUTPUT_FORMATS:
            raise ValueError(f"output_format {checked['output_format']!r} is not json or json+")
        logs = request.get("logs") or ""
        checked["logs"] = _fio_runner.bare(logs, "logs prefix") if logs else ""
        if not isinstance(request.get("job_text"), str):
            raise ValueError("the request carries no job file text")
        checked["job_text"] = request["job_text"]
    except ValueError as exc:
        # The controller waits for this output's status: it gets the refusal at once, not a time-out.
        _fio_runner.write_file(dirfd, log_path(output), f"fio_job refused the request, nothing was written: {exc}\n")
        _fio_runner.write_file(dirfd, status_path(output), f"{REFUSED} {time.time():.6f} {time.time():.6f}\n")
        raise
    return checked


def write_pidfile(dirfd: int, pid: int, start_time: int | None, run_id: str, token: str) -> None:
    _fio_runner.write_file(dirfd, PIDFILE, json.dumps({"format": PID_FORMAT, "pid": pid, "start_time": start_time,
                                                       "run_id": run_id, "token": token}) + "\n")


def read_pidfile(dirfd: int) -> dict | None:
    """The server a directory names: {pid, start_time, run_id, token}, or None."""
    try:
        data = json.loads(_fio_runner.read_file(dirfd, PIDFILE, 4096))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != PID_FORMAT or not isinstance(data.get("pid"), int):
        return None
    return data


def serve(dirfd: int, device: str, refusal, fio: str, idle_s: float, once: bool = False, poll_s: float = 0.01,
          monotonic=time.monotonic, sleep=time.sleep, run=_fio_runner.run) -> str:
    """Run requests until told to stop, after the first when ``once``, or idle for ``idle_s``; returns why it ended."""
    last = monotonic()
    while True:
        try:
            os.stat(STOP, dir_fd=dirfd, follow_symlinks=False)
            _fio_runner.remove(dirfd, STOP)
            return "stopped"
        except FileNotFoundError:
            pass
        try:
            request = take_request(dirfd)
        except (OSError, ValueError) as exc:
            _fio_runner.write_file(dirfd, "request.refused", f"{exc}\n")
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
