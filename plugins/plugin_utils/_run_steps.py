# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The run's steps before its plan, on the controller: fixing its id and results directory once for every host
(fleetqual.pts.pts_run_start), and locking one host's part of the results for this ansible-playbook
(fleetqual.pts.pts_run_lock). The run id and results root are the actions' arguments (the pts_run role passes
pts_run_id and pts_results_dir), else the PTS_RUN_ID and PTS_RESULTS_DIR environment variables (plugin_utils/_run.py)."""

from __future__ import annotations

import os

from ansible import context
from ansible.utils.display import Display
from ansible.utils.vars import load_extra_vars

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError, PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs
from ansible_collections.fleetqual.pts.plugins.plugin_utils import (
    _destinations, _extra_vars, _people, _relaunch, _results, _run, _run_lock, _safe_tree)

display = Display()


class StepRefused(PtsError):
    """A step refused before anything was written; the message says why (without the action's name)."""


def checked_run_id(effective, loader) -> str | None:
    """The run id in force, refused (naming where it was set) unless it is one safe directory name."""
    candidates = _run.run_id_candidates(effective, load_extra_vars(loader).get("pts_run_id"),
                                        os.environ.get(_run.RUN_ID_ENV))
    try:
        for name, value in candidates:
            _run.same_directory(name, _inputs.run_id(name, value))
    except ValueError as exc:
        raise StepRefused(f"{exc}; nothing was written") from None
    return str(effective) if effective not in (None, "") else None


def start(task_vars: dict, loader, check_mode: bool, environ: dict | None = None, run_id: object = None,
          results_dir: object = None, publish: object = None, results_ephemeral: object = None,
          resume: object = None, after_run: object = None) -> dict:
    """Once per run, before any host: extra variables that would replace the run's own state are refused; then the run
    id (``run_id``, the pts_run_id variable the role passes, else PTS_RUN_ID, else a new one) and the directory every
    host's results go under (``results_dir``, the pts_results_dir variable, else PTS_RESULTS_DIR, else ``results``),
    the results hosts and buckets it is published to (``publish``, pts_run_publish), said before anything is written
    (nothing is written here). ``results_ephemeral``, ``resume`` and ``after_run`` are pts_results_ephemeral,
    pts_resume and pts_after_run as the role passes them; ``task_vars`` gives only what Ansible and AWX set (the AWX
    job ids, the play's hosts, hostvars, playbook_dir).
    Refused before the first write: results that would be lost with the job's private data directory (ansible-runner,
    AWX), a run id whose run finished for these hosts (a relaunch that would test nothing), a run with no drive host."""
    environ = os.environ if environ is None else environ
    extra = load_extra_vars(loader)
    refused = _extra_vars.refusal(extra)
    if refused:
        raise StepRefused(refused)
    given = (run_id, environ.get(_run.RUN_ID_ENV))
    workflow = task_vars.get("awx_workflow_job_id")
    run_id = checked_run_id(_run.run_id_in_force(*given, awx_job_id=task_vars.get("awx_job_id"),
                                                 awx_workflow_job_id=workflow), loader)
    try:
        root = _run.results_root(results_dir, "pts_results_dir", environ)
        targets = _destinations.targets(publish)
        lost_ok = _destinations.ephemeral(results_ephemeral)
        resuming = _relaunch.resume(resume)
        after_run = after_run_file(after_run, project_dir(task_vars))
    except ValueError as exc:
        raise StepRefused(f"{exc}; nothing was written") from None
    job_dir = _destinations.private_data_dir(environ)
    # --check writes nothing and tests nothing: it may plan a run whose results would be lost, or a finished one.
    lost = None if check_mode else _destinations.lost_refusal(root, targets, lost_ok, job_dir)
    if lost:
        raise StepRefused(lost)
    run_dir = os.path.join(root, run_id)
    results_hosts = _destinations.results_hosts(targets)
    drive_hosts = [str(h) for h in task_vars.get("ansible_play_hosts_all") or [] if str(h) not in results_hosts]
    if not drive_hosts and task_vars.get("ansible_play_hosts_all"):
        raise StepRefused(f"every host of the play is a results host of pts_publish ({', '.join(results_hosts)}): "
                          "no drive to test; nothing was written")
    source = _run.run_id_source(*given)
    from_workflow = source is None and _run.new_run_id(awx_workflow_job_id=workflow) == run_id
    if from_workflow:
        source = f"the default run id of AWX workflow job {workflow}, shared by its slices"
    if source is not None and not check_mode:
        try:
            again = _relaunch.refusal(run_id, run_dir, drive_hosts, resuming, source)
        except ValueError as exc:
            raise StepRefused(f"{exc}; nothing was written") from None
        if again:
            raise StepRefused(again)
    hostvars = task_vars.get("hostvars") or {}
    for host in results_hosts:
        if host in hostvars and hostvars[host].get("pts_devices"):
            display.warning(f"{host} is a results host of pts_publish: it is not prepared, guarded or judged, and its "
                            "pts_devices are not tested")
    name = publish_name(run_id, from_workflow, task_vars.get("awx_job_id"))
    kept = _destinations.persistent(root, job_dir)
    places = ([run_dir] if kept else []) + [_destinations.location(t, name) for t in targets]
    display.display(f"PTS run {run_id}: results in {run_dir}"
                    f"{'' if kept else ' (deleted with the job)'}"
                    f"{'; published to ' + ', '.join(places[1 if kept else 0:]) if targets else ''}"
                    f"{' (--check writes nothing)' if check_mode else ''}")
    for entry in cut_names(_results.command_line()):
        display.warning(entry)
    return {"pts_run_id": run_id, "pts_run_dir": run_dir, "pts_results": places, "pts_results_kept": kept,
            "pts_run_publish_name": name, "pts_run_results_hosts": results_hosts,
            "pts_run_publish_targets": targets, "pts_run_after_run": after_run}


def project_dir(task_vars: dict) -> str | None:
    """The directory of the playbook ansible-playbook was given (an AWX project's wrapper playbook); playbook_dir is
    the imported playbook's (the collection's)."""
    given = (context.CLIARGS or {}).get("args") or []
    if given and isinstance(given[0], str) and os.path.isfile(given[0]):
        return os.path.dirname(os.path.abspath(given[0]))
    return task_vars.get("playbook_dir")


def after_run_file(given: object, playbook_dir: object) -> str | None:
    """The operator's task file run after the judge (pts_after_run): a file of the project - a path relative to the
    directory of the playbook ansible-playbook was given, no '..' - so that what runs there is what the project holds,
    not a path a launcher names."""
    if given in (None, ""):
        return None
    where = f"pts_after_run={given!r}"
    if not isinstance(given, str) or os.path.isabs(given) or ".." in given.split("/"):
        raise InputError(f"{where}: must be a task file of the project, a path relative to the playbook's directory "
                         "without '..'")
    if not isinstance(playbook_dir, str) or not playbook_dir:
        raise InputError(f"{where}: the playbook's directory is not known")
    path = os.path.join(playbook_dir, given)
    if not os.path.isfile(path) or os.path.islink(path):
        raise InputError(f"{where}: {path} is not a regular file of the project")
    return path


def publish_name(run_id: str, from_workflow: bool, awx_job_id: object) -> str:
    """The name the run is published under: its run id; for a job of an AWX workflow that took the workflow's default
    id (a slice of a sliced job, whose results tree holds its own hosts only), ``<run id>-job<AWX job id>``, so that
    the slices' copies sit side by side instead of one keeping the other aside."""
    if from_workflow and str(awx_job_id or "").isdigit():
        return f"{run_id}-job{awx_job_id}"
    return run_id


def cut_names(command: dict | None) -> list[str]:
    """A test operator or auditor whose name Ansible's key=value parsing cut (given unquoted): said when the run
    starts, with a form that works; the report records the name whole."""
    given = _people.given((command or {}).get("extra_vars") or [])
    return [f"{_people.hint(_people.PEOPLE[who], entry)}; the report records {entry['name']!r}"
            for who, entry in given.items() if entry["cut"]]


def results_root(given: str | None) -> str:
    """The results root an action was given, else PTS_RESULTS_DIR, else ``results`` (_run.results_root)."""
    try:
        return _run.results_root(given)
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


def release(run_dir: str, host: str | None) -> bool:
    """Release ``host``'s lock in the run's results directory (the whole run's without a host) if the ansible-playbook
    process running the task holds it; True when released."""
    try:
        # Actions run in a worker process forked from the ansible-playbook process: that parent owns the lock.
        return _run_lock.release(run_dir, os.getppid(), host=host)
    except OSError as exc:
        raise StepRefused(f"cannot release the lock of {host or 'the run'} in {run_dir}: {exc}") from None
