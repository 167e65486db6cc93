# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: pts_report
type: aggregate
short_description: Watch a PTS run - at its end, draw any drive report still missing and say where the results are
version_added: 1.0.0
description:
  - Optional. A run does not need it - every step files its own results as they arrive (every round on disk before the
    next one starts), each drive's worker draws the drive's report as soon as its tests end, the judge writes the fleet
    summary, and every progress line goes through ansible-core's display, which any stdout callback shows.
  - What it adds, at the end of the playbook, whatever ended it (a failed play, a host lost, an interrupt that still
    reaches the end of the playbook) - draws, from the files on disk alone, the report of every drive of the run that
    has none or an out-of-date one (a worker that stopped before drawing it), and prints where the results are. A
    report that cannot be written is a warning, never a failed play.
  - It only observes - it releases no lock (the run's judge releases this ansible-playbook's host locks, a host whose
    part ends before the judge releases its own) and decides nothing about the run.
  - It reads where the results are from the run itself - the run directory the run's first step fixed (from the
    C(pts_run_id) and C(pts_results_dir) variables, else the C(PTS_RUN_ID) and C(PTS_RESULTS_DIR) environment
    variables; see M(fleetqual.pts.pts_run_start)) - and has no option of its own. Since 3.0.0 it no longer sets the
    results directory or the run id (the C([callback_pts_report]) section of ansible.cfg is not read).
requirements:
  - matplotlib on the controller for the plots (the Markdown and JSON are written without it)
"""

import os

from ansible import context as ansible_context
from ansible.plugins.callback import CallbackBase

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _progress, _results, _run_lock, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report


def _payload(result) -> dict:
    data = getattr(result, "result", None)  # 2.19+; older cores only have ._result
    return data if data is not None else result._result


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "fleetqual.pts.pts_report"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None, options=None):
        super().__init__(display=display, options=options)
        self._run_dirs: set[str] = set()

    def v2_runner_on_ok(self, result):
        # The run fixes its directory once, before any host is touched (pts_run_start): the callback reads it from
        # there, never from a setting of its own.
        run_dir = _payload(result).get("pts_run_dir")
        if isinstance(run_dir, str) and run_dir:
            self._run_dirs.add(run_dir)

    def v2_playbook_on_stats(self, stats):
        if (ansible_context.CLIARGS or {}).get("check"):
            return  # --check writes nothing, not even into a run it names
        for run_dir in sorted(self._run_dirs):
            try:
                self._finish(run_dir)
            except OSError as exc:  # a results tree root will not read (a link, a level another user can change)
                self._display.warning(_progress.plain(f"pts_report: {run_dir}: {exc}"))

    def _finish(self, run_dir: str) -> None:
        # A host another live process of the run still tests (a job slice): its own worker draws its reports.
        elsewhere = {host for host, record in _run_lock.host_locks(run_dir).items()
                     if not _run_lock.same_owner(record, os.getpid()) and _run_lock.liveness(record)[0]}
        for path in _results.drive_dirs(run_dir):
            if os.path.basename(os.path.dirname(path)) in elsewhere or _fleet_summary.fresh(path):
                continue
            try:
                written = _drive_report.write_drive_report(path)
            except (OSError, PtsError) as exc:
                self._display.warning(_progress.plain(f"pts_report: no report for {path}: {exc}"))
                continue
            self._display.display(_progress.plain(f"PTS report (drawn at the end): {written['report']}"))
        if _safe_tree.isdir(run_dir):
            fleet_md = os.path.join(run_dir, "fleet.md")
            summary = f"fleet summary: {fleet_md}" if _safe_tree.isfile(fleet_md) else "no fleet summary was written"
            self._display.display(_progress.plain(f"PTS results: {run_dir} ({summary})"))
