# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _steady_state
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction


def judge(args: dict) -> dict:
    """The verdict over the series' last window, as after its last round."""
    _steady_state.check_limits(args["window"], args["max_rounds"], args["max_data_excursion_pct"],
                               args["max_slope_excursion_pct"])
    values = list(args["values"])
    if len(values) > args["max_rounds"]:
        raise _steady_state.SteadyStateError(f"{len(values)} rounds exceed max_rounds {args['max_rounds']}")
    verdict = _steady_state.evaluate(values, args["window"], args["max_data_excursion_pct"],
                                     args["max_slope_excursion_pct"])
    judged = dict(verdict.as_dict(), name="dv", mix=None, bs=None, metric=None,
                  dv_value=values[-1] if values else None)
    stop = verdict.steady or len(values) >= args["max_rounds"]
    return {"round": len(values), "steady": verdict.steady, "stop": stop, "reason": verdict.reason,
            "max_rounds": args["max_rounds"], "dvs": [judged]}


class ActionModule(PtsAction):
    """A user's own series judged by the SNIA PTS steady-state rule (the PTS roles judge theirs in pts_segment)."""

    _requires_connection = False  # pure controller math; no round trip to the host
    ARGUMENT_SPEC = dict(
        values=dict(type="list", elements="float", required=True),
        window=dict(type="int", default=_steady_state.DEFAULT_WINDOW),
        max_rounds=dict(type="int", default=_steady_state.DEFAULT_MAX_ROUNDS),
        max_data_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT),
        max_slope_excursion_pct=dict(type="float", default=_steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT),
    )

    def run_action(self, result, args, task_vars):
        payload = judge(args)
        result.update(changed=False, steady=payload["steady"], stop=payload["stop"], pts_steady_state=payload)
        return result
