# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The steady_state action: a user's own series judged by the SNIA PTS rule."""

from __future__ import annotations

import json
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.action import steady_state


def run(args: dict) -> dict:
    task = MagicMock()
    task.async_val = 0
    task.check_mode = False
    task.args = args
    action = steady_state.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())
    return action.run(task_vars={})


def test_a_steady_series_stops():
    result = run({"values": [31786, 31149, 30793, 32721, 31564]})
    assert result["steady"] is True and result["stop"] is True and result["changed"] is False
    payload = result["pts_steady_state"]
    (judged,) = payload["dvs"]
    assert payload["round"] == 5 and payload["max_rounds"] == 25 and judged["dv_value"] == 31564
    assert judged["rounds"] == [1, 2, 3, 4, 5] and judged["window"] == 5
    json.dumps(result)


def test_fewer_values_than_the_window_are_not_steady_yet():
    result = run({"values": [100, 100, 100]})
    assert result["steady"] is False and result["stop"] is False
    assert result["pts_steady_state"]["reason"] == "need 5 rounds for the window, have 3"


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
        ({"values": [1, 2, 3], "max_data_excursion_pct": 0}, "max_data_excursion_pct 0.0 is outside"),
        ({"values": [1, -2, 3]}, "is not a finite, non-negative number"),
    ],
)
def test_bad_input_fails_the_task(args, message):
    with pytest.raises(AnsibleActionFail, match=message):
        run(args)
