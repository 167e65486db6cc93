# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pts_run role on its own - roles: [fleetqual.pts.pts_run] in a play of the operator's own - tests the host's
drives one after the other through the same entry points playbooks/pts.yml uses (prepare, then each drive, then the
judge), with the guard, its hold and the results tree as in a fleet run; a host it fails while preparing leaves no
lock behind."""

from __future__ import annotations

import os
import subprocess

import yaml
from conftest import BIN, ROOT, assert_nothing_held, load, playbook_env


def test_the_role_alone_tests_each_drive_in_turn_and_judges_them(loop_device, tmp_path):
    first, second = loop_device(), loop_device()
    playbook = tmp_path / "mine.yml"
    playbook.write_text(yaml.safe_dump([{
        "name": "Qualify this host's drives", "hosts": "localhost", "gather_facts": False,
        "roles": [{"role": "fleetqual.pts.pts_run"}],
        "vars": {
            "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_devices": [{"path": d.path, "name": n, "backing_file": d.image} for d, n in ((first, "a"), (second, "b"))],
            "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_fleet_fail_on": [],
            "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"], "pts_run_round_seconds": 0.2,
            "pts_run_max_rounds": 2, "pts_run_window": 2, "pts_precondition_capacity_multiple": 1,
            "pts_run_remote_dir": str(tmp_path / "remote")},
    }]))
    # Without the optional callback (the repository's ansible.cfg but for callbacks_enabled): the run releases its own
    # locks, the callback only observes.
    config = tmp_path / "ansible.cfg"
    with open(os.path.join(ROOT, "ansible.cfg"), encoding="utf-8") as handle:
        config.write_text("".join(line for line in handle if not line.startswith("callbacks_enabled")))
    env = playbook_env(tmp_path, PTS_RUN_ID="alone-1", ANSIBLE_CONFIG=str(config))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), str(playbook), "-i", "localhost,"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900, check=False)
    (tmp_path / "playbook.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    run_dir = tmp_path / "results" / "alone-1"
    for name in ("a", "b"):
        drive = run_dir / "localhost" / name
        assert sorted(p.name for p in (drive / "iops").glob("round-*.json") if not p.name.endswith(".raw.json")) == [
            "round-01.json", "round-02.json"]
        assert load(drive / "result.json")["tests"]["iops"]["rounds_run"] == 2
        assert (drive / "report.md").exists()
    # One drive after the other: b's purge comes after a's last round.
    a_last = load(run_dir / "localhost" / "a" / "iops" / "round-02.json")["recorded_at"]
    assert load(run_dir / "localhost" / "b" / "iops" / "purge.json")["recorded_at"] > a_last
    fleet = load(run_dir / "fleet.json")
    assert sorted(d["id"] for d in fleet["drives"]) == ["localhost/a", "localhost/b"]
    assert "[localhost/a]" not in proc.stdout  # no drive workers: the role tests the drives itself
    assert not list(run_dir.glob(".pts-host-*.lock"))  # the judge released the host's lock
    assert_nothing_held(first, second)


def test_the_role_alone_releases_the_lock_of_a_host_that_fails_in_prepare(tmp_path):
    # No judge runs after a host the role on its own fails while preparing: its lock goes in prepare's rescue
    # (roles/pts_run/tasks/unlock.yml), or it would stay behind in the run's results. The host fails at once: validation
    # and the lock are the controller's, then nothing answers on its SSH port.
    playbook = tmp_path / "mine.yml"
    playbook.write_text(yaml.safe_dump([{
        "name": "Qualify this host's drives", "hosts": "localhost", "gather_facts": False,
        "roles": [{"role": "fleetqual.pts.pts_run"}],
        "vars": {
            "ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": 1,
            "ansible_python_interpreter": "/usr/bin/python3",
            "pts_devices": [{"path": "/dev/loop-never-reached", "name": "a"}],
            "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"],
            "pts_run_remote_dir": str(tmp_path / "remote")},
    }]))
    env = playbook_env(tmp_path, PTS_RUN_ID="alone-failed")
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), str(playbook), "-i", "localhost,"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    (tmp_path / "playbook.log").write_text(proc.stdout + proc.stderr)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output[-4000:]
    assert "localhost is unreachable" in output, output[-4000:]
    run_dir = tmp_path / "results" / "alone-failed"
    assert run_dir.is_dir(), output[-4000:]  # the lock was taken in the run's results ...
    assert not list(run_dir.glob(".pts-host-*.lock")), output[-4000:]  # ... and released by prepare's rescue
