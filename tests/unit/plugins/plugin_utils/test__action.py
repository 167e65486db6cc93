# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The action base: arguments checked against ARGUMENT_SPEC; a PtsError is the action's failure, named after it; any
other exception (a bug) is not dressed up as one. Every action of the collection is one, and its ARGUMENT_SPEC and the
options its docs-only module documents (what ansible-doc shows and validate-modules cannot check: the docs-only module
has no argument spec of its own) say the same: type, required, default, choices, elements and sub-options, option by
option."""

from __future__ import annotations

import importlib
import pathlib
from unittest.mock import MagicMock

import pytest
import yaml
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


# --- every action of the collection -----------------------------------------------------------------------------------

PLUGINS = pathlib.Path(__file__).resolve().parents[4] / "plugins"
PREFIX = "ansible_collections.fleetqual.pts.plugins."


def _normal(options: dict | None) -> dict:
    """Options (a spec's or a DOCUMENTATION's) reduced to what both state, with Ansible's defaults filled in."""
    found = {}
    for name, option in (options or {}).items():
        nested = option.get("options") or option.get("suboptions")  # the spec's word, the docs' word
        found[name] = {
            "type": option.get("type", "str"),
            "required": bool(option.get("required", False)),
            "default": option.get("default"),
            "choices": list(option["choices"]) if option.get("choices") is not None else None,
            "elements": option.get("elements"),
            "options": _normal(nested) if nested else None,
        }
    return found


def _validated_actions() -> list[str]:
    names = []
    for path in sorted((PLUGINS / "action").glob("*.py")):
        action = importlib.import_module(f"{PREFIX}action.{path.stem}").ActionModule
        if issubclass(action, PtsAction) and action.ARGUMENT_SPEC is not None:
            names.append(path.stem)
    return names


ACTIONS = _validated_actions()


def test_every_action_of_the_collection_is_a_pts_action():
    for path in sorted((PLUGINS / "action").glob("*.py")):
        assert issubclass(importlib.import_module(f"{PREFIX}action.{path.stem}").ActionModule, PtsAction), path.stem


def test_the_actions_that_check_their_arguments_are_found():
    assert {"pts_segment", "fio_job", "steady_state", "pts_plan"} <= set(ACTIONS)


def _documented(name: str) -> dict:
    """The options a module documents: its own and its doc fragments' (fleetqual.pts._NAME[.PART])."""
    docs = yaml.safe_load(importlib.import_module(f"{PREFIX}modules.{name}").DOCUMENTATION)
    options = dict(docs["options"])
    for fragment in docs.get("extends_documentation_fragment") or []:
        module, dot, part = fragment.removeprefix("fleetqual.pts.").partition(".")
        text = getattr(importlib.import_module(f"{PREFIX}doc_fragments.{module}").ModuleDocFragment,
                       part or "DOCUMENTATION")
        options.update(yaml.safe_load(text).get("options") or {})
    return options


@pytest.mark.parametrize("name", ACTIONS)
def test_the_action_checks_the_options_its_module_documents(name):
    action = importlib.import_module(f"{PREFIX}action.{name}").ActionModule
    assert _normal(action.ARGUMENT_SPEC) == _normal(_documented(name))
