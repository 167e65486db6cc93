# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The run's directories on the host (``pts_run_remote_dir`` and the job directories under it) hold the job files the
fio server runs as root and the outputs the controller records: nobody but the run's user may be able to change a
path to them. Every directory from ``/`` down to a job directory is checked before the first write: no symbolic link,
owned by root or the run's user, and not writable by anyone else - except an ancestor that only root owns with the
sticky bit (``/tmp``), where others may add entries but not rename or remove this run's. The directories the run makes
are 0700 at every level, and checked again once made, so a directory another user made first is refused."""

from __future__ import annotations

import os
import stat


class RemoteDirError(Exception):
    """A directory on the way to the run's files that someone else could change."""


def _refusal(path: str, st: os.stat_result, euid: int, own: bool) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link (-> {os.readlink(path)}): give the real path"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    owners = (euid,) if own else (0, euid)
    if st.st_uid not in owners:
        return f"{path} belongs to uid {st.st_uid}, not to uid {euid}" + ("" if own else " or root")
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable and (own or not (st.st_mode & stat.S_ISVTX and st.st_uid == 0)):
        return f"{path} can be written by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def ensure(path: str, below: str | None = None, euid: int | None = None) -> str:
    """Make ``path`` (absolute) with every missing level 0700, checking each level from ``/`` down. ``below``: the
    configured remote directory it lies under - that directory and everything under it must belong to the run's user
    (``euid``) and be writable by nobody else; its ancestors may also be root's. Returns ``path``; raises
    RemoteDirError naming the directory and why."""
    euid = os.geteuid() if euid is None else euid
    path = os.path.normpath(path)
    if not os.path.isabs(path):
        raise RemoteDirError(f"{path} is not an absolute path")
    base = os.path.normpath(below) if below else path
    parts = path.split(os.sep)[1:]
    current = os.sep
    for part in [""] + parts:
        current = os.path.join(current, part) if part else current
        own = current == base or current.startswith(base.rstrip(os.sep) + os.sep)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current, 0o700)
            except FileExistsError:
                pass  # made meanwhile: judged below like any other
            except OSError as exc:
                raise RemoteDirError(f"cannot make {current}: {exc.strerror}") from None
            st = os.lstat(current)
            own = True  # made for the run: only the run's user may own it
        why = _refusal(current, st, euid, own)
        if why:
            raise RemoteDirError(why)
    return path
