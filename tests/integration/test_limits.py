# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every --limit form a pipeline uses runs exactly the drives of the hosts it selects - workers and judge included -
and nothing else: a host, several hosts, a group, an exclusion, a pattern, a retry file. Three inventory hosts on
this machine (local connection), two racks, a loop device each."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
import yaml
from conftest import BIN, ROOT, LoopDevice, assert_exit_matches_fleet, assert_nothing_held, load, playbook_env

HOSTS = {"h-a": "rack12", "h-b": "rack12", "h-c": "rack13"}
TINY = {"pts_run_round_seconds": 0.2, "pts_run_max_rounds": 3, "pts_run_window": 3, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"]}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("limits")
    devices = {}
    try:
        for host in HOSTS:
            folder = tmp / "drives" / host
            folder.mkdir(parents=True)
            devices[host] = LoopDevice(folder, "32M")
        children = {}
        for host, group in HOSTS.items():
            children.setdefault(group, {"hosts": {}})["hosts"][host] = {
                "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                "pts_run_remote_dir": str(tmp / "remote" / host),
                "pts_devices": [{"path": devices[host].path, "name": "bay0", "backing_file": devices[host].image}]}
        inventory = tmp / "hosts.yml"
        inventory.write_text(yaml.safe_dump({"all": {
            "vars": {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_fleet_fail_on": []},
            "children": children}}))
        yield tmp, str(inventory), devices
    finally:
        for device in devices.values():
            device.detach()


def run(tmp, inventory: str, limit: str, run_id: str, **env) -> tuple[int, str]:
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", inventory, "-l", limit,
                           "-e", json.dumps(TINY)], cwd=ROOT, env=playbook_env(tmp, PTS_RUN_ID=run_id, **env),
                          capture_output=True, text=True, timeout=900, check=False)
    output = proc.stdout + proc.stderr
    (tmp / f"{run_id}.log").write_text(output)
    return proc.returncode, output


@pytest.mark.parametrize("limit, selected", [
    ("h-a,h-c", {"h-a", "h-c"}),
    ("rack12", {"h-a", "h-b"}),
    ("rack12:!h-b", {"h-a"}),
    ("~h-[bc]", {"h-b", "h-c"}),
    ("@retry", {"h-b"}),
], ids=["several-hosts", "group", "exclusion", "pattern", "retry-file"])
def test_a_limit_runs_exactly_the_drives_of_the_hosts_it_selects(fleet, limit, selected):
    tmp, inventory, devices = fleet
    if limit.startswith("@"):
        retry = tmp / "pts.retry"
        retry.write_text("h-b\n")
        limit = f"@{retry}"
    run_id = "limit-" + "".join(c for c in limit if c.isalnum())[:20]
    before = {host: devices[host].checksum() for host in HOSTS if host not in selected}
    rc, output = run(tmp, inventory, limit, run_id)
    run_dir = tmp / "results" / run_id
    summary = assert_exit_matches_fleet(rc, str(run_dir), output)
    assert summary is not None and rc == 0, output[-3000:]
    assert {d["host"] for d in summary["drives"]} == selected
    for host in selected:
        rounds = [f for f in os.listdir(run_dir / host / "bay0" / "iops") if f.startswith("round-") and f.endswith(".fio")]
        assert rounds, f"{host} was selected but not tested"
    for host, checksum in before.items():
        assert not (run_dir / host).exists() and devices[host].checksum() == checksum
    assert_nothing_held(*devices.values())


def test_a_host_limit_tests_the_host_with_any_stdout_callback_and_no_callback_enabled(fleet):
    """The limit a provisioning pipeline uses most: the one host it just racked. ansible-core's own default stdout
    callback, and the collection's callback not enabled: every round still on disk and on the console, one line each,
    no "FAILED - RETRYING", the report and the summary written."""
    tmp, inventory, devices = fleet
    before = {host: devices[host].checksum() for host in ("h-b", "h-c")}
    bare = tmp / "bare.cfg"  # an ansible.cfg that enables nothing, as where the collection is installed
    bare.write_text("[defaults]\nretry_files_enabled = false\nforks = 20\n")
    rc, output = run(tmp, inventory, "h-a", "limit-host", ANSIBLE_CONFIG=str(bare),
                     ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default")
    run_dir = tmp / "results" / "limit-host"
    summary = assert_exit_matches_fleet(rc, str(run_dir), output)
    assert rc == 0 and summary["counts"]["PASS"] + summary["counts"]["FAIL"] == 1, output[-3000:]
    assert "FAILED - RETRYING" not in output and "skipping: no hosts matched" not in output
    rounds = sorted(f for f in os.listdir(run_dir / "h-a" / "bay0" / "iops") if f.startswith("round-")
                    and f.endswith(".json") and ".raw." not in f)
    lines = [line for line in output.splitlines() if line.startswith("PTS h-a bay0 iops round ")]
    assert len(lines) == len(rounds) >= 3
    assert (run_dir / "h-a" / "bay0" / "report.md").is_file() and (run_dir / "fleet.md").is_file()
    for host, checksum in before.items():
        assert not (run_dir / host).exists() and devices[host].checksum() == checksum
    assert_nothing_held(*devices.values())
    # Every task result stays small: the rounds' results are on disk, not in the events (AWX stores each one).
    assert load(run_dir / "h-a" / "bay0" / "iops" / rounds[-1])["verdict"]["stop"] is True


def test_a_playbook_whose_workers_the_limit_leaves_out_fails_naming_why_and_frees_the_drive(fleet):
    """A playbook of one's own that runs the drive workers' play without fleetqual.pts.run_workers: under a host
    limit the workers match nothing. The judge says the drive was planned and not tested, the run fails, and the
    drive is not left held."""
    tmp, inventory, devices = fleet
    playbook = tmp / "own.yml"
    plays = [{"name": name, "hosts": hosts, "gather_facts": False,
              "tasks": [{"name": f"Run {entry}",
                         "ansible.builtin.include_role": {"name": "fleetqual.pts.pts_run", "tasks_from": entry}}]}
             for name, hosts, entry in (("Prepare", "all", "prepare"), ("Drives", "pts_drive_workers", "worker"),
                                        ("Judge", "all", "judge"))]
    playbook.write_text(yaml.safe_dump(plays, sort_keys=False))
    before = devices["h-a"].checksum()
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), str(playbook), "-i", inventory, "-l", "h-a", "-e",
                           json.dumps(TINY)], cwd=ROOT, env=playbook_env(tmp, PTS_RUN_ID="limit-own"),
                          capture_output=True, text=True, timeout=900, check=False)
    output = proc.stdout + proc.stderr
    summary = assert_exit_matches_fleet(proc.returncode, str(tmp / "results" / "limit-own"), output)
    assert proc.returncode != 0 and summary["counts"]["INCOMPLETE"] == 1, output[-3000:]
    (drive,) = summary["drives"]
    assert any("no drive worker ran it" in reason for reason in drive["reasons"]), drive["reasons"]
    # No worker, no write: the guard and the hold read and claim the drive, nothing else touched it.
    assert devices["h-a"].checksum() == before
    assert_nothing_held(*devices.values())
