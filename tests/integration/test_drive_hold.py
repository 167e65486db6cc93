# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two runs on one drive: from the guard to the end of its tests a run holds the drive exclusively (a detached holder
process keeps an O_EXCL open, a lock file in /run/fleetqual-pts names it). A second run is refused naming the holder,
the kernel refuses mount and mkfs while fio still writes, a holder left by a killed controller is named and then taken
over by the resume, and no holder or lock file is left after a run, whatever became of its drive."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import signal
import subprocess
import threading
import time
import uuid

import yaml
from conftest import (BIN, ROOT, assert_exit_matches_fleet, assert_nothing_held, devnum, failing_drive, holders, lock_file,
                      playbook_env, sh)

# One 4k random-write combination, rate-limited so that its rounds last what they say whatever the backing store.
TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.5, "pts_run_max_rounds": 3, "pts_run_window": 2, "pts_run_rate_iops": 200,
        "pts_precondition_capacity_multiple": 1}


def spec(device, name="victim"):
    return {"path": device.path, "name": name, "backing_file": device.image}


def host_vars(*devices, **extra):
    return {"pts_devices": [spec(d, n) for d, n in devices], "pts_allow_destroy": True, "pts_profile": "quick",
            **extra}


def fill(device):
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")


def fio_on(path: str) -> list[int]:
    rdev, found = os.stat(path).st_rdev, []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm", encoding="utf-8").read().strip() != "fio":
                continue
            if any(os.stat(f"/proc/{pid}/fd/{fd}").st_rdev == rdev for fd in os.listdir(f"/proc/{pid}/fd")):
                found.append(int(pid))
        except OSError:
            continue
    return found


def command(tmp_path, devices_vars: dict, run_id: str, extra: dict | None = None):
    inventory = tmp_path / f"inventory-{uuid.uuid4().hex[:8]}.yml"
    hostvars = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                "pts_run_remote_dir": str(tmp_path / f"remote-{run_id}"), "pts_fleet_fail_on": [], **devices_vars}
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": hostvars}}}))
    env = playbook_env(tmp_path, PTS_RUN_ID=run_id)
    argv = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory)]
    return argv + ["-e", json.dumps(extra)] if extra else argv, env


def run(tmp_path, devices_vars: dict, run_id: str, extra: dict | None = None) -> subprocess.CompletedProcess:
    argv, env = command(tmp_path, devices_vars, run_id, extra)
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    (tmp_path / f"playbook-{run_id}-{uuid.uuid4().hex[:4]}.log").write_text(proc.stdout + proc.stderr)
    return proc


class Background:
    """A run started in the background, its output in a log file, killed at the end if still running."""

    def __init__(self, tmp_path, devices_vars: dict, run_id: str, extra: dict | None = None):
        argv, env = command(tmp_path, devices_vars, run_id, extra)
        self.log_path = tmp_path / f"playbook-{run_id}-background.log"
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        # Its own session, so that killing the controller kills every process of it (and only of it).
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT,  # noqa: S603
                                     start_new_session=True)

    def wait_for(self, condition, what: str, timeout: float = 120):
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.proc.poll() is None, f"the run ended before {what}: {self.output()[-3000:]}"
            assert time.monotonic() < deadline, f"no {what} within {timeout} s"
            time.sleep(0.05)

    def output(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._log.close()


def rounds(tmp_path, run_id: str, drive: str = "victim", test: str = "iops") -> list[str]:
    path = tmp_path / "results" / run_id / "localhost" / drive / test
    return sorted(p.name for p in path.iterdir() if re.fullmatch(r"round-\d+\.json", p.name)) if path.is_dir() else []


def result(tmp_path, run_id: str, drive: str = "victim", test: str = "iops") -> dict:
    path = tmp_path / "results" / run_id / "localhost" / drive / "result.json"
    return json.loads(path.read_text())["tests"][test]


def lock_record(path: str) -> dict:
    with open(lock_file(path), encoding="utf-8") as handle:
        return json.load(handle)


class ExclusiveProbe:
    """An exclusive open of the device every 20 ms, each attempt's time and errno kept (0: it succeeded)."""

    def __init__(self, path: str):
        self.path, self.attempts, self._stop = path, [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                os.close(os.open(self.path, os.O_RDONLY | os.O_EXCL))
                self.attempts.append((time.time(), 0))
            except OSError as exc:
                self.attempts.append((time.time(), exc.errno))
            time.sleep(0.02)

    def stop(self):
        self._stop.set()
        self._thread.join()


def test_a_second_run_is_refused_and_nothing_claims_the_drive_while_the_first_tests_it(loop_device, tmp_path):
    device = loop_device("16M")
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    # At least six rounds of 4 s (the window): the first run is still testing when the second has been guarded and
    # refused, even on a busy machine where the second run's validation and guard take half a minute.
    slow = dict(TINY, pts_run_round_seconds=6, pts_run_max_rounds=10, pts_run_window=8)
    first = Background(tmp_path, host_vars((device, "victim")), "hold-a", slow)
    probe = None
    try:
        first.wait_for(lambda: os.path.exists(lock_file(device.path)), "hold of the first run")
        probe = ExclusiveProbe(device.path)
        lock = lock_record(device.path)
        assert lock["run_id"] == "hold-a" and lock["devnum"] == devnum(device.path)
        assert holders(device.path) == [lock["pid"]]

        # 1. Another run on the drive: refused by the guard, naming the holder, with nothing of its own run.
        second = run(tmp_path, host_vars((device, "victim")), "hold-b", TINY)
        assert first.proc.poll() is None, "the first run ended before the second was judged; the test proves nothing"
        assert second.returncode != 0
        assert (f"{os.path.basename(device.path)} is held for run hold-a by its drive holder, process {lock['pid']} "
                f"(lock file {lock_file(device.path)})") in second.stdout, second.stdout[-3000:]
        assert f"`kill {lock['pid']}`" in second.stdout
        # Refused by the guard itself: nothing held, no task of a drive's tests (purge, preconditioning, rounds) ran.
        assert "Run every segment of each test" not in second.stdout
        assert not list((tmp_path / "results" / "hold-b").rglob("round-*"))
        assert lock_record(device.path)["pid"] == lock["pid"]  # the first run's hold is untouched

        # 2. While fio runs a round, the kernel refuses mount and mkfs (exclusive opens); fio's own opens still work.
        first.wait_for(lambda: rounds(tmp_path, "hold-a") and fio_on(device.path), "a round running")
        mount = subprocess.run(["mount", "-t", "ext4", device.path, str(mountpoint)], capture_output=True, text=True,
                               check=False)
        mkfs = subprocess.run(["mkfs.ext4", "-q", "-F", device.path], capture_output=True, text=True, check=False)
        assert mount.returncode != 0 and "already mounted or mount point busy" in mount.stderr, mount.stderr
        assert mkfs.returncode != 0 and "apparently in use by the system" in mkfs.stderr, mkfs.stderr
        assert first.proc.wait(timeout=300) == 0, first.output()[-3000:]
    finally:
        if probe:
            probe.stop()
        first.stop()
        subprocess.run(["umount", str(mountpoint)], check=False, capture_output=True)
    done = rounds(tmp_path, "hold-a")
    outcome = result(tmp_path, "hold-a")
    assert outcome["status"] in ("steady", "not steady") and outcome["rounds_run"] == len(done) >= 3
    assert done == [f"round-{n:02d}.json" for n in range(1, len(done) + 1)]
    # Every exclusive open from the hold to the last round - fio's job sections and the gaps between them, when no
    # fio has the device open - was refused; once the drive's tests were over it was free again.
    last_round = os.path.getmtime(tmp_path / "results" / "hold-a" / "localhost" / "victim" / "iops" / done[-1])
    during = [code for at, code in probe.attempts if at < last_round]
    assert len(during) > 100 and set(during) == {errno.EBUSY}, sorted(set(during))
    assert probe.attempts[-1][1] == 0
    assert_nothing_held(device)


def test_another_run_that_chose_the_same_run_id_neither_takes_over_nor_releases_the_first(loop_device, tmp_path):
    # Two results trees (two controllers, or two sessions on one) chose run id "same-id" against one host at once.
    # The run ids are equal; the run tokens in their results directories are not.
    drive, other = loop_device("16M"), loop_device("16M")
    fill(other)
    other_before = other.checksum()
    tree_a, tree_b = tmp_path / "a", tmp_path / "b"
    tree_a.mkdir()
    tree_b.mkdir()
    # Twenty 6 s rounds: the first run still runs while the two others (about 40 s each on a busy machine) are judged.
    slow = dict(TINY, pts_run_round_seconds=6, pts_run_max_rounds=20, pts_run_window=20)
    first = Background(tree_a, host_vars((drive, "victim")), "same-id", slow)
    try:
        first.wait_for(lambda: os.path.exists(lock_file(drive.path)), "hold of the first run")
        lock = lock_record(drive.path)
        token_a = (tree_a / "results" / "same-id" / ".pts-run-token").read_text().strip()
        assert lock["run_id"] == "same-id" and lock["token"] == token_a

        # 1. The same drive under the same run id: another run's holder, refused by the guard, never taken over.
        second = run(tree_b, host_vars((drive, "victim")), "same-id", TINY)
        token_b = (tree_b / "results" / "same-id" / ".pts-run-token").read_text().strip()
        assert first.proc.poll() is None, "the first run ended before the second was judged; the test proves nothing"
        assert second.returncode != 0 and token_b != token_a
        # The tokens themselves are in no output (AWX stores every event): their ids tell the two runs apart.
        assert (f"is held for another run of the same run id same-id (run token id {token_id(token_a)}, not "
                f"{token_id(token_b)}: results in another directory or on another controller) by its drive holder, "
                f"process {lock['pid']}") in second.stdout, second.stdout[-3000:]
        assert token_a not in second.stdout and token_b not in second.stdout
        assert "Run every segment of each test" not in second.stdout
        assert lock_record(drive.path)["pid"] == lock["pid"] and holders(drive.path) == [lock["pid"]]

        # 2. Another drive under the same run id, held and then refused by the plan (wear budget): the failure
        # releases every hold of its own run on the host - and none of the first run's.
        rule = {"name": "tiny endurance", "model": "loop device", "endurance_tbw": 0.0001}
        # (pts_resume: tree b's run same-id was judged, and a finished run id is refused otherwise.)
        third = run(tree_b, host_vars((other, "victim"), pts_acceptance=[rule]), "same-id", dict(TINY, pts_resume=True))
        assert first.proc.poll() is None, "the first run ended before the third was judged; the test proves nothing"
        assert third.returncode != 0 and "pts_plan: the wear budget refuses drive victim" in third.stdout
        assert "Release the holds this run took on the host" in third.stdout, third.stdout[-3000:]
        assert holders(other.path) == [] and other.checksum() == other_before
        assert lock_record(drive.path)["pid"] == lock["pid"] and holders(drive.path) == [lock["pid"]]

        assert first.proc.wait(timeout=300) == 0, first.output()[-3000:]
    finally:
        first.stop()
    done = rounds(tree_a, "same-id")
    assert done == [f"round-{n:02d}.json" for n in range(1, len(done) + 1)] and len(done) >= 3
    assert_nothing_held(drive, other)


def test_a_killed_controller_leaves_its_holder_named_then_the_resume_takes_it_over(loop_device, tmp_path):
    device = loop_device("16M")
    first = Background(tmp_path, host_vars((device, "victim")), "hold-kill", TINY)
    try:
        # Mid-test: the purge has run and fio writes the drive (its preconditioning or a round).
        first.wait_for(lambda: os.path.exists(lock_file(device.path)) and fio_on(device.path), "fio on the drive")
        os.killpg(first.proc.pid, signal.SIGKILL)
        first.proc.wait()
    finally:
        first.stop()
    # The holder is in a session of its own: it outlives the controller, and its lock file names it.
    lock = lock_record(device.path)
    assert lock["run_id"] == "hold-kill" and holders(device.path) == [lock["pid"]]
    deadline = time.monotonic() + 60
    quiet_since = None
    # The killed run's fio ends by itself (and a round it had asked for just before the kill may still start): wait
    # for a full second without any fio on the drive.
    while quiet_since is None or time.monotonic() - quiet_since < 1.0:
        assert time.monotonic() < deadline
        if fio_on(device.path):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        time.sleep(0.05)
    before = device.checksum()

    other = run(tmp_path, host_vars((device, "victim")), "hold-other", TINY)
    assert other.returncode != 0
    assert f"is held for run hold-kill by its drive holder, process {lock['pid']}" in other.stdout, other.stdout[-3000:]
    assert "resume it with the same run id (pts_run_id=hold-kill)" in other.stdout
    assert "Run every segment of each test" not in other.stdout and rounds(tmp_path, "hold-other") == []
    assert device.checksum() == before
    assert holders(device.path) == [lock["pid"]]

    resumed = run(tmp_path, host_vars((device, "victim")), "hold-kill", TINY)
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    # The guard proved the old holder to be this run's and named it for the takeover.
    guard = json.loads((tmp_path / "results" / "hold-kill" / "localhost" / "victim" / "guard.json").read_text())
    token = (tmp_path / "results" / "hold-kill" / ".pts-run-token").read_text().strip()
    assert guard["passed"] and guard["takeover"] == {"pid": lock["pid"], "run_id": "hold-kill",
                                                     "lock": lock_file(device.path)}
    assert token not in resumed.stdout
    outcome = result(tmp_path, "hold-kill")
    assert outcome["status"] in ("steady", "not steady") and outcome["rounds_run"] >= 2
    assert_nothing_held(device)


def token_id(token: str) -> str:
    """What the output says of a run token: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]


def guard_record(tmp_path, run_id: str, drive: str) -> dict:
    """The guard's verdict of a drive as the run filed it (guard.json), with its hold."""
    with open(tmp_path / "results" / run_id / "localhost" / drive / "guard.json", encoding="utf-8") as handle:
        return json.load(handle)


def test_no_holder_is_left_after_a_drive_fails_or_passes(loop_device, tmp_path):
    with failing_drive(tmp_path, "64M") as failing:
        healthy = loop_device("16M")
        proc = run(tmp_path, host_vars((failing, "failing"), (healthy, "healthy")), "hold-fail", TINY)
        assert_nothing_held(failing, healthy)
    assert_exit_matches_fleet(proc.returncode, str(tmp_path / "results" / "hold-fail"), proc.stdout)
    assert re.search(r"failing: .* failed: ", proc.stdout), proc.stdout[-3000:]
    assert result(tmp_path, "hold-fail", "failing")["status"] == "failed"
    assert result(tmp_path, "hold-fail", "healthy")["status"] in ("steady", "not steady")
    # Both drives were held from the guard on, and each worker released its drive's hold, the failed one included.
    for drive in ("failing", "healthy"):
        assert guard_record(tmp_path, "hold-fail", drive)["hold"]["run_id"] == "hold-fail"
    for drive in ("failing", "healthy"):
        assert re.search(rf"Release the run's hold on the drive\] \*+\nchanged: \[localhost/{drive} -> localhost\]",
                         proc.stdout), drive


def test_a_raid_build_that_fails_after_the_guard_leaves_no_hold(loop_device, tmp_path):
    # This machine's kernel has no md (and mdadm is not installed): building the array fails after the guard has
    # passed and held both members - the failure path between the guard and the workers.
    members = [loop_device("16M"), loop_device("16M")]
    for member in members:
        fill(member)
    before = [m.checksum() for m in members]
    proc = run(tmp_path, host_vars((members[0], "m1"), (members[1], "m2"),
                                   pts_raid=[{"name": "fq0", "level": 1, "members": ["m1", "m2"]}]), "hold-raid", TINY)
    assert proc.returncode != 0
    assert "pts_raid: array fq0 not tested" in proc.stdout, proc.stdout[-3000:]
    # The guard passed and held both members before the build failed.
    assert all(guard_record(tmp_path, "hold-raid", m)["hold"]["run_id"] == "hold-raid" for m in ("m1", "m2"))
    assert "Run every segment of each test" not in proc.stdout
    assert_nothing_held(*members)
    assert [m.checksum() for m in members] == before


def test_check_mode_holds_nothing(loop_device, tmp_path):
    device = loop_device("16M")
    fill(device)
    before = device.checksum()
    argv, env = command(tmp_path, host_vars((device, "victim")), "hold-check", TINY)
    proc = subprocess.run(argv + ["--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    (tmp_path / "playbook-hold-check.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout[-3000:]
    # The guard ran in check mode: it passed the drive and held nothing.
    assert re.search(r"Refuse drives that are not allowed, not the expected drive, or in use, and hold those that "
                     r"pass\] \*+\nPTS check localhost victim: the guard passes\nok: \[localhost\]", proc.stdout), \
        proc.stdout[-3000:]
    assert_nothing_held(device)
    assert device.checksum() == before
