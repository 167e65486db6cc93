# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The round loop's state, one shape for every stop rule, and the rules that advance it.

A test runs rounds until its stop rule holds. The state says which round runs next and keeps only what the
rule needs to judge it - the DVs' last ``window`` values, the bytes written, the undelivered steps in a row -
so it stays the same size at round 1,500 as at round 1. The rounds themselves live on disk (the round files
the segment writes as each round ends); the state never holds them.

Rules (``rule["kind"]``):

* ``steady`` - the SNIA steady-state window over every DV, or the round limit;
* ``written`` - write saturation: ``target_bytes`` written, or ``max_seconds`` since the loop started;
* ``sweep`` - one round per row of a sweep, until its last row (also a test's operating points, ``points``);
* ``demand`` - an offered-IOPS ramp: until ``misses`` undelivered steps in a row, or its last step;
* ``samples`` - the samples of one continuous stimulus (an XSR group: one fio run cut into samples at its status
  dumps), each filed as a round; the last sample (fio's end) stops it.
"""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _dv, _steady_state, _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import wsat
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import find_job

RULES = ("steady", "written", "sweep", "demand", "samples")
STATE_KEYS = ("id", "rule", "round", "stop", "reason", "started", "last_elapsed_s", "window", "written", "misses")
# Segment stop kinds and the rule each is judged by.
KIND_RULES = {"points": "sweep"}


class RoundError(PtsError, ValueError):
    """A stop rule, a round state or a round's measurement the round loop cannot judge."""


def start(loop_id: str, rule: str, started: float) -> dict:
    """The state before round 1 of a loop; ``started`` is the loop's start (seconds since the epoch)."""
    if rule not in RULES:
        raise RoundError(f"unknown stop rule {rule!r}; known: {', '.join(RULES)}")
    return {"id": str(loop_id), "rule": rule, "round": 1, "stop": False, "reason": "not started",
            "started": float(started), "last_elapsed_s": None, "window": {}, "written": 0, "misses": 0}


def check_state(state: object) -> dict:
    """The state as given, or ValueError naming what is wrong with it."""
    if not isinstance(state, dict):
        raise RoundError(f"the round state must be a dict, not {type(state).__name__}")
    missing = [key for key in STATE_KEYS if key not in state]
    if missing:
        raise RoundError(f"the round state lacks {', '.join(missing)}")
    if state["rule"] not in RULES:
        raise RoundError(f"the round state's rule {state['rule']!r} is not one of {', '.join(RULES)}")
    if not isinstance(state["round"], int) or state["round"] < 1:
        raise RoundError(f"the round state's round {state['round']!r} is not a round number")
    if state["stop"]:
        raise RoundError(f"the loop {state['id']} already stopped after round {state['round'] - 1}: {state['reason']}")
    return state


def check_rule(rule: object) -> dict:
    """The rule's parameters, validated once per loop: ValueError names the one that is wrong."""
    if not isinstance(rule, dict) or rule.get("kind") not in RULES:
        raise RoundError(f"rule must be a dict whose kind is one of {', '.join(RULES)}")
    kind = rule["kind"]
    if kind == "steady":
        _steady_state.check_limits(int(rule.get("window", 0)), int(rule.get("max_rounds", 0)),
                                   float(rule.get("max_data_excursion_pct", _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT)),
                                   float(rule.get("max_slope_excursion_pct", _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT)))
        if not rule.get("dvs"):
            raise RoundError("dvs must name at least one dependent variable")
    elif kind == "written":
        for key in ("target_bytes", "max_seconds"):
            value = rule.get(key)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
                raise RoundError(f"{key} {value!r} must be a positive number")
    elif kind == "samples":
        rounds = rule.get("rounds")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise RoundError(f"rounds {rounds!r} must be the group's number of samples (at least 1)")
        sample_s = rule.get("sample_s")
        if isinstance(sample_s, bool) or not isinstance(sample_s, (int, float)) or not math.isfinite(sample_s) \
                or sample_s <= 0:
            raise RoundError(f"sample_s {sample_s!r} must be a sample's length in seconds")
    else:
        rounds = rule.get("rounds")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
            raise RoundError(f"rounds {rounds!r} must be the sweep's number of rows (at least 1)")
        if kind == "demand" and (not isinstance(rule.get("misses"), int) or rule["misses"] < 1):
            raise RoundError(f"misses {rule.get('misses')!r} must be a positive number of steps")
    return rule


def rule_for(test: dict, segment: dict, limits: dict) -> dict:
    """The stop rule of one segment of a planned test (a plan entry of pts_plan), with the plan's limits. RoundError
    when the entry lacks what its rule needs."""
    try:
        return _rule_for(test, segment, limits)
    except KeyError as exc:
        raise RoundError(f"the plan's test, segment or limits lack {exc}") from None
    except (TypeError, ValueError) as exc:
        raise RoundError(f"the plan's test, segment or limits are malformed: {exc}") from None


def _rule_for(test: dict, segment: dict, limits: dict) -> dict:
    kind = segment.get("stop") or test["stop"]
    kind = KIND_RULES.get(kind, kind)
    if kind == "steady":
        return {"kind": kind, "dvs": segment["dvs"], "window": int(limits["window"]),
                "max_rounds": int(limits["max_rounds"]),
                "max_data_excursion_pct": float(limits.get("max_data_excursion_pct",
                                                           _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT)),
                "max_slope_excursion_pct": float(limits.get("max_slope_excursion_pct",
                                                            _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT))}
    if kind == "written":
        return {"kind": kind, "target_bytes": test["target_bytes"], "max_seconds": test["max_seconds"]}
    if kind == "samples":
        return {"kind": kind, "rounds": int(segment["samples"]), "sample_s": float(segment["sample_s"])}
    sweep = test.get("sweep") or {}
    return {"kind": kind, "rounds": len(segment.get("rounds") or []), "tolerance_pct": sweep.get("tolerance_pct", 5),
            "misses": sweep.get("misses", 2)}


def advance(state: dict, rule: dict, jobs: list[dict], now: float, fio_elapsed_s: float | None = None,
            row: dict | None = None) -> tuple[dict, str, dict]:
    """Judge the round ``state["round"]`` whose fio jobs are ``jobs``.

    Returns the next state and the round's verdict as ``(state, payload key, payload)``: the payload
    key is ``pts_steady_state``, ``pts_wsat`` or ``pts_sweep`` (each with this round's number, ``stop`` and why).
    """
    check_state(state)
    if rule["kind"] != state["rule"]:
        raise RoundError(f"the round state is for a {state['rule']} loop, the rule is {rule['kind']}")
    number = state["round"]
    nxt = dict(state, round=number + 1, last_elapsed_s=fio_elapsed_s)
    if rule["kind"] == "steady":
        key, payload = "pts_steady_state", _judge_steady(nxt, rule, jobs, number)
    elif rule["kind"] == "written":
        key, payload = "pts_wsat", _judge_written(nxt, rule, jobs, number, now - float(state["started"]))
    elif rule["kind"] == "samples":
        key, payload = "pts_sample", _judge_samples(nxt, rule, jobs, number, row or {})
    else:
        key, payload = "pts_sweep", _judge_sweep(nxt, rule, jobs, number, row or {})
    nxt.update(stop=bool(payload["stop"]), reason=str(payload.get("reason") or ""))
    return nxt, key, payload


def _judge_steady(state: dict, rule: dict, jobs: list[dict], number: int) -> dict:
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
    return {"round": number, "steady": steady, "stop": stop, "reason": reason, "max_rounds": int(rule["max_rounds"]),
            "dvs": judged}


def _judge_written(state: dict, rule: dict, jobs: list[dict], number: int, elapsed_s: float) -> dict:
    this_round = wsat.written_bytes(jobs)
    job = find_job(jobs, 0, wsat.BLOCK_SIZE)
    state["written"] = int(state["written"]) + this_round
    stop, reason = wsat.stop(state["written"], int(rule["target_bytes"]), elapsed_s, float(rule["max_seconds"]))
    return {"round": number, "stop": stop, "reason": reason, "written": state["written"], "round_written": this_round,
            "target_bytes": int(rule["target_bytes"]), "elapsed_s": round(elapsed_s, 3),
            "iops": job["total"]["iops"], "lat_mean_ns": job["total"]["lat_ns"]["mean"],
            "lat_max_ns": job["total"]["lat_ns"]["max"]}


def sweep_cells(jobs: list[dict]) -> list[dict]:
    """One sweep row's cells: per fio job its IOPS, MB/s and mean latency."""
    return [{"name": job["name"], "iops": job["total"]["iops"], "mb_s": job["total"]["bw_bytes"] / 1e6,
             "lat_mean_ns": job["total"]["lat_ns"]["mean"]} for job in jobs]


def _judge_sweep(state: dict, rule: dict, jobs: list[dict], number: int, row: dict) -> dict:
    rounds = int(rule["rounds"])
    if number > rounds:
        raise RoundError(f"row {number} is past the sweep's {rounds} rows")
    cells = sweep_cells(jobs)
    payload = {"round": number, "rounds": rounds, "label": str(row.get("label") or ""), "cells": cells}
    if rule["kind"] == "demand":
        offered = int(row.get("offered_iops") or 0)
        if offered < 1:
            raise RoundError(f"row {number} of the demand ramp offers no IOPS")
        tolerance = float(rule.get("tolerance_pct", 5))
        achieved = sum(cell["iops"] for cell in cells)
        delivered = _sweeps.demand_step(offered, achieved, tolerance)
        state["misses"] = 0 if delivered else int(state["misses"]) + 1
        stop, reason = _sweeps.demand_stop(state["misses"], int(rule["misses"]), number, rounds)
        payload.update(offered_iops=offered, achieved_iops=achieved, delivered=delivered, tolerance_pct=tolerance)
    else:
        stop = number >= rounds
        reason = "sweep complete" if stop else f"row {number} of {rounds}"
    payload.update(stop=stop, reason=reason)
    return payload


def _judge_samples(state: dict, rule: dict, jobs: list[dict], number: int, row: dict) -> dict:
    """One sample of a continuous stimulus (its window of fio's run, as one job); the sample fio's run ended in (the
    row's ``final``) stops the loop. The group plans ``rounds`` samples; where fio's start-up and end fall can make it
    one more or one fewer (module_utils/_pts/_interval.py Sampler)."""
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
            "seconds": jobs[0]["runtime_ms"] / 1000.0, "from_ms": window.get("from_ms"), "to_ms": window.get("to_ms")}
