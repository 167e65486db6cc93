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
import signal
import time


def run_dirs(remote_dir: str, run_id: str, token: str = "") -> list[str]:
    """The run's directories on the host: of that run id and token, or of every token of the run id without one."""
    try:
        names = os.listdir(remote_dir)
    except OSError:
        return []
    prefix = f"{run_id}."
    return sorted(os.path.join(remote_dir, name) for name in names
                  if name.startswith(prefix) and (not token or name == f"{run_id}.{token[:12]}"))


def _cmdline(pid: int, proc_root: str) -> list[str]:
    try:
        with open(os.path.join(proc_root, str(pid), "cmdline"), "rb") as handle:
            return [part.decode("utf-8", "replace") for part in handle.read().split(b"\0") if part]
    except OSError:
        return []


def _cwd(pid: int, proc_root: str) -> str:
    try:
        return os.readlink(os.path.join(proc_root, str(pid), "cwd"))
    except OSError:
        return ""


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def processes(roots: list[str], proc_root: str = "/proc", own: int | None = None) -> list[dict]:
    """Processes whose command line names a path under ``roots`` or whose working directory is under them:
    ``{pid, command, why}``."""
    found = []
    own = os.getpid() if own is None else own
    for entry in os.listdir(proc_root):
        if not entry.isdigit() or int(entry) == own:
            continue
        pid = int(entry)
        args = _cmdline(pid, proc_root)
        named = [a.split("=", 1)[-1] for a in args]
        if any(_under(a, roots) for a in named):
            found.append({"pid": pid, "command": " ".join(args)[:300], "why": "its command line names the run's files"})
        elif roots and _under(_cwd(pid, proc_root), roots):
            found.append({"pid": pid, "command": " ".join(args)[:300], "why": "it works in the run's directory"})
    return found


def stop(found: list[dict], timeout: float = 10.0, kill=os.kill, proc_root: str = "/proc", sleep=time.sleep,
         clock=time.monotonic) -> list[dict]:
    """SIGTERM each process (fio ends its job and writes its output), SIGKILL what is left after ``timeout``; returns
    the ones that ended."""
    ended = []
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        for entry in found:
            try:
                kill(entry["pid"], sig)
            except ProcessLookupError:
                continue
        deadline = clock() + wait
        while clock() < deadline and any(os.path.exists(os.path.join(proc_root, str(e["pid"]))) for e in found):
            sleep(0.05)
    for entry in found:
        if not os.path.exists(os.path.join(proc_root, str(entry["pid"]))):
            ended.append(entry)
    return ended
