# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs that cannot collide or mix: one live run per run id, a resume that keeps its drives and settings, run ids
that are one directory name, and one boolean rule for pts_allow_destroy - each refused before anything is written,
with the devices' bytes checked before and after."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import uuid

import pytest
import yaml
from conftest import BIN, ROOT, assert_exit_matches_fleet, playbook_env, run_playbook, sh

TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 2, "pts_run_window": 2,
        "pts_precondition_capacity_multiple": 1}
# The task right after validation: when it never appears, nothing reached a host.
AFTER_VALIDATION = "Install fio and the drive tools"


def spec(device, name="victim"):
    return {"path": device.path, "name": name, "backing_file": device.image}


def host_vars(device, **extra):
    return {"pts_devices": [spec(device)], "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def fill(device):
    # Known non-zero content, so a purge (which zeroes a loop device) or any write would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")


def files_under(path) -> dict[str, bytes]:
    found = {}
    for root, dummy, names in os.walk(path):
        for name in names:
            full = os.path.join(root, name)
            with open(full, "rb") as handle:
                found[os.path.relpath(full, path)] = handle.read()
    return found


def playbook(tmp_path, hosts: dict, run_id: str | None, extra_vars: dict | None = None, env_run_id: str | None = None):
    """ansible-playbook playbooks/pts.yml as conftest.run_playbook runs it, for what it cannot do: start in the
    background, several hosts, a run id that is not a file name, the run id from the environment only."""
    inventory = tmp_path / f"inventory-{uuid.uuid4().hex[:8]}.yml"
    common = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
              "pts_run_remote_dir": str(tmp_path / "remote"), "pts_fleet_fail_on": []}
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {name: dict(common, **v) for name, v in hosts.items()}}}))
    env = playbook_env(tmp_path)
    env.pop("PTS_RUN_ID", None)
    if env_run_id is not None:
        env["PTS_RUN_ID"] = env_run_id
    command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory)]
    extra = dict(extra_vars or {}, **({"pts_run_id": run_id} if run_id is not None else {}))
    if extra:
        command += ["-e", json.dumps(extra)]
    return command, env


def run(command, env, tmp_path, name):
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    with open(tmp_path / f"playbook-{name}.log", "w", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    return proc


def test_a_second_live_run_of_the_same_id_refuses_and_a_resume_keeps_the_settings(loop_device, tmp_path):
    device = loop_device()
    run_dir = tmp_path / "results" / "same-id"
    lock = run_dir / ".pts-host-localhost.lock"
    # Throttled rounds keep the first run busy well past the second's validation.
    slow = dict(TINY, pts_run_round_seconds=15, pts_run_max_rounds=3, pts_run_rate_iops=200)
    command, env = playbook(tmp_path, {"localhost": host_vars(device)}, "same-id", slow)
    with open(tmp_path / "playbook-first.log", "w", encoding="utf-8") as log:
        first = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
    try:
        deadline = time.monotonic() + 60
        while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert lock.exists(), "the first run never locked its results directory"
        assert json.loads(lock.read_text())["pid"] == first.pid
        # Once the first run's plan is on disk, a second process with other settings would also differ from it: the
        # lock is what refuses it, not a settings check read before the lock.
        plan = run_dir / "localhost" / "plan.json"
        deadline = time.monotonic() + 120
        while not plan.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert plan.exists(), "the first run never filed its plan"
        # The same host in a second process of the run id: refused at validation, by the host's lock.
        command, env = playbook(tmp_path, {"localhost": host_vars(device)}, "same-id", TINY)
        second = run(command, env, tmp_path, "second")
        assert first.poll() is None, "the first run ended before the second was judged; the test proves nothing"
        assert second.returncode != 0
        assert f"pts_run_lock: host localhost of run same-id is in use by ansible-playbook PID {first.pid} on " \
            in second.stdout, second.stdout[-3000:]
        assert AFTER_VALIDATION not in second.stdout and "PTS plan" not in second.stdout
        assert json.loads(lock.read_text())["pid"] == first.pid  # not taken over
        # The drive under another inventory host name (job slices may share a run id): the host's lock is its own, but
        # the drive is held by a live process of the run, so the guard refuses it - never taken over.
        command, env = playbook(tmp_path, {"second": host_vars(device)}, "same-id", TINY)
        third = run(command, env, tmp_path, "third")
        assert first.poll() is None, "the first run ended before the third was judged; the test proves nothing"
        assert third.returncode != 0 and "for another ansible-playbook of this run that is still going on" \
            in third.stdout, third.stdout[-3000:]
        assert "Run every segment of each test" not in third.stdout and not (run_dir / "second" / "victim" / "iops").exists()
        rc = first.wait(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    # The run's summary, written by the process that finished last, covers both: the drive the first one tested,
    # and the refused attempt under "second" - a run error, so the run fails (and the first process exits so).
    summary = assert_exit_matches_fleet(rc, str(run_dir), (tmp_path / "playbook-first.log").read_text())
    assert [e["host"] for e in summary["errors"]] == ["second"] and "pts_guard refused" in summary["errors"][0]["msg"]
    assert {d["id"]: d["verdict"] for d in summary["drives"]}["localhost/victim"] in ("PASS", "FAIL")
    drive_dir = run_dir / "localhost" / "victim"
    # Throttled to a constant rate, the test is steady at round 2 (window 2); whatever it took, every round is there.
    rounds = sorted(p.name for p in (drive_dir / "iops").iterdir() if re.fullmatch(r"round-\d+\.json", p.name))
    assert len(rounds) >= 2 and rounds == [f"round-{n:02d}.json" for n in range(1, len(rounds) + 1)]
    for name in rounds:
        record = json.loads((drive_dir / "iops" / name).read_text())
        assert record["host"] == "localhost" and record["settings"]["round_seconds"] == 15
    report = (drive_dir / "report.md").read_text()
    assert "Run `same-id`" in report and "Refused by the guard" not in report
    # The run's folders: its host, the fleet summary's plots, and the refused attempt's records - no test under it.
    assert sorted(p.name for p in run_dir.iterdir() if p.is_dir()) == ["localhost", "plots", "second"]
    assert (run_dir / "second" / "host-failure.json").is_file() and not (run_dir / "second" / "victim" / "iops").exists()

    # Resuming the finished run (pts_resume: a finished run id is refused otherwise) with other settings: refused at
    # validation naming the change, and plan.json keeps the settings that ran.
    plan_file = run_dir / "localhost" / "plan.json"
    plan_before = plan_file.read_bytes()
    command, env = playbook(tmp_path, {"localhost": host_vars(device)}, "same-id",
                            dict(slow, pts_run_iops_block_sizes=["4k", "8k"], pts_run_max_rounds=4, pts_resume=True))
    # Without the optional callback (the repository's ansible.cfg but for callbacks_enabled): the refused host releases
    # its own lock - no judge runs after it, and the callback only observes.
    config = tmp_path / "ansible-no-callback.cfg"
    with open(os.path.join(ROOT, "ansible.cfg"), encoding="utf-8") as handle:
        config.write_text("".join(line for line in handle if not line.startswith("callbacks_enabled")))
    changed = run(command, dict(env, ANSIBLE_CONFIG=str(config)), tmp_path, "changed")
    assert changed.returncode != 0
    assert ("resuming run same-id with other test settings than it recorded in plan.json: pts_run_iops_block_sizes: "
            "[4096] → [4096, 8192]; pts_run_max_rounds: 3 → 4") in changed.stdout
    assert AFTER_VALIDATION not in changed.stdout
    assert plan_file.read_bytes() == plan_before
    assert not list(run_dir.glob(".pts-host-*.lock")), "the refused resume left its lock behind"


def test_a_resume_refuses_another_device_under_the_same_name(loop_device, tmp_path):
    first_device = loop_device()
    first = run_playbook(tmp_path, host_vars(first_device), TINY, run_id="resume-1")
    assert first.rc == 0, first.stdout[-3000:]
    drive_dir = first.drive_dir("victim")
    rounds = files_under(os.path.join(drive_dir, "iops"))
    assert "round-02.json" in rounds

    # Another device under the recorded name: refused before any write, naming both; its bytes are unchanged.
    other = loop_device()
    fill(other)
    before = other.checksum()
    # (pts_resume: the run finished; without it the run id is refused as a relaunch that would test nothing.)
    swapped = run_playbook(tmp_path, host_vars(other), dict(TINY, pts_resume=True), run_id="resume-1")
    assert swapped.rc != 0
    output = swapped.stdout
    assert f"run resume-1 recorded model 'loop device', size_bytes 67108864, backing_file '{first_device.image}' " \
           f"under the name 'victim', but {other.path} is now model 'loop device', size_bytes 67108864, " \
           f"backing_file '{other.image}'" in output
    assert "Run every segment of each test" not in output
    assert other.checksum() == before
    assert files_under(os.path.join(drive_dir, "iops")) == rounds  # the first drive's rounds are untouched


@pytest.mark.parametrize("where, make_id", [
    pytest.param("extra", lambda tmp_path: str(tmp_path / "abs-run"), id="absolute-path"),  # /tmp/x
    pytest.param("env", lambda tmp_path: f"../../fq-escape-{uuid.uuid4().hex[:8]}", id="parent-dirs-from-env"),
    pytest.param("extra", lambda tmp_path: "a b", id="space"),
])
def test_a_run_id_that_is_not_one_directory_name_is_refused_before_anything(loop_device, tmp_path, where, make_id):
    device = loop_device()
    fill(device)
    before = device.checksum()
    bad = make_id(tmp_path)
    results = tmp_path / "results"
    escaped = os.path.normpath(os.path.join(str(results), bad))
    command, env = playbook(tmp_path, {"localhost": host_vars(device)}, bad if where == "extra" else None, TINY,
                            env_run_id=bad if where == "env" else None)
    proc = run(command, env, tmp_path, "bad-id")
    assert proc.returncode != 0
    name = "pts_run_id" if where == "extra" else "PTS_RUN_ID (environment)"
    assert f"pts_run_start: {name}={bad!r}: a run id is one directory name" in proc.stdout, proc.stdout[-3000:]
    assert AFTER_VALIDATION not in proc.stdout
    assert not results.exists() and not os.path.exists(escaped)
    assert device.checksum() == before


def test_allow_destroy_as_a_string_is_refused_before_the_guard(loop_device, tmp_path):
    device = loop_device()
    fill(device)
    before = device.checksum()
    refused = run_playbook(tmp_path, host_vars(device, pts_allow_destroy="on"), TINY, run_id="on-1")
    assert refused.rc != 0
    assert "pts_plan: pts_allow_destroy='on': must be a YAML boolean, not a string: write true or false without " \
           "quotes" in refused.stdout
    assert AFTER_VALIDATION not in refused.stdout and "Refuse drives that are not safe to write" not in refused.stdout
    assert device.checksum() == before


def test_two_runs_with_same_named_drives_on_one_host_at_once_keep_apart(loop_device, tmp_path):
    """Two run ids at once on one host, one shared remote directory, each with a drive named "victim" (another device
    each): every file on the host is under the run's own id and token and the device, so neither run reads, writes
    or refuses the other's job files, and neither warns of a missing run token."""
    devices = [loop_device(), loop_device()]
    slow = dict(TINY, pts_run_round_seconds=1, pts_run_max_rounds=3, pts_run_rate_iops=200)
    procs = []
    for name, device in zip(("twin-a", "twin-b"), devices):
        command, env = playbook(tmp_path, {"localhost": host_vars(device)}, name, slow)
        log = open(tmp_path / f"playbook-{name}.log", "w", encoding="utf-8")  # noqa: SIM115 - closed below
        procs.append((name, subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    for name, proc, log in procs:
        rc = proc.wait(timeout=600)
        log.close()
        output = (tmp_path / f"playbook-{name}.log").read_text()
        summary = assert_exit_matches_fleet(rc, str(tmp_path / "results" / name), output)
        assert rc == 0 and summary["counts"]["INCOMPLETE"] == 0, output[-3000:]
        assert "has no run_token" not in output and "refused" not in output
    job_dirs = sorted(os.path.relpath(p, tmp_path / "remote") for p in (tmp_path / "remote").glob("*/*/victim/iops"))
    assert len(job_dirs) == 2 and job_dirs[0].split("/")[0].startswith("twin-a.")
    assert job_dirs[1].split("/")[0].startswith("twin-b.")
    assert {d.split("/")[1] for d in job_dirs} == {f"victim.{os.path.basename(d.path)}" for d in devices}
