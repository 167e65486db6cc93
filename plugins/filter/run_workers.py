# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: run_workers
short_description: The host pattern of the run's drive workers, let through the host limit that selected their hosts
version_added: 2.0.0
description:
  - Meant for the C(hosts) line of the play that runs the drive workers (the second play of C(playbooks/pts.yml)),
    which ansible-core templates on the controller just before that play picks its hosts. Returns C(pts_drive_workers),
    the group of the workers that P(fleetqual.pts.drive_workers#filter) made.
  - ansible-core applies C(--limit) to hosts added during the run too, so under C(-l stor-12-01) (a host), a retry
    file, a pattern or an exclusion, the workers would match nothing and no drive would be tested. When a limit is in
    force, this narrows it to exactly the hosts it selected, by name, plus the workers - the later plays then run the
    drives of the selected hosts and nothing else. ansible-core has no public way to do this; the inventory is reached
    through C(hostvars). Where it cannot be, it warns, and the judge reports every drive without a worker as not
    tested, so the run fails rather than pass untested drives.
  - Refuses C(--start-at-task) (an error before the play starts) - the run's first play validates, guards and plans
    every drive, and a run started past it would end with nothing tested and nothing judged.
  - Adds the drive workers to the inventory - one per drive the guard passed and the plan covers on each prepared host
    (P(fleetqual.pts.drive_workers#filter)), each with its own drive's part of the plan and never the run's token -
    here, in the main ansible-playbook process, so that no task result (no event AWX stores) carries them. Since 3.0.0;
    workers a playbook of one's own added with C(ansible.builtin.add_host) are kept (their variables updated).
  - When there are no workers (C(--check), which plans and stops, or no drive passed), the group is made empty in
    the inventory, so that the play matches no host without ansible-core's warning that the pattern matches nothing.
  - It says how many drives run at once under the C(forks) in force (a warning when C(forks) is lower than the
    drive count, with what to set), loads the report libraries (matplotlib, WeasyPrint) once here, so that every
    worker drawing its drive's report shares them instead of loading its own, and freezes the controller's Python
    objects (C(gc.freeze())) before the workers fork, so that no long-running
    worker's garbage collector copies the controller's memory pages into its own.
options:
  _input:
    description: C(hostvars).
    type: raw
    required: true
author:
  - fleetqual.pts contributors (@fleetqual)
"""

EXAMPLES = r"""
- name: Run the PTS on every drive, all at once
  hosts: "{{ hostvars | default({}) | fleetqual.pts.run_workers }}"
  strategy: ansible.builtin.free
  gather_facts: false
  tasks:
    - name: Run the selected tests on this drive
      ansible.builtin.include_role:
        name: fleetqual.pts.pts_run
        tasks_from: worker
"""

RETURN = r"""
_value:
  description: The host pattern of the drive workers, C(pts_drive_workers).
  type: str
"""

import gc
import inspect
import sys

from ansible import context
from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _concurrency
from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import GROUP, workers as drive_workers

display = Display()


def _say_concurrency(workers) -> None:
    drives = []
    for worker in workers:
        key = worker.vars.get("pts_run_drive_key")
        plan = worker.vars.get("pts_run_plan") or {}
        left = _concurrency.remaining(next((d for d in plan.get("drives") or [] if d.get("key") == key), None) or {})
        if left:
            drives.append({"host": worker.vars.get("pts_run_host"), "key": key, "min_s": left[0], "max_s": left[1]})
    forks, origin = _concurrency.forks_in_force()
    found = _concurrency.summary(drives, forks)
    if found:
        line = _concurrency.message(found, origin)
        (display.warning if found["forks"] < found["drives"] else display.display)(line)


def run_workers(hostvars) -> str:
    start_at = (context.CLIARGS or {}).get("start_at_task")
    if start_at:
        # Past the first play nothing was validated, guarded or planned, and from the judge on nothing is tested:
        # a run that starts there would end with nothing to judge (a resume is the same run id, from the start).
        raise AnsibleFilterError(f"--start-at-task {start_at!r} is refused: a PTS run starts at its first task (the "
                                 "first play validates, guards and plans every drive); to resume a run, run it again "
                                 "from the start with -e pts_run_id=<its run id>")
    inventory = getattr(hostvars, "_inventory", None)
    if isinstance(hostvars, dict) and not hostvars:
        return GROUP  # --syntax-check: no inventory, no workers
    if inventory is None or not callable(getattr(inventory, "subset", None)):
        if (context.CLIARGS or {}).get("subset"):
            display.warning("fleetqual.pts.run_workers: the inventory cannot be reached from hostvars, so the drive "
                            "workers may not pass --limit; a drive without a worker is reported as not tested")
        return GROUP
    if GROUP not in inventory.groups:
        # No worker was added (--check plans and stops, or no drive passed): an empty group matches no host without
        # ansible-core's "Could not match supplied host pattern", a warning the run did not earn.
        inventory.add_group(GROUP)
    if not (context.CLIARGS or {}).get("check"):
        _add_workers(hostvars, inventory)
    workers = inventory.get_hosts(GROUP, ignore_limits=True, ignore_restrictions=True)
    if workers and (context.CLIARGS or {}).get("subset"):
        selected = [host.name for host in inventory.get_hosts("all", ignore_restrictions=True)
                    if GROUP not in {group.name for group in host.get_groups()}]
        inventory.subset(selected + [GROUP])
    if workers:
        _say_concurrency(workers)
        _preload_reports()
    gc.freeze()
    return GROUP


def _add_workers(hostvars, inventory) -> None:
    """One worker per guarded, planned drive of every host the prepare play got to its plan, added as add_host would
    add it (InventoryManager.add_dynamic_host), from the hosts' facts."""
    prepared = [host.name for host in inventory.get_hosts("all", ignore_limits=True, ignore_restrictions=True)
                if GROUP not in {group.name for group in host.get_groups()} and hostvars[host.name].get("pts_run_plan")]
    try:
        found = drive_workers(hostvars, prepared, sys.executable, groups=dict(inventory.groups))
    except PtsError as exc:
        raise AnsibleFilterError(f"fleetqual.pts.run_workers: {exc}") from exc
    for entry in found:
        _add_host(inventory, entry["name"], entry["vars"], entry["groups"])


def _add_host(inventory, name: str, host_vars: dict, groups: list) -> None:
    """InventoryManager.add_dynamic_host as add_host calls it: a dict and a task result up to ansible-core 2.20, an
    AddHost record from 2.21 on (the only form it takes there)."""
    if "result_item" in inspect.signature(inventory.add_dynamic_host).parameters:
        inventory.add_dynamic_host({"host_name": name, "host_vars": host_vars, "groups": groups}, {"refresh": True})
        return
    from ansible._internal._task import AddHost  # pylint: disable=import-outside-toplevel

    inventory.add_dynamic_host(AddHost(host_name=name, host_vars=host_vars, parent_group_names=groups))


def _preload_reports() -> None:
    # Imported here, not at the top: a filter file is loaded for every template that names one of its filters.
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import (  # pylint: disable=import-outside-toplevel
        _drive_report, _html)

    if "pdf" in _drive_report.formats_from_env():
        _html.pdf_available()


class FilterModule:
    def filters(self):
        return {"run_workers": run_workers}
