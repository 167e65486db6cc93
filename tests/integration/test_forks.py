# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An installed collection has no ansible.cfg of its own: ansible-core's forks (5 by default, here ANSIBLE_FORKS=1)
then caps how many drives run at once. The plan says so before the first purge, with the setting that fixes it; and
a run needs neither the repository's ansible.cfg nor the pts_report callback."""

from __future__ import annotations

import itertools
import json
import os
import subprocess

import yaml
from conftest import BIN, ROOT, assert_exit_matches_fleet, playbook_env

# One 4k random-write combination, rate-limited, two rounds: the shortest run that still purges and writes.
TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.5, "pts_run_max_rounds": 2, "pts_run_window": 2, "pts_run_rate_iops": 200,
        "pts_precondition_capacity_multiple": 1}


def playbook(tmp_path, devices, env: dict, run_id: str) -> subprocess.CompletedProcess:
    inventory = tmp_path / f"inventory-{run_id}.yml"
    specs = [{"path": d.path, "name": f"drive{i}", "backing_file": d.image} for i, d in enumerate(devices)]
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"), "pts_fleet_fail_on": [], "pts_devices": specs,
        "pts_allow_destroy": True, "pts_profile": "quick"}}}}))
    environment = playbook_env(tmp_path, PTS_RUN_ID=run_id, **env)
    # stderr into stdout: the warning must come before the first purge in what the operator sees.
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory),
                           "-e", json.dumps(TINY)], cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=900, check=False)
    (tmp_path / f"playbook-{run_id}.log").write_text(proc.stdout)
    return proc


def test_fewer_forks_than_drives_is_said_before_the_first_purge(loop_device, tmp_path):
    devices = [loop_device(), loop_device()]
    proc = playbook(tmp_path, devices, {"ANSIBLE_FORKS": "1"}, "forks-1")
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:]
    # Whitespace-normalized: older ansible-core cores wrap a warning at the terminal's width.
    text = " ".join(out.split())
    said = text.find("PTS plan: 2 drives on 1 host; forks 1 (ANSIBLE_FORKS) < 2 drives: drives run 1 at a time, in "
                     "2 batches; estimated ")
    assert said >= 0, out[-3000:]
    assert "set ANSIBLE_FORKS=2 (or -f 2, or forks = 2 under [defaults] in ansible.cfg)" in text[said:said + 400]
    assert said < text.index("Run every segment of each test"), out[-3000:]
    # Both drives were still tested, one after the other: their rounds do not interleave.
    rounds = [x.split()[2] for x in out.splitlines() if x.startswith("PTS localhost drive") and " iops round " in x]
    assert sorted(rounds) == ["drive0"] * 2 + ["drive1"] * 2 and len(list(itertools.groupby(rounds))) == 2, rounds


def test_a_run_as_an_installed_collection_runs_needs_no_callback(loop_device, tmp_path):
    """No ansible.cfg of the repository, no callback enabled: every round is still on disk and on the console, the
    drive's report and the fleet summary are written, and the exit code is the summary's."""
    device = loop_device()
    config = tmp_path / "ansible.cfg"
    config.write_text("[defaults]\nretry_files_enabled = false\n")
    proc = playbook(tmp_path, [device], {"ANSIBLE_CONFIG": str(config)}, "no-callback")
    run_dir = tmp_path / "results" / "no-callback"
    assert_exit_matches_fleet(proc.returncode, str(run_dir), proc.stdout)
    rounds = sorted(p.name for p in (run_dir / "localhost" / "drive0" / "iops").glob("round-*.json")
                    if ".raw." not in p.name)
    assert rounds == ["round-01.json", "round-02.json"], proc.stdout[-3000:]
    assert len([x for x in proc.stdout.splitlines() if x.startswith("PTS localhost drive0 iops round ")]) == 2
    assert (run_dir / "localhost" / "drive0" / "report.md").is_file() and (run_dir / "fleet.md").is_file()
