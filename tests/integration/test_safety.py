# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Refusals with real setups on real loop devices: the run fails, names the reason, and the device's
bytes are exactly what they were before (checksum of the whole device before and after)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess

import pytest
from conftest import sh

QUICK = {"pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"], "pts_run_round_seconds": 0.5,
         "pts_run_max_rounds": 5}


def host_vars(device, **extra):
    spec = {"path": device.path, "name": "victim", "backing_file": device.image}
    spec.update(extra.pop("spec", {}))
    return {"pts_devices": [spec], "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def assert_refused(run, device, before: str, *reasons: str, checksum=None):
    assert run.rc != 0, run.stdout[-2000:]
    output = run.stdout + run.stderr
    for reason in reasons:
        assert reason in output, output[-3000:]
    assert (checksum or device.checksum)() == before
    assert run.rounds("victim") == []
    report = os.path.join(run.drive_dir("victim"), "report.md")
    if os.path.exists(report):  # identified, then refused: the report says so
        with open(report, encoding="utf-8") as handle:
            assert "Refused by the guard — nothing was written to this drive" in handle.read()


def _fill(device):
    # Known non-zero content, so a purge (which zeroes a loop device) would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")


def test_not_allowed_to_destroy(loop_device, run_pts):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    run = run_pts(host_vars(device, pts_allow_destroy=False), QUICK)
    assert_refused(run, device, before, "pts_allow_destroy is not true for this host")


@contextlib.contextmanager
def mounted_ext4(path: str, mountpoint):
    """A fresh ext4 on ``path``, mounted read-only on ``mountpoint`` for the duration."""
    sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", path)
    mountpoint.mkdir()
    sh("mount", "-o", "ro", path, str(mountpoint))
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", str(mountpoint)], check=False)


def test_mounted_filesystem(loop_device, run_pts, tmp_path):
    device = loop_device()
    with mounted_ext4(device.path, tmp_path / "mnt") as mountpoint:
        before = device.checksum()
        run = run_pts(host_vars(device), QUICK)
        assert_refused(run, device, before, f"{os.path.basename(device.path)} is mounted on {mountpoint} (ext4)")


def test_a_raid_array_with_a_refused_member_is_never_built(loop_device, run_pts, tmp_path):
    member = loop_device()
    _fill(member)
    mounted = loop_device()
    with mounted_ext4(mounted.path, tmp_path / "mnt"):
        before = {d.path: d.checksum() for d in (member, mounted)}
        devices = [{"path": member.path, "name": "m1", "backing_file": member.image},
                   {"path": mounted.path, "name": "m2", "backing_file": mounted.image}]
        run = run_pts({"pts_devices": devices, "pts_allow_destroy": True, "pts_profile": "quick",
                       "pts_raid": [{"name": "fq0", "level": 1, "members": ["m1", "m2"]}]}, QUICK)
        assert run.rc != 0
        output = run.stdout + run.stderr
        assert "pts_guard refused, nothing was written" in output and "is mounted on" in output
        assert "Build the md array" not in output and "mdadm" not in output
        assert {d.path: d.checksum() for d in (member, mounted)} == before


def test_mounted_partition(loop_device, run_pts, tmp_path):
    device = loop_device(partitions=True)
    subprocess.run(["sfdisk", "-q", device.path], input="label: dos\n,32M\n,\n", text=True, check=True)
    sh("partx", "-u", device.path)
    partition = device.path + "p1"
    with mounted_ext4(partition, tmp_path / "mnt") as mountpoint:
        before = device.checksum()
        run = run_pts(host_vars(device), QUICK)
        assert_refused(run, device, before, f"{os.path.basename(partition)} is mounted on {mountpoint}")


def test_active_swap(loop_device, run_pts):
    device = loop_device()
    sh("mkswap", "-q", device.path)
    sh("swapon", device.path)

    def header() -> str:
        # The kernel itself may swap pages out to the device at any time, so the whole device's checksum can
        # change without anyone else writing. Its header page (the SWAPSPACE2 signature) it never writes; any
        # purge or preconditioning would.
        with open(device.path, "rb") as handle:
            page = handle.read(4096)
        assert page[4086:4096] == b"SWAPSPACE2"
        return hashlib.sha256(page).hexdigest()

    try:
        before = header()
        run = run_pts(host_vars(device), QUICK)
        assert_refused(run, device, before, f"{device.path} is active swap", checksum=header)
        with open("/proc/swaps", encoding="utf-8") as handle:
            assert device.path in handle.read()  # still the kernel's swap
    finally:
        subprocess.run(["swapoff", device.path], check=False)


def test_not_the_expected_drive(loop_device, run_pts, tmp_path):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    run = run_pts(host_vars(device, spec={"backing_file": str(tmp_path / "other.img")}), QUICK)
    assert_refused(run, device, before, "backing_file mismatch")


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"pts_run_tests": ["iops", "iosp"]}, "pts_run_tests"),
        ({"pts_run_iops_block_sizes": ["4kk", "4k"]}, "pts_run_iops_block_sizes='4kk'"),
        ({"pts_run_window": 6}, "pts_run_window=6: window 6 is larger than max_rounds 5"),
        ({"pts_run_iops_mixes": [0, 150]}, "pts_run_iops_mixes=150"),
        ({"pts_run_round_seconds": -1}, "pts_run_round_seconds=-1"),
        ({"pts_run_profile": "quik"}, "pts_run_profile"),
        ({"pts_run_entropy_percents": [5, 150]}, "pts_run_entropy_percents=150: must be at most 100"),
        ({"pts_run_demand_start_iops": 5000, "pts_run_demand_max_iops": 1000},
         "pts_run_demand_max_iops=1000: is below pts_run_demand_start_iops=5000"),
        ({"pts_drive_mode": "sdd"}, "pts_drive_mode='sdd': unknown drive mode"),
        ({"pts_raid": [{"name": "fq0", "level": 7, "members": ["victim"]}]}, "pts_raid[0].level='7'"),
        ({"pts_raid": [{"name": "fq0", "level": 1, "members": ["victim", "other"]}]},
         "pts_raid[0].members[1]='other': is not a pts_devices entry"),
        # The role passes the play's variable to the plan as history_url: refused there, its password never shown.
        ({"pts_history_url": "mysql://pts:pw-42-secret@db/pts"},
         "history_url (pts_history_url)='mysql://pts@db/pts': must be a postgresql:// URL"),
    ],
)
def test_bad_input_fails_before_any_write(loop_device, run_pts, extra, message):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    run = run_pts(host_vars(device), dict(QUICK, **extra))
    assert_refused(run, device, before, message)
    assert "pw-42-secret" not in run.stdout + run.stderr
    # nothing reached the host's drive stage: no identity, no purge
    assert not os.path.exists(run.drive_dir("victim"))


def test_open_by_another_process(loop_device, run_pts):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    with open(device.path, "rb") as held:
        holder = subprocess.Popen(["sleep", "300"], stdin=held)
    try:
        run = run_pts(host_vars(device), QUICK)
        assert_refused(run, device, before, f"open by process {holder.pid} (sleep)")
    finally:
        holder.kill()
        holder.wait()


def test_a_leftover_fio_is_found_and_named(loop_device, run_pts):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    fio = subprocess.Popen(["fio", "--name=leftover", f"--filename={device.path}", "--rw=randread", "--bs=4k",
                            "--direct=1", "--time_based", "--runtime=300", "--output=/dev/null", "--thread"])
    try:
        run = run_pts(host_vars(device), QUICK)
        output = run.stdout + run.stderr
        pids = {int(p) for p in re.findall(r"open by process (\d+) \(fio\)", output)}
        assert pids, output[-2000:]
        assert_refused(run, device, before)
    finally:
        # --thread above: fio's job runs inside this one process (a forked job process would call setsid and
        # outlive the kill, holding the device).
        fio.kill()
        fio.wait()


def test_the_same_drive_listed_twice(loop_device, run_pts):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    vars_ = host_vars(device)
    vars_["pts_devices"].append({"path": device.path, "name": "victim-again"})
    run = run_pts(vars_, QUICK)
    assert_refused(run, device, before, f"{device.path} resolves to the same device")


def test_a_filesystem_signature(loop_device, run_pts):
    device = loop_device()
    sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", device.path)
    before = device.checksum()
    run = run_pts(host_vars(device), QUICK)
    assert_refused(run, device, before, "it carries signatures (ext4 on ", "pts_allow_signatures: true")


def test_a_partition_table_signature(loop_device, run_pts):
    device = loop_device(partitions=True)
    subprocess.run(["sfdisk", "-q", device.path], input="label: gpt\n,16M\n", text=True, check=True)
    before = device.checksum()
    run = run_pts(host_vars(device), QUICK)
    assert_refused(run, device, before, "it carries signatures (gpt on ")


def test_a_symlink_to_a_mounted_device(loop_device, run_pts, tmp_path):
    device = loop_device()
    sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", device.path)
    mountpoint = tmp_path / "mnt"
    mountpoint.mkdir()
    link = tmp_path / "by-id-like-link"
    link.symlink_to(device.path)
    sh("mount", "-o", "ro", device.path, str(mountpoint))
    try:
        before = device.checksum()
        run = run_pts(host_vars(device, spec={"path": str(link)}), QUICK)
        assert_refused(run, device, before, f"({device.path}):", f"is mounted on {mountpoint} (ext4)")
    finally:
        subprocess.run(["umount", str(mountpoint)], check=False)


def test_a_serial_mismatch_from_the_description_file(loop_device, run_pts, tmp_path):
    device = loop_device()
    _fill(device)
    description = tmp_path / "victim.dsc"
    description.write_text("# what the host cannot read from a loop device\nvendor: Acme\nmodel: Loop 9000\n"
                           "serial: ACME-0002\n")
    before = device.checksum()
    run = run_pts(host_vars(device, spec={"serial": "ACME-0001", "description_file": str(description)}), QUICK)
    assert_refused(run, device, before,
                   "serial mismatch: expected 'ACME-0001', the device reports 'ACME-0002' (from its description file)")


def test_a_serial_no_disk_reports(loop_device, run_pts):
    device = loop_device()
    _fill(device)
    before = device.checksum()
    vars_ = host_vars(device)
    vars_["pts_devices"] = [{"serial": "NO-SUCH-SERIAL-42", "name": "victim"}]
    run = run_pts(vars_, QUICK)
    assert_refused(run, device, before, "no disk on this host reports serial 'NO-SUCH-SERIAL-42'")


def test_check_mode_prints_the_plan_and_writes_nothing(loop_device, run_pts, tmp_path):
    device = loop_device()
    sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", device.path)  # allowed below
    description = tmp_path / "victim.dsc"
    description.write_text("model: Loop 9000\nserial: ACME-0001\nfirmware: 1.0\n")
    before = device.checksum()
    run = run_pts(host_vars(device, pts_allow_signatures=True,
                            spec={"serial": "ACME-0001", "description_file": str(description)}), QUICK, check=True)
    output = run.stdout + run.stderr
    assert run.rc == 0, output[-3000:]
    assert re.search(rf"PTS check localhost victim: {re.escape(device.path)} Linux Loop 9000, serial ACME-0001, "
                     r"WWN None, firmware 1\.0, 67,108,864 bytes, loop; purge methods discard \(auto would use "
                     r"discard\); write cache not applicable", output), output[-3000:]
    assert "PTS check localhost victim: the guard passes" in output
    assert re.search(r"PTS plan localhost victim: SSD mode: the drive reports itself non-rotational; iops 1 runs, "
                     r"throughput \d+ runs, latency \d+ runs, wsat 1 runs; estimated [\d.]+-[\d.]+ min", output), \
        output[-3000:]
    assert "purge method auto, write cache disabled; --check wrote nothing" in output
    assert device.checksum() == before
    assert not os.path.exists(os.path.dirname(run.run_dir))
    assert not (tmp_path / "remote").exists()
