#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_drive_info
short_description: Read the identity and usage of the listed drives, and the host's test setup
version_added: 0.1.0
description:
  - Reads sysfs and procfs for each listed drive - vendor, model, serial, WWN, firmware, capacity, logical
    and physical block size, interface, rotational, write cache, purge methods, partitions, mounts,
    holders and swap - and the host facts the PTS common reporting requirements ask for.
  - Never changes anything.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._devices
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Identify the drives of this host
  fleetqual.pts.pts_drive_info:
    devices:
      - path: /dev/nvme0n1
        serial: S5GXNF0R123456
  register: drives
"""

RETURN = r"""
pts_drives:
  description: One entry per listed drive, in the order listed.
  returned: always
  type: list
  elements: dict
  contains:
    key:
      description: Name of the drive's results directory.
      type: str
    resolved:
      description: The device node the path resolves to.
      type: str
    size_bytes:
      description: User capacity in bytes.
      type: int
    logical_block_size:
      description: Logical sector size in bytes.
      type: int
pts_host:
  description: Kernel, OS, CPU, memory and fio version of the host.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._devices import DEVICE_SPEC, drive_key, host_info, probe


def fio_version(module: AnsibleModule) -> str | None:
    fio = module.get_bin_path("fio")
    if not fio:
        return None
    rc, out, dummy = module.run_command([fio, "--version"])
    return out.strip() if rc == 0 else None


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(devices=dict(type="list", elements="dict", required=True, options=DEVICE_SPEC)),
        supports_check_mode=True,
    )
    drives = []
    for spec in module.params["devices"]:
        info = probe(spec["path"])
        info["key"] = drive_key(spec, info)
        info["spec"] = {k: v for k, v in spec.items() if v is not None}
        drives.append(info)
    host = host_info()
    host["fio_version"] = fio_version(module)
    module.exit_json(changed=False, pts_drives=drives, pts_host=host)


if __name__ == "__main__":
    main()
