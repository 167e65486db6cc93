# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible.errors import AnsibleConnectionFailure

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_job_args
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _filing
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fio_client import FioClient, outcome


class ActionModule(PtsAction):
    """Run one fio job file on the host: the fio_job module writes it, re-checks the guard and starts fio detached
    (a dropped connection does not stop it); the controller then waits, checking sparsely until a second before fio is
    expected to finish (the previous round's run time is the best guess) and letting the host watch for fio's exit
    from then on, so the result is seen within hundredths of a second of fio's end. fio's output is parsed here, on
    the controller. With ``run_dir`` (the run's pts_run_dir) the result is filed in the run's results tree (preconditioning)
    and the task's result keeps only a summary of fio's output.
    """

    _supports_check_mode = True
    # The module's own options, checked here before the host is asked anything.
    ARGUMENT_SPEC = _fio_job_args.ARGUMENT_SPEC

    def run_action(self, result, args, task_vars):
        numbers = {name: float(args[name]) for name in ("expected_seconds", "reconnect_timeout", "timeout")}
        wait = args["wait"]
        # The module gets the task's arguments as given (it fills in its own defaults).
        run_dir = _filing.run_dir_of(args)
        args = _filing.module_args(self._task.args)
        if self._task.check_mode:
            result.update(self._execute_module(module_name="fleetqual.pts.fio_job", module_args=args,
                                               task_vars=task_vars))
            return result
        try:
            started = self._execute_module(module_name="fleetqual.pts.fio_job", module_args=dict(args, detach=True),
                                           task_vars=task_vars)
        except AnsibleConnectionFailure as exc:
            if not run_dir:
                raise
            started = {"failed": True, "pts_lost": True, "msg": f"lost the connection to the host: {exc}",
                       "pts_context": args.get("context") or {}}
        if started.get("failed") or "pts_fio_started" not in started or not wait:
            result.update(started)
        else:
            info = started["pts_fio_started"]
            limit = numbers["timeout"] + 120 if numbers["timeout"] else 86400.0
            client = FioClient(self._execute_module, self._low_level_execute_command)
            final = client.wait(info, numbers["expected_seconds"], limit, numbers["reconnect_timeout"])
            if "text" in final:
                job_text = args.get("job_text") if args.get("job_text") is not None else info.get("job_text")
                final = outcome(info, final.pop("text"), job_text, int(numbers["timeout"]))
            result.update(final, pts_context=started.get("pts_context") or args.get("context") or {})
        if run_dir:
            if result.pop("unreachable", False) or result.get("pts_lost"):
                # In a run a lost host ends the drive's tests, not its worker: on record, and the judge counts it.
                context = result.get("pts_context") or {}
                _filing.record_lost(run_dir, _filing.host_of(task_vars, result), context.get("drive"), result["msg"])
                result.update(failed=True, pts_lost=True)
            _filing.file_result(run_dir, task_vars, result)
            _filing.slim(result)
        return result
