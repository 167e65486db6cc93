# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The shared history on a real PostgreSQL server (tests/integration/pg.py starts Debian's in a temporary directory and
stops it after): the schema migrated from an empty database and from the index collections before 3.0.0 kept, a newer
one refused, the same rows and reads as the SQLite back end, writers at once landing whole, one write one transaction,
job slices of one run keeping each other's rows, and no password in any message."""

from __future__ import annotations

import multiprocessing
import os
import random
import threading
import time

import psycopg
import pytest

import history_trees as trees
from pg import PostgreSQL

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _location, _lookup, _rows, _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError, NoHistory
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store
# The population comparison as it was (every value read), the reference the lookup by rank is held to: the unit tests'.
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history import (
    _population_reference as reference)

IOPS = "iops_4k_write"


@pytest.fixture(scope="module")
def server():
    if os.geteuid() != 0:
        pytest.fail("the integration tests run as root (PostgreSQL is started as another user)")
    cluster = PostgreSQL()
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def database(server, request):
    """An empty database of the test's own, and the history spec that names it."""
    name = "t_" + "".join(c for c in request.node.name.lower() if c.isalnum())[:50]
    return _location.resolve(server.new_database(name))


def scalar(spec, statement: str):
    with psycopg.connect(spec.url) as conn:
        return conn.execute(statement).fetchone()[0]


def fleet(root: str) -> list[str]:
    """Three runs of ACME X1 1.0 (full profile), one of 2.0, one quick run."""
    made = []
    for number in range(1, 4):
        made.append(trees.run(root, f"run-{number}", trees.day(number), [
            {"drive": f"d{d}", "serial": f"S{d}",
             "figures": {IOPS: 1000.0 * number + d, "latency_4k_write_mean_ms": 0.5 + d / 10}} for d in range(4)]))
    made.append(trees.run(root, "run-fw2", trees.day(4), [{"drive": "d0", "serial": "S0", "firmware": "2.0",
                                                           "figures": {IOPS: 5000.0}}]))
    made.append(trees.run(root, "run-quick", trees.day(5), [{"drive": "d0", "serial": "S0", "figures": {IOPS: 10.0}}],
                          quick=True))
    return made


def test_an_empty_database_is_migrated_to_this_collections_schema(database):
    with open_store(database, None) as store:
        assert store.version()[0] == _schema.SCHEMA_VERSION
        assert store.tables() == {"schema_version", "meta", "figures", "runs"}
    rows = psycopg.connect(database.url).execute("SELECT version, applied_by FROM schema_version ORDER BY 1").fetchall()
    assert [r[0] for r in rows] == [1, 2, 3] and all(r[1] == "3.0.0" for r in rows)
    assert scalar(database, "SELECT value FROM meta WHERE key = 'schema'") == str(_schema.SCHEMA_VERSION)
    # Again: nothing more to apply.
    with open_store(database, None) as store:
        assert store.migrate() == []
    assert scalar(database, "SELECT COUNT(*) FROM schema_version") == 3


def test_a_database_at_the_schema_collections_before_3_kept_is_migrated(database, tmp_path):
    with psycopg.connect(database.url, autocommit=True) as conn:
        for statement in _schema.statements(_schema.POSTGRESQL, 1, "2026-01-01T00:00:00Z"):
            conn.execute(statement)
        conn.execute("INSERT INTO meta VALUES ('schema', '1')")
        conn.execute("INSERT INTO figures (run_id, host, drive, figure, value, model, firmware, run_time, "
                     "quick_profile, steady) VALUES ('old', 'h1', 'd1', 'iops_4k_write', 7.0, 'ACME X1', '1.0', "
                     "'2026-01-01T00:00:00Z', 0, 1)")
    with open_store(database, None) as store:
        assert store.migrate() == []  # opening it migrated it
        (row,) = store.query()
        assert (row["run_id"], row["value"]) == ("old", 7.0)
        (record,) = store.run_records()
        assert (record["run_id"], record["indexed_by"], record["drives"]) == ("old", "schema 1 (migrated)", 1)
    versions = psycopg.connect(database.url).execute(
        "SELECT version, applied_by FROM schema_version ORDER BY 1").fetchall()
    assert versions == [(1, "before 3.0.0"), (2, "3.0.0"), (3, "3.0.0")]


def test_a_database_newer_than_the_collection_is_refused_read_or_write(database, tmp_path):
    root = str(tmp_path / "results")
    (run_dir,) = fleet(root)[:1]
    _index.index_runs([run_dir], database)
    with psycopg.connect(database.url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99, '2031-01-01', '9.0.0')")
    before = scalar(database, "SELECT COUNT(*) FROM figures")
    for readonly in (True, False):
        with pytest.raises(HistoryError) as caught:
            open_store(database, None, readonly=readonly)
        assert str(caught.value).startswith(f"{database.shown()}: the history is at schema version 99, written by "
                                            "fleetqual.pts 9.0.0, newer than this collection's (3)")
    written = _index.after_summary([run_dir], database)
    assert written["written"] is False and "newer than this collection's" in written["error"]
    assert scalar(database, "SELECT COUNT(*) FROM figures") == before


def test_the_same_rows_and_reads_as_sqlite(database, tmp_path):
    root = str(tmp_path / "results")
    fleet(root)
    sqlite = _location.Spec()
    for spec in (sqlite, database):
        assert _index.rebuild(root, None, spec)["rows"] == 3 * 4 * 5 + 5 + 5
    with open_store(sqlite, root, readonly=True) as one, open_store(database, root, readonly=True) as other:
        assert one.query() == other.query()
        assert one.runs() == other.runs()
        assert (one.models(), one.firmware_of("ACME X1")) == (other.models(), other.firmware_of("ACME X1"))
        for store in (one, other):
            assert [r["run_id"] for r in store.previous_runs("ACME X1", "1.0", "run-3", trees.day(3))] == \
                ["run-2", "run-1"]
        pops = [s.population("ACME X1", "1.0", False, [IOPS], "run-9", trees.day(9)) for s in (one, other)]
        assert pops[0] == pops[1]
        # The full-profile population of firmware 1.0: twelve values, never the quick run's 10 IOPS nor 2.0's 5000.
        assert pops[0]["values"][IOPS] == sorted(1000.0 * n + d for n in range(1, 4) for d in range(4))
        assert (pops[0]["runs"], pops[0]["from"], pops[0]["to"]) == (3, trees.day(1), trees.day(3))


def test_the_population_by_rank_equals_every_value_read_and_sqlite(database, tmp_path):
    """PostgreSQL's doubles, sort and arithmetic give the same block as the reference and as SQLite, to the bit."""
    rng = random.Random(3939)
    prepared = reference.history(rng)
    sqlite = _location.Spec()
    root = str(tmp_path / "results")
    os.makedirs(root)
    for spec in (sqlite, database):
        with open_store(spec, root) as store:
            store.write_runs(prepared)
    with open_store(sqlite, root, readonly=True) as one, open_store(database, root, readonly=True) as other:
        for lookup in reference.lookups(rng, prepared, 40):
            new, old = reference.both(other, lookup)
            assert new == old, lookup
            assert new == reference.both(one, lookup)[0], lookup


def _writer(url: str, run_dir: str, times: int) -> None:
    spec = _location.resolve(url)
    for dummy in range(times):
        _index.index_runs([run_dir], spec)


def test_writers_at_once_all_land_whole(database, tmp_path):
    root = str(tmp_path / "results")
    runs = [trees.run(root, f"run-{n}", trees.day(n + 1),
                      [{"drive": f"d{d}", "serial": f"S{n}-{d}", "figures": {IOPS: 100.0 + d}} for d in range(20)])
            for n in range(4)]
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(database.url, run_dir, 10)) for run_dir in runs]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    assert scalar(database, "SELECT COUNT(*) FROM figures") == 4 * 20 * len(trees.PTS1)
    assert scalar(database, "SELECT COUNT(DISTINCT run_id) FROM runs") == 4


def test_a_write_that_fails_leaves_nothing(database, tmp_path):
    root = str(tmp_path / "results")
    good = trees.run(root, "good", trees.day(1), [{"drive": "d1", "serial": "S1", "figures": {IOPS: 1.0}}])
    _index.index_runs([good], database)
    before = scalar(database, "SELECT COUNT(*) FROM figures")
    with open_store(database, None) as store:
        rows = [dict(r, run_id="more", value=2.0) for r in _rows.run_rows(good)]
        bad = dict(rows[0], host=None)  # NOT NULL: the server refuses it, after the rows before it were sent
        with pytest.raises(HistoryError, match="null value"):
            store.write_runs([("more", rows + [bad], {"h1"})])
    assert scalar(database, "SELECT COUNT(*) FROM figures") == before
    assert scalar(database, "SELECT COUNT(*) FROM figures WHERE run_id = 'more'") == 0


def test_slices_of_one_run_keep_each_others_rows(database, tmp_path):
    # Two controllers (AWX job slices on two execution nodes), one run id, no shared results volume.
    first, second = str(tmp_path / "node-a"), str(tmp_path / "node-b")
    slice_a = trees.run(first, "sliced", trees.day(1), [{"host": "h-a", "drive": "d1", "serial": "A1",
                                                         "figures": {IOPS: 1.0}},
                                                        {"host": "h-a", "drive": "d2", "serial": "A2",
                                                         "figures": {IOPS: 2.0}}])
    slice_b = trees.run(second, "sliced", trees.day(1), [{"host": "h-b", "drive": "d1", "serial": "B1",
                                                          "figures": {IOPS: 3.0}}])
    _index.index_runs([slice_a], database)
    _index.index_runs([slice_b], database)
    _index.index_runs([slice_a], database)  # again: node b's host stays

    def drives():
        with open_store(database, None, readonly=True) as store:
            return sorted({(r["host"], r["drive"]) for r in store.query(runs=["sliced"])})

    assert drives() == [("h-a", "d1"), ("h-a", "d2"), ("h-b", "d1")]
    os.unlink(os.path.join(slice_a, "h-a", "d2", "result.json"))  # a drive gone from node a's tree
    assert _index.rebuild(first, None, database)["dropped"] == []  # a shared history drops no run
    assert drives() == [("h-a", "d1"), ("h-b", "d1")]
    with open_store(database, None, readonly=True) as store:
        (record,) = store.run_records()
        assert record["drives"] == 2 and record["indexed_by"]


def test_no_password_in_any_message(server, database, tmp_path, monkeypatch):
    shown = database.shown()
    assert server.password not in shown and server.quoted_password() not in shown and ":" not in shown.split("@")[0][13:]
    wrong = _location.resolve(server.url().replace(server.quoted_password(), "Not-The-Password-1"))
    with pytest.raises(HistoryError) as caught:
        open_store(wrong, None)
    assert "password authentication failed" in str(caught.value) and "Not-The-Password-1" not in str(caught.value)
    # The password from elsewhere: pts_history_password (a vaulted variable), then PGPASSWORD; a Unix socket.
    over_socket = server.socket_url()
    with open_store(_location.resolve(over_socket, server.password), None) as store:
        assert store.version()[0] == _schema.SCHEMA_VERSION
    monkeypatch.setenv("PGPASSWORD", server.password)
    with open_store(_location.resolve(over_socket), None) as store:
        assert store.shown == over_socket
    monkeypatch.delenv("PGPASSWORD")
    # A message that quotes the password (as a server's might) is scrubbed.
    spec = _location.resolve(server.url())
    assert server.password not in spec.scrub(f"x {server.password} y {server.quoted_password()}")
    # The server gone: the error names the database, never its password.
    root = str(tmp_path / "results")
    run_dir = trees.run(root, "r", trees.day(1), [{"drive": "d1", "serial": "S1", "figures": {IOPS: 1.0}}])
    server.stop()
    try:
        written = _index.after_summary([run_dir], spec)
        model = {"drive": {"model": "ACME X1", "firmware": "1.0"}, "tests": {"iops": {}}}
        found = _lookup.drive_history(os.path.join(run_dir, "h1", "d1"), model, spec)
    finally:
        server.start()
    assert written["written"] is False and written["error"].startswith(f"{spec.shown()}: could not connect")
    assert found["population"]["error"].startswith(f"{spec.shown()}: could not connect")
    for text in (written["error"], found["population"]["error"], str(written), repr(spec)):
        assert server.password not in text and server.quoted_password() not in text


def test_a_server_with_every_connection_taken_is_waited_for(server, database):
    # Every drive report of a large fleet ending at once opens its own short connection: at the limit, one waits.
    name = database.url.rsplit("/", 1)[1]
    open_store(database, None).close()
    server.sql(f"ALTER DATABASE {name} CONNECTION LIMIT 1")
    try:
        held = psycopg.connect(database.url)
        releaser = threading.Timer(2.0, held.close)
        releaser.start()
        started = time.monotonic()
        with open_store(database, None, readonly=False) as store:
            waited = time.monotonic() - started
            assert store.version()[0] == _schema.SCHEMA_VERSION
        releaser.join()
        assert waited >= 1.5
    finally:
        server.sql(f"ALTER DATABASE {name} CONNECTION LIMIT -1")


def test_reading_an_empty_database_says_so(database):
    with pytest.raises(NoHistory, match="no run was ever written to this history"):
        open_store(database, None, readonly=True)


def test_a_missing_client_library_is_named(monkeypatch, database):
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _pg_store, _preflight
    monkeypatch.setattr(_pg_store, "psycopg", None)
    monkeypatch.setattr(_pg_store, "IMPORT_ERROR", ImportError("No module named 'psycopg'"))
    with pytest.raises(ValueError) as caught:
        _preflight.before_the_run(database)
    assert str(caught.value) == (f"history_url (pts_history_url): {database.shown()}: a postgresql:// history needs "
                                 "the psycopg Python package on the controller (pip install 'psycopg[binary]'; "
                                 "requirements.txt names it, the execution environment has it): "
                                 "No module named 'psycopg'")
    with pytest.raises(HistoryError, match="needs the psycopg Python package"):
        open_store(database, None)
    _preflight.before_the_run(_location.Spec())  # SQLite needs nothing
