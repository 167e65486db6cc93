# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_plan
short_description: Validate a PTS run's inputs together and return the plan with a time estimate
version_added: 0.1.0
description:
  - Cross-checks what argument specs cannot - known test names, block size syntax, R/W mixes 0-100, the
    DV combination present in the matrix, a measurement window no larger than the round limit, positive
    durations - and fails naming the variable and the bad value, before any drive is touched.
  - With identified drives, returns per drive the matrix actually run (block sizes below the logical
    sector size dropped, with a note) and an estimate of the wall time.
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
  variables:
    description:
      - The C(pts_run_*) variables by name, for example C(pts_run_max_rounds), so errors name what the
        operator set.
    type: dict
    required: true
  devices:
    description: Identified drives (RV(fleetqual.pts.pts_drive_info#module:pts_drives)) to estimate for.
    type: list
    elements: dict
    default: []
  listed:
    description: The drives listed for the host (C(pts_devices)), recorded so a fleet summary knows what to expect.
    type: list
    elements: dict
    default: []
  acceptance:
    description:
      - Acceptance rules (C(pts_acceptance)) - a list of dicts with a C(model) glob, an optional C(firmware) glob,
        C(require_steady) (default true) and limits C(min_iops_4k_write), C(min_throughput_1024k_write_mb_s),
        C(min_throughput_1024k_read_mb_s), C(max_latency_4k_write_mean_ms), C(max_latency_4k_write_p9999_ms).
        Validated here, recorded with the plan, applied by M(fleetqual.pts.fleet_summary).
    type: raw
    default: []
  resume:
    description:
      - Where this run's results are. With a O(resume.run_id) whose results already hold finished tests of a
        drive (steady, not steady at the round limit, write saturation complete or at its time limit), those
        tests are marked C(done) and not run again; a test that was interrupted starts again from its purge.
    type: dict
    suboptions:
      results_dir:
        description: Root of the results tree; defaults to the report callback's C(output_dir) setting.
        type: path
      run_id:
        description:
          - The run id (the C(pts_run_id) variable); defaults to the report callback's C(run_id) setting
            (C(PTS_RUN_ID)). Without one nothing is resumed.
        type: str
      host:
        description: The inventory name of the host the plan is for.
        type: str
        required: true
  context:
    description: Labels returned unchanged as RV(pts_context) for the report callback.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Validate the plan before any drive is touched
  fleetqual.pts.pts_plan:
    variables:
      pts_run_tests: [iops]
      pts_run_profile: quick
      pts_run_round_seconds: 1
      pts_run_max_rounds: 6
      pts_run_window: 5
      pts_run_numjobs: 2
      pts_run_iodepth: 16
      pts_run_max_data_excursion_pct: 20
      pts_run_max_slope_excursion_pct: 10
      pts_run_iops_mixes: [100, 95, 65, 50, 35, 5, 0]
      pts_run_iops_block_sizes: [1024k, 128k, 64k, 32k, 16k, 8k, 4k, 512]
"""

RETURN = r"""
pts_plan:
  description: The validated plan.
  returned: success
  type: dict
  contains:
    tests:
      description: Per test, the mixes, block sizes (bytes) and DV.
      type: list
      elements: dict
    drives:
      description:
        - Per drive and test, the segments (purge-to-stop units) with their combinations and DVs, notes, whether
          the run already finished the test (C(done)), and the estimated wall time (min/max s).
      type: list
      elements: dict
pts_context:
  description: The O(context) given, unchanged.
  returned: success
  type: dict
"""
