# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading and writing the results tree and its history index (plugin_utils/_safe_tree.py): bounded, link-free."""

from __future__ import annotations

import os
import sqlite3

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._safe_tree import BadFile, UnsafePath


@pytest.mark.parametrize("levels, refused", [(10, False), (64, False), (65, True), (5000, True), (200000, True)])
def test_json_nesting_is_bounded_whatever_python_would_allow(tmp_path, levels, refused):
    path = tmp_path / "round-01.json"
    path.write_text("[" * levels + "]" * levels)
    if not refused:
        assert _safe_tree.depth(_safe_tree.read_json(str(path)), 1000) == levels
        return
    with pytest.raises(BadFile) as caught:
        _safe_tree.read_json(str(path))
    assert caught.value.path == str(path) and caught.value.why == "JSON nested deeper than 64 levels: not read"


@pytest.mark.parametrize("text, why", [
    ('"a string"', "holds a JSON str, not the mapping the collection writes there"),
    ("{not json", "is not valid JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    (b"\xff\xfe{}", "is not UTF-8 text (invalid start byte at byte 0)"),
])
def test_a_record_that_is_not_one_is_named_with_why(tmp_path, text, why):
    path = tmp_path / "drive.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(BadFile) as caught:
        _safe_tree.read_record(str(path))
    assert str(caught.value) == f"{path}: {why}"


def test_a_file_over_its_limit_is_a_bad_file(tmp_path):
    path = tmp_path / "result.json"
    with open(path, "wb") as handle:
        handle.truncate(_safe_tree.MAX_JSON_BYTES + 1)
    with pytest.raises(BadFile, match=r"result.json: 67,108,865 bytes, more than the 67,108,864 bytes allowed"):
        _safe_tree.read_record(str(path))


def test_listing_and_walking_never_enter_a_link(tmp_path):
    (tmp_path / "run" / "h1" / "d1").mkdir(parents=True)
    (tmp_path / "run" / "h1" / "d1" / "round-01.json").write_text("{}")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "d9").mkdir(parents=True)
    (elsewhere / "d9" / "round-01.json").write_text("{}")
    (tmp_path / "run" / "h2").symlink_to(elsewhere)
    assert _safe_tree.subdirs(str(tmp_path / "run")) == ["h1"]
    walked = [(os.path.relpath(d, tmp_path), name) for d, name, dummy in _safe_tree.walk_files(str(tmp_path / "run"))]
    assert sorted(walked) == [("run", "h2"), ("run/h1/d1", "round-01.json")]
    assert not _safe_tree.isdir(str(tmp_path / "run" / "h2")) and _safe_tree.exists(str(tmp_path / "run" / "h2"))
    with pytest.raises(UnsafePath, match="h2: is a symbolic link"):
        _safe_tree.listdir(str(tmp_path / "run" / "h2" / "d9"))


def test_an_index_that_is_a_link_is_refused_and_its_target_never_made(tmp_path):
    outside = tmp_path / "outside" / "stolen.sqlite"
    outside.parent.mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "pts-history.sqlite").symlink_to(outside)
    with pytest.raises(UnsafePath, match="pts-history.sqlite: is a symbolic link, not a database file"):
        _safe_tree.connect_sqlite(str(tmp_path / "results" / "pts-history.sqlite"))
    assert not outside.exists()


@pytest.mark.parametrize("side", ["-journal", "-wal"])
def test_a_journal_that_is_not_a_plain_file_is_refused(tmp_path, side):
    db = tmp_path / "pts-history.sqlite"
    sqlite3.connect(db).close()
    os.mkfifo(str(db) + side)
    with pytest.raises(UnsafePath, match=f"pts-history.sqlite{side}: is a FIFO, not SQLite's journal"):
        _safe_tree.connect_sqlite(str(db))


def test_the_database_sqlite_opened_must_be_the_one_checked(tmp_path, monkeypatch):
    db = tmp_path / "pts-history.sqlite"
    sqlite3.connect(db).close()
    real_connect = sqlite3.connect

    def swapped(target, *args, **kwargs):
        os.rename(db, tmp_path / "checked.sqlite")  # between the check and SQLite's open: another file by that name
        real_connect(db).close()
        return real_connect(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", swapped)
    with pytest.raises(UnsafePath, match="changed while SQLite opened it"):
        _safe_tree.connect_sqlite(str(db))


def test_an_index_is_made_and_read_through_its_directory(tmp_path):
    db = str(tmp_path / "new" / "pts-history.sqlite")
    with pytest.raises(FileNotFoundError):
        _safe_tree.connect_sqlite(db, readonly=True)
    conn = _safe_tree.connect_sqlite(db)
    conn.execute("CREATE TABLE t (a)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    conn = _safe_tree.connect_sqlite(db, readonly=True)
    try:
        assert conn.execute("SELECT a FROM t").fetchall() == [(1,)]
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("INSERT INTO t VALUES (2)")
    finally:
        conn.close()
    assert conn.dir_fd == -1  # its directory's fd went with it


def test_resolve_gives_the_root_without_links(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    assert _safe_tree.resolve(str(tmp_path / "alias")) == str(tmp_path / "real")
    (tmp_path / "open").mkdir()
    os.chmod(tmp_path / "open", 0o1777)
    with pytest.raises(UnsafePath, match="every user can write it"):
        _safe_tree.check_root(str(tmp_path / "open"))
