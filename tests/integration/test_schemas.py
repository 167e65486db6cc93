# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The contracts pipelines read (meta/schemas/) against a PTS 2.0 quick run: every test PTS 2.0.2 has - IOPS,
throughput, latency, write saturation, HIR, XSR, CBW, DIRTH - on one loop device, and every fleet.json, plan.json,
result.json and round file the run writes validated (test_try.py does the same for the trial, the demo's run)."""

from __future__ import annotations

import os

from contracts import validate_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTS2 = ["iops", "throughput", "latency", "wsat", "hir", "xsr", "cbw", "dirth"]


def test_every_file_of_a_pts_2_0_quick_run_validates_against_its_schema(loop_device, run_pts):
    device = loop_device("64M")
    run = run_pts({"pts_devices": [{"path": device.path, "name": "d1", "backing_file": device.image}],
                   "pts_allow_destroy": True, "pts_profile": "quick"},
                  {"pts_spec": "2.0", "pts_tests": PTS2, "pts_run_max_rounds": 3, "pts_run_window": 2})
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    assert sorted(run.fleet["drives"][0]["tests_run"]) == sorted(PTS2)
    counts = validate_run(run.run_dir, os.path.join(ROOT, "meta", "schemas"))
    print(f"validated: {counts}")
    assert counts["fleet"] == 1 and counts["plan"] == 1 and counts["result"] == 1
    # Rounds of every test, HIR's bursts and XSR's samples among them.
    rounds = {os.path.relpath(folder, run.drive_dir("d1")).split(os.sep)[0]
              for folder, dirs, files in os.walk(run.drive_dir("d1")) if any(f.startswith("round-") for f in files)}
    assert set(PTS2) <= rounds, rounds
