#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_purge
short_description: Purge a drive before a PTS test and record the method used
version_added: 0.1.0
description:
  - Returns the drive to a fresh-out-of-box state as the SNIA PTS asks before preconditioning, and
    reports which method ran so the report can state it.
  - C(discard) runs C(blkdiscard) over the whole device. It is the only method for loop devices and
    devices without a secure erase, and it is B(not a secure purge); the result says so.
  - Refuses unless O(allow_destroy=true). Run it only on drives that M(fleetqual.pts.pts_guard) passed.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
attributes:
  check_mode:
    support: full
    details: In check mode only the chosen method is returned.
  diff_mode:
    support: none
options:
  path:
    description: The block device to purge.
    type: path
    required: true
  method:
    description:
      - The purge method. V(auto) picks the strongest the drive supports.
    type: str
    choices: [auto, discard]
    default: auto
  allow_destroy:
    description: Must be V(true); purging destroys every byte on the device.
    type: bool
    default: false
  expect:
    description:
      - Identity the device must still report right before the purge - C(devnum) (major:minor), C(serial),
        C(wwn); the purge is also refused if the device is by then mounted, held, swap or open by a process.
    type: dict
    default: {}
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
requirements:
  - util-linux (blkdiscard)
"""

EXAMPLES = r"""
- name: Purge the drive before the IOPS test
  fleetqual.pts.pts_purge:
    path: /dev/loop0
    allow_destroy: true
"""

RETURN = r"""
pts_purge:
  description: What was done.
  returned: always
  type: dict
  contains:
    method:
      description: The method used.
      type: str
      sample: discard
    secure:
      description: Whether the method is a secure purge in the PTS sense.
      type: bool
    note:
      description: Text for the report.
      type: str
    elapsed_s:
      description: Wall time of the purge in seconds.
      type: float
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._devices import probe, recheck


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            method=dict(type="str", choices=["auto", "discard"], default="auto"),
            allow_destroy=dict(type="bool", default=False),
            expect=dict(type="dict", default={}),
            context=dict(type="dict", default={}),
        ),
        supports_check_mode=True,
    )
    path = module.params["path"]
    context = module.params["context"]
    if not module.params["allow_destroy"]:
        module.fail_json(msg=f"pts_purge refused {path}: allow_destroy is not true; nothing was written",
                         pts_context=context)
    info = probe(path, check_exclusive=False)
    if not info["is_block"]:
        module.fail_json(msg=f"pts_purge refused {path}: not a block device", pts_context=context)
    reasons = recheck(path, module.params["expect"])
    if reasons:
        module.fail_json(msg=f"pts_purge refused {path}, nothing was written: {'; '.join(reasons)}", pts_context=context)
    method = module.params["method"]
    if method == "auto":
        if not info["purge_methods"]:
            module.fail_json(msg=f"pts_purge: {path} supports no purge method this module knows", pts_context=context)
        method = info["purge_methods"][0]
    elif method not in info["purge_methods"]:
        module.fail_json(msg=f"pts_purge: {path} does not support {method}", pts_context=context)

    result = dict(
        method=method,
        secure=False,
        device=os.path.realpath(path),
        note="blkdiscard of the whole device: not a secure purge",
    )
    if module.check_mode:
        module.exit_json(changed=False, pts_purge=result, pts_context=context)

    blkdiscard = module.get_bin_path("blkdiscard", required=True)
    started = time.monotonic()
    # No --force: blkdiscard then opens the device O_EXCL and refuses a device someone else holds.
    rc, stdout, stderr = module.run_command([blkdiscard, result["device"]])
    result["elapsed_s"] = round(time.monotonic() - started, 3)
    if rc != 0:
        module.fail_json(msg=f"pts_purge: blkdiscard {path} failed (rc {rc}): {stderr.strip()}; the test must not go on",
                         pts_purge=result, pts_context=context)
    module.exit_json(changed=True, pts_purge=result, pts_context=context)


if __name__ == "__main__":
    main()
