# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: report_rebuild
short_description: Rebuild every drive report of a results tree from the files on disk alone
version_added: 1.0.0
description:
  - Renders C(report.md), C(plots/*.png) and C(result.json) again for every drive of one run (or of every run)
    under O(results_dir), from the round files, purge, preconditioning and identity records there. Touches no host.
  - Also renders C(report.html) (self-contained, plots embedded) and C(report.pdf) from it where the controller has
    markdown-it-py and WeasyPrint (C(requirements.txt)); without them the report says what it did not make and why,
    and so does the task's message. Neither is a failure.
  - Fails, naming each drive, when a drive's files cannot be made into a report - the file and why (a link, a FIFO
    or a device in the tree, a file over its size, JSON nested too deep, a round whose fio completed no I/O, a field
    of the wrong type); every other drive's report is still made.
  - Reads and writes the tree by directory file descriptors, never through a link; run as root, it refuses a results
    tree (or a run of it) that a level another user can change leads to, naming the level.
  - Also writes the run (or, without O(run_id), every run of the tree) into the history that
    P(fleetqual.pts.pts_compare#module), the drive reports and the fleet summary read - before the reports (each
    report compares its drive with every earlier run in it) and again after them (their verdicts). The history is
    O(history_url) - SQLite beside the runs (C(pts-history.sqlite) in O(results_dir)), where runs gone from disk are
    dropped, or a PostgreSQL database many controllers share, where this tree's runs are written and no other's is
    dropped. A run whose fleet summary could not write it (the server was down) is written here.
  - With O(run_dir), O(host) and O(drive), only that drive's report, reading the history but writing nothing into
    it - what each drive worker of C(playbooks/pts.yml) does as soon as its tests end, in parallel with the drives
    still testing.
  - An index file that is not a sound SQLite database (C(file is not a database), C(database disk image is
    malformed)) is moved aside, kept as C(pts-history.sqlite.corrupt-<UTC time>) with its journal, and a new index
    is built from every run of the results tree; a warning and the task's message say so.
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
      - Root of the results tree (playbooks/report.yml passes C(pts_results_dir)); defaults to the C(PTS_RESULTS_DIR)
        environment variable, else C(results).
    type: path
  run_id:
    description:
      - The run to rebuild; every run under O(results_dir) when omitted (each directory named like a run id).
      - A run id is one directory name of letters, digits, C(.), C(_) and C(-), starting and ending with a letter or
        digit; anything else (a path, C(..), a space) is refused before anything is read or written.
    type: str
  formats:
    description:
      - The outputs to make besides C(report.md), C(result.json) and the plots; V([]) for none.
      - When omitted, the C(PTS_REPORT_FORMATS) environment variable (comma-separated), else both.
    type: list
    elements: str
    choices: [html, pdf]
  run_dir:
    description: One run's directory (C(pts_run_dir)); with O(host) and O(drive), that drive's report only.
    type: path
    version_added: 2.0.0
  host:
    description: The drive's host, with O(run_dir) and O(drive).
    type: str
    version_added: 2.0.0
  drive:
    description: The drive (its C(pts_devices) name or key), with O(run_dir) and O(host).
    type: str
    version_added: 2.0.0
  concurrency:
    description:
      - How many reports the controller draws at once, across every task and every C(ansible-playbook) on it (job
        slices sharing a controller included); a report waits, saying so on the console, while that many are being
        drawn. V(0) (the default) is the controller's usable cores - the CPUs this process may run on, fewer when its
        cgroup caps its CPU time.
      - Each report takes one of that many lock files (C(slot-0), C(slot-1), ...) with C(flock) in a directory only
        the controller's user can write - C(/run/fleetqual-pts/report-slots) for root - and draws its plots, HTML
        and PDF in a short-lived child process, so the memory they take is returned when the report is done. The
        plots of one report are drawn on two cores when a second slot is free.
      - Playbooks pass C(pts_report_concurrency).
    type: raw
    default: 0
    version_added: 3.0.0
seealso:
  - module: fleetqual.pts.fleet_summary
"""

EXAMPLES = r"""
- name: Rebuild the reports of one run
  fleetqual.pts.report_rebuild:
    results_dir: results
    run_id: 20261123T101500Z-3f9a1c

- name: Draw one drive's report
  fleetqual.pts.report_rebuild:
    run_dir: "{{ pts_run_dir }}"
    host: stor-12-01
    drive: bay0
"""

RETURN = r"""
pts_reports:
  description: The report.md files written.
  returned: always
  type: list
  elements: str
pts_not_produced:
  description: For each output not made, with why (C(report.pdf) and the reason), the drive directories.
  returned: always
  type: dict
pts_history:
  description:
    - The history written - C(database) (the file, or the URL without its password), C(runs), C(dropped), C(rows);
      or C(error).
    - C(moved_aside) (C(path), C(why)) when a corrupt index was moved aside before the rebuild.
  returned: always
  type: dict
"""
