# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history's one versioned schema: the statements per dialect, and the forward migrations of an SQLite index -
from nothing, and from the index every collection before 3.0.0 kept beside the runs (its rows kept, its runs listed).
The same on a real PostgreSQL server: tests/integration/test_history_postgresql.py."""

from __future__ import annotations

import sqlite3

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._population_reference import history

# The index exactly as fleetqual.pts 2.x made it (plugin_utils/_fleet/_history.py at 40f9c05): meta says schema 1, no
# schema_version table.
OLD_COLUMNS = ", ".join(f"{name} {kind}" for name, kind in _schema.COLUMNS)
BEFORE_3 = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
    f"CREATE TABLE figures ({OLD_COLUMNS}, PRIMARY KEY (run_id, host, drive, figure))",
    "CREATE INDEX figures_model ON figures (model, firmware)",
    "CREATE INDEX figures_serial ON figures (serial)",
    "INSERT INTO meta (key, value) VALUES ('schema', '1')",
]


def tables(path: str) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    finally:
        conn.close()


def rows(path: str, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("dialect, kind, expected", [
    ("sqlite", "REAL", "REAL"), ("postgresql", "REAL", "DOUBLE PRECISION"),
    ("postgresql", "INTEGER", "BIGINT"), ("postgresql", "TEXT NOT NULL", "TEXT NOT NULL"),
    ("sqlite", "INTEGER", "INTEGER"),
])
def test_column_types_per_dialect(dialect, kind, expected):
    assert _schema.column_type(dialect, kind) == expected


def test_each_dialects_statements():
    pg = " ".join(_schema.statements(_schema.POSTGRESQL, 1, "T") + _schema.statements(_schema.POSTGRESQL, 2, "T"))
    lite = " ".join(_schema.statements(_schema.SQLITE, 1, "T") + _schema.statements(_schema.SQLITE, 2, "T"))
    assert "capacity_bytes BIGINT" in pg and "value DOUBLE PRECISION" in pg and "INCLUDE (run_time, run_id)" in pg
    assert "capacity_bytes INTEGER" in lite and "INCLUDE" not in lite and "'T', 'schema 1 (migrated)'" in lite
    assert _schema.statements(_schema.POSTGRESQL, 3, "T") == [
        "CREATE INDEX IF NOT EXISTS figures_population_runs ON figures (model, firmware, quick_profile, steady, run_id, "
        "run_time) INCLUDE (figure, value)"]
    assert "INCLUDE" not in _schema.statements(_schema.SQLITE, 3, "T")[0]
    assert _schema.pending(0) == [1, 2, 3] and _schema.pending(1) == [2, 3] and _schema.pending(3) == []
    with pytest.raises(ValueError):
        _schema.statements(_schema.SQLITE, 2, "it's")


def test_an_empty_file_is_migrated_from_nothing(tmp_path):
    path = str(tmp_path / "pts-history.sqlite")
    store = SqliteStore(path)
    store.close()
    assert {"meta", "figures", "runs", "schema_version", "figures_population", "figures_run",
            "figures_population_runs"} <= tables(path)
    assert [r[0] for r in rows(path, "SELECT version FROM schema_version ORDER BY version")] == [1, 2, 3]
    assert rows(path, "SELECT value FROM meta WHERE key = 'schema'") == [(str(_schema.SCHEMA_VERSION),)]


def test_the_index_of_collections_before_3_is_migrated_and_keeps_its_rows(tmp_path):
    path = str(tmp_path / "pts-history.sqlite")
    conn = sqlite3.connect(path)
    for statement in BEFORE_3:
        conn.execute(statement)
    for run, when in (("run-a", "2026-01-01T00:00:00Z"), ("run-b", "2026-02-01T00:00:00Z")):
        for drive in ("d1", "d2"):
            conn.execute("INSERT INTO figures (run_id, host, drive, figure, value, run_time, quick_profile) "
                         "VALUES (?, 'h1', ?, 'iops_4k_write', 5.0, ?, 0)", (run, drive, when))
    conn.commit()
    conn.close()
    # Read as it is (a reader never migrates) ...
    with SqliteStore(path, readonly=True) as store:
        assert store.version() == (1, None) and len(store.query()) == 4
    assert "schema_version" not in tables(path)
    # ... and migrated by the first writer: the rows kept, the runs listed, the versions recorded.
    with SqliteStore(path) as store:
        assert store.version() == (3, "3.0.0")
        assert len(store.query()) == 4
        assert [(r["run_id"], r["drives"], r["indexed_by"]) for r in store.run_records()] == [
            ("run-a", 2, "schema 1 (migrated)"), ("run-b", 2, "schema 1 (migrated)")]
    assert rows(path, "SELECT version, applied_by FROM schema_version ORDER BY version") == [
        (1, "before 3.0.0"), (2, "3.0.0"), (3, "3.0.0")]
    assert rows(path, "SELECT value FROM meta WHERE key = 'schema'") == [("3",)]


def test_a_partial_version_1_index_gains_its_columns_before_the_next_migration_reads_them(tmp_path):
    # An early 1.x index: fewer columns (no run_time, no quick_profile) - migration 2 reads both.
    path = str(tmp_path / "old.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema', '1')")
    conn.execute("CREATE TABLE figures (run_id TEXT NOT NULL, host TEXT NOT NULL, drive TEXT NOT NULL, "
                 "figure TEXT NOT NULL, value REAL, PRIMARY KEY (run_id, host, drive, figure))")
    conn.execute("INSERT INTO figures VALUES ('old-run', 'h1', 'd1', 'iops_4k_write', 5.0)")
    conn.commit()
    conn.close()
    with SqliteStore(path) as store:
        (row,) = store.query()
        assert row["value"] == 5.0 and row["run_time"] is None and set(row) == set(_schema.NAMES)
        assert [r["run_id"] for r in store.run_records()] == ["old-run"]


def test_a_failed_migration_leaves_the_index_as_it_was(tmp_path, monkeypatch):
    path = str(tmp_path / "pts-history.sqlite")
    conn = sqlite3.connect(path)
    for statement in BEFORE_3:
        conn.execute(statement)
    conn.commit()
    conn.close()
    broken = {**_schema.MIGRATIONS, 2: lambda dialect: ["CREATE TABLE runs (run_id TEXT)", "NOT SQL"]}
    monkeypatch.setattr(_schema, "MIGRATIONS", broken)
    with pytest.raises(HistoryError, match="syntax error"):
        SqliteStore(path)
    assert "runs" not in tables(path) and "schema_version" not in tables(path)
    assert rows(path, "SELECT value FROM meta") == [("1",)]


def _at_version_2(path: str) -> None:
    """A history as 3.0.0 before schema version 3 left it: no runs index, version 2 recorded."""
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX figures_population_runs")
    conn.execute("DELETE FROM schema_version WHERE version = 3")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    conn.commit()
    conn.close()


def test_a_version_2_history_is_read_as_it_is_and_migrated_by_its_first_writer(tmp_path):
    import random  # pylint: disable=import-outside-toplevel
    path = str(tmp_path / "pts-history.sqlite")
    prepared = history(random.Random(2))
    with SqliteStore(path) as store:
        store.write_runs(prepared)
        span = store.population_ranks("ACME X1", "1.0", False, {"iops_4k_write": 1.0}, "run-new", None)
    _at_version_2(path)
    assert "figures_population_runs" not in tables(path)
    # A reader never migrates: it reads the span by counting the rows, the same span.
    with SqliteStore(path, readonly=True) as store:
        assert store.schema == 2
        found = store.population_ranks("ACME X1", "1.0", False, {"iops_4k_write": 1.0}, "run-new", None)
        assert (found["runs"], found["from"], found["to"]) == (span["runs"], span["from"], span["to"])
        assert found["runs"] > 5
    with SqliteStore(path) as store:
        assert store.schema == 3 and store.version() == (3, "3.0.0")
    assert "figures_population_runs" in tables(path)
    assert rows(path, "SELECT version FROM schema_version ORDER BY version") == [(1,), (2,), (3,)]
