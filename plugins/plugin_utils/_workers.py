# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""One worker per guarded drive, so that every drive of every host runs its own purge, rounds and steady
state at the same time: the fleet's wall time is the slowest drive's, not the sum.

A worker is an inventory host named ``<host>/<drive>``; a name that is already an inventory host or group is refused
(the run would test the wrong thing, or ansible-core would warn of a host and a group of one name). The workers join
the group ``pts_drive_workers`` and their host's groups; the filter ``fleetqual.pts.run_workers`` lets them through
whatever ``--limit`` selected their hosts, and adds them to the inventory itself (in the main ansible-playbook process,
where that play's host line is templated), so that no task result carries them: an ``add_host`` loop over every
drive of every host was one event that grew with the drives of a host times the hosts of the fleet.

A worker gets only its own drive's part of its host's plan and of the guard's record, and never the run's token (the
worker reads it from its host's facts when a step needs it; no event shows it)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

GROUP = "pts_drive_workers"
# The plan's lists that name every drive of the host: a worker keeps its own drive's entry.
_PER_DRIVE = ("drives",)


class WorkerNameTaken(PtsError, ValueError):
    """A drive's worker would be named like an inventory host or group."""


def name(host: str, drive_key: str) -> str:
    return f"{host}/{drive_key}"


def workers(hostvars, hosts: list[str], python: str | None = None, run_id: str | None = None,
            run_dir: str | None = None, groups: dict | None = None) -> list[dict]:
    """The add_host arguments of one worker per drive the guard passed and the plan covers on each host (of the host's
    ``pts_run_drives``, the drives the pts_run role's plan step was made for and published): ``name``,
    ``groups`` and ``vars`` - exactly the variables the worker gets (its host, drive, its drive's part of the host's
    plan, the guard's record of the drive, the run id and directory, a local connection with the controller's Python
    ``python``). ``run_id`` and ``run_dir`` default to the host's own facts.
    WorkerNameTaken (a ValueError) when a worker's name is an inventory host or group (``groups``: the inventory's groups)."""
    found = []
    taken = set(groups or {})
    for host in hosts:
        host_vars = hostvars[host]
        passed = host_vars.get("pts_guard_passed") or {}
        plan = host_vars.get("pts_run_plan") or {}
        planned = {d["key"] for d in plan.get("drives") or []}
        for drive in host_vars.get("pts_run_drives") or []:
            if drive["path"] not in passed or drive["key"] not in planned:
                continue
            worker = name(host, drive["key"])
            if worker in taken or (worker in hostvars and worker not in _workers_of(hostvars, worker)):
                raise WorkerNameTaken(f"the worker of drive {drive['key']} of {host} would be named {worker!r}, which is "
                                      "already an inventory host or group; rename the pts_devices entry (its name)")
            found.append({
                "name": worker,
                "groups": [GROUP] + [g for g in host_vars.get("group_names") or [] if g != GROUP],
                "vars": {"pts_run_host": host, "pts_run_drive_key": drive["key"], "pts_run_drives": [drive],
                         "pts_run_plan": drive_plan(plan, drive["key"]),
                         "pts_guard_passed": {drive["path"]: passed[drive["path"]]},
                         "pts_run_id": run_id or host_vars.get("pts_run_id"),
                         "pts_run_dir": run_dir or host_vars.get("pts_run_dir"), "ansible_connection": "local",
                         "ansible_python_interpreter": python},
            })
    return found


def drive_plan(plan: dict, key: str) -> dict:
    """The host's plan as one drive's worker needs it: the settings, limits and run of the host's plan, and of its
    per-drive lists the drive's own entry only."""
    return dict(plan, **{name: [d for d in plan.get(name) or [] if isinstance(d, dict) and d.get("key") == key]
                         for name in _PER_DRIVE})


def _workers_of(hostvars, worker: str) -> set[str]:
    """The name itself when that inventory host is a worker an earlier run of this playbook process added."""
    try:
        known = hostvars[worker]
    except KeyError:
        return set()
    return {worker} if GROUP in (known.get("group_names") or []) else set()
