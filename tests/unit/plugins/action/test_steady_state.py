# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.action import steady_state
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "fio-3.33-iops-round.json")


def run(args: dict) -> dict:
    task = MagicMock()
    task.async_val = 0
    task.check_mode = False
    task.args = args
    action = steady_state.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    return action.run(task_vars={})


def _jobs(fixture: str = FIXTURE) -> list[dict]:
    with open(fixture, encoding="utf-8") as handle:
        return _fio.parse(handle.read())["jobs"]


def test_each_round_judges_its_dv_found_by_mix_and_block_size_against_the_states_window():
    jobs = _jobs()
    dv = _fio.find_job(jobs, 0, 4096)["total"]["iops"]
    state = None
    for number in range(1, 6):
        args = {"jobs": list(reversed(jobs)), "dvs": [{"name": "w", "mix": 0, "bs": "4k"}], "max_rounds": 6,
                "context": {"drive": "d"}}
        result = run(dict(args, state=state) if state else args)
        state = result["state"]
        assert state["round"] == number + 1
    assert result["steady"] is True and result["stop"] is True
    payload = result["pts_steady_state"]
    (judged,) = payload["dvs"]
    assert payload["round"] == 5 and judged["dv_value"] == dv and judged["rounds"] == [1, 2, 3, 4, 5]
    assert state["window"] == {"w": [dv] * 4} and state["stop"] is True
    assert result["pts_context"] == {"drive": "d"}
    json.dumps(result)  # the callback must be able to store it


def test_stop_at_the_round_limit_even_when_not_steady():
    result = run({"values": [10, 50, 10, 50, 10, 50], "max_rounds": 6})
    assert result["steady"] is False and result["stop"] is True
    result = run({"values": [10, 50, 10, 50, 10], "max_rounds": 6})
    assert result["stop"] is False


@pytest.mark.parametrize(
    "args, message",
    [
        ({"values": [1, 2, 3], "window": 8, "max_rounds": 6}, "window 8 is larger than max_rounds 6"),
        ({"values": [1, 2, 3, 4], "window": 2, "max_rounds": 3}, "4 rounds exceed max_rounds 3"),
        ({"jobs": [], "dvs": [{"mix": 0, "bs": "4k"}]}, "0 fio jobs for mix 0/100"),
        ({"jobs": [], "dvs": [{"mix": 0, "bs": "4k"}], "state": {"round": 2}}, "the round state lacks"),
        ({"jobs": [], "dvs": []}, "dvs must name at least one dependent variable"),
    ],
)
def test_bad_input_fails_the_task(args, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run(args)


def test_every_dv_must_be_steady():
    """Throughput judges read and write of one block size together: steady only when both are."""
    path = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "fio-3.33-throughput-1048576.json")
    with open(path, encoding="utf-8") as handle:
        jobs = _fio.parse(handle.read())["jobs"]
    read = _fio.find_job(jobs, 100, 1048576)["total"]["bw_bytes"]
    write = _fio.find_job(jobs, 0, 1048576)["total"]["bw_bytes"]
    dvs = [{"name": "read", "mix": 100, "bs": "1024k", "metric": "bw_bytes"},
           {"name": "write", "mix": 0, "bs": "1024k", "metric": "bw_bytes"}]
    state = {"id": "tp", "rule": "steady", "round": 5, "stop": False, "reason": "", "started": 0.0,
             "last_elapsed_s": None, "written": 0, "misses": 0}
    steady = run({"state": dict(state, window={"read": [read] * 4, "write": [write] * 4}), "jobs": jobs, "dvs": dvs})
    assert steady["steady"] is True
    shaky = run({"state": dict(state, window={"read": [read] * 4, "write": [write * 2, write, write * 2, write]}),
                 "jobs": jobs, "dvs": dvs})
    assert shaky["steady"] is False
    assert [d["steady"] for d in shaky["pts_steady_state"]["dvs"]] == [True, False]
