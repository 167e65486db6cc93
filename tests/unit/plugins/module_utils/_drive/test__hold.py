# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# The hold's judgement against a fake /proc and lock directory: which holder is alive and whose, which lock file is
# stale and why, what a release stops. Real holds of real devices: tests/integration/test_drive_hold.py.

from __future__ import annotations

import json
import os
import signal
import stat
import sys
from types import SimpleNamespace

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold


class FakeProc:
    """Processes under tmp_path/proc (stat, comm, cmdline, fd links) and hold lock files under tmp_path/run."""

    def __init__(self, tmp_path, monkeypatch):
        self.proc = tmp_path / "proc"
        self.locks = tmp_path / "run"
        self.dev = tmp_path / "dev"
        for folder in (self.proc, self.locks, self.dev):
            folder.mkdir()
        self.nodes: dict[str, SimpleNamespace] = {}
        monkeypatch.setattr(_hold, "_stat", self._stat)

    def _stat(self, path):
        real = os.path.realpath(path)
        return self.nodes[real] if real in self.nodes else os.stat(path)

    def node(self, devnum: str) -> str:
        path = self.dev / devnum.replace(":", "-")
        path.write_text("")
        major, minor = (int(n) for n in devnum.split(":"))
        self.nodes[str(path)] = SimpleNamespace(st_mode=stat.S_IFBLK | 0o600, st_rdev=os.makedev(major, minor))
        return str(path)

    def process(self, pid: int, args: list[str], devnums=(), state: str = "S", start_time: int = 1000,
                comm: str = "python3") -> None:
        folder = self.proc / str(pid)
        (folder / "fd").mkdir(parents=True, exist_ok=True)
        (folder / "comm").write_text(comm + "\n")
        (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
        self.set_state(pid, state, start_time)
        for number, devnum in enumerate(devnums, 3):
            (folder / "fd" / str(number)).symlink_to(self.node(devnum))

    def set_state(self, pid: int, state: str, start_time: int = 1000) -> None:
        # Fields 3 to 22 of /proc/PID/stat: state, 18 others, starttime.
        (self.proc / str(pid) / "stat").write_text(f"{pid} (python3) {state} " + "0 " * 18 + f"{start_time} 0 0\n")

    def holder(self, pid: int, devnum: str, run_id: str, start_time: int = 1000, lock: bool = True,
               holds: bool = True, token: str = "", **lock_fields) -> str:
        path = _hold.lock_path(devnum, str(self.locks))
        self.process(pid, ["/usr/bin/python3", "-I", "-S", "-c", _hold.BOOTSTRAP, _hold.MARKER, f"/dev/x{pid}",
                           devnum, run_id, path, "1.0", token], [devnum] if holds else [], start_time=start_time)
        if lock:
            self.lock(devnum, dict({"run_id": run_id, "token": token, "pid": pid, "start_time": start_time},
                                   **lock_fields))
        return path

    def lock(self, devnum: str, fields: dict) -> str:
        path = _hold.lock_path(devnum, str(self.locks))
        record = {"format": _hold.LOCK_FORMAT, "device": "/dev/x", "devnum": devnum, **fields}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        return path

    def scan(self):
        return {e["devnum"]: e for e in _hold.scan_locks(str(self.locks), str(self.proc))}

    def problem(self, pid, devnum, run_id, start_time=None, token=""):
        return _hold.holder_problem(pid, devnum, run_id, str(self.locks), str(self.proc), start_time, token)


@pytest.fixture
def host(tmp_path, monkeypatch):
    return FakeProc(tmp_path, monkeypatch)


def test_a_holder_is_known_by_its_command_line_only(host):
    host.holder(40, "7:3", "run-a")
    host.process(41, ["grep", _hold.MARKER, "7:3"])  # names the marker, but is no holder
    host.process(42, ["sleep", "100"])
    assert _hold.holder_args(40, str(host.proc)) == {"pid": 40, "device": "/dev/x40", "devnum": "7:3",
                                                     "run_id": "run-a", "lock": str(host.locks / "hold-7-3.json"),
                                                     "token": ""}
    assert _hold.holder_args(41, str(host.proc)) is None and _hold.holder_args(42, str(host.proc)) is None
    assert _hold.holder_args(43, str(host.proc)) is None  # no such process
    assert [h["pid"] for h in _hold.holder_processes(str(host.proc))] == [40]


def test_a_process_with_only_a_holders_command_line_holds_nothing(host):
    # What any local user can start: a holder's command line for the device, without the device open or a lock file.
    host.holder(50, "7:3", "intruder", lock=False, holds=False)
    host.holder(51, "7:4", "run-a")
    assert [h["pid"] for h in _hold.holder_processes(str(host.proc))] == [51]
    assert [h["pid"] for h in _hold.pretenders(str(host.proc))] == [50]
    claimed = _hold.holder_args(50, str(host.proc))
    assert _hold.proof_problem(claimed, str(host.locks), str(host.proc)) == "process 50 no longer has device 7:3 open"
    assert _hold.proof_problem(_hold.holder_args(51, str(host.proc)), str(host.locks), str(host.proc)) is None
    # Its "run" releasing its holders stops nothing: it holds nothing, and is no process of the collection's to stop.
    kills = []
    released = _hold.release("intruder", lock_dir=str(host.locks), proc_root=str(host.proc),
                             kill=lambda pid, sig: kills.append(pid))
    assert released["stopped"] == [] and kills == []


def test_a_process_with_the_device_open_and_a_holders_command_line_is_proved_only_by_its_lock_file(host):
    host.holder(50, "7:3", "intruder", lock=False)
    (claimed,) = _hold.holder_processes(str(host.proc))
    assert _hold.proof_problem(claimed, str(host.locks), str(host.proc)) == \
        f"its lock file {host.locks / 'hold-7-3.json'} does not exist or cannot be read"
    host.lock("7:3", {"run_id": "run-a", "pid": 40})
    assert _hold.proof_problem(claimed, str(host.locks), str(host.proc)) == \
        f"its lock file {host.locks / 'hold-7-3.json'} names process 40 of run run-a"


def test_a_zombie_holder_is_not_a_holder(host):
    host.holder(40, "7:3", "run-a")
    host.set_state(40, "Z")
    assert _hold.holder_processes(str(host.proc)) == []
    assert host.problem(40, "7:3", "run-a") == "process 40 is not running"


@pytest.mark.parametrize("setup, why", [
    (lambda h: h.lock("7:3", {"run_id": "run-a", "pid": 40}), "process 40 is not running"),
    (lambda h: (h.process(40, ["sshd"], comm="sshd"), h.lock("7:3", {"run_id": "run-a", "pid": 40})),
     "process 40 (sshd) is not a drive holder"),
    (lambda h: (h.holder(40, "7:9", "run-a", lock=False), h.lock("7:3", {"run_id": "run-a", "pid": 40})),
     "process 40 holds device 7:9, not 7:3"),
    (lambda h: h.holder(40, "7:3", "run-a", holds=False), "process 40 no longer has device 7:3 open"),
    (lambda h: (h.holder(40, "7:3", "run-a", start_time=2000, lock=False),
                h.lock("7:3", {"run_id": "run-a", "pid": 40, "start_time": 1000})),
     "process 40 is another process than the holder (it started at another time)"),
    (lambda h: (h.holder(40, "7:3", "run-b", lock=False), h.lock("7:3", {"run_id": "run-a", "pid": 40})),
     "process 40 holds it for run run-b, not run run-a"),
], ids=["dead", "another-program", "another-device", "device-closed", "pid-reused", "another-run"])
def test_a_stale_lock_says_why(host, setup, why):
    setup(host)
    entry = host.scan()["7:3"]
    assert entry["live"] is False and entry["why"] == why
    assert entry["run_id"] == "run-a" and entry["pid"] == 40


@pytest.mark.parametrize("content, why", [
    ("not json", "the lock file is not JSON"),
    (json.dumps({"run_id": "a", "pid": 1, "devnum": "7:3"}), "the lock file is not a 'fleetqual.pts drive hold 1' record"),
    (json.dumps({"format": _hold.LOCK_FORMAT, "run_id": "a", "pid": "1", "devnum": "7:3"}),
     "the lock file lacks a valid pid, run_id or devnum"),
    (json.dumps({"format": _hold.LOCK_FORMAT, "run_id": "a", "pid": 1, "devnum": "7:4"}),
     "the lock file names device 7:4, not the one in its file name"),
], ids=["not-json", "foreign", "pid-string", "other-device"])
def test_a_bad_lock_file_is_stale(host, content, why):
    (host.locks / "hold-7-3.json").write_text(content)
    (host.locks / "notes.txt").write_text("not a lock")  # other files are none of its business
    assert list(host.scan()) == ["7:3"]
    entry = host.scan()["7:3"]
    assert entry["live"] is False and entry["why"] == why and entry["pid"] is None


def test_a_live_holder_of_its_run_is_proved(host):
    host.holder(40, "7:3", "run-a")
    assert host.scan()["7:3"]["live"] is True
    assert host.problem(40, "7:3", "run-a") is None
    assert host.problem(40, "7:3", "run-a", start_time=1000) is None
    assert host.problem(40, "7:3", "run-b") == "process 40 holds it for run run-a, not run run-b"


def test_a_holder_whose_lock_names_another_process_is_not_proved(host):
    host.holder(40, "7:3", "run-a", lock=False)
    assert host.problem(40, "7:3", "run-a") == f"its lock file {host.locks}/hold-7-3.json does not exist or cannot be read"
    host.lock("7:3", {"run_id": "run-a", "pid": 41})
    assert host.problem(40, "7:3", "run-a") == f"its lock file {host.locks}/hold-7-3.json names process 41 of run run-a"


def test_verify_a_guard_records_hold(host):
    host.holder(40, "7:3", "run-a")
    hold = {"pid": 40, "run_id": "run-a", "devnum": "7:3", "start_time": 1000}
    assert _hold.verify(hold, "7:3", str(host.locks), str(host.proc)) is None
    assert _hold.verify(hold, "7:4", str(host.locks), str(host.proc)) == "the hold is on device 7:3, the guard passed 7:4"
    assert _hold.verify({"run_id": "run-a"}, "7:3", str(host.locks), str(host.proc)).startswith("the guard's record")
    assert _hold.verify(dict(hold, start_time=999), "7:3", str(host.locks), str(host.proc)).startswith(
        "process 40 is another process")
    host.set_state(40, "Z")
    assert _hold.verify(hold, "7:3", str(host.locks), str(host.proc)) == "process 40 is not running"


def test_remove_stale_keeps_live_locks_and_other_runs(host):
    host.holder(40, "7:3", "run-a")
    host.lock("7:4", {"run_id": "run-a", "pid": 41})  # dead
    host.lock("7:5", {"run_id": "run-b", "pid": 42})  # dead, another run
    removed = _hold.remove_stale(str(host.locks), str(host.proc), run_id="run-a")
    assert [e["devnum"] for e in removed] == ["7:4"]
    assert sorted(p.name for p in host.locks.iterdir()) == ["hold-7-3.json", "hold-7-5.json"]
    removed = _hold.remove_stale(str(host.locks), str(host.proc))
    assert [e["devnum"] for e in removed] == ["7:5"] and _hold.stale_words(removed[0]) == (
        f"stale hold lock {host.locks}/hold-7-5.json of run run-b, process 42 (device 7:5): process 42 is not running")
    assert [p.name for p in host.locks.iterdir()] == ["hold-7-3.json"]


class Killer:
    """os.kill for fake processes: the signals a process gets, and the ones it dies of (it becomes a zombie)."""

    def __init__(self, host: FakeProc, dies_of=(signal.SIGTERM,)):
        self.host, self.dies_of, self.sent = host, dies_of, []

    def __call__(self, pid, sig):
        self.sent.append((pid, sig))
        if sig in self.dies_of:
            self.host.set_state(pid, "Z")


def test_release_stops_this_runs_holders_and_leaves_the_others(host):
    host.holder(40, "7:3", "run-a")
    host.holder(41, "7:4", "run-a")
    host.holder(42, "7:5", "run-b")
    host.lock("7:6", {"run_id": "run-a", "pid": 43})  # its holder is gone
    kill = Killer(host)
    done = _hold.release("run-a", None, None, str(host.locks), str(host.proc), kill=kill)
    assert sorted(kill.sent) == [(40, signal.SIGTERM), (41, signal.SIGTERM)]
    assert [h["pid"] for h in done["stopped"]] == [40, 41] and done["others"] == []
    assert [e["devnum"] for e in done["removed"]] == ["7:6"]
    # A holder removes its own lock file when it ends; these fakes do not, so stop() did.
    assert [p.name for p in host.locks.iterdir()] == ["hold-7-5.json"]


def test_release_leaves_another_run_of_the_same_run_id_alone(host):
    # Two results trees chose run id run-a at once on this host (two controllers, or two test sessions): one's release
    # after a failure must not end the other's holds.
    mine, theirs = "a" * 32, "b" * 32
    host.holder(40, "7:3", "run-a", token=mine)
    host.holder(41, "7:4", "run-a", token=theirs)
    kill = Killer(host)
    done = _hold.release("run-a", None, None, str(host.locks), str(host.proc), kill=kill, token=mine)
    assert kill.sent == [(40, signal.SIGTERM)] and [h["pid"] for h in done["stopped"]] == [40]
    assert _hold.alive(41, str(host.proc)) and (host.locks / "hold-7-4.json").exists()
    done = _hold.release("run-a", "7:4", None, str(host.locks), str(host.proc), kill=kill, token=mine)
    assert done["stopped"] == [] and [h["pid"] for h in done["others"]] == [41]
    # Its holder is proved to its own run only.
    assert host.problem(41, "7:4", "run-a", token=theirs) is None
    assert host.problem(41, "7:4", "run-a", token=mine) == (
        f"process 41 holds it for another run of the same run id run-a (run token id {_hold.token_id(theirs)}, not "
        f"{_hold.token_id(mine)}: results in "
        "another directory or on another controller)")
    hold = {"pid": 41, "run_id": "run-a", "token": mine, "devnum": "7:4", "start_time": 1000}
    assert _hold.verify(hold, "7:4", str(host.locks), str(host.proc)).startswith("process 41 holds it for another run")
    assert _hold.verify(dict(hold, token=theirs), "7:4", str(host.locks), str(host.proc)) is None


def test_release_of_one_device_and_pid(host):
    host.holder(40, "7:3", "run-a")
    host.holder(41, "7:4", "run-a")
    kill = Killer(host)
    done = _hold.release("run-a", "7:3", 39, str(host.locks), str(host.proc), kill=kill)
    assert kill.sent == [] and done["stopped"] == [] and [h["pid"] for h in done["others"]] == [40]
    done = _hold.release("run-a", "7:3", 40, str(host.locks), str(host.proc), kill=kill)
    assert kill.sent == [(40, signal.SIGTERM)] and [h["pid"] for h in done["stopped"]] == [40]
    assert _hold.alive(41, str(host.proc))


def test_release_in_check_mode_stops_nothing(host):
    host.holder(40, "7:3", "run-a")
    host.lock("7:4", {"run_id": "run-a", "pid": 43})
    kill = Killer(host)
    done = _hold.release("run-a", None, None, str(host.locks), str(host.proc), check_mode=True, kill=kill)
    assert kill.sent == [] and [h["pid"] for h in done["stopped"]] == [40] and len(done["removed"]) == 1
    assert len(list(host.locks.iterdir())) == 2


def test_stop_kills_a_holder_that_ignores_sigterm_and_fails_on_one_that_outlives_sigkill(host):
    host.holder(40, "7:3", "run-a")
    clock = iter(range(0, 10_000, 5))
    kill = Killer(host, dies_of=(signal.SIGKILL,))
    _hold.stop(40, "7:3", str(host.locks), str(host.proc), timeout=10, kill=kill, sleep=lambda s: None,
               clock=lambda: next(clock))
    assert kill.sent == [(40, signal.SIGTERM), (40, signal.SIGKILL)]
    assert not (host.locks / "hold-7-3.json").exists()
    host.holder(41, "7:4", "run-a")
    with pytest.raises(_hold.HoldError, match="holder process 41 of device 7:4 did not end after SIGTERM and SIGKILL"):
        _hold.stop(41, "7:4", str(host.locks), str(host.proc), timeout=10, kill=Killer(host, dies_of=()),
                   sleep=lambda s: None, clock=lambda: next(clock))
    assert (host.locks / "hold-7-4.json").exists()  # its holder still runs: its lock stays


def test_stop_leaves_a_lock_that_names_another_process(host):
    host.holder(40, "7:3", "run-a", lock=False)
    host.lock("7:3", {"run_id": "run-a", "pid": 44})
    _hold.stop(40, "7:3", str(host.locks), str(host.proc), kill=Killer(host))
    assert (host.locks / "hold-7-3.json").exists()


@pytest.mark.parametrize("make, message", [
    (lambda tmp_path: str(tmp_path / "missing"), "the holder could not hold it: No such file or directory"),
    (lambda tmp_path: str(tmp_path / "plain.img"), "is no longer block device 7:3"),
], ids=["missing", "not-a-block-device"])
def test_a_real_holder_that_cannot_hold_says_why_and_leaves_nothing(tmp_path, make, message):
    # The whole start: fork, setsid, exec of the holder program, its answer on the readiness pipe. A plain file
    # cannot be held (not a block device), so this runs without root and without a device.
    (tmp_path / "plain.img").write_text("")
    locks = tmp_path / "run"
    with pytest.raises(_hold.HoldError) as exc:
        _hold.start(make(tmp_path), "7:3", "run-a", str(locks), python=sys.executable, timeout=30)
    assert message in str(exc.value)
    assert list(locks.iterdir()) == []
    assert [h for h in _hold.holder_processes() if h["lock"].startswith(str(locks))] == []


def test_the_lock_directory_must_be_a_directory_of_ours(tmp_path):
    _hold.ensure_lock_dir(str(tmp_path / "run" / "fq"))
    assert stat.S_IMODE(os.stat(tmp_path / "run" / "fq").st_mode) == 0o700
    (tmp_path / "file").write_text("")
    with pytest.raises((_hold.HoldError, OSError)):
        _hold.ensure_lock_dir(str(tmp_path / "file"))
    (tmp_path / "link").symlink_to(tmp_path / "run" / "fq")
    with pytest.raises(_hold.HoldError, match="is not a directory"):
        _hold.ensure_lock_dir(str(tmp_path / "link"))
