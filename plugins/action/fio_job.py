# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import shlex
import time

from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()

# Keys the async machinery adds to a finished job's result; the round's result is the module's own.
_ASYNC_KEYS = ("ansible_job_id", "results_file", "started", "finished")
_MAX_POLL_INTERVAL = 60.0
# Near the expected end a poll is one `cat` of the job's status file, so it can be frequent: a round's result
# is seen within this many seconds of fio's end. Past the expected end by _LATE_S, polls slow to once a second.
_CLOSE_POLL_S = 0.25
_LATE_S = 30.0


class ActionModule(ActionBase):
    """Run the fio_job module; under ``async`` with ``poll: 0``, wait for it without a callback per poll.

    fio then runs detached on the host (a dropped connection does not stop it) and the controller polls
    with back-off until a second before fio is expected to finish (the previous round's run time is the best
    guess), then every quarter second. A poll reads the job's status file with one shell command, not a
    module run, so a round costs well under a second of harness time beyond fio's own.
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
        status_file = started.get("results_file") or self._status_file(jid)
        final = self._wait(jid, status_file, expected, float(self._task.async_val), reconnect)
        if not final.get("unreachable"):
            try:
                self._low_level_execute_command(f"rm -f {shlex.quote(status_file)}")
            except AnsibleConnectionFailure as exc:
                display.warning(f"fio_job: could not remove the async status of job {jid}: {exc}")
        for key in _ASYNC_KEYS:
            final.pop(key, None)
        result.update(final)
        return result

    def _status_file(self, jid: str) -> str:
        async_dir = self.get_shell_option("async_dir", default="~/.ansible_async")
        return self._connection._shell.join_path(self._remote_expand_user(async_dir), jid)

    def _peek(self, jid: str, status_file: str) -> dict | None:
        """The job's result once it has finished, else None; as async_status reads it, without a module run."""
        res = self._low_level_execute_command(f"cat {shlex.quote(status_file)}")
        if res.get("rc") != 0:
            return {"failed": True, "msg": f"fio_job: the status of job {jid} is gone ({status_file}): "
                                           f"{(res.get('stderr') or '').strip()}"}
        try:
            data = json.loads(res.get("stdout") or "")
        except ValueError:
            return None  # not written yet
        if not isinstance(data, dict) or "started" in data:
            return None  # async_wrapper's placeholder: the module still runs
        return data

    def _wait(self, jid: str, status_file: str, expected: float, limit: float, reconnect: float = 300.0) -> dict:
        start = time.monotonic()
        lost_since = None
        deadline = start + limit
        expected_end = start + expected
        interval = 1.0
        while True:
            now = time.monotonic()
            if now >= deadline:
                return {"failed": True, "msg": f"fio_job: fio did not finish within async={limit:g} s (job {jid})"}
            remaining = expected_end - now
            if remaining > 1.0 + _CLOSE_POLL_S:
                sleep = min(interval, remaining - 1.0, _MAX_POLL_INTERVAL)
                interval *= 2
            elif remaining > -_LATE_S:
                sleep = _CLOSE_POLL_S
            else:
                sleep = 1.0
            time.sleep(max(sleep, 0.05))
            try:
                status = self._peek(jid, status_file)
            except AnsibleConnectionFailure as exc:
                # fio goes on on the host; reconnect at the next poll, unless the host stays away too long.
                lost_since = lost_since or time.monotonic()
                if time.monotonic() - lost_since >= reconnect:
                    return {"unreachable": True, "msg": f"fio_job: no connection to the host for {reconnect:g} s while "
                                                        f"waiting for fio (job {jid}, which may still run there): {exc}"}
                display.warning(f"fio_job: lost the connection while waiting for job {jid}, retrying: {exc}")
                continue
            lost_since = None
            if status is not None:
                return status
