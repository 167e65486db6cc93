# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection as AWX / Automation Platform runs it: jobs through ansible-runner (AWX's own job runner, with its
display callback) from a project that imports the collection's playbook, results in a persistent directory outside
the job's private data directory, the verdict in the job's artifacts; and a sliced job - several runs of the same
playbook at once, each on its slice of the inventory, with the same extra variables."""

from __future__ import annotations

import glob
import os
import subprocess
import time

import pytest
import yaml
from conftest import BIN, LoopDevice, assert_exit_matches_fleet, assert_nothing_held, load, playbook_env

TINY = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_fleet_fail_on": [],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 3, "pts_run_window": 3, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"]}
HOSTS = ("s-a", "s-b", "s-c", "s-d")


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("awx")
    devices = {}
    try:
        for host in HOSTS:
            folder = tmp / "drives" / host
            folder.mkdir(parents=True)
            devices[host] = LoopDevice(folder, "32M")
        yield tmp, devices
    finally:
        for device in devices.values():
            device.detach()


def host_vars(tmp, devices, host) -> dict:
    return {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(tmp / "remote" / host),
            "pts_devices": [{"path": devices[host].path, "name": "bay0", "backing_file": devices[host].image}]}


def project(tmp, name: str, devices, hosts: tuple[str, ...], extravars: dict) -> str:
    """An AWX job's private data directory: a project wrapping the collection's playbook, the (sliced) inventory,
    the job's extra variables, and the environment AWX's execution environment gives (the installed collection)."""
    data = tmp / name
    (data / "project").mkdir(parents=True)
    (data / "inventory").mkdir()
    (data / "env").mkdir()
    (data / "project" / "pts.yml").write_text(yaml.safe_dump([{"name": "The fleetqual.pts PTS",
                                                               "ansible.builtin.import_playbook": "fleetqual.pts.pts"}]))
    (data / "inventory" / "hosts.yml").write_text(yaml.safe_dump(
        {"all": {"hosts": {h: host_vars(tmp, devices, h) for h in hosts}}}))
    (data / "env" / "extravars").write_text(yaml.safe_dump(dict(TINY, **extravars)))
    env = {k: v for k, v in playbook_env(tmp).items() if k.startswith(("ANSIBLE_", "MPLCONFIGDIR"))
           and k not in ("ANSIBLE_CONFIG", "ANSIBLE_NOCOLOR", "ANSIBLE_FORCE_COLOR")}
    env["ANSIBLE_FORKS"] = "10"
    (data / "env" / "envvars").write_text(yaml.safe_dump(env))
    return str(data)


def runner(data: str, ident: str) -> subprocess.Popen:
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    for key in ("PTS_RESULTS_DIR", "PTS_RUN_ID", "ANSIBLE_CONFIG", "ANSIBLE_CALLBACKS_ENABLED", "ANSIBLE_STDOUT_CALLBACK"):
        env.pop(key, None)
    return subprocess.Popen([os.path.join(BIN, "ansible-runner"), "run", data, "-p", "pts.yml", "--ident", ident],
                            cwd="/", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def job(data: str, ident: str) -> dict:
    """What AWX keeps of a job: its rc, status, stdout and the artifacts set_stats gave (the stats event)."""
    artifacts = os.path.join(data, "artifacts", ident)
    stats = {}
    for path in glob.glob(os.path.join(artifacts, "job_events", "*.json")):
        event = load(path)
        if event.get("event") == "playbook_on_stats":
            stats = event["event_data"].get("artifact_data") or {}
    with open(os.path.join(artifacts, "stdout"), encoding="utf-8") as handle:
        stdout = handle.read()
    with open(os.path.join(artifacts, "rc"), encoding="utf-8") as handle:
        rc = int(handle.read().strip())
    sizes = [os.path.getsize(p) for p in glob.glob(os.path.join(artifacts, "job_events", "*.json"))]
    return {"rc": rc, "stdout": stdout, "artifacts": stats, "largest_event": max(sizes)}


def test_a_job_through_ansible_runner_keeps_its_results_and_says_its_verdict(hosts):
    tmp, devices = hosts
    persistent = tmp / "persistent-results"
    data = project(tmp, "job", devices, ("s-a",), {"pts_results_dir": str(persistent)})
    assert runner(data, "1").wait(timeout=900) is not None
    found = job(data, "1")
    run_id = found["artifacts"].get("pts_run_id")
    # AWX passes no run id: a new one, unique to this job; the results are where the job was told, not in its
    # private data directory (which AWX deletes when the job ends).
    assert run_id and found["artifacts"]["pts_run_dir"] == str(persistent / run_id), found["stdout"][-3000:]
    assert not glob.glob(os.path.join(data, "**", "fleet.json"), recursive=True)
    summary = assert_exit_matches_fleet(found["rc"], str(persistent / run_id), found["stdout"])
    assert found["artifacts"]["pts_fleet_exit_status"] == ("fails" if summary["failed"] else "passes")
    assert found["artifacts"]["pts_fleet_counts"] == summary["counts"]
    # AWX's display callback shows each round's line, and no "FAILED - RETRYING".
    rounds = [line for line in found["stdout"].splitlines() if "PTS s-a bay0 iops round " in line]
    assert len(rounds) >= 3 and "FAILED - RETRYING" not in found["stdout"]
    # Every event AWX stores stays small, whatever fio printed.
    assert found["largest_event"] < 64_000
    assert_nothing_held(*devices.values())


@pytest.mark.parametrize("shared_run_id", [False, True], ids=["own-run-ids", "one-run-id"])
def test_two_slices_at_once_each_test_their_hosts_and_the_last_judge_sees_them_all(hosts, shared_run_id):
    """A sliced job: two slices at once, same extra variables, one results tree. Without a run id each slice gets
    its own; with one, each writes its own hosts under it (one lock per host), and the slice that finishes last
    judges every host of the run."""
    tmp, devices = hosts
    results = tmp / ("shared" if shared_run_id else "own")
    extravars = {"pts_results_dir": str(results)}
    if shared_run_id:
        extravars["pts_run_id"] = "sliced-1"
    slices = {"1": HOSTS[:2], "2": HOSTS[2:]}
    datas = {n: project(tmp, f"slice{n}-{shared_run_id}", devices, members, extravars) for n, members in slices.items()}
    procs = {n: runner(datas[n], "1") for n in slices}
    ended = {}
    for n, proc in procs.items():
        proc.wait(timeout=900)
        ended[n] = time.time()
    jobs = {n: job(datas[n], "1") for n in slices}
    run_ids = {n: j["artifacts"].get("pts_run_id") for n, j in jobs.items()}
    for n, found in jobs.items():
        assert found["rc"] == 0 and "is in use by" not in found["stdout"], found["stdout"][-3000:]
        assert found["artifacts"]["pts_fleet_exit_status"] == "passes"
    if not shared_run_id:
        assert run_ids["1"] != run_ids["2"]
        for n, members in slices.items():
            summary = assert_exit_matches_fleet(jobs[n]["rc"], str(results / run_ids[n]), jobs[n]["stdout"])
            assert {d["host"] for d in summary["drives"]} == set(members)
    else:
        assert run_ids == {"1": "sliced-1", "2": "sliced-1"}
        summary = load(results / "sliced-1" / "fleet.json")
        assert {d["host"] for d in summary["drives"]} == set(HOSTS) and summary["in_progress"] == []
        assert summary["failed"] is False
        for host in HOSTS:
            assert glob.glob(str(results / "sliced-1" / host / "bay0" / "iops" / "round-03.json"))
        assert not glob.glob(str(results / "sliced-1" / ".pts-host-*.lock"))
    assert_nothing_held(*devices.values())
