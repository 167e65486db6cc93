# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The stop rules: how a segment of a test knows it has run enough rounds. One class per rule holds all the rule
is - its parameters from a plan entry and their check, the judging of a round (and the round file's key its verdict
goes under), the plan's round limit and time bounds, the wear estimate of its rounds and how a finished segment ended -
so the round loop (_rounds.py), the plan, the wear estimate and the round action ask the rule, not its name.

* ``steady`` - the SNIA steady-state window over every DV, or the round limit;
* ``written`` - write saturation: ``target_bytes`` written, or ``max_seconds`` since the loop started;
* ``sweep`` - one round per row of a sweep, until its last row (also a test's operating points, ``points``, whose rows
  are chosen while the test runs);
* ``demand`` - an offered-IOPS ramp: until ``misses`` undelivered steps in a row, or its last step;
* ``samples`` - the samples of one continuous stimulus (an XSR group: one fio run cut into samples at its status
  dumps), each filed as a round; the last sample (fio's end) stops it.

A test's own stop is one of these or ``phases``: each of its segments by the segment's own rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _dv, _steady_state, _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import find_job
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import wsat

# The plan's time estimate of write saturation (not the wear bound: _wear.py takes the interface's rate).
ASSUMED_WSAT_BYTES_PER_S = 200e6

# A round's bytes at most, from its fio sections (the wear estimate's rate bound).
BytesOf = Callable[[list], float]


class RoundError(PtsError, ValueError):
    """A stop rule, a round state or a round's measurement the round loop cannot judge."""


def _rows(segment: dict) -> list[dict]:
    """A segment's rounds as planned: its rows, or the segment itself as its one round."""
    return segment.get("rounds") or [segment]


def _count(rule: dict, key: str, what: str) -> int:
    value = rule.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RoundError(f"{key} {value!r} must be {what}")
    return value


def _positive(rule: dict, key: str, what: str) -> float:
    value = rule.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise RoundError(f"{key} {value!r} must be {what}")
    return value


class StopRule:
    """What every stop rule answers; the base answers as a rule whose rounds are the segment's planned rows."""

    kind = ""
    # The round file's key of the rule's verdict (the reports and the progress lines read it).
    payload_key = ""
    # One fio run cut into samples at its status dumps, each filed as a round as it ends.
    continuous = False
    # Rows chosen while the test runs, from what its earlier segment measured.
    chooses_rows = False

    def parameters(self, test: dict, segment: dict, limits: dict) -> dict:
        """The rule's parameters for one segment of a plan entry, with the plan's ``limits``."""
        raise RoundError(f"rule must be a dict whose kind is one of {', '.join(RULES)}")

    def check(self, rule: dict) -> dict:
        """The parameters as given, or RoundError naming the one that is wrong."""
        return rule

    def judge(self, state: dict, rule: dict, jobs: list[dict], number: int, row: dict, now: float) -> dict:
        """Round ``number``'s verdict (with ``stop`` and ``reason``); updates what ``state`` keeps for the next."""
        raise RoundError(f"no round is judged by {self.kind or 'an unknown'} stop rule")

    def round_limit(self, segment: dict, test: dict, max_rounds: int) -> int:
        """The most rounds the rule can let run in a segment: the round loop's bound."""
        return len(segment.get("rounds") or [])

    def plan_entry(self, entry: dict, test: dict, segments: list[dict], wipc_s: float, capacity: float, window: int,
                   max_rounds: int) -> None:
        """Adds to a drive plan's entry what the rule needs of the test, and its least and most seconds."""
        entry["min_s"], entry["max_s"] = wipc_s, wipc_s
        for segment in segments:
            least, most = self.segment_seconds(segment, window, max_rounds)
            entry["min_s"] += least
            entry["max_s"] += most

    def segment_seconds(self, segment: dict, window: int, max_rounds: int) -> tuple[float, float]:
        """A segment's least and most seconds of rounds."""
        return segment["sweep_s"], segment["sweep_s"]

    def round_settings(self, test: dict) -> dict | None:
        """What each round file of the test records of the rule, beside the plan's settings (``wsat``)."""
        return None

    def rounds_bytes(self, test: dict, segments: list[dict], bytes_of: BytesOf, max_rounds: int) -> float:
        """The upper bound of the bytes a test's rounds write."""
        return sum(part for segment in segments for part in self._bytes(segment, bytes_of, max_rounds))

    def segment_bytes(self, segment: dict, bytes_of: BytesOf, max_rounds: int) -> float:
        """The upper bound of the bytes one segment's rounds write."""
        return sum(self._bytes(segment, bytes_of, max_rounds))

    def _bytes(self, segment: dict, bytes_of: BytesOf, max_rounds: int) -> list[float]:
        return [bytes_of(row["combinations"]) for row in _rows(segment)]

    def ended(self, verdict: dict) -> str:
        """How a segment that ran to its stop ended, by its last verdict (the resume's test status)."""
        return "complete"


class Steady(StopRule):
    kind = "steady"
    payload_key = "pts_steady_state"

    def parameters(self, test: dict, segment: dict, limits: dict) -> dict:
        rule = {"kind": self.kind, "dvs": segment["dvs"], "window": limits["window"], "max_rounds": limits["max_rounds"]}
        for key, default in (("max_data_excursion_pct", _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT),
                             ("max_slope_excursion_pct", _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT)):
            rule[key] = default if limits.get(key) is None else limits[key]
        return rule

    def check(self, rule: dict) -> dict:
        _steady_state.check_limits(_count(rule, "window", "a number of rounds"),
                                   _count(rule, "max_rounds", "a number of rounds"),
                                   _positive(rule, "max_data_excursion_pct", "a percentage"),
                                   _positive(rule, "max_slope_excursion_pct", "a percentage"))
        if not rule.get("dvs"):
            raise RoundError("dvs must name at least one dependent variable")
        return rule

    def judge(self, state: dict, rule: dict, jobs: list[dict], number: int, row: dict, now: float) -> dict:
        window = int(rule["window"])
        data_pct = float(rule.get("max_data_excursion_pct", _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT))
        slope_pct = float(rule.get("max_slope_excursion_pct", _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT))
        if number > int(rule["max_rounds"]):
            raise RoundError(f"round {number} exceeds max_rounds {rule['max_rounds']}")
        kept, judged = {}, []
        for dv in rule["dvs"]:
            dv = dict(dv, metric=dv.get("metric") or "iops")
            dv["name"] = dv.get("name") or _dv.dv_name(dict(dv, bs=parse_block_size(dv["bs"])))
            previous = [float(v) for v in (state["window"].get(dv["name"]) or [])]
            if len(previous) != min(number - 1, window - 1):
                raise RoundError(f"the round state holds {len(previous)} earlier values of {dv['name']} before round "
                                 f"{number}; the window needs {min(number - 1, window - 1)}")
            values = previous + [_dv.dv_value(jobs, dv["mix"], dv["bs"], dv["metric"], dv.get("job"))]
            verdict = _steady_state.evaluate(values, window, data_pct, slope_pct, first_round=number - len(values) + 1)
            judged.append(dict(verdict.as_dict(), **dv, dv_value=values[-1]))
            # Only the window's worth: the next round's verdict needs no more.
            kept[dv["name"]] = values[-(window - 1):]
        state["window"] = kept
        steady = all(j["steady"] for j in judged)
        stop = steady or number >= int(rule["max_rounds"])
        if steady:
            reason = f"steady after round {number}"
        elif stop:
            reason = f"round limit {rule['max_rounds']} reached without steady state"
        else:
            reason = f"not steady after round {number}"
        return {"round": number, "steady": steady, "stop": stop, "reason": reason,
                "max_rounds": int(rule["max_rounds"]), "dvs": judged}

    def round_limit(self, segment: dict, test: dict, max_rounds: int) -> int:
        return max_rounds

    def plan_entry(self, entry: dict, test: dict, segments: list[dict], wipc_s: float, capacity: float, window: int,
                   max_rounds: int) -> None:
        entry["dv"] = test.get("dv")
        entry["dvs"] = segments[0]["dvs"] if segments and test.get("dvs") else None
        rounds_s = sum(s["round_s"] for s in segments)
        entry["min_s"] = wipc_s + window * rounds_s
        entry["max_s"] = wipc_s + max_rounds * rounds_s

    def segment_seconds(self, segment: dict, window: int, max_rounds: int) -> tuple[float, float]:
        return window * segment["round_s"], max_rounds * segment["round_s"]

    def _bytes(self, segment: dict, bytes_of: BytesOf, max_rounds: int) -> list[float]:
        # Steady state is not assumed to come early: the round limit, every round.
        return [max_rounds * bytes_of(segment["combinations"])]

    def ended(self, verdict: dict) -> str:
        return "steady" if verdict.get("steady") else "not steady"


class Written(StopRule):
    kind = "written"
    payload_key = "pts_wsat"

    def parameters(self, test: dict, segment: dict, limits: dict) -> dict:
        return {"kind": self.kind, "target_bytes": test["target_bytes"], "max_seconds": test["max_seconds"]}

    def check(self, rule: dict) -> dict:
        for key in ("target_bytes", "max_seconds"):
            _positive(rule, key, "a positive number")
        return rule

    def judge(self, state: dict, rule: dict, jobs: list[dict], number: int, row: dict, now: float) -> dict:
        elapsed_s = now - float(state["started"])
        this_round = wsat.written_bytes(jobs)
        job = find_job(jobs, 0, wsat.BLOCK_SIZE)
        state["written"] = int(state["written"]) + this_round
        stop, reason = wsat.stop(state["written"], int(rule["target_bytes"]), elapsed_s, float(rule["max_seconds"]))
        return {"round": number, "stop": stop, "reason": reason, "written": state["written"],
                "round_written": this_round, "target_bytes": int(rule["target_bytes"]),
                "elapsed_s": round(elapsed_s, 3), "iops": job["total"]["iops"],
                "lat_mean_ns": job["total"]["lat_ns"]["mean"], "lat_max_ns": job["total"]["lat_ns"]["max"]}

    def round_limit(self, segment: dict, test: dict, max_rounds: int) -> int:
        return int(math.ceil(float(test["max_hours"]) * 3600 / max(float(test["round_seconds"]), 0.01))) + 1

    def plan_entry(self, entry: dict, test: dict, segments: list[dict], wipc_s: float, capacity: float, window: int,
                   max_rounds: int) -> None:
        target = test["capacity_multiple"] * capacity
        max_seconds = test["max_hours"] * 3600
        entry.update(target_bytes=int(target), max_seconds=max_seconds, latency_plots=test["latency_plots"],
                     capacity_multiple=test["capacity_multiple"], max_hours=test["max_hours"])
        entry["min_s"] = min(target / ASSUMED_WSAT_BYTES_PER_S, max_seconds)
        entry["max_s"] = max_seconds

    def round_settings(self, test: dict) -> dict | None:
        return {"target_bytes": test["target_bytes"], "capacity_multiple": test["capacity_multiple"],
                "max_hours": test["max_hours"], "latency_plots": test["latency_plots"]}

    def rounds_bytes(self, test: dict, segments: list[dict], bytes_of: BytesOf, max_rounds: int) -> float:
        # It stops after the round that reaches the target or passes the time limit: one round more than either.
        seconds = float(test["round_seconds"])
        per_round = bytes_of(segments[0]["combinations"])
        by_target = float(test["target_bytes"]) + per_round
        by_time = (float(test["max_seconds"]) + seconds) / seconds * per_round
        return min(by_target, by_time)

    def ended(self, verdict: dict) -> str:
        return "time limit" if "time limit" in str(verdict.get("reason") or "") else "complete"


def sweep_cells(jobs: list[dict]) -> list[dict]:
    """One sweep row's cells: per fio job its IOPS, MB/s and mean latency."""
    return [{"name": job["name"], "iops": job["total"]["iops"], "mb_s": job["total"]["bw_bytes"] / 1e6,
             "lat_mean_ns": job["total"]["lat_ns"]["mean"]} for job in jobs]


class Sweep(StopRule):
    kind = "sweep"
    payload_key = "pts_sweep"
    # The plan entry's fields the rows were built from (the report's axes).
    _FIELDS = ("workloads", "queue_depths", "percents", "zones", "steps", "tolerance_pct", "misses")

    def parameters(self, test: dict, segment: dict, limits: dict) -> dict:
        sweep = test.get("sweep") or {}
        return {"kind": self.kind, "rounds": len(segment.get("rounds") or []),
                "tolerance_pct": sweep.get("tolerance_pct", 5), "misses": sweep.get("misses", 2)}

    def check(self, rule: dict) -> dict:
        _count(rule, "rounds", "the sweep's number of rows (at least 1)")
        return rule

    def judge(self, state: dict, rule: dict, jobs: list[dict], number: int, row: dict, now: float) -> dict:
        rounds = int(rule["rounds"])
        if number > rounds:
            raise RoundError(f"row {number} is past the sweep's {rounds} rows")
        payload = {"round": number, "rounds": rounds, "label": str(row.get("label") or ""),
                   "cells": sweep_cells(jobs)}
        stop, reason = self._stop(state, rule, payload, row, number)
        payload.update(stop=stop, reason=reason)
        return payload

    def _stop(self, state: dict, rule: dict, payload: dict, row: dict, number: int) -> tuple[bool, str]:
        stop = number >= payload["rounds"]
        return stop, "sweep complete" if stop else f"row {number} of {payload['rounds']}"

    def plan_entry(self, entry: dict, test: dict, segments: list[dict], wipc_s: float, capacity: float, window: int,
                   max_rounds: int) -> None:
        entry["sweep"] = {k: test[k] for k in self._FIELDS if k in test}
        full = sum(s["sweep_s"] for s in segments)
        entry["max_s"] = wipc_s + full
        entry["min_s"] = wipc_s + self._least_s(test, segments, full)

    def _least_s(self, test: dict, segments: list[dict], full: float) -> float:
        return full


class Points(Sweep):
    """A test's operating points: a sweep whose rows are chosen from the measurement window of its loop."""

    chooses_rows = True


class Demand(Sweep):
    kind = "demand"

    def check(self, rule: dict) -> dict:
        super().check(rule)
        _count(rule, "misses", "a positive number of steps")
        if rule.get("tolerance_pct") is not None:
            _positive(rule, "tolerance_pct", "a percentage")
        return rule

    def _stop(self, state: dict, rule: dict, payload: dict, row: dict, number: int) -> tuple[bool, str]:
        offered = int(row.get("offered_iops") or 0)
        if offered < 1:
            raise RoundError(f"row {number} of the demand ramp offers no IOPS")
        tolerance = float(rule.get("tolerance_pct") or 5)
        achieved = sum(cell["iops"] for cell in payload["cells"])
        delivered = _sweeps.demand_step(offered, achieved, tolerance)
        state["misses"] = 0 if delivered else int(state["misses"]) + 1
        payload.update(offered_iops=offered, achieved_iops=achieved, delivered=delivered, tolerance_pct=tolerance)
        return _sweeps.demand_stop(state["misses"], int(rule["misses"]), number, payload["rounds"])

    def _least_s(self, test: dict, segments: list[dict], full: float) -> float:
        # A demand ramp may end at the drive's limit, after ``misses`` undelivered steps.
        return sum(s["round_s"] * min(test["misses"], len(s["rounds"])) for s in segments)


class Samples(StopRule):
    kind = "samples"
    payload_key = "pts_sample"
    continuous = True

    def parameters(self, test: dict, segment: dict, limits: dict) -> dict:
        return {"kind": self.kind, "rounds": segment["samples"], "sample_s": segment["sample_s"]}

    def check(self, rule: dict) -> dict:
        _count(rule, "rounds", "the group's number of samples (at least 1)")
        _positive(rule, "sample_s", "a sample's length in seconds")
        return rule

    def judge(self, state: dict, rule: dict, jobs: list[dict], number: int, row: dict, now: float) -> dict:
        """One sample of a continuous stimulus (its window of fio's run, as one job); the sample fio's run ended in
        (the row's ``final``) stops the loop. The group plans ``rounds`` samples; where fio's start-up and end fall can
        make it one more or one fewer (module_utils/_pts/_interval.py Sampler)."""
        rounds = int(rule["rounds"])
        if len(jobs) != 1:
            raise RoundError(f"a sample is one fio section; sample {number} has {len(jobs)}")
        total = jobs[0]["total"]
        written = int(jobs[0]["write"]["io_bytes"])
        state["written"] = int(state["written"]) + written
        stop = bool(row.get("final"))
        window = jobs[0].get("window") or {}
        return {"round": number, "rounds": rounds, "label": str(row.get("label") or ""), "stop": stop,
                "reason": "last sample: fio's run of the group ended" if stop else "fio's run goes on",
                "mb_s": total["bw_bytes"] / 1e6, "iops": total["iops"], "lat_mean_ns": total["lat_ns"]["mean"],
                "lat_max_ns": total["lat_ns"]["max"], "written": state["written"],
                "seconds": jobs[0]["runtime_ms"] / 1000.0, "from_ms": window.get("from_ms"),
                "to_ms": window.get("to_ms")}

    def round_limit(self, segment: dict, test: dict, max_rounds: int) -> int:
        # One fio run whose status dumps cut it into its samples: about ``samples``, one more at most.
        return int(segment["samples"]) + 1


class Phases(StopRule):
    """A test's stop when each of its segments has its own rule (PTS 2.0's tests: a steady-state preconditioning,
    then sweeps, operating points or XSR's groups)."""

    kind = "phases"

    def plan_entry(self, entry: dict, test: dict, segments: list[dict], wipc_s: float, capacity: float, window: int,
                   max_rounds: int) -> None:
        # The test's own parameters, for what is worked out while it runs (XSR's stream, the operating points).
        entry["parameters"] = {k: v for k, v in test.items() if k not in entry and k != "name"}
        entry["min_s"], entry["max_s"] = wipc_s, wipc_s
        for segment in segments:
            least, most = of(segment["stop"]).segment_seconds(segment, window, max_rounds)
            entry["min_s"] += least
            entry["max_s"] += most

    def rounds_bytes(self, test: dict, segments: list[dict], bytes_of: BytesOf, max_rounds: int) -> float:
        return sum(of(segment.get("stop")).segment_bytes(segment, bytes_of, max_rounds) for segment in segments)


# The rules a round loop judges by, by the name its state and parameters carry.
RULES = ("steady", "written", "sweep", "demand", "samples")
# Every stop a plan names - a test's, a segment's - and its rule: "points" is judged as a sweep.
BY_KIND = {rule.kind: rule for rule in (Steady(), Written(), Sweep(), Demand(), Samples(), Phases())}
BY_KIND["points"] = Points()
# The round files' verdict keys, each once.
PAYLOAD_KEYS = tuple(dict.fromkeys(BY_KIND[kind].payload_key for kind in RULES))
_ANY = StopRule()


def of(kind: object) -> StopRule:
    """The stop rule a plan's test or segment names; an unknown one answers as the base (its planned rows)."""
    return BY_KIND.get(kind, _ANY) if isinstance(kind, str) else _ANY
