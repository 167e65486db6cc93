# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CBW and DIRTH reports: from a real quick run's round files (fixtures/intensity, filed by the run on a 64 MiB
loop device, TC [2, 1] x QD [4, 1]) and from a synthetic run at the standard scale (7 x 7 grid, 25 loop rounds)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity as _intensity_test
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import (
    _intensity, _intensity_md, _intensity_plots, _plots)
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._intensity_runs import (
    PLOTS, RUN, _copy, synthetic)


def _edit(path: str, change) -> None:
    record = _results.read_json(path)
    change(record)
    _results.atomic_write_json(path, record)


def test_a_real_cbw_run_is_steady_with_its_points_as_the_run_chose_them():
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    json.dumps(result)
    assert result["status"] == "steady" and result["steady"] and result["rounds_run"] == 7
    assert result["steady_round"] == 2
    assert result["steady_text"] == "preconditioning steady at round 2, TC × QD loop steady at round 2"
    assert result["title"] == "Composite Block Size Workload"
    assert result["precondition"]["dv"]["job"] == "cbw-pc" and result["loop"]["dv"]["job"] == "cbw-tc2-qd4"
    assert [c["qd"] for c in result["loop"]["grid"]] == [4, 1, 4, 1]
    assert [p["point"] for p in result["points"]] == ["max", "mid", "min"]
    assert result["choice_checks"] == []
    recomputed = result["loop"]["recomputed"]
    assert [(recomputed[p]["tc"], recomputed[p]["qd"]) for p in ("max", "mid", "min")] == [(2, 4), (1, 4), (1, 1)]
    headline = result["headline"]
    assert [headline[f"{p}_point"] for p in ("max", "mid", "min")] == ["TC2/QD4", "TC1/QD4", "TC1/QD1"]
    assert headline["max_iops"] == pytest.approx(33922.1556885)
    assert headline["max_measured_iops"] == pytest.approx(35193.806194)
    assert headline["max_mrt_ms"] == pytest.approx(4.772936)
    # Per direction fio's own figures; for all IOs the merged buckets, computed as fio does - each only where the IOs
    # resolve it (10 / (1 - p) of them): 35,229 IOs give 99.9 %, not 99.99 % or 99.999 %.
    measure = result["points"][0]["measure"]
    assert measure["directions"]["read"]["percentiles_ms"]["99.9"] == pytest.approx(2.408448)
    assert measure["directions"]["write"]["percentiles_ms"]["99.99"] is None
    assert measure["total_ios"] == _histogram.total(measure["bins"]) == 35229
    assert measure["percentiles_ms"]["99.9"] == pytest.approx(_histogram.percentile(measure["bins"], "99.9") / 1e6)
    assert measure["percentiles_ms"]["99.99"] is None and measure["percentiles_ms"]["99.999"] is None
    assert measure["bins_mean_ms"] == pytest.approx(measure["art_ms"], rel=2e-3)
    assert measure["checks"] == []
    assert result["round_files"]["points"] == ["round-01", "round-02", "round-03"]


def test_a_real_dirth_run_whose_preconditioning_hit_its_round_limit_is_not_steady():
    result = _intensity.build(_results.load_test(os.path.join(RUN, "dirth")))
    assert result["status"] == "not steady" and not result["steady"]
    assert result["steady_text"] == "preconditioning not steady in 3 rounds (limit 3), TC × QD loop steady at round 2"
    assert result["not_steady_text"] == "not reached by the preconditioning in 3 rounds (limit 3)"
    assert result["workload"] == {"label": "random 8k", "block_size": "8k", "bssplit": None, "distribution": None}
    assert result["precondition"]["dv"]["name"] == "8k 0/100 TC2/QD4 IOPS"
    assert result["loop"]["dv"]["name"] == "8k 65/35 TC2/QD4 IOPS"
    assert result["choice_checks"] == []


def test_a_recorded_choice_that_differs_from_the_loops_window_is_flagged(tmp_path):
    path = _copy(tmp_path, "cbw")

    def slower(record):  # the loop's TC1/QD4 far below what the points rounds were chosen from
        for job in record["fio"]["jobs"]:
            if job["name"] == "cbw-tc1-qd4":
                job["total"]["iops"] /= 2
    for number in (1, 2):
        _edit(os.path.join(path, "loop", f"round-0{number}.json"), slower)
    result = _intensity.build(_results.load_test(path))
    assert result["choice_checks"] == ["MidIOPS: recorded as TC1/QD4 (24,281 IOPS) when its round started; the loop's "
                                       "window gives TC2/QD1 (15,304 IOPS, ART 0.126 ms)"]
    text = "\n".join(_intensity_md.section(result, {}, 3, 0))
    assert "> **Warning**: recomputed from the loop's window rounds" in text
    # The warning names where the rule is, and the rule is there.
    assert "(window_grid and operating_points in module_utils/_pts/_tests/_intensity.py)" in text.replace("\n", " ")
    assert callable(_intensity_test.window_grid) and callable(_intensity_test.operating_points)


def test_a_point_that_ran_elsewhere_than_its_round_file_says_is_flagged(tmp_path):
    path = _copy(tmp_path, "cbw")

    def elsewhere(record):
        record["fio"]["jobs"][-1]["iodepth"] = 1
    _edit(os.path.join(path, "points", "round-01.json"), elsewhere)
    result = _intensity.build(_results.load_test(path))
    assert result["choice_checks"] == ["MaxIOPS: its round file names TC2/QD4, fio ran TC2/QD1, TC2/QD4"]


def test_a_measurement_without_a_histogram_is_flagged_not_guessed(tmp_path):
    path = _copy(tmp_path, "cbw")

    def plain_json(record):
        for job in record["fio"]["jobs"]:
            for direction in ("read", "write"):
                job[direction].pop("histogram", None)
    _edit(os.path.join(path, "points", "round-03.json"), plain_json)
    result = _intensity.build(_results.load_test(path))
    assert result["points"][2]["measure"]["percentiles_ms"] == {}
    assert "MinIOPS: read: fio printed no latency histogram (json+)" in result["choice_checks"]
    text = "\n".join(_intensity_md.section(result, {}, 3, 0))
    assert "|  | *all IOs* | 11,332 | 11,320.7 | 0.086 | — | — | — | — | 5.101 |" in text


@pytest.mark.parametrize("drop, status, text", [
    (["points/round-03.json"], "incomplete",
     "preconditioning steady at round 2, TC × QD loop steady at round 2, 2 of 3 operating points measured"),
    (["points/round-01.json", "points/round-02.json", "points/round-03.json", "loop/round-02.json"], "incomplete",
     "preconditioning steady at round 2, TC × QD loop stopped after 1 round, 0 of 3 operating points measured"),
    (["points/round-01.json", "points/round-02.json", "points/round-03.json", "loop/round-01.json",
      "loop/round-02.json"], "incomplete",
     "preconditioning steady at round 2, TC × QD loop not run, 0 of 3 operating points measured"),
])
def test_a_missing_phase_or_point_makes_the_test_incomplete(tmp_path, drop, status, text):
    path = _copy(tmp_path, "cbw")
    for name in drop:
        os.unlink(os.path.join(path, name))
    result = _intensity.build(_results.load_test(path))
    assert result["status"] == status and result["steady_text"] == text
    json.dumps(result)
    lines = _intensity_md.section(result, {}, 3, 0)
    assert lines[0] == "## 3 Composite Block Size Workload" and f"**Incomplete**: {text}." in lines
    if not result["loop"]["rounds_run"]:
        assert "TC × QD loop: no round finished." in lines
        assert "No operating point: the TC × QD loop measured no grid point: no operating point can be chosen." in lines
    if _plots.available():
        assert set(_intensity_plots.plots(result, str(tmp_path / "plots"), "d1", "")) <= PLOTS


def test_a_failure_or_no_round_at_all(tmp_path):
    path = _copy(tmp_path, "cbw")
    _results.atomic_write_json(os.path.join(path, "points", "failure.json"), {"phase": "round", "round": 3,
                                                                              "msg": "fio failed"})
    assert _intensity.build(_results.load_test(path))["status"] == "failed"
    empty = tmp_path / "dirth"
    empty.mkdir()
    shutil.copy(os.path.join(RUN, "dirth", "purge.json"), str(empty / "purge.json"))
    result = _intensity.build(_results.load_test(str(empty)))
    assert result["status"] == "no rounds" and result["rounds_run"] == 0 and result["headline"] is None
    assert _intensity_md.section(result, {}, 4, 0)[-2] == "No round finished; nothing was measured."


def test_a_loop_that_hit_its_round_limit_is_not_steady(tmp_path):
    path = _copy(tmp_path, "cbw")

    def unsteady(record):
        for job in record["fio"]["jobs"]:
            if job["name"] == "cbw-tc2-qd4":
                job["total"]["iops"] *= 3 if record["round"] == 2 else 1
        record["settings"]["max_rounds"] = 2
    for number in (1, 2):
        _edit(os.path.join(path, "loop", f"round-0{number}.json"), unsteady)
    result = _intensity.build(_results.load_test(path))
    assert result["status"] == "not steady" and result["loop"]["status"] == "not steady"
    assert result["steady_text"] == "preconditioning steady at round 2, TC × QD loop not steady in 2 rounds (limit 2)"
    assert result["not_steady_text"] == "not reached by the TC × QD loop in 2 rounds (limit 2)"


def test_round_files_without_the_tests_parameters_are_an_error(tmp_path):
    path = _copy(tmp_path, "cbw")
    for segment, number in (("precondition", 2), ("loop", 2), ("points", 3)):
        _edit(os.path.join(path, segment, f"round-0{number}.json"),
              lambda record: record["settings"]["parameters"].pop("queue_depths"))
    with pytest.raises(ValueError, match="settings.parameters lack queue_depths"):
        _intensity.build(_results.load_test(path))


# A synthetic run at the standard scale --------------------------------------------------------------------------------


def test_the_standard_grid_of_7_x_7_points_over_25_rounds_builds_and_reads_well():
    result = _intensity.build(synthetic())
    json.dumps(result)
    assert result["status"] == "not steady"  # the synthetic loop never settles within 20 %: 25 rounds, the limit
    assert len(result["loop"]["grid"]) == 49 and result["loop"]["window_rounds"] == [21, 22, 23, 24, 25]
    assert result["choice_checks"] == []
    assert all(len(p["prewrite"]) == 60 for p in result["points"])
    assert result["headline"]["min_point"] == "TC1/QD1"
    lines = _intensity_md.section(result, {}, 5, 2 * 10 ** 12)
    assert "| TC ↓ / QD → | 32 | 16 | 8 | 6 | 4 | 2 | 1 |" in lines
    assert sum(1 for line in lines if line.startswith("| **32** |")) == 3
    assert "it is the slowest bucket" not in "\n".join(lines)  # millions of IOs resolve five nines


def test_a_synthetic_loop_steady_within_its_window():
    result = _intensity.build(synthetic(rounds=8, steady=True))
    assert result["status"] == "steady" and result["steady_round"] == 8
    assert result["steady_text"] == "preconditioning steady at round 6, TC × QD loop steady at round 8"
    assert result["loop"]["window_rounds"] == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("name", ["cbw", "dirth"])
def test_the_idle_between_the_operating_points_sections_is_measured_and_said(name):
    result = _intensity.build(_results.load_test(os.path.join(RUN, name)))
    for point in result["points"]:
        rnd = _results.read_json(os.path.join(RUN, name, "points", f"{point['round_file']}.json"))
        jobs = [j for j in rnd["fio"]["jobs"] if j["name"].startswith(f"{name}-{point['point']}-")]
        assert point["sections"] == len(jobs) >= 2
        assert point["outside_s"] == pytest.approx(rnd["fio"]["elapsed_s"] - sum(j["runtime_ms"] for j in jobs) / 1000)
        assert point["outside_s"] > 0.1 * point["sections"]  # fio's floor between sections is real idle time
    text = "\n".join(_intensity_md.section(result, {}, 7, 1 << 28))
    assert "**Idle between sections**" in text and "The PTS asks for no idle there" in text
