# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils import _sweeps


def _cells(jobs: list[dict]) -> list[dict]:
    return [{"name": job["name"], "iops": job["total"]["iops"], "mb_s": job["total"]["bw_bytes"] / 1e6,
             "lat_mean_ns": job["total"]["lat_ns"]["mean"]} for job in jobs]


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # controller arithmetic only

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(argument_spec=dict(
            jobs=dict(type="list", elements="dict", required=True),
            round=dict(type="int", required=True),
            rounds=dict(type="int", required=True),
            label=dict(type="str", default=""),
            offered_iops=dict(type="int"),
            delivered=dict(type="list", elements="bool", default=[]),
            tolerance_pct=dict(type="float", default=5),
            misses=dict(type="int", default=2),
            context=dict(type="dict", default={}),
        ))
        try:
            cells = _cells(args["jobs"])
        except (KeyError, TypeError) as exc:
            raise AnsibleActionFail(f"sweep_progress: the round's fio jobs lack {exc}") from None
        row = {"round": args["round"], "rounds": args["rounds"], "label": args["label"], "cells": cells}
        delivered = []
        if args["offered_iops"]:
            achieved = sum(cell["iops"] for cell in cells)
            step = _sweeps.demand_step(args["offered_iops"], achieved, args["tolerance_pct"])
            delivered = list(args["delivered"]) + [step]
            stop, reason = _sweeps.demand_stop(delivered, args["misses"], args["rounds"])
            row.update(offered_iops=args["offered_iops"], achieved_iops=achieved, delivered=step,
                       tolerance_pct=args["tolerance_pct"])
        else:
            stop = args["round"] >= args["rounds"]
            reason = "sweep complete" if stop else f"row {args['round']} of {args['rounds']}"
        row.update(stop=stop, reason=reason)
        result.update(changed=False, stop=stop, delivered=delivered, pts_sweep=row, pts_context=args["context"])
        return result
