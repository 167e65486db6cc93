# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The step that produced a result files it: the collection's action plugins write their module's ``pts_*`` payload
into the run's results tree on the controller as the result comes back (atomically, see _results), so nothing depends
on a callback being enabled. The task's own result then keeps a summary, so callback events stay small.

``FilingAction`` is the action plugin of a module that runs on the host (identity, guard, purge, write cache, health,
md array): it runs the module of its own name and files the result under the run directory its task names
(``run_dir``: the role's tasks pass the run's ``pts_run_dir``; without it nothing is filed). A lost connection is filed
as the drive's ``lost.json`` and returned as a failure, so the drive's rescue runs and the other drives go on.
"""

from __future__ import annotations

import os

from ansible.errors import AnsibleConnectionFailure
from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _progress, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import PtsAction

display = Display()

# Result keys too large for a callback event, kept on disk only.
_BULKY = ("pts_fio_raw", "stdout", "stdout_lines", "stderr_lines", "job_text")
_STDERR_CHARS = 2000


def run_dir_of(args: dict) -> str | None:
    """Where this step's results go: the task's ``run_dir`` argument (the run's directory, pts_run_dir); None without
    one (a module used on its own files nothing)."""
    found = (args or {}).get("run_dir")
    return str(found) if found else None


def module_args(args: dict) -> dict:
    """The task's arguments for the module on the host: without ``run_dir``, a place on the controller."""
    return {key: value for key, value in (args or {}).items() if key != "run_dir"}


def host_of(task_vars: dict, data: dict) -> str:
    """The host a result belongs to: the drive's host named in its context, else the task's host."""
    context = data.get("pts_context") or {}
    return str(context.get("host") or (task_vars or {}).get("inventory_hostname") or "localhost")


def file_result(run_dir: str, task_vars: dict, data: dict) -> None:
    """File one result's pts_* payload; a result that cannot be filed fails (the step's evidence would be lost)."""
    if not any(key.startswith("pts_") for key in data):
        return
    try:
        _results.file_payload(run_dir, host_of(task_vars, data), data)
    except (OSError, PtsError) as exc:
        data.update(failed=True, msg=f"{data.get('msg') or 'the result'} could not be recorded under {run_dir}: {exc}")


def slim(data: dict) -> dict:
    """The task's result once the payload is on disk: fio's output reduced to its run time and sections."""
    for key in _BULKY:
        data.pop(key, None)
    fio = data.get("pts_fio")
    if isinstance(fio, dict):
        data["pts_fio"] = {"elapsed_s": fio.get("elapsed_s"), "sections": len(fio.get("jobs") or []),
                           "job_file": fio.get("job_file")}
    if isinstance(data.get("stderr"), str):
        data["stderr"] = data["stderr"][-_STDERR_CHARS:]
    return data


def say_check(task_vars: dict, data: dict) -> None:
    """--check: each listed drive's identity and the guard's verdict on the console; nothing is written."""
    for line in _progress.check_lines(host_of(task_vars, data), data):
        display.display(_progress.plain(line))


def record_lost(run_dir: str, host: str, drive: str | None, msg: str) -> None:
    """The drive's host went away: its verdict says so (INCOMPLETE, host lost) instead of guessing."""
    path = _results.drive_dir(run_dir, host, drive) if drive else os.path.join(run_dir, _results.safe_name(host))
    try:
        _results.atomic_write_json(os.path.join(path, "lost.json"), {"msg": msg, "recorded_at": _results.now_iso()})
    except OSError as exc:
        display.warning(f"fleetqual.pts: could not record that {host} was lost: {exc}")


class FilingAction(PtsAction):
    """Run the module of this action's name on the (delegated) host, then file its payload under the task's ``run_dir``
    on the controller. The module checks its own arguments on the host (no ARGUMENT_SPEC here); its spec lists
    ``run_dir`` too, which never reaches the host."""

    def run_action(self, result, args, task_vars):
        run_dir = run_dir_of(args)
        context = args.get("context") if isinstance(args.get("context"), dict) else {}
        try:
            found = self._execute_module(module_name=self._task.resolved_action or self._task.action,
                                         module_args=module_args(args), task_vars=task_vars)
        except AnsibleConnectionFailure as exc:
            if not (run_dir and context.get("drive")):
                raise
            msg = f"lost the connection to {context.get('host')}: {exc}"
            if not self._task.check_mode:
                record_lost(run_dir, str(context.get("host")), context.get("drive"), msg)
            result.update(failed=True, msg=msg, pts_lost=True)
            return result
        result.update(found)
        if self._task.check_mode:
            say_check(task_vars, result)
        elif run_dir:
            file_result(run_dir, task_vars, result)
        return slim(result)
