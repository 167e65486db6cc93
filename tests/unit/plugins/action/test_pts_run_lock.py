# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One host's part of a run locked for this ansible-playbook (fleetqual.pts.pts_run_lock): a lock per host, released
by its own playbook only, refused while another live run holds it or where two hosts' names make one results directory
or the run directory is a symbolic link, judged and not taken in check mode; the other live playbooks of the run named;
an earlier attempt's host failure moved aside; without a run id nothing locked, without a host the whole run."""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_lock
from ansible_collections.fleetqual.pts.tests.unit.plugins.action._run_actions import fail_message, lock, run


def test_each_host_of_the_run_takes_its_own_lock_for_the_playbook(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    result = lock()
    record = _run_lock.read(run_dir, host="h1")
    assert record["pid"] == os.getppid() and record["run_id"] == "it-1"
    assert os.path.exists(os.path.join(run_dir, ".pts-host-h1.lock"))
    assert not os.path.exists(_run_lock.lock_path(run_dir))  # no lock of the whole run
    assert lock("h2")["pts_run_token"] == result["pts_run_token"]
    assert sorted(_run_lock.host_locks(run_dir)) == ["h1", "h2"]
    # The run's token is made once and every host's lock returns it.
    assert lock()["pts_run_token"] == result["pts_run_token"] and len(result["pts_run_token"]) == 32


def test_state_absent_releases_this_playbooks_lock_of_the_host_only(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    lock("h1")
    lock("h2")
    assert run({"run_id": "it-1", "host": "h1", "state": "absent"})["changed"] is True
    assert sorted(_run_lock.host_locks(run_dir)) == ["h2"]
    assert run({"run_id": "it-1", "host": "h1", "state": "absent"})["changed"] is False  # nothing left to release
    assert os.path.exists(os.path.join(run_dir, _run_lock.TOKEN_FILE))  # the run keeps its token


def test_state_absent_leaves_another_processs_lock_and_does_nothing_under_check(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    _run_lock.acquire(run_dir, "it-1", os.getpid(), host="h1")  # this test process: another, live ansible-playbook
    lock("h2")
    assert run({"run_id": "it-1", "host": "h1", "state": "absent"})["changed"] is False
    assert run({"run_id": "it-1", "host": "h2", "state": "absent"}, check=True)["changed"] is False
    assert sorted(_run_lock.host_locks(run_dir)) == ["h1", "h2"]


def test_two_hosts_whose_names_make_one_results_directory_are_refused_before_anything_is_written(settings, tmp_path):
    hosts = {"ansible_play_hosts_all": ["2001:db8::12:1", "2001:db8:12::1", "stor-1"]}
    message = fail_message({"run_id": "it-1", "host": "2001:db8:12::1"}, hosts)
    assert message == (f"pts_run_lock: hosts 2001:db8:12::1, 2001:db8::12:1 would all keep their results in "
                       f"{tmp_path}/results/it-1/2001_db8_12_1: give them inventory names that differ in letters, "
                       "digits, '.', '_' or '-' (the address can stay in ansible_host); nothing was written")
    assert not os.path.exists(tmp_path / "results" / "it-1")
    assert len(lock("stor-1", hosts)["pts_run_token"]) == 32


def test_a_second_live_run_of_a_host_is_refused_naming_the_first(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    _run_lock.acquire(run_dir, "it-1", os.getpid(), host="h1")  # this test process stands for the first, live, run
    for check in (False, True):
        message = fail_message({"run_id": "it-1", "host": "h1"}, check=check)
        assert message.startswith(f"pts_run_lock: host h1 of run it-1 is in use by ansible-playbook PID {os.getpid()} on ")
        assert f"delete {run_dir}/.pts-host-h1.lock" in message
    assert _run_lock.read(run_dir, host="h1")["pid"] == os.getpid()
    # A job slice with other hosts shares the run id and its results tree.
    assert len(lock("h2")["pts_run_token"]) == 32


def test_a_run_directory_planted_as_a_symbolic_link_is_refused_before_anything_is_written(settings, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "it-1").symlink_to(elsewhere)
    for check in (False, True):
        message = fail_message({"run_id": "it-1", "host": "h1"}, check=check)
        assert message.startswith(f"pts_run_lock: the run directory of run it-1, {tmp_path / 'results' / 'it-1'}, is a "
                                  f"symbolic link (to {str(elsewhere)!r}): refused")
        assert message.endswith("Nothing was written")
    assert os.listdir(elsewhere) == []


def test_the_other_live_playbooks_of_the_run_are_named_so_their_drives_are_not_taken_over(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    assert lock()["pts_run_concurrent"] == []  # this ansible-playbook's own lock is not another's
    other = _run_lock.acquire(run_dir, "it-1", os.getpid(), host="h2")["owner"]  # a live job slice
    found = lock()["pts_run_concurrent"]
    assert found == [_run_lock.describe(other)] and found[0].startswith(f"ansible-playbook PID {os.getpid()} on ")


def test_check_mode_judges_the_lock_and_takes_none(settings, tmp_path):
    result = lock(check=True)
    assert result["pts_run_token"] is None and result["changed"] is False
    assert not os.path.exists(tmp_path / "results")


def test_an_earlier_attempts_host_failure_is_moved_aside_when_the_host_starts_again(settings, tmp_path):
    host_dir = tmp_path / "results" / "it-1" / "h1"
    host_dir.mkdir(parents=True)
    (host_dir / "host-failure.json").write_text('{"msg": "the guard refused every drive"}')
    lock(check=True)  # --check changes nothing
    assert sorted(os.listdir(host_dir)) == ["host-failure.json"]
    lock()
    assert sorted(os.listdir(host_dir)) == ["host-failure.json.earlier"]
    assert json.loads((host_dir / "host-failure.json.earlier").read_text())["msg"] == "the guard refused every drive"


def test_without_a_run_id_argument_the_lock_is_the_environments_run(settings, tmp_path, monkeypatch):
    monkeypatch.setenv("PTS_RUN_ID", "env-1")
    assert run({"host": "h1"})["pts_run_token"]
    assert _run_lock.read(str(tmp_path / "results" / "env-1"), host="h1")["run_id"] == "env-1"


def test_without_a_run_id_there_is_nothing_to_lock(settings, tmp_path):
    assert run({"host": "h1"}) == {"changed": False, "pts_run_token": None, "pts_run_concurrent": []}
    assert not os.path.exists(tmp_path / "results")


def test_without_a_host_the_whole_run_is_locked(settings, tmp_path):
    run_dir = str(tmp_path / "results" / "it-1")
    result = run({"run_id": "it-1"})
    assert _run_lock.read(run_dir)["pid"] == os.getppid() and len(result["pts_run_token"]) == 32
    assert os.path.exists(_run_lock.lock_path(run_dir)) and _run_lock.host_locks(run_dir) == {}
