# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The round action as ansible-core's until loop drives it: same arguments every attempt, the previous attempt's
result registered in the task variables. fio and the template are stand-ins; the state and the checks are real."""

from __future__ import annotations

import json
import os
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleError, AnsibleUndefinedVariable

from ansible_collections.fleetqual.pts.plugins.action import pts_round
from ansible_collections.fleetqual.pts.plugins.module_utils import _fio

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "fio-3.33-wsat-round.json")
with open(FIXTURE, encoding="utf-8") as _handle:
    WSAT = _fio.parse(_handle.read())
WRITTEN = WSAT["jobs"][0]["write"]["io_bytes"]

ARGS = {
    "loop_id": "d1/wsat/@1", "job_dir": "/var/lib/x/d1/wsat", "device": "/dev/loop9", "expect": {"devnum": "7:9"},
    "test": {"stop": "written", "target_bytes": 3 * WRITTEN, "max_seconds": 3600.0},
    "segment": {"name": "", "combinations": []}, "record_wait": 0.2,
    "context": {"run_id": "r1", "host": "h1", "drive": "d1", "test": "wsat", "segment": ""},
}


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(pts_round, "callback_option", lambda name: str(tmp_path))
    return tmp_path


def attempt(task_vars: dict, args: dict | None = None, fio: dict | None = None, register="rounds",
            templar=None) -> tuple[dict, MagicMock]:
    task = MagicMock()
    task.async_val = 600
    task.check_mode = False
    task.register = register
    task.args = dict(args or ARGS)
    action = pts_round.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), templar or MagicMock(), MagicMock())
    action._render = MagicMock(side_effect=lambda template, variables, round_: f"# round {round_['number']}\n")
    action._fio_job = MagicMock(return_value=fio or {"changed": True, "pts_fio": dict(WSAT, elapsed_s=0.37), "pts_fio_raw": "{}"})
    return action.run(task_vars=task_vars), action


def record(results, result: dict) -> None:
    """What the callback does with a round: its round file, with the loop it belongs to."""
    context = result["pts_context"]
    path = results / "r1" / "h1" / "d1" / "wsat" / f"round-{context['round']:02d}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"round": context["round"], "loop": context["loop"]}))


def test_each_attempt_runs_the_next_round_from_the_registered_state_until_the_rule_holds(results):
    task_vars: dict = {}
    seen = []
    for dummy in range(3):
        result, action = attempt(task_vars)
        (fio_args,) = action._fio_job.call_args.args[1:]
        seen.append((result["pts_round"]["round"], fio_args["job_file"], result["pts_round"]["stop"]))
        record(results, result)
        task_vars["rounds"] = result  # what ansible-core does between attempts
    assert seen == [(1, "/var/lib/x/d1/wsat/round-01.fio", False), (2, "/var/lib/x/d1/wsat/round-02.fio", False),
                    (3, "/var/lib/x/d1/wsat/round-03.fio", True)]
    assert result["pts_wsat"]["written"] == 3 * WRITTEN and "reached" in result["pts_wsat"]["reason"]
    assert result["pts_context"]["round"] == 3 and result["pts_context"]["loop"] == "d1/wsat/@1"
    # Round 1 expects what the task says; later rounds poll near the previous round's fio time.
    assert [c.args[1]["expected_seconds"] for c in action._fio_job.call_args_list] == [0.37]


def test_from_ansible_core_2_21_the_register_is_a_projection_and_its_variable_an_expression(results):
    """2.21 turns ``register: rounds`` into ``{"rounds": <latest result>}`` and, between attempts, puts an expression
    in the task variables that only templating resolves; before the first result it does not resolve."""
    expression = object()
    templar = MagicMock()
    first, dummy = attempt({}, register={"rounds": "_task.polymorphic_result"}, templar=templar)
    record(results, first)
    templar.template.side_effect = lambda value: first if value is expression else None
    second, dummy = attempt({"rounds": expression}, register={"rounds": "_task.polymorphic_result"}, templar=templar)
    assert second["pts_round"]["round"] == 2 and second["pts_round"]["state"]["id"] == "d1/wsat/@1"
    # Several projections: the one holding this loop's state counts, whichever comes first.
    both = attempt({"other": {"changed": True}, "rounds": expression},
                   register={"other": "_task.polymorphic_result.changed", "rounds": "_task.polymorphic_result"},
                   templar=templar)[0]
    assert both["pts_round"]["round"] == 2
    templar.template.side_effect = AnsibleUndefinedVariable("The _task.polymorphic_result property is unavailable.")
    assert attempt({"rounds": expression}, register={"rounds": "x"}, templar=templar)[0]["pts_round"]["round"] == 1
    # Any other failure to read the previous round stops the loop instead of starting it again at round 1.
    templar.template.side_effect = AnsibleError("boom")
    with pytest.raises(AnsibleError, match="boom"):
        attempt({"rounds": expression}, register={"rounds": "x"}, templar=templar)


def test_a_registered_result_of_another_loop_starts_this_loop_at_round_1(results):
    other, dummy = attempt({})
    result, dummy = attempt({"rounds": other}, dict(ARGS, loop_id="d1/wsat/@2"))
    assert result["pts_round"]["round"] == 1


def test_a_round_waits_for_the_one_before_it_to_be_on_disk_and_stops_the_test_if_it_never_is(results):
    first, dummy = attempt({})
    with pytest.raises(AnsibleActionFail, match="round 1 of wsat on d1 is not on disk at .* so round 2 does not start"):
        attempt({"rounds": first})
    # A round file of an earlier attempt of the test (another loop) does not count either.
    record(results, dict(first, pts_context=dict(first["pts_context"], loop="d1/wsat/@0")))
    with pytest.raises(AnsibleActionFail, match="is not on disk"):
        attempt({"rounds": first})
    record(results, first)
    assert attempt({"rounds": first})[0]["pts_round"]["round"] == 2


def test_a_failed_fio_run_ends_the_loop_with_its_evidence(results):
    failure = {"failed": True, "msg": "fio exited with rc 1", "pts_context": {"round": 1}}
    result, dummy = attempt({}, fio=failure)
    assert result["failed"] and result["msg"] == "fio exited with rc 1"
    assert result["pts_round"]["stop"] is True and "pts_wsat" not in result


def test_a_round_past_the_sweeps_rows_and_an_unregistered_task_are_refused(results):
    sweep = dict(ARGS, test={"stop": "sweep"}, segment={"rounds": [{"label": "QD 1", "combinations": []}]})
    first, dummy = attempt({}, sweep)
    assert first["pts_round"]["stop"] and first["pts_sweep"]["label"] == "QD 1"
    assert first["pts_context"]["row"] == {"label": "QD 1"}
    task = MagicMock(async_val=600, check_mode=False, register=None, args=dict(ARGS))
    action = pts_round.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    with pytest.raises(AnsibleActionFail, match="register the task's result"):
        action.run(task_vars={})
