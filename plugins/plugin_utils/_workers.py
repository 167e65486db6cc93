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
# What a worker takes from its host: the operator's pts_* inputs and the facts of identify, guard and plan.
_SKIP = ("pts_identify_drives", "pts_identify_host", "pts_guard_passed", "pts_raid_tested_drives",
         "pts_raid_guard_passed")


def _limit_names(limit: str | None) -> set[str]:
    """Literal host names in an --limit pattern (workers join a group of that name so the limit keeps them)."""
    if not limit:
        return set()
    return {token.lstrip("&!") for token in re.split(r"[,:]", limit) if token and not token.startswith("~")}


def workers(hostvars, hosts: list[str], limit: str | None = None) -> list[dict]:
    """add_host entries: name, groups and vars of one worker per drive the guard passed on each host."""
    found = []
    named = _limit_names(limit)
    for host in hosts:
        host_vars = hostvars[host]
        passed = host_vars.get("pts_guard_passed") or {}
        plan = host_vars.get("pts_run_plan") or {}
        planned = {d["key"] for d in plan.get("drives") or []}
        inputs = {k: host_vars[k] for k in host_vars if k.startswith("pts_") and k not in _SKIP}
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
                "vars": dict(inputs, pts_run_host=host, pts_run_drive_key=drive["key"], pts_run_drives=[drive],
                             pts_guard_passed={drive["path"]: passed[drive["path"]]}, ansible_connection="local"),
            })
    return found
