#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_drive_info
short_description: Read the identity and usage of the listed drives, and the host's test setup
version_added: 1.0.0
description:
  - Reads sysfs and procfs for each listed drive - vendor, model, serial, WWN, firmware, capacity, logical
    and physical block size, interface, rotational, write cache, purge methods, partitions, mounts,
    holders and swap - and the host facts the PTS common reporting requirements ask for.
  - The interface comes from the disk's transport in sysfs (what lsblk shows as TRAN), else udev's C(ID_BUS),
    else the kernel name; RV(pts_drives[].bus) records which decided.
  - Asks the drive's own tools for what sysfs cannot tell - C(nvme id-ctrl) and C(get-feature) for NVMe,
    C(hdparm -I) for SATA, C(sg_opcodes) and C(sdparm) for SCSI - the secure purge methods it supports, its
    volatile write cache, and a health snapshot (C(nvme smart-log), C(smartctl)).
  - A drive listed by serial or WWN alone is looked up among the host's disks; a description file fills
    what neither can read. A malformed description file is named with its line number and what is wrong,
    never with its content.
  - Finds every other block device that reaches the drive's medium (see RV(pts_drives[].related)).
  - Never changes anything.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._devices
  - fleetqual.pts._filing
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
      - serial: ZA1B2C3D  # looked up among the host's disks
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
    interface:
      description:
        - How the drive is attached - C(SATA), C(SCSI/SAS), C(NVMe), C(USB), C(FireWire), C(iSCSI), C(FC),
          C(NVMe-oF), or C(loop), C(zram), C(virtio), C(md), C(device-mapper), C(unknown). It picks the tools that
          identify and purge the drive; a USB, FireWire, iSCSI, FC or NVMe-oF disk gets no ATA, SCSI or NVMe purge
          command through its bridge or fabric, only C(discard) where the device offers it.
      type: str
    bus:
      description:
        - Which source decided RV(pts_drives[].interface) - C(sysfs transport (lsblk TRAN)), C(udev ID_BUS) or
          C(kernel name) - with the raw C(transport) (as lsblk's TRAN column) and udev's C(udev_bus) (C(ID_BUS)),
          each null when the host does not tell.
      type: dict
    logical_block_size:
      description: Logical sector size in bytes.
      type: int
    purge_methods:
      description: The purge methods the drive supports, strongest first (C(discard) last).
      type: list
      elements: str
    device_write_cache:
      description: Whether the drive's volatile write cache is on, as its tool reports it; null when it has none.
      type: bool
    write_cache_tool:
      description: The tool that reads and sets the write cache (C(nvme), C(hdparm), C(sdparm)), or null.
      type: str
    health:
      description: SMART or NVMe health snapshot before the run (temperature, wear, media errors, bytes written).
      type: dict
    described:
      description: Identity fields filled from the drive's description file.
      type: list
      elements: str
    loop:
      description:
        - For a loop device, its backing file's path, device (C(backing_dev)) and inode (C(backing_ino)), the
          block device it is over (C(backing_rdev)), offset and size limit; null for other devices.
      type: dict
    related:
      description:
        - Every other block device that reaches the drive's medium, with C(name), C(devnum), C(relation)
          (C(alias) - another path to it, the same serial or WWN or loop backing file - or C(stacked) - a holder
          or loop device over it) and C(how) in words. M(fleetqual.pts.pts_guard) judges each.
      type: list
      elements: dict
pts_host:
  description:
    - Kernel, OS, CPU, memory and fio version of the host, and the test system's make and model and its motherboard
      from DMI (C(system_vendor), C(system_model), C(board_vendor), C(board_name); null where the host has no DMI tables
      or they hold placeholders), and its installed memory modules from the firmware's SMBIOS table
      (C(memory_modules) - C(type) such as C(DDR4), C(modules), C(size_bytes), C(speed_mts), C(configured_mts) - null
      where the table is not readable or lists none).
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._host import host_info
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._listing import DEVICE_SPEC, drive_key, probe_listed
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_actions import tool_facts


def fio_version(module: AnsibleModule) -> str | None:
    fio = module.get_bin_path("fio")
    if not fio:
        return None
    rc, out, dummy = module.run_command([fio, "--version"])
    return out.strip() if rc == 0 else None


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(devices=dict(type="list", elements="dict", required=True, options=DEVICE_SPEC),
                           run_dir=dict(type="path")),
        supports_check_mode=True,
    )
    drives = []
    for spec in module.params["devices"]:
        info = probe_listed(spec)
        if info.get("is_block"):
            facts = tool_facts(info, module.run_command, module.get_bin_path)
            for field, value in (facts.pop("identity", None) or {}).items():
                if value and not info.get(field):
                    info[field] = value
            info.update(facts)
        info["key"] = drive_key(spec, info)
        info["spec"] = {k: v for k, v in spec.items() if v is not None}
        drives.append(info)
    host = host_info()
    host["fio_version"] = fio_version(module)
    module.exit_json(changed=False, pts_drives=drives, pts_host=host)


if __name__ == "__main__":
    main()
