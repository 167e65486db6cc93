# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_compare
short_description: Compare a baseline with a candidate from the PTS history (runs or firmware versions)
version_added: 1.0.0
description:
  - Reads the history (O(history_url) - SQLite beside the runs, C(pts-history.sqlite) in O(results_dir), or the
    PostgreSQL database every controller shares), in which every run's fleet summary files one row per drive and
    headline figure, and C(playbooks/report.yml) rebuilds from the results tree.
  - Compares two sides, either two sets of runs (O(baseline_runs), O(candidate_runs)), or one drive model's runs under
    two firmware versions across every indexed run (O(model), O(baseline_firmware), O(candidate_firmware)).
  - Per drive model on both sides and per headline figure (4k random write IOPS, 1024k sequential read and write
    MB/s, 4k random write mean and p99.99 latency) it gives each side's median over drives and spread over drives
    (max - min) / median, the change of the medians in %, and a verdict - C(REGRESSION), C(IMPROVEMENT) or C(SAME) -
    against a tolerance. Higher is better for IOPS and MB/s, lower for latency.
  - The tolerance is O(tolerance_pct) when given, else the larger of 5 % and the run-to-run spread, which is the
    (max - min) / median of the per-run medians of the baseline's model and firmware over the indexed runs run with
    the baseline's settings, the candidate's runs left out.
  - Every compared drive indexed in two runs or more (the same serial) gets its history, run by run, in the output.
  - Writes C(compare.md), C(compare.json), plots and C(compare.html) (where markdown-it-py is installed) in
    O(output_dir), by directory file descriptors and never through a link; run as root, it refuses a results tree or
    output directory another user can change, naming the level, and an index that is a link or not a plain file.
  - Fails when a figure regressed and O(fail_on_regression) is true, after writing them.
  - Runs on the controller only.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._attributes.ACTION
  - fleetqual.pts._history
attributes:
  check_mode:
    support: none
  diff_mode:
    support: none
options:
  results_dir:
    description:
      - Root of the results tree holding the index (playbooks/compare.yml passes C(pts_results_dir)); defaults to the
        C(PTS_RESULTS_DIR) environment variable, else C(results).
    type: path
  baseline_runs:
    description:
      - The baseline's run ids (each one directory name under O(results_dir), indexed).
      - With O(candidate_runs); not with O(baseline_firmware) and O(candidate_firmware).
    type: list
    elements: str
  candidate_runs:
    description: The candidate's run ids; none of them may be a baseline run.
    type: list
    elements: str
  model:
    description:
      - The drive model, exactly as identified (the Model column of the fleet summary).
      - Required for a firmware comparison; with runs, it keeps only that model's drives.
    type: str
  baseline_firmware:
    description: The baseline's firmware version, exactly as identified; every indexed run of O(model) with it.
    type: str
  candidate_firmware:
    description: The candidate's firmware version, exactly as identified.
    type: str
  tolerance_pct:
    description:
      - The change in % a figure may make either way and still be C(SAME); a number of at least 0.
      - When omitted, the larger of 5 % and the run-to-run spread of the baseline's cohort (see the description).
    type: raw
  fail_on_regression:
    description: Fail the task (and so the play and its exit status) when any figure is a C(REGRESSION).
    type: bool
    default: true
  output_dir:
    description:
      - Where C(compare.md), C(compare.json), C(compare.html) and C(plots/) go.
      - Defaults to C(compare/BASELINE-vs-CANDIDATE) under O(results_dir).
    type: path
seealso:
  - plugin: fleetqual.pts.fleet_summary
    plugin_type: module
  - plugin: fleetqual.pts.report_rebuild
    plugin_type: module
"""

EXAMPLES = r"""
- name: Compare two runs
  fleetqual.pts.pts_compare:
    results_dir: results
    baseline_runs: [20261123T101500Z]
    candidate_runs: [20261130T101500Z]

- name: Did firmware 2.0 make this model slower than 1.0 (never fail the play)?
  fleetqual.pts.pts_compare:
    model: ACME X1
    baseline_firmware: "1.0"
    candidate_firmware: "2.0"
    fail_on_regression: false
"""

RETURN = r"""
pts_compare:
  description: The comparison in brief; C(compare.json) in RV(pts_compare.output_dir) has all of it.
  returned: success
  type: dict
  contains:
    output_dir:
      description: Where the comparison was written.
      type: str
      returned: success
    counts:
      description: How many figures got each verdict (C(REGRESSION), C(IMPROVEMENT), C(SAME), C(NOT COMPARED)).
      type: dict
      returned: success
    failed:
      description: Whether a figure regressed and O(fail_on_regression) is true.
      type: bool
      returned: success
    regressions:
      description: Each regressed figure, as the drive model, a colon and the figure.
      type: list
      elements: str
      returned: success
    tolerance:
      description: The tolerance rule in words.
      type: str
      returned: success
    verdicts:
      description: Per drive model, per headline figure, its verdict.
      type: dict
      returned: success
    baseline:
      description: The baseline's label and run ids.
      type: dict
      returned: success
    candidate:
      description: The candidate's label and run ids.
      type: dict
      returned: success
"""
