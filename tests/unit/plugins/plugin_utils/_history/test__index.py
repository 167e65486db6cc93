# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history (plugin_utils/_history/), its SQLite back end: rows from the results files, the fleet summary's write,
rebuild, two writers at once, a corrupt or planted index. The PostgreSQL back end passes the same contract against a
real server: tests/integration/test_history_postgresql.py."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3

import pytest
from conftest import write_run

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _schema, _sqlite_store
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import CorruptIndex, HistoryError, NoHistory
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import (
    SETTINGS, _garbage, db_path, drive_files, make_run)


def connect(path: str, readonly: bool = False) -> _sqlite_store.SqliteStore:
    return _sqlite_store.SqliteStore(path, readonly=readonly)


def dump(path: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM figures ORDER BY run_id, host, drive, figure").fetchall()
    finally:
        conn.close()


def test_one_row_per_drive_and_figure_from_the_files(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [
        {"drive": "d1", "figures": {"iops_4k_write": 1000.0, "latency_4k_write_mean_ms": 0.5}},
        {"drive": "d2", "serial": "S2", "figures": {"iops_4k_write": 900.0}, "verdict": "FAIL", "steady": False}],
        fleet={("h1", "d1"): "PASS", ("h1", "d2"): "FAIL"})
    indexed = _index.index_runs([run_dir])
    assert indexed == {"databases": [db_path(root)], "runs": ["run-1"], "rows": 10}
    conn = connect(db_path(root), readonly=True)
    rows = {(r["drive"], r["figure"]): r for r in conn.query()}
    assert len(rows) == 10
    d1 = rows[("d1", "iops_4k_write")]
    assert (d1["value"], d1["unit"], d1["steady"], d1["state"]) == (1000.0, "IOPS", 1, "steady")
    assert (d1["serial"], d1["model"], d1["firmware"], d1["host"], d1["run_id"]) == ("S1", "ACME X1", "1.0", "h1", "run-1")
    assert (d1["profile"], d1["verdict"], d1["verdict_source"]) == ("full", "PASS", "fleet")
    assert d1["run_time"] == "2026-11-01T10:00:00.000+00:00"
    assert d1["settings"] == SETTINGS  # where files went (pts_run_remote_dir) is no setting
    assert d1["drive_dir"] == os.path.join("run-1", "h1", "d1")
    assert rows[("d1", "throughput_1024k_read_mb_s")]["value"] is None  # not measured: a row, no value
    assert rows[("d2", "iops_4k_write")]["steady"] == 0
    # Health and wear the results do not have: NULL, the columns stay.
    assert all(d1[c] is None for c in ("health", "temperature_c", "percentage_used", "media_errors",
                                       "max_temperature_c", "throttled_rounds", "warning_rounds",
                                       "host_bytes_written", "drive_bytes_written", "write_amplification"))
    assert conn.runs() == [{"run_id": "run-1", "run_time": "2026-11-01T10:00:00.000+00:00", "drives": 2,
                            "models": "ACME X1", "firmware": "1.0"}]
    conn.close()


def test_health_and_wear_where_the_results_have_them(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{
        "drive": "d1", "figures": {"iops_4k_write": 1.0},
        "health": {"tool": "nvme-cli", "temperature_c": 35, "percentage_used": 3, "bytes_written": 1000},
        "health_after": {"tool": "nvme-cli", "temperature_c": 51, "percentage_used": 4, "media_errors": 0,
                         "critical_warning": 0, "bytes_written": 5000},
        "round_health": {"read": 6, "max_c": 78, "max_at": {"test": "iops", "segment": "", "round": 3},
                         "tools": ["nvme smart-log"], "warning_c": 75, "critical_c": 85, "marked": [
                             {"test": "iops", "segment": "", "round": 3, "kinds": ["throttled", "warning"]},
                             {"test": "iops", "segment": "", "round": 4, "kinds": ["throttled"]}]}}])
    _index.index_runs([run_dir])
    conn = connect(db_path(root), readonly=True)
    (row,) = conn.query(figures=("iops_4k_write",))
    conn.close()
    assert (row["temperature_c"], row["percentage_used"], row["media_errors"], row["critical_warning"]) == (51, 4, 0, 0)
    assert row["drive_bytes_written"] == 4000  # the drive's own counter, after - before
    assert row["health"]["before"]["temperature_c"] == 35 and row["health"]["after"]["temperature_c"] == 51
    assert (row["max_temperature_c"], row["throttled_rounds"], row["warning_rounds"]) == (78, 2, 1)
    assert row["health"]["rounds"]["rounds"] == {"throttled": 2, "warning": 1, "errors": 0}
    # A result's own wear block (the wear accounting) wins over the counter delta.
    wear = {"host_bytes_written": 3000, "drive_bytes_written": 3600, "write_amplification": 1.2}
    drive_files(run_dir, "h1", "d1", {"iops_4k_write": 1.0}, wear=wear)
    _index.index_runs([run_dir])
    conn = connect(db_path(root), readonly=True)
    (row,) = conn.query(figures=("iops_4k_write",))
    conn.close()
    assert (row["host_bytes_written"], row["drive_bytes_written"], row["write_amplification"]) == (3000, 3600, 1.2)


def test_the_fleet_summary_indexes_its_run(tmp_path):
    # The real filing code and report (conftest), then the fleet summary: its hook indexes the run.
    run_dir = str(tmp_path / "results" / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [{"path": "/dev/loop9"}],
                                                       "acceptance": [], "drives": []}})
    write_run(run_dir, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    summary = _fleet_summary.summarize([run_dir], run_dir)
    database = db_path(str(tmp_path / "results"))
    assert summary["history"] == {"databases": [database], "runs": ["run-1"], "rows": 5, "written": True,
                                  "comparisons": []}
    conn = connect(database, readonly=True)
    (row,) = conn.query(figures=("iops_4k_write",))
    conn.close()
    assert row["value"] == summary["drives"][0]["headline"]["iops_4k_write"]
    assert (row["verdict"], row["verdict_source"]) == (summary["drives"][0]["verdict"], "fleet")
    assert row["quick_profile"] == 1 and row["tests"] == ["iops"]


def test_an_index_that_cannot_be_written_never_fails_the_summary(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    os.makedirs(db_path(root))  # a directory where the database goes
    out = _index.after_summary([run_dir])
    assert (out["rows"], out["written"], out["databases"]) == (0, False, [db_path(root)])
    assert out["error"] == f"history index not opened: {db_path(root)}: is a directory, not a database file"


def test_rebuild_is_idempotent_and_equals_the_hooks_index(tmp_path):
    root = str(tmp_path / "results")
    for number, value in enumerate((1000.0, 1100.0), 1):
        make_run(root, f"run-{number}", [{"drive": "d1", "figures": {"iops_4k_write": value}}],
                 when=f"2026-11-0{number}T10:00:00.000+00:00", fleet={("h1", "d1"): "PASS"})
        _index.index_runs([os.path.join(root, f"run-{number}")])
    database = db_path(root)
    hooked = dump(database)
    assert _index.rebuild(root) == {"database": database, "runs": ["run-1", "run-2"], "dropped": [], "rows": 10}
    assert dump(database) == hooked
    _index.rebuild(root)
    assert dump(database) == hooked
    os.unlink(database)
    _index.rebuild(root)
    assert dump(database) == hooked


def test_rebuild_drops_what_is_gone_from_disk(tmp_path):
    root = str(tmp_path / "results")
    make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}},
                             {"drive": "d2", "figures": {"iops_4k_write": 2.0}}])
    make_run(root, "run-2", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    os.makedirs(os.path.join(root, "compare", "x"))  # a comparison's output is no run
    database = db_path(root)
    _index.rebuild(root)
    assert {(r[0], r[2]) for r in dump(database)} == {("run-1", "d1"), ("run-1", "d2"), ("run-2", "d1")}
    # A drive gone from a run: one run's rebuild drops its rows; a run gone: the full rebuild drops it.
    os.unlink(os.path.join(root, "run-1", "h1", "d2", "result.json"))
    assert _index.rebuild(root, ["run-1"])["dropped"] == []
    assert {(r[0], r[2]) for r in dump(database)} == {("run-1", "d1"), ("run-2", "d1")}
    os.rename(os.path.join(root, "run-2"), os.path.join(root, ".run-2-deleted"))
    assert _index.rebuild(root)["dropped"] == ["run-2"]
    assert {(r[0], r[2]) for r in dump(database)} == {("run-1", "d1")}


def test_an_upsert_replaces_a_runs_rows(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    _index.index_runs([run_dir])
    drive_files(run_dir, "h1", "d1", {"iops_4k_write": 2.0}, firmware="1.1")
    _index.index_runs([run_dir])
    rows = [r for r in dump(db_path(root)) if r[3] == "iops_4k_write"]
    assert len(rows) == 1 and rows[0][4] == 2.0 and rows[0][10] == "1.1"


def _writer(root: str, run: str, times: int) -> None:
    for dummy in range(times):
        _index.index_runs([os.path.join(root, run)])


def test_two_writers_at_once_both_land(tmp_path):
    root = str(tmp_path / "results")
    runs = [f"run-{n}" for n in range(4)]
    for number, run in enumerate(runs):
        make_run(root, run, [{"drive": f"d{d}", "serial": f"S{d}", "figures": {"iops_4k_write": 100.0 + number}}
                             for d in range(5)])
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(root, run, 15)) for run in runs]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    rows = dump(db_path(root))
    # PTS-E 1.1's figures always have a row, PTS 2.0's only for a drive that ran the test (these did not).
    assert len(rows) == 4 * 5 * len([f for f, spec in _headline_figures.FIGURES.items() if not spec.get("optional")])
    assert {r[0] for r in rows} == set(runs)


def _malformed(path: str) -> bytes:
    """A real index whose pages after the first (the figures table) are overwritten: a database SQLite opens and
    then finds damaged."""
    with open(path, "r+b") as handle:
        size = os.fstat(handle.fileno()).st_size
        handle.seek(4096)
        handle.write(b"\xff" * (size - 4096))
        handle.seek(0)
        return handle.read()


@pytest.mark.parametrize("damage", [_garbage, _malformed])
@pytest.mark.parametrize("runs", [None, ["run-2"]])
def test_a_corrupt_index_is_moved_aside_kept_and_rebuilt_from_every_run(tmp_path, damage, runs):
    root = str(tmp_path / "results")
    for number in (1, 2):
        make_run(root, f"run-{number}", [{"drive": "d1", "figures": {"iops_4k_write": 1000.0 * number}}],
                 when=f"2026-11-0{number}T10:00:00.000+00:00")
    database = db_path(root)
    _index.rebuild(root)
    sound = dump(database)
    for number in range(3):  # an index with many pages, so that the damage misses the first
        drives = [{"drive": f"d{d}", "serial": f"S{d}", "figures": {"iops_4k_write": 1.0}} for d in range(20)]
        make_run(root, f"run-{number + 3}", drives)
        _index.index_runs([os.path.join(root, f"run-{number + 3}")])
        shutil.rmtree(os.path.join(root, f"run-{number + 3}"))
    before = damage(database)
    rebuilt = _index.rebuild(root, runs)
    moved = rebuilt["moved_aside"]["path"]
    assert os.path.basename(moved).startswith("pts-history.sqlite.corrupt-20")
    assert rebuilt["moved_aside"]["why"] in ("file is not a database", "database disk image is malformed")
    with open(moved, "rb") as handle:
        assert handle.read() == before
    # Every run of the tree, not only the one asked for: the new index started empty.
    assert rebuilt["runs"] == ["run-1", "run-2"] and dump(database) == sound
    assert "moved_aside" not in _index.rebuild(root, runs)


def test_a_corrupt_index_is_named_with_what_rebuilds_it(tmp_path):
    database = str(tmp_path / "pts-history.sqlite")
    _garbage(database)
    for readonly in (True, False):
        with pytest.raises(CorruptIndex) as caught:
            connect(database, readonly=readonly)
        assert str(caught.value) == (f"{database}: file is not a database: playbooks/report.yml moves it aside and "
                                     "rebuilds it from the results tree")


def _newer(path: str) -> None:
    """The index as a later collection (schema 99) leaves it."""
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version VALUES (99, '2031-01-01T00:00:00Z', '9.0.0')")
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    conn.commit()
    conn.close()


def test_a_locked_or_newer_index_is_not_taken_for_a_corrupt_one(tmp_path):
    root = str(tmp_path / "results")
    make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    database = db_path(root)
    _index.rebuild(root)
    _newer(database)
    with pytest.raises(HistoryError, match="newer than this collection") as caught:
        _index.rebuild(root)
    assert not isinstance(caught.value, CorruptIndex)
    assert str(caught.value) == (f"{database}: the history is at schema version 99, written by fleetqual.pts 9.0.0, "
                                 f"newer than this collection's ({_schema.SCHEMA_VERSION}): use that version of "
                                 "fleetqual.pts or a later one with it, or give another history (pts_history_url); "
                                 "nothing was read or written")
    assert sorted(os.listdir(root)) == ["pts-history.sqlite", "run-1"]


def test_reading_needs_an_index_of_a_known_schema(tmp_path):
    with pytest.raises(NoHistory, match="no history index at"):
        connect(str(tmp_path / "none.sqlite"), readonly=True)
    path = str(tmp_path / "new.sqlite")
    connect(path).close()
    _newer(path)
    for readonly in (True, False):
        with pytest.raises(HistoryError, match="newer than this collection"):
            connect(path, readonly=readonly)
    # An index from before 3.0.0 (its version in meta alone) that says it is newer is refused too.
    old = str(tmp_path / "old.sqlite")
    conn = sqlite3.connect(old)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema', '7')")
    conn.commit()
    conn.close()
    with pytest.raises(HistoryError, match="at schema version 7, newer"):
        connect(old, readonly=True)


def test_query_filters(tmp_path):
    root = str(tmp_path / "results")
    make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}},
                             {"drive": "d2", "serial": "S2", "model": None, "figures": {"iops_4k_write": 1.0}}])
    make_run(root, "run-2", [{"drive": "d1", "firmware": "2.0", "figures": {"iops_4k_write": 1.0}}],
             when="2026-11-02T10:00:00.000+00:00")
    _index.rebuild(root)
    conn = connect(db_path(root), readonly=True)
    one = ("iops_4k_write",)
    assert [r["run_id"] for r in conn.query(model="ACME X1", figures=one)] == ["run-1", "run-2"]
    assert [r["run_id"] for r in conn.query(model="ACME X1", firmware=["2.0"], figures=one)] == ["run-2"]
    assert [r["drive"] for r in conn.query(no_model=True, figures=one)] == ["d2"]
    assert [r["run_id"] for r in conn.query(serials=["S1"], figures=one)] == ["run-1", "run-2"]
    assert conn.query(runs=[]) == []
    assert conn.firmware_of("ACME X1") == ["1.0", "2.0"] and conn.models() == ["ACME X1"]
    conn.close()


def test_an_older_index_gains_the_new_columns(tmp_path):
    path = str(tmp_path / "old.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema', '1')")
    conn.execute("CREATE TABLE figures (run_id TEXT NOT NULL, host TEXT NOT NULL, drive TEXT NOT NULL, "
                 "figure TEXT NOT NULL, value REAL, PRIMARY KEY (run_id, host, drive, figure))")
    conn.execute("INSERT INTO figures VALUES ('old-run', 'h1', 'd1', 'iops_4k_write', 5.0)")
    conn.commit()
    conn.close()
    connect(path).close()
    conn = connect(path, readonly=True)
    (row,) = conn.query()
    conn.close()
    assert row["value"] == 5.0 and row["serial"] is None and set(row) == set(_schema.NAMES)


def test_an_index_planted_as_a_link_is_refused_and_nothing_is_written_where_it_points(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    outside = tmp_path / "outside.sqlite"
    os.symlink(outside, db_path(root))
    indexed = _index.after_summary([run_dir])
    assert indexed["error"] == (f"history index not opened: {db_path(root)}: is a symbolic link, not a database "
                                "file")
    assert not outside.exists()
    with pytest.raises(HistoryError, match="is a symbolic link"):
        _index.rebuild(root)
    assert not outside.exists()


def test_a_result_json_that_is_not_one_is_left_out_of_the_index_and_named(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}},
                                       {"drive": "d2", "figures": {"iops_4k_write": 2.0}}])
    path = os.path.join(run_dir, "h1", "d2", "result.json")
    model = _results.read_json(path)
    model["headline"]["iops_4k_write"]["value"] = "2.0"
    _results.atomic_write_json(path, model)
    rebuilt = _index.rebuild(root)
    assert rebuilt["skipped"] == [{"path": path, "why": "headline.iops_4k_write.value is a str, not a number"}]
    conn = connect(db_path(root), readonly=True)
    assert {row["drive"] for row in conn.query()} == {"d1"}
    conn.close()
