# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: steady_state
short_description: Judge a series of your own measurements by the SNIA PTS steady-state rule
version_added: 1.0.0
description:
  - For measurements you took yourself - a dependent variable (DV) per round from fio runs of your own, a vendor tool or
    an earlier run's figures - judged by the SNIA PTS rule as the PTS roles judge theirs.
  - Judges the measurement window, the last O(window) values - the data excursion (max - min) at most
    O(max_data_excursion_pct) % of the window average, and the excursion of the least-squares best-fit line across the
    window at most O(max_slope_excursion_pct) % of the average - and says whether the test would stop (steady, or
    O(max_rounds) values).
  - A window average of zero is reported as not steady with its reason, not as an error.
  - The collection's roles do not call it; M(fleetqual.pts.pts_segment) judges every round of a PTS test with the same
    rule itself.
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
    description: The DV's value in every round so far, oldest first (IOPS, bandwidth or latency; finite, not negative).
    type: list
    elements: float
    required: true
  window:
    description: Rounds in the measurement window.
    type: int
    default: 5
  max_rounds:
    description: The round limit; a window larger than it, or more O(values) than it, is rejected, and RV(stop) turns
      true at it.
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
seealso:
  - module: fleetqual.pts.pts_segment
"""

EXAMPLES = r"""
# fio rounds of your own on the controller, one JSON output per round (fio --output-format=json
# --output=rounds/round-NN.json), each with the 4k random write job first: judge the IOPS of the rounds so far.
- name: Judge steady state over the write IOPS of every round so far
  fleetqual.pts.steady_state:
    values: >-
      {{ query('ansible.builtin.file', *query('ansible.builtin.fileglob', playbook_dir ~ '/rounds/round-*.json') | sort)
         | map('from_json') | map(attribute='jobs') | map('first') | map(attribute='write.iops') | list }}
  register: verdict

- name: Say whether the drive reached steady state
  ansible.builtin.debug:
    msg: "{{ 'steady' if verdict.steady else 'not steady: ' ~ verdict.pts_steady_state.reason }}"

# A series you already have, with the PTS's own limits.
- name: Judge five rounds of IOPS
  fleetqual.pts.steady_state:
    values: [31786, 31149, 30793, 32721, 31564]
    window: 5
    max_rounds: 25
"""

RETURN = r"""
steady:
  description: Whether the window is steady.
  returned: success
  type: bool
stop:
  description: Whether the test would stop after this round (steady, or the round limit reached).
  returned: success
  type: bool
pts_steady_state:
  description: The verdict and its figures.
  returned: success
  type: dict
  contains:
    round:
      description: The number of O(values), the round judged.
      type: int
    steady:
      description: Whether the window is steady.
      type: bool
    stop:
      description: Whether the test would stop after this round (steady, or the round limit).
      type: bool
    reason:
      description: Why it is steady or not.
      type: str
    max_rounds:
      description: The round limit.
      type: int
    dvs:
      description:
        - One entry, the series' verdict - its C(dv_value) (the last value), C(steady), C(reason), window C(rounds) and
          C(values), C(average), C(data_excursion_pct), C(slope_excursion_pct), C(slope) and C(intercept).
      type: list
      elements: dict
"""
