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
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
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
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
requirements:
  - nvme-cli or smartmontools
"""

EXAMPLES = r"""
- name: Take the drive's health snapshot after the run
  fleetqual.pts.pts_drive_health:
    path: /dev/nvme0n1
"""

RETURN = r"""
pts_health:
  description: The snapshot, with the tool that read it; null for devices without one.
  returned: always
  type: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._devices import probe
from ansible_collections.fleetqual.pts.plugins.module_utils._drive_actions import health


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(path=dict(type="path", required=True), context=dict(type="dict", default={})),
        supports_check_mode=True,
    )
    info = probe(module.params["path"], check_exclusive=False)
    snapshot = health(info, module.run_command, module.get_bin_path) if info["is_block"] else None
    module.exit_json(changed=False, pts_health=snapshot, pts_context=module.params["context"])


if __name__ == "__main__":
    main()
