# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The wear budget on a real run: a drive whose acceptance rule gives a rated endurance the run would eat too much
of is refused by the plan before any write, with the figures in the message; --check prints the budget."""

from __future__ import annotations

import os

from conftest import run_playbook, sh

TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 2, "pts_run_window": 2,
        "pts_precondition_capacity_multiple": 1}


def host_vars(device, rule: dict) -> dict:
    return {"pts_devices": [{"path": device.path, "name": "victim", "backing_file": device.image}],
            "pts_allow_destroy": True, "pts_profile": "quick", "pts_acceptance": [rule]}


def test_a_run_over_the_wear_budget_is_refused_before_any_write(loop_device, tmp_path):
    device = loop_device()
    # Known non-zero content: a purge (which zeroes a loop device) or any write would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")
    before = device.checksum()
    # 0.0001 TBW = 100 MB: the run's upper bound (2 rounds x 0.2 s at 16 GB/s, plus 64 MiB of WIPC) is far above 5 %.
    rule = {"name": "tiny endurance", "model": "loop device", "endurance_tbw": 0.0001}
    refused = run_playbook(tmp_path, host_vars(device, rule), TINY, run_id="wear-refused")
    output = refused.stdout
    assert refused.rc != 0, output[-3000:]
    assert "pts_plan: the wear budget refuses drive victim (loop device): the run writes up to 0.00647 TB" in output
    for part in ("(6,467,108,864 bytes)", "rates up to 16,000 MB/s, the fastest interface's bound (no bound is "
                 "known for the loop interface)", "6,467 % of the remaining life of 0.0001 TB (100,000,000 bytes)",
                 "rated endurance 0.0001 TBW (100,000,000 bytes) from endurance_tbw 0.0001",
                 "percentage used 0 %, the drive reports no percentage used: 0 % assumed",
                 "budget 5 % (pts_wear_budget_pct). Raise pts_wear_budget_pct", "nothing was written"):
        assert part in output, part
    for step in ("Run every segment of each test", "wipc.fio", "round-01"):
        assert step not in output, step
    assert device.checksum() == before
    # No worker ran for the drive: nothing of a test is on disk.
    drive_dir = refused.drive_dir("victim")
    assert not os.path.exists(os.path.join(drive_dir, "iops"))

    # --check with a rule the run fits in: the budget is printed, and nothing is written.
    roomy = dict(rule, endurance_tbw=1000)
    checked = run_playbook(tmp_path, host_vars(device, roomy), TINY, check=True, run_id="wear-check")
    assert checked.rc == 0, checked.stdout[-3000:]
    assert ("victim: the run writes up to 0.00647 TB (6,467,108,864 bytes) (iops 0.00647 TB (6,467,108,864 bytes); "
            "rates up to 16,000 MB/s") in checked.stdout
    assert "0.00065 % of the remaining life of 1,000 TB (rated endurance 1,000 TBW from endurance_tbw 1000;" \
        in checked.stdout
    assert "budget 5 % (pts_wear_budget_pct)" in checked.stdout
    assert device.checksum() == before
