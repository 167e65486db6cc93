# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._plan import build_plan
from ansible_collections.fleetqual.pts.plugins.plugin_utils import (_concurrency, _identity, _progress, _resume,
                                                                    _results, _run, _run_steps)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location, _preflight
from ansible_collections.fleetqual.pts.plugins.plugin_utils._raid import validate_arrays
from ansible_collections.fleetqual.pts.plugins.plugin_utils._acceptance import inline_specs, matching_rule
from ansible_collections.fleetqual.pts.plugins.plugin_utils._acceptance import validate_rules
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _measure, _spec_file

display = Display()

# pts_run's variables that default to a shorter public one (roles/pts_run/defaults/main.yml): an error names the
# one the operator set (given in public_variables).
ALIASES = {
    "pts_run_tests": "pts_tests",
    "pts_run_profile": "pts_profile",
    "pts_run_purge_method": "pts_purge_method",
    "pts_run_write_cache": "pts_write_cache",
    "pts_run_drive_mode": "pts_drive_mode",
    "pts_run_wear_budget_pct": "pts_wear_budget_pct",
}


class ActionModule(PtsAction):
    _requires_connection = False  # validation only; runs before anything reaches a host
    ARGUMENT_SPEC = dict(
        variables=dict(type="dict", default={}),
        public_variables=dict(type="dict", default={}),
        devices=dict(type="list", elements="dict", default=[]),
        guarded=dict(type="dict", default={}),
        # raw: a malformed pts_devices is refused below under its own name, not as this option's.
        listed=dict(type="raw", default=[]),
        acceptance=dict(type="raw", default=[]),
        # raw: refused below naming pts_acceptance_specs and the file, not this option.
        acceptance_specs=dict(type="raw", default=[]),
        acceptance_measure=dict(type="raw", default="add"),
        resume=dict(type="dict", options=dict(
            results_dir=dict(type="path"),
            run_id=dict(type="str"),
            host=dict(type="str", required=True),
            allow_changed_settings=dict(type="raw", default=False),
        )),
        context=dict(type="dict", default={}),
        run_dir=dict(type="path"),
        **_location.ARGUMENT_SPEC,
    )

    def run_action(self, result, args, task_vars):
        variables = args["variables"]
        try:
            # The host's name names its results directory and reaches every report and the console.
            _text.no_format_characters("inventory_hostname", task_vars.get("inventory_hostname"))
            _text.no_format_characters("context.host", (args["context"] or {}).get("host"))
            listed = _inputs.devices(args["listed"])
            moved = _identity.guarded_refusals(args["devices"], args["guarded"])
            if moved:
                raise PlanError(f"pts_devices: {'; '.join(moved)}; nothing was written")
            rules = validate_rules(args["acceptance"])
            specs = inline_specs(rules) + _spec_file.load(args["acceptance_specs"], self._spec_path)
            measure = _measure.mode(args["acceptance_measure"])
            # The run measures what the specifications ask of the drives it plans: the plan adds the measurement, or
            # refuses (pts_acceptance_measure), before any write.
            decided = _measure.decide(variables, args["devices"], specs, measure, build_plan)
            plan, variables = decided["plan"], decided["variables"]
            plan["acceptance"] = rules
            plan["acceptance_specs"] = decided.get("specs") or specs
            plan["acceptance_measure"] = {"mode": measure, "added": decided["added"]}
            plan["fleet"] = _run.fleet_settings(variables)
            plan["publish"] = _run.publish_targets(variables.get("pts_run_publish"))
            plan["raid"] = validate_arrays(variables.get("pts_raid"), listed)
            plan["wear_budget_pct"] = _wear.budget_pct(variables.get("pts_run_wear_budget_pct"))
            # Where the run will be written at its end: a URL that is not one, or a PostgreSQL history without its
            # client library, is refused now, before any drive is touched (the server itself is not asked).
            _preflight.before_the_run(_location.resolve(args["history_url"], args["history_password"]))
        except PlanError as exc:
            raise ActionRefused(f"{self._user_named(exc, variables, args['public_variables'])}; nothing was written") \
                from None
        except PtsError as exc:
            raise ActionRefused(f"{exc}; nothing was written") from None
        plan["listed"] = [{k: v for k, v in spec.items() if k in ("path", "name", "serial", "wwn")} for spec in listed]
        resume = args["resume"] or {}
        given = _run.run_id_given(resume.get("run_id") or (args["context"] or {}).get("run_id"))
        run_id = _run_steps.checked_run_id(given, self._loader)
        results_dir = _run_steps.results_root(resume.get("results_dir"))
        if resume and run_id and results_dir:
            try:
                self._resume(plan, results_dir, run_id, resume, args["devices"], listed)
            except _resume.ResumeRefused:
                raise
            except PlanError as exc:
                raise ActionRefused(f"{exc}; nothing was written") from None
            except (OSError, PtsError) as exc:
                raise ActionRefused(f"cannot read the results of run {run_id}: {exc}") from None
        # After the resume has marked the finished tests: only what is left to run counts against the budget.
        self._wear(plan, args["devices"])
        if args["devices"] or plan["drives"]:
            self._show(plan, (args["context"] or {}).get("host") or task_vars.get("inventory_hostname") or "")
            if not self._task.check_mode:
                run_dir = args["run_dir"]
                if run_dir:
                    # Filed before any write: the plan (settings, fleet rules) is what a resume and the summary read.
                    _results.file_payload(str(run_dir), (args["context"] or {}).get("host") or "",
                                          {"pts_plan": plan, "pts_context": args["context"]})
        result.update(changed=False, pts_plan=plan, pts_context=args["context"])
        # The plan of every drive of the host is registered whole and said line by line on the console (and filed in
        # plan.json); the event AWX stores of it stays the size of no drive (a refusal above still shows its message).
        result["_ansible_no_log"] = True
        return result

    def _spec_path(self, path: str) -> str:
        """A specification file's path: absolute as given, else relative to the playbook (as its own files are)."""
        return path if os.path.isabs(path) else self._loader.path_dwim(path)

    def _show(self, plan: dict, host: str) -> None:
        """Before the first write: what the specifications made the plan add, each drive's plan, its time estimate and
        wear budget (also under --check)."""
        for spec in plan.get("acceptance_specs") or []:
            if spec.get("example"):
                display.warning(f"pts_plan: the acceptance specification {spec['name']!r} {spec['version']} "
                                f"({spec.get('file')}) is an example: its limits are placeholders, not any vendor's or "
                                "body's numbers")
        for line in _measure.lines(host, (plan.get("acceptance_measure") or {}).get("added") or []):
            display.display(_progress.plain(line))
        for drive in plan["drives"]:
            left = _concurrency.remaining(drive)
            for line in _progress.plan_lines(host, plan, drive, left):
                display.display(_progress.plain(line))
            if drive.get("wear"):
                display.display(_progress.plain(f"PTS wear {host} {drive['key']}: {drive['wear'].get('text')}"))
        if self._task.check_mode and plan["drives"]:
            display.display(_progress.plain(_progress.check_settings_line(host, plan)))

    @staticmethod
    def _wear(plan: dict, devices: list[dict]) -> None:
        """Estimate what the run writes to each drive and refuse, before any write, a run over the wear budget."""
        run = {"max_rounds": plan["max_rounds"], "wipc_capacity_multiple": plan["wipc"]["capacity_multiple"],
               "purge_method": plan["settings"]["purge_method"], "rate_iops": plan["settings"]["rate_iops"]}
        by_key = {device.get("key"): device for device in devices}
        refusals = []
        for drive in plan["drives"]:
            device = by_key.get(drive["key"]) or {}
            rule = matching_rule(plan["acceptance"], device.get("model"), device.get("firmware"))
            try:
                drive["wear"] = _wear.judge(device, drive, run, rule, plan["wear_budget_pct"])
            except PtsError as exc:
                raise ActionRefused(f"the wear budget of drive {drive['key']} cannot be judged: {exc}; "
                                    "nothing was written") from None
            if drive["wear"]["refused"]:
                refusals.append(_wear.refusal(drive["key"], device, drive["wear"]))
        if refusals:
            raise ActionRefused(f"{'; '.join(refusals)}; nothing was written")

    @staticmethod
    def _user_named(exc: PlanError, variables: dict, public: dict) -> str:
        """The error, naming pts_tests (say) instead of pts_run_tests when that is what the operator set."""
        alias = ALIASES.get(exc.variable or "")
        text = str(exc)
        if alias and alias in public and public[alias] == variables.get(exc.variable) and text.startswith(exc.variable):
            return alias + text[len(exc.variable):]
        return text

    @staticmethod
    def _resume(plan: dict, results_dir: str, run_id: str, resume: dict, devices: list[dict], listed: list[dict]) -> None:
        """Refuse a resume that would mix drives or settings; mark the tests the run already finished."""
        allow = _inputs.boolean("pts_allow_changed_settings", resume.get("allow_changed_settings", False))
        previous = _resume.previous_plan(results_dir, run_id, resume["host"])
        changes = _resume.check_settings(previous, plan, run_id, allow)
        history = list((previous or {}).get("changed_settings") or [])
        if changes:
            history.append({"changes": changes, "allowed_at": _results.now_iso(),
                            "by": "pts_allow_changed_settings: true"})
            display.warning(f"pts_plan: run {run_id} resumes with changed settings (pts_allow_changed_settings): "
                            f"{'; '.join(changes)}")
        plan["changed_settings"] = history
        recorded = _resume.recorded_identities(results_dir, run_id, resume["host"], previous)
        plan["identities"] = _resume.check_identities(devices, recorded, run_id, listed)
        _resume.mark_done(plan, results_dir, run_id, resume["host"])
        plan["run_id"] = run_id
