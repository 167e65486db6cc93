# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reports drawn no more at once than pts_report_concurrency allows, across ansible-playbook processes: while
another process (a job slice sharing the controller) holds the only slot, each drive's worker waits, naming its host
and drive on the console, and draws its report once the slot is free; the report is drawn in a child, and the
worker's memory goes back."""

from __future__ import annotations

import json
import os
import subprocess
import time

import yaml
from conftest import BIN, ROOT, playbook_env

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report_slots

TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.5, "pts_run_max_rounds": 2, "pts_run_window": 2, "pts_run_rate_iops": 200,
        "pts_precondition_capacity_multiple": 1, "pts_report_concurrency": 1}


def test_drives_wait_for_the_slot_another_process_holds(loop_device, tmp_path):
    devices = [loop_device(), loop_device()]
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"), "pts_fleet_fail_on": [], "pts_allow_destroy": True,
        "pts_profile": "quick",
        "pts_devices": [{"path": d.path, "name": f"drive{i}", "backing_file": d.image} for i, d in enumerate(devices)],
    }}}}))
    env = playbook_env(tmp_path, PTS_RUN_ID="slots-1", PTS_REPORT_FORMATS="html")
    # The only slot (pts_report_concurrency 1) is slot-0, taken here as another ansible-playbook would take it.
    held = _report_slots.Slots(1).take()
    log = tmp_path / "playbook.log"
    try:
        with open(log, "w", encoding="utf-8") as out:
            proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory),
                                     "-e", json.dumps(TINY)], cwd=ROOT, env=env, stdout=out,
                                    stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 600
        while log.read_text(encoding="utf-8").count(": waiting for a report slot") < 2:
            assert proc.poll() is None, log.read_text(encoding="utf-8")[-3000:]
            assert time.monotonic() < deadline, log.read_text(encoding="utf-8")[-3000:]
            time.sleep(0.5)
        time.sleep(2)
        drive_dirs = [tmp_path / "results" / "slots-1" / "localhost" / f"drive{i}" for i in range(2)]
        assert not any((d / "report.md").exists() for d in drive_dirs)  # nothing drawn while the slot is held
    finally:
        held.release()
    assert proc.wait(timeout=600) == 0, log.read_text(encoding="utf-8")[-3000:]
    text = log.read_text(encoding="utf-8")
    for name in ("drive0", "drive1"):
        assert f"PTS report localhost {name}: waiting for a report slot (1 drawn at once on this controller, " \
               "pts_report_concurrency)" in text, text[-3000:]
        assert f"PTS report localhost {name}: drawing, after " in text
    for drive in drive_dirs:
        assert (drive / "report.md").exists() and (drive / "report.html").exists()
        assert not (drive / "report.pdf").exists()  # not asked for
    assert "drawn without waiting" not in text
