# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's "Try it" as a Galaxy user runs it: the built tarball installed into an empty collections path, then
`ansible-playbook fleetqual.pts.try` as root from an unrelated directory, with no inventory and no ansible.cfg. The
trial makes its own sparse file and loop device, runs PTS tests in the quick profile on it as an SSD, says
where the report is and what the verdict means, exits with the fleet summary's status (0: the quick profile's verdict
fails nothing), and leaves no loop device or file behind - at its end, and when ansible-playbook is killed on the way.
Every fleet.json, plan.json, result.json and round file it writes validates against the schemas the tarball ships."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time

import galaxy
import pytest
from conftest import BIN, assert_exit_matches_fleet, text
from contracts import validate_run

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _usage

TRIAL_LINE = re.compile(r"PTS trial: (/dev/loop\d+) is a (\S+) loop device over (\S+);")
# The trial's tests: latency alone (-e pts_try_tests), the cheapest, unless PTS_TRY_TESTS names others
# (comma-separated; "iops,throughput,latency,wsat" is the trial's default, what `make demo` runs). The trial playbook
# is the same whichever tests it runs; test_pts_playbook.py runs all four through playbooks/pts.yml.
TRIAL_TESTS = ["iops", "throughput", "latency", "wsat"]
TRY_TESTS = [t for t in os.environ.get("PTS_TRY_TESTS", "latency").split(",") if t]


def attached(image: str) -> list[str]:
    """The loop devices over ``image`` (by its name, which only the trial's run has)."""
    out = subprocess.run(["losetup", "--noheadings", "--output", "NAME", "--associated", image], check=True,
                         capture_output=True, text=True).stdout
    return out.split()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    return galaxy.install(tmp_path_factory.mktemp("galaxy-try"))


def test_the_trial_runs_the_quick_profile_on_its_own_loop_device_and_removes_it(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    started = time.time()
    chosen = [] if TRY_TESTS == TRIAL_TESTS else ["-e", json.dumps({"pts_try_tests": TRY_TESTS})]
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "fleetqual.pts.try", *chosen], cwd=str(elsewhere),
                          env=installed["env"], capture_output=True, text=True, timeout=1500, check=False)
    output = proc.stdout + proc.stderr
    (tmp_path / "try.log").write_text(output)
    print(f"fleetqual.pts.try: rc {proc.returncode} in {time.time() - started:.0f} s")
    found = TRIAL_LINE.search(output)
    assert found, output[-4000:]
    device, size, image = found.groups()
    assert size == "512M" and image.startswith("/var/tmp/fleetqual-pts-try-") and image.endswith(".img")
    # Tested as an SSD, as the trial says (a loop device's rotational flag is no evidence of a disk).
    runs = ", ".join(fr"{t} \d+ runs" for t in TRY_TESTS)
    assert re.search(fr"PTS plan fleetqual-pts-try trial-loop: SSD mode set by the drive entry; {runs}[;,]", output), \
        output[-4000:]
    # The results go where ansible-playbook runs (./results), the report is there and the trial says so.
    # (the history index, pts-history.sqlite, sits beside the runs)
    (run_id,) = [e for e in os.listdir(elsewhere / "results") if os.path.isdir(elsewhere / "results" / e)]
    run_dir = str(elsewhere / "results" / run_id)
    summary = assert_exit_matches_fleet(proc.returncode, run_dir, output, since=started)
    assert proc.returncode == 0, output[-4000:]
    report = os.path.join(run_dir, "fleetqual-pts-try", "trial-loop", "report.md")
    assert "quick profile" in text(report)
    assert f"PTS trial: report {report}" in output
    (drive,) = summary["drives"]
    assert f"PTS trial: verdict {drive['label']}" in output and "What it means: the quick profile runs" in output
    assert drive["tests_run"] == sorted(TRY_TESTS) and drive["quick_profile"] is True
    # What it made is gone: the loop device detached, the file removed.
    assert f"PTS trial: detached {device} and removed {image}" in output
    assert not os.path.exists(image) and attached(image) == []
    # None of the warnings is the collection's own (a run without an inventory gets ansible-core's about that).
    warnings = [line for line in output.splitlines() if "[WARNING]" in line]
    assert all("No inventory was parsed" in w or "provided hosts list is empty" in w for w in warnings), warnings
    # The contracts a pipeline reads, from the tarball's own copy of them.
    counts = validate_run(run_dir, str(installed["installed"] / "meta" / "schemas"))
    print(f"validated against the shipped schemas: {counts}")
    assert counts["fleet"] == 1 and counts["plan"] == 1 and counts["result"] == 1 and counts["round"] >= 2 * len(TRY_TESTS)


def test_a_trial_killed_on_the_way_still_detaches_and_removes_what_it_made(installed, tmp_path):
    # ansible-playbook and its workers die at once (SIGKILL to the process group): no play of theirs runs after.
    proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "fleetqual.pts.try", "-e", "pts_try_size=64M",
                             "-e", f"pts_try_dir={tmp_path}"], cwd=str(tmp_path), env=installed["env"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    seen = []
    try:
        for line in proc.stdout:
            seen.append(line)
            found = TRIAL_LINE.search(line)
            if found:
                break
        assert found, "".join(seen)[-4000:]
        device, size, image = found.groups()
        assert attached(image) == [device] and os.path.exists(image)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    deadline = time.time() + 30
    while time.time() < deadline and (os.path.exists(image) or attached(image)):
        time.sleep(0.5)
    assert not os.path.exists(image) and attached(image) == [], f"{image} or its loop device {device} is left behind"


def test_a_trial_killed_mid_round_frees_its_device_of_the_hold_and_fio(installed, tmp_path):
    # Killed once its drive is held and fio is running: the hold and any fio that outlived its worker would keep the
    # loop device open, and an open loop device stays attached over the removed file.
    proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "fleetqual.pts.try", "-e", "pts_try_size=64M",
                             "-e", f"pts_try_dir={tmp_path}", "-e", '{"pts_try_tests": ["iops"]}'],
                            cwd=str(tmp_path), env=installed["env"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    seen, found, opened = [], None, {}
    try:
        for line in proc.stdout:
            seen.append(line)
            found = found or TRIAL_LINE.search(line)
            if found and " iops round 1/" in line:
                break
        assert found, "".join(seen)[-4000:]
        # Round 2's fio, once it has the device open (the hold has it open all along): pid -> command.
        deadline = time.time() + 30
        while "fio" not in opened.values() and time.time() < deadline:
            opened = {o["pid"]: o["command"] for o in _usage.openers_of({os.stat(found.group(1)).st_rdev})}
            time.sleep(0.05)
        # Where the round's fio works: its job directory, the trial's alone.
        workdirs = {os.readlink(f"/proc/{pid}/cwd") for pid, command in opened.items() if command == "fio"}
        assert workdirs, (opened, "".join(seen)[-4000:])
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    device, dummy, image = found.groups()
    deadline = time.time() + 60
    # (the device's name is not watched once detached: another test may attach its own drive under it)
    while time.time() < deadline and (os.path.exists(image) or attached(image)
                                      or any(os.path.exists(f"/proc/{pid}") for pid in opened)):
        time.sleep(0.5)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in opened), f"{opened} still have {device} open"
    assert not os.path.exists(image) and attached(image) == [], f"{image} or its loop device {device} is left behind"
    # Nothing of the round's fio is left to open the device's number again - given to another file by now, perhaps:
    # not its next section, nor a fio its orphaned worker let run on.
    time.sleep(2)
    assert not [pid for pid in working_in(workdirs) if comm(pid) == "fio"], f"a fio still works in {workdirs}"


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def working_in(directories: set[str]) -> list[int]:
    """The processes whose working directory is one of ``directories``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd").removesuffix(" (deleted)") in directories:
                found.append(int(pid))
        except OSError:
            continue
    return found


def test_a_trial_refused_says_why_and_leaves_nothing_behind(installed, tmp_path):
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "fleetqual.pts.try", "-e", "pts_try_size=64M",
                           "-e", f"pts_try_dir={tmp_path}", "-e", "pts_run_ioengine=nosuchengine"],
                          cwd=str(tmp_path), env=installed["env"], capture_output=True, text=True, timeout=900,
                          check=False)
    output = proc.stdout + proc.stderr
    found = TRIAL_LINE.search(output)
    assert proc.returncode != 0 and found, output[-4000:]
    device, image = found.group(1), found.group(3)
    # The refusal is the failure the trial names, not what followed from it (no run to judge).
    told = re.findall(r"PTS trial failed: ([^\n]*)", output)
    assert told and all("pts_run_ioengine='nosuchengine'" in t and "no run" not in t for t in told), told
    assert not os.path.exists(image) and attached(image) == [], f"{image} or its loop device {device} is left behind"
