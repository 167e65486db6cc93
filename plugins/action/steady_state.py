# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils import _pts, _steady_state

ARGUMENT_SPEC = dict(
    values=dict(type="list", elements="float"),
    history=dict(type="list", elements="float", default=[]),
    jobs=dict(type="list", elements="dict"),
    dv=dict(
        type="dict",
        options=dict(
            mix=dict(type="int", required=True),
            bs=dict(type="raw", required=True),
            metric=dict(type="str", default="iops", choices=list(_pts.DV_METRICS)),
        ),
    ),
    window=dict(type="int", default=_steady_state.DEFAULT_WINDOW),
    max_rounds=dict(type="int", default=_steady_state.DEFAULT_MAX_ROUNDS),
    max_data_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT),
    max_slope_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT),
    context=dict(type="dict", default={}),
)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # pure controller math; no round trip to the host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(
            argument_spec=ARGUMENT_SPEC,
            mutually_exclusive=[("values", "jobs")],
            required_one_of=[("values", "jobs")],
            required_together=[("jobs", "dv")],
        )
        try:
            _steady_state.check_limits(
                args["window"], args["max_rounds"], args["max_data_excursion_pct"], args["max_slope_excursion_pct"]
            )
            if args["jobs"] is not None:
                dv = args["dv"]
                current = _pts.dv_value(args["jobs"], dv["mix"], dv["bs"], dv["metric"])
                values = list(args["history"]) + [current]
            else:
                values = list(args["values"])
            if len(values) > args["max_rounds"]:
                raise ValueError(f"{len(values)} rounds exceed max_rounds {args['max_rounds']}")
            verdict = _steady_state.evaluate(
                values, args["window"], args["max_data_excursion_pct"], args["max_slope_excursion_pct"]
            )
        except (KeyError, ValueError) as exc:
            raise AnsibleActionFail(f"steady_state: {exc}") from None

        payload = verdict.as_dict()
        payload.update(round=len(values), dv_value=values[-1] if values else None, all_values=values,
                       max_rounds=args["max_rounds"], dv=args["dv"])
        result.update(
            changed=False,
            steady=verdict.steady,
            stop=verdict.steady or len(values) >= args["max_rounds"],
            dv_values=values,
            pts_steady_state=payload,
            pts_context=args["context"],
        )
        return result
