# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Resume: which tests of a drive a run already finished, judged from its results directory alone."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._tests import FINISHED


def finished_tests(drive_dir: str) -> dict[str, str]:
    """Test name -> status for the tests that ran to their stop rule; the others start again from their purge."""
    if not os.path.exists(os.path.join(drive_dir, "drive.json")):
        return {}
    model = _report.build_model(drive_dir)
    return {name: result["status"] for name, result in model["tests"].items() if result["status"] in FINISHED}


def mark_done(plan: dict, results_dir: str, run_id: str, host: str) -> dict:
    """Flag in the plan every test this run already finished on each drive."""
    for drive in plan.get("drives") or []:
        drive_dir = _results.drive_dir(os.path.join(results_dir, _results.safe_name(run_id)), host, drive["key"])
        finished = finished_tests(drive_dir)
        for test in drive["tests"]:
            if test["test"] in finished:
                test.update(done=True, status=finished[test["test"]])
    return plan
