# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The run's directories on the host (``pts_run_remote_dir`` and the job directories under it) hold the job files the
fio server runs as root and the outputs the controller records: nobody but the run's user may be able to change a
path to them. Every directory from ``/`` down to a job directory is opened relative to the one above it
(``O_NOFOLLOW | O_DIRECTORY``, no path walked twice) and checked as it is opened: no symbolic link, owned by root or
the run's user, and not writable by anyone else - except an ancestor that only root owns with the sticky bit
(``/tmp``), where others may add entries but not rename or remove this run's. The directories the run makes are 0700
at every level, made relative to their parent's descriptor and checked again once made, so a directory another user
made first is refused. ``open_dir`` returns the descriptor of the last level: files in it are opened relative to it."""

from __future__ import annotations

import os
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError


class RemoteDirError(PtsError):
    """A directory on the way to the run's files that someone else could change."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _refusal(path: str, st: os.stat_result, euid: int, own: bool, target: str = "?") -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link (-> {target}): give the real path"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    owners = (euid,) if own else (0, euid)
    if st.st_uid not in owners:
        return f"{path} belongs to uid {st.st_uid}, not to uid {euid}" + ("" if own else " or root")
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable and (own or not (st.st_mode & stat.S_ISVTX and st.st_uid == 0)):
        return f"{path} can be written by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _open_level(parent: int | None, name: str, path: str, euid: int, own: bool, make: bool) -> int:
    """The next level's descriptor, made (0700) when missing and ``make``; RemoteDirError when it may not be used."""
    made = False
    while True:
        try:
            st = os.lstat(name, dir_fd=parent) if parent is not None else os.lstat(name)
        except FileNotFoundError:
            if not make:
                raise RemoteDirError(f"{path} does not exist") from None
            try:
                os.mkdir(name, 0o700, dir_fd=parent)
                made = True
            except FileExistsError:
                pass  # made meanwhile: judged below like any other
            except OSError as exc:
                raise RemoteDirError(f"cannot make {path}: {exc.strerror}") from None
            continue
        break
    target = "?"
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(name, dir_fd=parent)
        except OSError:
            pass
    why = _refusal(path, st, euid, own or made, target)
    if why:
        raise RemoteDirError(why)
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        raise RemoteDirError(f"cannot open {path}: {exc.strerror}") from None
    opened = os.fstat(fd)
    # What was opened is what was checked (not a directory swapped in between the two).
    if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        raise RemoteDirError(f"{path} changed while it was checked")
    return fd


def open_dir(path: str, below: str | None = None, euid: int | None = None, make: bool = True) -> int:
    """The descriptor of directory ``path`` (absolute), every level from ``/`` down opened relative to the one above
    and checked, missing levels made 0700 (unless ``make`` is false). ``below``: the configured remote directory it
    lies under - that directory and everything under it must belong to the run's user (``euid``) and be writable by
    nobody else; its ancestors may also be root's. The caller closes it. RemoteDirError names the level and why."""
    euid = os.geteuid() if euid is None else euid
    path = os.path.normpath(path)
    if not os.path.isabs(path) or path.startswith("//"):
        raise RemoteDirError(f"{path} is not an absolute path")
    base = os.path.normpath(below) if below else path
    fd = _open_level(None, os.sep, os.sep, euid, base == os.sep, make=False)
    current = os.sep
    try:
        for part in [p for p in path.split(os.sep) if p]:
            current = os.path.join(current, part)
            own = current == base or current.startswith(base.rstrip(os.sep) + os.sep)
            child = _open_level(fd, part, current, euid, own, make)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd
