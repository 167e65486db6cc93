# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The run's steps before its plan, on the controller: fixing its id and results directory once for every host
(fleetqual.pts.pts_run_start), and locking one host's part of the results for this ansible-playbook
(fleetqual.pts.pts_run_lock). pts_plan's deprecated ``fix_run`` and ``lock`` options run the same code."""

from __future__ import annotations

import os

from ansible.utils.display import Display
from ansible.utils.vars import load_extra_vars

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _extra_vars, _people, _results, _run, _run_lock, _safe_tree

display = Display()


class StepRefused(Exception):
    """A step refused before anything was written; the message says why (without the action's name)."""


def setting(name: str):
    """A setting of the pts_report callback's ansible.cfg section, None when unset or unreadable."""
    try:
        return _run.callback_option(name)
    except ValueError:
        return None


def checked_run_id(effective, loader) -> str | None:
    """The run id in force, refused (naming where it was set) unless it is one safe directory name."""
    candidates = _run.run_id_candidates(effective, load_extra_vars(loader).get("pts_run_id"),
                                        os.environ.get("PTS_RUN_ID"), setting("run_id"))
    try:
        for name, value in candidates:
            _run.same_directory(name, _inputs.run_id(name, value))
    except ValueError as exc:
        raise StepRefused(f"{exc}; nothing was written") from None
    return str(effective) if effective not in (None, "") else None


def start(task_vars: dict, template, loader, check_mode: bool) -> dict:
    """Once per run, before any host: extra variables that would replace the run's own state are refused; then the run
    id and the directory every host's results go under, said before anything is written (nothing is written here)."""
    refused = _extra_vars.refusal(load_extra_vars(loader))
    if refused:
        raise StepRefused(refused)
    run_id = checked_run_id(_run.run_id_in_force(template(task_vars.get("pts_run_id")), os.environ.get("PTS_RUN_ID"),
                                                 setting("run_id"), awx_job_id=task_vars.get("awx_job_id")), loader)
    try:
        root = _run.results_root(None, template(task_vars.get("pts_results_dir")))
    except ValueError as exc:
        raise StepRefused(f"{exc}; nothing was written") from None
    run_dir = os.path.join(root, run_id)
    display.display(f"PTS run {run_id}: results in {run_dir}{' (--check writes nothing)' if check_mode else ''}")
    for entry in cut_names(_results.command_line()):
        display.warning(entry)
    return {"pts_run_id": run_id, "pts_run_dir": run_dir}


def cut_names(command: dict | None) -> list[str]:
    """A test operator or auditor whose name Ansible's key=value parsing cut (given unquoted): said when the run
    starts, with a form that works; the report records the name whole."""
    given = _people.given((command or {}).get("extra_vars") or [])
    return [f"{_people.hint(_people.PEOPLE[who], entry)}; the report records {entry['name']!r}"
            for who, entry in given.items() if entry["cut"]]


def results_root(given: str | None, task_vars: dict, template) -> str:
    try:
        return _run.results_root(given, template(task_vars.get("pts_results_dir")))
    except ValueError as exc:
        raise StepRefused(f"{exc}; nothing was written") from None


def one_directory_per_host(host: str | None, play_hosts: list, run_dir: str) -> None:
    """Two inventory hosts whose names make one results directory (``2001:db8::12:1`` and ``2001:db8:12::1`` both
    become ``2001_db8_12_1``) would file their drives' rounds into one another's: refused before anything is
    written, naming both."""
    if not host:
        return
    same = sorted(str(other) for other in play_hosts
                  if str(other) != host and _results.safe_name(other) == _results.safe_name(host))
    if same:
        raise StepRefused(
            f"hosts {', '.join([host] + same)} would all keep their results in "
            f"{os.path.join(run_dir, _results.safe_name(host))}: give them inventory names that differ in letters, "
            "digits, '.', '_' or '-' (the address can stay in ansible_host); nothing was written")


def lock(run_dir: str, run_id: str, host: str | None, play_hosts: list, check_mode: bool, said_by: str) -> dict:
    """Take (under --check only judge) ``host``'s lock in the run's results directory - the whole run's without a
    host - for the ansible-playbook process running the task; return the run's token, the other live processes of
    the run and what was noted; a stale lock taken over is a warning and removed leftovers a line, both ``said_by``
    the action."""
    one_directory_per_host(host, play_hosts, run_dir)
    # Actions run in a worker process forked from the ansible-playbook process: that parent owns the run's host.
    try:
        taken = _run_lock.acquire(run_dir, run_id, os.getppid(), check_only=check_mode, host=host)
    except _run_lock.RunLocked as exc:
        raise StepRefused(str(exc)) from None
    except OSError as exc:
        raise StepRefused(f"cannot lock run {run_id} in {run_dir}: {exc}; nothing was written") from None
    result = {"pts_run_token": taken["token"]}
    if taken["message"]:
        display.warning(f"{said_by}: {taken['message']}")
        result["pts_run_lock_note"] = taken["message"]
    if taken.get("leftovers"):
        display.display(f"{said_by}: removed {len(taken['leftovers'])} temporary file(s) of writes killed in an earlier "
                        f"attempt of run {run_id}: "
                        f"{', '.join(os.path.relpath(path, run_dir) for path in taken['leftovers'])}")
        result["pts_run_leftovers_removed"] = taken["leftovers"]
    # Other live ansible-playbook processes of this run (job slices): none of their drives may be taken over.
    result["pts_run_concurrent"] = [
        _run_lock.describe(record) for name, record in sorted(_run_lock.host_locks(run_dir).items())
        if not _run_lock.same_owner(record, os.getppid()) and _run_lock.liveness(record)[0]]
    if host and not check_mode:
        # This attempt at the host starts afresh: an earlier attempt's failure no longer stands for it.
        stale = os.path.join(run_dir, _results.safe_name(host), "host-failure.json")
        if _safe_tree.exists(stale):
            _safe_tree.rename(stale, stale + ".earlier")
    return result
