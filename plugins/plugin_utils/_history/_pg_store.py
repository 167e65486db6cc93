# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The shared history: one PostgreSQL database that every controller, job slice and AWX job writes to and reads from
(``pts_history_url: postgresql://...``), through psycopg 3 - an optional requirement of the collection
(requirements.txt), needed only then.

The same tables and statements as the SQLite index (sql.py). Every write is one transaction that first takes the
history's write lock (a transaction-level advisory lock: writers of two controllers queue, readers never wait), waits
for it at most LOCK_TIMEOUT_S, and brings the schema up to date under it; a transaction that fails leaves nothing.
Errors are HistoryError with the database named without its password and every known secret scrubbed."""

from __future__ import annotations

import contextlib
import random
import time

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError, SqlStore

try:
    import psycopg
    from psycopg.rows import dict_row
except ImportError as _exc:  # an optional requirement: only a postgresql:// history needs it
    psycopg = None
    dict_row = None
    IMPORT_ERROR: ImportError | None = _exc
else:
    IMPORT_ERROR = None

CONNECT_TIMEOUT_S = 10
LOCK_TIMEOUT_S = 60
# How long a connection waits for a server that has all its connections taken ("sorry, too many clients already";
# "too many connections for role/database" when the role's or database's CONNECTION LIMIT is reached).
BUSY_WAIT_S = 120
_TOO_MANY = ("too many clients", "too many connections")
# pg_advisory_xact_lock's key of the history's write lock: "fqpts" in ASCII, so no other application's is taken.
WRITE_LOCK = 0x6671707473
APPLICATION = "fleetqual.pts"


def missing_text(shown: str) -> str:
    return (f"{shown}: a postgresql:// history needs the psycopg Python package on the controller (pip install "
            f"'psycopg[binary]'; requirements.txt names it, the execution environment has it): {IMPORT_ERROR}")


class PostgresStore(SqlStore):
    """The history in the database ``spec`` names. ``readonly``: nothing is created or migrated; an empty database
    is NoHistory. Otherwise the schema is brought up to date on connecting."""

    dialect = _schema.POSTGRESQL
    ph = "%s"

    def __init__(self, spec: Spec, readonly: bool = False):
        self.spec = spec
        self.shown = spec.shown()
        self.readonly = readonly
        if psycopg is None:
            raise HistoryError(missing_text(self.shown))
        options = {"connect_timeout": CONNECT_TIMEOUT_S, "application_name": APPLICATION, "autocommit": True,
                   "row_factory": dict_row}
        if spec.password:
            options["password"] = spec.password
        self.conn = self._connect(options)
        try:
            if readonly:
                self.check_readable()
            else:
                self.migrate()
        except HistoryError:
            self.close()
            raise

    def _connect(self, options: dict):
        """The connection; a server at its max_connections (every drive report of a large fleet ending at once, each
        with its short connection) is waited for, up to BUSY_WAIT_S."""
        deadline = time.monotonic() + BUSY_WAIT_S
        while True:
            try:
                return psycopg.connect(self.spec.url, **options)
            except psycopg.OperationalError as exc:
                if any(text in str(exc) for text in _TOO_MANY) and time.monotonic() < deadline:
                    time.sleep(0.5 + random.random())
                    continue
                raise HistoryError(self.spec.scrub(f"{self.shown}: could not connect: {_first_line(exc)}")) from None
            except psycopg.Error as exc:
                raise HistoryError(self.spec.scrub(f"{self.shown}: could not connect: {_first_line(exc)}")) from None
            except ValueError as exc:  # a URL libpq cannot parse
                raise HistoryError(self.spec.scrub(f"{self.shown}: not a URL libpq reads: {exc}")) from None

    def _failed(self, exc: Exception) -> HistoryError:
        return HistoryError(self.spec.scrub(f"{self.shown}: {_first_line(exc)}"))

    def fetch(self, sql: str, params: tuple | list = ()) -> list[dict]:
        try:
            return list(self.conn.execute(sql, tuple(params)).fetchall())
        except psycopg.Error as exc:
            raise self._failed(exc) from None

    def execute(self, sql: str, params: tuple | list = ()) -> None:
        try:
            self.conn.execute(sql, tuple(params))
        except psycopg.Error as exc:
            raise self._failed(exc) from None

    def execute_many(self, sql: str, rows: list[tuple]) -> None:
        if not rows:
            return
        try:
            with self.conn.cursor() as cursor:
                cursor.executemany(sql, rows)
        except psycopg.Error as exc:
            raise self._failed(exc) from None

    @contextlib.contextmanager
    def writing(self):
        """One transaction holding the history's write lock (waited for at most LOCK_TIMEOUT_S); committed whole,
        or rolled back whole."""
        try:
            with self.conn.transaction():
                self.conn.execute(f"SET LOCAL lock_timeout = '{int(LOCK_TIMEOUT_S)}s'")
                self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                yield self
        except psycopg.Error as exc:
            raise self._failed(exc) from None

    def after_write(self) -> None:
        """The table vacuumed and its statistics brought up to date, after the write's commit: VACUUM marks the pages
        it wrote all-visible (it reads only the pages not so marked), so the population's reads are index-only scans
        that never visit the table; ANALYZE tells the planner how many rows each model and figure has, so it takes
        the population's index for a figure's values and the runs index for its span - a history just written,
        before autovacuum's turn, included. SKIP_LOCKED: while another writer's (or autovacuum) holds the table, this
        one leaves it to them. A role that does not own the table is told so by a warning, not an error."""
        with contextlib.suppress(HistoryError):
            self.execute("VACUUM (ANALYZE, SKIP_LOCKED) figures")

    @contextlib.contextmanager
    def reading(self):
        """One read-only transaction on one snapshot (REPEATABLE READ): every read in it sees the same history. Without
        parallel workers: each of its queries reads one figure's index, and a fleet's reports read at once, one
        backend each."""
        try:
            with self.conn.transaction():
                self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                self.conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
                yield self
        except psycopg.Error as exc:
            raise self._failed(exc) from None

    def tables(self) -> set[str]:
        names = ("schema_version", "meta", "figures", "runs")
        rows = self.fetch("SELECT " + ", ".join(f"to_regclass('{n}') IS NOT NULL AS {n}" for n in names))
        return {name for name in names if rows[0][name]}

    def columns(self, table: str) -> set[str]:
        rows = self.fetch("SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attnum > 0 "
                          "AND NOT attisdropped", (table,))
        return {r["attname"] for r in rows}

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a connection the server dropped closes without a word
            self.conn.close()


def _first_line(exc: Exception) -> str:
    """psycopg's message without its libpq detail lines (the server's words are on the first)."""
    text = str(exc).strip()
    return " ".join(line.strip() for line in text.splitlines()[:2] if line.strip()) or type(exc).__name__
