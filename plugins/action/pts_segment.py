# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Over 500 lines: one action and its round loop - the purge and preconditioning before it, a round, an XSR group's
# samples as fio's status dumps come, the health reads around fio - which share the loop's state; the pure parts are in
# module_utils/_pts/_rounds.py.

from __future__ import annotations

import os
import shlex
import time

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.utils.display import Display

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _interval, _plan, _rounds, _stop_rules
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _progress, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._action import ActionRefused, PtsAction
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fio_client import FioClient
from ansible_collections.fleetqual.pts.plugins.plugin_utils._job_text import JobTextError, round_text, wipc_text

display = Display()

# Seconds one health read (nvme smart-log, smartctl) may take before it is killed and recorded as failed.
_HEALTH_TIMEOUT_S = 60
# What a failed round leaves in the task's result: the message, cut to this many characters (the whole evidence is in
# failure.json). The result stays small whatever fio printed.
_MSG_CHARS = 2000


class _NotRecorded(PtsError):
    """A sample of a continuous stimulus could not be recorded: fio is stopped, the test stops."""


def baseline_samples(status: list[str], final: str) -> list[dict]:
    """A return to baseline's samples: its one fio run cut at fio's status dumps (the last at fio's final report),
    each sample's figures without its latency buckets (the round's own histogram has them all)."""
    sampler = _interval.Sampler()
    closed = []
    for text in list(status) + [final]:
        closed += sampler.feed(_interval.counters(text))
    closed = sampler.fold_idle(closed)
    out = []
    for number, before, after in closed:
        window = _interval.window(before, after)
        for name in ("read", "write"):
            window[name].pop("histogram", None)
        out.append(dict(window, sample=number))
    return out


def _row_label(row: dict | None) -> dict | None:
    """A sweep row as the round file records it: its label, queue depth or offer, without its fio sections."""
    return None if row is None else {k: v for k, v in row.items() if k != "combinations"}


class ActionModule(PtsAction):
    """Every round of one segment of a PTS test, in one task: for each round, render its job file, run fio on the
    host (detached, through fleetqual.pts.fio_job), write the round on the controller (atomically, with its verdict),
    judge the stop rule and print one progress line - then the next round, until the rule says stop.

    The loop is a plain Python loop in this worker: nothing nests or grows per round but the round files on disk,
    and the task's result is the stop verdict and where the rounds are, whatever the round count or fio's output.
    """

    _supports_check_mode = False
    # The options its docs-only module documents (tests/unit/plugins/plugin_utils/test__action.py holds them equal).
    ARGUMENT_SPEC = dict(
        test=dict(type="dict", required=True),
        segment=dict(type="dict", required=True),
        limits=dict(type="dict", default={}, options=dict(
            window=dict(type="int"),
            max_rounds=dict(type="int"),
            max_data_excursion_pct=dict(type="float"),
            max_slope_excursion_pct=dict(type="float"),
            capacity=dict(type="int"),
            max_write_bytes=dict(type="float"),
        )),
        settings=dict(type="dict", required=True),
        first=dict(type="bool", default=True),
        host_dir=dict(type="path", required=True),
        job_dir=dict(type="path", required=True),
        device=dict(type="path", required=True),
        expect=dict(type="dict", required=True),
        run_dir=dict(type="path", required=True),
        timeout=dict(type="int", default=0),
        reconnect_timeout=dict(type="float", default=300),
        expected_seconds=dict(type="float", default=0),
        context=dict(type="dict", default={}),
    )

    def run_action(self, result, args, task_vars):
        context = dict(args["context"])
        for key in ("host", "drive", "test"):
            if not context.get(key):
                raise ActionRefused(f"context.{key} is required (where the rounds are filed)")
        rule = _rounds.check_rule(_rounds.rule_for(args["test"], args["segment"], args["limits"]))
        segment_dir = _results.segment_dir(args["run_dir"], context["host"], context["drive"], context["test"],
                                           context.get("segment") or "")
        loop_id = f"{context['drive']}/{context['test']}/{context.get('segment') or ''}@{time.time():.6f}"
        state = _rounds.start(loop_id, rule["kind"], time.time())
        expected = args["expected_seconds"]
        payload = None
        # The plan's upper bound of what the run writes to the drive, which its wear budget was judged on: a drive that
        # writes faster than the plan assumed stops before it passes it (0: no budget, no bound).
        bound = int(args["limits"]["max_write_bytes"] or 0)
        # A worker runs as a child of ansible-playbook; if that dies (SIGKILL), this worker lives on as an orphan and
        # must not run or record another round of a run nobody runs any more.
        self._controller = os.getppid()
        self._fio = FioClient(self._execute_module, self._low_level_execute_command)
        self._fio.wanted = self._wanted
        self._budget = {"bound": bound, "written": 0}
        try:
            failed = self._prepare(args, task_vars, context)
            if failed:
                result.update(failed=True, msg=failed["msg"][:_MSG_CHARS], pts_segment={
                    "dir": segment_dir, "rounds": 0, "stop": True, "reason": failed["msg"][:200], "failed_round": 0,
                    "lost": bool(failed.get("lost"))})
                return result
            written = self._written(args, context)
            while not state["stop"]:
                number = state["round"]
                outcome = self._round(args, task_vars, rule, state, dict(context, loop=loop_id), expected)
                if outcome.get("failed"):
                    msg = str(outcome.get("msg") or "the round failed")
                    result.update(failed=True, msg=msg[:_MSG_CHARS], pts_segment={
                        "dir": segment_dir, "rounds": number - 1, "stop": True, "reason": msg[:200],
                        "failed_round": number, "lost": bool(outcome.get("lost"))})
                    return result
                state, payload = outcome["state"], outcome["verdict"]
                expected = state["last_elapsed_s"] or expected
                last = outcome["written"]
                written += last
                self._budget["written"] = written
                if bound and not state["stop"] and written + last > bound:
                    msg = (f"pts_segment: {context['drive']} has written {written:,} bytes in this run; another round "
                           f"would pass the {bound:,} bytes the plan's wear estimate allows (the rule's "
                           "rated_write_mb_s is below what the drive writes?), so its tests stop here, within its wear "
                           "budget")
                    self._fail(args, dict(context, phase="round", round=state["round"]), msg)
                    result.update(failed=True, msg=msg, pts_segment={
                        "dir": segment_dir, "rounds": state["round"] - 1, "stop": True, "reason": "wear bound",
                        "failed_round": state["round"], "lost": False})
                    return result
        finally:
            if self._server:
                self._fio.stop_server(self._server)
        result.update(changed=True, pts_segment={
            "dir": segment_dir, "rounds": state["round"] - 1, "stop": True, "reason": state["reason"],
            "steady": (payload or {}).get("steady")})
        return result

    def _written(self, args: dict, context: dict) -> int:
        """What fio has written to the drive in this run, from its files on disk (0 without a wear bound)."""
        if not self._budget["bound"]:
            return 0
        self._budget["written"] = _results.written_by_fio(
            _results.drive_dir(args["run_dir"], context["host"], context["drive"]))
        return self._budget["written"]

    def _left(self) -> int:
        """The bytes the next fio run may still write (its wear bound, handed to the host's runner); 0: no bound. A run
        with nothing left gets one byte: the runner stops it at its first write."""
        if not self._budget["bound"]:
            return 0
        return max(self._budget["bound"] - self._budget["written"], 1)

    def _prepare(self, args: dict, task_vars: dict, context: dict) -> dict | None:
        """What the plan runs before the segment's first round, in its order: the test's purge and preconditioning
        (before its first segment), then the segment's own (a throughput block size, a sweep part). A failure ends the
        test: the evidence is on disk."""
        test, segment, settings = args["test"], args["segment"], args["settings"]
        test_context = {k: v for k, v in context.items() if k != "segment"}
        steps = []
        if args["first"]:
            if test.get("purge") == "test":
                steps.append(("purge", test_context, None))
            if test.get("wipc") or (test.get("precondition") and test.get("purge") == "test"):
                steps.append(("precondition", test_context, settings["wipc_block_size"]))
        if test.get("purge") == "segment":
            steps.append(("purge", context, None))
            if test.get("precondition") or test.get("segment_wipc"):
                steps.append(("precondition", context, segment.get("wipc_block_size") or settings["wipc_block_size"]))
        for kind, where, block_size in steps:
            failed = self._purge(args, task_vars, where) if kind == "purge" else \
                self._precondition(args, task_vars, where, block_size)
            if failed:
                return failed
        return None

    def _purge(self, args: dict, task_vars: dict, context: dict) -> dict | None:
        """The drive's purge (fleetqual.pts.pts_purge on the host, which rechecks the guard's record), on record."""
        settings = args["settings"]
        module_args = {"path": args["device"], "method": settings["purge_method"],
                       "allow_destroy": settings["allow_destroy"], "remote_dir": args["host_dir"],
                       "expect": args["expect"], "context": context}
        try:
            found = self._execute_module(module_name="fleetqual.pts.pts_purge", module_args=module_args,
                                         task_vars=task_vars)
        except AnsibleConnectionFailure as exc:
            return self._lost(args, context, exc)
        recorded = self._file(args, context, dict(found, pts_context=context))
        if recorded is not None:
            return {"failed": True, "msg": recorded}
        if found.get("failed"):
            return {"failed": True, "msg": str(found.get("msg") or "the purge failed")}
        return None

    def _precondition(self, args: dict, task_vars: dict, context: dict, block_size: str) -> dict | None:
        """The preconditioning the plan asks for (SNIA PTS WIPC, or the Myce/OakGate timed random writes), one fio run
        through the segment's fio server, on record as the test's (or segment's) wipc files."""
        test, settings = args["test"], args["settings"]
        precondition = test.get("precondition") or None
        context = dict(context, phase="wipc")
        capacity = float(args["limits"]["capacity"] or 0)
        if precondition:
            seconds = float(precondition.get("seconds") or 0)
            expected, timeout = seconds, seconds + 600
        else:
            multiple = int(settings["wipc_capacity_multiple"])
            expected = multiple * capacity / _plan.ASSUMED_WIPC_BYTES_PER_S
            timeout = multiple * capacity / float(settings["wipc_min_bytes_per_second"]) + 600
            seconds = 0.0
        try:
            job_text = wipc_text("random" if precondition else "wipc", args["device"], settings["ioengine"],
                                 context["drive"], block_size, int(settings["wipc_capacity_multiple"]),
                                 int(settings["wipc_iodepth"]), seconds)
        except JobTextError as exc:
            return self._fail(args, context, f"pts_segment: the preconditioning job file cannot be written: {exc}")
        module_args = {"job_file": os.path.join(args["job_dir"], "wipc.fio"), "job_text": job_text,
                       "device": args["device"], "expect": args["expect"], "expected_seconds": expected,
                       "reconnect_timeout": args["reconnect_timeout"], "timeout": int(timeout), "context": context,
                       "max_write_bytes": self._left(), "output_format": "json"}
        fio = self._fio_round(task_vars, module_args)
        if fio.get("unreachable") or fio.get("pts_lost"):
            return self._lost(args, context, fio.get("msg") or "unreachable")
        if fio.get("failed") or "pts_fio" not in fio:
            fio.setdefault("msg", "fio_job returned no measurement")
            self._file(args, context, dict(fio, failed=True, pts_context=context))
            return {"failed": True, "msg": fio["msg"]}
        recorded = self._file(args, context, {"pts_fio": fio["pts_fio"], "pts_fio_raw": fio.get("pts_fio_raw"),
                                              "pts_context": context})
        if recorded is not None:
            return {"failed": True, "msg": recorded}
        self._budget["written"] += sum(int((job.get("write") or {}).get("io_bytes") or 0)
                                       for job in fio["pts_fio"]["jobs"])
        return None

    def _round(self, args: dict, task_vars: dict, rule: dict, state: dict, context: dict, expected: float) -> dict:
        """One round: its job file, fio, health, the verdict, the round on disk, the progress line. Returns the next
        state and the verdict, or ``failed`` (with ``msg``; the evidence is on disk) when the test must stop."""
        number = state["round"]
        context.update(phase="round", round=number)
        rows = args["segment"].get("rounds")
        if rows and number > len(rows):
            return {"failed": True, "msg": f"pts_segment: round {number} is past the {len(rows)} rows of the sweep"}
        row = rows[number - 1] if rows else None
        try:
            row = self._row(args, row, number, state, context)
        except (PtsError, OSError) as exc:
            return self._fail(args, context, f"pts_segment: round {number} of {_progress.test_label(context)}: {exc}")
        context["row"] = _row_label(row)
        segment = args["segment"]
        stem = f"round-{number:02d}"
        job_file = os.path.join(args["job_dir"], stem + ".fio")
        pts_round = {"number": number, "row": row, "state": state}
        if segment.get("log_ms"):
            pts_round["log"] = {"prefix": stem, "avg_ms": int(segment["log_ms"])}
        try:
            job_text = round_text(args["test"], segment, pts_round, args["device"], args["settings"]["ioengine"],
                                  args["settings"].get("rate_iops") or 0, context["drive"])
        except JobTextError as exc:
            return self._fail(args, context, f"pts_segment: the job file of round {number} cannot be written: {exc}")
        # A continuous stimulus cut into samples at fio's status dumps: an XSR group (each sample filed as a round
        # the moment it ends) or a return to baseline (its samples in its one round).
        continuous = _stop_rules.of(segment.get("stop")).continuous
        sample_s = segment.get("sample_s") if continuous else ((row or {}).get("samples") or {}).get("sample_s")
        # The drive's health just before fio starts and just after it ends, outside fio's measuring time.
        try:
            health_before = self._health_before(args, context, task_vars, state)
        except AnsibleConnectionFailure as exc:
            return self._lost(args, context, exc)
        module_args = self._module_args(args, context, expected, {"job_file": job_file, "job_text": job_text},
                                        stem, sample_s)
        if continuous:
            return self._samples(args, task_vars, rule, state, context, module_args, health_before)
        fio = self._fio_round(task_vars, module_args)
        if fio.get("unreachable") or fio.get("pts_lost"):
            return self._lost(args, context, fio.get("msg") or "unreachable")
        if fio.get("failed") or "pts_fio" not in fio:
            fio.setdefault("msg", "fio_job returned no measurement")
            self._file(args, context, dict(fio, failed=True, pts_context=context))
            return {"failed": True, "msg": fio["msg"]}
        if sample_s:
            try:
                fio["pts_fio"]["samples"] = baseline_samples(fio.get("pts_fio_status") or [], fio["pts_fio_raw"])
            except PtsError as exc:
                return self._fail(args, context, f"pts_segment: round {number}: fio's status dumps cannot be cut "
                                                 f"into samples: {exc}")
        if segment.get("log_ms"):
            failed = self._keep_logs(args, context, stem)
            if failed:
                return failed
        after, health = self._health_after(health_before, f"the reading after round {number - 1}")
        try:
            nxt, key, verdict = _rounds.advance(state, rule, fio["pts_fio"]["jobs"], time.time(),
                                                fio["pts_fio"].get("elapsed_s"), row)
        except PtsError as exc:
            return self._fail(args, context, f"pts_segment: round {number}: {exc}")
        nxt["health_after"] = after
        if not self._wanted():
            return {"failed": True, "msg": "pts_segment: the controller (ansible-playbook) is gone; round "
                                           f"{number} is not recorded and no other round starts"}
        # The round on disk, with its verdict, before anything else happens: nothing lost, and the next round
        # starts only once this one is recorded.
        recorded = self._file(args, context, {"pts_fio": dict(fio["pts_fio"], health=health),
                                              "pts_fio_raw": fio.get("pts_fio_raw"), "pts_context": context,
                                              "pts_fio_status": fio.get("pts_fio_status"), key: verdict})
        if recorded is not None:
            return {"failed": True, "msg": recorded}
        display.display(_progress.plain(_progress.LINES[key](context["host"], context, verdict)))
        written = sum(int((job.get("write") or {}).get("io_bytes") or 0) for job in fio["pts_fio"]["jobs"])
        return {"state": nxt, "verdict": verdict, "written": written}

    def _samples(self, args: dict, task_vars: dict, rule: dict, state: dict, context: dict, module_args: dict,
                 health_before: dict) -> dict:
        """An XSR access group: one continuous fio run, read as it runs. Each status dump that ends a sample
        (_interval.Sampler) files that sample as a round - its verdict, its figures (the dump less the one before),
        the dump itself as fio's output - and prints its progress line, while fio goes on writing. When fio ends:
        its interval logs and the drive's health after it, then the last sample, which stops the loop. Whatever cannot
        be recorded stops fio: no sample is measured that is not on disk."""
        segment = args["segment"]
        sampler = _interval.Sampler()
        planned = int(segment["samples"])
        found = {"state": state, "verdict": None, "written": 0, "job_text": module_args["job_text"], "held": None}

        planned_ms = float(segment["combinations"][0]["seconds"]) * 1000
        near_end = planned_ms - float(segment["sample_s"]) * 500

        def record(text: str | None, final: bool) -> None:
            # A dump's sample is filed at once - unless it may be the last (within half a sample of the planned end):
            # fio's final report can come before its exit status does, so such a sample waits for the next read, to
            # be filed as the last when fio has ended (after its logs) or as an ordinary one when another dump follows.
            closed = []
            if text is not None:
                closed = [(c, text) for c in sampler.feed(_interval.counters(text))]
            if found["held"] is not None:
                closed.insert(0, found["held"])
                found["held"] = None
            # (a sample folded into the one before it keeps the later document, which may be fio's final report)
            folded = sampler.fold_idle([c for c, dummy in closed])
            raws = [raw for dummy, raw in closed]
            closed = list(zip(folded, raws[:len(folded) - 1] + raws[-1:]))
            if not final and closed and closed[-1][0][2]["runtime_ms"] >= near_end:
                found["held"] = closed.pop()
            health = None
            if final:
                failed = self._keep_logs(args, context, module_args["logs"])
                if failed:
                    raise _NotRecorded(failed["msg"])
                health = self._health_after(
                    health_before, f"the reading after the round before {context.get('segment') or 'this one'}")[1]
            for index, ((number, before, after), raw) in enumerate(closed):
                last = final and index == len(closed) - 1
                self._file_sample(args, context, rule, found, number, planned, _interval.window(before, after), raw,
                                  health if last else None, last)

        try:
            fio = self._fio_round(task_vars, module_args, on_document=record)
        except _NotRecorded as exc:
            return {"failed": True, "msg": str(exc)}
        except PtsError as exc:
            return self._fail(args, dict(context, round=sampler.number + 1),
                              f"pts_segment: {_progress.test_label(context)}: fio's status dumps cannot be cut into "
                              f"samples (fio was stopped): {exc}")
        if fio.get("unreachable") or fio.get("pts_lost"):
            return self._lost(args, context, fio.get("msg") or "unreachable")
        if fio.get("failed") or "pts_fio" not in fio:
            fio.setdefault("msg", "fio_job returned no measurement")
            self._file(args, dict(context, round=sampler.number + 1), dict(fio, failed=True, pts_context=context))
            return {"failed": True, "msg": fio["msg"]}
        if not found["state"]["stop"]:
            return self._fail(args, dict(context, round=sampler.number + 1),
                              f"pts_segment: {_progress.test_label(context)}: fio ended without its last sample")
        found["state"]["last_elapsed_s"] = fio["pts_fio"].get("elapsed_s")
        return {"state": found["state"], "verdict": found["verdict"], "written": found["written"]}

    def _file_sample(self, args: dict, context: dict, rule: dict, found: dict, number: int, planned: int, job: dict,
                     raw: str, health: dict | None, final: bool) -> None:
        """One sample of a continuous stimulus on disk, as a round with its verdict, and its progress line."""
        context = dict(context, round=number)
        label = f"{args['segment']['name']} ({args['segment'].get('access')}), sample {number} of about {planned}"
        context["row"] = {"label": label, "sample": number, "window": job["window"]}
        parsed = _fio.parse(raw)
        record = dict(parsed, jobs=[job], job_file=os.path.join(args["job_dir"], "round-01.fio"),
                      elapsed_s=round(job["runtime_ms"] / 1000.0, 3),
                      sample={"planned": planned, "sample_s": args["segment"]["sample_s"]})
        if number == 1:
            record["job_text"] = found["job_text"]
        if health is not None:
            record["health"] = health
        try:
            nxt, key, verdict = _rounds.advance(found["state"], rule, [job], time.time(), record["elapsed_s"],
                                                {"label": label, "final": final})
        except PtsError as exc:
            raise _NotRecorded(self._fail(args, context, f"pts_segment: sample {number}: {exc}")["msg"]) from exc
        if not self._wanted():
            raise _NotRecorded("pts_segment: the controller (ansible-playbook) is gone; sample "
                               f"{number} is not recorded and fio was stopped")
        recorded = self._file(args, context, {"pts_fio": record, "pts_fio_raw": raw,
                                              "pts_context": context, key: verdict})
        if recorded is not None:
            raise _NotRecorded(recorded)
        found.update(state=nxt, verdict=verdict, written=found["written"] + int(job["write"]["io_bytes"]))
        display.display(_progress.plain(_progress.sample_line(context["host"], context, verdict)))

    def _module_args(self, args: dict, context: dict, expected: float, job: dict, stem: str, sample_s) -> dict:
        """The fio_job module's arguments for one round's fio run (``job``: its job file and text)."""
        segment = args["segment"]
        return {
            **job, "device": args["device"], "expect": args["expect"],
            "expected_seconds": expected, "reconnect_timeout": args["reconnect_timeout"],
            "timeout": args["timeout"], "context": context, "max_write_bytes": self._left(),
            "output_format": segment.get("output_format") or "json",
            "status_interval_ms": int(round(float(sample_s) * 1000)) if sample_s else 0,
            "logs": stem if segment.get("log_ms") else "",
        }

    def _health_before(self, args: dict, context: dict, task_vars: dict, state: dict) -> dict:
        """The drive's health just before fio starts, outside fio's measuring time: one tool call a round. Nothing
        touches the drive between two rounds, so the reading after a round is the next round's before; the first
        round reads it with the probe."""
        clock = time.monotonic()
        probe, carried = state.get("health"), state.get("health_after")
        before = error = None
        if not isinstance(probe, dict):
            probe, before, error = self._health_probe(args, context, task_vars)
        elif isinstance(carried, dict):
            before = carried
        elif not probe.get("none"):
            before, error = self._health_read(probe)
        state.update(health=probe, health_after=None)
        return {"probe": probe, "before": before, "carried": carried, "cost": time.monotonic() - clock, "error": error}

    def _health_after(self, health_before: dict, before_from: str) -> tuple[dict | None, dict]:
        """The reading after a round (or a whole continuous run) and its health entry with the reading before it;
        ``before_from`` says where a reading carried from the round before came from."""
        probe, before = health_before["probe"], health_before["before"]
        clock = time.monotonic()
        try:
            after, late = self._health_read(probe)
        except AnsibleConnectionFailure as exc:
            after, late = None, f"{probe.get('tool')} could not be run: {exc}"
        health = _health.entry(probe, before, after, health_before["cost"] + time.monotonic() - clock,
                               health_before["error"] or late)
        if before is not None and before is health_before["carried"]:
            health["before_from"] = before_from
        return after, health

    def _keep_logs(self, args: dict, context: dict, prefix: str) -> dict | None:
        """fio's interval logs of the run just ended, from the host into the segment's results beside its round files
        (before the round file that says the run is complete). A failure when they cannot be kept."""
        directory = _results.segment_dir(args["run_dir"], context["host"], context["drive"], context["test"],
                                         context.get("segment") or "")
        try:
            logs = self._fio.fetch_logs(self._server, prefix)
            for name, text in sorted(logs.items()):
                _results.atomic_write_text(os.path.join(directory, _results.safe_name(name)), text)
        except (OSError, ValueError, AnsibleError) as exc:
            return self._fail(args, context, f"pts_segment: fio's interval logs of {prefix} could not be kept under "
                                             f"{directory}: {exc}")
        if not logs:
            return self._fail(args, context, f"pts_segment: fio wrote no interval logs for {prefix}")
        return None

    @staticmethod
    def _file(args: dict, context: dict, data: dict) -> str | None:
        """Write a round (or a round's failure) into the results tree; the reason the test stops when it cannot."""
        try:
            _results.file_payload(args["run_dir"], context["host"], data)
        except (OSError, PtsError) as exc:
            return (f"pts_segment: round {context.get('round')} of {_progress.test_label(context)} on "
                    f"{context['drive']} could not be recorded under {args['run_dir']}: {exc}; the test stops rather "
                    "than run a round that is not on disk. Free the space and resume with the same run id.")
        return None

    def _fail(self, args: dict, context: dict, msg: str) -> dict:
        self._file(args, context, {"failed": True, "msg": msg, "pts_context": context})
        return {"failed": True, "msg": msg}

    def _lost(self, args: dict, context: dict, exc: object) -> dict:
        """The drive's host went away: lost.json says so (its verdict is INCOMPLETE, host lost), the test stops."""
        msg = f"lost the connection to {context['host']} in round {context.get('round')}: {exc}"
        try:
            _results.atomic_write_json(
                os.path.join(_results.drive_dir(args["run_dir"], context["host"], context["drive"]), "lost.json"),
                {"msg": msg, "recorded_at": _results.now_iso()})
        except OSError as err:
            display.warning(f"pts_segment: could not record that {context['host']} was lost: {err}")
        return {"failed": True, "lost": True, "msg": msg}

    def _row(self, args: dict, row: dict | None, number: int, state: dict, context: dict) -> dict | None:
        """The round's row: the plan's, or an operating point chosen now from the TC x QD loop's measurement window on
        disk."""
        segment, test = args["segment"], args["test"]
        if not _stop_rules.of(segment.get("stop")).chooses_rows or row is None:
            return row
        params = dict(test.get("parameters") or {}, name=test["test"], block_sizes=test["block_sizes"])
        loop_dir = _results.segment_dir(args["run_dir"], context["host"], context["drive"], context["test"], "loop")
        window = int(args["limits"]["window"])
        rounds = [_results.read_json(path) for path in _results.round_files(loop_dir)[-window:]]
        if not rounds:
            raise ActionRefused(f"the TC x QD loop's rounds are not on disk in {loop_dir}: no operating point can be chosen")
        jobs = [(r.get("fio") if isinstance(r.get("fio"), dict) else {}).get("jobs") for r in rounds]
        if not all(isinstance(j, list) for j in jobs):
            raise ActionRefused(f"a round of the TC x QD loop in {loop_dir} holds no fio jobs: no operating point can be "
                                "chosen")
        points = _intensity.operating_points(_intensity.window_grid(jobs, params), params)
        points["window_rounds"] = [r.get("round") for r in rounds]
        return _intensity.point_row(params, row, points)

    def _health_probe(self, args: dict, context: dict, task_vars: dict) -> tuple[dict, dict | None, str | None]:
        """The segment's first health read: how to read the drive (kept in the state), and the reading.

        A drive whose identity record says it has no health (loop, zram, virtio...) is not probed at all: the run's
        first probe (identify) already said so. Anything else is probed once per segment by pts_drive_health.
        """
        recorded = self._drive_record(args["run_dir"], context)
        if recorded is not None and recorded.get("health") is None:
            return {"none": _health.none_reason(recorded.get("interface"))}, None, None
        try:
            probed = self._execute_module(module_name="fleetqual.pts.pts_drive_health",
                                          module_args={"path": args["device"], "mode": "round"}, task_vars=task_vars)
        except AnsibleConnectionFailure:
            raise
        except Exception as exc:  # pylint: disable=broad-exception-caught  # health is evidence beside the round, never a reason to lose it
            return {"none": f"the health probe failed: {type(exc).__name__}: {exc}"}, None, None
        found = probed.get("pts_health_probe") if isinstance(probed, dict) else None
        if probed.get("failed") or probed.get("unreachable") or not isinstance(found, dict):
            return {"none": f"the health probe failed: {probed.get('msg') or 'no answer'}"}, None, None
        if found.get("none"):
            return {"none": found["none"]}, None, None
        probe = {k: found.get(k) for k in ("tool", "format", "device", "argv", "thresholds")}
        return probe, found.get("reading"), found.get("error")

    @staticmethod
    def _drive_record(run_dir: str, context: dict) -> dict | None:
        """The drive's identity as the run filed it (drive.json), or None when it is not on disk."""
        try:
            record = _results.read_json(os.path.join(_results.drive_dir(run_dir, context["host"], context["drive"]),
                                                     "drive.json"))
        except (OSError, PtsError):
            return None
        drive = record.get("drive") if isinstance(record, dict) else None
        return drive if isinstance(drive, dict) else None

    def _health_read(self, probe: dict) -> tuple[dict | None, str | None]:
        """One reading with the probe's command: one shell command on the host, no module run; nothing for a
        drive without health. A lost connection is raised: the round cannot go on either."""
        if probe.get("none") or not probe.get("argv"):
            return None, None
        try:
            # A tool that hangs (a drive that stops answering) must not hold back the round fio has measured.
            res = self._low_level_execute_command(
                f"timeout -k 5 {_HEALTH_TIMEOUT_S} " + " ".join(shlex.quote(str(a)) for a in probe["argv"]))
        except AnsibleConnectionFailure:
            raise
        except AnsibleError as exc:
            return None, f"{probe.get('tool')} could not be run: {exc}"
        if res.get("rc") in (124, 137):  # timeout's own exit statuses: the tool was killed
            return None, f"{probe.get('tool')} did not answer within {_HEALTH_TIMEOUT_S} s and was killed"
        reading, dummy, error = _health.parse(probe.get("format"), int(res.get("rc") or 0),
                                              res.get("stdout") or res.get("stderr") or "")
        return reading, error

    _server: dict | None = None
    _fio = None
    _controller: int | None = None

    def _wanted(self) -> bool:
        """Does the ansible-playbook process that started this worker still run?"""
        return self._controller is None or os.getppid() == self._controller

    def _fio_round(self, task_vars: dict, module_args: dict, on_document=None) -> dict:
        """One round's fio through the segment's fio server on the host, started with round 1 (one module run for the
        whole segment); fio's output is parsed here."""
        if not self._wanted():
            return {"failed": True, "msg": "pts_segment: the controller (ansible-playbook) is gone; no round starts"}
        try:
            if self._server is None:
                # It waits for the next round at least as long as the host may stay away while a round runs.
                idle = max(600.0, 2 * float(module_args["reconnect_timeout"]))
                started = self._fio.start_server(task_vars, module_args, idle)
                if started.get("failed") or "pts_fio_server" not in started:
                    return dict(started, failed=True, msg=started.get("msg") or "the fio server did not start")
                self._server = started["pts_fio_server"]
            return self._fio.run_round(self._server, module_args, on_document=on_document)
        except AnsibleConnectionFailure as exc:
            return {"unreachable": True, "msg": str(exc)}
