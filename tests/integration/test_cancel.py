# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A cancelled job - AWX's cancel sends ansible-playbook SIGINT, then SIGTERM - in the middle of a round: the release
playbook frees the drive with the run id alone (the results directory may be gone), stopping the run's fio; or a
resume of the same run id takes the run over and finishes it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import pytest
import yaml
from conftest import BIN, ROOT, LoopDevice, assert_exit_matches_fleet, assert_nothing_held, devnum, holders, playbook_env

WSAT = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["wsat"], "pts_fleet_fail_on": [],
        "pts_run_wsat_round_seconds": 1, "pts_run_rate_iops": 200, "pts_run_wsat_max_hours": 0.004,
        "pts_run_wsat_capacity_multiple": 1000}


@pytest.fixture
def drive(tmp_path):
    device = LoopDevice(tmp_path, "32M")
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"c-a": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"),
        "pts_devices": [{"path": device.path, "name": "bay0", "backing_file": device.image}]}}}}))
    yield tmp_path, str(inventory), device
    device.detach()


def run_fio(tmp_path) -> list[int]:
    """fio processes of the run on this machine: each works in a job directory under the run's remote directory."""
    found = []
    remote = str(tmp_path / "remote") + "/"
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                args = handle.read().split(b"\0")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if args and os.path.basename(args[0]) == b"fio" and cwd.startswith(remote):
            found.append(int(pid))
    return found


def job_dir(tmp_path) -> str:
    """The directory the cancelled run's fio server works in."""
    for folder, dummy, files in os.walk(tmp_path / "remote"):
        if "server.pid" in files:
            return folder
    raise AssertionError("no fio server directory under the run's remote directory")


def cancel_mid_round(tmp_path, inventory: str, run_id: str, sig: int) -> None:
    log = open(tmp_path / f"{run_id}.log", "w", encoding="utf-8")
    proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", inventory, "-e",
                             json.dumps(WSAT)], cwd=ROOT, env=playbook_env(tmp_path, PTS_RUN_ID=run_id), stdout=log,
                            stderr=subprocess.STDOUT)
    second = tmp_path / "results" / run_id / "c-a" / "bay0" / "wsat" / "round-02.json"
    deadline = time.monotonic() + 300
    while not second.exists():
        assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / f"{run_id}.log").read_text()[-3000:]
        time.sleep(0.05)
    time.sleep(0.5)  # in the middle of round 3
    proc.send_signal(sig)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)  # AWX's second step
        proc.wait(timeout=60)
    log.close()
    assert proc.returncode != 0


def test_a_cancelled_run_is_released_with_its_run_id_alone(drive):
    tmp_path, inventory, device = drive
    cancel_mid_round(tmp_path, inventory, "cancel-1", signal.SIGINT)
    assert holders(device.path), "the cancelled run's hold should still be on the drive until it is released"
    shutil.rmtree(tmp_path / "results")  # the job's directory is gone (AWX deleted it)
    # An administrator looking around in a job directory (a shell, a tail): not the run's, never stopped.
    admin = subprocess.Popen(["sleep", "600"], cwd=job_dir(tmp_path))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/release.yml", "-i", inventory, "-e",
                           "pts_run_id=cancel-1", "-e", f"pts_run_remote_dir={tmp_path / 'remote'}"], cwd=ROOT,
                          env=playbook_env(tmp_path), capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "freed 1 drive(s)" in output and device.path in output
    assert_nothing_held(device)
    assert run_fio(tmp_path) == []
    assert admin.poll() is None, "release stopped a process that is not the run's"
    admin.kill()
    admin.wait()
    # The guard's records of the run's drives went with their holds.
    assert not [n for n in os.listdir("/run/fleetqual-pts") if n == "guard-{}-{}.json".format(*devnum(device.path).split(":"))]


def test_a_cancelled_run_is_finished_by_a_resume_of_its_run_id(drive):
    tmp_path, inventory, device = drive
    cancel_mid_round(tmp_path, inventory, "cancel-2", signal.SIGTERM)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", inventory, "-e",
                           json.dumps(WSAT)], cwd=ROOT, env=playbook_env(tmp_path, PTS_RUN_ID="cancel-2"),
                          capture_output=True, text=True, timeout=900, check=False)
    output = proc.stdout + proc.stderr
    summary = assert_exit_matches_fleet(proc.returncode, str(tmp_path / "results" / "cancel-2"), output)
    assert proc.returncode == 0 and summary["counts"]["INCOMPLETE"] == 0, output[-3000:]
    assert_nothing_held(device)
    assert run_fio(tmp_path) == []
