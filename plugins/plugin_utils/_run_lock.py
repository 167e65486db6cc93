# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The controller-side locks on a run directory (results/<run-id>/): one live ansible-playbook per run id and host.

Each host of a run is locked apart (``.pts-host-<host>.lock``), so the slices of a sliced job - several
ansible-playbook processes, each with its own hosts - may share one run id and one results tree, while two processes
that would write the same host's results cannot; a lock without a host (``.pts-run.lock``) covers the whole run.

The lock is a JSON file naming its owner - the ansible-playbook main process: PID, start time (field 22 of
/proc/PID/stat, clock ticks since boot), boot id and controller host name - written atomically. An owner is alive
when a process with that PID exists on this controller, in this boot, with that start time; a PID the kernel
reused for another process, a process that ended, or a reboot makes the lock stale, and the next run takes it over
and says so. A lock held by another controller (a shared results tree) cannot be checked from here and is honoured.
Every read-judge-write is done under flock() on the run directory itself, so two runs starting together cannot
both take the lock.

The run directory also keeps the run's token (.pts-run-token, random, written once): the drive holders on the
hosts carry it beside the run id. A run id is a name, and another results tree or controller may choose the same
one at the same time; the token is what makes a holder this run's - one that a resume of this very run directory may
take over or release, and no other run of that id.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import re
import secrets
import socket
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError, PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree

LOCK_FILE = ".pts-run.lock"
TOKEN_FILE = ".pts-run-token"
_TOKEN_RE = re.compile(r"^[0-9a-f]{32}$")


class RunLocked(PtsError, ValueError):
    """Another live ansible-playbook holds the run (or its lock cannot be judged); the message says who."""


def lock_path(run_dir: str, host: str | None = None) -> str:
    if host is None:
        return os.path.join(run_dir, LOCK_FILE)
    return os.path.join(run_dir, f".pts-host-{_results.safe_name(host)}.lock")


def host_locks(run_dir: str) -> dict[str, dict]:
    """Every host lock of a run, by the host directory it covers: its owner record (unreadable ones left out)."""
    found = {}
    try:
        names = _safe_tree.listdir(run_dir)
    except FileNotFoundError:
        return found
    for name in names:
        if name.startswith(".pts-host-") and name.endswith(".lock"):
            try:
                record = json.loads(_read_tree(os.path.join(run_dir, name)) or "")
            except ValueError:
                continue
            if isinstance(record, dict):
                found[name[len(".pts-host-"):-len(".lock")]] = record
    return found


# A lock or token file is a few hundred bytes.
_MAX_LOCK_BYTES = 64 << 10


def _read_tree(path: str) -> str | None:
    """A lock or token file of the results tree (read as plugin_utils/_safe_tree reads), None when it is missing."""
    try:
        return _safe_tree.read_text(path, _MAX_LOCK_BYTES)
    except FileNotFoundError:
        return None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def process_start(pid: int, proc_root: str = "/proc") -> int | None:
    """Field 22 of /proc/PID/stat (starttime), or None when there is no such process."""
    text = _read(os.path.join(proc_root, str(pid), "stat"))
    if not text or ")" not in text:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and ")": split after the last one.
    fields = text[text.rindex(")") + 1:].split()
    try:
        return int(fields[19])  # fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return None


def boot_id(proc_root: str = "/proc") -> str | None:
    text = _read(os.path.join(proc_root, "sys", "kernel", "random", "boot_id"))
    return text.strip() if text else None


def command_line(pid: int, proc_root: str = "/proc") -> str:
    """The program and its playbooks ("ansible-playbook playbooks/pts.yml"): enough to recognise the run, and never
    its other arguments, which may carry extra variables with secrets."""
    parts = [part for part in (_read(os.path.join(proc_root, str(pid), "cmdline")) or "").split("\0") if part]
    program = next((os.path.basename(p) for p in parts if os.path.basename(p).startswith("ansible")),
                   os.path.basename(parts[0]) if parts else "")
    # Positional arguments only: the value after an option (-i inventory.yml, -e @vars.yml) is not a playbook.
    playbooks = [p for i, p in enumerate(parts) if p.endswith((".yml", ".yaml")) and not p.startswith(("-", "@"))
                 and not (i and parts[i - 1].startswith("-") and "=" not in parts[i - 1])]
    return " ".join([program] + playbooks)[:500].strip()


def owner_record(pid: int, run_id: str, proc_root: str = "/proc", hostname: str | None = None) -> dict:
    """Who holds the lock: enough to tell later whether that very process still runs."""
    return {
        "pid": pid,
        "start_time": process_start(pid, proc_root),
        "boot_id": boot_id(proc_root),
        "controller": hostname or socket.gethostname(),
        "command": command_line(pid, proc_root),
        "run_id": run_id,
        "user": os.environ.get("USER") or str(os.getuid()),
        "acquired_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def same_owner(record: dict, pid: int, proc_root: str = "/proc", hostname: str | None = None) -> bool:
    """Is ``record`` this very process (not merely one with the same PID)?"""
    return (record.get("pid") == pid and record.get("controller") == (hostname or socket.gethostname())
            and record.get("boot_id") == boot_id(proc_root) and record.get("start_time") is not None
            and record.get("start_time") == process_start(pid, proc_root))


def liveness(record: dict, proc_root: str = "/proc", hostname: str | None = None) -> tuple[bool, str]:
    """Whether the lock's owner still runs, and why it is judged so."""
    pid = record.get("pid")
    if record.get("controller") != (hostname or socket.gethostname()):
        return True, f"it was taken on controller {record.get('controller')}, whose processes cannot be checked from here"
    if not isinstance(pid, int) or isinstance(pid, bool):
        return False, "it names no PID"
    if record.get("boot_id") != boot_id(proc_root):
        return False, f"PID {pid} ran before this controller last booted"
    started = process_start(pid, proc_root)
    if started is None:
        return False, f"PID {pid} is no longer running"
    if started != record.get("start_time"):
        return False, f"PID {pid} is now another process (started at tick {started}, the owner at {record.get('start_time')})"
    return True, f"PID {pid} is still running"


def describe(record: dict) -> str:
    command = f" ({record['command']})" if record.get("command") else ""
    return (f"ansible-playbook PID {record.get('pid')} on {record.get('controller')}{command}, run "
            f"{record.get('run_id')} since {record.get('acquired_at')}")


def read(run_dir: str, host: str | None = None) -> dict | None:
    """The lock's owner record, None when there is no lock; ValueError when the file is not a lock."""
    try:
        text = _read_tree(lock_path(run_dir, host))
    except ValueError as exc:
        raise DataError(f"{lock_path(run_dir, host)} is not a run lock this collection wrote: {exc}") from None
    if text is None:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    if not isinstance(record, dict):
        raise DataError(f"{lock_path(run_dir, host)} is not a run lock this collection wrote")
    return record


def _write(run_dir: str, record: dict, host: str | None = None) -> None:
    _results.atomic_write_text(lock_path(run_dir, host), json.dumps(record, indent=2, sort_keys=True) + "\n",
                               shared=False)


def refuse_link(run_dir: str, run_id: str) -> None:
    """RunLocked when the run directory is a symbolic link (or anything but a directory): a link planted as
    results/<run id> would take the run's lock, token and results into another tree."""
    try:
        st = os.lstat(run_dir)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise RunLocked(f"the run directory of run {run_id}, {run_dir}, is a symbolic link (to "
                        f"{os.readlink(run_dir)!r}): refused, a run writes its lock and results only into a directory "
                        "of its own under the results root. Remove the link (or move the results it points to there), "
                        "or give this run another pts_run_id. Nothing was written")
    if not stat.S_ISDIR(st.st_mode):
        raise RunLocked(f"the run directory of run {run_id}, {run_dir}, is not a directory: refused. Remove it or "
                        "give this run another pts_run_id. Nothing was written")


class _DirLock:
    """flock() on the run directory for one read-judge-write; released when the block ends."""

    def __init__(self, run_dir: str):
        # Walked by fds from / (plugin_utils/_safe_tree): a link swapped in after refuse_link() is not followed either.
        with _safe_tree.directory(run_dir) as fd:
            self._fd = _safe_path.reopen(fd)

    def __enter__(self):
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)


def _judge(run_dir: str, run_id: str, pid: int, proc_root: str, hostname: str | None,
           host: str | None = None) -> tuple[str, dict | None, str]:
    """("own", "free", "stale") with the record found and why; RunLocked for a live or unreadable lock."""
    try:
        record = read(run_dir, host)
    except ValueError as exc:
        raise RunLocked(f"run {run_id} cannot be locked: {exc}; if no other run of this id is going on, delete it and "
                        "run again. Nothing was written") from None
    if record is None:
        return "free", None, ""
    if same_owner(record, pid, proc_root, hostname):
        return "own", record, ""
    alive, why = liveness(record, proc_root, hostname)
    if alive:
        what = f"run {run_id}" if host is None else f"host {host} of run {run_id}"
        raise RunLocked(f"{what} is in use by {describe(record)}: {why}. Two runs of one run id would overwrite "
                        f"each other's results: wait for it to end, or give this run another pts_run_id. If that run "
                        f"is gone, delete {lock_path(run_dir, host)}. Nothing was written")
    return "stale", record, why


def _token(run_dir: str, create: bool) -> str | None:
    """The run's token from .pts-run-token, written (atomically, once) when it is missing and ``create``."""
    path = os.path.join(run_dir, TOKEN_FILE)
    try:
        text = _read_tree(path)
    except ValueError:
        text = ""
    if text is not None:
        token = text.strip()
        if not _TOKEN_RE.match(token):
            raise RunLocked(f"{path} is not a run token this collection wrote (32 hex digits): if it was edited, "
                            f"restore it; deleting it makes every drive still held for run {os.path.basename(run_dir)} "
                            "another run's. Nothing was written")
        return token
    if not create:
        return None
    token = secrets.token_hex(16)
    _results.atomic_write_text(path, token + "\n", shared=False)
    return token


def acquire(run_dir: str, run_id: str, pid: int, proc_root: str = "/proc", hostname: str | None = None,
            check_only: bool = False, host: str | None = None) -> dict:
    """Take the run's lock - of the whole run, or of its ``host`` - for the ansible-playbook process ``pid`` (or,
    with check_only, only judge it).

    Returns {"status": "acquired" | "held" (already ours) | "took_over" (a stale lock) | "free" (check_only, no
    lock or a stale one), "owner": the record now in force, "previous": the stale record, "message": what to say,
    "token": the run's token (created with the run directory; None under check_only when there is none yet),
    "leftovers": the temporary files of killed atomic writes removed from the run directory (acquired and took_over
    only)}.
    Raises RunLocked when another live run holds it.
    """
    refuse_link(run_dir, run_id)
    if check_only:
        if not _safe_tree.isdir(run_dir):
            return {"status": "free", "owner": None, "previous": None, "message": None, "token": None}
        state, record, why = _judge(run_dir, run_id, pid, proc_root, hostname, host)
        return {"status": "held" if state == "own" else "free", "owner": record if state == "own" else None,
                "previous": record if state == "stale" else None, "token": _token(run_dir, create=False),
                "message": f"a stale lock of {describe(record)} would be taken over: {why}" if state == "stale" else None}
    _safe_tree.makedirs(run_dir)
    refuse_link(run_dir, run_id)
    with _DirLock(run_dir):
        state, record, why = _judge(run_dir, run_id, pid, proc_root, hostname, host)
        if state == "own":
            return {"status": "held", "owner": record, "previous": None, "message": None,
                    "token": _token(run_dir, create=True)}
        owner = owner_record(pid, run_id, proc_root, hostname)
        if owner["start_time"] is None:
            raise RunLocked(f"run {run_id} cannot be locked: the ansible-playbook process (PID {pid}) cannot be read "
                            f"in {proc_root}. Nothing was written")
        # A new owner, under the lock: no other ansible-playbook writes what it covers (the host's directory, or the
        # whole run), and this one has not written there yet, so a temporary file of the atomic writer is a killed
        # write's, which a purge starting its test again would otherwise move into superseded/ as if it were an
        # attempt. Another host's directory may be a live job slice's, writing: it is left alone.
        covered = run_dir if host is None else os.path.join(run_dir, _results.safe_name(host))
        leftovers = _results.remove_leftovers(covered) if _safe_tree.isdir(covered) else []
        token = _token(run_dir, create=True)
        _write(run_dir, owner, host)
    if state == "stale":
        what = f"run {run_id}" if host is None else f"host {host} of run {run_id}"
        return {"status": "took_over", "owner": owner, "previous": record, "token": token, "leftovers": leftovers,
                "message": f"took over the lock of {what} from {describe(record)}: {why}"}
    return {"status": "acquired", "owner": owner, "previous": None, "message": None, "token": token,
            "leftovers": leftovers}


def release(run_dir: str, pid: int | None = None, proc_root: str = "/proc", hostname: str | None = None,
            host: str | None = None) -> bool:
    """Remove the run's lock (or its ``host``'s) if this process (``pid``, by default the caller) holds it; True when
    removed. The judge releases each host's lock of the ansible-playbook process the lock names.
    """
    pid = os.getpid() if pid is None else pid
    try:
        with _DirLock(run_dir):
            try:
                record = read(run_dir, host)
            except ValueError:
                return False
            if record is None or not same_owner(record, pid, proc_root, hostname):
                return False
            _safe_tree.unlink(lock_path(run_dir, host))
            return True
    except OSError as exc:
        # No run directory of ours there (none, or a link in its place, refused): no lock of ours to remove.
        if isinstance(exc, _safe_path.UnsafePath) or exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
            return False
        raise
