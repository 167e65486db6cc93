# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
import sqlite3

from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import RUN_ID_RE, PlanError, run_id
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _progress, _report_slots, _results, _run, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _location
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError

display = Display()


class ActionModule(PtsAction):
    _requires_connection = False  # reads and writes the results tree on the controller only
    ARGUMENT_SPEC = dict(
        results_dir=dict(type="path"),
        run_id=dict(type="str"),
        formats=dict(type="list", elements="str", choices=["html", "pdf"]),
        run_dir=dict(type="path"),
        host=dict(type="str"),
        drive=dict(type="str"),
        **_location.ARGUMENT_SPEC,
        concurrency=dict(type="raw", default=0),  # 0: the controller's usable cores
    )
    ARGUMENT_RULES = dict(required_together=[("run_dir", "host", "drive")],
                          mutually_exclusive=[("run_dir", "results_dir"), ("run_dir", "run_id")])

    def run_action(self, result, args, task_vars):
        formats = None if args["formats"] is None else tuple(args["formats"])
        try:
            history = _location.resolve(args["history_url"], args["history_password"])
            slots = _report_slots.Slots(_report_slots.slot_count(args["concurrency"]))
        except PtsError as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        if args["run_dir"]:
            return self._one_drive(result, args["run_dir"], args["host"], args["drive"], formats, history, slots)
        if args["run_id"] is not None:
            try:
                run_id("run_id (pts_run_id)", args["run_id"])
            except PlanError as exc:
                raise ActionRefused(f"{exc}; nothing was written") from None
        try:
            root = _run.results_root(args["results_dir"])
        except PtsError as exc:
            raise ActionRefused(f"{exc}; give results_dir") from None
        try:
            if not _safe_tree.isdir(root):
                raise ActionRefused(f"results_dir={root!r} is not a directory")
            # Every run: the directories named like a run id (not hidden ones, not a stray "lost+found", not a link).
            runs = [args["run_id"]] if args["run_id"] else [e for e in _safe_tree.subdirs(root) if RUN_ID_RE.match(e)]
            if args["run_id"] and not _safe_tree.isdir(os.path.join(root, args["run_id"])):
                raise ActionRefused(f"run_id={args['run_id']!r} has no directory under {root}")
        except OSError as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        # The history from the results as they are first, so that each report rebuilt below reads every earlier run
        # in it (its population, its previous run); written again once the reports are (their verdicts).
        runs_wanted = [args["run_id"]] if args["run_id"] else None
        try:
            first = _index.rebuild(root, runs_wanted, history)
        except (HistoryError, sqlite3.Error, OSError) as exc:
            first = {"error": history.scrub(exc)}
        reports, warnings, not_produced = [], [], {}
        drive_dirs = []
        for run in runs:
            try:
                drive_dirs += _results.drive_dirs(os.path.join(root, run))
            except OSError as exc:
                # A run directory root will not read (another user's, a link): no report of it, and why.
                warnings.append(f"no report for run {run}: {exc}")
        for drive_dir in drive_dirs:
            try:
                written = _draw(drive_dir, formats, history, slots, f"PTS report {drive_dir}")
            except (OSError, PtsError) as exc:
                # One drive's bad file (a link, a FIFO, too large, too deep, of the wrong shape) fails that drive alone.
                warnings.append(f"no report for {drive_dir}: {exc}")
                continue
            reports.append(written["report"])
            for kind, why in written["not_produced"].items():
                not_produced.setdefault(f"report.{kind}: {why}", []).append(drive_dir)
        # A missing HTML or PDF library is said, never a failure: report.md is the report.
        skipped = "".join(f"; {what} (not made for {len(dirs)} drive(s))" for what, dirs in not_produced.items()
                          if "not asked for" not in what)
        # The history from the rebuilt results: this run's rows, or every run's (for SQLite beside the runs, runs gone
        # from disk out; a shared PostgreSQL history keeps every other controller's).
        try:
            rebuilt = _index.rebuild(root, runs_wanted, history)
        except (HistoryError, sqlite3.Error, OSError) as exc:
            rebuilt = {"database": history.shown(root), "error": history.scrub(exc)}
            warnings.append(f"history not written: {rebuilt['error']}")
        if first.get("moved_aside"):
            rebuilt["moved_aside"] = first["moved_aside"]
        indexed = "" if rebuilt.get("error") else \
            f"; {len(rebuilt['runs'])} run(s) written into the history {rebuilt['database']}"
        warnings += [f"history: left out {s['path']}: {s['why']}" for s in rebuilt.get("skipped") or []]
        if rebuilt.get("moved_aside"):
            moved = (f"the history index {rebuilt['database']} was not a sound database "
                     f"({rebuilt['moved_aside']['why']}): kept as {rebuilt['moved_aside']['path']}, and rebuilt from "
                     "every run of the results tree")
            display.warning(f"report_rebuild: {moved}")
            indexed += f"; {moved}"
        result.update(changed=bool(reports), pts_reports=reports, failed=bool(warnings),
                      pts_not_produced=dict(not_produced), pts_history=rebuilt,
                      msg="; ".join(warnings) or f"{len(reports)} report(s) rebuilt from {root}{skipped}{indexed}")
        return result

    @staticmethod
    def _one_drive(result: dict, run_dir: str, host: str, drive: str, formats: tuple | None, history,
                   slots: _report_slots.Slots) -> dict:
        try:
            path = _results.drive_dir(_run.checked_root(run_dir, "run_dir"), host, drive)
            if not _safe_tree.exists(os.path.join(path, "drive.json")):
                result.update(failed=True, msg=f"report_rebuild: {path} holds no drive record (drive.json)")
                return result
            written = _draw(path, formats, history, slots, f"PTS report {host} {drive}")
        except (OSError, PtsError) as exc:
            result.update(failed=True, msg=f"report_rebuild: no report for {host} {drive}: {exc}")
            return result
        not_produced = {f"report.{kind}: {why}": [path] for kind, why in written["not_produced"].items()}
        display.display(f"PTS report {host} {drive}: {written['report']}")
        result.update(changed=True, pts_reports=[written["report"]], pts_not_produced=not_produced,
                      pts_history={}, msg=f"report of {host} {drive} in {written['report']}")
        return result


def _draw(drive_dir: str, formats: tuple | None, history, slots: _report_slots.Slots, line: str) -> dict:
    """One drive's report, drawn once one of the controller's report slots is free (the wait said on the console)
    and in a short-lived child (_drive_report.draw), the plots on a second slot when one is free too."""
    try:
        held = slots.take(on_wait=lambda: display.display(_progress.plain(
            f"{line}: waiting for a report slot ({slots.count} drawn at once on this controller, "
            "pts_report_concurrency)")))
    except (_report_slots.SlotError, OSError) as exc:
        display.warning(_progress.plain(f"{line}: drawn without waiting for a report slot: {exc}"))
        held = None
    try:
        if held is not None and held.waited_s >= 0.5:
            display.display(_progress.plain(f"{line}: drawing, after {held.waited_s:.0f} s waiting for a report slot"))
        # The report libraries are imported once a slot is taken: a worker waiting for one does not load them (when
        # run_workers has not loaded them in the controller already).
        from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import (  # pylint: disable=import-outside-toplevel
            _drive_report)

        return _drive_report.draw(drive_dir, formats, history, _extra_core(slots) if held is not None else None)
    finally:
        if held is not None:
            held.release()


def _extra_core(slots: _report_slots.Slots):
    def take():
        try:
            return slots.try_take()
        except (_report_slots.SlotError, OSError):
            return None  # the plots are drawn on the report's own slot
    return take
