# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A run's I/O processes on a host, found by where they work: every fio a run starts (and the shell or ``timeout``
around it) names a job file under the run's own directory on the host, ``<remote_dir>/<run id>.<token>/``, and a
segment's fio server works in such a directory. Releasing a run stops them, so that a cancelled job leaves no fio
writing to a drive nobody holds any more."""

from __future__ import annotations

import os
import re
import signal
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_server

# The programs a round runs: fio, the ``timeout`` around it and the shell that starts both.
WRITERS = ("fio", "timeout", "sh", "dash", "bash")


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


def _cwd(pid: int, proc_root: str) -> str:
    try:
        return os.readlink(os.path.join(proc_root, str(pid), "cwd"))
    except OSError:
        return ""


def _status(pid: int, proc_root: str) -> dict:
    """The real uid and the parent of a process, from /proc/PID/status."""
    found = {}
    for line in _read(pid, proc_root, "status").decode("ascii", "replace").splitlines():
        key, _sep, value = line.partition(":")
        if key in ("Uid", "PPid") and value.split():
            found[key] = int(value.split()[0])
    return found


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _servers(roots: list[str]) -> set[int]:
    """The PIDs the fio servers of the run's job directories wrote into their pidfiles."""
    pids = set()
    for root in roots:
        for folder, _dirs, files in os.walk(root):
            if _fio_server.PIDFILE in files:
                try:
                    with open(os.path.join(folder, _fio_server.PIDFILE), encoding="ascii") as handle:
                        text = handle.read().strip()
                except OSError:
                    continue
                if text.isdigit():
                    pids.add(int(text))
    return pids


def processes(roots: list[str], proc_root: str = "/proc", own: int | None = None) -> list[dict]:
    """The run's I/O processes under ``roots``: ``{pid, command, why, start}``. Only processes of the user the run's
    directory belongs to, never a zombie, and only the run's own programs: a segment's fio server (named in its
    directory's pidfile and working there) and everything it started, and a fio, ``timeout`` or shell whose command
    line names the run's files or that works in the run's directory. An administrator's shell or ``tail -f`` in a
    job directory, or another user's process naming the run's paths, is not the run's."""
    own = os.getpid() if own is None else own
    owners = set()
    for root in roots:
        try:
            owners.add(os.stat(root).st_uid)
        except OSError:
            continue
    table = {}
    for entry in os.listdir(proc_root):
        if not entry.isdigit() or int(entry) == own:
            continue
        pid = int(entry)
        state = _hold.process_state(pid, proc_root)
        status = _status(pid, proc_root)
        if state is None or state[0] in ("Z", "X") or status.get("Uid") not in owners:
            continue
        table[pid] = {"pid": pid, "args": _cmdline(pid, proc_root), "cwd": _cwd(pid, proc_root),
                      "ppid": status.get("PPid"), "start": state[1]}
    servers = {pid for pid in _servers(roots) if pid in table and _under(table[pid]["cwd"], roots)}
    found = []
    for pid, proc in sorted(table.items()):
        args = proc["args"]
        ancestor, seen = proc["ppid"], set()
        while ancestor in table and ancestor not in servers and ancestor not in seen:
            seen.add(ancestor)
            ancestor = table[ancestor]["ppid"]
        program = os.path.basename(args[0]) if args else ""
        if pid in servers:
            why = "the fio server of one of the run's job directories"
        elif ancestor in servers:
            why = "started by the run's fio server"
        elif program in WRITERS and any(_under(word.split("=", 1)[-1].strip("'\""), roots)
                                        for arg in args for word in arg.split()):
            why = "its command line names the run's files"
        elif program in WRITERS and roots and _under(proc["cwd"], roots):
            why = "it works in the run's directory"
        else:
            continue
        found.append({"pid": pid, "command": " ".join(args)[:300], "why": why, "start": proc["start"]})
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
