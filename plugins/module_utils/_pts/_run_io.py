# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A run's I/O processes on a host, found by what the run itself wrote: every fio a run starts is started by a fio
server (_fio_runner.py) working in one of the run's job directories, ``<remote_dir>/<run id>.<token>/...``, and each
server's root-only pidfile there names its PID, its start time, the run id and the run token. A process is the run's
only when such a pidfile names it and it is that very process - its start time matches and it works in that directory
- or when it is in that server's session (fio and anything else the server started). An administrator's shell or
``tail -f`` in a job directory, or any process that merely names the run's paths, is never the run's. Releasing a run
stops them, so that a cancelled job leaves no fio writing to a drive nobody holds any more."""

from __future__ import annotations

import os
import re
import signal
import stat
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner


def run_dirs(remote_dir: str, run_id: str, token: str = "") -> list[str]:
    """The run's directories on the host: of that run id and token, or of every token of the run id without one -
    ``<run id>.<12 hex digits of the token>`` or ``<run id>.untokened``, never another run id that merely starts
    with this one and a dot."""
    try:
        names = os.listdir(remote_dir)
    except OSError:
        return []
    tail = re.escape(token[:12]) if token else r"(?:[0-9a-f]{12}|untokened)"
    pattern = re.compile(re.escape(run_id) + r"\." + tail)
    return sorted(os.path.join(remote_dir, name) for name in names if pattern.fullmatch(name))


def _read(pid: int, proc_root: str, name: str) -> bytes:
    try:
        with open(os.path.join(proc_root, str(pid), name), "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _cmdline(pid: int, proc_root: str) -> list[str]:
    return [part.decode("utf-8", "replace") for part in _read(pid, proc_root, "cmdline").split(b"\0") if part]


def _session(pid: int, proc_root: str) -> int | None:
    raw = _read(pid, proc_root, "stat")
    if b")" not in raw:
        return None
    fields = raw.rsplit(b")", 1)[1].split()
    try:
        return int(fields[3])
    except (IndexError, ValueError):
        return None


def _works_in(pid: int, proc_root: str, directory: os.stat_result) -> bool:
    try:
        cwd = os.stat(os.path.join(proc_root, str(pid), "cwd"))
    except OSError:
        return False
    return (cwd.st_dev, cwd.st_ino) == (directory.st_dev, directory.st_ino)


def servers(roots: list[str], proc_root: str = "/proc", run_id: str | None = None, token: str = "") -> list[dict]:
    """The live fio servers of the run's job directories: each proved by its pidfile (of the run id and token, when
    given), its start time and its working directory. {pid, start, dir}."""
    found = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            if _fio_runner.PIDFILE not in files:
                continue
            try:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                record = _fio_runner.read_pidfile(fd)
                here = os.fstat(fd)
            finally:
                os.close(fd)
            if not record or (run_id and (record.get("run_id") != run_id or (token and record.get("token") != token))):
                continue
            pid = record["pid"]
            state = _hold.process_state(pid, proc_root)
            if state is None or state[0] in ("Z", "X") or state[1] != record.get("start_time") \
                    or not stat.S_ISDIR(here.st_mode) or not _works_in(pid, proc_root, here):
                continue
            found.append({"pid": pid, "start": state[1], "dir": folder})
    return found


def processes(roots: list[str], proc_root: str = "/proc", own: int | None = None, run_id: str | None = None,
              token: str = "") -> list[dict]:
    """The run's I/O processes under ``roots``: ``{pid, command, why, start}`` - each proved fio server and every
    process of its session (what it started: fio). Never this process (``own``), never a zombie."""
    own = os.getpid() if own is None else own
    proved = {s["pid"]: s for s in servers(roots, proc_root, run_id, token)}
    if not proved:
        return []
    found = []
    for entry in sorted(os.listdir(proc_root), key=lambda e: (len(e), e)):
        if not entry.isdigit() or int(entry) == own:
            continue
        pid = int(entry)
        state = _hold.process_state(pid, proc_root)
        if state is None or state[0] in ("Z", "X"):
            continue
        if pid in proved:
            why = f"the fio server of {proved[pid]['dir']}"
        elif _session(pid, proc_root) in proved:
            why = "started by the run's fio server"
        else:
            continue
        found.append({"pid": pid, "command": " ".join(_cmdline(pid, proc_root))[:300], "why": why, "start": state[1]})
    return found


def _same(entry: dict, proc_root: str) -> bool:
    """The process found is still that process, not a zombie and not another one that got its PID since."""
    state = _hold.process_state(entry["pid"], proc_root)
    return state is not None and state[0] not in ("Z", "X") and state[1] == entry.get("start", state[1])


def stop(found: list[dict], timeout: float = 10.0, kill=os.kill, proc_root: str = "/proc", sleep=time.sleep,
         clock=time.monotonic) -> list[dict]:
    """SIGTERM each process (fio ends its job and writes its output), SIGKILL what is left after ``timeout``; returns
    the ones that ended. A process counts as ended when it is gone, a zombie, or its PID belongs to another process
    now (its start time differs), which is never signalled."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        for entry in found:
            if not _same(entry, proc_root):
                continue
            try:
                kill(entry["pid"], sig)
            except ProcessLookupError:
                continue
        deadline = clock() + wait
        while clock() < deadline and any(_same(e, proc_root) for e in found):
            sleep(0.05)
        if not any(_same(e, proc_root) for e in found):
            break
    return [entry for entry in found if not _same(entry, proc_root)]
