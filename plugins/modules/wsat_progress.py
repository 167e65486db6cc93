# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: wsat_progress
short_description: Count what the SNIA PTS write saturation test has written and decide when it stops
version_added: 0.1.0
description:
  - Adds the bytes fio wrote in this round (from its parsed jobs) to the total so far, and says whether the
    write saturation test stops - O(target_bytes) (the capacity multiple times the user capacity, 4 in the
    PTS) written, or O(max_seconds) (24 h in the PTS) passed.
  - Write saturation has no steady state; this replaces M(fleetqual.pts.steady_state) for it.
  - Runs on the controller only.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._attributes.ACTION
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  jobs:
    description: This round's parsed fio jobs (RV(fleetqual.pts.fio_job#module:pts_fio.jobs)).
    type: list
    elements: dict
    required: true
  written:
    description: Bytes written by the earlier rounds.
    type: int
    default: 0
  target_bytes:
    description: Stop once this many bytes are written.
    type: int
    required: true
  elapsed_s:
    description: Seconds since the test started.
    type: float
    required: true
  max_seconds:
    description: Stop once this many seconds have passed.
    type: float
    required: true
  round:
    description: This round's number, from 1.
    type: int
    required: true
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Count the bytes written so far
  fleetqual.pts.wsat_progress:
    jobs: "{{ round_result.pts_fio.jobs }}"
    written: "{{ written_so_far }}"
    target_bytes: "{{ 4 * capacity }}"
    elapsed_s: 3600
    max_seconds: 86400
    round: 60
  register: progress
"""

RETURN = r"""
stop:
  description: Whether the test stops after this round.
  returned: success
  type: bool
written:
  description: Bytes written so far, this round included.
  returned: success
  type: int
pts_wsat:
  description: This round's figures for the progress line - IOPS, mean and max latency (ns), bytes written.
  returned: success
  type: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
