#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_write_cache
short_description: Set a drive's volatile write cache for the PTS, and report what it was and is
version_added: 1.0.0
description:
  - Reads the drive's volatile write cache with its own tool and sets it as asked - C(nvme set-feature -f 6)
    for NVMe, C(hdparm -W) for SATA, C(sdparm WCE) for SCSI/SAS - then reads it back and fails when the drive
    did not take the setting.
  - Devices with no drive write cache the host can set (loop, zram, virtio, NVMe without a volatile write
    cache) are reported as not applicable, with the kernel's queue mode.
  - Refuses a device that is no longer the one the guard passed.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._filing
attributes:
  check_mode:
    support: full
    details: In check mode the cache is read and the change that would be made is returned.
  diff_mode:
    support: none
options:
  path:
    description: The block device.
    type: path
    required: true
  state:
    description:
      - V(disabled) (PTS enterprise), V(enabled), or V(unchanged) to only read and report it.
      - V(restore) sets it back to what it was before the tests - O(set_result)'s C(before) - when the set changed it,
        and does nothing otherwise.
    type: str
    choices: [disabled, enabled, unchanged, restore]
    required: true
  set_result:
    description: With O(state=restore), the RV(pts_write_cache) of the task that set the cache for the tests.
    type: dict
    version_added: 2.0.0
  expect:
    description:
      - The guard's record of the device in this run, whose identity it must still report (as
        M(fleetqual.pts.pts_purge)'s O(fleetqual.pts.pts_purge#module:expect)); without one nothing is set.
    type: dict
    required: true
  context:
    description: Labels returned unchanged as RV(pts_context); in a run the action plugin files the result under them.
    type: dict
    default: {}
requirements:
  - nvme-cli, hdparm or sdparm, as the drive's interface needs
"""

EXAMPLES = r"""
- name: Disable the drive's write cache for the PTS
  fleetqual.pts.pts_write_cache:
    path: /dev/nvme0n1
    state: disabled
"""

RETURN = r"""
pts_write_cache:
  description: The write cache before and after.
  returned: always
  type: dict
  contains:
    state:
      description: The state asked for.
      type: str
    applicable:
      description: Whether the drive has a volatile write cache the host can read and set.
      type: bool
    tool:
      description: The tool used (C(nvme), C(hdparm), C(sdparm)), or null.
      type: str
    before:
      description: Whether the cache was on before; null when not applicable.
      type: bool
    after:
      description: Whether the cache is on now; null when not applicable.
      type: bool
    kernel_queue_mode:
      description: The kernel's view (C(/sys/block/*/queue/write_cache)), C(write back) or C(write through).
      type: str
    note:
      description: One line for the report.
      type: str
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import recheck
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._probe import probe
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_actions import tool_facts, write_cache_commands


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            state=dict(type="str", choices=["disabled", "enabled", "unchanged", "restore"], required=True),
            set_result=dict(type="dict"),
            expect=dict(type="dict", required=True),
            context=dict(type="dict", default={}),
            run_dir=dict(type="path"),  # the action plugin's: where it files the result
        ),
        required_if=[("state", "restore", ["set_result"])],
        supports_check_mode=True,
    )
    path, state, context = module.params["path"], module.params["state"], module.params["context"]
    if state == "restore":
        # Back to what the drive had before the tests, only when the set changed it.
        done = module.params["set_result"]
        if done.get("before") is None or done.get("after") == done.get("before"):
            # No event for the drive's record: nothing was read or set.
            module.exit_json(changed=False, msg="nothing to restore: the write cache is as the tests found it",
                             pts_context=context)
        state = "enabled" if done["before"] else "disabled"
    info = probe(path, check_exclusive=False)
    # Set back after the tests, the hold may be gone: an md array's member whose hold the array took over.
    reasons = recheck(path, module.params["expect"], need_hold=module.params["state"] != "restore") \
        if info["is_block"] else ["not a block device"]
    if reasons:
        module.fail_json(msg=f"pts_write_cache refused {path}: {'; '.join(reasons)}", pts_context=context)
    facts = tool_facts(info, module.run_command, module.get_bin_path, with_health=False)
    tool, before = facts["write_cache_tool"], facts["device_write_cache"]
    result = dict(state=state, tool=tool, before=before, after=before, applicable=before is not None,
                  kernel_queue_mode=info.get("write_cache"))
    if before is None:
        why = facts.get("write_cache_note") or f"{info.get('interface')} device: no drive write cache the host can set"
        result["note"] = f"not applicable: {why} (kernel queue mode: {info.get('write_cache') or 'not reported'})"
        module.exit_json(changed=False, pts_write_cache=result, pts_context=context)
    want = before if state == "unchanged" else state == "enabled"
    word = {True: "enabled", False: "disabled"}
    if want == before:
        result["note"] = f"{word[before]} (left as it was; read with {tool})"
        module.exit_json(changed=False, pts_write_cache=result, pts_context=context)
    result["after"] = want
    result["note"] = f"{word[want]} for the tests (was {word[before]}; set with {tool})"
    if module.check_mode:
        module.exit_json(changed=True, pts_write_cache=result, pts_context=context)
    for argv in write_cache_commands(info, tool, want, module.get_bin_path):
        rc, out, err = module.run_command(argv)
        if rc != 0:
            module.fail_json(msg=f"pts_write_cache {path}: {' '.join(argv)} failed (rc {rc}): {(err or out).strip()[:500]}",
                             pts_write_cache=result, pts_context=context)
    after = tool_facts(probe(path, check_exclusive=False), module.run_command, module.get_bin_path,
                       with_health=False)["device_write_cache"]
    result["after"] = after
    if after != want:
        module.fail_json(msg=f"pts_write_cache {path}: the drive still reports its write cache {word.get(after, after)} "
                             f"after {tool} set it {word[want]}", pts_write_cache=result, pts_context=context)
    module.exit_json(changed=True, pts_write_cache=result, pts_context=context)


if __name__ == "__main__":
    main()
