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
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run

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
    monkeypatch.setattr(_run, "callback_option", lambda name: str(tmp_path))
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


def _sample_fio(name: str, written: int) -> dict:
    job = {"name": name, "mix": 0, "bs": 1 << 20, "write": {"io_bytes": written},
           "total": {"bw_bytes": 1e9, "iops": 1000.0, "lat_ns": {"mean": 3.2e7, "max": 9e7}}}
    return {"changed": True, "pts_fio": {"jobs": [job], "elapsed_s": 1.0}, "pts_fio_raw": "{}"}


def test_an_xsr_group_runs_its_samples_and_a_sequential_stream_goes_on_where_it_ended(results):
    sample = {"name": "xsr-group1", "rw": "write", "mix": 0, "bs": 1 << 20, "seconds": 60.0, "options": {}}
    segment = {"name": "group1", "stop": "samples", "samples": 3, "stream": True, "access": "SEQ 1024k write",
               "sample": sample, "combinations": [sample]}
    args = dict(ARGS, loop_id="d1/xsr/group1@1", test={"test": "xsr", "stop": "phases"}, segment=segment,
                limits={"capacity": 1 << 30},
                context=dict(ARGS["context"], test="xsr", segment="group1"))
    task_vars: dict = {}
    offsets = []
    for number in (1, 2, 3):
        result, action = attempt(task_vars, args, fio=_sample_fio(f"xsr-group1-{number:04d}", 300 << 20))
        row = action._render.call_args.args[2]["row"]
        offsets.append(row["combinations"][0]["options"]["offset"])
        assert row["combinations"][0]["name"] == f"xsr-group1-{number:04d}"
        assert result["pts_context"]["row"]["label"] == f"group1 (SEQ 1024k write), sample {number} of 3"
        path = results / "r1" / "h1" / "d1" / "xsr" / "group1" / f"round-{number:02d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"round": number, "loop": result["pts_context"]["loop"]}))
        task_vars["rounds"] = result
    # 300 MiB per sample on a 1 GiB drive: the third would pass the end, so it starts again at LBA 0.
    assert offsets == [0, 300 << 20, 600 << 20] and result["pts_round"]["stop"]
    assert result["pts_sample"]["next_offset"] == 0


def _grid_round(number: int, grid: dict) -> dict:
    jobs = [{"name": f"cbw-tc{tc}-qd{qd}", "total": {"iops": iops, "lat_ns": {"mean": art * 1e6}}}
            for (tc, qd), (iops, art) in grid.items()]
    return {"round": number, "fio": {"jobs": jobs}}


def test_the_operating_points_are_chosen_from_the_loops_window_on_disk_when_their_round_starts(results):
    loop = results / "r1" / "h1" / "d1" / "cbw" / "loop"
    loop.mkdir(parents=True)
    # Round 1 lies outside the window of 2 and would make TC2/QD4 the MaxIOPS point.
    (loop / "round-01.json").write_text(json.dumps(_grid_round(1, {(2, 4): (99_000, 0.5), (2, 1): (1, 0.1),
                                                                   (1, 4): (1, 0.1), (1, 1): (1, 0.1)})))
    for number in (2, 3):
        (loop / f"round-{number:02d}.json").write_text(json.dumps(_grid_round(number, {
            (2, 4): (40_000, 7.0), (2, 1): (30_000, 0.3), (1, 4): (20_000, 0.2), (1, 1): (10_000, 0.1)})))
    parameters = {"thread_counts": [2, 1], "queue_depths": [4, 1], "max_art_ms": 5.0, "mix": 40,
                  "bssplit": "4k/100", "distribution": None, "point_prewrite_seconds": 1.0, "sample_seconds": 0.5,
                  "point_measure_seconds": 1.0}
    rows = [{"label": f"{p} point", "point": p, "combinations": []} for p in ("max", "mid", "min")]
    segment = {"name": "points", "stop": "points", "rounds": rows, "output_format": "json+"}
    args = dict(ARGS, loop_id="d1/cbw/points@1", segment=segment, limits={"window": 2},
                test={"test": "cbw", "stop": "phases", "block_sizes": [4096], "parameters": parameters},
                context=dict(ARGS["context"], test="cbw", segment="points"))
    measured = {"name": "cbw-max-measure", "total": {"iops": 1.0, "bw_bytes": 1.0, "lat_ns": {"mean": 1.0}}}
    fio = {"changed": True, "pts_fio": {"jobs": [measured]}}
    result, action = attempt({}, args, fio=fio)
    row = action._render.call_args.args[2]["row"]
    # TC2/QD4's 7 ms ART is over the 5 ms ceiling: MaxIOPS is TC2/QD1; the measurement runs with fio json+.
    assert (row["tc"], row["qd"]) == (2, 1) and row["chosen"]["window_rounds"] == [2, 3]
    assert row["label"].startswith("MaxIOPS operating point: TC2/QD1 (30,000 IOPS, ART 0.300 ms")
    assert [c["name"] for c in row["combinations"]] == ["cbw-max-pre-001", "cbw-max-pre-002", "cbw-max-measure"]
    assert action._fio_job.call_args.args[1]["output_format"] == "json+"
    assert result["pts_context"]["row"]["chosen"]["min"] == {"tc": 1, "qd": 1, "iops": 10_000.0, "art_ms": 0.1}
    # Without the loop's rounds on disk no point can be chosen, and nothing runs.
    for path in loop.iterdir():
        path.unlink()
    with pytest.raises(AnsibleActionFail, match="the TC x QD loop's rounds are not on disk"):
        attempt({}, args, fio=fio)
