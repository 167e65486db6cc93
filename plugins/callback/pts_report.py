# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
name: pts_report
type: aggregate
short_description: Write every PTS round to disk as it lands, and render the per-drive reports at the end
version_added: 1.0.0
description:
  - Files each C(pts_*) payload of the collection's modules and action plugins under
    O(output_dir)/<run id>/<host>/<drive>/ the moment the task result arrives, atomically (temporary file,
    fsync, rename), so every finished round is on disk before the next one starts.
  - Prints one progress line per round - test, round, DV value, data and slope excursion, steady - and the
    plan's time estimate before the first write.
  - Under C(--check) it writes nothing and prints, per drive, its identity, purge methods, write cache, the
    guard's verdict and the plan with its time estimate.
  - At the end of the playbook renders, for every drive touched, C(report.md), C(plots/*.png) and
    C(result.json) from the files on disk alone. A report that cannot be written is a warning, never a
    failed play.
requirements:
  - matplotlib on the controller for the plots (the Markdown and JSON are written without it)
options:
  output_dir:
    description: Root of the results tree.
    type: path
    default: results
    env:
      - name: PTS_RESULTS_DIR
    ini:
      - section: callback_pts_report
        key: output_dir
  run_id:
    description:
      - Name of this run's directory. The C(pts_run_id) extra variable takes precedence; without either, the
        UTC time the playbook started (C(YYYYMMDDTHHMMSSZ)).
      - Running the playbook again with the same run id resumes the run - tests that finished are kept,
        an interrupted test starts again from its purge.
    type: str
    env:
      - name: PTS_RUN_ID
    ini:
      - section: callback_pts_report
        key: run_id
"""

import datetime
import os

from ansible import context as ansible_context
from ansible.plugins.callback import CallbackBase

from ansible_collections.fleetqual.pts.plugins.plugin_utils import (_concurrency, _progress, _results, _run_lock,
                                                                    _workers)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _markdown


def _payload(result) -> dict:
    data = getattr(result, "result", None)  # 2.19+; older cores only have ._result
    return data if data is not None else result._result


def _host_name(result) -> str:
    host = getattr(result, "host", None) or result._host
    return host.get_name()


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "fleetqual.pts.pts_report"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None, options=None):
        super().__init__(display=display, options=options)
        self._output_dir = "results"
        self._run_id: str | None = None
        self._touched: set[tuple[str, str]] = set()
        self._started = datetime.datetime.now(datetime.timezone.utc)
        # Per (host, drive) with tests left to run, the plan's estimate: said once as the drive workers' play starts.
        self._planned: dict[tuple[str, str], dict] = {}
        self._concurrency_said = False

    def set_options(self, task_keys=None, var_options=None, direct=None):
        super().set_options(task_keys=task_keys, var_options=var_options, direct=direct)
        self._output_dir = self.get_option("output_dir")
        self._run_id = self.get_option("run_id")

    @property
    def run_dir(self) -> str:
        if not self._run_id:
            self._run_id = self._started.strftime("%Y%m%dT%H%M%SZ")
        return os.path.join(self._output_dir, _results.safe_name(self._run_id))

    def v2_playbook_on_play_start(self, play):
        # The pts_run_id extra variable wins, as it does for the plan's resume decision.
        manager = play.get_variable_manager()
        extra = getattr(manager, "extra_vars", None) or {}
        if extra.get("pts_run_id"):
            self._run_id = str(extra["pts_run_id"])
        hosts = getattr(play, "hosts", None) or []
        if _workers.GROUP in ([hosts] if isinstance(hosts, str) else hosts):
            self._show_concurrency()

    def _show_concurrency(self) -> None:
        """Before the first purge: how many drives run at once under the forks in force, and what fewer cost.
        Said as the drive workers' play starts (playbooks/pts.yml), when every host has planned; the role's own
        entry point runs a host's drives one after another and has no such play."""
        if self._concurrency_said:
            return
        drives = [dict(host=host, key=key, **estimate) for (host, key), estimate in self._planned.items()]
        forks, origin = _concurrency.forks_in_force()
        found = _concurrency.summary(drives, forks)
        if not found:
            return
        self._concurrency_said = True
        line = _concurrency.message(found, origin)
        if found["forks"] < found["drives"]:
            self._display.warning(line)
        else:
            self._say(line)

    def _file(self, result, failed: bool = False) -> None:
        data = _payload(result)
        if not any(key.startswith("pts_") for key in data):
            return
        if (ansible_context.CLIARGS or {}).get("check"):
            # --check: the plan per drive on the console, and nothing on disk.
            self._show_check(_host_name(result), data)
            return
        if failed:
            # 2.19 strips the status keys from callback results: the event says it failed.
            data = dict(data, failed=True)
        context = data.get("pts_context") or {}
        run_id = context.get("run_id") or (data.get("pts_plan") or {}).get("run_id") or data.get("pts_run_id")
        if run_id:
            self._run_id = str(run_id)  # the play fixed the run id; every result of this run goes under it
        # A drive worker runs on the controller for its host: file under the host the drive is in.
        host = context.get("host") or _host_name(result)
        try:
            _results.file_payload(self.run_dir, host, data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            what = f"round {context['round']} of {_progress.test_label(context)} on {context.get('drive')}" \
                if context.get("round") else f"a result of {context.get('drive') or 'the host'}"
            # A round that is not on disk stops its test: pts_round waits for it before the next round starts.
            self._display.error(_markdown.plain(
                f"pts_report: could not record {what} ({host}) under {self.run_dir}: {exc}; "
                "the test stops rather than run a round that is not recorded"))
            return
        for drive in data.get("pts_drives") or []:
            self._touched.add((host, drive["key"]))
        if context.get("drive"):
            self._touched.add((host, context["drive"]))
        if "pts_plan" in data:
            self._show_plan(host, data["pts_plan"])
        for key, line in (("pts_steady_state", _progress.round_line), ("pts_wsat", _progress.wsat_line),
                          ("pts_sweep", _progress.sweep_line), ("pts_sample", _progress.sample_line)):
            if key in data:
                self._say(line(host, context, data[key]))

    def _say(self, text: str) -> None:
        # Drive strings (model, serial, description files) reach the console without terminal escapes.
        self._display.display(_markdown.plain(text))

    def _show_check(self, host: str, data: dict) -> None:
        host = (data.get("pts_context") or {}).get("host") or host
        for line in _progress.check_lines(host, data):
            self._say(line)
        if (data.get("pts_plan") or {}).get("drives"):
            self._show_plan(host, data["pts_plan"])
            self._say(_progress.check_settings_line(host, data["pts_plan"]))

    def _show_plan(self, host: str, plan: dict) -> None:
        for drive in plan.get("drives") or []:
            # The tests still to run (a resume keeps the finished ones): their time, not the drive's whole plan's.
            left = _concurrency.remaining(drive)
            if left:
                self._planned[(host, drive["key"])] = {"min_s": left[0], "max_s": left[1]}
            for line in _progress.plan_lines(host, plan, drive, left):
                self._say(line)

    def v2_runner_on_ok(self, result):
        self._file(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._file(result, failed=True)

    def v2_runner_retry(self, result):
        # pts_round runs a test's rounds as one task's until loop: every round but the last arrives here.
        self._file(result)

    def v2_runner_item_on_ok(self, result):
        self._file(result)

    def v2_runner_item_on_failed(self, result):
        self._file(result, failed=True)

    def v2_runner_on_unreachable(self, result):
        # The drive's host went away: its drives' verdicts say so (INCOMPLETE, host lost) instead of guessing.
        if (ansible_context.CLIARGS or {}).get("check"):
            return  # --check writes nothing, not even into a run it names
        host = getattr(result, "host", None) or result._host
        host_vars = getattr(host, "vars", {}) or {}
        real = host_vars.get("pts_run_host") or host.get_name()
        drive = host_vars.get("pts_run_drive_key")
        path = _results.drive_dir(self.run_dir, real, drive) if drive else os.path.join(self.run_dir, _results.safe_name(real))
        try:
            _results.atomic_write_json(os.path.join(path, "lost.json"), {
                "msg": str(_payload(result).get("msg") or "unreachable"), "recorded_at": _results.now_iso()})
        except OSError as exc:
            self._display.warning(f"pts_report: could not record that {real} was lost: {exc}")

    def v2_playbook_on_stats(self, stats):
        try:
            self._finish()
        finally:
            try:
                # The run lock pts_plan took for this ansible-playbook process at validation; another's is left alone.
                _run_lock.release(self.run_dir)
            except OSError as exc:
                self._display.warning(f"pts_report: could not release the lock of {self.run_dir}: {exc}")

    def _finish(self) -> None:
        for host, drive in sorted(self._touched):
            path = _results.drive_dir(self.run_dir, host, drive)
            if not os.path.exists(os.path.join(path, "drive.json")) or _fleet_summary.fresh(path):
                continue
            try:
                written = _drive_report.write_drive_report(path)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self._display.warning(_markdown.plain(f"pts_report: no report for {host} {drive}: {exc}"))
                continue
            self._say(f"PTS report {host} {drive}: {written['report']}")
            for kind, why in (written.get("not_produced") or {}).items():
                if "not asked for" not in why:
                    self._display.warning(_markdown.plain(f"pts_report: {host} {drive}: report.{kind} not produced: {why}"))
        if not self._touched:
            return
        fleet = os.path.join(self.run_dir, "fleet.md")
        if not os.path.exists(fleet) or os.path.getmtime(fleet) < self._started.timestamp():
            # The play stopped before its summary (every host lost, say): write it anyway, for the record.
            try:
                # The plans' recorded pts_fleet_fail_on, as the play's own summary would have used.
                _fleet_summary.summarize([self.run_dir], self.run_dir)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self._display.warning(f"pts_report: no fleet summary: {exc}")
        self._say(f"PTS results: {self.run_dir} (fleet summary: {fleet})")
