# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The real storage stack in a Linux guest: NVMe identity, purge and write cache, and the guard's refusals that need
md, LVM, device-mapper and udev's by-id paths. One boot (TCG, several minutes), root only; see README.md here."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import guest  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(ROOT, ".venv", "bin")
# Refusal set-ups: an md RAID1 over two SATA disks, an LVM volume mounted from a SCSI disk, a device-mapper
# table over one NVMe drive, a mounted NVMe drive listed by its by-id path. The run itself: one NVMe drive
# listed by serial alone, and one SATA drive.
N_DM, N_MOUNTED, N_RUN = "GNVMEDM01", "GNVMEMNT1", "GNVMERUN1"
# RAID mode: an md RAID1 built from two NVMe drives listed by serial, tested as one device, torn down after.
N_R1, N_R2 = "GNVMERD01", "GNVMERD02"
S_MD1, S_MD2, S_RUN = "GSATAMD01", "GSATAMD02", "GSATARUN1"
C_LVM = "GSCSILVM1"
# Dual path without multipath: one disk image attached as two SCSI disks with one serial (the guest sees sdX, sdY).
C_DUAL = "GSCSIDUAL1"
QUICK = {"pts_run_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
         "pts_run_hdd_iops_mixes": [0], "pts_run_hdd_iops_block_sizes": ["4k"],
         "pts_run_round_seconds": 1, "pts_run_max_rounds": 5, "pts_run_window": 5}


@pytest.fixture(scope="module")
def vm():
    with guest.running_guest(
        nvme=[f"serial={N_DM},size=128M", f"serial={N_MOUNTED},size=128M", f"serial={N_RUN},size=128M",
              f"serial={N_R1},size=128M", f"serial={N_R2},size=128M"],
        sata=[f"serial={S_MD1},size=128M", f"serial={S_MD2},size=128M", f"serial={S_RUN},size=128M"],
        scsi=[f"serial={C_LVM},size=128M", f"serial={C_DUAL},size=128M,paths=2"],
    ) as desc:
        yield desc


def sh(vm: dict, command: str) -> str:
    return guest.run(vm, command, timeout=600).stdout


def by_id(serial: str) -> str:
    kind = {N_DM: "nvme", N_MOUNTED: "nvme", N_RUN: "nvme", N_R1: "nvme", N_R2: "nvme", S_MD1: "ata", S_MD2: "ata",
            S_RUN: "ata", C_LVM: "scsi"}
    prefix = {"nvme": "nvme-QEMU_NVMe_Ctrl_", "ata": "ata-QEMU_HARDDISK_", "scsi": "scsi-0QEMU_QEMU_HARDDISK_"}
    return f"/dev/disk/by-id/{prefix[kind[serial]]}{serial}"


def checksums(vm: dict, serials: list[str]) -> dict:
    out = sh(vm, "sha256sum " + " ".join(by_id(s) for s in serials))
    return {line.split()[1]: line.split()[0] for line in out.splitlines()}


def run_pts(vm: dict, tmp_path, host_vars: dict, extra: dict, run_id: str,
            check: bool = False) -> tuple[subprocess.CompletedProcess, str]:
    inventory = tmp_path / f"inventory-{run_id}.yml"
    hostvars = {
        "ansible_host": vm["ssh_host"], "ansible_port": vm["ssh_port"], "ansible_user": vm["ssh_user"],
        "ansible_ssh_private_key_file": vm["ssh_key"], "ansible_python_interpreter": "/usr/bin/python3",
        "ansible_ssh_common_args": "-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no",
        "pts_run_remote_dir": "/var/tmp/pts-remote", "pts_fleet_fail_on": [], "pts_profile": "quick",
        "pts_allow_destroy": True, **host_vars,
    }
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"ptsguest": hostvars}}}))
    results = str(tmp_path / "results")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(PATH=BIN + os.pathsep + env.get("PATH", ""), ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"), ANSIBLE_HOME=str(tmp_path / "home"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-local"), ANSIBLE_REMOTE_TMP="/tmp/.ansible-tmp",
               ANSIBLE_NOCOLOR="1", MPLCONFIGDIR=str(tmp_path / "mpl"), PTS_RESULTS_DIR=results, PTS_RUN_ID=run_id)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory),
                           "-e", json.dumps(extra)] + ["--check"] * check, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=3600, check=False)
    (tmp_path / f"playbook-{run_id}.log").write_text(proc.stdout + proc.stderr)
    return proc, os.path.join(results, run_id, "ptsguest")


def test_the_guard_refuses_what_only_a_real_storage_stack_has(vm, tmp_path):
    sh(vm, f"mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --assume-clean --run "
           f"{by_id(S_MD1)} {by_id(S_MD2)}")
    sh(vm, f"pvcreate -ff -y {by_id(C_LVM)} && vgcreate fq_vg {by_id(C_LVM)} && lvcreate -y -L 32M -n fq_lv fq_vg "
           "&& mkfs.ext4 -q /dev/fq_vg/fq_lv && mkdir -p /mnt/fq_lv && mount -o ro /dev/fq_vg/fq_lv /mnt/fq_lv")
    sectors = sh(vm, f"blockdev --getsz {by_id(N_DM)}").strip()
    sh(vm, f"dmsetup create fq_linear --table '0 {sectors} linear {by_id(N_DM)} 0'")
    sh(vm, f"mkfs.ext4 -q {by_id(N_MOUNTED)} && mkdir -p /mnt/fq_nvme && mount -o ro {by_id(N_MOUNTED)} /mnt/fq_nvme")
    serials = [S_MD1, S_MD2, C_LVM, N_DM, N_MOUNTED]
    try:
        before = checksums(vm, serials)
        devices = [{"path": by_id(S_MD1), "name": "md-member-1", "serial": S_MD1},
                   {"path": by_id(S_MD2), "name": "md-member-2"},
                   {"serial": C_LVM, "name": "lvm-pv"},
                   {"path": by_id(N_DM), "name": "dm-holder"},
                   {"path": by_id(N_MOUNTED), "name": "mounted-by-id"}]
        proc, host_dir = run_pts(vm, tmp_path, {"pts_devices": devices}, QUICK, "refused")
        output = proc.stdout + proc.stderr
        assert proc.returncode != 0, output[-3000:]
        message = next((ln for ln in output.splitlines() if "pts_guard refused" in ln), "")
        segments = message.split("pts_guard refused, nothing was written: ", 1)[-1].split(" || ")
        for serial, reasons in (
            (S_MD1, ["is held by md0", "linux_raid_member on "]),
            (S_MD2, ["is held by md0"]),
            (C_LVM, ["is held by dm-", "(stacked on this drive) is mounted on /mnt/fq_lv (ext4)", "LVM2_member on "]),
            (N_DM, ["is held by dm-"]),
            (N_MOUNTED, ["is mounted on /mnt/fq_nvme (ext4)", "ext4 on "]),
        ):
            node = sh(vm, f"readlink -f {by_id(serial)}").strip()
            segment = next((seg for seg in segments if f"({node}):" in seg), None)
            assert segment is not None, (serial, node, message[-3000:])
            for reason in reasons:
                assert reason in segment, (serial, reason, segment)
        assert checksums(vm, serials) == before
        assert not glob.glob(os.path.join(host_dir, "*", "iops", "round-*.json"))
    finally:
        sh(vm, "umount /mnt/fq_lv; umount /mnt/fq_nvme; dmsetup remove fq_linear; vgremove -f fq_vg; "
               f"pvremove -y {by_id(C_LVM)}; mdadm --stop /dev/md0; "
               f"mdadm --zero-superblock {by_id(S_MD1)} {by_id(S_MD2)}; true")


def test_nvme_by_serial_and_sata_through_purge_write_cache_and_a_round(vm, tmp_path):
    node = os.path.basename(sh(vm, f"readlink -f {by_id(N_RUN)}").strip())
    sh(vm, f"dd if=/dev/urandom of={by_id(N_RUN)} bs=1M count=4 oflag=direct status=none")
    assert sh(vm, f"nvme get-feature /dev/{node} -f 6").strip().endswith("0x00000001")  # QEMU: cache on
    # QEMU's AHCI disk says it is rotational: tested as a disk because its entry says so (drive mode auto would refuse
    # to turn the IOPS test selected into the HDD one on its own).
    devices = [{"serial": N_RUN, "name": "nvme"}, {"path": by_id(S_RUN), "name": "sata", "serial": S_RUN, "mode": "hdd"}]
    proc, host_dir = run_pts(vm, tmp_path, {"pts_devices": devices, "pts_write_cache": "disabled"}, QUICK, "run")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]

    nvme = json.loads(open(os.path.join(host_dir, "nvme", "drive.json"), encoding="utf-8").read())["drive"]
    assert nvme["resolved"] == f"/dev/{node}" and nvme["serial"] == N_RUN and nvme["interface"] == "NVMe"
    assert nvme["model"] == "QEMU NVMe Ctrl" and nvme["purge_methods"][0] == "nvme_format_erase"
    assert nvme["health"]["tool"] == "nvme smart-log" and nvme["health"]["temperature_c"] is not None
    purge = json.loads(open(os.path.join(host_dir, "nvme", "iops", "purge.json"), encoding="utf-8").read())
    assert purge["method"] == "nvme_format_erase" and purge["secure"] is True
    cache = json.loads(open(os.path.join(host_dir, "nvme", "write-cache.json"), encoding="utf-8").read())["events"]
    assert [(e["phase"], e["before"], e["after"], e["tool"]) for e in cache] == [
        ("set", True, False, "nvme"), ("restore", False, True, "nvme")]
    assert sh(vm, f"nvme get-feature /dev/{node} -f 6").strip().endswith("0x00000001")  # restored
    after = json.loads(open(os.path.join(host_dir, "nvme", "health-after.json"), encoding="utf-8").read())
    assert after["bytes_written"] > nvme["health"]["bytes_written"]  # the drive counted what the PTS wrote
    rounds = sorted(glob.glob(os.path.join(host_dir, "nvme", "iops", "round-[0-9][0-9].json")))
    assert 1 <= len(rounds) <= 5
    report = open(os.path.join(host_dir, "nvme", "report.md"), encoding="utf-8").read()
    for text in ("NVMe Format with user data erase (SES=1)", "disabled for the tests (was enabled; set with nvme)",
                 "restored after the tests", "nvme smart-log), before and after this run"):
        assert text in report, text

    sata = json.loads(open(os.path.join(host_dir, "sata", "drive.json"), encoding="utf-8").read())["drive"]
    assert sata["interface"] == "SATA" and sata["serial"] == S_RUN and sata["write_cache_tool"] == "hdparm"
    # Tested as a disk: by LBA zone, no purge; the plan line says which test runs in place of the one selected.
    assert sata["rotational"] is True
    assert "PTS plan ptsguest sata: HDD mode set by the drive entry (runs iops as hdd_iops); hdd_iops 4 runs" \
        in proc.stdout
    assert not os.path.exists(os.path.join(host_dir, "sata", "hdd_iops", "purge.json"))
    zones = sorted(glob.glob(os.path.join(host_dir, "sata", "hdd_iops", "round-[0-9][0-9].json")))
    assert len(zones) == 4
    assert read_json(zones[-1])["fio"]["jobs"][0]["options"]["offset"] == str(3 * (128 * 2 ** 20 // 4))
    # Both drives were held by the run from the guard on (the NVMe format ran under the hold: the guard's record names
    # it) and released after their tests.
    assert re.search(r"and hold those that pass\] \*+\nchanged: \[ptsguest\]", proc.stdout)
    for name in ("nvme", "sata"):
        assert read_json(host_dir, name, "guard.json")["hold"]["run_id"] == "run", name
    assert_no_hold_left(vm)


def assert_no_hold_left(vm: dict) -> None:
    """No drive holder process and no hold lock file on the guest."""
    assert sh(vm, "pgrep -af 'fleetqual-pts-hol[d]'; ls /run/fleetqual-pts 2>/dev/null; true").strip() == ""


def read_json(*parts: str) -> dict:
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return json.load(handle)


def test_raid_mode_builds_tests_and_tears_down_an_md_array(vm, tmp_path):
    nodes = [sh(vm, f"readlink -f {by_id(serial)}").strip() for serial in (N_R1, N_R2)]
    devices = [{"serial": N_R1, "name": "r1"}, {"serial": N_R2, "name": "r2"}]
    raid = [{"name": "fq0", "level": 1, "members": ["r1", "r2"]}]
    proc, host_dir = run_pts(vm, tmp_path, {"pts_devices": devices, "pts_raid": raid}, QUICK, "raid")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]

    record = read_json(host_dir, "fq0", "raid.json")
    array = record["array"]
    assert array["level"] == "raid1" and array["raid_devices"] == 2 and array["members"] == nodes, array
    assert array["assume_clean"] is True and array["path"] == "/dev/md/fq0" and array["size_bytes"] > 100 * 2 ** 20
    assert record["members"] == ["r1", "r2"]
    assert record["teardown"]["failed"] is False and record["teardown"]["stopped"], record["teardown"]
    drive = read_json(host_dir, "fq0", "drive.json")["drive"]
    assert drive["resolved"] == array["resolved"] and drive["key"] == "fq0"
    rounds = sorted(glob.glob(os.path.join(host_dir, "fq0", "iops", "round-[0-9][0-9].json")))
    assert 1 <= len(rounds) <= 5
    assert read_json(rounds[0])["fio"]["jobs"][0]["total"]["iops"] > 0
    job = open(rounds[0][:-5] + ".fio", encoding="utf-8").read()
    assert f"filename={array['resolved']}" in job  # fio wrote the array, never a member
    for member in ("r1", "r2"):
        assert read_json(host_dir, member, "raid-member.json")["array"] == "fq0"
        assert not os.path.exists(os.path.join(host_dir, member, "iops"))
    report = open(os.path.join(host_dir, "fq0", "report.md"), encoding="utf-8").read()
    for text in ("| RAID layout | Linux md `/dev/md/fq0`", "raid1, 2 members", f"serial {N_R1}", f"serial {N_R2}",
                 f"stopped /dev/md/fq0; superblocks zeroed on {nodes[0]}, {nodes[1]}",
                 "r1: disabled for the tests (was enabled; set with nvme); restored after the array was taken down",
                 "r2: disabled for the tests (was enabled; set with nvme); restored after the array was taken down"):
        assert text in report, text
    fleet = read_json(os.path.dirname(host_dir), "fleet.json")
    assert [d["drive"] for d in fleet["drives"]] == ["fq0"], fleet["drives"]

    # The members' holds were released right before mdadm built the array (it opens them exclusively); the array
    # was held for its tests and released before its teardown; nothing is held any more.
    assert [h["member"] for h in array["released_holds"]] == nodes and \
        {h["run_id"] for h in array["released_holds"]} == {"raid"}, array.get("released_holds")
    assert re.search(r"Run the guard on the array fq0\] \*+\nchanged: ", proc.stdout)
    assert read_json(host_dir, "fq0", "guard.json")["hold"]["run_id"] == "raid"
    assert re.search(r"Release the run's hold on the md array fq0\] \*+\nchanged: \[ptsguest/fq0 -> ptsguest[](]", proc.stdout)
    assert_no_hold_left(vm)
    # Torn down: no array left, and neither member carries an md superblock any more.
    assert "fq0" not in sh(vm, "cat /proc/mdstat; ls /dev/md 2>/dev/null; true")
    for node in nodes:
        assert sh(vm, f"mdadm --examine {node} >/dev/null 2>&1; echo $?").strip() != "0", node
        assert sh(vm, f"nvme get-feature {node} -f 6").strip().endswith("0x00000001")  # cache restored (QEMU: on)


def test_a_dual_path_disk_is_refused_when_its_other_path_is_mounted(vm, tmp_path):
    paths = sorted(line.split()[0] for line in sh(vm, "lsblk -dn -o NAME,SERIAL").splitlines()
                   if line.split()[1:] == [C_DUAL])
    assert len(paths) == 2, paths
    mounted, listed = paths
    # One medium: what one path writes, the other reads.
    sh(vm, f"dd if=/dev/urandom of=/dev/{mounted} bs=64k count=1 oflag=direct status=none")
    assert sh(vm, f"dd if=/dev/{mounted} bs=64k count=1 iflag=direct status=none | sha256sum") == \
        sh(vm, f"dd if=/dev/{listed} bs=64k count=1 iflag=direct status=none | sha256sum")

    def checksums() -> list[str]:
        # Direct reads: each path has its own page cache, and one path's cache does not see the other's writes.
        return [sh(vm, f"dd if=/dev/{node} bs=1M iflag=direct status=none | sha256sum").split()[0]
                for node in (mounted, listed)]

    sh(vm, f"mkfs.ext4 -q /dev/{mounted} && mkdir -p /mnt/fq_dual && mount -o ro /dev/{mounted} /mnt/fq_dual")
    try:
        before = checksums()
        assert before[0] == before[1]
        # The ext4 signature is allowed: the mount on the other path alone must refuse the drive.
        # QEMU's SCSI disk says it is rotational: its entry says how to test it (drive mode auto would refuse).
        devices = [{"path": f"/dev/{listed}", "name": "dual", "mode": "hdd"}]
        proc, host_dir = run_pts(vm, tmp_path, {"pts_devices": devices, "pts_allow_signatures": True}, QUICK, "dual")
        output = proc.stdout + proc.stderr
        assert proc.returncode != 0, output[-3000:]
        assert "pts_guard refused, nothing was written" in output, output[-3000:]
        assert (f"{mounted} (another path to this drive: the same serial '{C_DUAL}' as {listed}) is mounted on "
                f"/mnt/fq_dual (ext4)") in output, output[-3000:]
        assert checksums() == before
        assert not glob.glob(os.path.join(host_dir, "*", "iops", "round-*"))
    finally:
        sh(vm, "umount /mnt/fq_dual; true")
    # Unmounted, the other path no longer stands in the way (check mode: the guard runs, nothing is written).
    proc, dummy = run_pts(vm, tmp_path, {"pts_devices": devices, "pts_allow_signatures": True}, QUICK, "dual-check",
                          check=True)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "PTS check ptsguest dual: the guard passes" in output, output[-3000:]
    assert checksums() == before
