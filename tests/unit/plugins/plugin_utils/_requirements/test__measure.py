# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The run measures what the specifications ask: before the first write the plan finds every requirement no planned
test measures and either adds the measurement (a test, a block size or mix, a QoS queue depth, a deeper percentile; a
latency percentile the window cannot hold by the QoS measurement at QD1) or refuses, naming it."""

from __future__ import annotations

import re

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._plan import build_plan
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _measure, _spec_file

PARAMS = {"pts_run_tests": ["iops", "latency"], "pts_run_profile": "quick", "pts_run_window": 5,
          "pts_run_max_data_excursion_pct": 20, "pts_run_max_slope_excursion_pct": 10}
DRIVE = {"key": "d1", "size_bytes": 3_840_755_982_336, "logical_block_size": 512, "model": "ACME PM1",
         "firmware": "2.1", "interface": "NVMe"}
OTHER = dict(DRIVE, key="d2", model="OTHER")


def specs(*requirements, applies=None):
    return [_spec_file.validate({"name": "S", "version": "1", "source": "doc", "applies_to": applies or {"model": "ACME*"},
                                 "requirements": [dict(r, id=f"R{i}") for i, r in enumerate(requirements)]}, "s.yml")]


def decide(found, params=None, mode="add", devices=(DRIVE,)):
    return _measure.decide(dict(params or PARAMS), list(devices), found, mode, build_plan)


def test_what_the_selected_tests_measure_adds_nothing():
    found = decide(specs({"figure": "iops.4k.100/0", "limit": 1}, {"figure": "latency.4k.0/100.write.p99.99",
                                                                   "limit": 1}, {"figure": "health.max_temperature",
                                                                                 "limit": 70}))
    assert found["added"] == [] and found["variables"] == PARAMS


@pytest.mark.parametrize("figure, added", [
    ("iops.4k.70/30", [("pts_run_iops_mixes", 70)]),
    ("iops.2048k.100/0", [("pts_run_iops_block_sizes", "2048k")]),
    ("throughput.128k.read", [("pts_run_tests", "throughput"), ("pts_run_throughput_block_sizes", "128k")]),
    ("latency.16k.100/0.read.mean", [("pts_run_latency_block_sizes", "16k")]),
    ("hir.ws7.gain", [("pts_run_tests", "hir"), ("pts_run_hir_wait_states", 7)]),
    ("xsr.recovery", [("pts_run_tests", "xsr")]),
    # The QoS measurement the plan adds runs the queue depth and the percentile asked for, nothing else.
    ("qos.read.qd8.p99.999", [("pts_run_tests", "qos"), ("pts_run_qos_queue_depths", 8),
                              ("pts_run_qos_percentile", "99.999")]),
])
def test_the_plan_adds_what_a_requirement_needs(figure, added):
    found = decide(specs({"figure": figure, "limit": 1}))
    assert [(a["variable"], a["value"]) for a in found["added"]] == added
    assert all(a["for"] == [f"S 1: R0 ({figure})"] for a in found["added"])
    for variable, value in added:
        assert value in found["variables"][variable] if variable != "pts_run_qos_percentile" else \
            found["variables"][variable] == value
    if figure.startswith("qos."):
        (qos,) = [t for t in found["plan"]["drives"][0]["tests"] if t["test"] == "qos"]
        assert qos["parameters"]["queue_depths"] == [8] and qos["parameters"]["ios"] == 1_000_000
        assert [r["label"] for r in qos["segments"][1]["rounds"]] == [
            "4k random read at QD8: 1,000,000 IOs (p99.999), at most 5 s",
            "4k random write at QD8: 1,000,000 IOs (p99.999), at most 5 s"]


def test_a_latency_percentile_the_window_cannot_hold_is_measured_by_qos_at_qd1():
    # quick profile: 5 rounds of 0.5 s hold at most 500,000 IOs at QD1; p99.9999 needs 10,000,000.
    found = decide(specs({"figure": "latency.4k.100/0.read.p99.9999", "limit": 1},
                         {"figure": "latency.4k.0/100.write.p99.99", "limit": 1}))
    assert found["stand_ins"] == {("S", "1", "R0"): "qos.read.qd1.p99.9999"}
    assert [r.get("measured_as") for r in found["specs"][0]["requirements"]] == ["qos.read.qd1.p99.9999", None]
    assert [(a["variable"], a["value"]) for a in found["added"]] == [
        ("pts_run_tests", "qos"), ("pts_run_qos_queue_depths", 1), ("pts_run_qos_percentile", "99.9999")]
    assert "measured as qos.read.qd1.p99.9999" in found["added"][0]["for"][0]


def test_a_selected_qos_keeps_its_own_queue_depths_and_percentile_and_gains_what_is_asked():
    params = dict(PARAMS, pts_run_tests=["qos"], pts_run_qos_queue_depths=[1, 32], pts_run_qos_percentile="99.99")
    found = decide(specs({"figure": "qos.write.qd4.p99", "limit": 1}), params)
    assert found["variables"]["pts_run_qos_queue_depths"] == [1, 32, 4]
    assert found["variables"]["pts_run_qos_percentile"] == "99.99"


def test_refuse_names_every_requirement_the_selected_tests_do_not_measure():
    with pytest.raises(_measure.Unmeasured) as caught:
        decide(specs({"figure": "qos.read.qd8.p99", "limit": 1}, {"figure": "iops.4k.70/30", "limit": 1}),
               mode="refuse")
    message = str(caught.value)
    assert ("acceptance specification 'S 1' (s.yml) requirement 'R0' asks for qos.read.qd8.p99 on drive d1, which no "
            "selected test measures: the QoS measurement is not selected (pts_tests)") in message
    assert "requirement 'R1' asks for iops.4k.70/30 on drive d1, which no selected test measures: 70/30 is not " \
           "among the IOPS test's R/W mixes (pts_run_iops_mixes)" in message
    assert message.endswith("set pts_acceptance_measure: add to let the plan add what they need")


def test_a_figure_no_test_can_measure_is_refused_even_when_adding():
    # A percentile of a mixed workload beyond the latency test's: the QoS measurement runs 100/0 and 0/100 only.
    with pytest.raises(_measure.Unmeasured, match=re.escape("no test this collection runs can measure it")):
        decide(specs({"figure": "latency.4k.65/35.read.p99.9999", "limit": 1}))


def test_only_the_drives_a_specification_applies_to_are_checked():
    found = decide(specs({"figure": "qos.read.qd8.p99", "limit": 1}, applies={"model": "OTHER*"}),
                   devices=(DRIVE,))
    assert found["added"] == []
    found = decide(specs({"figure": "qos.read.qd8.p99", "limit": 1}, applies={"model": "OTHER*"}),
                   devices=(DRIVE, OTHER))
    assert [a["value"] for a in found["added"]][:1] == ["qos"]


def test_the_mode_is_add_or_refuse():
    assert _measure.mode(None) == "add" and _measure.mode("refuse") == "refuse"
    with pytest.raises(ValueError, match=re.escape("pts_acceptance_measure='yes': must be add")):
        _measure.mode("yes")


def test_the_plan_says_what_it_adds_one_line_per_variable():
    found = decide(specs(*[{"figure": f"qos.read.qd{qd}.p99", "limit": 1} for qd in (2, 4, 8, 16, 64, 128)]))
    lines = _measure.lines("h1", found["added"])
    assert lines[0] == ("PTS acceptance h1: adds pts_run_tests += qos for S 1: R0 (qos.read.qd2.p99), R1 "
                        "(qos.read.qd4.p99), R2 (qos.read.qd8.p99), R3 (qos.read.qd16.p99) and 2 more")
    assert "PTS acceptance h1: adds pts_run_qos_queue_depths += 128 for S 1: R5 (qos.read.qd128.p99)" in lines
