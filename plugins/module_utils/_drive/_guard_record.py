# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the guard passed, kept on the host where no play variable can reach it.

When the guard passes a drive and holds it for a run, it writes a record beside the hold's lock file
(``/run/fleetqual-pts/guard-<major>-<minor>.json``, root's own, 0600, in a 0700 directory only root can write): the
run id and token, the drive's key, the device node and its identity (major:minor, serial, WWN, loop backing file and
range), the signatures the guard saw and whether the operator allowed them, and the hold (holder PID and start time).

Every write - purge, preconditioning, a round, an md array's members, the write cache - looks the record up by the
device it is about to write (its major:minor), and writes only when the record is this run's, for this drive, with
its hold alive (see _guard.recheck). A variable, a fact or a plan can name any device; only the guard can make a
record, so only a device the guard passed in this run is ever written.
"""

from __future__ import annotations

import json
import os
import re
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold

FORMAT = "fleetqual.pts guard record 1"
_NAME_RE = re.compile(r"^guard-(\d+)-(\d+)\.json$")
# A guard record is small; anything larger is not one this collection wrote.
MAX_BYTES = 64 * 1024
# Held: the run's holder has the device open. In an array: the hold was handed to an md array this run built from it
# (md's own claim holds it); only the write cache may still be set back once the array is down.
HELD, IN_ARRAY = "held", "in_array"


class RecordError(PtsError):
    """A guard record that cannot be written or removed."""


def path_of(devnum: str, lock_dir: str = _hold.LOCK_DIR) -> str:
    major, dummy, minor = devnum.partition(":")
    return os.path.join(lock_dir, f"guard-{major}-{minor}.json")


def make(verdict: dict, hold: dict, run_id: str, token: str, allow_signatures: bool, since: str) -> dict:
    """The record of a drive the guard passed (its verdict, see pts_guard) and holds (``hold``, see _hold.start)."""
    return {
        "format": FORMAT, "run_id": run_id, "token": token or "", "key": verdict.get("key"),
        "path": verdict.get("path"), "resolved": verdict.get("resolved"), "devnum": verdict.get("devnum"),
        "serial": verdict.get("serial"), "wwn": verdict.get("wwn"), "loop": verdict.get("loop"),
        "described": list(verdict.get("described") or []),
        "signatures": [dict(s) for s in verdict.get("signatures") or []],
        "allow_signatures": bool(allow_signatures), "state": HELD, "guarded_at": since,
        "hold": {k: hold.get(k) for k in ("pid", "start_time", "run_id", "token", "devnum", "lock")},
    }


def _dir_fd(lock_dir: str) -> int:
    _hold.ensure_lock_dir(lock_dir)
    fd = os.open(lock_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
        os.close(fd)
        raise RecordError(f"{lock_dir} is not root's own 0700 directory: no guard record is written there")
    return fd


def write(record: dict, lock_dir: str = _hold.LOCK_DIR) -> str:
    """Write (replace) the record of its device, root-only, never through a link; returns its path."""
    name = os.path.basename(path_of(record["devnum"], lock_dir))
    try:
        fd = _dir_fd(lock_dir)
    except (OSError, _hold.HoldError) as exc:
        raise RecordError(f"cannot keep the guard's record in {lock_dir}: {exc}") from None
    try:
        _safe_path.write_at(fd, name, json.dumps(record, sort_keys=True).encode("utf-8"), 0o600)
    except OSError as exc:
        raise RecordError(f"cannot write the guard's record {name} in {lock_dir}: {exc.strerror}") from None
    finally:
        os.close(fd)
    return os.path.join(lock_dir, name)


def read(devnum: str, lock_dir: str = _hold.LOCK_DIR) -> tuple[dict | None, str | None]:
    """The record of device ``devnum``, or (None, why there is none this collection wrote)."""
    path = path_of(devnum, lock_dir)
    try:
        st_dir = os.lstat(lock_dir)
        if not stat.S_ISDIR(st_dir.st_mode) or st_dir.st_uid != os.geteuid() or stat.S_IMODE(st_dir.st_mode) & 0o022:
            return None, f"{lock_dir} is not the root-only directory guard records are kept in"
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, f"there is no guard record of device {devnum} on the host ({path})"
    except OSError as exc:
        return None, f"the guard record {path} cannot be read: {exc.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077 \
                or st.st_size > MAX_BYTES:
            return None, f"{path} is not a guard record the guard wrote (owner, mode, type or size)"
        raw = os.read(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, f"{path} is not JSON"
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("devnum") != devnum \
            or not isinstance(data.get("hold"), dict) or not isinstance(data.get("run_id"), str):
        return None, f"{path} is not a {FORMAT!r} record of device {devnum}"
    return data, None


def same_run(record: dict, run_id: str | None, token: str | None) -> bool:
    return bool(run_id) and record.get("run_id") == run_id and (record.get("token") or "") == (token or "")


def mark(devnum: str, state: str, run_id: str, token: str, lock_dir: str = _hold.LOCK_DIR) -> dict | None:
    """Set the state of this run's record of ``devnum`` (HELD, IN_ARRAY); None when there is no such record."""
    record, dummy = read(devnum, lock_dir)
    if record is None or not same_run(record, run_id, token):
        return None
    record["state"] = state
    write(record, lock_dir)
    return record


def remove(devnum: str, run_id: str | None = None, token: str = "", lock_dir: str = _hold.LOCK_DIR) -> bool:
    """Remove the record of ``devnum`` (only when it is run ``run_id``'s with ``token``, if given)."""
    path = path_of(devnum, lock_dir)
    if run_id is not None:
        record, dummy = read(devnum, lock_dir)
        if record is None or not same_run(record, run_id, token):
            return False
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def records(lock_dir: str = _hold.LOCK_DIR) -> list[dict]:
    """Every guard record on the host."""
    try:
        names = sorted(os.listdir(lock_dir))
    except OSError:
        return []
    found = []
    for name in names:
        match = _NAME_RE.match(name)
        if match:
            record, dummy = read(f"{match.group(1)}:{match.group(2)}", lock_dir)
            if record is not None:
                found.append(record)
    return found


def remove_run(run_id: str, token: str = "", lock_dir: str = _hold.LOCK_DIR) -> list[str]:
    """Remove every record of one run (run id and token; every token of the run id when ``token`` is empty)."""
    gone = []
    for record in records(lock_dir):
        if record["run_id"] == run_id and (not token or (record.get("token") or "") == token):
            if remove(record["devnum"], lock_dir=lock_dir):
                gone.append(record["devnum"])
    return gone


def remove_stale(lock_dir: str = _hold.LOCK_DIR, proc_root: str = "/proc") -> list[dict]:
    """Remove the records whose hold is gone, but for a member of an md array (md holds it; the record goes with the
    array); returns them."""
    gone = []
    for record in records(lock_dir):
        if record.get("state") == IN_ARRAY:
            continue
        if _hold.verify(record["hold"], record["devnum"], lock_dir, proc_root) is not None:
            if remove(record["devnum"], record["run_id"], record.get("token") or "", lock_dir):
                gone.append(record)
    return gone
