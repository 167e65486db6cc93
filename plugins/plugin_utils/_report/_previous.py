# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The drive's previous run in the history index: the latest run before this one that tested a drive of the same
model and firmware, and where the comparison of the two runs (that model's drives) is written.

The index (``<results root>/pts-history.sqlite``, _fleet/_history.py) is read here only, read-only and by plain SQL:
the drive report stands below the fleet code. The fleet summary writes the comparison the link points at
(_fleet/_compare_report.previous_comparisons) right after it indexes the run; a report rebuilt later finds both."""

from __future__ import annotations

import json
import os
import sqlite3

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree

DB_NAME = "pts-history.sqlite"
COMPARE_DIR = "compare"


def comparison_name(previous: str, run: str, model: str | None) -> str:
    """The directory (under <root>/compare) of the comparison of a model's drives in two runs."""
    return _results.safe_name(f"{previous}-vs-{run}" + (f"-{model}" if model else ""))


def _run_time(model: dict) -> str | None:
    """When this run started, as the index keeps run times: the plan's command time."""
    return (model.get("command") or {}).get("recorded_at")


def _lists(text: str | None) -> list:
    """The tests column of a run's rows as GROUP_CONCAT joins them: "[...],[...]" read as one list of lists."""
    try:
        found = json.loads(f"[{text or ''}]")
    except ValueError:
        return []
    return [entry for entry in found if isinstance(entry, list)]


def find(drive_dir: str, model: dict) -> dict | None:
    """The previous run of this drive's model and firmware in the index beside the run - the latest one before it
    that ran at least one of the same tests - or None (no index, no such run, or an index that cannot be read: the
    report stands without it)."""
    drive = model.get("drive") or {}
    if not drive.get("model"):
        return None
    run_dir = os.path.dirname(os.path.dirname(os.path.abspath(drive_dir)))
    root = os.path.dirname(run_dir)
    path = os.path.join(root, DB_NAME)
    run = os.path.basename(run_dir)
    started = _run_time(model)
    try:
        conn = _safe_tree.connect_sqlite(path, readonly=True, timeout=5.0)
        try:
            runs = conn.execute(
                "SELECT run_id, MIN(run_time), COUNT(DISTINCT host || '/' || drive), GROUP_CONCAT(DISTINCT tests) "
                "FROM figures WHERE model = ? AND firmware IS ? AND run_id != ? AND (? IS NULL OR run_time < ?) "
                "GROUP BY run_id ORDER BY MIN(run_time) DESC, run_id DESC",
                (drive["model"], drive.get("firmware") or None, run, started, started)).fetchall()
        finally:
            conn.close()
    except (sqlite3.Error, OSError):
        return None  # no index, or one that cannot be read (or is not a plain file): the report stands without it
    tests = set(model.get("tests") or {})
    found = next((r for r in runs if any(set(t) & tests for t in _lists(r[3]))), None)
    if not found:
        return None
    name = comparison_name(found[0], run, drive["model"])
    target = os.path.join(root, COMPARE_DIR, name)
    return {"run_id": found[0], "run_time": found[1], "drives": found[2], "comparison": name,
            "link": os.path.relpath(os.path.join(target, "compare.html"), drive_dir),
            "link_md": os.path.relpath(os.path.join(target, "compare.md"), drive_dir)}
