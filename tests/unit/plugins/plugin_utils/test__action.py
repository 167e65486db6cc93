# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action base: arguments checked against ARGUMENT_SPEC; a PtsError is the action's failure, named after it; any
other exception (a bug) is not dressed up as one."""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction


class Demo(PtsAction):
    __module__ = "ansible_collections.fleetqual.pts.plugins.action.demo_action"
    _requires_connection = False
    ARGUMENT_SPEC = dict(count=dict(type="int", required=True), raises=dict(type="raw"))

    def run_action(self, result, args, task_vars):
        if args["raises"] is not None:
            raise args["raises"]
        result.update(changed=False, count=args["count"], seen=task_vars)
        return result


def run(args: dict, task_vars: dict | None = None) -> dict:
    task = MagicMock(check_mode=False, async_val=0)
    task.args = args
    return Demo(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock()).run(task_vars=task_vars)


def test_the_arguments_come_checked_and_converted():
    result = run({"count": "3"}, {"inventory_hostname": "h1"})
    assert result["count"] == 3 and result["seen"] == {"inventory_hostname": "h1"} and not result.get("failed")
    assert run({"count": 1})["seen"] == {}


@pytest.mark.parametrize("args, expected", [
    ({}, "missing required arguments: count"),
    ({"count": "many"}, "argument 'count' is of type"),
    ({"count": 1, "counts": 2}, "Unsupported parameters"),
])
def test_bad_arguments_are_refused_before_the_action_runs(args, expected):
    with pytest.raises(AnsibleActionFail, match=expected):
        run(args)


@pytest.mark.parametrize("error, expected", [
    (ActionRefused("results_dir='/x' is not a directory"), "demo_action: results_dir='/x' is not a directory"),
    (PlanError("pts_tests=['x']: unknown test"), "demo_action: pts_tests=['x']: unknown test"),
    (PtsError("a refusal"), "demo_action: a refusal"),
])
def test_a_pts_error_is_the_actions_failed_result_named_after_it(error, expected):
    with pytest.raises(AnsibleActionFail) as caught:
        run({"count": 1, "raises": error})
    # AnsibleActionFail is the task's failure on every ansible-core (how it carries the result differs: 2.21 sets
    # "failed" and "msg" only when the task's result is made from it).
    assert str(caught.value) == expected
    assert caught.value.__cause__ is None


@pytest.mark.parametrize("error", [KeyError("key"), TypeError("not a dict"), ValueError("plain")])
def test_anything_else_is_a_bug_and_stays_a_traceback(error):
    with pytest.raises(type(error)) as caught:
        run({"count": 1, "raises": error})
    assert type(caught.value) is type(error) and caught.value.args == error.args


def test_an_action_without_a_spec_gets_the_tasks_arguments_as_given():
    class Free(Demo):
        ARGUMENT_SPEC = None

        def run_action(self, result, args, task_vars):
            return dict(result, args=args)

    task = MagicMock(check_mode=False, async_val=0)
    task.args = {"anything": [1]}
    assert Free(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock()).run()["args"] == {"anything": [1]}
