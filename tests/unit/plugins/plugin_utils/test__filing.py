# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action plugins of the host-side modules file their own results: the module's answer is a stand-in, the
filing, the slimming, the --check lines and the lost record are real."""

from __future__ import annotations

import importlib
import os
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _filing, _results

DRIVE = {"key": "d1", "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": 268435456, "vendor": "Linux",
         "model": "loop device", "serial": "SER1", "wwn": None, "firmware": "1.0", "interface": "loop",
         "purge_methods": ["discard"], "device_write_cache": None}
CONTEXT = {"run_id": "r1", "host": "h1", "drive": "d1", "test": "iops", "settings": {}}


@pytest.fixture(autouse=True)
def display(monkeypatch):
    fake = MagicMock()
    monkeypatch.setattr(_filing, "display", fake)
    return fake


def said(display) -> list[str]:
    return [c.args[0] for c in display.display.call_args_list]


def run(answer, args: dict | None = None, task_vars: dict | None = None, check: bool = False,
        action: str = "fleetqual.pts.pts_drive_info", run_dir: str | None = None):
    """Run FilingAction as the task ``action`` whose module answers ``answer`` (a dict, or an exception raised), the
    task filing under ``run_dir`` (its argument) when given."""
    task = MagicMock(check_mode=check, async_val=0, resolved_action=action, action=action.rsplit(".", 1)[-1])
    task.args = dict(args or {}, **({"run_dir": run_dir} if run_dir is not None else {}))
    calls = []

    def execute_module(module_name=None, module_args=None, task_vars=None):
        calls.append((module_name, module_args))
        if isinstance(answer, Exception):
            raise answer
        return dict(answer)

    plugin = _filing.FilingAction(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    plugin._execute_module = execute_module
    return plugin.run(task_vars=task_vars if task_vars is not None else {}), calls


def files_under(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, dummy, names in os.walk(root) for f in names)


@pytest.mark.parametrize("action, answer, args, filed", [
    ("fleetqual.pts.pts_drive_info", {"changed": False, "pts_drives": [DRIVE], "pts_host": {"kernel": "6.1.0"}},
     {"devices": [{"path": "/dev/loop9"}]}, ["h1/d1/drive.json"]),
    ("fleetqual.pts.pts_guard", {"changed": False, "pts_guard": [{"key": "d1", "path": "/dev/loop9", "passed": True}]},
     {}, ["h1/d1/guard.json"]),
    ("fleetqual.pts.pts_purge", {"changed": True, "pts_purge": {"method": "discard", "elapsed_s": 0.2},
                                 "pts_context": CONTEXT}, {"context": CONTEXT}, ["h1/d1/iops/purge.json"]),
    ("fleetqual.pts.pts_write_cache", {"changed": True, "pts_write_cache": {"before": True, "after": False},
                                       "pts_context": dict(CONTEXT, phase="set")}, {}, ["h1/d1/write-cache.json"]),
    ("fleetqual.pts.pts_drive_health", {"changed": False, "pts_health": {"temperature_c": 40},
                                        "pts_context": {"host": "h1", "drive": "d1"}}, {}, ["h1/d1/health-after.json"]),
    ("fleetqual.pts.pts_md_array", {"changed": True, "pts_md_array": {"device": "/dev/md127"},
                                    "pts_context": {"host": "h1", "drive": "md0", "members": []}}, {},
     ["h1/md0/raid.json"]),
])
def test_the_module_of_the_actions_name_runs_and_its_payload_is_filed(tmp_path, action, answer, args, filed):
    run_dir = str(tmp_path / "r1")
    result, calls = run(answer, args, {"inventory_hostname": "h1"}, run_dir=run_dir, action=action)
    assert calls == [(action, args)]
    assert files_under(run_dir) == filed
    assert not result.get("failed") and result["changed"] == answer["changed"]


def test_a_failed_purge_is_filed_as_the_tests_failure_and_stays_failed(tmp_path):
    run_dir = str(tmp_path / "r1")
    answer = {"failed": True, "msg": "blkdiscard failed (rc 1): Operation not supported", "rc": 1,
              "pts_context": dict(CONTEXT, phase="purge")}
    result, dummy = run(answer, {"context": CONTEXT}, {}, run_dir=run_dir, action="fleetqual.pts.pts_purge")
    assert result["failed"] is True and result["msg"] == answer["msg"]
    failure = _results.read_json(os.path.join(run_dir, "h1", "d1", "iops", "failure.json"))
    assert (failure["phase"], failure["msg"], failure["rc"]) == ("purge", answer["msg"], 1)


def test_the_drives_host_in_the_context_wins_over_the_workers_name(tmp_path):
    run_dir = str(tmp_path / "r1")
    run({"pts_health": {"temperature_c": 40}, "pts_context": {"host": "h1", "drive": "d1"}}, {},
        {"inventory_hostname": "h1/d1"}, run_dir=run_dir)
    assert files_under(run_dir) == ["h1/d1/health-after.json"]


@pytest.mark.parametrize("task_vars, data, host", [
    ({"inventory_hostname": "h1/d1"}, {"pts_context": {"host": "h1"}}, "h1"),
    ({"inventory_hostname": "h2"}, {}, "h2"),
    ({}, {"pts_context": None}, "localhost"),
])
def test_the_host_a_result_belongs_to(task_vars, data, host):
    assert _filing.host_of(task_vars, data) == host


@pytest.mark.parametrize("args, run_dir", [
    ({"run_dir": "/srv/results/r1"}, "/srv/results/r1"), ({"run_dir": ""}, None), ({"run_dir": None}, None), ({}, None),
    (None, None)])
def test_the_run_directory_comes_from_the_tasks_argument(args, run_dir):
    assert _filing.run_dir_of(args) == run_dir


def test_a_run_fact_alone_files_nothing(tmp_path):
    # Filing is decided by the task's argument, never by a fact the task happens to see.
    run_dir = str(tmp_path / "r1")
    result, calls = run({"changed": False, "pts_drives": [DRIVE], "pts_host": {}}, {"devices": []},
                        {"pts_run_dir": run_dir, "inventory_hostname": "h1"})
    assert result["pts_drives"] == [DRIVE] and not os.path.exists(run_dir)


def test_the_run_directory_never_reaches_the_host(tmp_path):
    dummy, calls = run({"changed": False}, {"devices": []}, {}, run_dir=str(tmp_path / "r1"))
    assert calls == [("fleetqual.pts.pts_drive_info", {"devices": []})]


def test_outside_a_run_nothing_is_filed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, dummy = run({"pts_drives": [DRIVE], "pts_host": {}}, {}, {"inventory_hostname": "h1"})
    assert result["pts_drives"] == [DRIVE] and os.listdir(tmp_path) == []


def test_the_task_result_is_slim_once_the_payload_is_on_disk(tmp_path):
    run_dir = str(tmp_path / "r1")
    fio = {"jobs": [{"name": "a"}, {"name": "b"}], "elapsed_s": 2.5, "job_file": "/x/wipc.fio", "job_text": "[w]\n"}
    answer = {"changed": True, "pts_fio": fio, "pts_fio_raw": "{...}" * 10_000, "stdout": "x" * 100_000,
              "stdout_lines": ["x"], "stderr_lines": ["y"], "job_text": "[w]\n", "stderr": "e" * 3000 + "the end",
              "pts_context": dict(CONTEXT, phase="wipc")}
    result, dummy = run(answer, {}, {}, run_dir=run_dir)
    for key in ("pts_fio_raw", "stdout", "stdout_lines", "stderr_lines", "job_text"):
        assert key not in result, key
    assert result["pts_fio"] == {"elapsed_s": 2.5, "sections": 2, "job_file": "/x/wipc.fio"}
    assert len(result["stderr"]) == 2000 and result["stderr"].endswith("the end")
    # On disk, all of it.
    assert _results.read_json(os.path.join(run_dir, "h1", "d1", "iops", "wipc.json"))["fio"]["jobs"] == fio["jobs"]
    with open(os.path.join(run_dir, "h1", "d1", "iops", "wipc.raw.json"), encoding="utf-8") as handle:
        assert handle.read() == answer["pts_fio_raw"]


def test_a_result_that_cannot_be_filed_fails_the_step_naming_where(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    result, dummy = run({"changed": False, "msg": "identified 1 drive", "pts_drives": [DRIVE], "pts_host": {}}, {},
                        {"inventory_hostname": "h1"}, run_dir=str(blocked))
    assert result["failed"] is True
    assert result["msg"].startswith(f"identified 1 drive could not be recorded under {blocked}: ")
    assert f"{blocked}: is a regular file, not a directory" in result["msg"]


def test_a_result_without_a_payload_is_returned_as_it_came(tmp_path):
    run_dir = str(tmp_path / "r1")
    result, dummy = run({"changed": False, "msg": "nothing to do"}, {}, {}, run_dir=run_dir)
    assert result["msg"] == "nothing to do" and not result.get("failed") and not os.path.exists(run_dir)


def test_check_says_each_drive_and_the_guard_and_writes_nothing(tmp_path, display):
    run_dir = str(tmp_path / "r1")
    odd = dict(DRIVE, key="d2", model="HDD\x1b[2J 8T")
    run({"pts_drives": [DRIVE, odd], "pts_host": {}}, {}, {"inventory_hostname": "h1"}, run_dir=run_dir,
        check=True)
    run({"pts_guard": [{"key": "d1", "passed": False, "refusals": ["mounted at /srv"]}]}, {},
        {"inventory_hostname": "h1"}, run_dir=run_dir, check=True, action="fleetqual.pts.pts_guard")
    assert not os.path.exists(run_dir)
    assert said(display) == [
        "PTS check h1 d1: /dev/loop9 Linux loop device, serial SER1, WWN None, firmware 1.0, 268,435,456 bytes, loop; "
        "purge methods discard (auto would use discard); write cache not applicable",
        "PTS check h1 d2: /dev/loop9 Linux HDD 8T, serial SER1, WWN None, firmware 1.0, 268,435,456 bytes, loop; "
        "purge methods discard (auto would use discard); write cache not applicable",
        "PTS check h1 d1: the guard REFUSES: mounted at /srv",
    ]


# --- a lost connection ------------------------------------------------------------------------------------------------

LOST = AnsibleConnectionFailure("Failed to connect to the host via ssh: timed out")


def test_a_lost_host_is_recorded_for_the_drive_and_fails_the_step(tmp_path):
    run_dir = str(tmp_path / "r1")
    result, dummy = run(LOST, {"context": CONTEXT}, {"inventory_hostname": "h1/d1"}, run_dir=run_dir,
                        action="fleetqual.pts.pts_purge")
    assert result["failed"] is True and result["pts_lost"] is True
    assert result["msg"] == "lost the connection to h1: Failed to connect to the host via ssh: timed out"
    assert files_under(run_dir) == ["h1/d1/lost.json"]  # not under the worker's own name "h1_d1"
    lost = _results.read_json(os.path.join(run_dir, "h1", "d1", "lost.json"))
    assert lost["msg"] == result["msg"] and lost["recorded_at"].endswith("+00:00")


def test_under_check_a_lost_host_fails_and_writes_nothing(tmp_path):
    run_dir = str(tmp_path / "r1")
    result, dummy = run(LOST, {"context": CONTEXT}, {}, run_dir=run_dir, check=True)
    assert result["failed"] is True and result["pts_lost"] is True and not os.path.exists(run_dir)


@pytest.mark.parametrize("args, run_dir", [
    ({"context": {"host": "h1"}}, "/unused"),  # no drive: the host is ansible-core's to report
    ({"context": CONTEXT}, None),  # outside a run
    ({"context": "not a dict"}, "/unused"),
])
def test_a_lost_host_without_a_drive_in_a_run_is_ansible_cores_unreachable(args, run_dir):
    with pytest.raises(AnsibleConnectionFailure):
        run(LOST, args, {}, run_dir=run_dir)


@pytest.mark.parametrize("drive, path", [("d1", "h1/d1/lost.json"), (None, "h1/lost.json")])
def test_the_lost_record_goes_under_the_drive_or_its_host(tmp_path, drive, path):
    _filing.record_lost(str(tmp_path), "h1", drive, "gone")
    assert files_under(tmp_path) == [path]


def test_a_lost_record_that_cannot_be_written_is_a_warning(tmp_path, display):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    _filing.record_lost(str(blocked), "h1", "d1", "gone")
    (call,) = display.warning.call_args_list
    assert call.args[0].startswith("fleetqual.pts: could not record that h1 was lost: ")


@pytest.mark.parametrize("name", ["pts_drive_info", "pts_guard", "pts_purge", "pts_write_cache", "pts_drive_health",
                                  "pts_md_array"])
def test_the_host_side_modules_actions_are_filing_actions(name):
    module = importlib.import_module(f"ansible_collections.fleetqual.pts.plugins.action.{name}")
    assert issubclass(module.ActionModule, _filing.FilingAction)
    assert "run" not in vars(module.ActionModule)  # thin: the filing is FilingAction's
