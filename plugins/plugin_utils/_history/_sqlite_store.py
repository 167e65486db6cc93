# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The embedded history: one SQLite file beside the runs of a results root (``<root>/pts-history.sqlite``), Python's
own sqlite3, nothing to install.

Opened as plugin_utils/_safe_tree.connect_sqlite opens a database (its directory walked by fds, no link, no FIFO, the
file SQLite opened matched after): a link or a directory another user can change in its place is a HistoryError
naming it. Writers take SQLite's write lock for the whole transaction (BEGIN IMMEDIATE) and wait for another writer
up to BUSY_TIMEOUT_S: two runs finishing at once both land, whole. A file that is not (or no longer) a database is a
CorruptIndex; ``move_aside`` keeps it for a post-mortem."""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import os
import sqlite3

from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import (
    CorruptIndex, HistoryError, NoHistory, SqlStore)

BUSY_TIMEOUT_S = 60.0
# SQLite's primary result codes for a file that is not, or no longer, a database: SQLITE_CORRUPT, SQLITE_NOTADB.
_CORRUPT_CODES = (11, 26)
# The files SQLite keeps beside a database: a hot journal beside a new index would be played back into it.
_SIDE_FILES = ("-journal", "-wal", "-shm")


def _is_corrupt(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _CORRUPT_CODES
    return "file is not a database" in str(exc) or "malformed" in str(exc)


def failed(path: str, exc: sqlite3.Error) -> HistoryError:
    return CorruptIndex(path, str(exc)) if _is_corrupt(exc) else HistoryError(f"{path}: {exc}")


class SqliteStore(SqlStore):
    """The history in ``path``. ``readonly``: it must exist (NoHistory otherwise); else it is created, and brought to
    this collection's schema on its first write."""

    dialect = _schema.SQLITE
    ph = "?"

    def __init__(self, path: str, readonly: bool = False):
        self.path = self.shown = path
        self.readonly = readonly
        try:
            self.conn = _safe_tree.connect_sqlite(path, readonly=readonly, timeout=BUSY_TIMEOUT_S)
        except FileNotFoundError:
            raise NoHistory(f"no history index at {path}") from None
        except OSError as exc:
            raise HistoryError(f"history index not opened: {exc}") from None
        self.conn.row_factory = sqlite3.Row
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if readonly:
                self.check_readable()
            else:
                self.migrate()
        except sqlite3.Error as exc:
            self.conn.close()
            raise failed(path, exc) from None
        except HistoryError:
            self.conn.close()
            raise

    def _guarded(self, call, *args):
        try:
            return call(*args)
        except sqlite3.Error as exc:
            raise failed(self.path, exc) from None

    def fetch(self, sql: str, params: tuple | list = ()) -> list[dict]:
        return self._guarded(lambda: [dict(row) for row in self.conn.execute(sql, tuple(params)).fetchall()])

    def execute(self, sql: str, params: tuple | list = ()) -> None:
        self._guarded(self.conn.execute, sql, tuple(params))

    def execute_many(self, sql: str, rows: list[tuple]) -> None:
        if rows:
            self._guarded(self.conn.executemany, sql, rows)

    @contextlib.contextmanager
    def writing(self):
        """One write transaction holding the database's write lock from its start (another writer waits up to the
        busy timeout); rolled back on any error."""
        self.execute("BEGIN IMMEDIATE")
        try:
            yield self
            self.execute("COMMIT")
        except BaseException:
            # A damaged database may refuse the rollback too; the error that ended the transaction is the one to tell.
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def reading(self):
        """One read transaction (SQLite's shared lock held from its first read to its end: a writer commits before or
        after it, never in between)."""
        self.execute("BEGIN")
        try:
            yield self
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("COMMIT")

    def tables(self) -> set[str]:
        return {r["name"] for r in self.fetch("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def columns(self, table: str) -> set[str]:
        return {r["name"] for r in self.fetch(f"PRAGMA table_info({table})")}

    def close(self) -> None:
        self.conn.close()


def damage(path: str) -> str | None:
    """Why the index file is not a sound database (SQLite's own integrity check), or None when it is."""
    # A read-only open cannot play back a journal left beside the file: then the file's own bytes are judged.
    for immutable in (False, True):
        try:
            conn = _safe_tree.connect_sqlite(path, readonly=True, timeout=BUSY_TIMEOUT_S, immutable=immutable)
            try:
                found = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
            finally:
                conn.close()
        except sqlite3.Error as exc:
            if _is_corrupt(exc):
                return str(exc)
            continue
        return None if found == ["ok"] else "; ".join(str(f) for f in found[:3])
    return None


def move_aside(path: str, now: datetime.datetime | None = None) -> str | None:
    """Move a corrupt index (and the journal SQLite keeps beside it) to ``<index>.corrupt-<UTC time>``, kept for a
    post-mortem; return the new path, or None when the file there is sound (another rebuild got there first) or gone.
    Judged again under flock() on the results root, so of two rebuilds at once only one moves the corrupt file, and
    neither the new index the other one built."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    name = os.path.basename(path)
    with _safe_tree.directory(os.path.dirname(os.path.abspath(path))) as dir_fd:
        root_fd = _safe_path.reopen(dir_fd)
        try:
            fcntl.flock(root_fd, fcntl.LOCK_EX)
            if not _safe_tree.isfile(path) or damage(path) is None:
                return None
            target = f"{name}.corrupt-{stamp}"
            number = 1
            while any(_safe_path.lstat_at(dir_fd, target + side) for side in ("",) + _SIDE_FILES):
                number += 1
                target = f"{name}.corrupt-{stamp}-{number}"
            # Renamed by the directory's fd: the name is moved, never followed.
            os.rename(name, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            for side in _SIDE_FILES:
                if _safe_path.lstat_at(dir_fd, name + side):
                    os.rename(name + side, target + side, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return os.path.join(os.path.dirname(path), target)
        finally:
            fcntl.flock(root_fd, fcntl.LOCK_UN)
            os.close(root_fd)
