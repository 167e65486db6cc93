# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: fleet_summary
short_description: Judge every drive of a fleet run and write fleet.md, fleet.json and junit.xml
version_added: 1.0.0
description:
  - Gives every listed drive of every host of the runs a verdict - PASS, FAIL (which criterion, measured
    against its limit; I/O errors; steady state required but not reached) or INCOMPLETE (host lost, test
    failed or stopped, refused by the guard, not identified) - from the acceptance rules recorded with each
    host's plan (C(pts_acceptance)), and flags drives whose headline figures sit far from the median of their
    model and firmware cohort.
  - Writes C(fleet.md) (table host x drive x serial x model x firmware x verdict x headline figures x write saturation
    x test time, links to each drive's report, one plot per model overlaying its drives' DVs, cohort plots),
    C(fleet.json) and C(junit.xml) (one test case per drive and criterion with the tests' wall times, write
    saturation included), and C(fleet.html) and C(fleet.pdf) where the controller has markdown-it-py and WeasyPrint.
  - A quick-profile drive's verdict reads C(FAIL (quick profile — not a qualification)) everywhere, JUnit included.
  - Its exit status fails - and with O(fail) the task, so the playbook's exit code tells a pipeline - when a drive is
    INCOMPLETE (never a pass for a drive that was not tested), when a host failed before its drives were tested
    (C(host-failure.json) - install, identity, the guard, RAID, the plan), or when a drive's verdict is one of
    O(fail_on).
  - Hosts of the runs that another live ansible-playbook still holds (a job slice sharing the run id and results
    tree) are listed as still running, not judged; the last slice to finish judges every host. A summary that is not
    one of the run's own (without O(release_locks)) fails while a host still runs ("in progress") - it never passes
    what was not judged.
  - Reads and writes the results trees by directory file descriptors, never through a link; as root, a results tree
    with a level another user can change is refused, naming it. A drive whose files are not what the collection
    writes (a link, a FIFO, too large, nested too deep, a round whose fio completed no I/O, a field of the wrong type)
    is INCOMPLETE with the file and why; the other drives and the summary are still written.
  - Several runs, or the results trees of several controllers (job slices), merge into one summary.
  - Writes the runs into the history (O(history_url)) before its files, and says in C(fleet.md) whether they were
    written - a history that cannot be written (a server gone) never changes a verdict or the exit status; the results
    stay on disk and P(fleetqual.pts.report_rebuild#module) writes them later. Its History section compares each model
    and firmware of the run with every earlier run of it in the history (the population each drive's report read -
    size, dates, median, 5th to 95th percentiles), names the drives that are outliers against it (with the outlier
    settings, as a cohort's; O(outliers_fail) fails them too), and links each model's comparison with its previous
    run (C(<results>/compare/)).
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
  results_dirs:
    description:
      - Results trees to read (playbooks/fleet_summary.yml passes C(pts_results_dirs), else C(pts_results_dir));
        defaults to the C(PTS_RESULTS_DIR) environment variable, else C(results).
    type: list
    elements: path
  run_ids:
    description:
      - The runs to summarize (found in every results tree that has them).
      - Each is a run id - one directory name of letters, digits, C(.), C(_) and C(-), starting and ending with a
        letter or digit; anything else (a path, C(..), a space) is refused before anything is read or written.
    type: list
    elements: str
    required: true
  output_dir:
    description: Where to write the summary; defaults to the first run's directory.
    type: path
  fail_on:
    description:
      - Verdicts that fail the task (and so the playbook) besides V(INCOMPLETE), which always does; an empty list
        fails on nothing else.
      - When omitted, the C(pts_fleet_fail_on) the runs' plans recorded (their union over hosts), else V(FAIL) and
        V(INCOMPLETE).
    type: list
    elements: str
  outlier_robust_z:
    description:
      - A cohort outlier's robust z-score (0.6745 x deviation / median absolute deviation) must exceed this.
      - When omitted, the C(pts_fleet_outlier_robust_z) the runs' plans recorded, else 3.5.
    type: float
  outlier_min_deviation_pct:
    description:
      - "... and its figure must be more than this far (%) from the cohort median."
      - When omitted, the C(pts_fleet_outlier_min_deviation_pct) the runs' plans recorded, else 10.
    type: float
  outlier_min_cohort:
    description:
      - Smallest cohort (drives of one model and firmware) compared at all.
      - When omitted, the C(pts_fleet_outlier_min_cohort) the runs' plans recorded, else 3.
    type: int
  outliers_fail:
    description:
      - Whether a cohort outlier turns a PASS into a FAIL; otherwise it is flagged only.
      - When omitted, the C(pts_fleet_outliers_fail) the runs' plans recorded, else V(false).
    type: bool
  fail:
    description: Whether the task fails when the summary's exit status does; V(false) returns it in RV(pts_fleet).
    type: bool
    default: true
    version_added: 2.0.0
  errors:
    description:
      - Run errors found after the drives were judged (a publishing of the results that failed), each with C(host),
        C(task) and C(msg); each fails the run, as a host whose drives were not tested does.
    type: list
    elements: dict
    default: []
    version_added: 2.0.0
  release_locks:
    description:
      - Release the host locks this ansible-playbook process holds in the runs (its part of the run is over), whether
        it judges them or refuses to (an unusable O(history_url)).
      - It also says that this summary is the judge of one process of the run (a job slice; the C(fleetqual.pts.pts_run)
        role's judge step sets it) - hosts another live process of the run still tests are listed and do not fail it.
        Without it (C(playbooks/fleet_summary.yml)), a host still running fails the exit status, "in progress".
    type: bool
    default: false
    version_added: 2.0.0
seealso:
  - module: fleetqual.pts.report_rebuild
"""

EXAMPLES = r"""
- name: Judge the fleet and fail the run on any FAIL or INCOMPLETE drive
  fleetqual.pts.fleet_summary:
    run_ids: ["{{ pts_run_id }}"]
  run_once: true
"""

RETURN = r"""
pts_fleet:
  description:
    - Verdict counts, the verdict per C(host/drive), where the summary is, whether its exit status fails
      (C(failed)), the hosts not tested (C(errors)) and still running elsewhere (C(in_progress)), and whether the
      runs were written into the history (C(history) with C(written), C(databases), C(error)).
  returned: success
  type: dict
"""
