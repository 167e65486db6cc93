# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: steady_state
short_description: Judge SNIA PTS steady state over the last rounds' dependent variables
version_added: 1.0.0
description:
  - Judges each dependent variable's (DV's) measurement window, the last O(window) rounds, by the SNIA PTS rule - the data excursion (max - min) at most
    O(max_data_excursion_pct) % of the window average, and the excursion of the least-squares best-fit
    line across the window at most O(max_slope_excursion_pct) % of the average. The round is steady when
    every DV is (the throughput test judges read and write of a block size together).
  - Given a round's parsed fio jobs (RV(fleetqual.pts.fio_job#module:pts_fio.jobs)) and O(dvs), finds each DV by
    its R/W mix and block size, never by its position, and judges it with the earlier rounds' values the round
    loop's O(state) keeps; RV(state) is the state for the next round. Given O(values), judges that plain series.
  - A window average of zero is reported as not steady with its reason, not as an error.
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
  values:
    description: One DV's value in every round so far, oldest first. Mutually exclusive with O(jobs).
    type: list
    elements: float
  state:
    description:
      - The round loop's state after the previous round, as this action returned it
        (RV(state)); omit it for round 1. It holds only what the rule needs - the DVs' last O(window) values, the bytes
        written, the undelivered steps in a row - so it is as large at round 1,500 as at round 1.
    type: dict
  jobs:
    description: This round's parsed fio jobs.
    type: list
    elements: dict
  dvs:
    description: The dependent variables. Required with O(jobs).
    type: list
    elements: dict
    suboptions:
      name:
        description: Key of the DV in the state's window; defaults to a label such as C(4k 0/100 iops).
        type: str
      mix:
        description: Read percentage of the DV combination (V(0) for 100 % write).
        type: int
        required: true
      bs:
        description: Block size of the DV combination, for example V(4k).
        type: raw
        required: true
      metric:
        description: The DV metric - IOPS, bandwidth in bytes/s, or mean latency in ns.
        type: str
        choices: [iops, bw_bytes, lat_mean_ns]
        default: iops
  window:
    description: Rounds in the measurement window.
    type: int
    default: 5
  max_rounds:
    description: The round limit; a window larger than it is rejected, and RV(stop) turns true at it.
    type: int
    default: 25
  max_data_excursion_pct:
    description: Allowed max - min across the window, in % of the window average.
    type: float
    default: 20.0
  max_slope_excursion_pct:
    description: Allowed best-fit line excursion across the window, in % of the window average.
    type: float
    default: 10.0
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
seealso:
  - module: fleetqual.pts.fio_job
"""

EXAMPLES = r"""
- name: Judge steady state after this round
  fleetqual.pts.steady_state:
    state: "{{ verdict.state | default(omit) }}"
    jobs: "{{ round_result.pts_fio.jobs }}"
    dvs:
      - name: 4k write IOPS
        mix: 0
        bs: 4k
        metric: iops
    max_rounds: 25
  register: verdict

- name: Judge a plain series
  fleetqual.pts.steady_state:
    values: [31786, 31149, 30793, 32721, 31564]
"""

RETURN = r"""
steady:
  description: Whether every DV's measurement window is steady.
  returned: success
  type: bool
stop:
  description: Whether the test should stop (steady, or the round limit reached).
  returned: success
  type: bool
state:
  description:
    - The state for the next round - its number, whether the loop stops and why, and what the rule keeps (see O(state)).
    - Pass it back as O(state) with the next round's jobs.
  returned: success, with O(jobs)
  type: dict
pts_steady_state:
  description: The verdict and its figures.
  returned: success
  type: dict
  contains:
    round:
      description: This round's number (from 1).
      type: int
    steady:
      description: Whether every DV is steady.
      type: bool
    stop:
      description: Whether the test stops after this round (steady, or the round limit).
      type: bool
    reason:
      description: Why it stops or goes on.
      type: str
    max_rounds:
      description: The round limit.
      type: int
    dvs:
      description:
        - Per DV its C(name), C(dv_value), C(steady), C(reason), window C(rounds) and C(values), C(average),
          C(data_excursion_pct), C(slope_excursion_pct), C(slope) and C(intercept).
      type: list
      elements: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
