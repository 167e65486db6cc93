# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_steps
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction


class ActionModule(PtsAction):
    _requires_connection = False  # the controller's run, before any host
    # raw: each is refused by _run_steps.start naming the variable the operator set (pts_run_id, pts_results_dir,
    # pts_run_publish, pts_results_ephemeral, pts_resume, pts_after_run), not this option.
    ARGUMENT_SPEC = dict(
        run_id=dict(type="raw"),
        results_dir=dict(type="raw"),
        publish=dict(type="raw"),
        results_ephemeral=dict(type="raw"),
        resume=dict(type="raw"),
        after_run=dict(type="raw"),
    )

    def run_action(self, result, args, task_vars):
        fixed = _run_steps.start(task_vars, self._loader, bool(self._task.check_mode), **args)
        result.update(changed=False, **fixed)
        return result
