# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import copy
import json

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _rounds
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._pts._round_jobs import IOPS, STEADY, WSAT, jobs


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


def test_rule_for_a_planned_test():
    test = {"stop": "steady"}
    segment = {"dvs": STEADY["dvs"]}
    limits = {"window": 5, "max_rounds": 25}
    assert _rounds.rule_for(test, segment, limits)["max_rounds"] == 25
    assert _rounds.rule_for({"stop": "written", "target_bytes": 4, "max_seconds": 9.0}, {}, {})["kind"] == "written"
    demand = _rounds.rule_for({"stop": "demand", "sweep": {"misses": 3}}, {"rounds": [{}, {}]}, {})
    assert demand == {"kind": "demand", "rounds": 2, "tolerance_pct": 5, "misses": 3}
    # A segment's own stop comes first: a PTS 2.0 test's operating points are a sweep of their rows.
    assert _rounds.rule_for({"stop": "phases"}, {"stop": "points", "rounds": [{}]}, {})["kind"] == "sweep"


@pytest.mark.parametrize("test, segment, limits, message", [
    ({"stop": "steady"}, {}, {"window": 5, "max_rounds": 25}, "lack 'dvs'"),
    ({}, {}, {}, "lack 'stop'"),
    ({"stop": "samples"}, {"samples": "many", "sample_s": 1}, {}, "rounds 'many' must be the group's number of"),
    ({"stop": "samples"}, {"samples": 3, "sample_s": "1s"}, {}, "sample_s '1s' must be a sample's length in seconds"),
    ({"stop": "steady"}, {"dvs": ["iops"]}, {"window": "5", "max_rounds": 25}, "window '5' must be a number of rounds"),
    ({"stop": "steady"}, {"dvs": ["iops"]}, {"window": 5, "max_rounds": 25, "max_data_excursion_pct": "x"},
     "max_data_excursion_pct 'x' must be a percentage"),
    ({"stop": "steady"}, {"dvs": ["iops"]}, {"window": 6, "max_rounds": 5}, "window 6 is larger than max_rounds 5"),
    ({"stop": "demand", "sweep": {"misses": 2, "tolerance_pct": "5%"}}, {"rounds": [{}]}, {},
     "tolerance_pct '5%' must be a percentage"),
    ({"stop": "phases"}, {}, {}, "rule must be a dict whose kind is one of"),
])
def test_rule_for_an_entry_that_lacks_what_its_rule_needs(test, segment, limits, message):
    # Each value is checked by the rule, naming it; no conversion error is caught and reworded.
    with pytest.raises(PtsError, match=message):
        _rounds.check_rule(_rounds.rule_for(test, segment, limits))


@pytest.mark.parametrize("rule, found, row, key", [
    (STEADY, IOPS, None, "pts_steady_state"),
    ({"kind": "written", "target_bytes": 1, "max_seconds": 10.0}, WSAT, None, "pts_wsat"),
    ({"kind": "sweep", "rounds": 1}, IOPS, None, "pts_sweep"),
    ({"kind": "demand", "rounds": 1, "misses": 1}, IOPS, {"offered_iops": 1}, "pts_sweep"),
])
def test_a_round_is_judged_by_its_rule_and_filed_under_the_rules_key(rule, found, row, key):
    state, got, verdict = _rounds.advance(_rounds.start("l", rule["kind"], 0.0), rule, found, 5.0, 1.5, row)
    assert got == key and verdict["round"] == 1 and state["round"] == 2 and state["last_elapsed_s"] == 1.5
    assert state["stop"] == verdict["stop"] and state["reason"] == verdict["reason"]


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
    # "points" is a segment's stop, judged as a sweep; "phases" a test's, each segment by its own rule.
    ({"kind": "points", "rounds": 3}, "kind is one of"),
    ({"kind": "phases"}, "kind is one of"),
    ("steady", "must be a dict"),
    # The rule's own check (test__stop_rules.py has them all).
    (dict(STEADY, dvs=[]), "dvs must name"),
    ({"kind": "demand", "rounds": 3, "misses": 0}, "misses 0 must be"),
])
def test_a_broken_rule_is_refused(rule, message):
    with pytest.raises(ValueError, match=message):
        _rounds.check_rule(rule)
