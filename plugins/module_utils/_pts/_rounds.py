# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The round loop's state, one shape for every stop rule, and the rule that advances it.

A test runs rounds until its stop rule (_stop_rules.py) holds. The state says which round runs next and keeps only
what the rule needs to judge it - the DVs' last ``window`` values, the bytes written, the undelivered steps in a row -
so it stays the same size at round 1,500 as at round 1. The rounds themselves live on disk (the round files the segment
writes as each round ends); the state never holds them. A rule's parameters are a dict whose ``kind`` names the rule.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _stop_rules
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._stop_rules import RULES, RoundError

STATE_KEYS = ("id", "rule", "round", "stop", "reason", "started", "last_elapsed_s", "window", "written", "misses")


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
    return _stop_rules.BY_KIND[rule["kind"]].check(rule)


def rule_for(test: dict, segment: dict, limits: dict) -> dict:
    """The stop rule of one segment of a planned test (a plan entry of pts_plan), with the plan's limits, as given:
    RoundError when the entry lacks what its rule needs; check_rule then says which value is not one."""
    try:
        return _stop_rules.of(segment.get("stop") or test["stop"]).parameters(test, segment, limits)
    except KeyError as exc:
        raise RoundError(f"the plan's test, segment or limits lack {exc}") from None


def advance(state: dict, rule: dict, jobs: list[dict], now: float, fio_elapsed_s: float | None = None,
            row: dict | None = None) -> tuple[dict, str, dict]:
    """Judge the round ``state["round"]`` whose fio jobs are ``jobs``.

    Returns the next state and the round's verdict as ``(state, payload key, payload)``: the payload key is the rule's
    (``pts_steady_state``, ``pts_wsat``, ``pts_sweep`` or ``pts_sample``; each with this round's number, ``stop`` and
    why).
    """
    check_state(state)
    if rule["kind"] != state["rule"]:
        raise RoundError(f"the round state is for a {state['rule']} loop, the rule is {rule['kind']}")
    number = state["round"]
    nxt = dict(state, round=number + 1, last_elapsed_s=fio_elapsed_s)
    judge = _stop_rules.BY_KIND[rule["kind"]]
    payload = judge.judge(nxt, rule, jobs, number, row or {}, now)
    nxt.update(stop=bool(payload["stop"]), reason=str(payload.get("reason") or ""))
    return nxt, judge.payload_key, payload
