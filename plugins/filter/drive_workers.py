# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: drive_workers
short_description: One add_host entry per drive the guard passed, so every drive runs at the same time
version_added: 1.0.0
description:
  - For each host, one worker per identified drive that the guard passed and the plan covers. A worker is a
    controller-side inventory host that runs one drive's purge, preconditioning and rounds, delegating every
    step that touches the drive to its host; with the C(free) strategy all drives of all hosts run at once.
  - A worker takes its host's C(pts_*) inputs and groups (so group variables such as acceptance rules apply),
    and joins a group named after its host when the C(--limit) pattern names that host, so the limit keeps it.
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
  limit:
    description: The C(--limit) pattern, C(ansible_limit).
    type: str
author:
  - fleetqual.pts contributors (@fleetqual)
"""

EXAMPLES = r"""
- name: Add one worker per guarded drive
  ansible.builtin.add_host:
    name: "{{ item.name }}"
    groups: "{{ item.groups }}"
    "{{ item.vars }}": null
  loop: "{{ hostvars | fleetqual.pts.drive_workers(ansible_play_hosts, ansible_limit | default(none)) }}"
  run_once: true
"""

RETURN = r"""
_value:
  description: Per worker its C(name) (C(host/drive)), C(groups) and C(vars).
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import workers


def drive_workers(hostvars, hosts, limit=None):
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError(f"drive_workers: hosts must be a list, not {type(hosts).__name__}")
    try:
        return workers(hostvars, list(hosts), limit)
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError(f"drive_workers: {exc}") from exc


class FilterModule:
    def filters(self):
        return {"drive_workers": drive_workers}
