# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The history's one schema, for SQLite and PostgreSQL alike: its tables, and the forward migrations that bring a
database of any earlier version (none at all included) to this collection's.

- ``schema_version``: one row per migration applied (version, when, by which collection version). A database whose
  highest version is above SCHEMA_VERSION was written by a newer collection and is refused, read or write.
- ``meta``: kept from version 1, whose only row ``schema`` collections before 3.0.0 read to refuse a newer index: it
  holds the current version too.
- ``figures``: one row per run x host x drive x headline figure, the key (run_id, host, drive, figure).
- ``runs``: one row per run written, when and by which controller.
- Version 3 adds no table: the index the population's span reads (``figures_population_runs``).

Version 1 is the SQLite index every collection before 3.0.0 kept beside the runs (``meta`` says ``schema = 1``, no
``schema_version`` table); a database with neither table is version 0."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError

SCHEMA_VERSION = 3
SQLITE, POSTGRESQL = "sqlite", "postgresql"

# (column, type) in table order: INTEGER is 64-bit in both (BIGINT in PostgreSQL), REAL a double.
COLUMNS = (
    ("run_id", "TEXT NOT NULL"), ("host", "TEXT NOT NULL"), ("drive", "TEXT NOT NULL"), ("figure", "TEXT NOT NULL"),
    ("value", "REAL"), ("unit", "TEXT"), ("state", "TEXT"), ("steady", "INTEGER"),
    ("serial", "TEXT"), ("model", "TEXT"), ("firmware", "TEXT"), ("vendor", "TEXT"), ("wwn", "TEXT"),
    ("capacity_bytes", "INTEGER"), ("interface", "TEXT"),
    ("run_time", "TEXT"), ("profile", "TEXT"), ("quick_profile", "INTEGER"), ("tests", "TEXT"), ("settings", "TEXT"),
    ("verdict", "TEXT"), ("verdict_source", "TEXT"),
    ("health", "TEXT"), ("temperature_c", "REAL"), ("percentage_used", "REAL"), ("media_errors", "INTEGER"),
    ("critical_warning", "INTEGER"), ("max_temperature_c", "REAL"), ("throttled_rounds", "INTEGER"),
    ("warning_rounds", "INTEGER"),
    ("host_bytes_written", "INTEGER"), ("drive_bytes_written", "INTEGER"), ("write_amplification", "REAL"),
    ("drive_dir", "TEXT"),
)
NAMES = tuple(name for name, dummy in COLUMNS)
KEY = ("run_id", "host", "drive", "figure")

_TYPES = {POSTGRESQL: {"REAL": "DOUBLE PRECISION", "INTEGER": "BIGINT"}, SQLITE: {}}


def column_type(dialect: str, kind: str) -> str:
    """A column's type in the dialect: "REAL NOT NULL" is "DOUBLE PRECISION NOT NULL" in PostgreSQL."""
    base, dummy, rest = kind.partition(" ")
    return " ".join(part for part in (_TYPES[dialect].get(base, base), rest) if part)


def _figures_table(dialect: str) -> str:
    columns = ", ".join(f"{name} {column_type(dialect, kind)}" for name, kind in COLUMNS)
    return f"CREATE TABLE IF NOT EXISTS figures ({columns}, PRIMARY KEY ({', '.join(KEY)}))"


def _version_1(dialect: str) -> list[str]:
    """The index as collections before 3.0.0 made it."""
    return [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
        _figures_table(dialect),
        "CREATE INDEX IF NOT EXISTS figures_model ON figures (model, firmware)",
        "CREATE INDEX IF NOT EXISTS figures_serial ON figures (serial)",
    ]


def _version_2(dialect: str) -> list[str]:
    """The runs table (who wrote each run, when: a database many controllers share) filled from the runs already
    there, and the index the population comparison reads: one model, firmware and profile's steady values of one
    figure in order, with the run and its time to leave out this run and later ones without reading the rows."""
    integer = column_type(dialect, "INTEGER")
    if dialect == POSTGRESQL:
        population = ("CREATE INDEX IF NOT EXISTS figures_population ON figures "
                      "(model, firmware, quick_profile, figure, steady, value) INCLUDE (run_time, run_id)")
    else:
        population = ("CREATE INDEX IF NOT EXISTS figures_population ON figures "
                      "(model, firmware, quick_profile, figure, steady, value, run_time, run_id)")
    return [
        f"CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, run_time TEXT, indexed_at TEXT NOT NULL, "
        f"indexed_by TEXT, drives {integer}, quick_profile {integer})",
        "INSERT INTO runs (run_id, run_time, indexed_at, indexed_by, drives, quick_profile) "
        "SELECT run_id, MIN(run_time), '{now}', 'schema 1 (migrated)', COUNT(DISTINCT host || '/' || drive), "
        "MAX(quick_profile) FROM figures GROUP BY run_id",
        population,
        "CREATE INDEX IF NOT EXISTS figures_run ON figures (run_id, host)",
    ]


def _version_3(dialect: str) -> list[str]:
    """The index the population's span reads (how many runs, the first and the last one's start) without reading its
    rows: one model, firmware and profile's steady rows run by run, each run's times in order - a run found by one
    seek, its first and last start by one more each."""
    if dialect == POSTGRESQL:
        return ["CREATE INDEX IF NOT EXISTS figures_population_runs ON figures "
                "(model, firmware, quick_profile, steady, run_id, run_time) INCLUDE (figure, value)"]
    return ["CREATE INDEX IF NOT EXISTS figures_population_runs ON figures "
            "(model, firmware, quick_profile, steady, run_id, run_time, figure, value)"]


# version -> the statements that bring a database of the version before it to it. Forward only; never edited once
# released (a change is a new version).
MIGRATIONS = {1: _version_1, 2: _version_2, 3: _version_3}


def schema_version_table(dialect: str) -> str:
    integer = column_type(dialect, "INTEGER")
    return (f"CREATE TABLE IF NOT EXISTS schema_version (version {integer} PRIMARY KEY, applied_at TEXT NOT NULL, "
            "applied_by TEXT)")


def statements(dialect: str, version: int, now: str) -> list[str]:
    """The statements of one migration, with its time filled in (an ISO time: no quote in it)."""
    if "'" in now:
        raise DataError(f"{now!r}: not a time")
    return [s.replace("{now}", now) for s in MIGRATIONS[version](dialect)]


def pending(found: int) -> list[int]:
    """The migrations a database at version ``found`` needs, in order."""
    return [v for v in sorted(MIGRATIONS) if v > found]


def newer_text(where: str, found: int, by: str | None) -> str:
    """Why a database is refused: a newer collection wrote it."""
    wrote = f", written by fleetqual.pts {by}" if by else ""
    return (f"{where}: the history is at schema version {found}{wrote}, newer than this collection's "
            f"({SCHEMA_VERSION}): use that version of fleetqual.pts or a later one with it, or give another history "
            "(pts_history_url); nothing was read or written")


def upsert(placeholder: str) -> str:
    """The one write of a row: insert, or replace every column but the key's."""
    return ("INSERT INTO figures (" + ", ".join(NAMES) + ") VALUES (" + ", ".join(placeholder for dummy in NAMES)
            + ") ON CONFLICT (" + ", ".join(KEY) + ") DO UPDATE SET "
            + ", ".join(f"{name} = excluded.{name}" for name in NAMES if name not in KEY))
