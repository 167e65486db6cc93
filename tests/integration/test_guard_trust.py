# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guard trusts only what it made, tried as the two attackers would: a launcher who may pass any extra variable
(an AWX survey, a CI variable), and a local non-root user on the drive host (``setpriv --reuid=65534``). Two loop
devices each time - the listed one and one nobody listed (with a mounted ext4 where the attack aims at one) - and the
sha256 of both before and after: the unlisted device is never written, and a refused run writes nothing at all."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
import yaml
from conftest import BIN, ROOT, LOCK_DIR, assert_exit_matches_fleet, devnum, load, playbook_env, run_playbook, sh

NOBODY = 65534
TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 2, "pts_run_window": 2,
        "pts_precondition_capacity_multiple": 1}


def fill(device) -> None:
    # Known non-zero content: a purge (which zeroes a loop device) or any write would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")


@pytest.fixture
def two(loop_device, tmp_path):
    """The listed drive, and an unlisted one carrying a mounted ext4 (what the guard would refuse)."""
    listed, unlisted = loop_device("32M"), loop_device("32M")
    fill(listed)
    sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", unlisted.path)
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    sh("mount", "-o", "ro", unlisted.path, str(mountpoint))
    try:
        yield listed, unlisted
    finally:
        subprocess.run(["umount", str(mountpoint)], check=False)


def sums(*devices) -> list[str]:
    return [device.checksum() for device in devices]


def listed_vars(device, **extra) -> dict:
    return {"pts_devices": [{"path": device.path, "name": "listed", "backing_file": device.image, "mode": "ssd"}],
            "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def as_nobody(*argv: str) -> None:
    sh("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv)


def forged_record(unlisted) -> dict:
    """What the issue's attacker passed: a passed record without a hold, naming the unlisted device."""
    return {"passed": True, "path": unlisted.path, "resolved": unlisted.path, "key": "listed",
            "devnum": devnum(unlisted.path)}


# --- a launcher's extra variables -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["pts_guard_passed", "pts_precondition_ioengine", "__pts_run_steps", "pts_run_plan",
                                  "pts_run_token", "pts_guard_run_token", "pts_raid_guard_passed"])
def test_extra_variables_that_would_replace_the_runs_own_state_are_refused_by_name(two, run_pts, tmp_path, name):
    listed, unlisted = two
    before = sums(listed, unlisted)
    values = {"pts_guard_passed": {listed.path: forged_record(unlisted)},
              "pts_precondition_ioengine": "libaio\ninclude\t/tmp/evil.fio",
              "__pts_run_steps": {"ioengine": "libaio\ninclude\t/tmp/evil.fio", "remote_dir": "/tmp"},
              "pts_run_plan": {"drives": [], "settings": {}}, "pts_run_token": "f" * 32,
              "pts_guard_run_token": "f" * 32, "pts_raid_guard_passed": {listed.path: forged_record(unlisted)}}
    run = run_pts(listed_vars(listed), dict(TINY, **{name: values[name]}))
    output = run.stdout + run.stderr
    assert run.rc != 0 and f"the extra variable {name} would replace what the run decides itself" in output, \
        output[-3000:]
    assert "nothing was written" in output and sums(listed, unlisted) == before
    assert not os.path.exists(run.run_dir), "a run refused by name made its results directory"


def test_documented_inputs_that_share_a_prefix_are_still_inputs(two, run_pts):
    listed, unlisted = two
    before = sums(unlisted)
    run = run_pts(listed_vars(listed), dict(TINY, pts_purge_method="discard", pts_precondition_iodepth=8))
    assert run.rc == 0, run.stdout[-3000:]
    assert sums(unlisted) == before and run.rounds("listed")
    wipc = load(os.path.join(run.drive_dir("listed"), "iops", "wipc.json"))
    assert "iodepth=8" in open(os.path.join(run.drive_dir("listed"), "iops", "wipc.fio"), encoding="utf-8").read()
    assert wipc["fio"]["jobs"][0]["iodepth"] == 8


@pytest.mark.parametrize("variable, value, said", [
    ("pts_run_ioengine", "exec", "pts_run_ioengine='exec': must be one of libaio"),
    ("pts_run_ioengine", "nosuchengine", "pts_run_ioengine='nosuchengine': must be one of"),
    ("pts_run_ioengine", "null", "pts_run_ioengine='null': must be one of"),
    ("pts_run_iodepth", 100000, "pts_run_iodepth=100000: must be at most 4096 outstanding IOs per thread"),
    ("pts_run_numjobs", 1000, "pts_run_numjobs=1000: must be at most 256 threads"),
])
def test_inputs_fio_would_not_take_are_refused_before_the_purge(two, run_pts, variable, value, said):
    listed, unlisted = two
    before = sums(listed, unlisted)
    run = run_pts(listed_vars(listed), dict(TINY, **{variable: value}))
    assert run.rc != 0 and said in run.stdout, run.stdout[-3000:]
    assert sums(listed, unlisted) == before and run.rounds("listed") == []


# --- past the names: the host's record is the truth -------------------------------------------------------------------

def test_no_write_module_accepts_a_device_the_guard_did_not_pass_whatever_record_it_is_given(two, tmp_path):
    """A playbook of the launcher's own (or a variable that slipped past the names): the guard passed and holds the
    listed drive for run trust-1; every write module is then handed that very record, its hold included, for the
    unlisted device - and refuses, because the host has no guard record of that device for the run."""
    listed, unlisted = two
    before = sums(unlisted)
    remote = tmp_path / "remote"
    evil = f"[global]\nfilename={unlisted.path}\nioengine=libaio\ndirect=1\n\n[w]\nstonewall\nrw=write\nbs=1M\n"
    playbook = tmp_path / "forge.yml"
    playbook.write_text(yaml.safe_dump([{"name": "Forge", "hosts": "localhost", "gather_facts": False, "tasks": [
        {"name": "Guard and hold the listed drive", "ansible.builtin.include_role": {"name": "fleetqual.pts.pts_guard"},
         "vars": {"pts_guard_devices": [{"path": listed.path}], "pts_guard_allow_destroy": True,
                  "pts_guard_run_id": "trust-1", "pts_guard_remote_dir": str(remote)}},
        {"name": "Keep the listed drive's record, pointed at the unlisted device", "ansible.builtin.set_fact": {
            "forged": f"{{{{ pts_guard_passed['{listed.path}'] | combine({{'path': '{unlisted.path}', "
                      f"'resolved': '{unlisted.path}', 'devnum': '{devnum(unlisted.path)}'}}) }}}}"}},
        {"name": "Purge it", "fleetqual.pts.pts_purge": {"path": unlisted.path, "method": "discard",
                                                         "allow_destroy": True, "remote_dir": str(remote),
                                                         "expect": "{{ forged }}"},
         "register": "purged", "ignore_errors": True},
        {"name": "Write it with fio", "fleetqual.pts.fio_job": {"job_file": f"{remote}/x/evil.fio", "job_text": evil,
                                                                "device": unlisted.path, "expect": "{{ forged }}"},
         "register": "written", "ignore_errors": True},
        {"name": "Write it with fio in the listed drive's name",
         "fleetqual.pts.fio_job": {"job_file": f"{remote}/x/evil2.fio", "job_text": evil, "device": listed.path,
                                   "expect": f"{{{{ pts_guard_passed['{listed.path}'] }}}}"},
         "register": "named", "ignore_errors": True},
        {"name": "Say what each got", "ansible.builtin.debug": {
            "msg": "PURGE={{ purged.msg }} || FIO={{ written.msg }} || NAMED={{ named.msg }}"}},
        {"name": "Release the listed drive", "fleetqual.pts.pts_drive_hold": {
            "path": listed.path, "run_id": "trust-1", "state": "absent"}},
    ]}]))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), str(playbook), "-i", "localhost,", "-c", "local",
                           "-e", "ansible_python_interpreter=/usr/bin/python3"], cwd=ROOT, env=playbook_env(tmp_path),
                          capture_output=True, text=True, timeout=600, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    number = devnum(unlisted.path)
    assert (f"PURGE=pts_purge {unlisted.path}: refused, nothing was written: {unlisted.path} (device {number}): there is "
            f"no guard record of device {number} on the host") in output, output[-3000:]
    assert f"FIO=fio_job refused {remote}/x/evil.fio, nothing was written: {unlisted.path} (device {number}): " \
           f"there is no guard record of device {number} on the host" in output
    assert f"NAMED=fio_job refused {remote}/x/evil2.fio, nothing was written: line 2 writes to '{unlisted.path}', " \
           f"not to the guarded device {listed.path}" in output
    assert sums(unlisted) == before
    assert not os.path.exists(os.path.join(LOCK_DIR, "guard-{}-{}.json".format(*devnum(listed.path).split(":"))))


# --- a local user on the drive host -----------------------------------------------------------------------------------

@pytest.fixture
def shared():
    """A directory the local user (nobody) can reach - pytest's own temporary directories are root's alone."""
    base = tempfile.mkdtemp(prefix="pts-trust-", dir="/tmp")
    os.chmod(base, 0o755)
    yield pathlib.Path(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("setup, said", [
    ("owned", "belongs to uid 65534"),
    ("planted-link", "is a symbolic link"),
    ("world-writable", "can be written by others (mode 0777)"),
])
def test_a_remote_dir_another_user_can_change_is_refused_before_the_hold_and_the_purge(two, run_pts, shared, setup,
                                                                                       said):
    listed, unlisted = two
    attacker = shared / "shared"
    attacker.mkdir(mode=0o755)
    remote = attacker / "remote"
    if setup == "owned":
        os.chown(attacker, NOBODY, NOBODY)
        as_nobody("mkdir", str(remote))
    elif setup == "planted-link":
        # A shared directory like /tmp (root's, sticky): the attacker plants the run's remote dir as a link to a
        # directory of their own, holding the preconditioning job file the run would write, aimed at the unlisted
        # device.
        os.chmod(attacker, 0o1777)
        planted = shared / "planted"
        planted.mkdir(mode=0o755)
        os.chown(planted, NOBODY, NOBODY)
        as_nobody("mkdir", "-p", str(planted / "it-1.x" / "listed" / "iops"))
        as_nobody("sh", "-c", f"printf '[w]\\nfilename={unlisted.path}\\nrw=write\\nbs=1M\\n' "
                              f">{planted}/it-1.x/listed/iops/wipc.fio")
        as_nobody("ln", "-s", str(planted), str(remote))
    else:
        os.chmod(attacker, 0o777)
    before = sums(listed, unlisted)
    run = run_pts(listed_vars(listed, pts_run_remote_dir=str(remote)), TINY)
    output = run.stdout + run.stderr
    assert run.rc != 0 and "pts_run_remote_dir" in output and said in output, output[-3000:]
    assert "cannot hold the run's job files" in output
    assert sums(listed, unlisted) == before
    assert run.rounds("listed") == [] and not os.path.exists(os.path.join(run.drive_dir("listed"), "iops"))
    # Refused before the hold: nothing of the run holds the drive.
    assert not os.path.exists(os.path.join(LOCK_DIR, "hold-{}-{}.json".format(*devnum(listed.path).split(":"))))


# --- the wear bound inside every fio run ------------------------------------------------------------------------------

def written(device) -> int:
    with open(f"/sys/block/{os.path.basename(device.path)}/stat", encoding="ascii") as handle:
        return int(handle.read().split()[6]) * 512


@pytest.mark.parametrize("tests, extra", [
    (["iops"], {"pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"], "pts_run_round_seconds": 3,
                "pts_precondition_capacity_multiple": 1}),
    (["xsr"], {"pts_spec": "2.0"}),
], ids=["round-1", "xsr-group"])
def test_a_drive_faster_than_the_plan_assumed_is_stopped_inside_fio_at_its_wear_bound(loop_device, tmp_path, tests,
                                                                                      extra):
    device = loop_device("64M")
    # The rule says 1 MB/s: the plan's bound is what the run writes at that rate; the loop device writes far faster.
    rule = {"name": "slow on paper", "model": "loop device", "endurance_tbw": 1000, "rated_write_mb_s": 1}
    host = listed_vars(device, pts_acceptance=[rule])
    first = written(device)
    run = run_playbook(tmp_path, host, dict(extra, pts_tests=tests), run_id=f"wear-{tests[0]}")
    output = run.stdout + run.stderr
    assert run.rc != 0, output[-3000:]
    plan = load(os.path.join(run.run_dir, "localhost", "plan.json"))["plan"]
    bound = plan["drives"][0]["wear"]["estimated_bytes"]
    taken = written(device) - first
    # Stopped by the host within a watch interval (0.05 s) of the bound, whatever the drive's speed.
    assert taken <= bound + 64 * 2 ** 20, (taken, bound)
    failures = [load(os.path.join(root, "failure.json")) for root, dummy, files in os.walk(run.drive_dir("listed"))
                if "failure.json" in files]
    assert any("at the run's wear bound" in f["msg"] or "it would pass the bound" in f["msg"] for f in failures), \
        failures
    result = load(os.path.join(run.drive_dir("listed"), "result.json"))
    assert result["verdict"]["verdict"] != "PASS"
    assert assert_exit_matches_fleet(run.rc, run.run_dir, output)["failed"] is True


def test_the_host_holds_the_guards_record_only_while_the_run_holds_the_drive(loop_device, run_pts):
    device = loop_device()
    record = os.path.join(LOCK_DIR, "guard-{}-{}.json".format(*devnum(device.path).split(":")))
    run = run_pts(listed_vars(device), TINY)
    assert run.rc == 0, run.stdout[-3000:]
    assert not os.path.exists(record)
    # The record the run wrote was root's alone and said which run and drive held it (kept in the run's guard.json).
    guard = load(os.path.join(run.drive_dir("listed"), "guard.json"))
    assert guard["hold"]["record"] == record and guard["hold"]["run_id"] == "it-1"
    assert json.dumps(guard).count(device.path) >= 1
