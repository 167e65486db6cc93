# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run, _run_steps
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction


class ActionModule(PtsAction):
    _requires_connection = False  # the lock is in the results tree on the controller
    ARGUMENT_SPEC = dict(
        run_id=dict(type="str"),
        results_dir=dict(type="path"),
        host=dict(type="str"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
    )

    def run_action(self, result, args, task_vars):
        run_id = _run_steps.checked_run_id(_run.run_id_given(args["run_id"]), self._loader)
        root = _run_steps.results_root(args["results_dir"])
        if not run_id:
            # A role run outside playbooks/pts.yml without a run: no results tree to lock.
            result.update(changed=False, pts_run_token=None, pts_run_concurrent=[])
            return result
        if args["state"] == "absent":
            # The run's own steps release what they took (a host whose part of the run ends before the judge); the
            # judge releases the rest. Only this ansible-playbook's lock; under --check none was taken.
            released = not self._task.check_mode and _run_steps.release(os.path.join(root, run_id), args["host"])
            result.update(changed=released)
            return result
        taken = _run_steps.lock(os.path.join(root, run_id), run_id, args["host"],
                                task_vars.get("ansible_play_hosts_all") or [], bool(self._task.check_mode),
                                "pts_run_lock")
        result.update(changed=False, **taken)
        # The run's token is for the holds on the hosts, not for the job's output: AWX stores every event, and anyone
        # who reads the job would read it. The result is registered whole; callbacks see it censored (a refusal
        # above still shows its message).
        result["_ansible_no_log"] = True
        return result
