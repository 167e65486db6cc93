# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A test past 300 rounds on a real loop device: the round loop must not nest deeper per round (a task file that
including itself died at round 243), every round must be on disk, and the report must render and stay readable.
How the gap between rounds and the controller's memory behave at 1,500 rounds is measured by bench/long_run.py."""

from __future__ import annotations

import os
import re

from conftest import load
from contracts import assert_files_validate

ROUND_BYTES = 2 * 4096  # 2 jobs, each held to one 4k write by rate_iops in a 10 ms round
ROUNDS = 315


def test_a_write_saturation_of_over_300_rounds_reaches_its_stop_rule(loop_device, run_pts):
    device = loop_device("16M")
    capacity = 16 * 2 ** 20
    multiple = (ROUNDS - 0.5) * ROUND_BYTES / capacity
    run = run_pts({"pts_devices": [{"path": device.path, "name": "long", "backing_file": device.image}],
                   "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["wsat"],
                   "pts_run_wsat_round_seconds": 0.01, "pts_run_rate_iops": 50,
                   "pts_run_wsat_capacity_multiple": multiple, "pts_run_wsat_max_hours": 2})
    assert run.rc == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert_files_validate(run)
    wsat = os.path.join(run.drive_dir("long"), "wsat")
    numbers = sorted(int(m.group(1)) for name in os.listdir(wsat) if (m := re.match(r"^round-(\d+)\.json$", name)))
    count = len(numbers)
    assert count > 300 and numbers == list(range(1, count + 1))
    target = int(multiple * capacity)
    written = 0
    for number in numbers:
        record = load(os.path.join(wsat, f"round-{number:02d}.json"))
        written += sum(job["write"]["io_bytes"] for job in record["fio"]["jobs"])
        verdict = record["verdict"]
        # Every round was judged and recorded before the next one started, the last one stopped the test.
        assert verdict["round"] == number and verdict["written"] == written
        assert verdict["stop"] == (number == count) == (written >= target)
        assert os.path.exists(os.path.join(wsat, f"round-{number:02d}.fio"))
    assert "target" in verdict["reason"] and "reached" in verdict["reason"]
    assert load(os.path.join(wsat, "steady-state.json"))["last_round"] == count
    # One progress line per round, and no "FAILED - RETRYING" line for the until loop's reruns.
    lines = re.findall(r"^PTS localhost long wsat round (\d+):", run.stdout, re.M)
    assert [int(n) for n in lines] == numbers
    assert "FAILED - RETRYING" not in run.stdout

    result = load(os.path.join(run.drive_dir("long"), "result.json"))["tests"]["wsat"]
    assert result["status"] == "complete" and result["rounds_run"] == count and result["written_bytes"] == written
    assert len(result["per_round"]) == count
    with open(os.path.join(run.drive_dir("long"), "report.md"), encoding="utf-8") as handle:
        report = handle.read()
    shown = re.search(rf"(\d+) of {count} rows: the first and last 10 and one in every (\d+) between", report)
    assert shown and int(shown.group(1)) <= 60
    assert f"… ({count} job files in `wsat/`)" in report and report.count("](wsat/round-") == 6
    for plot in ("wsat-iops.png", "wsat-latency.png"):
        assert os.path.getsize(os.path.join(run.drive_dir("long"), "plots", plot)) > 10_000
