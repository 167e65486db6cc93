# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Nothing lost: a killed controller, resume with the same run id, honest fio failures, a failing drive."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

from conftest import BIN, ROOT, failing_drive, load, playbook_env

TINY = {"pts_run_round_seconds": 0.5, "pts_run_max_rounds": 5,
        "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_throughput_block_sizes": ["64k"],
        "pts_run_latency_mixes": [100, 0], "pts_run_latency_block_sizes": ["4k"]}


def spec(device, name="victim"):
    return {"path": device.path, "name": name, "backing_file": device.image}


def test_a_fio_error_fails_the_round_with_fios_own_message(run_pts, tmp_path):
    # A drive whose writes fail (its backing store fills up): an ioengine fio does not know is refused at validation
    # now, so the error comes from the drive itself, in round 1.
    with failing_drive(tmp_path, "64M") as device:
        run = run_pts({"pts_devices": [spec(device)], "pts_allow_destroy": True, "pts_profile": "quick",
                       "pts_tests": ["throughput"]}, TINY)
    # Its exit status follows the fleet summary (run_pts checks it); the drive's test failed, with fio's own words.
    assert {d["drive"]: d["verdict"] for d in run.fleet["drives"]}["victim"] in ("FAIL", "INCOMPLETE")
    seg = os.path.join(run.drive_dir("victim"), "throughput", "64k")
    failure = load(os.path.join(seg, "failure.json"))
    assert failure["round"] == 1 and failure["phase"] == "round", failure
    assert "fio exited with rc 1" in failure["msg"] or "ended with error" in failure["msg"], failure["msg"]
    assert "error=" in failure["stderr"] or "No space left on device" in failure["stderr"] or \
        "ended with error" in failure["msg"], failure
    assert "filename=" + device.path in failure["job_text"]
    assert not os.path.exists(os.path.join(seg, "round-01.json"))  # no partial figure
    result = load(os.path.join(run.drive_dir("victim"), "result.json"))["tests"]["throughput"]
    assert result["status"] == "failed" and result["rounds_run"] == 0
    report = open(os.path.join(run.drive_dir("victim"), "report.md"), encoding="utf-8").read()
    assert "> **Failed** in round 1: " in report


def test_a_round_that_runs_over_its_time_limit_fails(loop_device, run_pts):
    device = loop_device()
    run = run_pts({"pts_devices": [spec(device)], "pts_allow_destroy": True, "pts_profile": "quick",
                   "pts_tests": ["throughput"]}, dict(TINY, pts_run_round_seconds=6, pts_run_round_timeout_s=2))
    assert run.rc != 0
    failure = load(os.path.join(run.drive_dir("victim"), "throughput", "64k", "failure.json"))
    assert failure["msg"].startswith("fio timed out after 2 s")
    assert not os.path.exists(os.path.join(run.drive_dir("victim"), "throughput", "64k", "round-01.json"))


def _fio_on(device_path: str) -> list[int]:
    rdev = os.stat(device_path).st_rdev
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm", encoding="utf-8").read().strip() != "fio":
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.stat(f"/proc/{pid}/fd/{fd}").st_rdev == rdev:
                    pids.append(int(pid))
                    break
        except OSError:
            continue
    return pids


def test_a_killed_fio_gives_no_figure(loop_device, run_pts, tmp_path):
    device = loop_device()
    host_vars = {"pts_devices": [spec(device)], "pts_allow_destroy": True, "pts_profile": "quick",
                 "pts_tests": ["throughput"]}
    killer = subprocess.Popen(["bash", "-c", f"""
        for i in $(seq 600); do
          for p in $(pgrep -x fio); do
            if ls -l /proc/$p/fd 2>/dev/null | grep -q '{device.path}$'; then sleep 1; kill -9 $p; exit 0; fi
          done
          sleep 0.1
        done"""])
    try:
        run = run_pts(host_vars, dict(TINY, pts_run_round_seconds=5))
    finally:
        killer.kill()
    assert run.rc != 0
    failure = load(os.path.join(run.drive_dir("victim"), "throughput", "64k", "failure.json"))
    assert failure["round"] == 1
    assert "fio exited with rc" in failure["msg"] or "unusable fio output" in failure["msg"]
    assert "timed out" not in failure["msg"]
    assert not os.path.exists(os.path.join(run.drive_dir("victim"), "throughput", "64k", "round-01.json"))


def test_a_failing_drive_next_to_a_healthy_one(loop_device, run_pts, tmp_path):
    with failing_drive(tmp_path, "128M") as failing:
        healthy = loop_device("64M")
        run = run_pts({"pts_devices": [spec(failing, "failing"), spec(healthy, "healthy")],
                       "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"]}, TINY)
    # The failed drive's tests end; the healthy one goes on; the exit code is the summary's (checked by run_pts).
    verdicts = {d["drive"]: d["verdict"] for d in run.fleet["drives"]}
    assert verdicts["failing"] in ("FAIL", "INCOMPLETE") and verdicts["healthy"] != "INCOMPLETE"
    assert re.search(r"failing: .* failed: ", run.stdout), run.stdout[-3000:]
    failure = load(os.path.join(run.drive_dir("failing"), "iops", "failure.json"))
    assert failure["phase"] == "wipc"
    assert "No space left on device" in failure["stderr"] or "error=" in failure["msg"]
    bad = load(os.path.join(run.drive_dir("failing"), "result.json"))["tests"]["iops"]
    assert bad["status"] == "failed"
    good = load(os.path.join(run.drive_dir("healthy"), "result.json"))["tests"]["iops"]
    assert good["status"] in ("steady", "not steady") and good["rounds_run"] >= 1


def test_a_killed_controllers_round_is_stopped_by_its_worker_not_left_to_run_its_time(loop_device, tmp_path):
    import yaml
    device = loop_device("16M")
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"), "pts_devices": [spec(device)], "pts_allow_destroy": True,
        "pts_profile": "quick", "pts_tests": ["wsat"], "pts_fleet_fail_on": []}}}}))
    # One write saturation round of two minutes: nobody would file it once its controller is gone.
    command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory), "-e",
               json.dumps({"pts_run_wsat_round_seconds": 120, "pts_run_rate_iops": 20, "pts_run_round_timeout_s": 600})]
    env = _env(tmp_path, "orphan-1")
    try:
        with open(tmp_path / "run.log", "w", encoding="utf-8") as log:
            run = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
            deadline = time.monotonic() + 600
            while not _fio_on(device.path):  # (its purge is blkdiscard: the first fio is round 1's)
                assert run.poll() is None and time.monotonic() < deadline, "the run ended before its wsat round"
                time.sleep(0.05)
            time.sleep(1)
            # The whole controller dies at once; its workers (a session of their own, as ansible-core makes them)
            # see it gone.
            os.killpg(run.pid, signal.SIGKILL)
            killed = time.monotonic()
            run.wait()
        while _fio_on(device.path) and time.monotonic() - killed < 30:
            time.sleep(0.1)
        stopped = time.monotonic() - killed
        # The worker looks for its controller every second, then stops fio (TERM): seconds, not the round's 120.
        assert not _fio_on(device.path), "the round's fio still runs 30 s after its controller was killed"
        print(f"fio stopped {stopped:.1f} s after the controller was killed")
        assert stopped < 10
        assert not list((tmp_path / "results" / "orphan-1").rglob("wsat/round-*.json"))
    finally:
        subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/release.yml", "-i", str(inventory), "-e",
                        "pts_run_id=orphan-1", "-e", f"pts_run_remote_dir={tmp_path / 'remote'}"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300, check=False)


def _round_files(directory):
    return sorted(p for p in directory.glob("round-*.json") if not p.name.endswith(".raw.json"))


def _env(tmp_path, run_id):
    return playbook_env(tmp_path, PTS_RUN_ID=run_id)


def test_kill_the_controller_in_the_middle_of_a_long_test_then_resume(loop_device, tmp_path):
    import yaml
    device = loop_device("16M")
    # A write saturation of about 70 short rounds (two rate-limited 4k writes each), after a finished IOPS test.
    wsat = {"pts_run_wsat_round_seconds": 0.01, "pts_run_rate_iops": 50, "pts_run_wsat_max_hours": 1,
            "pts_run_wsat_capacity_multiple": round(69.5 * 8192 / (16 << 20), 5)}
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"), "pts_devices": [spec(device)], "pts_allow_destroy": True,
        "pts_profile": "quick", "pts_tests": ["iops", "wsat"], "pts_fleet_fail_on": []}}}}))
    command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory),
               "-e", json.dumps(dict(TINY, **wsat))]
    env = _env(tmp_path, "resume-1")
    drive = tmp_path / "results" / "resume-1" / "localhost" / "victim"

    # 1. kill the whole controller (SIGKILL) while write saturation round 31 runs
    with open(tmp_path / "first.log", "w", encoding="utf-8") as log:
        first = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        deadline = time.monotonic() + 600
        while not (drive / "wsat" / "round-30.json").exists() or not _fio_on(device.path):
            assert first.poll() is None and time.monotonic() < deadline, "the run ended before wsat round 31"
            time.sleep(0.02)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()

    # 2. every finished round is on disk and whole, with its verdict
    iops_rounds = _round_files(drive / "iops")
    wsat_rounds = _round_files(drive / "wsat")
    # Killed mid-way: at least 30 rounds on disk, the test not finished (about 70 to go).
    assert len(iops_rounds) >= 5 and 30 <= len(wsat_rounds) < 60
    for path in iops_rounds + wsat_rounds:
        assert load(path)["fio"]["jobs"] and load(path)["verdict"]["stop"] is (path in iops_rounds[-1:])
    assert not list(drive.rglob(".*.json.*"))  # no half-written temporary files
    iops_before = {p.name: p.read_bytes() for p in (drive / "iops").iterdir() if p.is_file()}

    # 3. the leftover fio of the killed run ends by itself (its round's time); then run again, same run id
    deadline = time.monotonic() + 120
    while _fio_on(device.path):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    second = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    (tmp_path / "second.log").write_text(second.stdout + second.stderr)
    assert second.returncode == 0, second.stdout[-3000:]
    assert "PTS resume localhost victim: run resume-1 already finished iops" in second.stdout
    assert " iops round " not in second.stdout  # IOPS was not run again
    assert {p.name: p.read_bytes() for p in (drive / "iops").iterdir() if p.is_file()} == iops_before
    # write saturation started again from its purge and ran to its target; the interrupted attempt is kept aside
    assert len(_round_files(drive / "superseded" / "wsat-1")) == len(wsat_rounds)
    result = load(drive / "result.json")
    assert result["tests"]["wsat"]["status"] == "complete" and result["tests"]["wsat"]["rounds_run"] >= 60
    assert result["tests"]["wsat"]["superseded"] == ["superseded/wsat-1"]
    report = (drive / "report.md").read_text(encoding="utf-8")
    assert "started again from its purge after an interrupted attempt" in report

    # 4. the final report equals one rebuilt from the files alone
    rebuild = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/report.yml", "-e",
                              "pts_run_id=resume-1"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=600, check=False)
    assert rebuild.returncode == 0, rebuild.stdout[-2000:]
    assert (drive / "report.md").read_text(encoding="utf-8") == report
    assert load(drive / "result.json") == result
