# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A run's rows in the history (_rows.run_rows): the drive report's verdict where no fleet summary gave one, the run's
settings kept as JSON, and no rows of its own for a RAID array's member."""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _rows
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import make_run


def test_the_drive_reports_verdict_without_a_fleet_summary(tmp_path):
    root = str(tmp_path / "results")
    make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}, "verdict": "INCOMPLETE"}])
    (row,) = [r for r in _rows.run_rows(os.path.join(root, "run-1")) if r["figure"] == "iops_4k_write"]
    assert (row["verdict"], row["verdict_source"]) == ("INCOMPLETE", "report")


def test_the_settings_are_kept_as_json(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}],
                       settings={"pts_run_rate_iops": 200})
    row = _rows.run_rows(run_dir)[0]
    assert json.loads(row["settings"])["pts_run_rate_iops"] == 200


def test_a_raid_member_has_no_rows_of_its_own(tmp_path):
    root = str(tmp_path / "results")
    run_dir = make_run(root, "run-1", [{"drive": "md0", "figures": {"iops_4k_write": 1.0}},
                                       {"drive": "m1", "figures": {}}])
    member = os.path.join(run_dir, "h1", "m1", "result.json")
    _results.atomic_write_json(member, dict(_results.read_json(member), raid_member={"array": "md0"}, tests={}))
    assert {r["drive"] for r in _rows.run_rows(run_dir)} == {"md0"}
