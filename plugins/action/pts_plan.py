# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._inputs import PlanError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import build_plan
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _resume
from ansible_collections.fleetqual.pts.plugins.plugin_utils._callback_options import callback_option
from ansible_collections.fleetqual.pts.plugins.plugin_utils._raid import validate_arrays
from ansible_collections.fleetqual.pts.plugins.plugin_utils._verdicts import fleet_settings, validate_rules


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # validation only; runs before anything reaches a host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(
            argument_spec=dict(
                variables=dict(type="dict", required=True),
                devices=dict(type="list", elements="dict", default=[]),
                listed=dict(type="list", elements="dict", default=[]),
                acceptance=dict(type="raw", default=[]),
                resume=dict(type="dict", options=dict(
                    results_dir=dict(type="path"),
                    run_id=dict(type="str"),
                    host=dict(type="str", required=True),
                )),
                context=dict(type="dict", default={}),
            )
        )
        try:
            plan = build_plan(args["variables"], args["devices"])
            plan["acceptance"] = validate_rules(args["acceptance"])
            plan["fleet"] = fleet_settings(args["variables"])
            plan["raid"] = validate_arrays(args["variables"].get("pts_raid"), args["listed"])
        except (PlanError, ValueError) as exc:
            raise AnsibleActionFail(f"pts_plan: {exc}; nothing was written") from None
        plan["listed"] = [{k: v for k, v in spec.items() if k in ("path", "name", "serial", "wwn")}
                          for spec in args["listed"]]
        resume = args["resume"]
        if resume:
            try:
                run_id = resume.get("run_id") or callback_option("run_id")
                results_dir = resume.get("results_dir") or callback_option("output_dir")
                if run_id:
                    _resume.mark_done(plan, results_dir, run_id, resume["host"])
                    plan["run_id"] = run_id
            except (OSError, ValueError, KeyError) as exc:
                raise AnsibleActionFail(f"pts_plan: cannot read the results of run {resume.get('run_id')}: {exc}") from None
        result.update(changed=False, pts_plan=plan, pts_context=args["context"])
        return result
