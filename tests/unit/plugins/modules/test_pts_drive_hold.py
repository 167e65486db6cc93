# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# main() with the hold's process work stood in for: which holder it refuses, takes over, starts or stops, and what
# it returns. Real holders of real devices: tests/integration/test_drive_hold.py; the judgement itself: test__hold.py.

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold
from ansible_collections.fleetqual.pts.plugins.modules import pts_drive_hold
from ansible_collections.fleetqual.pts.tests.unit.plugins.modules._module_exit import Exit, run_main, stub_exits


class Holds:
    """What the module asked of _hold: holders on the host, and the calls made."""

    def __init__(self):
        self.holders: list[dict] = []
        self.pretenders: list[dict] = []
        self.warnings: list[str] = []
        self.problems: dict[int, str] = {}
        self.calls: list[tuple] = []
        self.start_error: str | None = None
        # The guard's records on the host, by device: the guard passed 7:3 for run r1.
        self.records: dict[str, dict] = {}
        self.guarded("r1")

    def guarded(self, run_id, token="", devnum="7:3"):
        self.records[devnum] = {"format": _guard_record.FORMAT, "run_id": run_id, "token": token, "key": "d1",
                                "devnum": devnum, "hold": {"pid": 1, "devnum": devnum}, "state": "held"}

    def read(self, devnum, lock_dir=None):
        found = self.records.get(devnum)
        return (dict(found), None) if found else (None, f"there is no guard record of device {devnum} on the host")

    def write(self, record, lock_dir=None):
        self.calls.append(("record", record["devnum"], record["hold"]["pid"]))
        self.records[record["devnum"]] = record

    def remove(self, devnum, run_id=None, token="", lock_dir=None):
        self.calls.append(("forget", devnum, run_id))
        return self.records.pop(devnum, None) is not None

    def add(self, pid, devnum, run_id, token=""):
        self.holders.append({"pid": pid, "devnum": devnum, "run_id": run_id, "token": token, "device": "/dev/x",
                             "lock": _hold.lock_path(devnum)})

    def start(self, device, devnum, run_id, timeout=None, token=""):
        self.calls.append(("start", device, devnum, run_id) + ((token,) if token else ()))
        if self.start_error:
            raise _hold.HoldError(self.start_error)
        return {"pid": 900, "start_time": 77, "lock": _hold.lock_path(devnum), "run_id": run_id, "token": token,
                "devnum": devnum, "device": device, "since": "2026-11-23T10:00:00Z"}

    def stop(self, pid, devnum, timeout=None):
        self.calls.append(("stop", pid, devnum))

    def release(self, run_id, devnum, pid, timeout=None, check_mode=False, token=""):
        self.calls.append(("release", run_id, devnum, pid, check_mode) + ((token,) if token else ()))
        return {"stopped": [h for h in self.holders if _hold.same_run(h, run_id, token)], "removed": [], "others": []}


@pytest.fixture
def holds(monkeypatch):
    fake = Holds()
    monkeypatch.setattr(_hold, "holder_processes", lambda *args: list(fake.holders))
    monkeypatch.setattr(_hold, "pretenders", lambda *args: list(fake.pretenders))
    monkeypatch.setattr(pts_drive_hold.AnsibleModule, "warn", lambda self, text: fake.warnings.append(text))
    monkeypatch.setattr(_hold, "holder_problem", lambda pid, *args, **kwargs: fake.problems.get(pid))
    monkeypatch.setattr(_hold, "start", lambda device, devnum, run_id, *args, timeout=None, token="", **kw:
                        fake.start(device, devnum, run_id, timeout, token))
    monkeypatch.setattr(_hold, "stop", lambda pid, devnum, *args, **kwargs: fake.stop(pid, devnum))
    monkeypatch.setattr(_hold, "release", fake.release)
    monkeypatch.setattr(_hold, "remove_stale", lambda *args, devnum=None, **kwargs: [])
    monkeypatch.setattr(_hold, "scan_locks", lambda: [])
    monkeypatch.setattr(_guard_record, "read", fake.read)
    monkeypatch.setattr(_guard_record, "write", fake.write)
    monkeypatch.setattr(_guard_record, "remove", fake.remove)
    monkeypatch.setattr(pts_drive_hold, "_devnum", lambda path: "7:3" if path == "/dev/loop3" else None)
    monkeypatch.setattr(pts_drive_hold, "_openers_words", lambda devnum: "process 55 (mount) has it open")
    monkeypatch.setattr(os, "geteuid", lambda: 0)

    stub_exits(monkeypatch)
    return fake


def run(args: dict) -> Exit:
    return run_main(pts_drive_hold, args)


def test_present_starts_a_holder_and_puts_it_in_the_guards_record(holds):
    done = run({"path": "/dev/loop3", "run_id": "r1", "expect": {"devnum": "7:3", "serial": None}})
    assert not done.failed and done.result["changed"] is True
    # The new hold goes into the guard's record on the host too: every write checks that one.
    assert holds.calls == [("start", "/dev/loop3", "7:3", "r1"), ("record", "7:3", 900)]
    assert done.result["pts_guard_record"] == {"devnum": "7:3", "serial": None, "hold": {
        "pid": 900, "start_time": 77, "run_id": "r1", "token_id": "", "devnum": "7:3",
        "lock": "/run/fleetqual-pts/hold-7-3.json"}}
    assert done.result["pts_drive_hold"]["took_over"] is None


def test_only_a_drive_the_guard_passed_for_this_run_is_held(holds):
    # A device the guard never passed (a forged record names it), or passed for another run: nothing is held.
    holds.records.clear()
    done = run({"path": "/dev/loop3", "run_id": "r1", "expect": {"devnum": "7:3", "passed": True}})
    assert done.failed and holds.calls == []
    assert done.result["msg"] == ("pts_drive_hold /dev/loop3: there is no guard record of device 7:3 on the host: only "
                                  "a drive the guard passed for this run (r1) is held; run fleetqual.pts.pts_guard "
                                  "with hold=true; nothing was held or written")
    holds.guarded("r0")
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert done.failed and holds.calls == []
    assert done.result["msg"].startswith("pts_drive_hold /dev/loop3: the guard passed it for run r0: only a drive ")


def test_another_runs_holder_is_named_and_nothing_is_started(holds):
    holds.add(41, "7:3", "r0")
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert done.failed and holds.calls == []
    assert done.result["msg"] == (
        "pts_drive_hold /dev/loop3: cannot hold it for run r1: held for run r0 by its drive holder, process 41 (lock "
        "file /run/fleetqual-pts/hold-7-3.json); if run r0 is gone, resume it with the same run id (pts_run_id=r0) to "
        "finish and release the drive, or release it as root on this host with `kill 41`; process 55 (mount) has it "
        "open; nothing was written")


def test_a_process_with_only_a_holders_command_line_never_blocks_the_drive(holds):
    # Any local user can start a process whose command line is a holder's; it does not have the device open.
    holds.pretenders.append({"pid": 66, "devnum": "7:3", "run_id": "intruder", "token": "", "device": "/dev/loop3",
                             "lock": _hold.lock_path("7:3")})
    holds.pretenders.append({"pid": 67, "devnum": "7:9", "run_id": "intruder", "token": "", "device": "/dev/loop9",
                             "lock": _hold.lock_path("7:9")})
    holds.guarded("r1", "b" * 32)
    done = run({"path": "/dev/loop3", "run_id": "r1", "run_token": "b" * 32})
    assert not done.failed and holds.calls[0] == ("start", "/dev/loop3", "7:3", "r1", "b" * 32)
    assert [p["pid"] for p in done.result["pts_drive_hold"]["ignored"]] == [66]
    assert holds.warnings == ["pts_drive_hold /dev/loop3: process 66 has a drive holder's command line for run intruder "
                              "but does not have the device open: it holds nothing, ignored"]


def test_a_process_that_has_the_device_open_with_a_holders_command_line_but_no_proof_is_named_as_what_it_is(holds):
    holds.add(66, "7:3", "intruder")
    holds.problems[66] = "its lock file /run/fleetqual-pts/hold-7-3.json does not exist or cannot be read"
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert done.failed and holds.calls == []
    assert done.result["msg"].startswith(
        "pts_drive_hold /dev/loop3: cannot hold it for run r1: process 66 has it open, with a drive holder's command "
        "line for run intruder, but it is not one (its lock file /run/fleetqual-pts/hold-7-3.json does not exist or "
        "cannot be read): something else uses the drive")


def test_a_holder_of_another_run_of_the_same_run_id_is_refused_not_replaced(holds):
    # Another results tree or controller chose run id r1 too: its holder carries its own token.
    holds.add(41, "7:3", "r1", token="a" * 32)
    holds.guarded("r1", "b" * 32)
    done = run({"path": "/dev/loop3", "run_id": "r1", "run_token": "b" * 32})
    assert done.failed and holds.calls == []
    assert done.result["msg"].startswith(
        f"pts_drive_hold /dev/loop3: cannot hold it for run r1: held for another run of the same run id r1 (run token "
        f"id {_hold.token_id('a' * 32)}, not {_hold.token_id('b' * 32)}: results in another directory or on another "
        "controller) by its drive holder, "
        "process 41 ")
    # The run whose token it carries replaces it (a resume of that very run) and hands its token to the new holder.
    holds.guarded("r1", "a" * 32)
    done = run({"path": "/dev/loop3", "run_id": "r1", "run_token": "a" * 32})
    assert not done.failed
    assert holds.calls == [("stop", 41, "7:3"), ("start", "/dev/loop3", "7:3", "r1", "a" * 32), ("record", "7:3", 900)]
    # ... which stays on the host: the result carries its token id only.
    assert done.result["pts_guard_record"]["hold"]["token_id"] == _hold.token_id("a" * 32)
    assert "a" * 32 not in repr(done.result)


def test_this_runs_proved_holder_is_replaced_and_an_unproved_one_refused(holds):
    holds.add(42, "7:3", "r1")
    holds.add(43, "7:9", "r0")  # another device: none of this drive's business
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert not done.failed
    assert holds.calls == [("stop", 42, "7:3"), ("start", "/dev/loop3", "7:3", "r1"), ("record", "7:3", 900)]
    assert done.result["pts_drive_hold"]["took_over"]["pid"] == 42
    holds.calls.clear()
    holds.problems[42] = "its lock file /run/fleetqual-pts/hold-7-3.json names process 7 of run r1"
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert done.failed and holds.calls == []
    assert "process 42, is not proved to be this run's: its lock file" in done.result["msg"]
    assert "`kill 42`" in done.result["msg"]


def test_check_mode_starts_and_stops_nothing(holds):
    holds.add(42, "7:3", "r1")
    done = run({"path": "/dev/loop3", "run_id": "r1", "expect": {"devnum": "7:3"}, "_ansible_check_mode": True})
    assert not done.failed and done.result["changed"] is True and holds.calls == []
    assert done.result["pts_guard_record"] == {"devnum": "7:3"}  # no hold to re-check in a run that holds nothing
    assert done.result["msg"] == "check mode: would hold /dev/loop3 for run r1"


def test_a_device_that_changed_since_the_guard_is_not_held(holds):
    done = run({"path": "/dev/loop3", "run_id": "r1", "expect": {"devnum": "7:4"}})
    assert done.failed and holds.calls == []
    assert "it is now device 7:3, the guard passed 7:4" in done.result["msg"]


def test_a_refused_exclusive_open_names_who_has_the_device(holds):
    holds.start_error = "the kernel refuses the exclusive open (EBUSY): something else claims the device"
    done = run({"path": "/dev/loop3", "run_id": "r1"})
    assert done.failed
    assert done.result["msg"] == ("pts_drive_hold /dev/loop3: cannot hold it for run r1: the kernel refuses the "
                                  "exclusive open (EBUSY): something else claims the device; process 55 (mount) has "
                                  "it open; nothing was written")


def test_absent_releases_the_holder_the_record_names(holds):
    holds.add(42, "7:3", "r1")
    record = {"devnum": "7:3", "hold": {"pid": 42, "run_id": "r1", "devnum": "7:3"}}
    done = run({"path": "/dev/gone", "run_id": "r1", "state": "absent", "expect": record})
    assert not done.failed and done.result["changed"] is True
    # The node is gone: found by the record's devnum; the guard's record of it goes with the hold.
    assert holds.calls == [("release", "r1", "7:3", 42, False), ("forget", "7:3", "r1")]
    assert done.result["pts_guard_record"] == {"devnum": "7:3"}
    holds.calls.clear()
    done = run({"run_id": "r1", "state": "absent", "_ansible_check_mode": True})
    assert holds.calls == [("release", "r1", None, None, True)]
    # Without a hold in the record, the run token given is the one released; with one, the hold's own.
    holds.calls.clear()
    run({"run_id": "r1", "run_token": "c" * 32, "state": "absent"})
    record = {"devnum": "7:3", "hold": {"pid": 42, "run_id": "r1", "token": "d" * 32, "devnum": "7:3"}}
    run({"path": "/dev/loop3", "run_id": "r1", "run_token": "c" * 32, "state": "absent", "expect": record})
    assert holds.calls == [("release", "r1", None, None, False, "c" * 32), ("release", "r1", "7:3", 42, False, "d" * 32),
                           ("forget", "7:3", "r1")]


@pytest.mark.parametrize("args, message", [
    ({"run_id": "../x", "path": "/dev/loop3"}, "pts_drive_hold: run_id='../x': a run id is one directory name"),
    ({"run_id": "r1"}, "state is present but all of the following are missing: path"),
    ({"run_id": "r1", "path": "/dev/loop3", "timeout": 0}, "timeout=0.0: must be a positive number of seconds"),
    ({"run_id": "r1", "path": "/dev/sdz"}, "pts_drive_hold /dev/sdz: not a block device; nothing was held or written"),
])
def test_bad_input_is_refused(holds, args, message):
    done = run(args)
    assert done.failed and message in done.result["msg"] and holds.calls == []


def test_records_release_each_drives_hold_in_one_call(holds, monkeypatch):
    # What the judge does on each host: every hold the guard's records name, each released by its own record.
    def release(run_id, devnum, pid, timeout=None, check_mode=False, token=""):
        holds.calls.append(("release", run_id, devnum, pid, check_mode, token))
        return {"stopped": [h for h in holds.holders if h["devnum"] == devnum and h["pid"] == pid], "removed": [],
                "others": []}
    monkeypatch.setattr(_hold, "release", release)
    token = "d" * 32
    holds.add(42, "7:3", "r1", token)
    holds.add(43, "7:4", "r1", token)
    holds.guarded("r1", devnum="7:4")
    records = [{"devnum": "7:3", "resolved": "/dev/loop3", "hold": {"pid": 42, "run_id": "r1"}},
               {"devnum": "7:4", "resolved": "/dev/gone", "hold": {"pid": 43, "run_id": "r1"}},
               {"resolved": "/dev/gone", "hold": {"pid": 44}}, {"devnum": 7, "hold": {"pid": 44}},
               {"devnum": "7:9", "hold": None}, {"devnum": "7:9", "hold": {"pid": True}}]
    done = run({"run_id": "r1", "run_token": token, "state": "absent", "records": records})
    assert not done.failed and done.result["changed"] is True
    # The node gone, a record is found by its device number; one that names no device or no holder releases
    # nothing - never every hold of the run.
    assert holds.calls == [("release", "r1", "7:3", 42, False, token), ("forget", "7:3", "r1"),
                           ("release", "r1", "7:4", 43, False, token), ("forget", "7:4", "r1")]
    assert [(e["devnum"], e["released"], e["why"]) for e in done.result["pts_drive_hold"]["records"]] == [
        ("7:3", True, None), ("7:4", True, None), (None, False, "the record names no device"),
        (None, False, "the record names no device"), ("7:9", False, "the record names no holder"),
        ("7:9", False, "the record names no holder")]
    assert [h["pid"] for h in done.result["pts_drive_hold"]["stopped"]] == [42, 43]
    # The records back: without the hold where it ended, as given where it did not.
    assert done.result["pts_guard_records"] == [{"devnum": "7:3", "resolved": "/dev/loop3"},
                                                {"devnum": "7:4", "resolved": "/dev/gone"}] + records[2:]
    assert holds.warnings == []


def test_an_empty_list_of_records_releases_nothing(holds):
    holds.add(42, "7:3", "r1", "c" * 32)
    done = run({"run_id": "r1", "run_token": "c" * 32, "state": "absent", "records": []})
    assert not done.failed and done.result["changed"] is False and holds.calls == []
    assert done.result["pts_guard_records"] == [] and holds.warnings == []


def test_records_are_each_tried_and_the_failures_named(holds, monkeypatch):
    def release(run_id, devnum, pid, **kwargs):
        holds.calls.append(("release", devnum, pid))
        if devnum == "7:3":
            raise _hold.HoldError("holder 42 did not end")
        return {"stopped": [{"pid": pid, "devnum": devnum}], "removed": [], "others": []}

    def remove(devnum, run_id=None, token="", lock_dir=None):
        holds.calls.append(("forget", devnum))
        if devnum == "7:4":
            raise PermissionError(13, "Permission denied")
        return True
    monkeypatch.setattr(_hold, "release", release)
    monkeypatch.setattr(_guard_record, "remove", remove)
    records = [{"devnum": n, "hold": {"pid": p, "run_id": "r1"}} for n, p in (("7:3", 42), ("7:4", 43), ("7:5", 45))]
    done = run({"run_id": "r1", "run_token": "c" * 32, "state": "absent", "records": records})
    assert done.failed and done.result["msg"] == (
        "pts_drive_hold device 7:3: cannot release the hold of run r1: holder 42 did not end; pts_drive_hold device "
        "7:4: the hold of run r1 ended, but its guard record could not be removed: [Errno 13] Permission denied")
    assert holds.calls == [("release", "7:3", 42), ("release", "7:4", 43), ("forget", "7:4"), ("release", "7:5", 45),
                           ("forget", "7:5")]
    assert [e["released"] for e in done.result["pts_drive_hold"]["records"]] == [False, False, True]
    assert done.result["pts_guard_records"] == records[:2] + [{"devnum": "7:5"}]


@pytest.mark.parametrize("args, message", [
    ({"run_id": "r1", "path": "/dev/loop3", "records": [{"devnum": "7:3"}]}, "parameters are mutually exclusive"),
    ({"run_id": "r1", "state": "present", "records": [{"devnum": "7:3"}]}, "all of the following are missing: path"),
    ({"run_id": "r1", "state": "absent", "path": "/dev/loop3", "records": [{"devnum": "7:3"}]},
     "parameters are mutually exclusive: records|path"),
])
def test_records_refused_where_they_do_not_belong(holds, args, message):
    done = run(args)
    assert done.failed and message in done.result["msg"] and holds.calls == []
