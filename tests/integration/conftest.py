# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Real ansible-playbook runs against real loop devices on this machine (needs root and losetup)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _usage

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


@pytest.fixture(autouse=True)
def _needs_root():
    # Loop devices and blkdiscard need root; a skip would read as a pass, so fail instead.
    if os.geteuid() != 0:
        pytest.fail("the integration tests need root (loop devices, blkdiscard, mount)")


def load(path) -> dict:
    """A JSON file the run wrote."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def text(path) -> str:
    """A text file the run wrote (a report, a job file)."""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def sh(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class LoopDevice:
    def __init__(self, tmp_path, size: str = "64M", partitions: bool = False, sector_size: int | None = None,
                 rotational: bool = False):
        self.image = str(tmp_path / "drive.img")
        number = 1
        while os.path.exists(self.image):
            number += 1
            self.image = str(tmp_path / f"drive-{number}.img")
        sh("truncate", "-s", size, self.image)
        args = ["losetup", "--show", "-f", "--direct-io=on"] + (["-P"] if partitions else [])
        args += (["--sector-size", str(sector_size)] if sector_size else []) + [self.image]
        self.path = sh(*args)
        # The loop driver calls a device rotational when it cannot tell its backing store's kind, and
        # drive mode "auto" would then test it as a disk; these files live on flash or in memory.
        self.set_rotational(rotational)

    def set_rotational(self, rotational: bool) -> None:
        with open(f"/sys/block/{os.path.basename(self.path)}/queue/rotational", "w", encoding="ascii") as flag:
            flag.write("1" if rotational else "0")

    def checksum(self) -> str:
        return sha256(self.path)

    def detach(self) -> None:
        # Only while the node is still this device: one detached already (autoclear, a test's own losetup -d) may
        # have been given to another test's file since.
        try:
            with open(f"/sys/block/{os.path.basename(self.path)}/loop/backing_file", encoding="utf-8") as handle:
                attached = handle.read().strip()
        except OSError:
            return
        if attached == self.image:
            # A run the test killed leaves its fio to the end of its round: ended first, or the device's number, given
            # to the next test's file, would be that fio's next section's target (fio opens the file per section).
            end_openers(self.path)
            subprocess.run(["losetup", "-d", self.path], check=False)


def _fio_parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{parent}/comm", encoding="utf-8") as handle:
            return parent if handle.read().strip() == "fio" else None
    except (OSError, IndexError, ValueError):
        return None


def end_openers(path: str, timeout: float = 30.0) -> None:
    """Kill what still has ``path`` open and wait until nothing has."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [opener["pid"] for opener in _usage.openers_of({os.stat(path).st_rdev})]
        if not left:
            return
        # fio's job processes hold the device; their fio (the parent) would start the next section's.
        for pid in left + [parent for parent in map(_fio_parent, left) if parent]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


@contextlib.contextmanager
def failing_drive(tmp_path, size: str):
    """A loop device of ``size`` over a file on a 16 MiB tmpfs: its writes fail once the tmpfs is full."""
    small = tmp_path / "small-tmpfs"
    small.mkdir()
    sh("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(small))
    try:
        failing = LoopDevice(small, size)
        try:
            yield failing
        finally:
            failing.detach()
    finally:
        subprocess.run(["umount", str(small)], check=False)


@pytest.fixture
def loop_device(tmp_path):
    made = []

    def make(size: str = "64M", partitions: bool = False, sector_size: int | None = None,
             rotational: bool = False) -> LoopDevice:
        device = LoopDevice(tmp_path, size, partitions, sector_size, rotational)
        made.append(device)
        return device

    yield make
    for device in made:
        device.detach()


def assert_exit_matches_fleet(rc: int, run_dir: str, output: str = "", since: float | None = None) -> dict | None:
    """Every end-to-end run: the exit code is the fleet summary's exit status - 0 exactly when fleet.json (written by
    this run: newer than ``since``) says the run passes; a run that wrote no summary never exits 0. No worker name
    collides with an inventory host or group. Returns the summary, when there is one."""
    assert "Found both group and host with same name" not in output, output[-3000:]
    path = os.path.join(run_dir, "fleet.json")
    if not os.path.exists(path) or (since is not None and os.path.getmtime(path) < since):
        assert rc != 0, f"exit 0 without a fleet summary in {run_dir}: {output[-3000:]}"
        return None
    summary = load(path)
    assert (rc == 0) == (summary["failed"] is False), \
        f"exit code {rc} but the fleet summary's exit status {'fails' if summary['failed'] else 'passes'}: " \
        f"{output[-3000:]}"
    return summary


class PlaybookRun:
    def __init__(self, proc: subprocess.CompletedProcess, results: str, run_id: str, check: bool = False,
                 since: float | None = None):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.run_dir = os.path.join(results, run_id)
        output = self.stdout + self.stderr
        self.fleet = None if check else assert_exit_matches_fleet(self.rc, self.run_dir, output, since)

    def drive_dir(self, drive: str, host: str = "localhost") -> str:
        return os.path.join(self.run_dir, host, drive)

    def rounds(self, drive: str, test: str = "iops") -> list[str]:
        path = os.path.join(self.drive_dir(drive), test)
        return sorted(f for f in os.listdir(path) if f.startswith("round-") and f.endswith(".fio")) if os.path.isdir(path) else []


def playbook_env(tmp, **overrides) -> dict:
    """The environment a test's ansible-playbook runs in: the repository's venv, ansible.cfg and collection, its
    temporary and results directories under ``tmp``, no colour, and each drive's report as report.md alone
    (PTS_REPORT_FORMATS=""): the HTML and PDF cost most of a report's CPU, and the tests that read them - the fleet's,
    the report's, the trial's - ask for them; ``overrides`` set or replace variables."""
    env = dict(
        os.environ,
        PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
        ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
        ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
        ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-local"),
        ANSIBLE_REMOTE_TMP=str(tmp / "ansible-remote"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        MPLCONFIGDIR=str(tmp / "mpl"),
        PTS_RESULTS_DIR=str(tmp / "results"),
        PTS_REPORT_FORMATS="",
    )
    env.update(overrides)
    return env


def run_playbook(tmp_path, host_vars: dict, extra_vars: dict | None = None, check: bool = False,
                 run_id: str = "it-1") -> PlaybookRun:
    """Run playbooks/pts.yml against localhost with the given host variables and extra variables."""
    inventory = tmp_path / f"inventory-{run_id}.yml"
    # Verdicts fail a run by default; these tests check the figures, test_fleet checks verdicts and exit codes.
    hostvars = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                "pts_run_remote_dir": str(tmp_path / "remote"), "pts_fleet_fail_on": [], **host_vars}
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": hostvars}}}))
    results = str(tmp_path / "results")
    env = playbook_env(tmp_path, PTS_RUN_ID=run_id)
    command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory)]
    if extra_vars:
        command += ["-e", json.dumps(extra_vars)]
    if check:
        command.append("--check")
    started = time.time()
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800, check=False)
    with open(tmp_path / f"playbook-{run_id}.log", "w", encoding="utf-8") as log:
        log.write(proc.stdout + proc.stderr)
    return PlaybookRun(proc, results, run_id, check=check, since=started)


@pytest.fixture
def run_pts(tmp_path):
    counter = {"n": 0}

    def run(host_vars: dict, extra_vars: dict | None = None, check: bool = False) -> PlaybookRun:
        counter["n"] += 1
        return run_playbook(tmp_path, host_vars, extra_vars, check, run_id=f"it-{counter['n']}")

    return run


# Drive holds (plugins/module_utils/_drive/_hold.py) as a test sees them on this machine.
LOCK_DIR = "/run/fleetqual-pts"
MARKER = "fleetqual-pts-hold"


def devnum(path: str) -> str:
    rdev = os.stat(path).st_rdev
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def lock_file(path: str) -> str:
    return os.path.join(LOCK_DIR, "hold-{}-{}.json".format(*devnum(path).split(":")))


def holders(path: str) -> list[int]:
    """Running (not zombie) holder processes of the device, found by their command line."""
    want, found = devnum(path), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                args = handle.read().split(b"\0")
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if MARKER.encode() in args and want.encode() in args and state not in ("Z", "X"):
            found.append(int(pid))
    return found


def assert_nothing_held(*devices):
    for device in devices:
        assert holders(device.path) == [], f"a holder of {device.path} is still running"
        assert not os.path.exists(lock_file(device.path)), f"{lock_file(device.path)} is left behind"
