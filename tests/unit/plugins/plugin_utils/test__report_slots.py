# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""At most N reports drawn at once on a controller: N flock'ed slot files in a private directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report_slots


@pytest.fixture(name="slot_dir")
def fixture_slot_dir(tmp_path):
    os.chmod(tmp_path, 0o700)
    return str(tmp_path / "report-slots")


@pytest.mark.parametrize("text, cores", [
    ("max 100000", None), ("200000 100000", 2.0), ("150000 100000", 1.5), ("", None), (None, None),
    ("x 100000", None), ("0 100000", None), ("100000", None),
])
def test_a_cgroup_cpu_max_is_read_as_cores(text, cores):
    assert _report_slots.cpu_max(text) == cores


@pytest.mark.parametrize("affinity, quotas, cores", [
    (8, [], 8), (8, [None, None], 8), (8, [1.5, None], 2), (8, [None, 4.0, 2.0], 2), (2, [16.0], 2), (1, [0.2], 1),
])
def test_usable_cores_are_the_affinity_capped_by_the_cgroup(affinity, quotas, cores):
    assert _report_slots.usable_cores(affinity, quotas) == cores


@pytest.mark.parametrize("value, count", [(None, 6), ("", 6), (0, 6), ("0", 6), (3, 3), ("12", 12), (" 2 ", 2),
                                          (1024, 1024)])
def test_the_slot_count(value, count):
    assert _report_slots.slot_count(value, cores=lambda: 6) == count


@pytest.mark.parametrize("value", [-1, "-1", 1025, "1.5", 1.5, True, "two", "٣", [2]])
def test_a_slot_count_that_is_no_whole_number_is_refused(value):
    with pytest.raises(ValueError, match="pts_report_concurrency"):
        _report_slots.slot_count(value, cores=lambda: 6)


def test_the_default_directory(monkeypatch):
    assert _report_slots.default_dir(0, {}) == "/run/fleetqual-pts/report-slots"
    assert _report_slots.default_dir(1000, {"XDG_RUNTIME_DIR": "/run/user/1000"}) == \
        "/run/user/1000/fleetqual-pts/report-slots"
    assert _report_slots.default_dir(1000, {"XDG_RUNTIME_DIR": "relative"}).endswith("fleetqual-pts-1000/report-slots")


def test_no_more_than_n_slots_are_taken_and_a_released_one_is_free_again(slot_dir):
    slots = _report_slots.Slots(2, slot_dir)
    first, second = slots.try_take(), slots.try_take()
    assert {first.number, second.number} == {0, 1}
    assert slots.try_take() is None
    assert oct(os.stat(slot_dir).st_mode & 0o777) == "0o700"
    first.release()
    first.release()  # twice is harmless
    again = slots.try_take()
    assert again.number == first.number
    again.release()
    second.release()


def test_a_slot_is_held_across_processes_and_freed_when_its_holder_dies(slot_dir):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report_slots as s; "
        f"h = s.Slots(1, {slot_dir!r}).take(); print(h.number, flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    try:
        assert holder.stdout.readline().strip() == "0"
        slots = _report_slots.Slots(1, slot_dir)
        assert slots.try_take() is None  # the other process holds it
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    held = slots.try_take()  # the kernel dropped the dead holder's lock: nothing to clean up
    assert held is not None
    held.release()


def test_a_waiter_is_told_once_and_takes_the_slot_when_it_is_freed(slot_dir):
    slots = _report_slots.Slots(1, slot_dir)
    busy = slots.try_take()
    told, sleeps = [], []
    now = [100.0]

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds
        if len(sleeps) == 3:
            busy.release()
    held = slots.take(on_wait=lambda: told.append(1), poll=0.5, clock=lambda: now[0], sleep=sleep)
    assert told == [1] and len(sleeps) == 3 and held.waited_s == pytest.approx(1.5)
    held.release()


def test_a_free_slot_is_taken_without_waiting(slot_dir):
    told = []
    with _report_slots.Slots(3, slot_dir).take(on_wait=lambda: told.append(1)) as held:
        assert held.waited_s == 0.0 and not told
    assert held.fd is None


def test_a_slot_directory_others_can_write_is_refused(slot_dir):
    os.mkdir(slot_dir, 0o700)
    os.chmod(slot_dir, 0o777)
    with pytest.raises(_report_slots.SlotError):
        _report_slots.Slots(1, slot_dir).try_take()


def test_a_slot_directory_that_is_a_link_is_refused(slot_dir, tmp_path):
    os.mkdir(tmp_path / "elsewhere", 0o700)
    os.symlink(tmp_path / "elsewhere", slot_dir)
    with pytest.raises(_report_slots.SlotError):
        _report_slots.Slots(1, slot_dir).try_take()


def test_a_slot_file_that_is_a_link_is_never_followed(slot_dir, tmp_path):
    os.mkdir(slot_dir, 0o700)
    target = tmp_path / "target"
    target.write_text("keep")
    os.symlink(target, os.path.join(slot_dir, "slot-0"))
    with pytest.raises(OSError):
        _report_slots.Slots(1, slot_dir).try_take()
    assert target.read_text() == "keep"


def test_a_slot_file_that_is_no_regular_file_is_refused(slot_dir):
    os.mkdir(slot_dir, 0o700)
    os.mkfifo(os.path.join(slot_dir, "slot-0"), 0o600)
    with pytest.raises(_report_slots.SlotError, match="regular file"):
        _report_slots.Slots(1, slot_dir).try_take()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file away")
def test_a_slot_file_of_another_user_is_refused(slot_dir):
    os.mkdir(slot_dir, 0o700)
    path = os.path.join(slot_dir, "slot-0")
    with open(path, "w", encoding="utf-8"):
        pass
    os.chown(path, 65534, 65534)
    with pytest.raises(_report_slots.SlotError, match="regular file of uid"):
        _report_slots.Slots(1, slot_dir).try_take()


def test_no_slots_is_a_mistake(slot_dir):
    with pytest.raises(ValueError):
        _report_slots.Slots(0, slot_dir)


def test_a_slot_taken_before_a_fork_is_held_by_the_child_too(slot_dir):
    slots = _report_slots.Slots(1, slot_dir)
    held = slots.try_take()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        time.sleep(1.0)
        os._exit(0)
    try:
        held.release()  # the parent's copy closed; the child's still holds the lock
        assert slots.try_take() is None
    finally:
        os.waitpid(pid, 0)
    again = slots.try_take()
    assert again is not None
    again.release()
