#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_drive_health
short_description: Take a SMART or NVMe health snapshot of a drive
version_added: 1.0.0
description:
  - Reads C(nvme smart-log) for NVMe drives and C(smartctl -j -a) for SATA and SCSI/SAS drives - temperature,
    wear, spare, media errors, bytes written - so the report can set the snapshot after the run beside the one
    M(fleetqual.pts.pts_drive_info) took before it.
  - Devices without one (loop, zram, virtio) return null. Never changes anything.
  - With O(mode=round) it is the first health read of a test's round loop, run by M(fleetqual.pts.pts_segment)
    before the first round. It returns that round's reading before fio, the drive's temperature thresholds and
    the one command that reads the drive again, which the round action then runs once a round, after fio ends,
    without a module run. A device without health says so once and is not read again in that loop.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._filing
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  path:
    description: The block device.
    type: path
    required: true
  context:
    description: Labels returned unchanged as RV(pts_context); in a run the action plugin files the result under them.
    type: dict
    default: {}
  mode:
    description:
      - V(snapshot) returns RV(pts_health), the snapshot the report sets before and after the run.
      - V(round) returns RV(pts_health_probe) instead, for the per-round reading of M(fleetqual.pts.pts_segment).
    type: str
    choices: [snapshot, round]
    default: snapshot
    version_added: 1.1.0
requirements:
  - nvme-cli or smartmontools
"""

EXAMPLES = r"""
- name: Take the drive's health snapshot after the run
  fleetqual.pts.pts_drive_health:
    path: /dev/nvme0n1

- name: Find how to read the drive's health per round, and read it once
  fleetqual.pts.pts_drive_health:
    path: /dev/nvme0n1
    mode: round
  register: __probe
"""

RETURN = r"""
pts_health:
  description: The snapshot, with the tool that read it; null for devices without one (and with O(mode=round)).
  returned: always
  type: dict
pts_health_probe:
  description:
    - With O(mode=round) - C(none) (why the device has no health to read), or C(tool), C(format) (V(nvme) or
      V(smartctl)), C(argv) (the command that reads it), C(device), C(thresholds) (C(warning_c), C(critical_c) as
      the drive reports them), C(reading) (temperature, thermal-management counters, errors, wear, bytes written;
      items the drive does not report are left out) and C(error) when the read failed.
  returned: when O(mode=round)
  type: dict
  sample: {"tool": "nvme smart-log", "format": "nvme", "device": "/dev/nvme0",
           "argv": ["/usr/sbin/nvme", "smart-log", "/dev/nvme0", "-o", "json"],
           "thresholds": {"warning_c": 70, "critical_c": 100},
           "reading": {"temperature_c": 50, "critical_warning": 0, "thermal_transitions": [0, 0]}}
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

import json

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._probe import probe
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_actions import health


def round_probe(info: dict, run, which) -> dict:
    """How to read the device per round, its thresholds and a first reading (or why it has none)."""
    if not info.get("is_block"):
        return {"none": f"{info.get('path')} is not a block device"}
    found = _health.source(info, which)
    if found.get("none"):
        return found
    thresholds = {}
    if found.get("thresholds_argv"):
        rc, out, dummy = run(found["thresholds_argv"])
        try:
            thresholds = _health.nvme_thresholds(json.loads(out)) if rc == 0 else {}
        except ValueError:
            thresholds = {}
    rc, out, err = run(found["argv"])
    reading, more, error = _health.parse(found["format"], rc, out or err)
    probed = {k: found[k] for k in ("tool", "format", "device", "argv")}
    probed.update(thresholds=dict(more, **thresholds), reading=reading)
    if error:
        probed["error"] = error
    return probed


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(path=dict(type="path", required=True), context=dict(type="dict", default={}),
                           mode=dict(type="str", choices=["snapshot", "round"], default="snapshot"),
                           run_dir=dict(type="path")),
        supports_check_mode=True,
    )
    info = probe(module.params["path"], check_exclusive=False)
    if module.params["mode"] == "round":
        module.exit_json(changed=False, pts_health=None, pts_context=module.params["context"],
                         pts_health_probe=round_probe(info, module.run_command, module.get_bin_path))
    snapshot = health(info, module.run_command, module.get_bin_path) if info["is_block"] else None
    module.exit_json(changed=False, pts_health=snapshot, pts_context=module.params["context"])


if __name__ == "__main__":
    main()
