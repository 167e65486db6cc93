# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _rounds


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # controller arithmetic only

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(argument_spec=dict(
            jobs=dict(type="list", elements="dict", required=True),
            state=dict(type="dict"),
            target_bytes=dict(type="int", required=True),
            max_seconds=dict(type="float", required=True),
            context=dict(type="dict", default={}),
        ))
        rule = {"kind": "written", "target_bytes": args["target_bytes"], "max_seconds": args["max_seconds"]}
        now = time.time()
        try:
            _rounds.check_rule(rule)
            state = args["state"] or _rounds.start("wsat_progress", "written", now)
            state, dummy, payload = _rounds.advance(state, rule, args["jobs"], now)
        except (KeyError, ValueError, TypeError) as exc:
            raise AnsibleActionFail(f"wsat_progress: {exc}") from None
        result.update(changed=False, stop=payload["stop"], written=payload["written"], state=state, pts_wsat=payload,
                      pts_context=args["context"])
        return result
