# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Smoke test of the QEMU guest fixture: one boot (TCG, a few minutes), root only. See README.md here."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import guest  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(HERE))
ANSIBLE = os.path.join(ROOT, ".venv", "bin", "ansible")
NVME, SATA1, SATA2 = "GUESTNVME1", "GUESTSATA1", "GUESTSATA2"


@pytest.fixture(scope="module")
def vm():
    with guest.running_guest(nvme=[f"serial={NVME},size=256M"],
                             sata=[f"serial={SATA1},size=256M", f"serial={SATA2},size=256M"]) as desc:
        yield desc


def sh(vm: dict, command: str) -> str:
    return guest.run(vm, command, timeout=300).stdout


def test_description_and_cli(vm):
    with open(os.path.join(vm["workdir"], "guest.json"), encoding="utf-8") as fh:
        assert json.load(fh)["ssh_port"] == vm["ssh_port"]
    assert [(d["kind"], d["serial"]) for d in vm["drives"]] == [("nvme", NVME), ("sata", SATA1), ("sata", SATA2)]
    for drive in vm["drives"]:
        stat = os.stat(drive["backing_file"])
        assert stat.st_size == 256 << 20 and stat.st_blocks * 512 < stat.st_size  # sparse
    out = subprocess.run([sys.executable, os.path.join(HERE, "guest.py"), "ssh", vm["workdir"], "--", "hostname"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.strip() == "ptsguest"
    assert "passwordauthentication no" in sh(vm, "sshd -T").splitlines()


def test_nvme_list_shows_serial(vm):
    devices = json.loads(sh(vm, "nvme list -o json"))["Devices"]
    assert [d["SerialNumber"].strip() for d in devices] == [NVME]


def test_by_id_paths(vm):
    names = sh(vm, "ls /dev/disk/by-id").split()
    for serial in (NVME, SATA1, SATA2):
        assert any(serial in name for name in names), names
    assert f"nvme-QEMU_NVMe_Ctrl_{NVME}" in names and f"ata-QEMU_HARDDISK_{SATA1}" in names


def test_nvme_format_ses1_erases(vm):
    dev = json.loads(sh(vm, "nvme list -o json"))["Devices"][0]["DevicePath"]
    sh(vm, f"dd if=/dev/urandom of={dev} bs=1M count=4 oflag=direct status=none")
    assert "Success formatting" in sh(vm, f"nvme format {dev} --ses=1 --force")
    sh(vm, f"cmp -n 4194304 {dev} /dev/zero")  # the written data is gone


def test_md_and_dm_modules(vm):
    sh(vm, "modprobe md_mod && modprobe dm_mod")
    assert {"md_mod", "dm_mod"} <= {line.split()[0] for line in sh(vm, "cat /proc/modules").splitlines()}
    # device-mapper's error target: reads fail
    sh(vm, "dmsetup create fq_err --table '0 2048 error'")
    try:
        assert guest.run(vm, "dd if=/dev/mapper/fq_err of=/dev/null bs=4k count=1 iflag=direct",
                         check=False).returncode != 0
    finally:
        sh(vm, "dmsetup remove fq_err")


def test_mdadm_raid1_from_two_sata_disks(vm):
    disks = " ".join(f"/dev/disk/by-id/ata-QEMU_HARDDISK_{s}" for s in (SATA1, SATA2))
    sh(vm, f"mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --run {disks}")
    try:
        detail = dict(line.split("=", 1) for line in sh(vm, "mdadm --detail --export /dev/md0").split())
        assert detail["MD_LEVEL"] == "raid1" and detail["MD_DEVICES"] == "2"
        assert "md0 : active raid1" in sh(vm, "cat /proc/mdstat")
    finally:
        sh(vm, f"mdadm --stop /dev/md0 && mdadm --zero-superblock {disks}")


def test_lvm_and_dm_flakey(vm):
    disk = f"/dev/disk/by-id/ata-QEMU_HARDDISK_{SATA1}"
    sh(vm, f"pvcreate -ff -y {disk} && vgcreate fq_vg {disk} && lvcreate -y -L 32M -n fq_lv fq_vg")
    try:
        assert sh(vm, "lvs --noheadings -o lv_name fq_vg").split() == ["fq_lv"]
        sectors = sh(vm, "blockdev --getsz /dev/fq_vg/fq_lv").strip()
        sh(vm, f"dmsetup create fq_flakey --table '0 {sectors} flakey /dev/fq_vg/fq_lv 0 1 1'")
        assert "flakey" in sh(vm, "dmsetup targets")
        sh(vm, "dmsetup remove fq_flakey")
    finally:
        sh(vm, f"vgremove -f fq_vg && pvremove -y {disk}")


def test_ansible_ping(vm, tmp_path):
    assert os.access(ANSIBLE, os.X_OK), f"{ANSIBLE} missing: run `make venv` (make test-guest does)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(ANSIBLE_HOST_KEY_CHECKING="False", ANSIBLE_HOME=str(tmp_path),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_REMOTE_TMP="/tmp/.ansible-tmp")
    common = "-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no"
    proc = subprocess.run(
        [ANSIBLE, "all", "-i", "127.0.0.1,", "-m", "ansible.builtin.ping",
         "-e", f"ansible_port={vm['ssh_port']}", "-e", "ansible_user=root",
         "-e", f"ansible_ssh_private_key_file={vm['ssh_key']}",
         "-e", json.dumps({"ansible_ssh_common_args": common}), "-e", "ansible_python_interpreter=/usr/bin/python3"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '"ping": "pong"' in proc.stdout
