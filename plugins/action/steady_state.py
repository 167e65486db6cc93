# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _rounds, _spec, _steady_state

ARGUMENT_SPEC = dict(
    values=dict(type="list", elements="float"),
    state=dict(type="dict"),
    jobs=dict(type="list", elements="dict"),
    dvs=dict(
        type="list",
        elements="dict",
        options=dict(
            name=dict(type="str"),
            mix=dict(type="int", required=True),
            bs=dict(type="raw", required=True),
            metric=dict(type="str", default="iops", choices=list(_spec.DV_METRICS)),
        ),
    ),
    window=dict(type="int", default=_steady_state.DEFAULT_WINDOW),
    max_rounds=dict(type="int", default=_steady_state.DEFAULT_MAX_ROUNDS),
    max_data_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT),
    max_slope_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT),
    context=dict(type="dict", default={}),
)


def _judge_series(args: dict) -> dict:
    """A plain series: the verdict over its last window, as after its last round."""
    values = list(args["values"])
    if len(values) > args["max_rounds"]:
        raise ValueError(f"{len(values)} rounds exceed max_rounds {args['max_rounds']}")
    verdict = _steady_state.evaluate(values, args["window"], args["max_data_excursion_pct"],
                                     args["max_slope_excursion_pct"])
    judged = dict(verdict.as_dict(), name="dv", mix=None, bs=None, metric=None,
                  dv_value=values[-1] if values else None)
    stop = verdict.steady or len(values) >= args["max_rounds"]
    return {"round": len(values), "steady": verdict.steady, "stop": stop, "reason": verdict.reason,
            "max_rounds": args["max_rounds"], "dvs": [judged]}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # pure controller math; no round trip to the host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(
            argument_spec=ARGUMENT_SPEC,
            mutually_exclusive=[("values", "jobs"), ("values", "state")],
            required_one_of=[("values", "jobs")],
            required_together=[("jobs", "dvs")],
        )
        rule = {"kind": "steady", "dvs": args["dvs"], "window": args["window"], "max_rounds": args["max_rounds"],
                "max_data_excursion_pct": args["max_data_excursion_pct"],
                "max_slope_excursion_pct": args["max_slope_excursion_pct"]}
        try:
            _steady_state.check_limits(args["window"], args["max_rounds"], args["max_data_excursion_pct"],
                                       args["max_slope_excursion_pct"])
            if args["values"] is not None:
                payload, state = _judge_series(args), None
            else:
                _rounds.check_rule(rule)
                state = args["state"] or _rounds.start("steady_state", "steady", time.time())
                state, dummy, payload = _rounds.advance(state, rule, args["jobs"], time.time())
        except (KeyError, ValueError) as exc:
            raise AnsibleActionFail(f"steady_state: {exc}") from None
        result.update(changed=False, steady=payload["steady"], stop=payload["stop"], pts_steady_state=payload,
                      pts_context=args["context"])
        if state is not None:
            result["state"] = state
        return result
