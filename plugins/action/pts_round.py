# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections.abc import Mapping

from ansible.errors import AnsibleActionFail, AnsibleError, AnsibleUndefinedVariable
from ansible.plugins.action import ActionBase

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts2, _rounds
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core before 2.19 trusts every template
    def trust_as_template(value):
        return value

_TEMPLATE_RE = re.compile(r"^[A-Za-z0-9._-]+$")
# How long a round may wait for the callback to have put the round before it on disk.
RECORD_WAIT_S = 60.0

ARGUMENT_SPEC = dict(
    loop_id=dict(type="str", required=True),
    test=dict(type="dict", required=True),
    segment=dict(type="dict", required=True),
    limits=dict(type="dict", default={}),
    template=dict(type="str", default="round.fio.j2"),
    job_dir=dict(type="path", required=True),
    device=dict(type="path", required=True),
    expect=dict(type="dict", required=True),
    timeout=dict(type="int", default=0),
    reconnect_timeout=dict(type="float", default=300),
    expected_seconds=dict(type="float", default=0),
    record_wait=dict(type="float", default=RECORD_WAIT_S),
    context=dict(type="dict", default={}),
)


def _row_label(row: dict | None) -> dict | None:
    """A sweep row as the round file records it: its label, queue depth or offer, without its fio sections."""
    return None if row is None else {k: v for k, v in row.items() if k != "combinations"}


# Seconds one health read (nvme smart-log, smartctl) may take before it is killed and recorded as failed.
_HEALTH_TIMEOUT_S = 60


def _register_names(register) -> list[str]:
    """The variables the task registers its result in: ``register: name``, or from ansible-core 2.21 on, where a plain
    name becomes the projection ``{name: <the result>}`` and a task may project several, every name."""
    if isinstance(register, Mapping):
        return [str(name) for name in register]
    return [register] if register else []


class ActionModule(ActionBase):
    """One round of a PTS test: render the round's job file, run fio on the host, judge the test's stop rule.

    Meant for ``until`` with ``retries`` and ``delay: 0``: ansible-core runs it again in the same worker while
    the rule says go on, registering each attempt's result before the next. The arguments are templated once
    for the whole loop, so the next round's state comes from that registered result (the previous attempt of
    this loop), never from a variable that grows with the rounds.
    """

    _supports_async = True
    _supports_check_mode = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        dummy, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        if not self._task.register:
            raise AnsibleActionFail("pts_round: register the task's result; the next round's state is read from it")
        if not _TEMPLATE_RE.match(args["template"]):
            raise AnsibleActionFail(f"pts_round: template {args['template']!r} must be a file name in the role's templates")
        try:
            rule = _rounds.check_rule(_rounds.rule_for(args["test"], args["segment"], args["limits"]))
            state = _rounds.check_state(self._state(args["loop_id"], rule["kind"], task_vars))
        except (KeyError, TypeError, ValueError) as exc:
            raise AnsibleActionFail(f"pts_round: {exc}") from None

        number = state["round"]
        rows = args["segment"].get("rounds")
        if rows and number > len(rows):
            raise AnsibleActionFail(f"pts_round: round {number} is past the {len(rows)} rows of the sweep")
        row = rows[number - 1] if rows else None
        context = dict(args["context"], phase="round", round=number, loop=state["id"])
        if number > 1:
            self._wait_recorded(context, number - 1, state["id"], args["record_wait"])
        try:
            row = self._row(args, row, number, state, context)
        except (KeyError, TypeError, ValueError, OSError) as exc:
            raise AnsibleActionFail(f"pts_round: round {number} of {context.get('test')} "
                                    f"{context.get('segment') or ''}: {exc}") from None
        context["row"] = _row_label(row)

        job_file = os.path.join(args["job_dir"], f"round-{number:02d}.fio")
        job_text = self._render(args["template"], task_vars, {"number": number, "row": row, "state": state})
        expected = state["last_elapsed_s"] or args["expected_seconds"]
        # The drive's health just before fio starts and just after it ends, outside fio's measuring time: one tool
        # call a round. Nothing touches the drive between two rounds of a loop, so the reading after the last round
        # is this round's before; the loop's first round reads it with the probe.
        clock = time.monotonic()
        probe, carried = state.get("health"), state.get("health_after")
        before = error = None
        if not isinstance(probe, dict):
            probe, before, error = self._health_probe(args["device"], context, task_vars)
        elif isinstance(carried, dict):
            before = carried
        elif not probe.get("none"):
            before, error = self._health_read(probe)
        state.update(health=probe, health_after=None)
        cost = time.monotonic() - clock
        fio = self._fio_job(task_vars, {
            "job_file": job_file, "job_text": job_text, "device": args["device"], "expect": args["expect"],
            "expected_seconds": expected, "reconnect_timeout": args["reconnect_timeout"],
            "timeout": args["timeout"], "context": context,
            "output_format": args["segment"].get("output_format") or "json",
        })
        if fio.get("failed") or fio.get("unreachable") or "pts_fio" not in fio:
            # The round's evidence goes to the callback as a failure; the loop ends here.
            result.update(fio)
            result["pts_round"] = {"round": number, "stop": True, "state": dict(state, stop=True, reason="fio failed")}
            return result
        clock = time.monotonic()
        after, late = self._health_read(probe)
        health = _health.entry(probe, before, after, cost + time.monotonic() - clock, error or late)
        if before is not None and before is carried:
            health["before_from"] = f"the reading after round {number - 1}"
        state["health_after"] = after
        try:
            nxt, key, verdict = _rounds.advance(state, rule, fio["pts_fio"]["jobs"], time.time(),
                                                fio["pts_fio"].get("elapsed_s"), row)
        except (KeyError, TypeError, ValueError) as exc:
            result.update(failed=True, msg=f"pts_round: round {number}: {exc}", pts_context=context)
            result["pts_round"] = {"round": number, "stop": True, "state": dict(state, stop=True, reason=str(exc))}
            return result
        # The health entry rides in the round's fio record, so the callback files it in round-NN.json with the round;
        # fio's own figures are not touched.
        result.update(changed=bool(fio.get("changed")), pts_fio=dict(fio["pts_fio"], health=health),
                      pts_fio_raw=fio.get("pts_fio_raw"), pts_context=context,
                      pts_round={"round": number, "stop": nxt["stop"], "state": nxt})
        result[key] = verdict
        return result

    def _row(self, args: dict, row: dict | None, number: int, state: dict, context: dict) -> dict | None:
        """The round's row: the plan's, or one worked out now - an XSR sample (a sequential stream goes on where the
        last sample ended), or an operating point chosen from the TC x QD loop's measurement window on disk."""
        segment, test = args["segment"], args["test"]
        kind = segment.get("stop")
        if kind == "samples":
            return _pts2.sample_row(segment, number, int(state.get("offset") or 0), int(args["limits"]["capacity"]))
        if kind != "points" or row is None:
            return row
        params = dict(test.get("parameters") or {}, name=test["test"], block_sizes=test["block_sizes"])
        loop_dir = _results.segment_dir(self._run_dir(context), context["host"], context["drive"], context["test"],
                                        "loop")
        window = int(args["limits"]["window"])
        rounds = [_results.read_json(path) for path in _results.round_files(loop_dir)[-window:]]
        if not rounds:
            raise ValueError(f"the TC x QD loop's rounds are not on disk in {loop_dir}: no operating point can be chosen")
        points = _pts2.operating_points(_pts2.window_grid([r["fio"]["jobs"] for r in rounds], params), params)
        points["window_rounds"] = [r.get("round") for r in rounds]
        return _pts2.point_row(params, row, points)

    @staticmethod
    def _run_dir(context: dict) -> str:
        return _run.run_dir(context["run_id"])

    def _state(self, loop_id: str, rule: str, task_vars: dict) -> dict:
        """This loop's state after its last round: the registered result of the previous attempt, else a start."""
        for name in _register_names(self._task.register):
            previous = task_vars.get(name)
            if previous is not None and not isinstance(previous, Mapping):
                # ansible-core 2.21+: an expression for the latest result, resolved when templated; before the first
                # attempt has a result it is undefined. Any other failure is the loop's, not a reason to start over.
                try:
                    previous = self._templar.template(previous)
                except AnsibleUndefinedVariable:
                    continue
            if isinstance(previous, Mapping):
                state = (previous.get("pts_round") or {}).get("state")
                if isinstance(state, dict) and state.get("id") == loop_id:
                    return dict(state)
        return _rounds.start(loop_id, rule, time.time())

    def _health_probe(self, device: str, context: dict, task_vars: dict) -> tuple[dict, dict | None, str | None]:
        """The loop's first health read: how to read the drive (kept in the loop's state), and the reading.

        A drive whose identity record says it has no health (loop, zram, virtio...) is not probed at all: the run's
        first probe (identify) already said so. Anything else is probed once per loop by pts_drive_health.
        """
        recorded = self._drive_record(context)
        if recorded is not None and recorded.get("health") is None:
            return {"none": _health.none_reason(recorded.get("interface"))}, None, None
        try:
            probed = self._execute_module(module_name="fleetqual.pts.pts_drive_health",
                                          module_args={"path": device, "mode": "round"}, task_vars=task_vars)
        except Exception as exc:  # pylint: disable=broad-exception-caught  # health is evidence beside the round, never a reason to lose it
            return {"none": f"the health probe failed: {type(exc).__name__}: {exc}"}, None, None
        finally:
            # The task runs under async, so ansible-core's cleanup leaves a synchronous module's temporary files.
            self._remove_tmp_path(self._connection._shell.tmpdir)
        found = probed.get("pts_health_probe") if isinstance(probed, dict) else None
        if probed.get("failed") or probed.get("unreachable") or not isinstance(found, dict):
            return {"none": f"the health probe failed: {probed.get('msg') or 'no answer'}"}, None, None
        if found.get("none"):
            return {"none": found["none"]}, None, None
        probe = {k: found.get(k) for k in ("tool", "format", "device", "argv", "thresholds")}
        return probe, found.get("reading"), found.get("error")

    def _drive_record(self, context: dict) -> dict | None:
        """The drive's identity as the callback filed it (drive.json), or None when it is not on disk."""
        try:
            run_dir = self._run_dir(context)
            record = _results.read_json(os.path.join(_results.drive_dir(run_dir, context["host"], context["drive"]),
                                                     "drive.json"))
        except (KeyError, OSError, TypeError, ValueError):
            return None
        drive = record.get("drive") if isinstance(record, dict) else None
        return drive if isinstance(drive, dict) else None

    def _health_read(self, probe: dict) -> tuple[dict | None, str | None]:
        """One reading with the probe's command: one shell command on the host, no module run; nothing for a
        drive without health."""
        if probe.get("none") or not probe.get("argv"):
            return None, None
        try:
            # A tool that hangs (a drive that stops answering) must not hold back the round fio has measured.
            res = self._low_level_execute_command(
                f"timeout -k 5 {_HEALTH_TIMEOUT_S} " + " ".join(shlex.quote(str(a)) for a in probe["argv"]))
        except AnsibleError as exc:
            return None, f"{probe.get('tool')} could not be run: {exc}"
        if res.get("rc") in (124, 137):  # timeout's own exit statuses: the tool was killed
            return None, f"{probe.get('tool')} did not answer within {_HEALTH_TIMEOUT_S} s and was killed"
        reading, dummy, error = _health.parse(probe.get("format"), int(res.get("rc") or 0),
                                              res.get("stdout") or res.get("stderr") or "")
        return reading, error

    def _render(self, template: str, task_vars: dict, pts_round: dict) -> str:
        """The role's job template for this round; it sees the round as ``pts_round`` (number, row, state)."""
        variables = dict(task_vars, pts_round=pts_round, __pts_round_template=template)
        templar = self._templar.copy_with_new_env(available_variables=variables)
        return templar.template(trust_as_template("{{ lookup('ansible.builtin.template', __pts_round_template) }}"))

    def _fio_job(self, task_vars: dict, module_args: dict) -> dict:
        """Run the round through the fio_job action, which runs fio detached on the host and waits for it."""
        task = self._task.copy(exclude_parent=True, exclude_tasks=True)
        task._parent = self._task._parent  # pylint: disable=protected-access  # as ansible-core's loop does
        task.args = module_args
        action = self._shared_loader_obj.action_loader.get(
            "fleetqual.pts.fio_job", task=task, connection=self._connection, play_context=self._play_context,
            loader=self._loader, templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        try:
            return action.run(task_vars=task_vars)
        finally:
            action.cleanup()

    def _wait_recorded(self, context: dict, number: int, loop_id: str, limit: float) -> None:
        """Nothing lost: round N+1 starts only once the callback has round N on disk, in this loop's attempt."""
        if limit <= 0:
            return
        try:
            run_dir = self._run_dir(context)
        except (KeyError, ValueError) as exc:
            raise AnsibleActionFail(f"pts_round: cannot find the results tree to check round {number}: {exc}") from None
        path = os.path.join(_results.segment_dir(run_dir, context["host"], context["drive"], context["test"],
                                                 context.get("segment") or ""), f"round-{number:02d}.json")
        deadline = time.monotonic() + limit
        pause = 0.005
        while True:
            try:
                with open(path, encoding="utf-8") as handle:
                    if json.load(handle).get("loop") == loop_id:
                        return
            except (OSError, ValueError):
                pass
            if time.monotonic() >= deadline:
                raise AnsibleActionFail(
                    f"pts_round: round {number} of {context['test']} on {context['drive']} is not on disk at {path} "
                    f"{limit:g} s after it ended, so round {number + 1} does not start; see the pts_report warning "
                    "above (a full or read-only results filesystem?). Free the space and resume with the same run id.")
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
