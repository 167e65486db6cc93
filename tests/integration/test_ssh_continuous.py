# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""XSR over real SSH: each group is one fio run whose status dumps the controller reads as fio writes them, through
an SSH connection that runs its commands on a pseudo-terminal (ansible's -tt), which changes every line end. Every
dump is read once and whole: the samples are back to back, each one status interval long, and add up to fio's own
count of the whole run."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import time

import pytest
import yaml
from conftest import BIN, ROOT, LoopDevice, assert_exit_matches_fleet, load, playbook_env
from netns import one_host

# This file's own network namespace (test_fleet uses 1-3, test_awx 37, test_publish 43).
NETNS_INDEX = 51
SAMPLE_S = 0.5


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ssh-xsr")
    with one_host(tmp, "xsr-51", NETNS_INDEX) as (made, key):
        yield tmp, key, made


def test_xsr_over_ssh_files_every_status_dump_once_and_whole(host):
    tmp, key, ssh = host
    device = LoopDevice(tmp, "128M")
    try:
        host_vars = dict(ssh.inventory_vars(key), pts_run_remote_dir=str(tmp / "remote"),
                         pts_devices=[{"path": device.path, "name": "d1", "backing_file": device.image}],
                         pts_allow_destroy=True, pts_profile="quick", pts_tests=["xsr"], pts_fleet_fail_on=[])
        inventory = tmp / "hosts.yml"
        inventory.write_text(yaml.safe_dump({"all": {"hosts": {"xsr-51": host_vars}}}))
        started = time.time()
        run = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory), "-e",
                              json.dumps({"pts_run_xsr_group_minutes": [0.1, 0.05, 0.05]})],
                             cwd=ROOT, env=playbook_env(tmp, PTS_RUN_ID="ssh-xsr"), capture_output=True, text=True,
                             timeout=1200, check=False)
    finally:
        device.detach()
    output = run.stdout + run.stderr
    (tmp / "run.log").write_text(output)
    run_dir = str(tmp / "results" / "ssh-xsr")
    assert_exit_matches_fleet(run.returncode, run_dir, output, since=started)
    drive_dir = os.path.join(run_dir, "xsr-51", "d1")
    xsr = load(os.path.join(drive_dir, "result.json"))["tests"]["xsr"]
    assert xsr["status"] == "complete", output[-3000:]
    for group, seconds in (("group1", 6), ("group2", 3), ("group3", 3)):
        directory = os.path.join(drive_dir, "xsr", group)
        rounds = [load(p) for p in sorted(glob.glob(os.path.join(directory, "round-[0-9][0-9].json")))]
        windows = [r["fio"]["jobs"][0]["window"] for r in rounds]
        # Back to back from fio's start, and every one but the first (fio's set-up) and the last (its end) one status
        # interval long: a dump skipped or cut would leave a window of two intervals or a round that is not there.
        assert windows[0]["from_ms"] == 0 and all(b["from_ms"] == a["to_ms"] for a, b in zip(windows, windows[1:]))
        lengths = [(w["to_ms"] - w["from_ms"]) / 1000 for w in windows]
        assert all(abs(length - SAMPLE_S) < 0.1 for length in lengths[1:-1]), (group, lengths)
        assert len(rounds) >= seconds / SAMPLE_S - 1, (group, len(rounds))
        # The samples add up to fio's own count of the whole run (its final report, the last round's raw output).
        final = load(os.path.join(directory, f"round-{len(rounds):02d}.raw.json"))["jobs"][0]["write"]["io_bytes"]
        assert sum(r["fio"]["jobs"][0]["write"]["io_bytes"] for r in rounds) == final, group
