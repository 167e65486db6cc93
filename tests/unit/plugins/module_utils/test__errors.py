# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One error type: every exception class defined anywhere in plugins/ is a PtsError, so an action turns it into the
operator's message and nothing else (a bug) is mistaken for one."""

from __future__ import annotations

import importlib
import inspect
import pathlib

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

PLUGINS = pathlib.Path(__file__).resolve().parents[4] / "plugins"
PREFIX = "ansible_collections.fleetqual.pts.plugins."


def _defined_exceptions() -> list[type]:
    found = []
    for path in sorted(PLUGINS.rglob("*.py")):
        if "__pycache__" in path.parts or path.name == "__init__.py":
            continue
        name = PREFIX + ".".join(path.relative_to(PLUGINS).with_suffix("").parts)
        module = importlib.import_module(name)
        found += [value for value in vars(module).values()
                  if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name]
    return found


EXCEPTIONS = _defined_exceptions()


def test_the_walk_finds_the_collections_exceptions():
    # A broken walk (nothing imported) would pass the test below.
    names = {cls.__name__ for cls in EXCEPTIONS}
    assert {"PtsError", "PlanError", "FioOutputError", "HistoryError", "UnsafePath", "StepRefused"} <= names
    assert len(EXCEPTIONS) >= 24


@pytest.mark.parametrize("cls", EXCEPTIONS, ids=lambda cls: f"{cls.__module__.rsplit('.', 1)[-1]}.{cls.__name__}")
def test_every_exception_class_is_a_pts_error(cls):
    assert issubclass(cls, PtsError)


@pytest.mark.parametrize("name, base", [
    ("module_utils._pts._inputs.PlanError", ValueError),
    ("module_utils._pts._fio.FioOutputError", ValueError),
    ("module_utils._safe_path.UnsafePath", OSError),
    ("module_utils._safe_path.TooLarge", ValueError),
    ("plugin_utils._fleet._compare.CompareError", ValueError),
])
def test_a_class_keeps_the_builtin_base_its_callers_catch(name, base):
    module, cls = name.rsplit(".", 1)
    assert issubclass(getattr(importlib.import_module(PREFIX + module), cls), base)
