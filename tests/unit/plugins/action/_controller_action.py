# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# A controller action (pts_plan, pts_run_start, pts_run_lock) run in the test process, and the environment it reads.

from __future__ import annotations

from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run, _run_steps


def run_settings(monkeypatch, tmp_path) -> dict:
    """The command line's extra variables as the actions see them (change them in the dict returned); the results
    root from the environment (PTS_RESULTS_DIR, <tmp_path>/results) and no PTS_RUN_ID."""
    values = {"extra": {}}
    monkeypatch.setattr(_run_steps, "load_extra_vars", lambda loader: values["extra"])
    monkeypatch.setenv(_run.RESULTS_DIR_ENV, str(tmp_path / "results"))
    monkeypatch.delenv(_run.RUN_ID_ENV, raising=False)
    return values


class Templar:
    """The task's variables are already plain values here: templating them gives them back."""

    def template(self, value, **kwargs):
        return value


def run_action(action, args: dict, task_vars: dict | None = None, check: bool = False) -> dict:
    task = MagicMock()
    task.async_val = 0
    task.check_mode = check
    task.args = args
    connection = MagicMock()
    connection._shell.tmpdir = "/unused"
    plugin = action.ActionModule(task, connection, MagicMock(), MagicMock(), Templar(), MagicMock())
    return plugin.run(task_vars=task_vars or {})


def failure(action, args: dict, task_vars: dict | None = None, check: bool = False) -> str:
    """The message the action fails with."""
    with pytest.raises(AnsibleActionFail) as caught:
        run_action(action, args, task_vars, check)
    return str(caught.value)
