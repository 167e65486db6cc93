# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import copy
import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _rounds

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def jobs(name: str, factor: float = 1.0) -> list[dict]:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        parsed = _fio.parse(handle.read())["jobs"]
    for job in parsed:
        for part in ("read", "write", "total"):
            job[part]["iops"] *= factor
            job[part]["bw_bytes"] *= factor
    return parsed


IOPS = jobs("fio-3.33-iops-round.json")
WSAT = jobs("fio-3.33-wsat-round.json")
STEADY = {"kind": "steady", "dvs": [{"name": "w", "mix": 0, "bs": 4096, "metric": "iops"}], "window": 5,
          "max_rounds": 2000, "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0}


def test_the_state_is_as_large_at_round_1500_as_at_round_10():
    state = _rounds.start("loop", "steady", 0.0)
    sizes = {}
    for number in range(1, 1501):
        # A DV that keeps swinging, so the loop never stops early.
        factor = 1.0 if number % 2 else 2.0
        state, key, verdict = _rounds.advance(state, STEADY, jobs("fio-3.33-iops-round.json", factor), 0.0)
        assert key == "pts_steady_state" and verdict["round"] == number and not verdict["stop"]
        if number in (10, 1500):
            sizes[number] = len(json.dumps(state))
    assert state["round"] == 1501 and len(state["window"]["w"]) == 4
    assert abs(sizes[1500] - sizes[10]) <= 8  # only the digits of the round number grow


def test_steady_verdicts_number_the_window_by_round():
    state = _rounds.start("loop", "steady", 0.0)
    for factor in (3.0, 1.0, 1.0, 1.0, 1.0, 1.0):
        state, dummy, verdict = _rounds.advance(state, STEADY, jobs("fio-3.33-iops-round.json", factor), 0.0)
    (judged,) = verdict["dvs"]
    assert judged["rounds"] == [2, 3, 4, 5, 6] and verdict["steady"] and verdict["stop"]
    assert state["stop"] and state["reason"] == "steady after round 6"


def test_the_round_limit_stops_a_loop_that_never_settles():
    rule = dict(STEADY, max_rounds=6)
    state = _rounds.start("loop", "steady", 0.0)
    for number in range(1, 7):
        state, dummy, verdict = _rounds.advance(state, rule, jobs("fio-3.33-iops-round.json", 1.0 + number % 2), 0.0)
    assert verdict["stop"] and not verdict["steady"] and "round limit 6" in verdict["reason"]
    with pytest.raises(ValueError, match="already stopped after round 6"):
        _rounds.advance(state, rule, IOPS, 0.0)


@pytest.mark.parametrize("multiple, max_seconds, now, rounds, reason", [
    (3, 3600.0, 10.0, 3, "reached"),
    (1000, 50.0, 60.0, 1, "time limit of 0.0138889 h reached"),
])
def test_write_saturation_stops_at_its_bytes_or_its_hours(multiple, max_seconds, now, rounds, reason):
    written = _fio.find_job(WSAT, 0, 4096)["write"]["io_bytes"]
    target = multiple * written
    rule = {"kind": "written", "target_bytes": target, "max_seconds": max_seconds}
    state = _rounds.start("w", "written", 0.0)
    for dummy in range(rounds):
        state, key, verdict = _rounds.advance(state, rule, WSAT, now)
    assert key == "pts_wsat" and verdict["stop"] and reason in verdict["reason"]
    assert state["written"] == rounds * written == verdict["written"] and verdict["elapsed_s"] == now


def test_a_sweep_runs_every_row():
    rule = {"kind": "sweep", "rounds": 3}
    state = _rounds.start("s", "sweep", 0.0)
    stops = []
    for number in range(1, 4):
        state, key, verdict = _rounds.advance(state, rule, IOPS, 0.0, row={"label": f"QD {number}"})
        stops.append(verdict["stop"])
    assert key == "pts_sweep" and stops == [False, False, True] and verdict["label"] == "QD 3"
    assert len(verdict["cells"]) == len(IOPS)


def test_a_demand_ramp_ends_after_misses_in_a_row_and_a_delivered_step_resets_them():
    achieved = sum(job["total"]["iops"] for job in WSAT)
    rule = {"kind": "demand", "rounds": 100, "tolerance_pct": 5, "misses": 2}
    state = _rounds.start("d", "demand", 0.0)
    offers = [int(achieved / 2), int(achieved * 2), int(achieved / 2), int(achieved * 2), int(achieved * 3)]
    seen = []
    for offer in offers:
        state, dummy, verdict = _rounds.advance(state, rule, WSAT, 0.0, row={"offered_iops": offer})
        seen.append((verdict["delivered"], state["misses"], verdict["stop"]))
    assert seen == [(True, 0, False), (False, 1, False), (True, 0, False), (False, 1, False), (False, 2, True)]
    assert "missed 2 offered steps in a row" in verdict["reason"]


def test_rule_for_a_planned_test():
    test = {"stop": "steady"}
    segment = {"dvs": STEADY["dvs"]}
    limits = {"window": 5, "max_rounds": 25}
    assert _rounds.rule_for(test, segment, limits)["max_rounds"] == 25
    assert _rounds.rule_for({"stop": "written", "target_bytes": 4, "max_seconds": 9.0}, {}, {})["kind"] == "written"
    demand = _rounds.rule_for({"stop": "demand", "sweep": {"misses": 3}}, {"rounds": [{}, {}]}, {})
    assert demand == {"kind": "demand", "rounds": 2, "tolerance_pct": 5, "misses": 3}


@pytest.mark.parametrize("state, message", [
    ("x", "must be a dict"),
    ({"round": 1}, "lacks id, rule"),
    (dict(_rounds.start("a", "sweep", 0.0), round=0), "is not a round number"),
    (dict(_rounds.start("a", "sweep", 0.0), rule="steady"), "is for a steady loop, the rule is sweep"),
])
def test_a_broken_state_is_refused(state, message):
    with pytest.raises(ValueError, match=message):
        _rounds.advance(copy.deepcopy(state), {"kind": "sweep", "rounds": 3}, IOPS, 0.0)


@pytest.mark.parametrize("rule, message", [
    ({"kind": "wait"}, "kind is one of"),
    (dict(STEADY, window=30, max_rounds=25), "window 30 is larger than max_rounds 25"),
    (dict(STEADY, dvs=[]), "dvs must name"),
    ({"kind": "written", "target_bytes": 0, "max_seconds": 1.0}, "target_bytes 0 must be a positive number"),
    ({"kind": "written", "target_bytes": 1, "max_seconds": float("nan")}, "max_seconds nan"),
    ({"kind": "sweep", "rounds": 0}, "rounds 0 must be"),
    ({"kind": "demand", "rounds": 3, "misses": 0}, "misses 0 must be"),
])
def test_a_broken_rule_is_refused(rule, message):
    with pytest.raises(ValueError, match=message):
        _rounds.check_rule(rule)


def test_a_window_that_does_not_fit_the_round_is_refused():
    state = dict(_rounds.start("a", "steady", 0.0), round=7, window={"w": [1.0]})
    with pytest.raises(ValueError, match="holds 1 earlier values of w before round 7; the window needs 4"):
        _rounds.advance(state, STEADY, IOPS, 0.0)


def test_every_dv_must_be_steady():
    """Throughput judges read and write of one block size together: steady only when both are."""
    found = jobs("fio-3.33-throughput-1048576.json")
    read = _fio.find_job(found, 100, 1048576)["total"]["bw_bytes"]
    write = _fio.find_job(found, 0, 1048576)["total"]["bw_bytes"]
    rule = dict(STEADY, dvs=[{"name": "read", "mix": 100, "bs": 1048576, "metric": "bw_bytes"},
                             {"name": "write", "mix": 0, "bs": 1048576, "metric": "bw_bytes"}], max_rounds=25)
    state = dict(_rounds.start("tp", "steady", 0.0), round=5)
    dummy, key, steady = _rounds.advance(dict(state, window={"read": [read] * 4, "write": [write] * 4}), rule, found, 0.0)
    assert key == "pts_steady_state" and steady["steady"] is True
    dummy, key, shaky = _rounds.advance(
        dict(state, window={"read": [read] * 4, "write": [write * 2, write, write * 2, write]}), rule, found, 0.0)
    assert shaky["steady"] is False and [d["steady"] for d in shaky["dvs"]] == [True, False]
