# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# main() against a fake host: /dev, /sys and /proc live under tmp_path, mdadm is a function that answers with the
# fixtures of test__md_raid.py and makes the /dev/md/<name> link on --create. Real arrays are created in the QEMU
# guest tests; here the decisions (create, leave, refuse, stop, zero) and the commands are checked.

from __future__ import annotations

import os

import pytest
from ansible.module_utils import basic

from ansible_collections.fleetqual.pts.plugins.modules import pts_md_array
from ansible_collections.fleetqual.pts.tests.unit.plugins.modules._module_exit import Exit, run_main, stub_exits
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._drive.test__md_raid import (
    DETAIL_RAID1_RESYNC,
    EXAMINE_RAID1_MEMBER,
    EXPORT_RAID1,
)

MDADM = "/sbin/mdadm"
MDSTAT = """\
Personalities : [raid1] \n\
md127 : active raid1 vdc[1] vdb[0]
      1046528 blocks super 1.2 [2/2] [UU]
      \n\
unused devices: <none>
"""


class Host:
    """A fake host: block devices are files under tmp_path/dev, md holders live in tmp_path/sys."""

    def __init__(self, root):
        self.root = root
        self.dev = root / "dev"
        (self.dev / "md").mkdir(parents=True)
        (root / "proc").mkdir()
        (root / "sys" / "class" / "block").mkdir(parents=True)
        self.calls: list[list[str]] = []
        self.examine: dict[str, tuple[int, str, str]] = {}
        self.fail: dict[str, tuple[int, str, str]] = {}

    def disk(self, name: str) -> str:
        (self.dev / name).write_text("")
        (self.root / "sys" / "class" / "block" / name / "holders").mkdir(parents=True)
        return str(self.dev / name)

    def hold(self, disk: str, md: str) -> None:
        (self.root / "sys" / "class" / "block" / disk / "holders" / md).mkdir(parents=True)

    def start_array(self, name: str = "fq1", md: str = "md127", members=("vdb", "vdc")) -> None:
        (self.dev / md).write_text("")
        link = self.dev / "md" / name
        if not link.is_symlink():
            link.symlink_to(f"../{md}")
        sysdir = self.root / "sys" / "class" / "block" / md
        (sysdir / "md").mkdir(parents=True, exist_ok=True)
        (sysdir / "size").write_text("2093056\n")
        (sysdir / "md" / "chunk_size").write_text("0\n")
        (self.root / "proc" / "mdstat").write_text(MDSTAT)
        for member in members:
            self.hold(member, md)

    def run_command(self, argv, **kwargs):
        argv = list(argv)
        self.calls.append(argv)
        verb = " ".join(argv[1:3])
        for key, answer in self.fail.items():
            if key in " ".join(argv):
                return answer
        if argv[1] == "--create":
            self.start_array()
            return 0, "", "mdadm: array /dev/md/fq1 started.\n"
        if verb == "--detail --export":
            return 0, EXPORT_RAID1, ""
        if argv[1] == "--detail":
            return 0, DETAIL_RAID1_RESYNC.replace("clean, resyncing", "clean").replace(
                "     Resync Status : 38% complete\n", ""), ""
        if verb == "--examine --export":
            none = (1, "", f"mdadm: No md superblock detected on {argv[3]}.\n")
            return self.examine.get(os.path.basename(argv[3]), none)
        if argv[1] in ("--stop", "--zero-superblock"):
            return 0, "", ""
        raise AssertionError(f"unexpected command {argv}")


@pytest.fixture
def host(tmp_path, monkeypatch):
    fake = Host(tmp_path)
    monkeypatch.setattr(pts_md_array, "_DEV_MD", str(fake.dev / "md"))
    monkeypatch.setattr(pts_md_array, "_SYS_ROOT", str(tmp_path / "sys"))
    monkeypatch.setattr(pts_md_array, "_PROC_ROOT", str(tmp_path / "proc"))
    monkeypatch.setattr(pts_md_array, "_LINK_WAIT_S", 0.0)
    monkeypatch.setattr(pts_md_array, "_is_block", os.path.isfile)
    monkeypatch.setattr(pts_md_array, "recheck", lambda path, expect, **kwargs: [])

    stub_exits(monkeypatch)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", lambda self, argv, **kw: fake.run_command(argv, **kw))
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path",
                        lambda self, name, required=False, opt_dirs=None: MDADM if name == "mdadm" else None)
    return fake


def run(args: dict) -> Exit:
    """The module run with args; state=present without expect gets one empty guard record per member (the tests
    stub recheck), as the pts_raid role always passes the guard's records."""
    if args.get("state", "present") == "present" and "expect" not in args and "no_expect" not in args:
        args = dict(args, expect=[{} for dummy in args.get("members") or []])
    return run_main(pts_md_array, {k: v for k, v in args.items() if k != "no_expect"})


def test_creating_without_the_guard_records_is_refused_before_mdadm(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    done = run({"name": "fq1", "level": 1, "members": members, "no_expect": True})
    assert done.failed and "expect" in done.result["msg"]
    assert host.calls == []


def test_creates_raid1_and_reports_it(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    done = run({"name": "fq1", "level": "raid1", "members": members, "context": {"test": "iops"}})
    assert not done.failed, done.result["msg"]
    create = [MDADM, "--create", str(host.dev / "md" / "fq1"), "--run", "--metadata=1.2", "--level=1",
              "--raid-devices=2", "--bitmap=none", "--assume-clean"] + members
    assert done.result["changed"] is True
    assert done.result["cmd"] == create and done.result["commands"] == [create]
    assert host.calls[0] == create
    record = done.result["pts_md_array"]
    assert record["resolved"] == "/dev/md127"
    assert (record["level"], record["raid_devices"], record["chunk_kib"]) == ("raid1", 2, None)
    assert record["metadata"] == "1.2"
    assert record["members"] == ["/dev/vdb", "/dev/vdc"] and record["md_name"] == "guest:fq1"
    assert record["uuid"] == "3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f"
    assert (record["assume_clean"], record["bitmap"], record["array_state"]) == (True, "none", "clean")
    assert record["size_bytes"] == 2093056 * 512 and record["resync"] is None
    assert done.result["pts_context"] == {"test": "iops"}


def test_check_mode_only_plans(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    done = run({"name": "fq1", "level": 0, "chunk": "64k", "members": members, "_ansible_check_mode": True})
    assert not done.failed and done.result["changed"] is True
    assert done.result["cmd"][-3:] == ["--chunk=64K"] + members
    assert host.calls == []
    assert done.result["pts_md_array"]["assume_clean"] is False  # raid0: nothing to sync


def test_existing_array_with_the_same_members_is_left_alone(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.start_array()
    done = run({"name": "fq1", "level": 1, "members": list(reversed(members))})
    assert not done.failed and done.result["changed"] is False
    assert not [argv for argv in host.calls if argv[1] == "--create"]
    assert done.result["pts_md_array"]["assume_clean"] is None


@pytest.mark.parametrize(
    "args, message",
    [
        ({"level": 1, "members": ["vdb", "vdd"]}, "already exists with members /dev/vdb, /dev/vdc"),
        ({"level": 0, "members": ["vdb", "vdc"]}, "already exists as raid1, not raid0"),
    ],
)
def test_existing_array_that_differs_fails(host, args, message):
    paths = [host.disk(name) for name in args["members"]]
    host.start_array()
    done = run({"name": "fq1", "level": args["level"], "members": paths})
    assert done.failed and message in done.result["msg"]


def test_guard_recheck_refusal_runs_no_mdadm(host, monkeypatch):
    members = [host.disk("vdb"), host.disk("vdc")]
    monkeypatch.setattr(pts_md_array, "recheck",
                        lambda path, expect, **kwargs: ["serial mismatch: expected 'A', the device reports 'B'"]
                        if path.endswith("vdc") else [])
    done = run({"name": "fq1", "level": 1, "members": members, "expect": [{"serial": "X"}, {"serial": "A"}]})
    assert done.failed
    assert f"{members[1]}: serial mismatch" in done.result["msg"] and members[0] + ":" not in done.result["msg"]
    assert host.calls == []


def test_the_runs_member_holds_are_released_right_before_mdadm_opens_the_members(host, monkeypatch):
    members = [host.disk("vdb"), host.disk("vdc")]
    released = []

    def release(run_id, devnum, pid, lock_dir, proc_root, token=""):
        released.append((run_id, devnum, pid, len(host.calls)))
        return {"stopped": [{"pid": pid, "run_id": run_id}], "removed": [], "others": []}

    monkeypatch.setattr(pts_md_array._hold, "release", release)
    expect = [{"devnum": "252:16", "hold": {"pid": 41, "run_id": "r1", "devnum": "252:16"}}, {"devnum": "252:32"}]
    done = run({"name": "fq1", "level": 1, "members": members, "expect": expect})
    assert not done.failed, done.result["msg"]
    # Only the member with a hold, before any mdadm command ran, and the create right after.
    assert released == [("r1", "252:16", 41, 0)] and host.calls[0][1] == "--create"
    assert done.result["pts_md_array"]["released_holds"] == [{"member": members[0], "pid": 41, "run_id": "r1"}]


def test_no_hold_is_released_in_check_mode_or_when_a_member_is_refused(host, monkeypatch):
    members = [host.disk("vdb"), host.disk("vdc")]
    released = []
    monkeypatch.setattr(pts_md_array._hold, "release", lambda *args: released.append(args))
    expect = [{"hold": {"pid": 41, "run_id": "r1", "devnum": "252:16"}}, {"hold": {"pid": 42, "run_id": "r1"}}]
    done = run({"name": "fq1", "level": 1, "members": members, "expect": expect, "_ansible_check_mode": True})
    assert not done.failed and released == []
    monkeypatch.setattr(pts_md_array, "recheck", lambda path, expect, **kwargs: ["it is open by process 9 (dd)"])
    done = run({"name": "fq1", "level": 1, "members": members, "expect": expect})
    assert done.failed and released == [] and host.calls == []


def test_a_hold_that_cannot_be_released_runs_no_mdadm(host, monkeypatch):
    members = [host.disk("vdb"), host.disk("vdc")]

    def release(*args, **kwargs):
        raise pts_md_array._hold.HoldError("holder process 41 of device 252:16 did not end after SIGTERM and SIGKILL")

    monkeypatch.setattr(pts_md_array._hold, "release", release)
    done = run({"name": "fq1", "level": 1, "members": members,
                "expect": [{"hold": {"pid": 41, "run_id": "r1", "devnum": "252:16"}}, {}]})
    assert done.failed and host.calls == []
    assert done.result["msg"] == (f"pts_md_array fq1: refused, nothing was written: cannot release the run's hold on "
                                  f"member {members[0]} before mdadm opens it: holder process 41 of device 252:16 did "
                                  "not end after SIGTERM and SIGKILL")


def test_expect_must_have_one_record_per_member(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    done = run({"name": "fq1", "level": 1, "members": members, "expect": [{"serial": "X"}]})
    assert done.failed and "expect has 1 guard records for 2 members" in done.result["msg"]


def test_member_already_in_an_array_or_missing_is_refused(host):
    members = [host.disk("vdb"), host.disk("vdc"), str(host.dev / "vdz")]
    host.hold("vdb", "md5")
    done = run({"name": "fq5", "level": 5, "members": members})
    assert done.failed
    assert f"{members[0]}: already a member of /dev/md5" in done.result["msg"]
    assert f"{members[2]}: not a block device" in done.result["msg"]
    assert host.calls == []


@pytest.mark.parametrize(
    "args, message",
    [
        ({"name": "fq1", "level": 7}, "level='7': not a supported md RAID level"),
        ({"name": "fq1", "level": 1, "chunk": "64k"}, "chunk='64k': raid1 has no chunk size"),
        ({"name": "fq 1", "level": 1}, "name='fq 1'"),
    ],
)
def test_bad_layout_fails_before_anything_runs(host, args, message):
    members = [host.disk("vdb"), host.disk("vdc")]
    done = run(dict(args, members=members))
    assert done.failed and message in done.result["msg"]
    assert host.calls == []


def test_mdadm_failure_is_reported(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.fail["--create"] = (1, "", "mdadm: cannot open /dev/vdb: Device or resource busy\n")
    done = run({"name": "fq1", "level": 1, "members": members})
    assert done.failed and "Device or resource busy" in done.result["msg"]


def test_absent_stops_the_array_and_zeroes_its_members(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.start_array()
    host.examine = {"vdb": (0, EXAMINE_RAID1_MEMBER, ""), "vdc": (0, EXAMINE_RAID1_MEMBER, "")}
    done = run({"name": "fq1", "state": "absent", "members": members})
    assert not done.failed and done.result["changed"] is True
    link = str(host.dev / "md" / "fq1")
    assert done.result["commands"] == [[MDADM, "--stop", link]] + [[MDADM, "--zero-superblock", m] for m in members]
    assert done.result["pts_md_array"]["stopped"] == [link]
    assert done.result["pts_md_array"]["zeroed"] == members


def test_absent_in_check_mode_only_plans(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.start_array()
    host.examine = {"vdb": (0, EXAMINE_RAID1_MEMBER, ""), "vdc": (0, EXAMINE_RAID1_MEMBER, "")}
    done = run({"name": "fq1", "state": "absent", "members": members, "_ansible_check_mode": True})
    assert done.result["changed"] is True and len(done.result["commands"]) == 3
    assert not [argv for argv in host.calls if argv[1] in ("--stop", "--zero-superblock")]


def test_absent_cleans_a_half_torn_down_array(host):
    # The link is gone but md127 still holds vdb, whose superblock names this array; vdc was already zeroed.
    members = [host.disk("vdb"), host.disk("vdc")]
    host.hold("vdb", "md127")
    host.examine = {"vdb": (0, EXAMINE_RAID1_MEMBER, "")}
    done = run({"name": "fq1", "state": "absent", "members": members})
    assert not done.failed and done.result["changed"] is True
    assert done.result["commands"] == [[MDADM, "--stop", "/dev/md127"], [MDADM, "--zero-superblock", members[0]]]
    assert done.result["pts_md_array"]["skipped"] == [f"{members[1]}: no md superblock"]


def test_absent_with_nothing_left_changes_nothing(host):
    members = [host.disk("vdb"), str(host.dev / "gone")]
    done = run({"name": "fq1", "state": "absent", "members": members})
    assert not done.failed and done.result["changed"] is False and done.result["commands"] == []
    assert done.result["pts_md_array"]["skipped"] == [f"{members[0]}: no md superblock",
                                                      f"{members[1]}: not a block device"]


def test_absent_refuses_another_arrays_superblock(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.examine = {"vdb": (0, EXAMINE_RAID1_MEMBER, ""),
                    "vdc": (0, EXAMINE_RAID1_MEMBER.replace("guest:fq1", "guest:data"), "")}
    done = run({"name": "fq1", "state": "absent", "members": members})
    assert done.failed and "carries the md superblock of array 'guest:data'" in done.result["msg"]
    assert not [argv for argv in host.calls if argv[1] in ("--stop", "--zero-superblock")]


def test_absent_examine_error_fails(host):
    members = [host.disk("vdb")]
    host.examine = {"vdb": (1, "", "mdadm: cannot open /dev/vdb: Permission denied\n")}
    done = run({"name": "fq1", "state": "absent", "members": members})
    assert done.failed and "Permission denied" in done.result["msg"]


def test_absent_with_the_uuid_it_was_built_with_stops_only_that_array(host):
    members = [host.disk("vdb"), host.disk("vdc")]
    host.start_array()
    host.examine = {"vdb": (0, EXAMINE_RAID1_MEMBER, ""), "vdc": (0, EXAMINE_RAID1_MEMBER, "")}
    done = run({"name": "fq1", "state": "absent", "members": members, "uuid": "3f1c2a4e-8d7b6c5a-4e3f2a1b-0c9d8e7f"})
    assert not done.failed and done.result["pts_md_array"]["zeroed"] == members
    host.calls.clear()
    # The fake array is still there: asked for another UUID, nothing is stopped or zeroed.
    other = run({"name": "fq1", "state": "absent", "members": members, "uuid": "00000000:00000000:00000000:00000001"})
    assert other.failed and "is the array with UUID 3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f, not the one" in other.result["msg"]
    assert not [argv for argv in host.calls if argv[1] in ("--stop", "--zero-superblock")]


def test_absent_refuses_an_array_that_holds_a_device_not_in_members(host):
    member = host.disk("vdb")
    host.disk("vdc")
    host.start_array(members=("vdb", "vdc"))
    done = run({"name": "fq1", "state": "absent", "members": [member]})
    assert done.failed and "also holds" in done.result["msg"] and "nothing was written" in done.result["msg"]
    assert not [argv for argv in host.calls if argv[1] in ("--stop", "--zero-superblock")]
