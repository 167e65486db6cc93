# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, run_id
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run, _run_lock, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location
from ansible_collections.fleetqual.pts.plugins.plugin_utils._acceptance import VERDICTS

display = Display()


class ActionModule(PtsAction):
    _requires_connection = False  # reads the results tree on the controller only
    ARGUMENT_SPEC = dict(
        results_dirs=dict(type="list", elements="path"),
        run_ids=dict(type="list", elements="str", required=True),
        output_dir=dict(type="path"),
        # Unset: as the runs' plans recorded them (pts_fleet_*), else _run.FLEET_DEFAULTS.
        fail_on=dict(type="list", elements="str"),
        outlier_robust_z=dict(type="float"),
        outlier_min_deviation_pct=dict(type="float"),
        outlier_min_cohort=dict(type="int"),
        outliers_fail=dict(type="bool"),
        fail=dict(type="bool", default=True),
        errors=dict(type="list", elements="dict", default=[]),
        release_locks=dict(type="bool", default=False),
        **_location.ARGUMENT_SPEC,
    )

    def run_action(self, result, args, task_vars):
        try:
            for index, run in enumerate(args["run_ids"]):
                run_id(f"run_ids[{index}] (pts_run_ids[{index}], or pts_run_id)", run)
        except PlanError as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        bad = sorted(set(args["fail_on"] or []) - set(VERDICTS))
        if bad:
            raise ActionRefused(f"fail_on={args['fail_on']!r}: unknown verdicts {bad}; known: {', '.join(VERDICTS)}")
        try:
            roots = [_run.checked_root(root, f"results_dirs[{index}]") for index, root in enumerate(args["results_dirs"])] \
                if args["results_dirs"] else [_run.results_root(None)]
            run_dirs = [os.path.join(root, run) for root in roots for run in args["run_ids"]
                        if _safe_tree.isdir(os.path.join(root, run))]
            out = _run.checked_root(args["output_dir"], "output_dir") if args["output_dir"] else None
        except (PtsError, OSError) as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        if not run_dirs:
            raise ActionRefused(f"no run {args['run_ids']} under {roots}")
        # Actions run in a worker forked from ansible-playbook: host locks of that process are this run's own.
        owner = os.getppid()
        try:
            history = _location.resolve(args["history_url"], args["history_password"])
        except PtsError as exc:
            if args["release_locks"]:
                self._release(run_dirs, owner)  # the judge is the run's last step, whether it judges or refuses
            raise ActionRefused(f"{exc}; nothing was written") from None
        out = out or run_dirs[0]
        settings = {key: args[key] for key in _run.FLEET_DEFAULTS}
        busy = self._in_progress(run_dirs, owner)
        try:
            # Told apart by release_locks: only the run's own judge (judge.yml) passes it - a process of the run, whose
            # hosts' locks these are; a summary from outside the run (playbooks/fleet_summary.yml) that finds hosts
            # still running fails, "in progress".
            summary = _fleet_summary.summarize(run_dirs, out, settings, busy, args["errors"], args["release_locks"],
                                               history)
            if args["release_locks"]:
                self._release(run_dirs, owner)
                # Job slices that share the run: whichever finishes last sees every other's locks gone once its own
                # are, and judges every host (two judging at once both get here; the later one writes it all).
                now_busy = self._in_progress(run_dirs, owner)
                if busy and now_busy != busy:
                    busy = now_busy
                    summary = _fleet_summary.summarize(run_dirs, out, settings, busy, args["errors"], True, history)
        except (OSError, ValueError) as exc:
            raise ActionRefused(str(exc)) from None
        finally:
            if args["release_locks"]:
                self._release(run_dirs, owner)
        counts = summary["counts"]
        if (summary.get("history") or {}).get("error"):
            # The verdicts stand without the history; compare.yml and later runs will not see this run until
            # report.yml writes it.
            display.warning(f"fleet_summary: the run was not written into the history: {summary['history']['error']}; "
                            "playbooks/report.yml writes it later")
        result.update(
            changed=True,
            failed=summary["failed"] and args["fail"],
            msg="".join([
                f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['INCOMPLETE']} INCOMPLETE",
                f", {len(summary['errors'])} host(s) not tested" if summary["errors"] else "",
                f", {len(busy)} host(s) still running in another process" if busy else "",
                " (in progress: this summary passes nothing not judged yet)" if summary.get("in_progress_fails") else "",
                f"; exit status {'fails' if summary['failed'] else 'passes'}; fleet summary in "
                f"{os.path.join(out, 'fleet.md')}",
                f"; the run was not written into the history: {summary['history']['error']}"
                if (summary.get("history") or {}).get("error") else "",
                *(f"; fleet.{kind} not made: {why}" for kind, why in
                  (summary.get("outputs") or {}).get("not_produced", {}).items() if "not asked for" not in why),
            ]),
            pts_fleet={"counts": counts, "output_dir": out, "failed": summary["failed"],
                       "errors": len(summary["errors"]), "in_progress": len(busy),
                       "history": {k: (summary.get("history") or {}).get(k) for k in ("written", "databases", "error")},
                       "verdicts": {d["id"]: d["verdict"] for d in summary["drives"]}},
        )
        return result

    @staticmethod
    def _in_progress(run_dirs: list[str], owner: int) -> list[dict]:
        """Hosts of these runs that another live ansible-playbook still holds (a job slice sharing the run)."""
        busy = []
        for run_dir in run_dirs:
            for host, record in sorted(_run_lock.host_locks(run_dir).items()):
                if _run_lock.same_owner(record, owner):
                    continue
                alive, dummy = _run_lock.liveness(record)
                if alive:
                    busy.append({"run_dir": run_dir, "host": host, "by": _run_lock.describe(record)})
        return busy

    @staticmethod
    def _release(run_dirs: list[str], owner: int) -> None:
        """This ansible-playbook's part of the runs is over: its host locks go."""
        for run_dir in run_dirs:
            for host, record in _run_lock.host_locks(run_dir).items():
                if _run_lock.same_owner(record, owner):
                    try:
                        _run_lock.release(run_dir, owner, host=host)
                    except OSError as exc:
                        display.warning(f"fleet_summary: could not release the lock of {host} in {run_dir}: {exc}")
