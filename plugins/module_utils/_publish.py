# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A packed run put in place on a results host (the pts_publish module), into directories only root - or the user
the run connects as - controls:

1. ``dest`` and every level above it: walked from ``/`` by directory fds, no link, owned by root or that user, and
   writable by nobody else (a sticky world-writable level such as ``/tmp`` only above ``dest``); a missing level is
   made (0755) and a level that cannot be made is named with mkdir's own error.
2. The archive is unpacked into ``<dest>/.<run id>.incoming.<random>/``, a 0700 directory of the user's own: directories
   and regular files only (a link, a hard link, a device or a FIFO in the archive is refused, naming the member),
   each made with O_EXCL | O_NOFOLLOW relative to its directory's fd.
3. The copy is renamed into place by the directories' fds (renameat never follows the name it replaces): an earlier
   copy of the same run (same run token) is replaced; a copy of another attempt of the run id - or anything else that
   was there, a link included - is kept as ``<run id>.superseded-<UTC time>-<pid>``, never merged or followed.
"""

from __future__ import annotations

import datetime
import errno
import os
import stat
import tarfile

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._safe_path import UnsafePath

TOKEN_FILE = ".pts-run-token"
_DIR = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# A member's name in the archive: the run id and levels below it, nothing else.
_MAX_MEMBER_DEPTH = 32


class PublishError(PtsError):
    """The run was not put in place: where and why."""


def _mode_word(st: os.stat_result) -> str:
    return oct(stat.S_IMODE(st.st_mode))


def open_dest(dest: str) -> int:
    """An O_PATH fd of ``dest``: every level checked (or made), ``dest`` itself writable by nobody but its owner (and
    group 0). PublishError naming the level and why."""
    try:
        fd = _safe_path.walk(dest, create=True, strict=True)
    except UnsafePath as exc:
        raise PublishError(f"{exc.path}: {exc.why}") from None
    except OSError as exc:
        raise PublishError(exc.strerror if exc.filename is None else f"{exc.filename}: {exc.strerror}") from None
    try:
        _safe_path.check_private(dest, os.fstat(fd))
    except UnsafePath as exc:
        os.close(fd)
        raise PublishError(f"{exc.path}: {exc.why}") from None
    return fd


def open_archive(path: str) -> int:
    """A read fd of the packed run: a regular file, reached without a link through levels only root or this user can
    change."""
    try:
        dir_fd = _safe_path.walk(os.path.dirname(path), strict=True)
        try:
            return _safe_path.open_regular(dir_fd, os.path.basename(path), path, None, strict=True)
        finally:
            os.close(dir_fd)
    except (UnsafePath, OSError) as exc:
        raise PublishError(f"the packed run {path}: {exc}") from None


def _parts(name: str, run_id: str) -> list[str]:
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or parts[0] != run_id or ".." in parts or name.startswith("/") or len(parts) > _MAX_MEMBER_DEPTH:
        raise PublishError(f"the packed run holds {name!r}, which is not a path below {run_id}/: refused")
    return parts


def _child_dir(parent: int, name: str, where: str, create: bool) -> int:
    if create:
        try:
            os.mkdir(name, 0o755, dir_fd=parent)
        except FileExistsError:
            pass
    try:
        return os.open(name, _DIR, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise PublishError(f"{where}: is not a directory of the packed run: refused") from None
        raise


def _walk_in(root: int, parts: list[str], where: str) -> int:
    """The fd of directory ``parts`` below ``root``, each level made when missing, never through a link."""
    fd = os.dup(root)
    try:
        for part in parts:
            child = _child_dir(fd, part, where, create=True)
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def unpack(archive_fd: int, incoming: int, run_id: str, where: str) -> int:
    """Every member of the packed run below ``incoming`` (see the module's description); the number of files."""
    files = 0
    with os.fdopen(os.dup(archive_fd), "rb") as raw, tarfile.open(fileobj=raw, mode="r|gz") as archive:
        for member in archive:
            parts = _parts(member.name, run_id)
            shown = f"{where}/{'/'.join(parts)}"
            if member.isdir():
                os.close(_walk_in(incoming, parts, shown))
                continue
            if not member.isreg():
                kind = "a symbolic link" if member.issym() else "a hard link" if member.islnk() else \
                    "a FIFO" if member.isfifo() else "a device" if member.isdev() else "not a regular file"
                raise PublishError(f"the packed run's {'/'.join(parts)} is {kind}: refused, a published run holds "
                                   "directories and regular files only")
            parent = _walk_in(incoming, parts[:-1], shown)
            try:
                fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                             (member.mode & 0o755) | 0o600, dir_fd=parent)
            except FileExistsError:
                raise PublishError(f"the packed run holds {'/'.join(parts)} twice: refused") from None
            finally:
                os.close(parent)
            try:
                source = archive.extractfile(member)
                while True:
                    chunk = source.read(1 << 20)
                    if not chunk:
                        break
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(fd, view):]
                os.utime(fd, (member.mtime, member.mtime))
                os.fsync(fd)
            finally:
                os.close(fd)
            files += 1
    return files


def _token(dir_fd: int, name: str) -> str | None:
    """The run token of the run directory ``name`` in ``dir_fd`` (None: no such directory, or no token)."""
    try:
        run_fd = os.open(name, _DIR, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        fd = _safe_path.open_regular(run_fd, TOKEN_FILE, TOKEN_FILE, 4096, strict=True)
        try:
            return _safe_path.read_fd(fd, TOKEN_FILE, 4096).decode("ascii", "replace").strip() or None
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    finally:
        os.close(run_fd)


def remove_tree(dir_fd: int, name: str) -> None:
    """Remove ``name`` in ``dir_fd`` and all below it, by directory fds: a link is removed, never followed."""
    found = _safe_path.lstat_at(dir_fd, name)
    if found is None:
        return
    if not stat.S_ISDIR(found.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    fd = os.open(name, _DIR, dir_fd=dir_fd)
    try:
        readable = _safe_path.reopen(fd)
        try:
            entries = os.listdir(readable)
        finally:
            os.close(readable)
        for entry in entries:
            remove_tree(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def new_incoming(dest_fd: int, run_id: str) -> tuple[int, str]:
    """``.<run id>.incoming.<random>`` in dest: made 0700 (O_EXCL by mkdir), opened without a link, checked to be the
    user's own."""
    for dummy in range(100):
        name = f".{run_id}.incoming.{os.urandom(4).hex()}"
        try:
            os.mkdir(name, 0o700, dir_fd=dest_fd)
        except FileExistsError:
            continue
        fd = os.open(name, _DIR, dir_fd=dest_fd)
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
            os.close(fd)
            raise PublishError(f"{name}: not the private directory just made (owner {st.st_uid}, mode "
                               f"{_mode_word(st)})")
        return fd, name
    raise PublishError("no free name for the incoming directory")


def place(dest_fd: int, incoming_fd: int, run_id: str, dest: str, now: datetime.datetime | None = None) -> dict:
    """Rename the unpacked run into place (see the module's description); what was kept aside, if anything."""
    new_token = _token(incoming_fd, run_id)
    kept = None
    if _safe_path.lstat_at(dest_fd, run_id) is not None:
        os.rename(run_id, "replaced", src_dir_fd=dest_fd, dst_dir_fd=incoming_fd)
    try:
        os.rename(run_id, run_id, src_dir_fd=incoming_fd, dst_dir_fd=dest_fd)
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
        # Another process of the run (a job slice) put its copy in place meanwhile: the same run, kept.
        if new_token is None or _token(dest_fd, run_id) != new_token:
            raise PublishError(f"{dest}/{run_id} appeared while this copy was unpacked, and is not this run's "
                               "(another run token): left as it is") from None
    aside = _safe_path.lstat_at(incoming_fd, "replaced")
    if aside is not None:
        if stat.S_ISDIR(aside.st_mode) and new_token is not None and _token(incoming_fd, "replaced") == new_token:
            remove_tree(incoming_fd, "replaced")
        else:
            stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
            kept = f"{run_id}.superseded-{stamp}-{os.getpid()}"
            os.rename("replaced", kept, src_dir_fd=incoming_fd, dst_dir_fd=dest_fd)
    readable = _safe_path.reopen(dest_fd)
    try:
        os.fsync(readable)
    finally:
        os.close(readable)
    return {"kept_aside": kept and f"{dest}/{kept}"}


def publish(archive: str, dest: str, run_id: str) -> dict:
    """The whole of it: {"path", "files", "kept_aside"}; PublishError naming the level and why."""
    dest = dest.rstrip("/") or "/"
    dest_fd = open_dest(dest)
    try:
        archive_fd = open_archive(archive)
        try:
            incoming_fd, incoming = new_incoming(dest_fd, run_id)
            try:
                files = unpack(archive_fd, incoming_fd, run_id, f"{dest}/{incoming}")
                if _safe_path.lstat_at(incoming_fd, run_id) is None:
                    raise PublishError(f"the packed run holds no {run_id}/ directory")
                placed = place(dest_fd, incoming_fd, run_id, dest)
            except (tarfile.TarError, EOFError) as exc:
                raise PublishError(f"the packed run {archive} cannot be unpacked: {exc}") from None
            except OSError as exc:
                raise PublishError(f"{dest}/{incoming}: {exc.strerror or exc}") from None
            finally:
                os.close(incoming_fd)
                remove_tree(dest_fd, incoming)
        finally:
            os.close(archive_fd)
    finally:
        os.close(dest_fd)
    return {"path": f"{dest}/{run_id}", "files": files, **placed}
