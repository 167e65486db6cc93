# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Every file the collection reads or writes under a results root, the history index included: opened by directory
fds from ``/`` down, never through a link (module_utils/_safe_path.py); only regular files read, each within a stated
size, JSON within a stated nesting depth; one atomic writer. As root, a level another user could change is refused
(``UnsafePath``, naming the level and why): chown the tree to root, or run as the user who owns it.

The results root an operator names is made link-free once (``resolve``: a link only root could have made is followed
there); from then on every path is walked as it is, and a link anywhere below it is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._safe_path import TooLarge, UnsafePath

__all__ = ("UnsafePath", "TooLarge", "BadFile")

# What a reader takes at most. A round file with fio's parsed output is tens of KiB, result.json of a 1,500-round
# write saturation a few MiB, fio's raw json+ output with latency bins one or two; interval logs of a long
# continuous stimulus are the largest files of a tree.
MAX_JSON_BYTES = 64 << 20
MAX_TEXT_BYTES = 64 << 20
MAX_LOG_BYTES = 512 << 20
MAX_IMAGE_BYTES = 32 << 20
# The collection's own JSON nests about ten levels (result.json's tests -> segments -> rounds -> fio -> jobs -> ...).
MAX_JSON_DEPTH = 64
# How deep a walk of a tree goes: <run>/<host>/<drive>/superseded/<test>-N/<segment>/<part>/ is 7.
MAX_WALK_DEPTH = 16


class BadFile(PtsError, ValueError):
    """A file that is not what the collection wrote there: its path and why (size, nesting depth, a field's type)."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def resolve(path: str) -> str:
    """An operator's directory, absolute and without links (see module_utils/_safe_path.resolve)."""
    return _safe_path.resolve(os.path.abspath(os.path.expanduser(path)))


def check_root(path: str) -> None:
    """Refuse (UnsafePath) an existing results root that a level of, or the root itself, another user can change; as
    root, a root that other users can write at all (a sticky one too)."""
    try:
        fd = _safe_path.walk(path)
    except FileNotFoundError:
        return
    try:
        if _safe_path.strict_default():
            _safe_path.check_private(path, os.fstat(fd))
    finally:
        os.close(fd)


@contextlib.contextmanager
def directory(path: str, create: bool = False):
    """An O_PATH fd of a directory of the tree, closed after the block."""
    fd = _safe_path.walk(path, create=create)
    try:
        yield fd
    finally:
        os.close(fd)


def lstat(path: str) -> os.stat_result | None:
    """The file ``path`` names, not followed (a link is a link); None when it, or a level above it, is missing."""
    try:
        with directory(os.path.dirname(path)) as fd:
            return _safe_path.lstat_at(fd, os.path.basename(path))
    except FileNotFoundError:
        return None


def exists(path: str) -> bool:
    return lstat(path) is not None


def isdir(path: str) -> bool:
    found = lstat(path)
    return found is not None and stat.S_ISDIR(found.st_mode)


def isfile(path: str) -> bool:
    found = lstat(path)
    return found is not None and stat.S_ISREG(found.st_mode)


def listdir(path: str) -> list[str]:
    """The names in a directory of the tree, sorted; FileNotFoundError when it is missing."""
    with directory(path) as fd:
        readable = _safe_path.reopen(fd)
        try:
            return sorted(os.listdir(readable))
        finally:
            os.close(readable)


def entries(path: str) -> list[tuple[str, os.stat_result]]:
    """(name, stat not followed) of each entry of a directory, sorted by name; [] when the directory is missing."""
    try:
        with directory(path) as fd:
            found = []
            for name in _names(fd):
                st = _safe_path.lstat_at(fd, name)
                if st is not None:
                    found.append((name, st))
            return found
    except FileNotFoundError:
        return []


def _names(fd: int) -> list[str]:
    readable = _safe_path.reopen(fd)
    try:
        return sorted(os.listdir(readable))
    finally:
        os.close(readable)


def subdirs(path: str) -> list[str]:
    """The real directories (no link) in a directory of the tree, sorted; [] when it is missing."""
    return [name for name, st in entries(path) if stat.S_ISDIR(st.st_mode)]


def walk_files(top: str, skip: tuple[str, ...] = ()):
    """Every entry below ``top`` that is not a directory: (directory path, name, stat not followed), directories
    walked by fd and never through a link, ``skip`` names of directories left out, at most MAX_WALK_DEPTH levels."""
    try:
        fd = _safe_path.walk(top)
    except FileNotFoundError:
        return
    stack = [(top, fd, 0)]
    try:
        while stack:
            path, fd, depth = stack.pop()
            try:
                for name in _names(fd):
                    st = _safe_path.lstat_at(fd, name)
                    if st is None:
                        continue
                    if not stat.S_ISDIR(st.st_mode):
                        yield path, name, st
                    elif name not in skip and depth < MAX_WALK_DEPTH:
                        child = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                        _safe_path.check_level(os.path.join(path, name), os.fstat(child), _safe_path.strict_default())
                        stack.append((os.path.join(path, name), child, depth + 1))
            finally:
                os.close(fd)
    finally:
        for dummy, fd, dummy in stack:
            os.close(fd)


def makedirs(path: str) -> None:
    with directory(path, create=True):
        pass


def read_bytes(path: str, limit: int = MAX_TEXT_BYTES, dir_fd: int | None = None) -> bytes:
    """A regular file of the tree, at most ``limit`` bytes (BadFile otherwise). ``dir_fd``: the fd of its directory,
    already walked (see directory()), for reading many files of one directory."""
    try:
        if dir_fd is None:
            return _safe_path.read_bytes(path, limit)
        fd = _safe_path.open_regular(dir_fd, os.path.basename(path), path, limit)
        try:
            return _safe_path.read_fd(fd, path, limit)
        finally:
            os.close(fd)
    except TooLarge as exc:
        raise BadFile(path, str(exc).split(": ", 1)[1]) from None


def read_text(path: str, limit: int = MAX_TEXT_BYTES, dir_fd: int | None = None) -> str:
    data = read_bytes(path, limit, dir_fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(path, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def depth(value: object, limit: int) -> int:
    """How deep lists and mappings nest in a loaded JSON value (walked without recursion), up to ``limit`` + 1."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def loads(text: str, path: str, max_depth: int = MAX_JSON_DEPTH) -> object:
    """JSON text of the file ``path``, nested at most ``max_depth`` levels; BadFile naming the file otherwise."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadFile(path, f"JSON nested deeper than {max_depth} levels: not read") from None
    except ValueError as exc:
        raise BadFile(path, f"is not valid JSON ({exc})") from None
    if depth(value, max_depth) > max_depth:
        raise BadFile(path, f"JSON nested deeper than {max_depth} levels: not read")
    return value


def read_json(path: str, limit: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH,
              dir_fd: int | None = None) -> object:
    return loads(read_text(path, limit, dir_fd), path, max_depth)


def read_record(path: str, limit: int = MAX_JSON_BYTES, dir_fd: int | None = None) -> dict:
    """A JSON file the collection wrote as one mapping (a record): anything else is a BadFile."""
    value = read_json(path, limit, dir_fd=dir_fd)
    if not isinstance(value, dict):
        raise BadFile(path, f"holds a JSON {type(value).__name__}, not the mapping the collection writes there")
    return value


def write_bytes(path: str, data: bytes, private: bool = False) -> None:
    """Atomically (see module_utils/_safe_path.write_atomic); ``private``: 0600, else as an ordinary write would."""
    _safe_path.write_atomic(path, data, 0o600 if private else None)


def write_all(directory: str, files: list[tuple[str, bytes]]) -> None:
    """Several files of one directory at once, durable together (see module_utils/_safe_path.write_all)."""
    _safe_path.write_all(directory, files)


def rename(source: str, target: str) -> None:
    """Rename within the tree by the directories' fds: neither end is followed if it is a link."""
    with directory(os.path.dirname(source)) as src, directory(os.path.dirname(target), create=True) as dst:
        os.replace(os.path.basename(source), os.path.basename(target), src_dir_fd=src, dst_dir_fd=dst)


def unlink(path: str) -> None:
    """Remove one entry (a link is removed, never followed)."""
    with directory(os.path.dirname(path)) as fd:
        os.unlink(os.path.basename(path), dir_fd=fd)


# --- the history index -------------------------------------------------------------------------------------------

class _Connection(sqlite3.Connection):
    """A SQLite connection that keeps the fd of its database's directory open while it lives (SQLite opens its
    journal beside the database by name)."""

    dir_fd = -1

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.dir_fd >= 0:
                os.close(self.dir_fd)
                self.dir_fd = -1


_SIDE_FILES = ("-journal", "-wal", "-shm")


def _open_fds() -> set[int]:
    """The process's open fds (the one that listed them is closed again, and left out)."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            os.fstat(int(name))
        except OSError:
            continue
        found.add(int(name))
    return found


def connect_sqlite(path: str, readonly: bool = False, timeout: float = 5.0, immutable: bool = False) -> sqlite3.Connection:
    """A SQLite database of the tree. SQLite opens files by name, so the name is made safe first and checked after:
    the directory walked by fds from ``/`` (as root: a chain only root can change), the database and the journal
    files SQLite keeps beside it regular files or absent (a new database is created here, O_EXCL | O_NOFOLLOW); then
    the file SQLite opened is found among the process's fds and must be the one checked. Missing and ``readonly``:
    FileNotFoundError."""
    directory_path, name = os.path.dirname(path), os.path.basename(path)
    dir_fd = _safe_path.walk(directory_path, create=not readonly)
    try:
        for side in _SIDE_FILES:
            found = _safe_path.lstat_at(dir_fd, name + side)
            if found is not None and not stat.S_ISREG(found.st_mode):
                raise UnsafePath(path + side, f"is {_safe_path.kind(found.st_mode)}, not SQLite's journal: refused")
        found = _safe_path.lstat_at(dir_fd, name)
        if found is None:
            if readonly:
                raise FileNotFoundError(2, "no such database", path)
            try:
                os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o666 & ~_safe_path.umask(), dir_fd=dir_fd))
            except FileExistsError:
                pass
            found = _safe_path.lstat_at(dir_fd, name)
        if found is None or not stat.S_ISREG(found.st_mode):
            raise UnsafePath(path, f"is {_safe_path.kind(found.st_mode) if found else 'gone'}, not a database file")
        _safe_path.check_entry(path, found, os.fstat(dir_fd), _safe_path.strict_default())
        before = _open_fds()
        # SQLite opens the database when it connects, by this name (its journal later, by the name + suffix).
        target = _safe_path.join(_safe_path.components(path))
        if readonly:
            conn = sqlite3.connect("file:" + _uri_path(target) + "?mode=ro" + ("&immutable=1" if immutable else ""),
                                   uri=True, timeout=timeout,
                                   isolation_level=None, factory=_Connection)
        else:
            conn = sqlite3.connect(target, timeout=timeout, isolation_level=None, factory=_Connection)
        opened = [fd for fd in _open_fds() - before if _is_file(fd, found)]
        if not opened:
            conn.close()
            raise UnsafePath(path, "changed while SQLite opened it: not used")
    except BaseException:
        os.close(dir_fd)
        raise
    conn.dir_fd = dir_fd
    return conn


def _is_file(fd: int, expected: os.stat_result) -> bool:
    try:
        found = os.fstat(fd)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (expected.st_dev, expected.st_ino)


def _uri_path(path: str) -> str:
    # SQLite's URI syntax: "?" and "#" end the path, "%" escapes.
    return path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
