# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Nothing lost when the results filesystem fills up: the round that cannot be recorded stops its test at once,
no later round runs unrecorded, and a resume after freeing the space finishes the run."""

from __future__ import annotations

import json
import os
import re
import subprocess

from conftest import BIN, ROOT, playbook_env, sh


def test_a_round_that_cannot_be_recorded_stops_its_test_and_resume_finishes_it(loop_device, tmp_path):
    device = loop_device("16M")
    results = tmp_path / "results"
    results.mkdir()
    # mode=0755: a tmpfs is world-writable (1777) by default, and root keeps results nowhere other users can write.
    sh("mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(results))
    try:
        inventory = tmp_path / "inventory.json"
        inventory.write_text(json.dumps({"all": {"hosts": {"localhost": {
            "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(tmp_path / "remote"), "pts_fleet_fail_on": [], "pts_allow_destroy": True,
            "pts_profile": "quick", "pts_tests": ["wsat"],
            "pts_devices": [{"path": device.path, "name": "full", "backing_file": device.image}],
            "pts_run_wsat_round_seconds": 0.01, "pts_run_rate_iops": 50, "pts_run_wsat_max_hours": 1,
            "pts_run_wsat_capacity_multiple": round(39.5 * 8192 / (16 << 20), 5)}}}}))
        env = playbook_env(tmp_path, PTS_RESULTS_DIR=str(results), PTS_RUN_ID="full-1", PTS_REPORT_FORMATS="html,pdf")
        command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory)]
        # Leave room for the drive's records and about a dozen rounds (each ~20 KB: job file, fio's JSON, parsed).
        filler = results / "filler"
        sh("dd", "if=/dev/zero", f"of={filler}", "bs=1k", f"count={2048 - 300}", "status=none")

        first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
        (tmp_path / "first.log").write_text(first.stdout + first.stderr)
        assert first.returncode != 0
        wsat = results / "full-1" / "localhost" / "full" / "wsat"
        recorded = sorted(int(m.group(1)) for p in wsat.iterdir() if (m := re.match(r"^round-(\d+)\.json$", p.name)))
        assert recorded and recorded == list(range(1, len(recorded) + 1)) and len(recorded) < 39
        unrecorded = len(recorded) + 1
        # Loud, with the reason; and the round after the unrecorded one never ran on the host.
        assert f"round {unrecorded} of wsat on full could not be recorded" in first.stdout + first.stderr
        assert "No space left on device" in first.stdout + first.stderr
        assert "the test stops rather than run a round that is not on disk" in first.stdout + first.stderr
        (job_dir,) = (tmp_path / "remote").glob("full-1.*/full.*/full/wsat")
        assert (job_dir / f"round-{unrecorded:02d}.fio").exists()
        assert not (job_dir / f"round-{unrecorded + 1:02d}.fio").exists()
        for number in recorded:
            with open(wsat / f"round-{number:02d}.json", encoding="utf-8") as handle:
                assert json.load(handle)["verdict"]["round"] == number  # every recorded round is whole
        assert not [p for p in wsat.iterdir() if p.name.startswith(".")]  # no half-written temporary file

        # The operator frees space: the filler goes, and the filesystem grows to hold the reports (report.html and
        # report.pdf embed the plots: more than the 2 MiB this test starts with).
        filler.unlink()
        sh("mount", "-o", "remount,size=64m", str(results))
        # A run that was judged (it failed) is resumed only when asked: pts_resume.
        second = subprocess.run(command + ["-e", '{"pts_resume": true}'], cwd=ROOT, env=env, capture_output=True,
                                text=True, timeout=900, check=False)
        (tmp_path / "second.log").write_text(second.stdout + second.stderr)
        assert second.returncode == 0, second.stdout[-3000:]
        with open(results / "full-1" / "localhost" / "full" / "result.json", encoding="utf-8") as handle:
            result = json.load(handle)["tests"]["wsat"]
        assert result["status"] == "complete" and result["superseded"] == ["superseded/wsat-1"]
        assert (results / "full-1" / "localhost" / "full" / "plots" / "wsat-iops.png").stat().st_size > 10_000
    finally:
        subprocess.run(["umount", "-l", str(results)], check=False)
