# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The guard's refusals, records, re-checks and holds (module_utils/_drive/_guard.py)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard, _guard_record, _hold
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._drive._fake_host import FakeHost


@pytest.fixture
def host(tmp_path, monkeypatch):
    return FakeHost(tmp_path, monkeypatch)


FREE = {
    "path": "/dev/disk/by-id/x", "resolved": "/dev/sdb", "exists": True, "is_block": True, "serial": "S1",
    "wwn": "naa.1", "backing_file": None, "read_only": False, "mounts": [], "holders": {}, "swaps": [],
    "in_use": None,
}


def test_a_free_allowed_drive_passes():
    assert _guard.refusals(FREE, {"path": "/dev/sdb", "serial": "S1"}, allow_destroy=True) == []


@pytest.mark.parametrize(
    "change, expected, allow, reason",
    [
        ({}, {}, False, "pts_allow_destroy is not true"),
        ({"exists": False, "error": "No such file or directory"}, {}, True, "/dev/sdb does not exist"),
        ({"is_block": False}, {}, True, "is not a block device"),
        ({}, {"serial": "S2"}, True, "serial mismatch: expected 'S2', the device reports 'S1'"),
        ({}, {"wwn": "naa.2"}, True, "wwn mismatch"),
        ({"backing_file": "/a.img"}, {"backing_file": "/b.img"}, True, "backing_file mismatch"),
        ({"read_only": True}, {}, True, "read-only"),
        ({"mounts": [{"device": "sdb1", "mountpoint": "/data", "fstype": "xfs"}]}, {}, True,
         "sdb1 is mounted on /data (xfs)"),
        ({"holders": {"sdb": ["dm-0"]}}, {}, True, "sdb is held by dm-0"),
        ({"swaps": ["/dev/sdb2"]}, {}, True, "/dev/sdb2 is active swap"),
        ({"in_use": "the kernel refuses an exclusive open (EBUSY): another user holds it"}, {}, True, "EBUSY"),
    ],
)
def test_each_refusal_names_its_reason(change, expected, allow, reason):
    reasons = _guard.refusals(dict(FREE, **change), expected, allow_destroy=allow)
    assert any(reason in r for r in reasons), reasons


def test_duplicates_are_refused():
    infos = [{"path": "/dev/a", "devnum": "8:0"}, {"path": "/dev/disk/by-id/x", "devnum": "8:0"},
             {"path": "/dev/c", "devnum": "8:32"}]
    reasons = _guard.duplicate_refusals(infos, ["k1", "k2", "k1"])
    assert reasons[0] == ["/dev/disk/by-id/x resolves to the same device",
                          "results key 'k1' is also used by /dev/c: give each drive a unique name"]
    assert reasons[1] == ["/dev/a resolves to the same device"]
    assert reasons[2] == ["results key 'k1' is also used by /dev/a: give each drive a unique name"]


@pytest.mark.parametrize(
    "change, expected, allow_signatures, reason",
    [
        ({"signatures": [{"device": "sdb", "offset": "0x438", "type": "ext4"}]}, {}, False,
         "it carries signatures (ext4 on sdb at 0x438)"),
        ({"signatures": None}, {}, True, "its signatures could not be read"),
        ({"mounts": [{"device": "dm-0", "mountpoint": "/", "fstype": "ext4"}], "stacked": ["dm-0"]}, {}, False,
         "dm-0 (stacked on this drive) is mounted on / (ext4): this is the system disk"),
        ({"serial": "D1", "described": ["serial"]}, {"serial": "S1"}, False,
         "serial mismatch: expected 'S1', the device reports 'D1' (from its description file)"),
        ({"resolve_error": "no disk on this host reports serial 'X'"}, {}, False, "no disk on this host reports"),
    ],
)
def test_refusals_for_signatures_stacks_and_descriptions(change, expected, allow_signatures, reason):
    reasons = _guard.refusals(dict(FREE, **change), expected, allow_destroy=True, allow_signatures=allow_signatures)
    assert any(reason in r for r in reasons), reasons


def test_signatures_pass_only_when_allowed():
    info = dict(FREE, signatures=[{"device": "sdb", "offset": "0x200", "type": "gpt"}])
    assert _guard.refusals(info, {}, allow_destroy=True, allow_signatures=True) == []
    assert _guard.refusals(dict(FREE, signatures=[]), {}, allow_destroy=True) == []


@pytest.mark.parametrize("want, have, same", [
    ("0x5000C500A1B2C3D4", "naa.5000c500a1b2c3d4", True),
    ("eui.0025388b91b2c3d4", "eui.0025388B91B2C3D4", True),
    ("naa.5000c500a1b2c3d4", "naa.5000c500a1b2c3d5", False),
])
def test_wwns_compare_by_their_digits(want, have, same):
    assert (_guard.refusals(dict(FREE, wwn=have), {"wwn": want}, allow_destroy=True) == []) is same


def test_a_signature_on_an_alias_is_named(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    info = dict(host.probe("loop4"), signatures=[{"device": "loop5", "offset": "0x438", "type": "ext4"}])
    reasons = _guard.refusals(info, {}, allow_destroy=True)
    assert reasons == [f"it carries signatures (ext4 on loop5 (another path to this drive: a loop device over the same file as "
                       f"loop4 ({image})) at 0x438): it may hold data; wipe it yourself or set pts_allow_signatures: true"]
    assert _guard.refusals(info, {}, allow_destroy=True, allow_signatures=True) == []


def test_recheck_refuses_a_loop_device_attached_to_another_file(host):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    record = host.guarded("loop4", "7:4")
    assert record["loop"] == {"backing_file": image, "backing_dev": _devnum_of(image), "backing_ino": os.stat(image).st_ino,
                              "backing_rdev": None, "offset": 0, "sizelimit": 0}
    assert host.recheck("loop4", record) == []
    other = host.image("b.img")
    (host.sys / "block" / "loop4" / "loop" / "backing_file").write_text(other + "\n")
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1 and reasons[0].startswith(f"{host.dev}/loop4 is now a loop device over {other} (device ")
    assert f"; the guard passed a loop device over {image} (device " in reasons[0]


@pytest.mark.parametrize("change", ["inode", "offset", "sizelimit", "not a loop"])
def test_recheck_compares_the_whole_loop_identity(host, change):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    record = host.guarded("loop4", "7:4")
    loop_dir = host.sys / "block" / "loop4" / "loop"
    if change == "inode":  # the same path, a new file (the old one moved aside, a new one made in its place)
        os.rename(image, image + ".old")
        host.image("a.img")
        assert os.stat(image).st_ino != record["loop"]["backing_ino"]
    elif change in ("offset", "sizelimit"):
        (loop_dir / change).write_text("4096\n")
    else:
        for entry in loop_dir.iterdir():
            entry.unlink()
        loop_dir.rmdir()
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1, reasons
    assert "no longer a loop device" in reasons[0] if change == "not a loop" else "it is not the device the guard passed" in reasons[0]


def test_recheck_finds_what_was_stacked_or_mounted_after_the_guard(host):
    image = host.image("a.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    record = host.guarded("loop4", "7:4")
    assert host.recheck("loop4", record) == []
    host.mount("7:5", str(host.dev / "loop5"), "/late")
    host.disk("loop9", "7:9", loop={"backing_file": str(host.dev / "loop4")})
    reasons = host.recheck("loop4", record)
    assert any(r.startswith("loop5 (another path to this drive") and r.endswith("is mounted on /late (ext4)") for r in reasons)
    assert any(r.startswith("loop9 (a loop device over ") for r in reasons), reasons


def test_recheck_believes_the_hosts_record_not_the_callers(host):
    # The caller's record says loop5; the device written is loop4, which the guard passed: the host's record of
    # loop4 decides, and the caller's fields (devnum, serial, loop) are not what the device is compared with.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4")
    assert host.recheck("loop4", dict(record, devnum="7:5", serial="forged", loop=None)) == []


def test_listed_aliases_and_stacks_are_duplicates(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    infos = [host.probe("loop4"), host.probe("loop5")]
    reasons = _guard.duplicate_refusals(infos, ["a", "b"], ["/dev/loop4", "/dev/loop5"])
    assert reasons == [
        [f"/dev/loop5 is listed too, and it is loop5 (another path to this drive: a loop device over the same file as loop4 "
         f"({image})): list each drive once"],
        [f"/dev/loop4 is listed too, and it is loop4 (another path to this drive: a loop device over the same file as loop5 "
         f"({image})): list each drive once"],
    ]


@pytest.mark.parametrize("info, expected, reason", [
    ({"path": "/dev/x\n[evil]\nexec_prerun=sh"}, {},
     "the pts_devices[].path '/dev/x\\n[evil]\\nexec_prerun=sh' contains a control character"),
    ({"resolved": "/dev/loop\x1b[2J"}, {}, "the device node it resolves to '/dev/loop\\x1b[2J' contains a control character"),
    ({}, {"backing_file": "/srv/a\r.img"}, "the pts_devices[].backing_file '/srv/a\\r.img' contains"),
    ({"loop": {"backing_file": "/srv/b\udcff.img"}}, {}, "the loop device's backing file '/srv/b\\udcff.img' contains"),
])
def test_control_characters_are_refused_before_anything_else(info, expected, reason):
    reasons = _guard.refusals(dict(FREE, **info), expected, allow_destroy=True)
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons
    assert "\n" not in reasons[0] and "\x1b" not in reasons[0]


def _devnum_of(path):
    number = os.stat(path).st_dev
    return f"{os.major(number)}:{os.minor(number)}"


def test_recheck_with_the_runs_hold_counts_its_holder_and_nothing_else_out(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4")
    assert host.recheck("loop4", record) == []
    # Without the hold in the caller's record there is no run to look the host's record up for: nothing is written.
    reasons = host.recheck("loop4", {k: v for k, v in record.items() if k != "hold"})
    assert reasons == [f"{host.dev}/loop4: the guard has not passed and held it in this run (no guard record with a "
                       "hold to check it against); nothing is written to a drive the guard did not pass"]
    host.opener(71, "fio", host.dev / "loop4")
    assert host.recheck("loop4", record) == ["loop4 is open by process 71 (fio)"]


@pytest.mark.parametrize("change, why", [
    (lambda h: h.state(70, "Z"), "process 70 is not running"),
    (lambda h: h.state(70, "S", start_time=900), "process 70 is another process than the holder"),
    (lambda h: os.unlink(h.locks / "hold-7-4.json"), "its lock file"),
    (lambda h: h.holder(70, "loop4", "7:4", "r1", lock_pid=99), "names process 99 of run r1"),
    (lambda h: (h.proc / "70" / "fd" / "0").unlink(), "process 70 no longer has device 7:4 open"),
], ids=["ended", "pid-reused", "lock-removed", "lock-replaced", "device-closed"])
def test_recheck_refuses_when_the_runs_hold_is_lost(host, change, why):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4")
    change(host)
    reasons = host.recheck("loop4", record)
    assert len(reasons) == 1 and reasons[0].startswith(f"{host.dev}/loop4: this run's hold on the drive is lost - ")
    assert why in reasons[0] and reasons[0].endswith("run again with the same run id (pts_run_id=r1) to guard it and "
                                                     "hold it again")


def test_the_guard_names_another_runs_holder_on_another_path_to_the_drive(host):
    image = host.image("shared.img")
    host.disk("loop4", "7:4", loop={"backing_file": image})
    host.disk("loop5", "7:5", loop={"backing_file": image})
    hold = host.holder(80, "loop5", "7:5", "r2")
    info = host.probe("loop4")
    assert _guard.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) is None
    info["related"][0]["in_use"] = "the kernel refuses an exclusive open (EBUSY): another user holds it"
    reasons = _guard.refusals(info, {}, allow_destroy=True, run_id="r1")
    assert reasons == [f"loop5 (another path to this drive: a loop device over the same file as loop4 ({image})) is "
                       f"held for run r2 by its drive holder, process 80 (lock file {hold['lock']}): that run has the "
                       "drive until its tests end; if run r2 is gone, resume it with the same run id (pts_run_id=r2) "
                       "to finish and release the drive, or release it as root on this host with `kill 80`"]


def test_a_process_with_a_holders_command_line_is_named_as_a_holder_only_when_its_lock_file_proves_it(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    host.holder(80, "loop4", "7:4", "intruder")
    os.unlink(host.locks / "hold-7-4.json")
    # It has the drive open, so the drive is refused - but as what it is, not as run intruder's holder.
    assert host.refusals("loop4", run_id="r1") == [
        f"loop4 is open by process 80 (python3), which has a drive holder's command line for run intruder but is not "
        f"one (its lock file {host.locks / 'hold-7-4.json'} does not exist or cannot be read): no run holds the drive, "
        "something else has it open"]
    # Without the device open it is no opener at all: nothing to refuse.
    (host.proc / "80" / "fd" / "0").unlink()
    assert host.refusals("loop4", run_id="r1") == []


def test_a_resumed_run_takes_over_its_proved_holder_and_refuses_an_unproved_one(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    hold = host.holder(70, "loop4", "7:4", "r1")
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _guard.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) == {
        "pid": 70, "run_id": "r1", "token": "", "lock": hold["lock"]}
    assert info["openers"] == [] and info["in_use"] is None
    assert _guard.refusals(info, {}, allow_destroy=True, run_id="r1") == []

    host.holder(70, "loop4", "7:4", "r1", lock_pid=99)
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _guard.claim_own_hold(info, "r1", str(host.locks), str(host.proc)) is None and "takeover" not in info
    # Named once, as this run's holder that cannot be proved; the exclusive-open failure it causes is not repeated.
    assert _guard.refusals(info, {}, allow_destroy=True, run_id="r1") == [
        f"loop4 is held by a drive holder of this run (r1), process 70 (lock file {hold['lock']}), which cannot be "
        f"taken over: its lock file {hold['lock']} names process 99 of run r1; release it as root on this host with "
        "`kill 70`"]


def test_a_holder_of_the_same_run_id_with_another_token_is_another_run_and_never_taken_over(host):
    # Two results trees (or controllers) chose run id r1: the holder of the other one is refused, named as such.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    hold = host.holder(70, "loop4", "7:4", "r1", token="a" * 32)
    info = dict(host.probe("loop4"), in_use="the kernel refuses an exclusive open (EBUSY): another user holds it")
    assert _guard.claim_own_hold(info, "r1", str(host.locks), str(host.proc), token="b" * 32) is None
    assert "takeover" not in info
    assert _guard.refusals(info, {}, allow_destroy=True, run_id="r1", token="b" * 32) == [
        f"loop4 is held for another run of the same run id r1 (run token id {_hold.token_id('a' * 32)}, not "
        f"{_hold.token_id('b' * 32)}: results in "
        f"another directory or on another controller) by its drive holder, process 70 (lock file {hold['lock']}): "
        "that run has the drive until its tests end; if run r1 is gone, resume it with the same run id "
        "(pts_run_id=r1) to finish and release the drive, or release it as root on this host with `kill 70`"]
    # The run whose token it carries takes it over.
    assert _guard.claim_own_hold(info, "r1", str(host.locks), str(host.proc), token="a" * 32) == {
        "pid": 70, "run_id": "r1", "token": "a" * 32, "lock": hold["lock"]}


@pytest.mark.parametrize("record", [{}, {"devnum": "7:4"}, {"devnum": "7:4", "passed": False}, {"passed": True},
                                    {"passed": True, "hold": {"pid": 70}}])
def test_recheck_refuses_without_the_guards_record_of_the_device(host, record):
    # Every module that writes rechecks with the record; no record, no write, whatever called it.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    assert host.recheck("loop4", record) == [
        f"{host.dev}/loop4: the guard has not passed and held it in this run (no guard record with a hold to check it "
        "against); nothing is written to a drive the guard did not pass"]


def test_a_record_forged_for_a_device_the_guard_never_passed_is_refused(host):
    # -e pts_guard_passed='{...}' naming another device: the caller's record is well formed and carries this run's
    # hold, but the host has no guard record of that device - nothing is written to it.
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    host.disk("loop5", "7:5", loop={"backing_file": host.image("b.img")})
    record = host.guarded("loop4", "7:4")
    reasons = host.recheck("loop5", dict(record, path=str(host.dev / "loop5"), resolved=str(host.dev / "loop5")))
    assert reasons == [f"{host.dev}/loop5 (device 7:5): there is no guard record of device 7:5 on the host "
                       f"({host.locks}/guard-7-5.json): the guard did not pass this device in this run, whatever the "
                       "run's variables say; nothing is written to it"]


def test_another_runs_record_or_another_drives_record_is_refused(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4", run_id="r1", token="a" * 32)
    ours = dict(record, hold=dict(record["hold"], run_id="r2", token="b" * 32))
    assert host.recheck("loop4", ours) == [
        f"{host.dev}/loop4 (device 7:4): the guard passed it for run r1, not for this run (r2); nothing is written to it"]
    assert host.recheck("loop4", dict(record, key="other-drive")) == [
        f"{host.dev}/loop4 (device 7:4) is drive 'd1' in the guard's record, not 'other-drive': nothing is written to "
        "one drive in another's name"]


def test_signatures_the_guard_did_not_pass_are_refused_at_every_write(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    seen = [{"device": f"{host.dev}/loop4", "offset": "0x438", "type": "ext4"}]
    record = host.guarded("loop4", "7:4")
    assert host.recheck("loop4", record, signatures=lambda info: []) == []
    reasons = host.recheck("loop4", record, signatures=lambda info: seen)
    assert reasons == ["it carries signatures the guard did not pass (ext4 on loop4 at 0x438): someone has put data on "
                       "it since"]
    assert host.recheck("loop4", record, signatures=lambda info: None) == [
        "its signatures could not be read again (wipefs failed), so it may hold data"]
    # pts_allow_signatures passed these very signatures; another one is still someone's new data.
    allowed = host.guarded("loop4", "7:4", signatures=seen, allow_signatures=True)
    assert host.recheck("loop4", allowed, signatures=lambda info: seen) == []
    assert host.recheck("loop4", allowed, signatures=lambda info: seen + [
        {"device": f"{host.dev}/loop4", "offset": "0x0", "type": "dos"}])[0].startswith(
        "it carries signatures the guard did not pass (dos on loop4 at 0x0)")


def test_a_new_signature_is_shown_with_the_bytes_found_at_its_offset(host, tmp_path):
    # The device node wipefs named, read at the signature's offset: what was written there, for the operator to judge.
    node = tmp_path / "node"
    node.write_bytes(b"\0" * 0x200 + b"JM\x00\x01" + b"\xff" * 12 + b"\0" * 0x1f0)
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4")
    found = [{"device": str(node), "offset": "0x200", "type": "jmicron_raid_member"}]
    assert host.recheck("loop4", record, signatures=lambda info: found) == [
        "it carries signatures the guard did not pass (jmicron_raid_member on node at 0x200, bytes 4a4d 0001 ffff ffff "
        "ffff ffff ffff ffff): someone has put data on it since"]
    # wipefs names the device by its kernel name (as --json lists it): read under the host's /dev.
    (host.dev / "loop4").write_bytes(node.read_bytes())
    assert host.recheck("loop4", record, signatures=lambda info: [dict(found[0], device="loop4")]) == [
        "it carries signatures the guard did not pass (jmicron_raid_member on loop4 at 0x200, bytes 4a4d 0001 ffff ffff "
        "ffff ffff ffff ffff): someone has put data on it since"]
    # Nothing to show where the node cannot be read, or is a link.
    (tmp_path / "link").symlink_to(node)
    for device in (tmp_path / "gone", tmp_path / "link"):
        assert host.recheck("loop4", record, signatures=lambda info, d=device: [dict(found[0], device=str(d))]) == [
            f"it carries signatures the guard did not pass (jmicron_raid_member on {device.name} at 0x200): someone has "
            "put data on it since"]


def test_a_member_handed_to_an_md_array_is_rechecked_without_its_hold_only_when_asked(host):
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    record = host.guarded("loop4", "7:4")
    host.state(70, "Z")  # the member's holder ended (its device closed): md holds it now
    (host.proc / "70" / "fd" / "0").unlink()
    assert host.recheck("loop4", record, need_hold=False)[0].startswith(f"{host.dev}/loop4: this run's hold on the "
                                                                        "drive is lost")
    _guard_record.mark("7:4", _guard_record.IN_ARRAY, "r1", "", str(host.locks))
    assert host.recheck("loop4", record, need_hold=False) == []
    assert host.recheck("loop4", record)[0].startswith(f"{host.dev}/loop4: this run's hold on the drive is lost")
