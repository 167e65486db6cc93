# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils import _pts
from ansible_collections.fleetqual.pts.plugins.module_utils._fio import find_job


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False  # controller arithmetic only

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        dummy, args = self.validate_argument_spec(argument_spec=dict(
            jobs=dict(type="list", elements="dict", required=True),
            written=dict(type="int", default=0),
            target_bytes=dict(type="int", required=True),
            elapsed_s=dict(type="float", required=True),
            max_seconds=dict(type="float", required=True),
            round=dict(type="int", required=True),
            context=dict(type="dict", default={}),
        ))
        try:
            this_round = _pts.written_bytes(args["jobs"])
            job = find_job(args["jobs"], 0, _pts.WSAT_BLOCK_SIZE)
        except (KeyError, ValueError, TypeError) as exc:
            raise AnsibleActionFail(f"wsat_progress: {exc}") from None
        written = args["written"] + this_round
        stop, reason = _pts.wsat_stop(written, args["target_bytes"], args["elapsed_s"], args["max_seconds"])
        result.update(
            changed=False,
            stop=stop,
            written=written,
            pts_wsat={
                "round": args["round"], "stop": stop, "reason": reason, "written": written,
                "round_written": this_round, "target_bytes": args["target_bytes"],
                "iops": job["total"]["iops"], "lat_mean_ns": job["total"]["lat_ns"]["mean"],
                "lat_max_ns": job["total"]["lat_ns"]["max"],
            },
            pts_context=args["context"],
        )
        return result
