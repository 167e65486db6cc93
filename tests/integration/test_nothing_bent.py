# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a hostile input or a local user could bend (issue 29), on real loop devices: bad CBW input, a run id with a
control character and a planted run directory are refused before anything is written, the device's bytes unchanged;
a process with a drive holder's command line does not block a drive."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import LOCK_DIR, MARKER, devnum, sh

TINY = {"pts_run_round_seconds": 0.5, "pts_run_max_rounds": 6, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"], "pts_precondition_capacity_multiple": 1}


def host_vars(device, **extra):
    return {"pts_devices": [{"path": device.path, "name": "victim", "backing_file": device.image}],
            "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def _fill(device):
    # Known non-zero content, so a purge (which zeroes a loop device) would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")


def _said(run) -> str:
    return " ".join((run.stdout + run.stderr).split())


@pytest.mark.parametrize("variable, value, said", [
    ("pts_run_cbw_bssplit", "٤k/100", "pts_run_cbw_bssplit='٤k/100': '٤k/100' is not size/percent (e.g. 4k/67) in "
                                      "ASCII digits (0-9); nothing was written"),
    ("pts_run_cbw_distribution", "zoned:١٠٠/100", "pts_run_cbw_distribution='zoned:١٠٠/100': must be a fio zoned "
                                                  "distribution"),
    # Known only once the drive is identified: refused by the plan, after the guard, before the purge.
    ("pts_run_cbw_bssplit", "1024m/100", "pts_run_cbw_bssplit='1024m/100': its block size 1048576k (1,073,741,824 "
                                         "bytes) is larger than the drive (67,108,864 bytes, drive victim): fio cannot "
                                         "run it; give a smaller one; nothing was written"),
])
def test_bad_cbw_input_is_refused_before_the_purge(loop_device, run_pts, variable, value, said):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    run = run_pts(host_vars(device, pts_tests=["cbw"]), {variable: value})
    assert run.rc != 0 and said in _said(run), run.stdout[-3000:]
    assert device.checksum() == before
    assert not os.path.exists(os.path.join(run.drive_dir("victim"), "cbw"))


def test_a_run_id_with_a_control_character_is_refused_and_nothing_is_written(loop_device, run_pts, tmp_path):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    run = run_pts(host_vars(device, pts_tests=["iops"]), dict(TINY, pts_run_id="R1nl\n"))
    assert run.rc != 0 and "pts_run_id='R1nl\\n': a run id is one directory name" in _said(run), run.stdout[-3000:]
    assert "it contains a control character; nothing was written" in _said(run)
    assert device.checksum() == before
    assert not os.path.exists(tmp_path / "results" / "R1nl\n") and not os.path.exists(tmp_path / "results" / "R1nl")


def test_a_run_directory_planted_as_a_symbolic_link_is_refused_and_nothing_is_written(loop_device, run_pts, tmp_path):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "it-1").symlink_to(elsewhere)
    run = run_pts(host_vars(device, pts_tests=["iops"]), TINY)
    assert run.rc != 0, run.stdout[-3000:]
    # Refused at the run's first task, which reads the run directory to tell a finished run id from a new one.
    assert (f"pts_run_start: cannot tell whether run it-1 has finished: {tmp_path / 'results' / 'it-1'}: is a symbolic "
            "link: refused, the collection follows no link here; nothing was written") in _said(run), run.stdout[-3000:]
    assert os.listdir(elsewhere) == [] and device.checksum() == before


@pytest.fixture
def fake_holder():
    """A process any local user could start: a drive holder's command line for a device, and nothing else (no open
    device, no lock file)."""
    started = []

    def start(path: str, run_id: str = "intruder") -> subprocess.Popen:
        number = devnum(path)
        lock = os.path.join(LOCK_DIR, "hold-{}-{}.json".format(*number.split(":")))
        proc = subprocess.Popen(["/usr/bin/python3", "-I", "-S", "-c", "import sys;exec(sys.stdin.read())", MARKER,
                                 path, number, run_id, lock, "1", "f" * 32], stdin=subprocess.PIPE)
        proc.stdin.write(b"import time\ntime.sleep(900)\n")
        proc.stdin.close()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def test_a_process_with_a_holders_command_line_does_not_block_the_drive(loop_device, run_pts, fake_holder):
    device = loop_device()
    fake = fake_holder(device.path)
    run = run_pts(host_vars(device, pts_tests=["iops"]), TINY)
    said = _said(run)
    assert run.rc == 0, run.stdout[-3000:]
    assert "held for run intruder" not in said
    assert f"process {fake.pid} has a drive holder's command line for run intruder but does not have the device " \
           "open: it holds nothing, ignored" in said
    assert run.rounds("victim") and fake.poll() is None  # the drive was tested; the process was left alone
