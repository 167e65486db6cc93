# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An action's ARGUMENT_SPEC and the options its docs-only module documents (what ansible-doc shows and
validate-modules cannot check: the docs-only module has no argument spec of its own) say the same: type, required,
default, choices, elements and sub-options, option by option."""

from __future__ import annotations

import importlib
import pathlib

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction

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


@pytest.mark.parametrize("name", ACTIONS)
def test_the_action_checks_the_options_its_module_documents(name):
    action = importlib.import_module(f"{PREFIX}action.{name}").ActionModule
    documented = yaml.safe_load(importlib.import_module(f"{PREFIX}modules.{name}").DOCUMENTATION)["options"]
    assert _normal(action.ARGUMENT_SPEC) == _normal(documented)
