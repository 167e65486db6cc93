# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each stop rule on its own: its parameters and their check, its verdict on a round, its round limit, its share of the
plan's time and of the wear estimate, and how a segment it stopped ended."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _stop_rules
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._pts._round_jobs import IOPS, STEADY, WSAT, jobs


def fresh(**kept) -> dict:
    """What a round state keeps for the rules, before round 1."""
    return dict({"started": 0.0, "window": {}, "written": 0, "misses": 0}, **kept)


def judge(rule: dict, found: list[dict], state: dict, number: int, row: dict | None = None, now: float = 0.0) -> dict:
    return _stop_rules.BY_KIND[rule["kind"]].judge(state, rule, found, number, row or {}, now)


def test_every_stop_a_plan_names_has_its_rule_and_points_are_judged_as_a_sweep():
    assert set(_stop_rules.BY_KIND) == set(_stop_rules.RULES) | {"points", "phases"}
    points = _stop_rules.of("points")
    assert points.kind == "sweep" and points.payload_key == "pts_sweep" and points.chooses_rows
    assert not _stop_rules.of("sweep").chooses_rows and _stop_rules.of("samples").continuous
    assert not any(_stop_rules.of(kind).continuous for kind in ("steady", "written", "sweep", "demand", "points"))
    assert _stop_rules.PAYLOAD_KEYS == ("pts_steady_state", "pts_wsat", "pts_sweep", "pts_sample")
    # A name no plan gives (or none at all) answers as the base: its planned rows, ended "complete".
    assert type(_stop_rules.of("wait")) is type(_stop_rules.of(None)) is _stop_rules.StopRule


@pytest.mark.parametrize("test, segment, expected", [
    ({"stop": "points"}, {"rounds": [{}, {}, {}]}, {"kind": "sweep", "rounds": 3, "tolerance_pct": 5, "misses": 2}),
    ({"stop": "phases"}, {"stop": "samples", "samples": 22, "sample_s": 60},
     {"kind": "samples", "rounds": 22, "sample_s": 60.0}),
    ({"stop": "written", "target_bytes": 4, "max_seconds": 9.0}, {},
     {"kind": "written", "target_bytes": 4, "max_seconds": 9.0}),
])
def test_a_rule_takes_its_parameters_from_the_plan_entry(test, segment, expected):
    kind = segment.get("stop") or test["stop"]
    assert _stop_rules.of(kind).parameters(test, segment, {}) == expected


def test_phases_is_no_rule_of_its_own_a_segment_is_judged_by():
    with pytest.raises(_stop_rules.RoundError, match="kind is one of steady, written, sweep, demand, samples"):
        _stop_rules.of("phases").parameters({"stop": "phases"}, {}, {})
    with pytest.raises(_stop_rules.RoundError, match="no round is judged by phases"):
        _stop_rules.of("phases").judge(fresh(), {"kind": "phases"}, IOPS, 1, {}, 0.0)


@pytest.mark.parametrize("rule, message", [
    (dict(STEADY, window=30, max_rounds=25), "window 30 is larger than max_rounds 25"),
    (dict(STEADY, dvs=[]), "dvs must name"),
    ({"kind": "written", "target_bytes": 0, "max_seconds": 1.0}, "target_bytes 0 must be a positive number"),
    ({"kind": "written", "target_bytes": 1, "max_seconds": float("nan")}, "max_seconds nan"),
    ({"kind": "written", "target_bytes": True, "max_seconds": 1.0}, "target_bytes True must be"),
    ({"kind": "sweep", "rounds": 0}, "rounds 0 must be the sweep's number of rows"),
    ({"kind": "demand", "rounds": 3, "misses": 0}, "misses 0 must be"),
    ({"kind": "demand", "rounds": 0, "misses": 2}, "rounds 0 must be"),
    ({"kind": "samples", "rounds": 3}, "sample_s None must be a sample's length"),
    ({"kind": "samples", "rounds": False, "sample_s": 60.0}, "rounds False must be the group's number of samples"),
])
def test_a_broken_rule_is_refused(rule, message):
    with pytest.raises(ValueError, match=message):
        _stop_rules.BY_KIND[rule["kind"]].check(rule)


@pytest.mark.parametrize("rule", [STEADY, {"kind": "written", "target_bytes": 1, "max_seconds": 0.5},
                                  {"kind": "demand", "rounds": 1, "misses": 1},
                                  {"kind": "samples", "rounds": 1, "sample_s": 1}])
def test_a_good_rule_passes_its_check(rule):
    assert _stop_rules.BY_KIND[rule["kind"]].check(rule) is rule


@pytest.mark.parametrize("multiple, max_seconds, now, rounds, reason", [
    (3, 3600.0, 10.0, 3, "reached"),
    (1000, 50.0, 60.0, 1, "time limit of 0.0138889 h reached"),
])
def test_write_saturation_stops_at_its_bytes_or_its_hours(multiple, max_seconds, now, rounds, reason):
    written = _fio.find_job(WSAT, 0, 4096)["write"]["io_bytes"]
    rule = {"kind": "written", "target_bytes": multiple * written, "max_seconds": max_seconds}
    state = fresh()
    verdicts = [judge(rule, WSAT, state, number, now=now) for number in range(1, rounds + 1)]
    assert [v["stop"] for v in verdicts] == [False] * (rounds - 1) + [True] and reason in verdicts[-1]["reason"]
    assert state["written"] == rounds * written == verdicts[-1]["written"] and verdicts[-1]["elapsed_s"] == now


def test_a_sweep_runs_every_row():
    rule, state = {"kind": "sweep", "rounds": 3}, fresh()
    verdicts = [judge(rule, IOPS, state, number, {"label": f"QD {number}"}) for number in (1, 2, 3)]
    assert [v["stop"] for v in verdicts] == [False, False, True] and verdicts[-1]["label"] == "QD 3"
    assert verdicts[-1]["reason"] == "sweep complete" and len(verdicts[-1]["cells"]) == len(IOPS)
    with pytest.raises(ValueError, match="row 4 is past the sweep's 3 rows"):
        judge(rule, IOPS, state, 4)


def test_a_demand_ramp_ends_after_misses_in_a_row_and_a_delivered_step_resets_them():
    achieved = sum(job["total"]["iops"] for job in WSAT)
    rule, state = {"kind": "demand", "rounds": 100, "tolerance_pct": 5, "misses": 2}, fresh()
    offers = [int(achieved / 2), int(achieved * 2), int(achieved / 2), int(achieved * 2), int(achieved * 3)]
    seen = []
    for number, offer in enumerate(offers, 1):
        verdict = judge(rule, WSAT, state, number, {"offered_iops": offer})
        seen.append((verdict["delivered"], state["misses"], verdict["stop"]))
    assert seen == [(True, 0, False), (False, 1, False), (True, 0, False), (False, 1, False), (False, 2, True)]
    assert "missed 2 offered steps in a row" in verdict["reason"]
    with pytest.raises(ValueError, match="row 6 of the demand ramp offers no IOPS"):
        judge(rule, WSAT, state, 6, {})


def test_a_window_that_does_not_fit_the_round_is_refused():
    with pytest.raises(ValueError, match="holds 1 earlier values of w before round 7; the window needs 4"):
        judge(STEADY, IOPS, fresh(window={"w": [1.0]}), 7)


def test_every_dv_must_be_steady():
    """Throughput judges read and write of one block size together: steady only when both are."""
    found = jobs("fio-3.33-throughput-1048576.json")
    read = _fio.find_job(found, 100, 1048576)["total"]["bw_bytes"]
    write = _fio.find_job(found, 0, 1048576)["total"]["bw_bytes"]
    rule = dict(STEADY, dvs=[{"name": "read", "mix": 100, "bs": 1048576, "metric": "bw_bytes"},
                             {"name": "write", "mix": 0, "bs": 1048576, "metric": "bw_bytes"}], max_rounds=25)
    steady = judge(rule, found, fresh(window={"read": [read] * 4, "write": [write] * 4}), 5)
    assert steady["steady"] is True and steady["reason"] == "steady after round 5"
    shaky = judge(rule, found, fresh(window={"read": [read] * 4, "write": [write * 2, write, write * 2, write]}), 5)
    assert shaky["steady"] is False and [d["steady"] for d in shaky["dvs"]] == [True, False]


def test_the_round_limit_is_the_steady_rounds_past_it_are_refused():
    rule = dict(STEADY, max_rounds=2)
    state = fresh()
    assert not judge(rule, IOPS, state, 1)["stop"]
    last = judge(rule, IOPS, state, 2, now=0.0)
    assert last["stop"] and (last["steady"] or "round limit 2 reached" in last["reason"])
    with pytest.raises(ValueError, match="round 3 exceeds max_rounds 2"):
        judge(rule, IOPS, fresh(window={"w": [1.0]}), 3)


@pytest.mark.parametrize("kind, segment, expected", [
    ("steady", {"rounds": [{}]}, 25),
    ("samples", {"samples": 22}, 23),
    # Write saturation: its hours in rounds, and the round that passes them.
    ("written", {}, 61),
    ("sweep", {"rounds": [{}, {}, {}]}, 3),
    ("demand", {"rounds": [{}, {}]}, 2),
    ("points", {"rounds": [{}, {}, {}]}, 3),
    ("sweep", {}, 0),
])
def test_the_round_limit_of_each_rule(kind, segment, expected):
    assert _stop_rules.of(kind).round_limit(segment, {"max_hours": 1, "round_seconds": 60}, 25) == expected


def segment(stop: str, round_s: float, rows: int = 0) -> dict:
    found = {"stop": stop, "round_s": round_s, "sweep_s": round_s * max(rows, 1), "dvs": ["d"],
             "combinations": [{"seconds": round_s}]}
    if rows:
        found["rounds"] = [{"combinations": [{"seconds": round_s}]} for dummy in range(rows)]
    return found


@pytest.mark.parametrize("stop, segments, test, bounds", [
    # Steady state: at least the window, at most the round limit, of every segment's rounds.
    ("steady", [segment("steady", 10.0), segment("steady", 20.0)], {"dvs": ["d"]}, (7 + 5 * 30.0, 7 + 25 * 30.0)),
    ("sweep", [segment("sweep", 10.0, rows=3)], {}, (37.0, 37.0)),
    # A demand ramp may end after ``misses`` undelivered steps.
    ("demand", [segment("demand", 10.0, rows=6)], {"misses": 2}, (27.0, 67.0)),
    # Each phase by its own rule: a steady preconditioning, a sweep and an operating point's rows, XSR's samples.
    ("phases", [segment("steady", 10.0), segment("sweep", 5.0, rows=2), segment("points", 1.0, rows=3),
                segment("samples", 100.0)], {}, (7 + 50.0 + 10.0 + 3.0 + 100.0, 7 + 250.0 + 10.0 + 3.0 + 100.0)),
])
def test_a_rule_bounds_the_plan_entrys_seconds(stop, segments, test, bounds):
    entry = {"test": "t"}
    _stop_rules.of(stop).plan_entry(entry, dict(test, stop=stop), segments, 7.0, 1e9, 5, 25)
    assert (entry["min_s"], entry["max_s"]) == pytest.approx(bounds)


def test_what_each_rule_adds_to_the_plan_entry():
    entry = {"test": "wsat", "stop": "written"}
    wsat = {"stop": "written", "capacity_multiple": 2, "max_hours": 24, "latency_plots": True}
    _stop_rules.of("written").plan_entry(entry, wsat, [segment("written", 60.0)], 0.0, 1e12, 5, 25)
    assert entry["target_bytes"] == 2 * 10**12 and entry["max_seconds"] == entry["max_s"] == 24 * 3600
    assert entry["min_s"] == 2e12 / _stop_rules.ASSUMED_WSAT_BYTES_PER_S
    assert _stop_rules.of("written").round_settings(dict(wsat, target_bytes=5)) == {
        "target_bytes": 5, "capacity_multiple": 2, "max_hours": 24, "latency_plots": True}
    assert _stop_rules.of("steady").round_settings(wsat) is None
    sweep = {"stop": "sweep", "queue_depths": [1, 2], "name": "rw"}
    entry = {"test": "rw"}
    _stop_rules.of("sweep").plan_entry(entry, sweep, [segment("sweep", 1.0, rows=2)], 0.0, 1e9, 5, 25)
    assert entry["sweep"] == {"queue_depths": [1, 2]}
    # A phased test keeps its own parameters (XSR's stream, the operating points), not what the entry has already.
    entry = {"test": "xsr", "stop": "phases"}
    _stop_rules.of("phases").plan_entry(entry, {"stop": "phases", "name": "xsr", "stream": 3}, [], 0.0, 1e9, 5, 25)
    assert entry["parameters"] == {"stream": 3} and entry["min_s"] == entry["max_s"] == 0.0


def bytes_of(combinations: list) -> float:
    """A round's bytes in the tests below: a megabyte per second of its sections."""
    return sum(c["seconds"] for c in combinations) * 1e6


@pytest.mark.parametrize("stop, segments, test, expected", [
    # Steady state is not assumed to come early: the round limit, of every segment.
    ("steady", [segment("steady", 10.0), segment("steady", 20.0)], {}, 25 * 30e6),
    ("sweep", [segment("sweep", 10.0, rows=3), segment("sweep", 1.0, rows=2)], {}, 32e6),
    ("demand", [segment("demand", 10.0, rows=6)], {}, 60e6),
    # Write saturation: the target and the round that reaches it, or its time and the round that passes it.
    ("written", [segment("written", 60.0)], {"target_bytes": 1e9, "max_seconds": 3600.0, "round_seconds": 60.0},
     1e9 + 60e6),
    ("written", [segment("written", 60.0)], {"target_bytes": 10e12, "max_seconds": 3600.0, "round_seconds": 60.0},
     61 * 60e6),
    ("phases", [segment("steady", 10.0), segment("points", 1.0, rows=3), segment("samples", 100.0)], {},
     25 * 10e6 + 3e6 + 100e6),
])
def test_a_rule_bounds_the_bytes_its_rounds_write(stop, segments, test, expected):
    assert _stop_rules.of(stop).rounds_bytes(dict(test, stop=stop), segments, bytes_of, 25) == pytest.approx(expected)


@pytest.mark.parametrize("kind, verdict, ended", [
    ("steady", {"steady": True}, "steady"),
    ("steady", {"steady": False, "reason": "round limit 25 reached without steady state"}, "not steady"),
    ("written", {"reason": "time limit of 24 h reached with 1 of 2 bytes written"}, "time limit"),
    ("written", {"reason": "2 bytes written, target 2 reached"}, "complete"),
    ("sweep", {"reason": "sweep complete"}, "complete"),
    ("samples", {"reason": "last sample: fio's run of the group ended"}, "complete"),
    (None, {}, "complete"),
])
def test_how_a_segment_that_ran_to_its_stop_ended(kind, verdict, ended):
    assert _stop_rules.of(kind).ended(verdict) == ended
