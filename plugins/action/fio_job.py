# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()

# Keys the async machinery adds to a finished job's result; the round's result is the module's own.
_ASYNC_KEYS = ("ansible_job_id", "results_file", "started", "finished")
_MAX_POLL_INTERVAL = 60.0


class ActionModule(ActionBase):
    """Run the fio_job module; under ``async`` with ``poll: 0``, wait for it without a callback per poll.

    fio then runs detached on the host (a dropped connection does not stop it) and the controller polls
    with back-off until the time fio is expected to finish, then every second, so a round costs at most
    about a second of polling beyond fio's own run time.
    """

    _supports_async = True
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = dict(self._task.args)
        wait = args.get("wait", True)
        expected = args.get("expected_seconds") or 0
        reconnect = args.get("reconnect_timeout", 300)
        if not isinstance(wait, bool):
            raise AnsibleActionFail(f"fio_job: wait={wait!r} must be a boolean")
        try:
            expected = float(expected)
        except (TypeError, ValueError):
            raise AnsibleActionFail(f"fio_job: expected_seconds={expected!r} must be a number of seconds") from None
        try:
            reconnect = float(reconnect)
        except (TypeError, ValueError):
            raise AnsibleActionFail(f"fio_job: reconnect_timeout={reconnect!r} must be a number of seconds") from None

        wrap_async = bool(self._task.async_val) and not self._connection.has_native_async
        started = self._execute_module(module_name="fleetqual.pts.fio_job", module_args=args, task_vars=task_vars,
                                       wrap_async=wrap_async)
        quiet_wait = wrap_async and wait and not self._task.poll and "ansible_job_id" in started
        if not quiet_wait or started.get("failed") or started.get("finished"):
            result.update(started)
            return result

        jid = started["ansible_job_id"]
        final = self._wait(jid, task_vars, expected, float(self._task.async_val), reconnect)
        if not final.get("unreachable"):
            try:
                self._async_status(jid, task_vars, "cleanup")
            except AnsibleConnectionFailure as exc:
                display.warning(f"fio_job: could not remove the async status of job {jid}: {exc}")
        for key in _ASYNC_KEYS:
            final.pop(key, None)
        result.update(final)
        return result

    def _async_status(self, jid: str, task_vars: dict, mode: str) -> dict:
        task = self._task.copy()
        task.args = {"jid": jid, "mode": mode}
        task.action = "ansible.builtin.async_status"
        task.async_val = 0
        action = self._shared_loader_obj.action_loader.get(
            task.action, task=task, connection=self._connection, play_context=self._play_context,
            loader=self._loader, templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        return action.run(task_vars=task_vars)

    def _wait(self, jid: str, task_vars: dict, expected: float, limit: float, reconnect: float = 300.0) -> dict:
        start = time.monotonic()
        lost_since = None
        deadline = start + limit
        expected_end = start + expected
        interval = 1.0
        while True:
            now = time.monotonic()
            if now >= deadline:
                return {"failed": True, "msg": f"fio_job: fio did not finish within async={limit:g} s (job {jid})"}
            if now >= expected_end:
                sleep = 1.0
            else:
                sleep = min(interval, expected_end - now, _MAX_POLL_INTERVAL)
                interval *= 2
            time.sleep(max(sleep, 0.05))
            try:
                status = self._async_status(jid, task_vars, "status")
            except AnsibleConnectionFailure as exc:
                # fio goes on on the host; reconnect at the next poll, unless the host stays away too long.
                lost_since = lost_since or time.monotonic()
                if time.monotonic() - lost_since >= reconnect:
                    return {"unreachable": True, "msg": f"fio_job: no connection to the host for {reconnect:g} s while "
                                                        f"waiting for fio (job {jid}, which may still run there): {exc}"}
                display.warning(f"fio_job: lost the connection while waiting for job {jid}, retrying: {exc}")
                continue
            lost_since = None
            if status.get("finished") or (status.get("failed") and not status.get("started")):
                return status
