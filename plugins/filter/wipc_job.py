# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: wipc_job
short_description: The preconditioning fio job file of a guarded device, from checked values only
version_added: 3.0.0
description:
  - Renders the collection's preconditioning job file (SNIA PTS workload-independent preconditioning, or the
    Myce/OakGate timed 4k random writes) for the device given as input, in a sandbox, from the options alone - no
    other variable reaches it - and checks the result as fio reads it (only the options the collection's job files
    set, each value of its kind, the device as the only C(filename=)). A value that does not pass is an error naming it.
  - The P(fleetqual.pts.pts_precondition#role) role hands the result to M(fleetqual.pts.fio_job), which checks it again
    on the host against the guard's record of the device.
options:
  _input:
    description: The guarded device node (the guard's C(resolved) path), such as C(/dev/nvme0n1).
    type: str
    required: true
  mode:
    description: V(wipc) (sequential, capacity-based) or V(random) (timed 4k random writes at queue depth 32).
    type: str
    default: wipc
  ioengine:
    description: The fio ioengine.
    type: str
    default: libaio
  drive_key:
    description: The drive's name, for the job file's comment.
    type: str
    default: drive
  block_size:
    description: Block size of the sequential writes (V(wipc)).
    type: str
    default: 128k
  capacity_multiple:
    description: How many times the user capacity to write (V(wipc)).
    type: int
    default: 2
  iodepth:
    description: Queue depth of the single writer (V(wipc)).
    type: int
    default: 32
  seconds:
    description: Seconds of random writes (V(random)).
    type: float
    default: 0
author:
  - fleetqual.pts contributors (@fleetqual)
"""

EXAMPLES = r"""
- name: Precondition a guarded drive
  fleetqual.pts.fio_job:
    job_file: /var/lib/fleetqual-pts/r1/d1/wipc/wipc.fio
    job_text: "{{ '/dev/nvme0n1' | fleetqual.pts.wipc_job(mode='wipc', ioengine='libaio', drive_key='d1') }}"
    device: /dev/nvme0n1
    expect: "{{ pts_guard_passed['/dev/nvme0n1'] }}"
"""

RETURN = r"""
_value:
  description: The job file's text.
  type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.plugin_utils._job_text import JobTextError, wipc_text


def wipc_job(device, mode="wipc", ioengine="libaio", drive_key="drive", block_size="128k", capacity_multiple=2,
             iodepth=32, seconds=0):
    if not isinstance(device, str):
        raise AnsibleFilterError(f"wipc_job: the device must be a device path, not {type(device).__name__}")
    try:
        return wipc_text(str(mode), device, str(ioengine), str(drive_key), str(block_size), int(capacity_multiple),
                         int(iodepth), float(seconds))
    except (JobTextError, ValueError) as exc:
        raise AnsibleFilterError(f"wipc_job: {exc}") from None


class FilterModule:
    def filters(self):
        return {"wipc_job": wipc_job}
