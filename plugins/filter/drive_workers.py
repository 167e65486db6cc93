# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: drive_workers
short_description: One add_host entry per drive the guard passed, so every drive runs at the same time
version_added: 1.0.0
description:
  - For each host, one worker per drive of its C(pts_run_drives) that the guard passed and the plan covers - the drives
    the pts_run role's plan step was made for, which it publishes as the host's C(pts_run_drives) (with RAID mode's md
    arrays in place of their members). A worker is a
    controller-side inventory host that runs one drive's purge, preconditioning and rounds, delegating every
    step that touches the drive to its host; with the C(free) strategy all drives of all hosts run at once.
  - A worker gets exactly the variables its C(vars) lists - its host (C(pts_run_host)), its drive
    (C(pts_run_drive_key), C(pts_run_drives)), its drive's part of the host's plan (C(pts_run_plan)), the guard's
    record of the drive (C(pts_guard_passed)), the run's id and directory, a local connection with the controller's
    Python - and its host's groups (so group variables such as acceptance rules apply). Since 3.0.0 never the run's
    token (the worker reads it from its host's facts; no event carries it), and only its own drive's part of the plan.
  - P(fleetqual.pts.run_workers#filter) adds the workers to the inventory itself (no C(add_host) loop, whose result
    grew with every drive of every host); this filter is what it uses, for a playbook of one's own.
  - A worker is named C(host/drive); a name that is already an inventory host or group is refused.
    P(fleetqual.pts.run_workers#filter), in the C(hosts) line of the play that runs the workers, lets them through the
    run's C(--limit).
options:
  _input:
    description: C(hostvars).
    type: dict
    required: true
  hosts:
    description: The hosts whose drives to run, usually C(ansible_play_hosts).
    type: list
    elements: str
    required: true
  python:
    description: The Python the workers run with on the controller, C(ansible_playbook_python).
    type: str
    version_added: 2.0.0
  run_id:
    description: The run id the workers' results go under.
    type: str
    version_added: 2.0.0
  run_dir:
    description: The run's results directory on the controller.
    type: str
    version_added: 2.0.0
  groups:
    description: The inventory's groups (C(groups)), so that no worker is named like one.
    type: dict
    version_added: 2.0.0
author:
  - fleetqual.pts contributors (@fleetqual)
"""

EXAMPLES = r"""
# What the run_workers filter does in the worker play's host line, as tasks (a playbook of one's own).
- name: Add one worker per guarded drive
  ansible.builtin.add_host:
    name: "{{ item.name }}"
    groups: "{{ item.groups }}"
    pts_run_host: "{{ item.vars.pts_run_host }}"
    pts_run_drive_key: "{{ item.vars.pts_run_drive_key }}"
    pts_run_drives: "{{ item.vars.pts_run_drives }}"
    pts_run_plan: "{{ item.vars.pts_run_plan }}"
    pts_guard_passed: "{{ item.vars.pts_guard_passed }}"
    pts_run_id: "{{ item.vars.pts_run_id }}"
    pts_run_dir: "{{ item.vars.pts_run_dir }}"
    ansible_connection: "{{ item.vars.ansible_connection }}"
    ansible_python_interpreter: "{{ item.vars.ansible_python_interpreter }}"
  loop: >-
    {{ hostvars | fleetqual.pts.drive_workers(ansible_play_hosts, ansible_playbook_python, pts_run_id, pts_run_dir,
                                              groups) }}
  loop_control:
    label: "{{ item.name }}"
  run_once: true
"""

RETURN = r"""
_value:
  description: Per worker its C(name) (C(host/drive)), C(groups) and C(vars).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import workers


def drive_workers(hostvars, hosts, python=None, run_id=None, run_dir=None, groups=None):
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError(f"drive_workers: hosts must be a list, not {type(hosts).__name__}")
    try:
        return workers(hostvars, list(hosts), python, run_id, run_dir, groups)
    except PtsError as exc:
        raise AnsibleFilterError(f"drive_workers: {exc}") from exc


class FilterModule:
    def filters(self):
        return {"drive_workers": drive_workers}
