# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The history index: every finished run of a results root in one SQLite file beside the runs
(``<root>/pts-history.sqlite``), one row per run x host x drive x headline figure (PTS-E 1.1's always, PTS 2.0's
when the drive ran the test), with the drive's identity, the
run's profile and settings, its verdict, and health and wear where the results have them.

The index holds nothing the results tree does not: each run's rows are read from its files (result.json, drive.json,
plan.json, fleet.json) and can be written again at any time (``index_run``, ``rebuild``). Writers take SQLite's write
lock for the whole run (BEGIN IMMEDIATE) and wait for another writer up to ``BUSY_TIMEOUT_S``: two runs finishing at
once both land, whole."""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import sqlite3

from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import RUN_ID_RE
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _result_files, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _previous

# The drive report reads the index too (its previous run, _report/_previous.py): one name for both.
DB_NAME = _previous.DB_NAME
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 60.0

# (column, SQL type) in table order; the key is (run_id, host, drive, figure).
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
# Settings that say where files went, not how the drive was tested: left out of "settings".
_NOT_SETTINGS = ("pts_run_remote_dir",)

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS figures (" + ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    + ", PRIMARY KEY (" + ", ".join(KEY) + "))",
)
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS figures_model ON figures (model, firmware)",
    "CREATE INDEX IF NOT EXISTS figures_serial ON figures (serial)",
)
_UPSERT = ("INSERT INTO figures (" + ", ".join(NAMES) + ") VALUES (" + ", ".join("?" for dummy in NAMES) + ") "
           "ON CONFLICT (" + ", ".join(KEY) + ") DO UPDATE SET "
           + ", ".join(f"{name} = excluded.{name}" for name in NAMES if name not in KEY))


# SQLite's primary result codes for a file that is not, or no longer, a database: SQLITE_CORRUPT, SQLITE_NOTADB.
_CORRUPT_CODES = (11, 26)
# The files SQLite keeps beside a database: a hot journal beside a new index would be played back into it.
_SIDE_FILES = ("-journal", "-wal", "-shm")


class HistoryError(Exception):
    """The index cannot be read or written (no database, a database of a newer schema)."""


class CorruptIndex(HistoryError):
    """The index file is not a SQLite database, or a damaged one: rebuild() moves it aside and builds it again."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path}: {why}: playbooks/report.yml moves it aside and rebuilds it from the results tree")
        self.why = why


def _is_corrupt(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _CORRUPT_CODES
    return "file is not a database" in str(exc) or "malformed" in str(exc)


def _failed(path: str, exc: sqlite3.Error) -> HistoryError:
    return CorruptIndex(path, str(exc)) if _is_corrupt(exc) else HistoryError(f"{path}: {exc}")


def _damage(path: str) -> str | None:
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


def db_path(root: str) -> str:
    """Where a results root keeps its index."""
    return os.path.join(root, DB_NAME)


@contextlib.contextmanager
def _writing(conn: sqlite3.Connection):
    """One write transaction holding the database's write lock from its start (another writer waits up to the busy
    timeout); rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        # A damaged database may refuse the rollback too; the error that ended the transaction is the one to tell.
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def connect(path: str, readonly: bool = False) -> sqlite3.Connection:
    """The index at ``path``, with a busy timeout; created with its schema unless ``readonly`` (then it must exist).
    Opened as plugin_utils/_safe_tree.connect_sqlite opens a database: a link, a FIFO or a directory another user can
    change in its place is a HistoryError naming it."""
    try:
        conn = _safe_tree.connect_sqlite(path, readonly=readonly, timeout=BUSY_TIMEOUT_S)
    except FileNotFoundError:
        raise HistoryError(f"no history index at {path}") from None
    except OSError as exc:
        raise HistoryError(f"history index not opened: {exc}") from None
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        if not readonly:
            with _writing(conn):
                for statement in _TABLES:
                    conn.execute(statement)
                # An index an older version wrote gains the columns added since (NULL until its runs are indexed
                # again); nothing is ever dropped.
                have = {row["name"] for row in conn.execute("PRAGMA table_info(figures)").fetchall()}
                for name, kind in COLUMNS:
                    if name not in have:
                        conn.execute(f"ALTER TABLE figures ADD COLUMN {name} {kind.replace(' NOT NULL', '')}")
                for statement in _INDEXES:
                    conn.execute(statement)
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        found = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise _failed(path, exc) from None
    if found is None or int(found["value"]) > SCHEMA_VERSION:
        conn.close()
        raise HistoryError(f"{path}: index schema {found and found['value']!r} is newer than this collection's "
                           f"({SCHEMA_VERSION}): rebuild it with this version or use the newer one")
    return conn


# --- reading one run from its files -------------------------------------------------------------------------------

def _read(path: str, skipped: list | None = None) -> dict | None:
    """A record of the tree, or None when it is missing or not one (then, with ``skipped``, the file and why)."""
    try:
        return _results.read_json(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        if skipped is not None:
            skipped.append({"path": path, "why": str(exc)})
        return None


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _integer(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def _round_health(result: dict) -> dict | None:
    """The per-round health summary of the report (result.json's round_health), in brief: None when no round was
    read (a loop device, a run from before per-round health)."""
    summary = result.get("round_health")
    if not isinstance(summary, dict) or not summary.get("read"):
        return None
    marked = [m for m in summary.get("marked") or [] if isinstance(m, dict)]
    return {"read": summary.get("read"), "max_c": summary.get("max_c"), "max_at": summary.get("max_at"),
            "warning_c": summary.get("warning_c"), "critical_c": summary.get("critical_c"),
            "tools": summary.get("tools"),
            "rounds": {kind: sum(1 for m in marked if kind in (m.get("kinds") or []))
                       for kind in ("throttled", "warning", "errors")}}


def _health(drive: dict, result: dict) -> dict:
    """Health columns from what the results hold: the snapshots before (drive.json) and after (health-after.json),
    and the per-round health when the run read it. The snapshot columns prefer the one after the tests."""
    before = drive.get("health") or None
    after = result.get("health_after") or None
    rounds = _round_health(result)
    kept = {k: v for k, v in (("before", before), ("after", after), ("rounds", rounds)) if v}
    last = after or before or {}
    return {
        "health": json.dumps(kept, sort_keys=True, default=str) if kept else None,
        "temperature_c": _number(last.get("temperature_c")),
        "percentage_used": _number(last.get("percentage_used")),
        "media_errors": _integer(last.get("media_errors")),
        "critical_warning": _integer(last.get("critical_warning")),
        "max_temperature_c": _number((rounds or {}).get("max_c")),
        "throttled_rounds": (rounds or {}).get("rounds", {}).get("throttled"),
        "warning_rounds": (rounds or {}).get("rounds", {}).get("warning"),
    }


def _wear(drive: dict, result: dict) -> dict:
    """Wear columns: a result's own wear block when it has one; else the drive's bytes-written counter before and
    after the run (its delta), when the drive reports one."""
    wear = result.get("wear") if isinstance(result.get("wear"), dict) else {}
    before = (drive.get("health") or {}).get("bytes_written")
    after = (result.get("health_after") or {}).get("bytes_written")
    delta = after - before if _integer(before) is not None and _integer(after) is not None else None
    return {
        "host_bytes_written": _integer(wear.get("host_bytes_written")),
        "drive_bytes_written": _integer(wear.get("drive_bytes_written")) if wear.get("drive_bytes_written")
        is not None else delta,
        "write_amplification": _number(wear.get("write_amplification")),
    }


def _fleet_verdicts(run_dir: str, fleet_json: str | None) -> dict:
    """{(host, drive): verdict} from the fleet summary of this run (it adds cohort outliers to the drive's own)."""
    run = os.path.basename(os.path.normpath(run_dir))
    verdicts: dict = {}
    for path in (fleet_json, os.path.join(run_dir, "fleet.json")):
        summary = _read(path) if path else None
        drives = (summary or {}).get("drives")
        for record in drives if isinstance(drives, list) else []:
            if isinstance(record, dict) and record.get("run", run) == run and isinstance(record.get("verdict"), str):
                verdicts.setdefault((record.get("host"), record.get("drive")), record["verdict"])
    return verdicts


def _run_time(run_dir: str) -> str | None:
    """When the run started: the earliest plan of its hosts; else when its fleet summary was written."""
    times = []
    for host in _safe_tree.subdirs(run_dir):
        recorded = ((_read(os.path.join(run_dir, host, "plan.json")) or {}).get("command") or {}).get("recorded_at")
        if recorded:
            times.append(str(recorded))
    if times:
        return min(times)
    return (_read(os.path.join(run_dir, "fleet.json")) or {}).get("generated_at")


def _result(path: str, skipped: list | None) -> dict | None:
    """A drive's result.json as the report writes it, or None (missing; not one: skipped, with the file and why)."""
    found = _read(path, skipped)
    if found is None:
        return None
    try:
        return _result_files.check_result(found, path)
    except ValueError as exc:
        if skipped is not None:
            skipped.append({"path": path, "why": str(exc).split(": ", 1)[-1]})
        return None


def run_rows(run_dir: str, fleet_json: str | None = None, skipped: list | None = None) -> list[dict]:
    """Every row of one run, from its files: per drive with a result.json, one row per headline figure. A result.json
    that is not one is left out (with ``skipped``: its path and why)."""
    run = os.path.basename(os.path.normpath(run_dir))
    verdicts = _fleet_verdicts(run_dir, fleet_json)
    run_time = _run_time(run_dir)
    plans: dict = {}
    rows = []
    for drive_dir in _results.drive_dirs(run_dir):
        result = _result(os.path.join(drive_dir, "result.json"), skipped)
        if not result or (result.get("raid_member") and not result.get("tests")):
            continue  # no report (yet), or a RAID member measured as part of its md array: nothing of its own
        host_dir = os.path.dirname(drive_dir)
        host, drive_name = os.path.basename(host_dir), os.path.basename(drive_dir)
        if host_dir not in plans:
            plans[host_dir] = (_read(os.path.join(host_dir, "plan.json")) or {}).get("plan") or {}
        plan = plans[host_dir]
        drive = result.get("drive") or (_read(os.path.join(drive_dir, "drive.json")) or {}).get("drive") or {}
        variables = {k: v for k, v in (plan.get("variables") or {}).items() if k not in _NOT_SETTINGS}
        headline = result.get("headline") or {}
        verdict = verdicts.get((host, drive_name))
        own = (result.get("verdict") or {}).get("verdict")
        common = {
            "run_id": run, "host": host, "drive": drive_name,
            "serial": drive.get("serial") or None, "model": drive.get("model") or None,
            "firmware": drive.get("firmware") or None, "vendor": drive.get("vendor") or None,
            "wwn": drive.get("wwn") or None, "capacity_bytes": _integer(drive.get("size_bytes")),
            "interface": drive.get("interface"), "run_time": run_time,
            "profile": plan.get("profile") or ("quick" if result.get("quick_profile") else None),
            "quick_profile": int(bool(result.get("quick_profile"))),
            "tests": json.dumps(sorted((result.get("tests") or {}).keys())),
            "settings": json.dumps(variables, sort_keys=True, default=str) if variables else None,
            "verdict": verdict or own, "verdict_source": "fleet" if verdict else ("report" if own else None),
            "drive_dir": os.path.relpath(drive_dir, os.path.dirname(os.path.normpath(run_dir))),
            **_health(drive, result), **_wear(drive, result),
        }
        ran = set((result.get("tests") or {}).keys())
        for figure, spec in _headline_figures.FIGURES.items():
            if spec.get("optional") and spec["test"] not in ran:
                continue  # a PTS 2.0 figure of a test the drive did not run: no row (the PTS-E 1.1 ones always have)
            entry = headline.get(figure) if isinstance(headline.get(figure), dict) else {}
            rows.append(dict(common, figure=figure, value=_number(entry.get("value")),
                             unit=entry.get("unit") or spec["unit"], state=entry.get("state"),
                             steady=int(bool(entry.get("steady")))))
    return rows


# --- writing ------------------------------------------------------------------------------------------------------

def _write_run(conn: sqlite3.Connection, run: str, rows: list[dict]) -> None:
    """Upsert the run's rows and drop its rows that are no longer in its tree (a drive removed, a figure gone)."""
    keep = {tuple(row[k] for k in KEY) for row in rows}
    for old in conn.execute("SELECT host, drive, figure FROM figures WHERE run_id = ?", (run,)).fetchall():
        if (run, old["host"], old["drive"], old["figure"]) not in keep:
            conn.execute("DELETE FROM figures WHERE run_id = ? AND host = ? AND drive = ? AND figure = ?",
                         (run, old["host"], old["drive"], old["figure"]))
    conn.executemany(_UPSERT, [tuple(row.get(name) for name in NAMES) for row in rows])


def index_runs(run_dirs: list[str], fleet_json: str | None = None) -> dict:
    """Index each run into its own results root's database (the parent of the run directory), one transaction per
    root. ``fleet_json``: a fleet summary written elsewhere than the run directory (its verdicts win)."""
    by_root: dict[str, list[str]] = {}
    for run_dir in run_dirs:
        run_dir = os.path.normpath(run_dir)
        by_root.setdefault(os.path.dirname(run_dir), []).append(run_dir)
    out: dict = {"databases": [], "runs": [], "rows": 0, "skipped": []}
    for root, dirs in by_root.items():
        prepared = [(os.path.basename(d), run_rows(d, fleet_json, out["skipped"])) for d in dirs]
        path = db_path(root)
        conn = connect(path)
        try:
            with _writing(conn):
                for run, rows in prepared:
                    _write_run(conn, run, rows)
        finally:
            conn.close()
        out["databases"].append(path)
        out["runs"] += [run for run, dummy in prepared]
        out["rows"] += sum(len(rows) for dummy, rows in prepared)
    if not out["skipped"]:
        del out["skipped"]
    return out


def after_summary(run_dirs: list[str], fleet_json: str | None) -> dict:
    """The fleet summary's hook: index its runs; an index that cannot be written is reported, never raised (the
    summary and its verdicts stand without it)."""
    try:
        return index_runs(run_dirs, fleet_json)
    except (sqlite3.Error, HistoryError, OSError, ValueError) as exc:
        return {"databases": [], "runs": [], "rows": 0, "error": f"history index not written: {exc}"}


def run_dirs_of(root: str) -> list[str]:
    """Every run directory of a results root: named like a run id, holding at least one host's plan.json."""
    found = []
    for entry in _safe_tree.subdirs(root):
        path = os.path.join(root, entry)
        try:
            if RUN_ID_RE.match(entry) and any(_safe_tree.isfile(os.path.join(path, host, "plan.json"))
                                              for host in _safe_tree.subdirs(path)):
                found.append(path)
        except OSError:
            continue  # a run root will not read (another user's directory): not indexed; report.yml names it
    return found


def rebuild(root: str, runs: list[str] | None = None) -> dict:
    """The index again from the results tree: the given runs, or every run of the root - then runs no longer on disk
    are dropped from it too. One transaction: a reader sees the old index or the new one.

    An index file that is not a database (or a damaged one) is moved aside, kept as ``<index>.corrupt-<UTC time>``,
    and a new index is built from every run of the root: the result's ``moved_aside`` says where it went and why."""
    path = db_path(root)
    try:
        return _rebuild(root, runs, path)
    except CorruptIndex as exc:
        moved = move_aside(path)
        why = exc.why
    if moved is None:
        # Another rebuild moved it aside first: this one adds its runs to the new index.
        return _rebuild(root, runs, path)
    # The new index starts empty: every run of the root goes into it, not only the ones asked for.
    return dict(_rebuild(root, None, path), moved_aside={"path": moved, "why": why})


def _rebuild(root: str, runs: list[str] | None, path: str) -> dict:
    run_dirs = [os.path.join(root, r) for r in runs] if runs is not None else run_dirs_of(root)
    skipped: list = []
    prepared = [(os.path.basename(d), run_rows(d, None, skipped)) for d in run_dirs]
    conn = connect(path)
    dropped: list[str] = []
    try:
        with _writing(conn):
            if runs is None:
                on_disk = {run for run, dummy in prepared}
                dropped = [r["run_id"] for r in conn.execute("SELECT DISTINCT run_id FROM figures").fetchall()
                           if r["run_id"] not in on_disk]
                conn.executemany("DELETE FROM figures WHERE run_id = ?", [(r,) for r in dropped])
            for run, rows in prepared:
                _write_run(conn, run, rows)
    except sqlite3.Error as exc:
        raise _failed(path, exc) from None
    finally:
        conn.close()
    return {"database": path, "runs": [run for run, dummy in prepared], "dropped": sorted(dropped),
            "rows": sum(len(rows) for dummy, rows in prepared), **({"skipped": skipped} if skipped else {})}


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
            if not _safe_tree.isfile(path) or _damage(path) is None:
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


# --- reading the index --------------------------------------------------------------------------------------------

def _as_dict(row: sqlite3.Row) -> dict:
    out = dict(row)
    for key in ("tests", "settings", "health"):
        if out.get(key):
            try:
                out[key] = json.loads(out[key])
            except ValueError:
                pass
    return out


def query(conn: sqlite3.Connection, runs: list[str] | None = None, model: str | None = None,
          firmware: list[str] | None = None, serials: list[str] | None = None,
          figures: tuple[str, ...] | None = None, no_model: bool = False) -> list[dict]:
    """Rows matching every filter given (None: no filter; ``no_model``: drives that reported no model), oldest run
    first."""
    where, params = [], []
    for column, values in (("run_id", runs), ("firmware", firmware), ("serial", serials), ("figure", figures)):
        if values is not None:
            where.append(f"{column} IN ({', '.join('?' for dummy in values)})" if values else "0")
            params += list(values)
    if model is not None:
        where.append("model = ?")
        params.append(model)
    if no_model:
        where.append("model IS NULL")
    sql = "SELECT * FROM figures" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY run_time, run_id, host, drive, figure"
    return [_as_dict(row) for row in conn.execute(sql, params).fetchall()]


def runs(conn: sqlite3.Connection) -> list[dict]:
    """Every indexed run: id, start time, drives, models and firmware versions, oldest first."""
    sql = ("SELECT run_id, MIN(run_time) AS run_time, COUNT(DISTINCT host || '/' || drive) AS drives, "
           "GROUP_CONCAT(DISTINCT model) AS models, GROUP_CONCAT(DISTINCT firmware) AS firmware FROM figures "
           "GROUP BY run_id ORDER BY MIN(run_time), run_id")
    return [dict(row) for row in conn.execute(sql).fetchall()]


def firmware_of(conn: sqlite3.Connection, model: str) -> list[str]:
    """The firmware versions indexed for a model."""
    sql = "SELECT DISTINCT firmware FROM figures WHERE model = ? AND firmware IS NOT NULL ORDER BY firmware"
    return [row["firmware"] for row in conn.execute(sql, (model,)).fetchall()]


def models(conn: sqlite3.Connection) -> list[str]:
    return [row["model"] for row in conn.execute(
        "SELECT DISTINCT model FROM figures WHERE model IS NOT NULL ORDER BY model").fetchall()]
