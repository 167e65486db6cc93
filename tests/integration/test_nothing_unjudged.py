# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summaries never pass what was not judged (issue 43): playbooks/fleet_summary.yml run while the run still tests its
drive fails "in progress" (the run's own judge, a slice of it, is told apart by release_locks); a run started with
--start-at-task past its prepare play is refused and never exits 0; names that would not display as they are
(U+2028, U+2029, a right-to-left override) are refused before anything is written, naming the variable."""

from __future__ import annotations

import json
import os
import subprocess
import time

import yaml
from conftest import BIN, ROOT, assert_exit_matches_fleet, load, playbook_env, sha256

# One 4k random-write combination, rounds long enough that a summary fits between the first and the last.
SLOW = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 3, "pts_run_max_rounds": 6, "pts_run_window": 5,
        "pts_precondition_capacity_multiple": 1, "pts_fleet_fail_on": []}


def inventory(tmp_path, device, host: str = "localhost", **extra) -> str:
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump({"all": {"hosts": {host: dict({
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"), "pts_allow_destroy": True, "pts_profile": "quick",
        "pts_devices": [{"path": device.path, "name": "bay0", "backing_file": device.image}]}, **extra)}}},
        allow_unicode=True))
    return str(path)


def playbook(tmp_path, *args: str, run_id: str = "nu-1", timeout: int = 900) -> subprocess.CompletedProcess:
    env = playbook_env(tmp_path, PTS_RUN_ID=run_id)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    with open(tmp_path / f"{os.path.basename(args[0])}-{time.monotonic_ns()}.log", "w", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    return proc


def flat(proc) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def test_a_summary_of_a_live_run_fails_in_progress_and_the_run_then_judges_itself(tmp_path, loop_device):
    device = loop_device("64M")
    hosts = inventory(tmp_path, device)
    results = tmp_path / "results" / "nu-1"
    first_round = results / "localhost" / "bay0" / "iops" / "round-01.json"
    env = playbook_env(tmp_path, PTS_RUN_ID="nu-1")
    with open(tmp_path / "run.log", "w", encoding="utf-8") as log:
        run = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", hosts, "-e",
                                json.dumps(SLOW)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 600
            while not first_round.exists():
                assert run.poll() is None and time.monotonic() < deadline, "the run never finished a round"
                time.sleep(0.1)
            started = time.time()
            summary = playbook(tmp_path, "playbooks/fleet_summary.yml", "-e", "pts_run_id=nu-1")
            still_running = run.poll() is None
            standalone = load(results / "fleet.json")  # before the run's own judge writes its own
        finally:
            rc = run.wait(timeout=900)
    assert still_running, "the run ended before the summary: nothing was in progress"
    said = flat(summary)
    assert "1 host(s) still running in another process (in progress: this summary passes nothing not judged yet); " \
           "exit status fails" in said, said[-3000:]
    assert summary.returncode != 0 and standalone["failed"] is True and standalone["in_progress_fails"] is True
    assert [e["host"] for e in standalone["in_progress"]] == ["localhost"] and standalone["drives"] == []
    # The run's own judge, once its drive is done, judges it: exit code and summary agree.
    output = (tmp_path / "run.log").read_text(encoding="utf-8")
    judged = assert_exit_matches_fleet(rc, str(results), output, started)
    assert judged is not None and judged["in_progress"] == [] and judged["drives"][0]["verdict"] != "INCOMPLETE"


def test_a_run_started_past_its_prepare_play_is_refused(tmp_path, loop_device):
    device = loop_device("64M")
    before = sha256(device.image)  # the backing file: the loop device number is shared with others
    hosts = inventory(tmp_path, device)
    for task in ("Judge every drive and write the fleet summary", "Fail the run on the fleet summary's exit status",
                 "Run the selected tests on this drive, then draw its report"):
        proc = playbook(tmp_path, "playbooks/pts.yml", "-i", hosts, "--start-at-task", task)
        assert proc.returncode != 0, flat(proc)[-3000:]
        assert f"--start-at-task {task!r} is refused: a PTS run starts at its first task" in flat(proc), \
            flat(proc)[-3000:]
        assert_exit_matches_fleet(proc.returncode, str(tmp_path / "results" / "nu-1"), proc.stdout + proc.stderr)
    assert sha256(device.image) == before


def test_the_role_in_a_playbook_of_ones_own_never_passes_without_a_summary(tmp_path, loop_device):
    device = loop_device("64M")
    hosts = inventory(tmp_path, device)
    own = tmp_path / "own.yml"
    own.write_text(yaml.safe_dump([{"hosts": "all", "gather_facts": False, "roles": ["fleetqual.pts.pts_run"]}]))
    for task, said in (
            ("Refuse to judge a run whose prepare tasks did not run", "No run to judge: this run's prepare tasks did "
                                                                      "not run in this ansible-playbook"),
            ("Judge every drive and write the fleet summary", "No fleet summary was written: the judge did not run"),
            ("Fail the run on the fleet summary's exit status", "No fleet summary was written: the judge did not run")):
        proc = playbook(tmp_path, str(own), "-i", hosts, "--start-at-task", task)
        assert proc.returncode != 0 and said in flat(proc), flat(proc)[-3000:]
        assert_exit_matches_fleet(proc.returncode, str(tmp_path / "results" / "nu-1"), proc.stdout + proc.stderr)


def test_names_that_would_not_display_as_they_are_are_refused_naming_the_variable(tmp_path, loop_device):
    device = loop_device("64M")
    before = sha256(device.image)  # the backing file: the loop device number is shared with others
    cases = (
        ("stor\u202e10", {}, "inventory_hostname='stor\\u202e10': contains U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("localhost", {"pts_devices": [{"path": device.path, "name": "bay\u20280", "backing_file": device.image}]},
         "pts_devices[0].name='bay\\u20280': contains a control character (a newline, tab or escape) or a format "
         "character (U+2028 LINE SEPARATOR)"),
        ("localhost", {"pts_devices": [{"path": device.path, "name": "bay0", "backing_file": device.image + "\u2029"}]},
         "pts_devices[0].backing_file="),
    )
    for number, (host, extra, said) in enumerate(cases, 1):
        hosts = inventory(tmp_path, device, host, **extra)
        proc = playbook(tmp_path, "playbooks/pts.yml", "-i", hosts, run_id=f"names-{number}")
        assert proc.returncode != 0 and said in flat(proc), flat(proc)[-3000:]
        assert "nothing was written" in flat(proc)
        run_dir = tmp_path / "results" / f"names-{number}"
        assert_exit_matches_fleet(proc.returncode, str(run_dir), proc.stdout + proc.stderr)
        assert not any(name for name in (os.listdir(run_dir) if run_dir.exists() else [])
                       if not name.startswith(".pts-")), os.listdir(run_dir)
    assert sha256(device.image) == before
