# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils import _pts, _steady_state

ARGUMENT_SPEC = dict(
    values=dict(type="list", elements="float"),
    history=dict(type="dict", default={}),
    jobs=dict(type="list", elements="dict"),
    dvs=dict(
        type="list",
        elements="dict",
        options=dict(
            name=dict(type="str"),
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


def _series(args: dict) -> tuple[list[dict], dict]:
    """The DVs and every round's value of each, this round's last."""
    if args["jobs"] is None:
        return [{"name": "dv", "mix": None, "bs": None, "metric": None}], {"dv": list(args["values"])}
    if not args["dvs"]:
        raise ValueError("dvs must name at least one dependent variable")
    dvs, series = [], {}
    for dv in args["dvs"]:
        dv = dict(dv, name=dv["name"] or _pts.dv_name(dict(dv, bs=_pts.parse_block_size(dv["bs"]))))
        previous = args["history"].get(dv["name"], [])
        if not isinstance(previous, list):
            raise ValueError(f"history of {dv['name']} is not a list")
        series[dv["name"]] = [float(v) for v in previous] + [_pts.dv_value(args["jobs"], dv["mix"], dv["bs"], dv["metric"])]
        dvs.append(dv)
    if len({len(values) for values in series.values()}) != 1:
        raise ValueError("the DVs' histories have different lengths")
    return dvs, series


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # pure controller math; no round trip to the host

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(
            argument_spec=ARGUMENT_SPEC,
            mutually_exclusive=[("values", "jobs")],
            required_one_of=[("values", "jobs")],
            required_together=[("jobs", "dvs")],
        )
        try:
            _steady_state.check_limits(
                args["window"], args["max_rounds"], args["max_data_excursion_pct"], args["max_slope_excursion_pct"]
            )
            dvs, series = _series(args)
            rounds = len(next(iter(series.values())))
            if rounds > args["max_rounds"]:
                raise ValueError(f"{rounds} rounds exceed max_rounds {args['max_rounds']}")
            judged = []
            for dv in dvs:
                values = series[dv["name"]]
                verdict = _steady_state.evaluate(
                    values, args["window"], args["max_data_excursion_pct"], args["max_slope_excursion_pct"]
                )
                judged.append(dict(verdict.as_dict(), **dv, dv_value=values[-1] if values else None))
        except (KeyError, ValueError) as exc:
            raise AnsibleActionFail(f"steady_state: {exc}") from None

        steady = all(j["steady"] for j in judged)
        result.update(
            changed=False,
            steady=steady,
            stop=steady or rounds >= args["max_rounds"],
            dv_values=series,
            pts_steady_state={"round": rounds, "steady": steady, "max_rounds": args["max_rounds"], "dvs": judged},
            pts_context=args["context"],
        )
        return result
