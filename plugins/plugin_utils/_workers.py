# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""One worker per guarded drive, so that every drive of every host runs its own purge, rounds and steady
state at the same time: the fleet's wall time is the slowest drive's, not the sum."""

from __future__ import annotations

import re

GROUP = "pts_drive_workers"


def _limit_names(limit: str | None) -> set[str]:
    """Literal host names in an --limit pattern (workers join a group of that name so the limit keeps them)."""
    if not limit:
        return set()
    return {token.lstrip("&!") for token in re.split(r"[,:]", limit) if token and not token.startswith("~")}


def workers(hostvars, hosts: list[str], limit: str | None = None, python: str | None = None,
            run_id: str | None = None) -> list[dict]:
    """The add_host arguments of one worker per drive the guard passed on each host: ``name``, ``groups`` and
    ``vars`` - exactly the variables the worker gets (its host, drive, the host's plan, the guard's record of the drive,
    the run id, a local connection with the controller's Python ``python``)."""
    found = []
    named = _limit_names(limit)
    for host in hosts:
        host_vars = hostvars[host]
        passed = host_vars.get("pts_guard_passed") or {}
        plan = host_vars.get("pts_run_plan") or {}
        planned = {d["key"] for d in plan.get("drives") or []}
        # RAID mode tests each md array in place of its members (pts_raid).
        tested = host_vars.get("pts_raid_tested_drives")
        for drive in (tested if tested is not None else host_vars.get("pts_identify_drives")) or []:
            if drive["path"] not in passed or drive["key"] not in planned:
                continue
            groups = [GROUP] + [g for g in host_vars.get("group_names") or [] if g != GROUP]
            if host in named:
                groups.append(host)
            found.append({
                "name": f"{host}/{drive['key']}",
                "groups": groups,
                "vars": {"pts_run_host": host, "pts_run_drive_key": drive["key"], "pts_run_drives": [drive],
                         "pts_run_plan": plan, "pts_guard_passed": {drive["path"]: passed[drive["path"]]},
                         "pts_run_id": run_id, "ansible_connection": "local", "ansible_python_interpreter": python},
            })
    return found
