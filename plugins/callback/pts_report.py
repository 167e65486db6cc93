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

from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils import (
    _concurrency,
    _fleet,
    _markdown,
    _report,
    _results,
    _run_lock,
    _workers,
)


def _payload(result) -> dict:
    data = getattr(result, "result", None)  # 2.19+; older cores only have ._result
    return data if data is not None else result._result


def _host_name(result) -> str:
    host = getattr(result, "host", None) or result._host
    return host.get_name()


def _pct(value) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


_UNITS = {"iops": ("IOPS", 1.0), "bw_bytes": ("MB/s", 1e6), "lat_mean_ns": ("ms", 1e6)}


def _dv_label(dv: dict) -> str:
    if dv.get("job") and dv.get("name"):
        return str(dv["name"])  # a named section's DV (CBW's TC32/QD32, HIR's preconditioning) names itself
    bs = dv.get("bs")
    bs = block_size_label(bs) if isinstance(bs, int) else bs
    mix = dv.get("mix")
    if dv.get("metric") == "bw_bytes":
        return f"{bs} {'read' if mix == 100 else 'write'}"
    return f"{bs} {mix}/{100 - int(mix or 0)} {'mean latency' if dv.get('metric') == 'lat_mean_ns' else 'IOPS'}"


def _test_label(context: dict) -> str:
    return f"{context.get('test')}{' ' + context['segment'] if context.get('segment') else ''}"


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
        run_id = context.get("run_id") or (data.get("pts_plan") or {}).get("run_id")
        if run_id:
            self._run_id = str(run_id)  # the play fixed the run id; every result of this run goes under it
        # A drive worker runs on the controller for its host: file under the host the drive is in.
        host = context.get("host") or _host_name(result)
        try:
            _results.file_payload(self.run_dir, host, data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            what = f"round {context['round']} of {_test_label(context)} on {context.get('drive')}" \
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
        if "pts_steady_state" in data:
            self._show_round(host, context, data["pts_steady_state"])
        if "pts_wsat" in data:
            self._show_wsat(host, context, data["pts_wsat"])
        if "pts_sweep" in data:
            self._show_sweep(host, context, data["pts_sweep"])
        if "pts_sample" in data:
            self._show_sample(host, context, data["pts_sample"])

    def _say(self, text: str) -> None:
        # Drive strings (model, serial, description files) reach the console without terminal escapes.
        self._display.display(_markdown.plain(text))

    def _show_check(self, host: str, data: dict) -> None:
        context = data.get("pts_context") or {}
        host = context.get("host") or host
        for drive in data.get("pts_drives") or []:
            size = drive.get("size_bytes")
            methods = drive.get("purge_methods") or []
            cache = {True: "enabled", False: "disabled"}.get(drive.get("device_write_cache"), "not applicable")
            self._say(
                f"PTS check {host} {drive['key']}: {drive.get('resolved')} {drive.get('vendor') or ''} "
                f"{drive.get('model') or ''}, serial {drive.get('serial')}, WWN {drive.get('wwn')}, firmware "
                f"{drive.get('firmware')}, {size:,} bytes, {drive.get('interface')}; purge methods "
                f"{', '.join(methods) or 'none'} (auto would use {methods[0] if methods else 'none: the test would fail'}); "
                f"write cache {cache}" if size is not None else f"PTS check {host} {drive['key']}: not found")
        for verdict in data.get("pts_guard") or []:
            state = "passes" if verdict.get("passed") else "REFUSES: " + "; ".join(verdict.get("refusals") or [])
            self._say(f"PTS check {host} {verdict.get('key')}: the guard {state}")
        if (data.get("pts_plan") or {}).get("drives"):
            self._show_plan(host, data["pts_plan"])
            settings = data["pts_plan"].get("settings") or {}
            self._say(f"PTS check {host}: purge method {settings.get('purge_method')}, write cache "
                      f"{settings.get('write_cache')}; --check wrote nothing")

    def _show_plan(self, host: str, plan: dict) -> None:
        for drive in plan.get("drives") or []:
            left = _concurrency.remaining(drive)
            if left:
                self._planned[(host, drive["key"])] = {"min_s": left[0], "max_s": left[1]}
            kept = [f"{t['test']} ({t['status']})" for t in drive["tests"] if t.get("done")]
            if kept:
                self._say(f"PTS resume {host} {drive['key']}: run {plan.get('run_id')} already finished "
                          f"{', '.join(kept)}; kept, not run again")
            tests = ", ".join(f"{t['test']} {t['combinations']} runs" for t in drive["tests"] if not t.get("done"))
            mode = f"{drive['mode_reason']}; " if drive.get("mode_reason") else ""
            skipped = "".join(f"; {note}" for note in drive.get("skipped") or [])
            self._say(
                f"PTS plan {host} {drive['key']}: {mode}{tests or 'no test'}; estimated {drive['min_s'] / 60:.1f}-"
                f"{drive['max_s'] / 60:.1f} min ({plan.get('estimate_note')}){skipped}"
            )

    def _show_round(self, host: str, context: dict, verdict: dict) -> None:
        figures = []
        for dv in verdict.get("dvs") or []:
            unit, scale = _UNITS.get(dv.get("metric"), ("", 1.0))
            value = dv.get("dv_value")
            shown = "n/a" if value is None else f"{value / scale:,.{2 if scale > 1 else 1}f}"
            figures.append(f"{_dv_label(dv)} = {shown} {unit} (data {_pct(dv.get('data_excursion_pct'))}, "
                           f"slope {_pct(dv.get('slope_excursion_pct'))})")
        limits = next(iter(verdict.get("dvs") or []), {})
        state = "STEADY" if verdict.get("steady") else "not steady"
        self._say(
            f"PTS {host} {context.get('drive')} {_test_label(context)} round {verdict.get('round')}/"
            f"{verdict.get('max_rounds')}: {'; '.join(figures)}; limits {limits.get('max_data_excursion_pct', 20):g} % / "
            f"{limits.get('max_slope_excursion_pct', 10):g} %; {state}"
        )

    def _show_wsat(self, host: str, context: dict, progress: dict) -> None:
        lat = progress.get("lat_mean_ns")
        self._say(
            f"PTS {host} {context.get('drive')} wsat round {progress.get('round')}: 4k random write "
            f"{progress.get('iops', 0):,.1f} IOPS, mean latency {'n/a' if lat is None else f'{lat / 1e6:.3f} ms'}; "
            f"{progress.get('reason')}{'; DONE' if progress.get('stop') else ''}"
        )

    def _show_sweep(self, host: str, context: dict, row: dict) -> None:
        cells = row.get("cells") or []
        if row.get("offered_iops"):
            lat = cells[0].get("lat_mean_ns") if cells else None
            figures = (f"offered {row['offered_iops']:,} IOPS, achieved {row.get('achieved_iops', 0):,.0f} "
                       f"({'delivered' if row.get('delivered') else 'NOT delivered'}), mean latency "
                       f"{'n/a' if lat is None else f'{lat / 1e6:.3f} ms'}")
        elif len(cells) > 8:
            # HIR's bursts: hundreds of sections in one round, summed up.
            iops = [c["iops"] for c in cells]
            figures = (f"{row.get('label')}: {len(cells)} sections, IOPS mean {sum(iops) / len(iops):,.0f}, "
                       f"min {min(iops):,.0f}, max {max(iops):,.0f}")
        else:
            shown = [f"{c['name']} {c['iops']:,.0f} IOPS {c['mb_s']:,.1f} MB/s" for c in cells[:4]]
            figures = f"{row.get('label')}: " + "; ".join(shown) + (f"; +{len(cells) - 4} more" if len(cells) > 4 else "")
        self._say(
            f"PTS {host} {context.get('drive')} {_test_label(context)} round {row.get('round')}/{row.get('rounds')}: "
            f"{figures}; {row.get('reason')}{'; DONE' if row.get('stop') else ''}"
        )

    def _show_sample(self, host: str, context: dict, sample: dict) -> None:
        def ms(value):
            return "n/a" if value is None else f"{value / 1e6:.3f} ms"

        self._say(
            f"PTS {host} {context.get('drive')} {_test_label(context)} round {sample.get('round')}/"
            f"{sample.get('rounds')}: {sample.get('mb_s', 0):,.1f} MB/s, {sample.get('iops', 0):,.0f} IOPS, mean response "
            f"time {ms(sample.get('lat_mean_ns'))}, max {ms(sample.get('lat_max_ns'))}; {sample.get('reason')}"
            f"{'; DONE' if sample.get('stop') else ''}"
        )

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
            if not os.path.exists(os.path.join(path, "drive.json")) or _fleet.fresh(path):
                continue
            try:
                written = _report.write_drive_report(path)
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
                _fleet.summarize([self.run_dir], self.run_dir)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self._display.warning(f"pts_report: no fleet summary: {exc}")
        self._say(f"PTS results: {self.run_dir} (fleet summary: {fleet})")
