# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import PlanError, build_plan


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # validation only; runs before anything reaches a host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(
            argument_spec=dict(
                variables=dict(type="dict", required=True),
                devices=dict(type="list", elements="dict", default=[]),
                context=dict(type="dict", default={}),
            )
        )
        try:
            plan = build_plan(args["variables"], args["devices"])
        except PlanError as exc:
            raise AnsibleActionFail(f"pts_plan: {exc}; nothing was written") from None
        result.update(changed=False, pts_plan=plan, pts_context=args["context"])
        return result
