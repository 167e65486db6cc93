# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What both back ends of the history do with the same SQL: the schema brought up to date (schema.py's migrations,
in one transaction under the database's write lock), a run's rows written, and every read the reports, the fleet
summary and compare make. A back end (sqlite_store.py, pg_store.py) gives the connection: how a statement runs, a
write transaction that holds the database's one write lock, the tables and columns there are."""

from __future__ import annotations

import abc
import contextlib
import json

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._schema import KEY, NAMES, SCHEMA_VERSION

_JSON_COLUMNS = ("tests", "settings", "health")
# A figure every drive of every run has a row of (PTS-E 1.1's are written whether the test ran or not): counting a
# run's drives by it reads one row per drive, from the population's index alone.
ANCHOR_FIGURE = "iops_4k_write"


class HistoryError(PtsError):
    """The history cannot be read or written (none there, unreachable, of a newer schema): the message says why,
    without a password."""


class CorruptIndex(HistoryError):
    """An SQLite index file that is not a database, or a damaged one: rebuild() moves it aside and builds it again."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path}: {why}: playbooks/report.yml moves it aside and rebuilds it from the results tree")
        self.why = why


class NoHistory(HistoryError):
    """Nothing was ever written there: no SQLite file, or a database without the history's tables."""


def as_dict(row: dict) -> dict:
    """A row as the readers use it: the JSON columns decoded."""
    out = dict(row)
    for key in _JSON_COLUMNS:
        if isinstance(out.get(key), str):
            try:
                out[key] = json.loads(out[key])
            except ValueError:
                pass
    return out


def _order(row: dict) -> tuple:
    """Oldest run first, then run, host, drive, figure: the same order from either back end (their collations and
    NULL ordering differ)."""
    return (row.get("run_time") is not None, row.get("run_time") or "", row["run_id"], row["host"], row["drive"],
            row["figure"])


class SqlStore(abc.ABC):
    """The history in one database. Subclasses give: ``dialect``, ``ph`` (the placeholder), ``shown``, ``fetch``,
    ``execute``, ``execute_many``, ``writing`` (a context: one transaction under the write lock), ``tables``,
    ``columns``, ``close``."""

    dialect = _schema.SQLITE
    ph = "?"
    shown = ""
    # The database's schema version, once read (check_readable) or brought up to date (migrate).
    schema = 0

    # --- what a back end gives -------------------------------------------------------------------------------------

    @abc.abstractmethod
    def fetch(self, sql: str, params: tuple | list = ()) -> list[dict]:
        ...

    @abc.abstractmethod
    def execute(self, sql: str, params: tuple | list = ()) -> None:
        ...

    @abc.abstractmethod
    def execute_many(self, sql: str, rows: list[tuple]) -> None:
        ...

    @abc.abstractmethod
    def writing(self):
        ...

    @abc.abstractmethod
    def reading(self):
        """A read transaction: every read in it sees the same history (a writer's transaction lands before or after
        all of them)."""

    @abc.abstractmethod
    def tables(self) -> set[str]:
        ...

    @abc.abstractmethod
    def columns(self, table: str) -> set[str]:
        ...

    @abc.abstractmethod
    def close(self) -> None:
        ...

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def sql(self, text: str) -> str:
        """A statement written with ``?`` placeholders, in the back end's."""
        return text if self.ph == "?" else text.replace("?", self.ph)

    # --- the schema ------------------------------------------------------------------------------------------------

    def version(self) -> tuple[int, str | None]:
        """The database's schema version and the collection version that brought it there (None: not recorded)."""
        tables = self.tables()
        if "schema_version" in tables:
            rows = self.fetch("SELECT version, applied_by FROM schema_version ORDER BY version DESC")
            if rows:
                return int(rows[0]["version"]), rows[0]["applied_by"]
        if "meta" in tables:
            rows = self.fetch(self.sql("SELECT value FROM meta WHERE key = ?"), ("schema",))
            if rows:
                try:
                    return int(rows[0]["value"]), None
                except (TypeError, ValueError):
                    raise HistoryError(f"{self.shown}: its schema version {rows[0]['value']!r} is not a number: "
                                       "not a history this collection wrote") from None
        return 0, None

    def check_readable(self) -> int:
        """The version of a database to read; HistoryError when a newer collection wrote it, NoHistory when nothing
        was ever written to it."""
        found, by = self.version()
        if found > SCHEMA_VERSION:
            raise HistoryError(_schema.newer_text(self.shown, found, by))
        if found == 0 or "figures" not in self.tables():
            raise NoHistory(f"{self.shown}: no run was ever written to this history")
        self.schema = found
        return found

    def migrate(self) -> list[int]:
        """Bring the database to SCHEMA_VERSION (forward only), in one write transaction; the versions applied.
        A database of a newer schema is refused before anything is written."""
        with self.writing():
            return self.migrate_locked()

    def migrate_locked(self) -> list[int]:
        """migrate() inside a write transaction the caller holds (the version is read again under its lock: another
        writer may have migrated it meanwhile)."""
        found, by = self.version()
        if found > SCHEMA_VERSION:
            raise HistoryError(_schema.newer_text(self.shown, found, by))
        if found == SCHEMA_VERSION:
            self.schema = found
            return []
        now, version = _results.now_iso(), _results.collection_version()
        self.execute(_schema.schema_version_table(self.dialect))
        if found and not self.fetch("SELECT version FROM schema_version"):
            # A version-1 index from before 3.0.0: its version was in meta only.
            self.execute(self.sql("INSERT INTO schema_version (version, applied_at, applied_by) VALUES (?, ?, ?)"),
                         (found, now, "before 3.0.0"))
        if found:
            self._add_missing_columns()
        applied = []
        for number in _schema.pending(found):
            for statement in _schema.statements(self.dialect, number, now):
                self.execute(statement)
            self._add_missing_columns()
            self.execute(self.sql("INSERT INTO schema_version (version, applied_at, applied_by) VALUES (?, ?, ?)"),
                         (number, now, version))
            applied.append(number)
        self.execute(self.sql("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
                              "value = excluded.value"), ("schema", str(SCHEMA_VERSION)))
        self.schema = SCHEMA_VERSION
        return applied

    def _add_missing_columns(self) -> None:
        """An index of version 1 from before some of its columns existed gains them (NULL until its runs are written
        again), before any later migration reads them; nothing is ever dropped."""
        have = self.columns("figures")
        for name, kind in _schema.COLUMNS:
            if have and name not in have:
                bare = _schema.column_type(self.dialect, kind).replace(" NOT NULL", "")
                self.execute(f"ALTER TABLE figures ADD COLUMN {name} {bare}")

    # --- writing ---------------------------------------------------------------------------------------------------

    def write_runs(self, prepared: list[tuple[str, list[dict], set]], drop_absent: bool = False,
                   indexed_by: str | None = None) -> list[str]:
        """Each run's rows in one transaction (migrating first when the database is older): per run, its rows upserted
        by (run, host, drive, figure) and the rows of the hosts its tree holds that are no longer in it dropped - the
        rows of hosts the tree does not hold (another controller's slice of the same run) are kept. ``drop_absent``:
        every run not among ``prepared`` is dropped too (a results root's own SQLite index, rebuilt). Returns the runs
        dropped."""
        with self.writing():
            self.migrate_locked()
            dropped: list[str] = []
            if drop_absent:
                wanted = {run for run, dummy, dummy2 in prepared}
                dropped = sorted(r["run_id"] for r in self.fetch("SELECT DISTINCT run_id FROM figures")
                                 if r["run_id"] not in wanted)
                self.execute_many(self.sql("DELETE FROM figures WHERE run_id = ?"), [(r,) for r in dropped])
                self.execute_many(self.sql("DELETE FROM runs WHERE run_id = ?"), [(r,) for r in dropped])
            now = _results.now_iso()
            for run, rows, hosts in prepared:
                self._write_run(run, rows, hosts, now, indexed_by)
        self.after_write()
        return dropped

    def after_write(self) -> None:
        """After a write transaction: what the back end does to keep its reads quick (PostgreSQL: ANALYZE)."""

    def _write_run(self, run: str, rows: list[dict], hosts: set, now: str, indexed_by: str | None) -> None:
        keep = {tuple(row[k] for k in KEY) for row in rows}
        stale = [(run, old["host"], old["drive"], old["figure"]) for old in self.fetch(
            self.sql("SELECT host, drive, figure FROM figures WHERE run_id = ?"), (run,))
            if old["host"] in hosts and (run, old["host"], old["drive"], old["figure"]) not in keep]
        self.execute_many(self.sql("DELETE FROM figures WHERE run_id = ? AND host = ? AND drive = ? AND figure = ?"),
                          stale)
        # In key order: two writers of overlapping rows take their row locks in the same order.
        ordered = sorted(rows, key=lambda row: tuple(str(row[k]) for k in KEY))
        self.execute_many(_schema.upsert(self.ph), [tuple(row.get(name) for name in NAMES) for row in ordered])
        self.execute(self.sql("DELETE FROM runs WHERE run_id = ?"), (run,))
        self.execute(self.sql(
            "INSERT INTO runs (run_id, run_time, indexed_at, indexed_by, drives, quick_profile) "
            "SELECT run_id, MIN(run_time), ?, ?, COUNT(DISTINCT host || '/' || drive), MAX(quick_profile) "
            "FROM figures WHERE run_id = ? GROUP BY run_id"), (now, indexed_by, run))

    # --- reading ---------------------------------------------------------------------------------------------------

    def query(self, runs: list[str] | None = None, model: str | None = None, firmware: list[str] | None = None,
              serials: list[str] | None = None, figures: tuple[str, ...] | None = None,
              no_model: bool = False) -> list[dict]:
        """Rows matching every filter given (None: no filter; ``no_model``: drives that reported no model), oldest
        run first."""
        where, params = [], []
        for column, values in (("run_id", runs), ("firmware", firmware), ("serial", serials), ("figure", figures)):
            if values is not None:
                if not values:
                    return []
                where.append(f"{column} IN ({', '.join('?' for dummy in values)})")
                params += list(values)
        if model is not None:
            where.append("model = ?")
            params.append(model)
        if no_model:
            where.append("model IS NULL")
        sql = "SELECT * FROM figures" + (" WHERE " + " AND ".join(where) if where else "")
        return sorted((as_dict(row) for row in self.fetch(self.sql(sql), params)), key=_order)

    def runs(self) -> list[dict]:
        """Every run: id, start time, drives, models and firmware versions (comma-separated), oldest first."""
        found = {r["run_id"]: dict(r, models=[], firmware=[]) for r in self.fetch(
            "SELECT run_id, MIN(run_time) AS run_time, COUNT(DISTINCT host || '/' || drive) AS drives FROM figures "
            "GROUP BY run_id")}
        for row in self.fetch("SELECT DISTINCT run_id, model, firmware FROM figures"):
            entry = found[row["run_id"]]
            for key, column in (("models", "model"), ("firmware", "firmware")):
                if row[column] is not None and row[column] not in entry[key]:
                    entry[key].append(row[column])
        out = []
        for entry in found.values():
            entry["models"] = ",".join(sorted(entry["models"])) or None
            entry["firmware"] = ",".join(sorted(entry["firmware"])) or None
            entry["drives"] = int(entry["drives"])
            out.append(entry)
        return sorted(out, key=lambda r: (r["run_time"] is not None, r["run_time"] or "", r["run_id"]))

    def run_records(self) -> list[dict]:
        """The runs table: who wrote each run, and when."""
        return sorted(self.fetch("SELECT * FROM runs"), key=lambda r: r["run_id"])

    def models(self) -> list[str]:
        return sorted(r["model"] for r in self.fetch("SELECT DISTINCT model FROM figures WHERE model IS NOT NULL"))

    def firmware_of(self, model: str) -> list[str]:
        """The firmware versions written for a model."""
        return sorted(r["firmware"] for r in self.fetch(
            self.sql("SELECT DISTINCT firmware FROM figures WHERE model = ? AND firmware IS NOT NULL"), (model,)))

    def _cohort(self, model: str, firmware: str | None) -> tuple[list[str], list]:
        where, params = ["model = ?"], [model]
        if firmware is None:
            where.append("firmware IS NULL")
        else:
            where.append("firmware = ?")
            params.append(firmware)
        return where, params

    def previous_runs(self, model: str, firmware: str | None, run: str, before: str | None,
                      quick: bool | None = None) -> list[dict]:
        """The runs other than ``run`` (and started before ``before``, when given) with a drive of this model and
        firmware (and, when ``quick`` is given, of that kind of profile), latest first: {run_id, run_time, drives}."""
        where, params = self._cohort(model, firmware)
        where.append("run_id <> ?")
        params.append(run)
        if before:
            where.append("run_time < ?")
            params.append(before)
        if quick is not None:
            where += ["quick_profile = ?", "figure = ?"]
            params += [int(bool(quick)), ANCHOR_FIGURE]
            count = "COUNT(*)"
        else:
            count = "COUNT(DISTINCT host || '/' || drive)"
        rows = self.fetch(self.sql(
            f"SELECT run_id, MIN(run_time) AS run_time, {count} AS drives FROM figures "
            f"WHERE {' AND '.join(where)} GROUP BY run_id"), params)
        return sorted(({**r, "drives": int(r["drives"])} for r in rows),
                      key=lambda r: (r["run_time"] or "", r["run_id"]), reverse=True)

    def tests_of(self, run: str, model: str, firmware: str | None) -> set[str]:
        """The tests a run's drives of this model and firmware ran."""
        where, params = self._cohort(model, firmware)
        # The model compared as an expression: the run's rows are read by the run's index. SQLite (no statistics)
        # would otherwise take an index of the model - every run of it - for the two equalities it matches.
        where[0] = "model || '' = ?"
        rows = self.fetch(self.sql(f"SELECT DISTINCT tests FROM figures WHERE run_id = ? AND {' AND '.join(where)}"),
                          [run] + params)
        found: set[str] = set()
        for row in rows:
            try:
                tests = json.loads(row["tests"] or "[]")
            except ValueError:
                continue
            found |= {t for t in tests if isinstance(t, str)} if isinstance(tests, list) else set()
        return found

    def _population_where(self, model: str, firmware: str | None, quick: bool, run: str,
                          before: str | None) -> tuple[list[str], list]:
        where, params = self._cohort(model, firmware)
        where += ["quick_profile = ?", "steady = 1", "value IS NOT NULL", "run_id <> ?"]
        params += [int(bool(quick)), run]
        if before:
            where.append("run_time < ?")
            params.append(before)
        return where, params

    def population(self, model: str, firmware: str | None, quick: bool, figures: list[str], run: str,
                   before: str | None) -> dict:
        """The earlier runs of a model, firmware and profile (quick or full: never both): per figure the steady values
        in order, and the runs and their time span. Leaves ``run`` out and, with ``before``, every run that did not
        start before it. Every value is read: population_ranks() reads only what the statistics need."""
        where, params = self._population_where(model, firmware, quick, run, before)
        values = {}
        for figure in figures:
            rows = self.fetch(self.sql(f"SELECT value FROM figures WHERE {' AND '.join(where)} AND figure = ? "
                                       "ORDER BY value"), params + [figure])
            values[figure] = [float(r["value"]) for r in rows]
        return {"values": values, **self._span(where, params, figures)}

    def population_ranks(self, model: str, firmware: str | None, quick: bool, figures: dict, run: str,
                         before: str | None) -> dict:
        """population(), each figure's values left in the database: a StoredPopulation per figure, which reads the
        ranks, counts and deviations the statistics ask for (population.py) from the population index. ``figures``:
        {figure: the drive's value or None}, where the drive falls counted with the population's size. Read inside
        ``reading()``, so that every figure and rank comes from the same snapshot."""
        where, params = self._population_where(model, firmware, quick, run, before)
        values = {}
        for figure, value in figures.items():
            values[figure] = StoredPopulation(self, " AND ".join(where + ["figure = ?"]), params + [figure], value)
        return {"values": values, **self._span(where, params, list(figures))}

    def _span(self, where: list[str], params: list, figures: list[str]) -> dict:
        """How many runs a population holds, and the first and the last one's start. From schema version 3, by its
        runs index: one seek per run found and two for its times (the population's rows are not read); an older
        database a reader reads as it is, by counting its rows."""
        if not figures:
            return {"runs": 0, "from": None, "to": None}
        marks = ", ".join("?" for dummy in figures)
        condition = " AND ".join(where + [f"figure IN ({marks})"])
        condition_params = params + list(figures)
        if self.schema < 3:
            (row,) = self.fetch(self.sql(
                "SELECT COUNT(DISTINCT run_id) AS runs, MIN(run_time) AS first, MAX(run_time) AS last FROM figures "
                f"WHERE {condition}"), condition_params)
        else:
            # A loose index scan: each run is the least run id above the one before it (WITH RECURSIVE, in both;
            # ORDER BY ... LIMIT 1 rather than MIN, which PostgreSQL may take as an aggregate over every row).
            (row,) = self.fetch(self.sql(
                f"WITH RECURSIVE found (prev) AS (SELECT (SELECT run_id FROM figures WHERE {condition} ORDER BY run_id "
                f"LIMIT 1) UNION ALL SELECT (SELECT run_id FROM figures WHERE {condition} AND run_id > found.prev "
                "ORDER BY run_id LIMIT 1) FROM found "
                "WHERE found.prev IS NOT NULL) "
                "SELECT COUNT(prev) AS runs, MIN(first) AS first, MAX(last) AS last FROM ("
                f"SELECT prev, (SELECT MIN(run_time) FROM figures WHERE {condition} AND run_id = found.prev) AS first, "
                f"(SELECT MAX(run_time) FROM figures WHERE {condition} AND run_id = found.prev) AS last "
                "FROM found WHERE prev IS NOT NULL) spans"), condition_params * 4)
        return {"runs": int(row["runs"] or 0), "from": row["first"], "to": row["last"]}


class StoredPopulation:
    """One figure's population left in the database, read by rank as population.Sorted reads a list: its size and where
    a drive falls counted at once (one pass over the population index), each rank asked for read with ``ORDER BY
    value LIMIT 2 OFFSET k`` from the nearer end of the index, each absolute deviation from the median by the
    database's own sort. The values are the database's doubles and the arithmetic the same (IEEE subtraction and
    absolute value in SQLite, PostgreSQL and Python alike): every statistic equals the one from all values read."""

    def __init__(self, store: SqlStore, where: str, params: list, value: float | None = None):
        self.store, self.where, self.params = store, where, list(params)
        self._ranks: dict[int, float] = {}
        self._deviations: dict[tuple[float, int], float] = {}
        self._positions: dict[float, tuple[int, int]] = {}
        if value is None:
            (row,) = store.fetch(store.sql(f"SELECT COUNT(*) AS n FROM figures WHERE {where}"), self.params)
        else:
            (row,) = store.fetch(store.sql(
                "SELECT COUNT(*) AS n, SUM(CASE WHEN value < ? THEN 1 ELSE 0 END) AS below, "
                f"SUM(CASE WHEN value = ? THEN 1 ELSE 0 END) AS equal FROM figures WHERE {where}"),
                [float(value), float(value)] + self.params)
            self._positions[float(value)] = (int(row["below"] or 0), int(row["equal"] or 0))
        self.n = int(row["n"])

    def _read(self, sql: str, params: list) -> list[float]:
        return [float(r["v"]) for r in self.store.fetch(self.store.sql(sql), params)]

    def at(self, rank: int) -> float:
        if rank not in self._ranks:
            if not 0 <= rank < self.n:
                raise IndexError(rank)
            if rank <= self.n - 1 - rank:
                found = self._read(f"SELECT value AS v FROM figures WHERE {self.where} ORDER BY value LIMIT 2 OFFSET ?",
                                   self.params + [rank])
                ranks = range(rank, rank + len(found))
            else:
                found = self._read(f"SELECT value AS v FROM figures WHERE {self.where} ORDER BY value DESC LIMIT 2 "
                                   "OFFSET ?", self.params + [self.n - 1 - rank])
                ranks = range(rank, rank - len(found), -1)
            if not found:
                raise HistoryError(f"{self.store.shown}: the population changed while it was read")
            self._ranks.update(zip(ranks, found))
        return self._ranks[rank]

    def position(self, value: float) -> tuple[int, int]:
        value = float(value)
        if value not in self._positions:
            (row,) = self.store.fetch(self.store.sql(
                "SELECT SUM(CASE WHEN value < ? THEN 1 ELSE 0 END) AS below, "
                f"SUM(CASE WHEN value = ? THEN 1 ELSE 0 END) AS equal FROM figures WHERE {self.where}"),
                [value, value] + self.params)
            self._positions[value] = (int(row["below"] or 0), int(row["equal"] or 0))
        return self._positions[value]

    def deviation_at(self, centre: float, rank: int) -> float:
        if (centre, rank) not in self._deviations:
            if not 0 <= rank < self.n:
                raise IndexError(rank)
            found = self._read(f"SELECT ABS(value - ?) AS v FROM figures WHERE {self.where} ORDER BY v LIMIT 2 "
                               "OFFSET ?", [float(centre)] + self.params + [rank])
            if not found:
                raise HistoryError(f"{self.store.shown}: the population changed while it was read")
            self._deviations.update(((centre, rank + i), v) for i, v in enumerate(found))
        return self._deviations[(centre, rank)]


@contextlib.contextmanager
def closing(store: SqlStore):
    try:
        yield store
    finally:
        store.close()
