# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A run's exclusive hold on a drive: a small detached process that keeps the device open with O_EXCL from the guard
to the end of the drive's tests, and a lock file that names it.

While the holder has its exclusive open, the kernel refuses every other exclusive claim on the device and on its
partitions - mount, mkfs, mdadm, swapon, another run's holder - while plain opens (fio's, nvme-cli's, smartctl's)
still work. So "nothing else uses this drive" stays true between fio's job sections, when no fio has it open.

The holder is a process of its own (``python3 -I -S -c <bootstrap> fleetqual-pts-hold DEVICE MAJ:MIN RUN_ID LOCK
RETRY_S TOKEN``), detached from the module and the SSH session, and releases on SIGTERM. Its lock file
(``/run/fleetqual-pts/hold-<major>-<minor>.json``, root-only) names the run id, the run token, the PID, its start time
and the device. The process is the truth and the lock file its label: a holder is *ours* only when the process is
alive, its command line is a holder's for that device, run id and run token, it has the device open and the lock file
names it.

A run id is a name an operator chooses, and two controllers (or two results trees on one controller) can use the
same one at the same time against one host. The run token (random, kept in the run's results directory, see
plugin_utils/_run_lock.py) tells them apart: a holder is one run's only when both match, so one run's release or
takeover never touches another's holder of the same run id.

Every function takes the lock directory and the procfs root as arguments so unit tests can fake them.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import select
import signal
import stat
import sys
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._holder_program import HOLDER_SOURCE

LOCK_DIR = "/run/fleetqual-pts"
MARKER = "fleetqual-pts-hold"
LOCK_FORMAT = "fleetqual.pts drive hold 1"
# The holder reads its program from stdin, so its command line stays short and readable in ps.
BOOTSTRAP = "import sys;exec(sys.stdin.read())"
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0
# Another run's guard probes the device with a read-only exclusive open that lasts microseconds; a holder starting at
# that moment tries again for this long before it calls the device claimed.
BUSY_RETRY_S = 1.0
_LOCK_RE = re.compile(r"^hold-(\d+)-(\d+)\.json$")


class HoldError(PtsError):
    """A hold cannot be taken, proved or released; the message says why and what to do."""


def _stat(path: str) -> os.stat_result:
    """os.stat, in one place so unit tests can give fake fd links a block device's mode and number."""
    return os.stat(path)


def _read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def lock_path(devnum: str, lock_dir: str = LOCK_DIR) -> str:
    major, dummy, minor = devnum.partition(":")
    return os.path.join(lock_dir, f"hold-{major}-{minor}.json")


def process_state(pid: int, proc_root: str = "/proc") -> tuple[str, int] | None:
    """(state letter, start time in clock ticks since boot) of a process, or None when there is none."""
    raw = _read_bytes(os.path.join(proc_root, str(pid), "stat"))
    if not raw or b")" not in raw:
        return None
    fields = raw.rsplit(b")", 1)[1].split()
    try:
        return fields[0].decode("ascii", "replace"), int(fields[19])
    except (IndexError, ValueError):
        return None


def alive(pid: int, proc_root: str = "/proc") -> bool:
    """A running process: one that exists and is not a zombie (an exited holder has closed its device already)."""
    state = process_state(pid, proc_root)
    return state is not None and state[0] not in ("Z", "X")


def command_name(pid: int, proc_root: str = "/proc") -> str:
    raw = _read_bytes(os.path.join(proc_root, str(pid), "comm"))
    return raw.decode("utf-8", "replace").strip() if raw else "?"


def holder_args(pid: int, proc_root: str = "/proc") -> dict | None:
    """What a holder's command line says it holds (device, devnum, run id, lock file, run token), or None for any
    other process."""
    raw = _read_bytes(os.path.join(proc_root, str(pid), "cmdline"))
    if not raw:
        return None
    parts = [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0")]
    for index, part in enumerate(parts):
        if part == MARKER and index >= 2 and parts[index - 1] == BOOTSTRAP and parts[index - 2] == "-c" \
                and len(parts) > index + 4:
            device, devnum, run_id, lock = parts[index + 1:index + 5]
            token = parts[index + 6] if len(parts) > index + 6 else ""
            return {"pid": pid, "device": device, "devnum": devnum, "run_id": run_id, "lock": lock, "token": token}
    return None


def holds_devnum(pid: int, devnum: str, proc_root: str = "/proc") -> bool:
    """Does the process have the block device ``devnum`` (major:minor) open?"""
    fd_dir = os.path.join(proc_root, str(pid), "fd")
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return False
    for fd in fds:
        try:
            st = _stat(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if stat.S_ISBLK(st.st_mode) and f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" == devnum:
            return True
    return False


def _claimants(proc_root: str) -> list[dict]:
    """Every running process with a holder's command line, holding what it names or not."""
    found = []
    try:
        pids = sorted(int(p) for p in os.listdir(proc_root) if p.isdigit())
    except OSError:
        return found
    for pid in pids:
        args = holder_args(pid, proc_root)
        if args and alive(pid, proc_root):
            found.append(args)
    return found


def holder_processes(proc_root: str = "/proc") -> list[dict]:
    """Every running holder on the host: a process with a holder's command line that has the device it names open (a
    holder whose lock file is gone is still found). Any local user can start a process with that command line; one
    that does not have the device open holds nothing (see pretenders())."""
    return [args for args in _claimants(proc_root) if holds_devnum(args["pid"], args["devnum"], proc_root)]


def pretenders(proc_root: str = "/proc") -> list[dict]:
    """The processes with a holder's command line that do not have the device it names open: no holders at all."""
    return [args for args in _claimants(proc_root) if not holds_devnum(args["pid"], args["devnum"], proc_root)]


def proof_problem(holder: dict, lock_dir: str = LOCK_DIR, proc_root: str = "/proc") -> str | None:
    """Why a process with a holder's command line (holder_args()) is not proved to be the holder of the run it names,
    or None when it is: alive, the device open, and the lock file - root's own, in a directory only root can write -
    naming it with that run id and run token. The command line alone proves nothing: anyone can start one."""
    return holder_problem(holder["pid"], holder["devnum"], holder["run_id"], lock_dir, proc_root,
                          token=holder.get("token") or "")


def read_lock(path: str) -> tuple[dict | None, str | None]:
    """A lock file's record, or (None, why it is not a lock file this collection wrote)."""
    raw = _read_bytes(path)
    if raw is None:
        return None, "does not exist or cannot be read"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "is not JSON"
    if not isinstance(data, dict) or data.get("format") != LOCK_FORMAT:
        return None, f"is not a {LOCK_FORMAT!r} record"
    pid, run_id, devnum = data.get("pid"), data.get("run_id"), data.get("devnum")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or not isinstance(run_id, str) or not run_id \
            or not isinstance(devnum, str):
        return None, "lacks a valid pid, run_id or devnum"
    match = _LOCK_RE.match(os.path.basename(path))
    if match and devnum != f"{match.group(1)}:{match.group(2)}":
        return None, f"names device {devnum}, not the one in its file name"
    return data, None


def token_id(token: str | None) -> str:
    """What the controller and the job's output know of a run token: the first 16 hex digits of its SHA-256. It tells
    two runs of one run id apart in a message or an expectation, and authorizes nothing (a release or a takeover needs
    the token itself, which stays on the host and in the run's results directory)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16] if token else ""


def same_run(holder: dict, run_id: str, token: str) -> bool:
    """Is this holder (holder_args() or a lock record) one of run ``run_id`` with run token ``token``?"""
    return holder.get("run_id") == run_id and (holder.get("token") or "") == (token or "")


def owner_words(holder: dict, run_id: str | None = None, token: str | None = None) -> str:
    """Whose holder it is, for a message: "run X", or, for the same run id with another token, another run of it."""
    if run_id is not None and holder.get("run_id") == run_id and (holder.get("token") or "") != (token or ""):
        return (f"another run of the same run id {holder['run_id']} (run token id "
                f"{token_id(holder.get('token')) or 'none'}, not {token_id(token) or 'none'}: results in another "
                "directory or on another controller)")
    return f"run {holder.get('run_id')}"


def holder_problem(pid: int, devnum: str, run_id: str, lock_dir: str = LOCK_DIR, proc_root: str = "/proc",
                   start_time: int | None = None, token: str = "") -> str | None:
    """Why process ``pid`` is not the holder of ``devnum`` for run ``run_id`` with run token ``token``, or None when
    it is (alive, a holder's command line for that device, run id and token, the device open, the lock file naming
    it)."""
    state = process_state(pid, proc_root)
    if state is None or state[0] in ("Z", "X"):
        return f"process {pid} is not running"
    if start_time is not None and state[1] != start_time:
        return f"process {pid} is another process than the holder (it started at another time)"
    args = holder_args(pid, proc_root)
    if args is None:
        return f"process {pid} ({command_name(pid, proc_root)}) is not a drive holder"
    if args["devnum"] != devnum:
        return f"process {pid} holds device {args['devnum']}, not {devnum}"
    if args["run_id"] != run_id:
        return f"process {pid} holds it for run {args['run_id']}, not run {run_id}"
    if not same_run(args, run_id, token):
        return f"process {pid} holds it for {owner_words(args, run_id, token)}"
    if not holds_devnum(pid, devnum, proc_root):
        return f"process {pid} no longer has device {devnum} open"
    path = lock_path(devnum, lock_dir)
    lock, error = read_lock(path)
    if error:
        return f"its lock file {path} {error}"
    if lock["pid"] != pid or not same_run(lock, run_id, token):
        return f"its lock file {path} names process {lock['pid']} of {owner_words(lock, run_id, token)}"
    if lock.get("start_time") is not None and lock["start_time"] != state[1]:
        return f"its lock file {path} names an earlier process {pid}"
    return None


def verify(hold: dict, devnum: str | None, lock_dir: str = LOCK_DIR, proc_root: str = "/proc") -> str | None:
    """Is the hold a guard record carries (pid, run_id, token, devnum, start_time) still alive, ours, and on the
    device?"""
    if not isinstance(hold, dict) or not isinstance(hold.get("pid"), int) or not hold.get("run_id"):
        return "the guard's record of the hold is incomplete (no pid or run id)"
    want = hold.get("devnum") or devnum
    if devnum and want != devnum:
        return f"the hold is on device {want}, the guard passed {devnum}"
    return holder_problem(hold["pid"], want, hold["run_id"], lock_dir, proc_root, hold.get("start_time"),
                          hold.get("token") or "")


def scan_locks(lock_dir: str = LOCK_DIR, proc_root: str = "/proc") -> list[dict]:
    """Every lock file in the directory, judged: ``live`` when its holder is alive and ours, else ``why`` not."""
    try:
        names = sorted(os.listdir(lock_dir))
    except OSError:
        return []
    found = []
    for name in names:
        match = _LOCK_RE.match(name)
        if not match:
            continue
        path = os.path.join(lock_dir, name)
        devnum = f"{match.group(1)}:{match.group(2)}"
        data, error = read_lock(path)
        if error:
            found.append({"lock": path, "devnum": devnum, "run_id": None, "token": None, "pid": None, "device": None,
                          "live": False,
                          "why": f"the lock file {error}"})
            continue
        token = data.get("token") or ""
        why = holder_problem(data["pid"], devnum, data["run_id"], lock_dir, proc_root, data.get("start_time"), token)
        found.append({"lock": path, "devnum": devnum, "run_id": data["run_id"], "token": token, "pid": data["pid"],
                      "device": data.get("device"), "live": why is None, "why": why})
    return found


class _DirLock:
    """flock() on the lock directory: holders write and remove their lock files under it, and stale ones are judged
    and removed under it, so a lock a new holder has just written is never removed as its predecessor's."""

    def __init__(self, lock_dir: str):
        self.lock_dir = lock_dir
        self.fd: int | None = None

    def __enter__(self):
        try:
            self.fd = os.open(self.lock_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


def remove_stale(lock_dir: str = LOCK_DIR, proc_root: str = "/proc", run_id: str | None = None,
                 devnum: str | None = None, token: str = "") -> list[dict]:
    """Remove the lock files whose holder is gone (optionally only those of one run - run id and token - or one
    device), each judged again under the directory lock; returns them with why each was stale."""
    removed = []
    with _DirLock(lock_dir):
        for entry in scan_locks(lock_dir, proc_root):
            if entry["live"] or (run_id and not same_run(entry, run_id, token)) or (devnum and entry["devnum"] != devnum):
                continue
            try:
                os.unlink(entry["lock"])
            except FileNotFoundError:
                continue
            removed.append(entry)
    return removed


def stale_words(entry: dict) -> str:
    who = f" of run {entry['run_id']}, process {entry['pid']}" if entry.get("pid") else ""
    return f"stale hold lock {entry['lock']}{who} (device {entry['devnum']}): {entry['why']}"


def ensure_lock_dir(lock_dir: str = LOCK_DIR) -> None:
    """The lock directory: root's own (0700), a real directory, not a link someone planted."""
    os.makedirs(lock_dir, mode=0o700, exist_ok=True)
    st = os.lstat(lock_dir)
    if not stat.S_ISDIR(st.st_mode):
        raise HoldError(f"{lock_dir} is not a directory: remove it, it is where drive holds are recorded")
    if st.st_uid != os.geteuid():
        raise HoldError(f"{lock_dir} belongs to uid {st.st_uid}, not to uid {os.geteuid()}: refused for hold locks")
    os.chmod(lock_dir, 0o700)


def release_words(pid: int, run_id: str) -> str:
    return (f"if run {run_id} is gone, resume it with the same run id (pts_run_id={run_id}) to finish and release the "
            f"drive, or release it as root on this host with `kill {pid}`")


def start(device: str, devnum: str, run_id: str, lock_dir: str = LOCK_DIR, python: str | None = None,
          timeout: float = START_TIMEOUT_S, retry_s: float = BUSY_RETRY_S, proc_root: str = "/proc",
          token: str = "") -> dict:
    """Start a holder of ``device`` for ``run_id`` (and its run token) and return once it has the exclusive open and
    its lock file is written: {pid, start_time, lock, run_id, token, devnum, device, since}. Raises HoldError with the
    reason otherwise.

    Detached as ansible's async_wrapper does it: fork, setsid, fork again, no file descriptor of the module or the
    SSH session kept, working directory /, so neither the module's exit nor the session's end touches it.
    """
    python = python or sys.executable
    ensure_lock_dir(lock_dir)
    lock = lock_path(devnum, lock_dir)
    argv = [python, "-I", "-S", "-c", BOOTSTRAP, MARKER, device, devnum, run_id, lock, str(retry_s), token or ""]
    source_r, source_w = os.pipe()
    # The program is far below a pipe's buffer, so it is written whole before anything reads it.
    os.write(source_w, HOLDER_SOURCE.encode("utf-8"))
    os.close(source_w)
    ready_r, ready_w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked children only
        try:
            os.setsid()
            if os.fork():
                os._exit(0)
            os.chdir("/")
            os.umask(0o077)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(source_r, 0)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.dup2(ready_w, 3)
            os.closerange(4, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
            os.execv(python, argv)
        finally:
            os._exit(127)
    os.close(source_r)
    os.close(ready_w)
    try:
        os.waitpid(child, 0)
        answer, timed_out = _read_answer(ready_r, timeout)
    finally:
        os.close(ready_r)
    words, dummy, rest = answer.partition(" ")
    if words == "ready" and rest.strip().isdigit():
        pid = int(rest.strip())
        record, dummy = read_lock(lock)
        state = process_state(pid, proc_root)
        return {"pid": pid, "start_time": state[1] if state else None, "lock": lock, "run_id": run_id,
                "token": token or "", "devnum": devnum, "device": device, "since": (record or {}).get("since")}
    if words == "error":
        pid_text, dummy, rest = rest.partition(" ")
        number, dummy, text = rest.partition(" ")
        _wait_gone(int(pid_text) if pid_text.isdigit() else 0, proc_root)
        if number == str(errno.EBUSY):
            raise HoldError("the kernel refuses the exclusive open (EBUSY): something else claims the device - it is "
                            "mounted, part of an md, device-mapper or LVM device, active swap, or another process has "
                            "it open exclusively")
        raise HoldError(f"the holder could not hold it: {text or 'unknown error'}")
    if timed_out:
        # Whatever it is doing, a holder that did not answer in time is not one this run can rely on.
        for holder in holder_processes(proc_root):
            if holder["devnum"] == devnum and same_run(holder, run_id, token) and holder["lock"] == lock:
                stop(holder["pid"], devnum, lock_dir, proc_root)
        raise HoldError(f"the holder did not report within {timeout:g} s and was stopped")
    raise HoldError(f"the holder ended without holding it (it answered {answer!r}); is {python} a working Python 3?")


def take(path: str, devnum: str, run_id: str, token: str = "", timeout: float = START_TIMEOUT_S,
         lock_dir: str = LOCK_DIR, proc_root: str = "/proc") -> dict:
    """Hold ``devnum`` (node ``path``) for run ``run_id`` with ``token``: a proved holder of this run (a resumed run's)
    is replaced, another run's holder - or a process that only looks like one - is a HoldError naming it. Returns
    {hold (see start()), took_over, ignored (processes with a holder's command line that hold nothing), removed}."""
    result: dict = {"ignored": [p for p in pretenders(proc_root) if p["devnum"] == devnum], "took_over": None,
                    "removed": []}
    mine = []
    for holder in holder_processes(proc_root):
        if holder["devnum"] != devnum:
            continue
        pid = holder["pid"]
        if not same_run(holder, run_id, token):
            unproved = holder_problem(pid, devnum, holder["run_id"], lock_dir, proc_root, token=holder.get("token") or "")
            if unproved:
                raise HoldError(f"process {pid} has it open, with a drive holder's command line for run "
                                f"{holder['run_id']}, but it is not one ({unproved}): something else uses the drive")
            raise HoldError(f"held for {owner_words(holder, run_id, token)} by its drive holder, process {pid} (lock "
                            f"file {holder['lock']}); {release_words(pid, holder['run_id'])}")
        problem = holder_problem(pid, devnum, run_id, lock_dir, proc_root, token=token)
        if problem:
            raise HoldError(f"a drive holder of this run ({run_id}), process {pid}, is not proved to be this run's: "
                            f"{problem}; release it as root on this host with `kill {pid}`")
        mine.append(holder)
    for holder in mine:
        stop(holder["pid"], devnum, lock_dir, proc_root, timeout)
    result["took_over"] = mine[0] if mine else None
    result["removed"] = remove_stale(lock_dir, proc_root, devnum=devnum)
    result["hold"] = start(path, devnum, run_id, lock_dir, timeout=timeout, proc_root=proc_root, token=token)
    return result


def _wait_gone(pid: int, proc_root: str, timeout: float = 2.0) -> None:
    """A holder that failed exits right after its answer; the caller returns once it has."""
    deadline = time.monotonic() + timeout
    while pid and alive(pid, proc_root) and time.monotonic() < deadline:
        time.sleep(0.01)


def _read_answer(fd: int, timeout: float) -> tuple[str, bool]:
    """The holder's one line, and whether it timed out before the pipe closed."""
    deadline = time.monotonic() + timeout
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return data.decode("utf-8", "replace").strip(), True
        ready, dummy, dummy_x = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return data.decode("utf-8", "replace").strip(), False
        data += chunk


def stop(pid: int, devnum: str, lock_dir: str = LOCK_DIR, proc_root: str = "/proc", timeout: float = STOP_TIMEOUT_S,
         kill=os.kill, sleep=time.sleep, clock=time.monotonic) -> None:
    """SIGTERM a holder (it closes the device and removes its lock file), SIGKILL it if it does not end in time, and
    remove its lock file if it is still there. Returns once the process no longer runs; raises HoldError if it does."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            kill(pid, sig)
        except ProcessLookupError:
            break
        deadline = clock() + wait
        while alive(pid, proc_root) and clock() < deadline:
            sleep(0.02)
        if not alive(pid, proc_root):
            break
    if alive(pid, proc_root):
        raise HoldError(f"holder process {pid} of device {devnum} did not end after SIGTERM and SIGKILL")
    path = lock_path(devnum, lock_dir)
    with _DirLock(lock_dir):
        lock, error = read_lock(path)
        if not error and lock["pid"] == pid:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def release(run_id: str, devnum: str | None = None, pid: int | None = None, lock_dir: str = LOCK_DIR,
            proc_root: str = "/proc", timeout: float = STOP_TIMEOUT_S, check_mode: bool = False, kill=os.kill,
            token: str = "") -> dict:
    """Stop the holders of run ``run_id`` with run token ``token`` (of one device, and only process ``pid``, when
    given) and remove their stale lock files. Other holders - another run's, or another run's of the same run id - are
    left alone and, for one device, listed. Returns {stopped, removed, others}."""
    result: dict = {"stopped": [], "removed": [], "others": []}
    for holder in holder_processes(proc_root):
        if devnum and holder["devnum"] != devnum:
            continue
        if not same_run(holder, run_id, token) or (pid and holder["pid"] != pid):
            if devnum:
                result["others"].append(holder)
            continue
        if not check_mode:
            stop(holder["pid"], holder["devnum"], lock_dir, proc_root, timeout, kill=kill)
        result["stopped"].append(holder)
    if check_mode:
        result["removed"] = [e for e in scan_locks(lock_dir, proc_root)
                             if not e["live"] and same_run(e, run_id, token) and (not devnum or e["devnum"] == devnum)]
    else:
        result["removed"] = remove_stale(lock_dir, proc_root, run_id=run_id, devnum=devnum, token=token)
    return result
