# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Writing runs into the history: the fleet summary's write at the end of a run (``after_summary``: never raises, the
summary says what was not written and why) and ``rebuild`` from a results tree (playbooks/report.yml), for either
back end. A run's rows are read from its files first (rows.py), then written in one transaction."""

from __future__ import annotations

import os
import socket
import sqlite3

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _rows, _sqlite_store
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import CorruptIndex, HistoryError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store


def indexed_by() -> str:
    """Which controller wrote a run: its host name (a history many controllers share says who wrote what)."""
    return socket.gethostname()


def _prepare(run_dirs: list[str], fleet_json: str | None, verdicts: dict | None, skipped: list) -> list[tuple]:
    """(run, rows, hosts) per run directory; ``verdicts``: {run: {(host, drive): verdict}} of a summary being written."""
    out = []
    for run_dir in run_dirs:
        run = os.path.basename(os.path.normpath(run_dir))
        rows = _rows.run_rows(run_dir, fleet_json, skipped, (verdicts or {}).get(run),
                              _results.now_iso() if verdicts is not None else None)
        out.append((run, rows, _rows.hosts_of(run_dir)))
    return out


def index_runs(run_dirs: list[str], spec: Spec | None = None, fleet_json: str | None = None,
               verdicts: dict | None = None) -> dict:
    """Write each run into the history: for SQLite, its own results root's database (the parent of the run
    directory), one transaction per root; for PostgreSQL, one transaction for them all. The fleet's verdicts:
    ``verdicts`` ({run: {(host, drive): verdict}}), else ``fleet_json`` and each run's fleet.json (rows.run_rows)."""
    spec = spec or Spec()
    by_root: dict[str, list[str]] = {}
    for run_dir in run_dirs:
        run_dir = os.path.normpath(run_dir)
        by_root.setdefault(os.path.dirname(run_dir) if spec.kind == "sqlite" else "", []).append(run_dir)
    out: dict = {"databases": [], "runs": [], "rows": 0, "skipped": []}
    for root, dirs in by_root.items():
        prepared = _prepare(dirs, fleet_json, verdicts, out["skipped"])
        with open_store(spec, root or None) as store:
            store.write_runs(prepared, indexed_by=indexed_by())
            out["databases"].append(store.shown)
        out["runs"] += [run for run, dummy, dummy2 in prepared]
        out["rows"] += sum(len(rows) for dummy, rows, dummy2 in prepared)
    if not out["skipped"]:
        del out["skipped"]
    return out


def after_summary(run_dirs: list[str], spec: Spec | None = None, verdicts: dict | None = None) -> dict:
    """The fleet summary's write: its runs into the history; a history that cannot be written is reported (``error``,
    with where and why), never raised - the summary and its verdicts stand without it, and playbooks/report.yml
    writes it later from the results on disk."""
    spec = spec or Spec()
    try:
        return dict(index_runs(run_dirs, spec, verdicts=verdicts), written=True)
    except (sqlite3.Error, HistoryError, OSError, ValueError) as exc:
        root = os.path.dirname(os.path.normpath(run_dirs[0])) if run_dirs else None
        return {"databases": [spec.shown(root)], "runs": [], "rows": 0, "written": False,
                "error": spec.scrub(str(exc))}


def rebuild(root: str, runs: list[str] | None = None, spec: Spec | None = None) -> dict:
    """The history again from a results tree: the given runs, or every run of the root. SQLite (the root's own index):
    one transaction, runs no longer on disk dropped, a reader sees the old index or the new one; a file that is not a
    database is moved aside (kept as ``<index>.corrupt-<UTC time>``, ``moved_aside`` says where and why) and a new
    index is built from every run of the root. PostgreSQL (shared): this tree's runs written, nobody else's dropped."""
    spec = spec or Spec()
    if spec.kind != "sqlite":
        return _rebuild(root, runs, spec)
    path = spec.sqlite_path(root)
    try:
        return _rebuild(root, runs, spec)
    except CorruptIndex as exc:
        moved = _sqlite_store.move_aside(path)
        why = exc.why
    if moved is None:
        # Another rebuild moved it aside first: this one adds its runs to the new index.
        return _rebuild(root, runs, spec)
    # The new index starts empty: every run of the root goes into it, not only the ones asked for.
    return dict(_rebuild(root, None, spec), moved_aside={"path": moved, "why": why})


def _rebuild(root: str, runs: list[str] | None, spec: Spec) -> dict:
    run_dirs = [os.path.join(root, r) for r in runs] if runs is not None else _rows.run_dirs_of(root)
    skipped: list = []
    prepared = _prepare(run_dirs, None, None, skipped)
    with open_store(spec, root) as store:
        dropped = store.write_runs(prepared, drop_absent=runs is None and spec.kind == "sqlite",
                                   indexed_by=indexed_by())
        database = store.shown
    return {"database": database, "runs": [run for run, dummy, dummy2 in prepared], "dropped": dropped,
            "rows": sum(len(rows) for dummy, rows, dummy2 in prepared), **({"skipped": skipped} if skipped else {})}
