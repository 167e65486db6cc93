# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""At most N drive reports drawn at once on a controller: a counting semaphore of N lock files.

A report is CPU-bound (matplotlib, WeasyPrint) and takes tens of MiB while it is drawn; a homogeneous fleet ends its
tests together, and every drive's worker drawing at once would only share the cores and add up the memory. So each
draw first takes one of N slots - ``slot-0`` ... ``slot-<N-1>``, files in a directory only the controller's user can
write (root: ``/run/fleetqual-pts/report-slots``) - with ``flock(LOCK_EX | LOCK_NB)``; when every slot is taken, it
waits and tries again. The lock belongs to the open file: it holds across the workers of one ansible-playbook and
across job slices (other ansible-playbook processes) sharing the controller, it passes to a child forked while it is
held, and the kernel drops it when the last process holding it ends - a killed worker leaves no slot taken, and there
is nothing to clean up. Waiters are not served in order: each tries every POLL_S seconds.
"""

from __future__ import annotations

import errno
import fcntl
import math
import os
import stat
import tempfile
import time
from collections.abc import Callable

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError, PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path

ROOT_DIR = "/run/fleetqual-pts/report-slots"
POLL_S = 0.2
# A larger value is taken as a mistake (a drive count, a byte size) rather than a plan: more slots than this never
# help on one controller.
MAX_SLOTS = 1024


class SlotError(PtsError):
    """The slot directory cannot be made or trusted; the message says which and why."""


def cpu_max(text: str | None) -> float | None:
    """The cores a cgroup v2 ``cpu.max`` (``"<quota> <period>"`` or ``"max <period>"``) allows, None when unlimited or
    unreadable."""
    parts = (text or "").split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    try:
        quota, period = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def usable_cores(affinity: int | None = None, quotas: list[float | None] | None = None) -> int:
    """The cores this process may use: the CPUs it may run on (``affinity``), fewer when a cgroup limits its CPU time
    (``quotas``: each level's cpu.max, as cpu_max reads it); at least 1."""
    if affinity is None:
        affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if quotas is None:
        quotas = _cgroup_quotas()
    limits = [math.ceil(q) for q in quotas if q]
    return max(1, min([int(affinity)] + limits))


def _cgroup_quotas(proc: str = "/proc/self/cgroup", mount: str = "/sys/fs/cgroup") -> list[float | None]:
    """cpu.max of this process's cgroup (v2) and of each cgroup above it; [] where none can be read."""
    try:
        with open(proc, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    path = next((line[3:] for line in lines if line.startswith("0::")), None)
    if path is None:
        return []
    found = []
    parts = [p for p in path.split("/") if p and p not in (".", "..")]
    for depth in range(len(parts), -1, -1):
        try:
            with open(os.path.join(mount, *parts[:depth], "cpu.max"), encoding="utf-8") as handle:
                found.append(cpu_max(handle.read()))
        except OSError:
            continue
    return found


def slot_count(value: object, cores: Callable[[], int] = usable_cores) -> int:
    """The number of report slots from ``pts_report_concurrency``: 0 or unset is the controller's usable cores.
    ValueError for anything but a whole number from 0 to MAX_SLOTS."""
    if value is None or value == "":
        return cores()
    text = str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_SLOTS:
        raise InputError(f"pts_report_concurrency={value!r}: give how many reports may be drawn at once, a whole "
                         f"number from 1 to {MAX_SLOTS}, or 0 for the controller's usable cores")
    return int(text) or cores()


def default_dir(euid: int | None = None, environ: dict | None = None) -> str:
    """Where the slots live: root's under /run (the host side's lock directory, /run/fleetqual-pts); another user's
    in its runtime directory, else in the temporary directory under a name of its own."""
    euid = os.geteuid() if euid is None else euid
    environ = os.environ if environ is None else environ
    if euid == 0:
        return ROOT_DIR
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "fleetqual-pts", "report-slots")
    return os.path.join(tempfile.gettempdir(), f"fleetqual-pts-{euid}", "report-slots")


def open_dir(path: str) -> int:
    """An O_PATH fd of the slot directory, made (0700) where missing, every level opened from the one above it with no
    link followed; refused when it is not this user's own and private (another user could take or fake slots)."""
    try:
        fd = _safe_path.walk(path, create=True, strict=True, mode=0o700)
    except OSError as exc:
        raise SlotError(f"report slots: {exc}") from None
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
        os.close(fd)
        raise SlotError(f"report slots: {path} must be uid {os.geteuid()}'s own with mode 0700 (it is uid {st.st_uid}'s, "
                        f"mode {oct(stat.S_IMODE(st.st_mode))}): fix or remove it")
    return fd


class Held:
    """A slot taken: its number, how long it was waited for, and its lock (released by release() or when the last
    process holding the open file ends)."""

    def __init__(self, fd: int, number: int, waited_s: float):
        self.fd: int | None = fd
        self.number = number
        self.waited_s = waited_s

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the last fd of the open file drops its flock
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


class Slots:
    """``count`` report slots in ``path``."""

    def __init__(self, count: int, path: str | None = None):
        if count < 1:
            raise ValueError(f"report slots: {count} is not a number of slots")
        self.count = count
        self.path = default_dir() if path is None else path

    def _try(self, dir_fd: int, number: int) -> int | None:
        name = f"slot-{number}"
        fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600, dir_fd=dir_fd)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            os.close(fd)
            raise SlotError(f"report slots: {os.path.join(self.path, name)} is not a regular file of uid "
                            f"{os.geteuid()}: remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return None
            raise
        return fd

    def try_take(self) -> Held | None:
        """A free slot, or None when every one is taken (never waits)."""
        dir_fd = open_dir(self.path)
        try:
            for number in range(self.count):
                fd = self._try(dir_fd, number)
                if fd is not None:
                    return Held(fd, number, 0.0)
            return None
        finally:
            os.close(dir_fd)

    def take(self, on_wait: Callable[[], None] | None = None, poll: float = POLL_S,
             clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> Held:
        """A slot, waiting for one while all are taken; ``on_wait`` is called once, when the wait starts."""
        started = clock()
        waiting = False
        while True:
            held = self.try_take()
            if held is not None:
                held.waited_s = clock() - started if waiting else 0.0
                return held
            if not waiting and on_wait is not None:
                on_wait()
            waiting = True
            sleep(poll)
