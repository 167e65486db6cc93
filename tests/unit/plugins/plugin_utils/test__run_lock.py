# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_lock

HOST = "ctl1"
COMMAND = "/venv/bin/python3 /venv/bin/ansible-playbook playbooks/pts.yml -i inv.yml -e ansible_become_password=hunter2"


class FakeProc:
    """A /proc with the processes a test says exist: PID -> (start time, command line)."""

    def __init__(self, root, boot="boot-a"):
        self.root = str(root)
        os.makedirs(os.path.join(self.root, "sys", "kernel", "random"))
        self.boot(boot)

    def boot(self, boot_id):
        with open(os.path.join(self.root, "sys", "kernel", "random", "boot_id"), "w", encoding="ascii") as handle:
            handle.write(boot_id + "\n")

    def start(self, pid, start_time, command=COMMAND, comm="ansible-playbook"):
        path = os.path.join(self.root, str(pid))
        os.makedirs(path, exist_ok=True)
        # Fields 3-21 before the start time (22); the command name may hold spaces and parentheses.
        rest = ["S"] + [str(n) for n in range(4, 22)] + [str(start_time)] + ["0"] * 30
        with open(os.path.join(path, "stat"), "w", encoding="ascii") as handle:
            handle.write(f"{pid} ({comm}) " + " ".join(rest) + "\n")
        with open(os.path.join(path, "cmdline"), "w", encoding="ascii") as handle:
            handle.write(command.replace(" ", "\0") + "\0")

    def stop(self, pid):
        for name in ("stat", "cmdline"):
            os.unlink(os.path.join(self.root, str(pid), name))


@pytest.fixture
def proc(tmp_path):
    return FakeProc(tmp_path / "proc")


def _acquire(run_dir, pid, proc, **kwargs):
    return _run_lock.acquire(str(run_dir), "it-1", pid, proc_root=proc.root, hostname=HOST, **kwargs)


@pytest.mark.parametrize("comm, expected", [("ansible-playbook", 777), ("a b) (c", 777), ("x)", 777)])
def test_the_start_time_is_field_22_whatever_the_command_name(proc, comm, expected):
    proc.start(100, expected, comm=comm)
    assert _run_lock.process_start(100, proc.root) == expected
    assert _run_lock.process_start(101, proc.root) is None


def test_the_first_run_takes_the_lock_and_its_other_hosts_find_it_their_own(tmp_path, proc):
    proc.start(100, 5000)
    run_dir = tmp_path / "results" / "it-1"
    taken = _acquire(run_dir, 100, proc)
    assert taken["status"] == "acquired" and taken["message"] is None
    record = json.loads((run_dir / _run_lock.LOCK_FILE).read_text())
    assert {k: record[k] for k in ("pid", "start_time", "boot_id", "controller", "run_id")} == {
        "pid": 100, "start_time": 5000, "boot_id": "boot-a", "controller": HOST, "run_id": "it-1"}
    assert record["command"] == "ansible-playbook playbooks/pts.yml"  # never the other arguments: -e may hold secrets
    assert _acquire(run_dir, 100, proc)["status"] == "held"


def test_a_second_live_run_is_refused_naming_the_first(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = tmp_path / "it-1"
    _acquire(run_dir, 100, proc)
    before = (run_dir / _run_lock.LOCK_FILE).read_text()
    for check_only in (False, True):
        with pytest.raises(_run_lock.RunLocked) as caught:
            _acquire(run_dir, 200, proc, check_only=check_only)
        message = str(caught.value)
        assert "run it-1 is in use by ansible-playbook PID 100 on ctl1 (ansible-playbook playbooks/pts.yml)" in message
        assert "PID 100 is still running" in message and "Nothing was written" in message
    assert (run_dir / _run_lock.LOCK_FILE).read_text() == before


@pytest.mark.parametrize("change, why", [
    (lambda proc: proc.stop(100), "PID 100 is no longer running"),
    (lambda proc: proc.start(100, 9999), "PID 100 is now another process"),
    (lambda proc: proc.boot("boot-b"), "PID 100 ran before this controller last booted"),
])
def test_a_stale_lock_is_taken_over_saying_so(tmp_path, proc, change, why):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = tmp_path / "it-1"
    _acquire(run_dir, 100, proc)
    change(proc)
    checked = _acquire(run_dir, 200, proc, check_only=True)
    assert checked["status"] == "free" and why in checked["message"]
    assert json.loads((run_dir / _run_lock.LOCK_FILE).read_text())["pid"] == 100  # check mode wrote nothing
    taken = _acquire(run_dir, 200, proc)
    assert taken["status"] == "took_over" and taken["previous"]["pid"] == 100
    assert taken["message"].startswith("took over the lock of run it-1 from ansible-playbook PID 100") and why in taken["message"]
    assert json.loads((run_dir / _run_lock.LOCK_FILE).read_text())["pid"] == 200


def test_the_run_token_is_made_once_per_run_directory_and_kept_by_every_resume(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = tmp_path / "it-1"
    assert _acquire(run_dir, 100, proc, check_only=True)["token"] is None  # --check makes no directory and no token
    token = _acquire(run_dir, 100, proc)["token"]
    assert len(token) == 32 and int(token, 16) >= 0
    assert (run_dir / _run_lock.TOKEN_FILE).read_text() == token + "\n"
    # The token and the lock stay private to the controller's user, unlike the results a lab serves.
    assert {(run_dir / name).stat().st_mode & 0o777 for name in (_run_lock.TOKEN_FILE, _run_lock.LOCK_FILE)} == {0o600}
    assert _acquire(run_dir, 100, proc)["token"] == token  # another host of the same run
    proc.stop(100)
    assert _acquire(run_dir, 200, proc, check_only=True)["token"] == token
    assert _acquire(run_dir, 200, proc)["token"] == token  # a resume takes the lock over and keeps the token
    # Another results directory with the same run id is another run: another token.
    assert _acquire(tmp_path / "elsewhere" / "it-1", 200, proc)["token"] != token
    (run_dir / _run_lock.TOKEN_FILE).write_text("edited\n")
    with pytest.raises(_run_lock.RunLocked, match="is not a run token this collection wrote"):
        _acquire(run_dir, 200, proc)


def test_a_lock_of_another_controller_is_honoured(tmp_path, proc):
    proc.start(100, 5000)
    run_dir = tmp_path / "it-1"
    _run_lock.acquire(str(run_dir), "it-1", 100, proc_root=proc.root, hostname="ctl2")
    with pytest.raises(_run_lock.RunLocked, match="PID 100 on ctl2 .* taken on controller ctl2, whose processes cannot be"):
        _acquire(run_dir, 100, proc)


def test_an_unreadable_lock_is_refused_not_guessed(tmp_path, proc):
    proc.start(100, 5000)
    run_dir = tmp_path / "it-1"
    run_dir.mkdir()
    (run_dir / _run_lock.LOCK_FILE).write_text("not json")
    with pytest.raises(_run_lock.RunLocked, match="is not a run lock this collection wrote; if no other run"):
        _acquire(run_dir, 100, proc)


def test_check_mode_creates_nothing(tmp_path, proc):
    proc.start(100, 5000)
    assert _acquire(tmp_path / "it-1", 100, proc, check_only=True)["status"] == "free"
    assert not (tmp_path / "it-1").exists()


@pytest.mark.parametrize("check_only", [False, True])
@pytest.mark.parametrize("target", ["elsewhere", "missing"])
def test_a_run_directory_planted_as_a_symbolic_link_is_refused_and_nothing_is_written(tmp_path, proc, check_only, target):
    proc.start(100, 5000)
    elsewhere = tmp_path / target
    if target == "elsewhere":
        elsewhere.mkdir()
    (tmp_path / "results").mkdir()
    run_dir = tmp_path / "results" / "it-1"
    run_dir.symlink_to(elsewhere)
    with pytest.raises(_run_lock.RunLocked) as caught:
        _acquire(run_dir, 100, proc, check_only=check_only)
    assert str(caught.value) == (
        f"the run directory of run it-1, {run_dir}, is a symbolic link (to {str(elsewhere)!r}): refused, a run writes "
        "its lock and results only into a directory of its own under the results root. Remove the link (or move the "
        "results it points to there), or give this run another pts_run_id. Nothing was written")
    assert run_dir.is_symlink()
    assert (sorted(os.listdir(elsewhere)) if elsewhere.exists() else None) == ([] if target == "elsewhere" else None)
    assert _run_lock.release(str(run_dir), 100, proc.root, HOST) is False


def test_a_new_owner_removes_the_temporary_files_of_killed_writes_and_a_host_of_the_owner_does_not(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = tmp_path / "it-1"
    test_dir = run_dir / "h1" / "victim" / "iops"
    test_dir.mkdir(parents=True)
    for name in (".purge.json.k1ll3d_x", "purge.json"):
        (test_dir / name).write_text("")
    (run_dir / ".fleet.json.abcd1234").write_text("")
    taken = _acquire(run_dir, 100, proc)
    assert sorted(taken["leftovers"]) == [str(run_dir / ".fleet.json.abcd1234"), str(test_dir / ".purge.json.k1ll3d_x")]
    assert os.listdir(test_dir) == ["purge.json"]
    # Another host of the same playbook finds the lock its own: its hosts may be writing, nothing is removed.
    (test_dir / ".round-01.json.abcd1234").write_text("")
    assert "leftovers" not in _acquire(run_dir, 100, proc)
    assert ".round-01.json.abcd1234" in os.listdir(test_dir)
    proc.stop(100)
    assert _acquire(run_dir, 200, proc)["leftovers"] == [str(test_dir / ".round-01.json.abcd1234")]


def test_a_run_directory_that_is_a_file_is_refused(tmp_path, proc):
    proc.start(100, 5000)
    (tmp_path / "it-1").write_text("")
    with pytest.raises(_run_lock.RunLocked, match="is not a directory: refused"):
        _acquire(tmp_path / "it-1", 100, proc)


def test_only_the_owner_releases(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = str(tmp_path / "it-1")
    _acquire(run_dir, 100, proc)
    assert _run_lock.release(run_dir, 200, proc.root, HOST) is False
    proc.start(100, 5001)  # same PID, another process
    assert _run_lock.release(run_dir, 100, proc.root, HOST) is False
    proc.start(100, 5000)
    assert _run_lock.release(run_dir, 100, proc.root, HOST) is True
    assert not os.path.exists(_run_lock.lock_path(run_dir))
    assert _run_lock.release(run_dir, 100, proc.root, HOST) is False
    assert _run_lock.release(str(tmp_path / "never"), 100, proc.root, HOST) is False


def test_the_lock_of_this_very_process_on_the_real_proc(tmp_path):
    run_dir = str(tmp_path / "it-1")
    taken = _run_lock.acquire(run_dir, "it-1", os.getpid())
    assert taken["status"] == "acquired" and taken["owner"]["start_time"] == _run_lock.process_start(os.getpid())
    assert _run_lock.release(run_dir) is True


def _contend(run_dir, start, results, done):
    start.wait()
    try:
        outcome = _run_lock.acquire(run_dir, "it-1", os.getpid())["status"]
    except _run_lock.RunLocked:
        outcome = "refused"
    results.put(outcome)
    done.wait()  # stay alive, so the winner's lock stays live while the others judge it


def test_of_runs_starting_together_exactly_one_takes_the_lock(tmp_path):
    import multiprocessing  # pylint: disable=import-outside-toplevel

    context = multiprocessing.get_context("fork")
    start, done, results = context.Event(), context.Event(), context.Queue()
    run_dir = str(tmp_path / "it-1")
    workers = [context.Process(target=_contend, args=(run_dir, start, results, done)) for dummy in range(6)]
    for worker in workers:
        worker.start()
    start.set()
    outcomes = sorted(results.get(timeout=30) for dummy in workers)
    done.set()
    for worker in workers:
        worker.join(timeout=30)
    assert outcomes == ["acquired"] + ["refused"] * 5


# --- one lock per host: job slices share a run id, never a host -------------------------------------------------------

@pytest.mark.parametrize("host, name", [("h1", ".pts-host-h1.lock"), ("rack 12/h1", ".pts-host-rack_12_h1.lock"),
                                        (None, _run_lock.LOCK_FILE)])
def test_the_lock_file_of_a_host_is_named_after_its_results_directory(host, name):
    assert _run_lock.lock_path("/r/it-1", host) == os.path.join("/r/it-1", name)


def test_two_slices_lock_their_own_hosts_of_one_run(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = tmp_path / "it-1"
    assert _acquire(run_dir, 100, proc, host="h1")["status"] == "acquired"
    assert _acquire(run_dir, 200, proc, host="h2")["status"] == "acquired"
    with pytest.raises(_run_lock.RunLocked) as refused:
        _acquire(run_dir, 200, proc, host="h1")
    message = str(refused.value)
    assert message.startswith("host h1 of run it-1 is in use by ansible-playbook PID 100 on ctl1")
    assert f"delete {run_dir}/.pts-host-h1.lock. Nothing was written" in message
    locks = _run_lock.host_locks(str(run_dir))
    assert {host: record["pid"] for host, record in locks.items()} == {"h1": 100, "h2": 200}
    # Both hosts carry the one run token.
    assert _acquire(run_dir, 100, proc, host="h1")["token"] == _acquire(run_dir, 200, proc, host="h2")["token"]


def test_a_stale_host_lock_is_taken_over_naming_the_host(tmp_path, proc):
    proc.start(100, 5000)
    run_dir = tmp_path / "it-1"
    _acquire(run_dir, 100, proc, host="h1")
    proc.stop(100)
    proc.start(200, 6000)
    taken = _acquire(run_dir, 200, proc, host="h1")
    assert taken["status"] == "took_over" and taken["message"].startswith(
        "took over the lock of host h1 of run it-1 from ansible-playbook PID 100 on ctl1")


def test_host_locks_lists_only_readable_host_locks(tmp_path, proc):
    proc.start(100, 5000)
    run_dir = tmp_path / "it-1"
    _acquire(run_dir, 100, proc, host="h1")
    _acquire(run_dir, 100, proc)  # the whole run's: not a host's
    (run_dir / ".pts-host-broken.lock").write_text("{not json")
    (run_dir / ".pts-host-list.lock").write_text("[1]")
    assert sorted(_run_lock.host_locks(str(run_dir))) == ["h1"]
    assert _run_lock.host_locks(str(tmp_path / "never")) == {}


def test_only_the_owner_releases_its_hosts_lock(tmp_path, proc):
    proc.start(100, 5000)
    proc.start(200, 6000)
    run_dir = str(tmp_path / "it-1")
    _acquire(run_dir, 100, proc, host="h1")
    _acquire(run_dir, 200, proc, host="h2")
    assert _run_lock.release(run_dir, 100, proc.root, HOST, host="h2") is False
    assert _run_lock.release(run_dir, 100, proc.root, HOST) is False  # no lock of the whole run
    assert _run_lock.release(run_dir, 100, proc.root, HOST, host="h1") is True
    assert sorted(_run_lock.host_locks(run_dir)) == ["h2"]
