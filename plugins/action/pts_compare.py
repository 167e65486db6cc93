# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import run_id
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare, _compare_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store


def _default_name(selection: dict) -> str:
    if selection["mode"] == "runs":
        name = "+".join(selection["baseline_runs"]) + "-vs-" + "+".join(selection["candidate_runs"])
    else:
        name = f"{selection['model']}-{selection['baseline_firmware']}-vs-{selection['candidate_firmware']}"
    return _results.safe_name(name)


class ActionModule(PtsAction):
    _requires_connection = False  # reads the history and writes the comparison on the controller only
    _supports_check_mode = False  # it writes the comparison: --check skips it
    ARGUMENT_SPEC = dict(
        results_dir=dict(type="path"),
        baseline_runs=dict(type="list", elements="str"),
        candidate_runs=dict(type="list", elements="str"),
        model=dict(type="str"),
        baseline_firmware=dict(type="str"),
        candidate_firmware=dict(type="str"),
        tolerance_pct=dict(type="raw"),
        fail_on_regression=dict(type="bool", default=True),
        output_dir=dict(type="path"),
        **_location.ARGUMENT_SPEC,
    )

    def run_action(self, result, args, task_vars):
        try:
            for variable, runs in (("pts_compare_baseline_run", args["baseline_runs"]),
                                   ("pts_compare_candidate_run", args["candidate_runs"])):
                for index, run in enumerate(runs or []):
                    run_id(f"{variable}[{index}]" if len(runs) > 1 else variable, run)
            tolerance = _compare.tolerance_input(args["tolerance_pct"])
            history = _location.resolve(args["history_url"], args["history_password"])
        except PtsError as exc:  # a PlanError, a CompareError, or pts_history_url
            raise ActionRefused(f"{exc}; nothing was written") from None
        try:
            root = _run.results_root(args["results_dir"])
            given_out = _run.checked_root(args["output_dir"], "output_dir (pts_compare_output_dir)") \
                if args["output_dir"] else None
        except PtsError as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        if not _safe_tree.isdir(root):
            raise ActionRefused(f"pts_results_dir={root!r} is not a directory")
        try:
            store = open_store(history, root, readonly=True)
        except HistoryError as exc:
            raise ActionRefused(f"{history.scrub(exc)}: a run is written into the history when its fleet summary is "
                                "written; playbooks/report.yml writes it from the results tree") from None
        try:
            selection = _compare.select(store, args["baseline_runs"], args["candidate_runs"], args["model"],
                                        args["baseline_firmware"], args["candidate_firmware"], db=store.shown)
            compared = _compare.build(store, selection, tolerance)
        except (_compare.CompareError, HistoryError) as exc:
            raise ActionRefused(f"{history.scrub(exc)}; nothing was written") from None
        finally:
            store.close()
        out = given_out or os.path.join(root, "compare", _default_name(selection))
        try:
            written = _compare_report.write(compared, out, args["fail_on_regression"], root=root)
        except (OSError, ValueError) as exc:
            raise ActionRefused(f"could not write the comparison in {out}: {exc}") from None
        counts = written["counts"]
        missing = "".join(f"; {kind} not made: {why}" for kind, why in written["outputs"]["not_produced"].items()
                          if "not asked for" not in why)
        result.update(
            changed=True,
            failed=written["failed"],
            msg=(f"{counts['REGRESSION']} REGRESSION, {counts['IMPROVEMENT']} IMPROVEMENT, {counts['SAME']} SAME, "
                 f"{counts['NOT COMPARED']} not compared ({written['baseline']['label']} vs "
                 f"{written['candidate']['label']}); comparison in {os.path.join(out, 'compare.md')}"
                 f"{'; regressed: ' + ', '.join(written['regressions']) if written['regressions'] else ''}{missing}"),
            pts_compare={
                "output_dir": out, "counts": counts, "failed": written["failed"],
                "regressions": written["regressions"], "tolerance": written["tolerance"]["rule"],
                "verdicts": {g["model"]: {f["figure"]: f["verdict"] for f in g["figures"]} for g in written["groups"]},
                "baseline": written["baseline"], "candidate": written["candidate"],
            },
        )
        return result
