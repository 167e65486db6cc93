# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: raid_members
short_description: Find each md array's member drives among the drives the guard passed
version_added: 1.0.0
description:
  - For RAID mode. Validates the arrays (C(pts_raid)) as M(fleetqual.pts.pts_plan) does and returns, per array, its
    member drives with their guard records, plus the drives that are tested on their own.
  - Fails, naming the array and the member, when a member was not identified or has not passed the guard in this
    run, so no array is ever built from a drive the guard refused.
options:
  _input:
    description: The arrays as the inventory gives them (C(pts_raid)).
    type: list
    elements: dict
    required: true
  listed:
    description: The host's listed drives (C(pts_devices)); members name an entry by its path or name.
    type: list
    elements: dict
    required: true
  drives:
    description: The identified drives (C(pts_identify_drives)).
    type: list
    elements: dict
    required: true
  passed:
    description: The guard's records of the drives it passed (C(pts_guard_passed)), by listed path.
    type: dict
    required: true
author:
  - fleetqual.pts contributors (@fleetqual)
"""

EXAMPLES = r"""
- name: Match the arrays' members to guarded drives
  ansible.builtin.set_fact:
    raid: "{{ pts_raid | fleetqual.pts.raid_members(pts_devices, pts_identify_drives, pts_guard_passed) }}"
"""

RETURN = r"""
_value:
  description: C(arrays) (each with C(member_drives)), C(remaining) (drives tested alone) and C(members_of).
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._raid import resolve_members, validate_arrays


def raid_members(arrays, listed, drives, passed):
    try:
        valid = validate_arrays(arrays, list(listed or []))
        return resolve_members(valid, list(drives or []), dict(passed or {}))
    except PtsError as exc:
        raise AnsibleFilterError(f"raid_members: {exc}") from exc


class FilterModule:
    def filters(self):
        return {"raid_members": raid_members}
