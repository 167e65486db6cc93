# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The drive in the history, for its report: the previous run of its model and firmware - the latest one before this
one that ran at least one of the same tests - with where the comparison of the two runs (that model's drives) is
written, and its population (plugin_utils/_history/_lookup.py: SQLite beside the runs or the PostgreSQL database
pts_history_url names). The fleet summary writes the comparison the link points at
(_fleet/_compare_report.previous_comparisons) right after it writes the run into the history; a report rebuilt later
finds both."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _lookup
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import DB_NAME, Spec

__all__ = ("DB_NAME", "COMPARE_DIR", "comparison_name", "find")

COMPARE_DIR = "compare"


def comparison_name(previous: str, run: str, model: str | None) -> str:
    """The directory (under <root>/compare) of the comparison of a model's drives in two runs."""
    return _results.safe_name(f"{previous}-vs-{run}" + (f"-{model}" if model else ""))


def find(drive_dir: str, model: dict, spec: Spec | None = None, plan: dict | None = None) -> dict:
    """{"previous": the previous run with the link to the comparison, or None; "population": the drive's population
    block, or None (no model reported)}. A history that cannot be read is said in the population block; the report
    stands without it."""
    found = _lookup.drive_history(drive_dir, model, spec, plan)
    previous = found["previous"]
    if previous:
        run_dir = os.path.dirname(os.path.dirname(os.path.abspath(drive_dir)))
        root, run = os.path.dirname(run_dir), os.path.basename(run_dir)
        name = comparison_name(previous["run_id"], run, (model.get("drive") or {}).get("model"))
        target = os.path.join(root, COMPARE_DIR, name)
        previous = dict(previous, comparison=name,
                        link=os.path.relpath(os.path.join(target, "compare.html"), drive_dir),
                        link_md=os.path.relpath(os.path.join(target, "compare.md"), drive_dir))
    return {"previous": previous, "population": found["population"]}
