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
            rounds=dict(type="int", required=True),
            label=dict(type="str", default=""),
            offered_iops=dict(type="int"),
            tolerance_pct=dict(type="float", default=5),
            misses=dict(type="int", default=2),
            context=dict(type="dict", default={}),
        ))
        kind = "demand" if args["offered_iops"] else "sweep"
        rule = {"kind": kind, "rounds": args["rounds"], "tolerance_pct": args["tolerance_pct"], "misses": args["misses"]}
        row = {"label": args["label"], "offered_iops": args["offered_iops"]}
        now = time.time()
        try:
            _rounds.check_rule(rule)
            state = args["state"] or _rounds.start("sweep_progress", kind, now)
            state, dummy, payload = _rounds.advance(state, rule, args["jobs"], now, row=row)
        except (KeyError, ValueError, TypeError) as exc:
            raise AnsibleActionFail(f"sweep_progress: {exc}") from None
        result.update(changed=False, stop=payload["stop"], state=state, pts_sweep=payload, pts_context=args["context"])
        return result
