# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The round action's health reads, as ansible-core's until loop drives it: one probe per loop (a module run), then
one shell command after every round (the reading after a round is the next one's before); nothing at all for a drive
whose identity says it has none.
fio, the host and the module are stand-ins; the state, the parsing and the round's record are real."""

from __future__ import annotations

import json
import os
from unittest.mock import MagicMock

import pytest

from ansible_collections.fleetqual.pts.plugins.action import pts_round
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
with open(os.path.join(FIXTURES, "fio-3.33-wsat-round.json"), encoding="utf-8") as _handle:
    WSAT = _fio.parse(_handle.read())
with open(os.path.join(FIXTURES, "health-nvme-cli-2.3-smart-log-throttling.json"), encoding="utf-8") as _handle:
    SMART_LOG = json.load(_handle)
WRITTEN = WSAT["jobs"][0]["write"]["io_bytes"]
ARGS = {
    "loop_id": "d1/wsat/@1", "job_dir": "/var/lib/x/d1/wsat", "device": "/dev/nvme0n1", "expect": {"devnum": "259:0"},
    "test": {"stop": "written", "target_bytes": 3 * WRITTEN, "max_seconds": 3600.0},
    "segment": {"name": "", "combinations": []}, "record_wait": 0.2,
    "context": {"run_id": "r1", "host": "h1", "drive": "d1", "test": "wsat", "segment": ""},
}
PROBE = {"tool": "nvme smart-log", "format": "nvme", "device": "/dev/nvme0",
         "argv": ["/usr/sbin/nvme", "smart-log", "/dev/nvme0", "-o", "json"],
         "thresholds": {"warning_c": 80, "critical_c": 85}, "reading": {"temperature_c": 76}}


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(_run, "callback_option", lambda name: str(tmp_path))
    return tmp_path


def drive_record(results, **drive) -> None:
    """What the callback filed for the drive at identify."""
    _results.file_payload(str(results / "r1"), "h1", {"pts_drives": [dict({"key": "d1"}, **drive)]})


class Host:
    """The host's answers: the probe module's result, then one smart log per shell command, counted."""

    def __init__(self, probe: dict | None = None, logs: list | None = None):
        self.probe = {"changed": False, "pts_health_probe": PROBE} if probe is None else probe
        self.logs = list(logs or [])
        self.modules: list[dict] = []
        self.commands: list[str] = []

    def execute_module(self, module_name=None, module_args=None, task_vars=None):
        self.modules.append(dict(module_args, name=module_name))
        return self.probe

    def command(self, cmd, sudoable=True, in_data=None):
        self.commands.append(cmd)
        log = self.logs.pop(0)
        if isinstance(log, int):  # an exit status with no output: timeout killed the tool
            return {"rc": log, "stdout": "", "stderr": ""}
        return {"rc": 0, "stdout": json.dumps(log), "stderr": ""}


def attempt(task_vars: dict, host: Host) -> dict:
    task = MagicMock(async_val=600, check_mode=False, register="rounds", args=dict(ARGS))
    action = pts_round.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    action._render = MagicMock(side_effect=lambda template, variables, round_: f"# round {round_['number']}\n")
    action._fio_job = MagicMock(return_value={"changed": True, "pts_fio": dict(WSAT, elapsed_s=0.37),
                                              "pts_fio_raw": "{}"})
    action._execute_module = host.execute_module
    action._low_level_execute_command = host.command
    action._remove_tmp_path = MagicMock()
    return action.run(task_vars=task_vars)


def run_loop(results, host: Host) -> list[dict]:
    """The until loop: each attempt's result registered for the next, each round filed the way the callback does."""
    task_vars: dict = {}
    out = []
    for dummy in range(3):
        result = attempt(task_vars, host)
        _results.file_payload(str(results / "r1"), "h1", result)
        task_vars["rounds"] = result
        out.append(result)
    return out


def log(kelvin: int, transitions: int) -> dict:
    return dict(SMART_LOG, temperature=kelvin, thm_temp1_trans_count=transitions)


def test_an_nvme_drive_is_probed_once_then_read_by_one_command_a_round(results):
    drive_record(results, interface="NVMe", health={"tool": "nvme smart-log", "temperature_c": 40})
    # round 1: the probe's reading is its before, one command after; rounds 2 and 3: the last round's after is their
    # before (nothing touches the drive between two rounds), one command after.
    host = Host(logs=[log(350, 7), log(355, 9), log(356, 9)])
    rounds = run_loop(results, host)
    assert [m["name"] for m in host.modules] == ["fleetqual.pts.pts_drive_health"]
    assert host.modules[0]["mode"] == "round" and host.modules[0]["path"] == "/dev/nvme0n1"
    assert host.commands == ["timeout -k 5 60 /usr/sbin/nvme smart-log /dev/nvme0 -o json"] * 3
    entries = [r["pts_fio"]["health"] for r in rounds]
    temperatures = [(e["before"]["temperature_c"], e["after"]["temperature_c"]) for e in entries]
    assert temperatures == [(76, 77), (77, 82), (82, 83)]
    assert [(e["before"].get("thermal_transitions"), e["after"]["thermal_transitions"]) for e in entries] == [
        (None, [7, 1]), ([7, 1], [9, 1]), ([9, 1], [9, 1])]
    assert all(e["thresholds"] == {"warning_c": 80, "critical_c": 85} and isinstance(e["cost_s"], float) for e in entries)
    assert [e.get("before_from") for e in entries] == [None, "the reading after round 1", "the reading after round 2"]
    # The loop keeps how to read the drive and its last reading, nothing that grows; fio's figures are the round's own.
    kept = {k: PROBE[k] for k in ("tool", "format", "device", "argv", "thresholds")}
    state = rounds[-1]["pts_round"]["state"]
    assert state["health"] == kept and state["health_after"] == entries[-1]["after"]
    assert all(r["pts_fio"]["jobs"] == WSAT["jobs"] for r in rounds)
    # The callback files the entry in the round's own file.
    record = _results.read_json(os.path.join(results, "r1", "h1", "d1", "wsat", "round-02.json"))
    assert record["fio"]["health"]["after"]["thermal_transitions"] == [9, 1]


def test_a_drive_identify_found_without_health_costs_nothing_per_round(results):
    drive_record(results, interface="loop", health=None)
    host = Host()
    rounds = run_loop(results, host)
    assert host.modules == [] and host.commands == []
    assert [r["pts_fio"]["health"]["none"] for r in rounds] == [
        "a loop device (a file) has no SMART or NVMe health log"] * 3
    assert all(r["pts_fio"]["health"]["cost_s"] < 0.01 for r in rounds)


def test_a_probe_that_says_none_is_not_repeated_in_the_loop(results):
    host = Host(probe={"pts_health_probe": {"none": "a virtio disk has no SMART or NVMe health log"}})
    rounds = run_loop(results, host)  # no drive.json on disk: the module is asked, once
    assert len(host.modules) == 1 and host.commands == []
    assert {r["pts_fio"]["health"]["none"] for r in rounds} == {"a virtio disk has no SMART or NVMe health log"}


def test_a_failed_probe_or_read_never_costs_the_round(results):
    host = Host(probe={"failed": True, "msg": "MODULE FAILURE"})
    first = attempt({}, host)
    assert first["pts_fio"]["health"]["none"] == "the health probe failed: MODULE FAILURE"
    assert first["pts_round"]["round"] == 1 and "pts_wsat" in first

    def broken(cmd, sudoable=True, in_data=None):
        raise pts_round.AnsibleError("ssh: connection reset")
    drive_record(results, interface="NVMe", health={"tool": "nvme smart-log"})
    host = Host()
    host.command = broken
    result = attempt({}, host)
    entry = result["pts_fio"]["health"]
    assert entry["before"] == {"temperature_c": 76} and entry["after"] is None
    assert entry["error"] == "nvme smart-log could not be run: ssh: connection reset"
    assert result["pts_wsat"]["written"] == WRITTEN


def test_a_health_read_that_hangs_is_killed_and_the_measured_round_kept(results):
    drive_record(results, interface="NVMe", health={"tool": "nvme smart-log", "temperature_c": 40})
    # Round 1's after is killed, so round 2 reads its own before; round 3's after is killed too.
    host = Host(logs=[124, log(350, 7), log(355, 9), 137])
    rounds = run_loop(results, host)
    entries = [r["pts_fio"]["health"] for r in rounds]
    assert entries[0]["after"] is None and "did not answer within 60 s and was killed" in entries[0]["error"]
    assert entries[1]["before"]["temperature_c"] == 77 and entries[1]["after"]["temperature_c"] == 82
    assert entries[2]["after"] is None and "killed" in entries[2]["error"] and len(host.commands) == 4
    # Every round still carries what fio measured, and the loop goes on.
    assert [r["pts_round"]["round"] for r in rounds] == [1, 2, 3]
    assert all(r["pts_fio"]["jobs"] == WSAT["jobs"] for r in rounds)
