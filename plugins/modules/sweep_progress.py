# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: sweep_progress
short_description: Record one row of a sweep test and decide whether the sweep goes on
version_added: 1.0.0
description:
  - For the Myce/OakGate characterisation tests and the HDD zone tests, which have no steady state - each round
    is one row of the sweep (a queue depth, an LBA zone, an offered IOPS step).
  - A sweep stops after its last row. A demand ramp (O(offered_iops) given) also stops once the drive has missed
    O(misses) offered steps in a row - a step is delivered when the achieved IOPS are at most O(tolerance_pct)
    below the offer.
  - Returns the row's figures per cell for the progress line and the results on disk.
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
  rounds:
    description: Rows in the sweep.
    type: int
    required: true
  label:
    description: What this row is (V(QD 32), V(zone 2 (25-50 % of LBAs)), V(40,000 IOPS offered)).
    type: str
    default: ""
  offered_iops:
    description: The IOPS offered in this step of a demand ramp (fio C(rate_iops)); makes this a demand ramp.
    type: int
  tolerance_pct:
    description: How far (in % of the offer) the achieved IOPS may fall short for a step to count as delivered.
    type: float
    default: 5
  misses:
    description: Undelivered steps in a row that end the demand ramp.
    type: int
    default: 2
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Record one step of a demand ramp
  fleetqual.pts.sweep_progress:
    jobs: "{{ round_result.pts_fio.jobs }}"
    state: "{{ step.state | default(omit) }}"
    rounds: 120
    label: 3,000 IOPS offered
    offered_iops: 3000
  register: step
"""

RETURN = r"""
stop:
  description: Whether the sweep stops after this round.
  returned: success
  type: bool
state:
  description:
    - The state for the next round - its number, whether the loop stops and why, and what the rule keeps (see O(state)).
    - Pass it back as O(state) with the next round's jobs.
  returned: success
  type: dict
pts_sweep:
  description: >-
    This row - round, label, stop and its reason, and per cell (fio job) its name, IOPS, MB/s and mean latency (ns);
    for a demand ramp also offered and achieved IOPS and whether the step was delivered.
  returned: success
  type: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
