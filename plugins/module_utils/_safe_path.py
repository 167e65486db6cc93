# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Directories and files reached without following a link: every level of a path opened from ``/`` by the directory
fd of the level above it (``openat`` with ``O_NOFOLLOW | O_DIRECTORY``), so a symbolic link, a FIFO or a device is
refused wherever it is, and nothing a path names can lead out of the directories walked.

*Strict* (the default for root): every directory on the way must be one only root - or the process's own user - can
change: owned by root or that user, and writable by nobody else (group write is allowed to group 0; a world-writable
directory only with the sticky bit, as ``/tmp`` is, whose entries only their owner can rename). Otherwise another user
could swap a level for a link between two steps, and root would read or write where that user chose. A process that
is not root is not strict: it reads and writes with its own rights, and links, FIFOs and devices are still refused.

Used on the controller (results trees, plugin_utils/_safe_tree.py) and on a results host (the pts_publish module).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
MAX_LINKS = 40


class UnsafePath(PtsError, OSError):
    """A path the collection will not follow, read or write as it is: the level and why."""

    def __init__(self, path: str, why: str):
        super().__init__(errno.EPERM, why, path)
        self.path = path
        self.why = why

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


class TooLarge(PtsError, ValueError):
    """A file over the size a reader allows (a sparse file claims any size)."""

    def __init__(self, path: str, size: int, limit: int):
        super().__init__(f"{path}: {size:,} bytes, more than the {limit:,} bytes allowed for it: not read")
        self.path = path


def strict_default() -> bool:
    return os.geteuid() == 0


def kind(mode: int) -> str:
    """What a file is, in words."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "a file of an unknown type"


def components(path: str) -> list[str]:
    """The names of an absolute path's levels; ".." is refused (a walk never goes up)."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise UnsafePath(str(path), "is not an absolute path")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UnsafePath(path, "has a '..' level: refused, a path under a results tree never goes up")
    return parts


def join(parts: list[str]) -> str:
    return "/" + "/".join(parts)


def _trusted_uids() -> tuple[int, ...]:
    euid = os.geteuid()
    return (0,) if euid == 0 else (0, euid)


def _who() -> str:
    euid = os.geteuid()
    return "root" if euid == 0 else f"root or uid {euid} (this process)"


def others_can_write(st: os.stat_result) -> str | None:
    """Who besides root and the process's user can change a directory's entries, in words; None when nobody."""
    if st.st_uid not in _trusted_uids():
        return f"it is owned by uid {st.st_uid}, not {_who()}"
    if st.st_mode & stat.S_ISVTX:
        return None  # entries of a sticky directory: only their owners rename or remove them (checked level by level)
    if st.st_mode & stat.S_IWOTH:
        return f"every user can write it (mode {oct(stat.S_IMODE(st.st_mode))})"
    if st.st_mode & stat.S_IWGRP and st.st_gid != 0:
        return f"group {st.st_gid} can write it (mode {oct(stat.S_IMODE(st.st_mode))})"
    return None


def check_level(path: str, st: os.stat_result, strict: bool) -> None:
    """Refuse a directory level another user could change (strict only)."""
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(path, f"is {kind(st.st_mode)}, not a directory")
    if strict:
        why = others_can_write(st)
        if why:
            raise UnsafePath(path, f"{why}: root reads and writes nothing that another user could swap for a link "
                                   f"(make it {_who()}'s and writable by nobody else)")


def check_private(path: str, st: os.stat_result) -> None:
    """Refuse a directory that a user other than root and its owner can write, sticky or not (a results root, a
    publishing destination: its entries are all the collection's)."""
    if st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and st.st_gid != 0):
        who = "every user" if st.st_mode & stat.S_IWOTH else f"group {st.st_gid}"
        raise UnsafePath(path, f"{who} can write it (mode {oct(stat.S_IMODE(st.st_mode))}): results go only where "
                               "nobody but root (or the user it runs as) can add or swap what is in it")


def check_entry(path: str, st: os.stat_result, parent: os.stat_result, strict: bool) -> None:
    """Refuse a file that another user owns in a directory others can write (a sticky one)."""
    if strict and parent.st_mode & (stat.S_IWOTH | stat.S_IWGRP) and st.st_uid not in _trusted_uids():
        raise UnsafePath(path, f"is owned by uid {st.st_uid} in a directory other users can write")


def _refusal(dir_fd: int, name: str, path: str, exc: OSError) -> OSError:
    """Why an O_NOFOLLOW | O_DIRECTORY open failed, as a refusal when it was a link or not a directory (else the
    same error, naming the whole level)."""
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return OSError(exc.errno, exc.strerror, path)
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        found = None
    if found is not None and stat.S_ISLNK(found.st_mode):
        return UnsafePath(path, "is a symbolic link: refused, the collection follows no link here")
    if found is None or stat.S_ISDIR(found.st_mode):
        return UnsafePath(path, "changed while it was opened (a link in its place a moment ago): refused")
    return UnsafePath(path, f"is {kind(found.st_mode)}, not a directory")


def walk(path: str, create: bool = False, strict: bool | None = None, mode: int = 0o755,
         leaf_strict: bool = True) -> int:
    """An ``O_PATH`` fd of the directory ``path``, every level opened from the one above it; missing levels made
    (``mode``) when ``create``. FileNotFoundError for a missing level otherwise; UnsafePath for a link, a non-directory
    or (strict) a level another user could change; mkdir's own error, with the level, when it cannot be made.
    ``leaf_strict`` False: the last level may be one others can write (a reader's choice, never a writer's)."""
    strict = strict_default() if strict is None else strict
    parts = components(path)
    fd = os.open("/", _DIR_FLAGS)
    try:
        check_level("/", os.fstat(fd), strict)
        for index, part in enumerate(parts):
            here = join(parts[:index + 1])
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, mode, dir_fd=fd)
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise OSError(exc.errno, f"cannot make directory {here}: {exc.strerror}") from None
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise _refusal(fd, part, here, exc) from None
            except OSError as exc:
                raise _refusal(fd, part, here, exc) from None
            os.close(fd)
            fd = child
            check_level(here, os.fstat(fd), strict and (leaf_strict or index < len(parts) - 1))
        return fd
    except BaseException:
        os.close(fd)
        raise


def reopen(fd: int) -> int:
    """A readable fd of the directory an ``O_PATH`` fd holds (for listing, fsync, flock)."""
    return os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_regular(dir_fd: int, name: str, path: str, limit: int | None, strict: bool | None = None) -> int:
    """A read fd of the regular file ``name`` in ``dir_fd``: a link, FIFO, socket or device is refused before it is
    opened (a FIFO would block, a device could act on the open), a file over ``limit`` bytes too (TooLarge)."""
    strict = strict_default() if strict is None else strict
    before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if not stat.S_ISREG(before.st_mode):
        raise UnsafePath(path, f"is {kind(before.st_mode)}, not a regular file: not read")
    check_entry(path, before, os.fstat(dir_fd), strict)
    if limit is not None and before.st_size > limit:
        raise TooLarge(path, before.st_size, limit)
    fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(now.st_mode):
        os.close(fd)
        raise UnsafePath(path, "was replaced while it was opened: not read")
    return fd


def read_fd(fd: int, path: str, limit: int | None) -> bytes:
    """All of a file, never more than ``limit`` bytes (a file growing while it is read is refused)."""
    chunks = []
    total = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if limit is not None and total > limit:
            raise TooLarge(path, total, limit)
        chunks.append(chunk)


def read_bytes(path: str, limit: int | None, strict: bool | None = None) -> bytes:
    dir_fd = walk(os.path.dirname(path), strict=strict)
    try:
        fd = open_regular(dir_fd, os.path.basename(path), path, limit, strict)
    finally:
        os.close(dir_fd)
    try:
        return read_fd(fd, path, limit)
    finally:
        os.close(fd)


def new_file(dir_fd: int, name: str, mode: int = 0o600) -> tuple[int, str]:
    """A new file beside ``name`` (``.<name>.<8 characters>``), made with O_EXCL | O_NOFOLLOW: never one that was
    there before, never through a link. Returns its fd and name."""
    for dummy in range(100):
        temp = f".{name}.{secrets.token_hex(4)}"
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                           dir_fd=dir_fd), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name beside {name}")


def umask() -> int:
    """The process's umask, read without changing it (os.umask would, for every thread, for a moment)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def _fill(fd: int, data: bytes, mode: int) -> None:
    """A new file's mode and its whole data."""
    os.fchmod(fd, mode)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_at(dir_fd: int, name: str, data: bytes, mode: int = 0o600, sync: bool = True) -> None:
    """Replace ``name`` in the directory ``dir_fd`` whole: a new file beside it (new_file), the data, fsync
    (``sync``), renamed over it by the directory's fd - neither the temporary file nor the rename follows a link, and
    a link, FIFO or device found under ``name`` is replaced, never written through. write_atomic (by path) and the
    writers of the host's held directories (job directories, guard records) use it."""
    fd, temp = new_file(dir_fd, name)
    try:
        _fill(fd, data, mode)
        if sync:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def write_atomic(path: str, data: bytes, mode: int | None = None, strict: bool | None = None) -> None:
    """Write, fsync, rename over ``path`` within its directory's fd (write_at), fsync the directory: after return the
    file survives a crash whole, and neither the temporary file nor the rename followed a link. ``mode`` None: what an
    ordinary write would give (0666 less the umask)."""
    dir_fd = walk(os.path.dirname(path), create=True, strict=strict)
    try:
        write_at(dir_fd, os.path.basename(path), data, (0o666 & ~umask()) if mode is None else mode)
        readable = reopen(dir_fd)
        try:
            os.fsync(readable)
        finally:
            os.close(readable)
    finally:
        os.close(dir_fd)


def write_all(directory: str, files: list[tuple[str, bytes]], strict: bool | None = None) -> None:
    """Several files of one directory, each replaced whole as write_atomic does, in order, and durable together: every
    new file written, then each fsynced, then each renamed into place, then the directory fsynced once. After return
    all of them survive a crash whole, as after write_atomic one by one - for one commit of the filesystem's journal
    for the data and one for the renames, not two per file (a results tree on a busy disk or NFS)."""
    dir_fd = walk(directory, create=True, strict=strict)
    fds: list[int] = []
    temps: list[tuple[str, str]] = []
    try:
        mode = 0o666 & ~umask()
        for name, data in files:
            fd, temp = new_file(dir_fd, name)
            fds.append(fd)
            temps.append((temp, name))
            _fill(fd, data, mode)
        for fd in fds:
            os.fsync(fd)
        while fds:
            os.close(fds.pop())
        while temps:
            temp, name = temps[0]
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            temps.pop(0)
        readable = reopen(dir_fd)
        try:
            os.fsync(readable)
        finally:
            os.close(readable)
    except BaseException:
        while fds:
            os.close(fds.pop())
        for temp, dummy in temps:
            try:
                os.unlink(temp, dir_fd=dir_fd)
            except OSError:
                pass
        raise
    finally:
        os.close(dir_fd)


def resolve(path: str, strict: bool | None = None) -> str:
    """An operator's directory path without links: each link on the way replaced by its target, followed only when
    only root (or, not strict, anyone) could have made it - owned by root or the process's user, in a directory nobody
    else can change. Levels that do not exist yet are kept as given. Every later walk then refuses every link."""
    strict = strict_default() if strict is None else strict
    todo = [part for part in os.path.abspath(path).split("/") if part]
    done: list[str] = []
    links = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        here = join(done + [part])
        try:
            found = os.lstat(here)
        except FileNotFoundError:
            rest = os.path.normpath(join(done + [part] + todo))
            return rest
        if not stat.S_ISLNK(found.st_mode):
            done.append(part)
            continue
        links += 1
        if links > MAX_LINKS:
            raise UnsafePath(path, f"has more than {MAX_LINKS} links on the way")
        if strict:
            parent = os.lstat(join(done))
            why = others_can_write(parent)
            if found.st_uid not in _trusted_uids():
                raise UnsafePath(here, f"is a symbolic link owned by uid {found.st_uid}: not followed")
            if why:
                raise UnsafePath(here, f"is a symbolic link in {join(done)}, which another user can change ({why}): "
                                       "not followed")
        target = os.readlink(here)
        if target.startswith("/"):
            done = []
        todo = [p for p in target.split("/") if p] + todo
    return join(done)
