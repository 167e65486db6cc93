# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: wsat_progress
short_description: Count what the SNIA PTS write saturation test has written and decide when it stops
version_added: 1.0.0
description:
  - Adds the bytes fio wrote in this round (from its parsed jobs) to the total the round loop's O(state) keeps, and
    says whether the
    write saturation test stops - O(target_bytes) (the capacity multiple times the user capacity, 4 in the
    PTS) written, or O(max_seconds) (24 h in the PTS) passed since the loop's first round.
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
  state:
    description:
      - The round loop's state after the previous round, as this action returned it
        (RV(state)); omit it for round 1. It holds only what the rule needs - the DVs' last window of values, the bytes
        written, the undelivered steps in a row - so it is as large at round 1,500 as at round 1.
    type: dict
  target_bytes:
    description: Stop once this many bytes are written (capacity multiple x user capacity).
    type: int
    required: true
  max_seconds:
    description: Stop once this many seconds have passed.
    type: float
    required: true
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Count the bytes written so far
  fleetqual.pts.wsat_progress:
    state: "{{ progress.state | default(omit) }}"
    jobs: "{{ round_result.pts_fio.jobs }}"
    target_bytes: "{{ 4 * capacity }}"
    max_seconds: 86400
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
state:
  description:
    - The state for the next round - its number, whether the loop stops and why, and what the rule keeps (see O(state)).
    - Pass it back as O(state) with the next round's jobs.
  returned: success
  type: dict
pts_wsat:
  description: This round's figures for the progress line - IOPS, mean and max latency (ns), bytes written.
  returned: success
  type: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
