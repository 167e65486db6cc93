# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_steps


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # the controller's run, before any host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        self.validate_argument_spec(argument_spec={})
        try:
            fixed = _run_steps.start(task_vars or {}, self._templar.template, self._loader, bool(self._task.check_mode))
        except _run_steps.StepRefused as exc:
            raise AnsibleActionFail(f"pts_run_start: {exc}") from None
        result.update(changed=False, **fixed)
        return result
