# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this doc fragment is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  devices:
    description:
      - The drives listed for this host (the inventory's C(pts_devices)).
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description:
          - Device node, C(/dev/disk/by-id/) link or other symlink to the block device.
          - Without it, the drive is looked up among the host's disks by O(devices[].serial) or O(devices[].wwn).
        type: str
      name:
        description: Label for the drive's results directory. Defaults to the serial, WWN or kernel name.
        type: str
      serial:
        description: Serial number the device must report.
        type: str
      wwn:
        description: World wide name the device must report.
        type: str
      backing_file:
        description:
          - For loop devices, the file the device must be backed by.
          - Whether listed or not, the guard records a loop device's backing file (path, device and inode, offset
            and size limit), and every later write refuses a loop device that is no longer over that very file.
        type: str
      description_file:
        description:
          - A device description file on the host (as TKperf's C(-dsc)), one key, a colon and its value per line,
            with keys C(vendor), C(model), C(serial), C(wwn), C(firmware), C(interface) and C(notes).
          - It fills what the host cannot read from the device; a serial or WWN that contradicts the device's own
            is a refusal, never an override.
        type: str
      mode:
        description:
          - V(hdd) tests the drive as a disk (no purge, no preconditioning, IOPS and throughput per LBA zone),
            V(ssd) as a solid-state drive; V(auto) (or unset) follows the playbook's C(pts_drive_mode).
          - Drive mode auto does not change the tests selected on its own - a drive that reports itself rotational
            while SSD tests are selected is refused by the plan, which says to set V(hdd) or V(ssd) here; a loop
            device counts as solid-state whatever its rotational flag says.
        type: str
        choices: [auto, ssd, hdd]
      raid_controller:
        description:
          - For a hardware RAID volume - the controller and layout as the operator describes them (model, level,
            members, stripe size, cache policy); recorded in the drive's report.
        type: str
"""
