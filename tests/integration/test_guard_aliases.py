# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guard's blind spots of issue 16, with real loop devices: a loop device stacked on the listed drive, a second
loop device over the listed drive's backing file (an alias), the listed loop device attached to another file
between the guard and the first write, and device paths with control characters. Each run must be refused, name
the device and how it reaches the drive, and leave every byte of every device and file involved as it was."""

from __future__ import annotations

import glob
import json
import os
import signal
import stat
import subprocess
import threading
import time

import pytest
from conftest import sh, sha256

QUICK = {"pts_run_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
         "pts_run_round_seconds": 0.5, "pts_run_max_rounds": 5}


def host_vars(device, **extra):
    spec = {"path": device.path, "name": "victim", "backing_file": device.image}
    spec.update(extra.pop("spec", {}))
    return {"pts_devices": [spec], "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def assert_refused(run, before: dict, *reasons: str) -> str:
    """The run failed, said every reason, wrote no round, and every file/device in ``before`` is unchanged."""
    output = run.stdout + run.stderr
    assert run.rc != 0, output[-3000:]
    for reason in reasons:
        assert reason in output, (reason, output[-4000:])
    assert {path: sha256(path) for path in before} == before
    assert run.rounds("victim") == []
    assert not glob.glob(os.path.join(run.run_dir, "**", "*.fio"), recursive=True)  # no fio job was rendered
    return output


def _fill(path: str) -> None:
    # Known non-zero content, so a purge (which zeroes a loop device) would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={path}", "bs=1M", "count=4", "conv=notrunc", "status=none")


def _name(node: str) -> str:
    return os.path.basename(node)


@pytest.fixture
def extra_loops():
    """Loop devices over a file or over another device; detached in reverse order (the top of a stack first)."""
    made = []

    def attach(target: str, *options: str) -> str:
        node = sh("losetup", "--show", "-f", *options, target)
        made.append(node)
        return node

    yield attach
    for node in reversed(made):
        subprocess.run(["losetup", "-d", node], check=False)


@pytest.fixture
def mounted(tmp_path):
    """A fresh ext4 on a device, mounted read-only (ext4 then writes nothing of its own); unmounted afterwards."""
    points = []

    def mount(node: str) -> str:
        sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", node)
        point = tmp_path / f"mnt-{len(points)}"
        point.mkdir()
        sh("mount", "-o", "ro", node, str(point))
        points.append(str(point))
        return str(point)

    yield mount
    for point in reversed(points):
        subprocess.run(["umount", point], check=False)


def test_a_loop_stacked_on_the_drive_with_a_mounted_filesystem(loop_device, run_pts, extra_loops, mounted):
    device = loop_device()
    stacked = extra_loops(device.path, "-o", "1M", "--sizelimit", "64M")
    on_top = extra_loops(stacked)  # a loop over the loop over the drive
    mountpoint = mounted(stacked)
    before = {device.path: device.checksum(), stacked: sha256(stacked), device.image: sha256(device.image)}
    run = run_pts(host_vars(device), QUICK)
    how = f"a loop device over {device.path} at offset 1048576 size limit 67108864, stacked on this drive"
    assert_refused(run, before, "pts_guard refused, nothing was written",
                   f"{_name(stacked)} ({how}) is mounted on {mountpoint} (ext4)",
                   f"detach it first (losetup -d {stacked})",
                   f"{_name(on_top)} (a loop device over {stacked}, which is {how}): writing this drive changes what it holds")
    assert os.path.ismount(mountpoint)


def test_another_loop_over_the_same_file_with_a_mounted_filesystem(loop_device, run_pts, extra_loops, mounted):
    device = loop_device()
    alias = extra_loops(device.image)
    mountpoint = mounted(alias)
    before = {device.path: device.checksum(), device.image: sha256(device.image)}
    # The ext4 signature is allowed: the mount on the other path alone must refuse the drive.
    run = run_pts(host_vars(device, pts_allow_signatures=True), QUICK)
    assert_refused(run, before, f"{_name(alias)} (another path to this drive: a loop device over the same file as "
                                f"{_name(device.path)} ({device.image})) is mounted on {mountpoint} (ext4)")
    assert os.path.ismount(mountpoint)


def test_another_loop_over_the_same_file_held_open_by_a_process(loop_device, run_pts, extra_loops):
    device = loop_device()
    _fill(device.image)
    alias = extra_loops(device.image, "-o", "512")
    before = {device.path: device.checksum(), device.image: sha256(device.image)}
    with open(alias, "rb") as held:
        holder = subprocess.Popen(["sleep", "300"], stdin=held)
    try:
        run = run_pts(host_vars(device), QUICK)
        assert_refused(run, before, f"{_name(alias)} (another path to this drive: a loop device over the same file as "
                                    f"{_name(device.path)} ({device.image})) is open by process {holder.pid} (sleep)")
    finally:
        holder.kill()
        holder.wait()


def test_two_listed_loop_devices_over_one_file(loop_device, run_pts, extra_loops):
    device = loop_device()
    _fill(device.image)
    alias = extra_loops(device.image)
    before = {device.path: device.checksum(), device.image: sha256(device.image)}
    vars_ = host_vars(device)
    vars_["pts_devices"].append({"path": alias, "name": "victim-alias"})
    run = run_pts(vars_, QUICK)
    assert_refused(run, before, f"{alias} is listed too, and it is {_name(alias)} (another path to this drive",
                   f"{device.path} is listed too, and it is {_name(device.path)} (another path to this drive")


def _ansible_pids(marker: str) -> list[int]:
    """The ansible-playbook process and its forked workers: every process whose command line names ``marker``."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    pids.append(int(pid))
        except OSError:
            continue
    return pids


def test_the_listed_loop_device_cannot_be_attached_to_another_file_once_the_guard_passed_it(loop_device, run_pts,
                                                                                            tmp_path):
    """The guard holds what it passes before it answers (and before guard.json is filed): a loop device it passed
    cannot be re-attached to another file while the run tests it - the kernel refuses, since the run's holder has it
    open. (Were it re-attached all the same, every write would refuse it: test__guard.py's recheck cases.)"""
    device = loop_device()
    _fill(device.image)
    other = str(tmp_path / "other.img")
    sh("truncate", "-s", "64M", other)
    _fill(other)
    before = sha256(other)
    done: dict = {}

    def swap_after_the_guard() -> None:
        deadline = time.monotonic() + 120
        while not glob.glob(str(tmp_path / "results" / "*" / "*" / "*" / "guard.json")):
            if time.monotonic() > deadline:
                done["error"] = "the guard's guard.json never appeared"
                return
            time.sleep(0.005)
        paused = _ansible_pids(str(tmp_path / "inventory-it-1.yml"))
        try:
            for pid in paused:
                os.kill(pid, signal.SIGSTOP)
            # Detaching a device that is open only marks it to go when its last user closes it; attaching it to
            # another file then fails while the holder keeps it.
            subprocess.run(["losetup", "-d", device.path], check=True)
            attached = subprocess.run(["losetup", device.path, other], capture_output=True, text=True, check=False)
            done["attach_rc"] = attached.returncode
        finally:
            for pid in paused:
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass

    watcher = threading.Thread(target=swap_after_the_guard, daemon=True)
    watcher.start()
    run = run_pts(host_vars(device), QUICK)
    watcher.join(timeout=30)
    assert done.get("attach_rc", 0) != 0, done
    assert run.rc == 0 and run.rounds("victim"), run.stdout[-3000:]
    assert sha256(other) == before
    recorded = _results_json(run.drive_dir("victim"), "iops", "round-01.json")
    assert recorded["fio"]["jobs"], recorded


def _results_json(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("how", ["listed", "through a symlink"])
def test_a_device_path_with_a_newline(loop_device, run_pts, tmp_path, how):
    device = loop_device()
    _fill(device.image)
    before = {device.path: device.checksum(), device.image: sha256(device.image)}
    # A node for the same loop device whose name would, written into a job file, start a job section of its own.
    node = str(tmp_path / "loop\n[injected]\nexec_prerun=touch injected-ran\n")
    os.mknod(node, stat.S_IFBLK | 0o600, os.stat(device.path).st_rdev)
    link = tmp_path / "plain-link"
    link.symlink_to(node)
    try:
        listed = node if how == "listed" else str(link)
        run = run_pts(host_vars(device, spec={"path": listed}), QUICK)
        output = assert_refused(run, before, "contains a control character")
        if how == "through a symlink":  # the listed path is clean: only the guard can see the node's name
            escaped = node.replace("\n", "\\n")
            assert f"the device node it resolves to '{escaped}' contains a control character" in output
        assert not glob.glob(str(tmp_path / "**" / "injected-ran"), recursive=True)
        assert not os.path.exists(os.path.join(os.path.dirname(__file__), "..", "..", "injected-ran"))
    finally:
        os.remove(node)
