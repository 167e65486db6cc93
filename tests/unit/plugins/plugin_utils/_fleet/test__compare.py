# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Baseline against candidate on hand-made run sets: verdict direction, the tolerance from the run-to-run spread,
median and spread over drives, missing figures, the selection's errors, the drive history (the outputs written are
test__compare_report.py's)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare, _compare_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fleet._compare_runs import (
    IOPS, LAT, TP_READ, day)
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import make_run


def by_figure(result: dict, model: str = "ACME X1") -> dict:
    group = next(g for g in result["groups"] if g["model"] == model)
    return {row["figure"]: row for row in group["figures"]}


@pytest.mark.parametrize("figure, expected", [
    (IOPS, "higher"), (TP_READ, "higher"), ("throughput_1024k_write_mb_s", "higher"), (LAT, "lower"),
    ("latency_4k_write_p9999_ms", "lower"),
])
def test_which_way_is_better(figure, expected):
    assert _compare.better(figure) == expected


@pytest.mark.parametrize("delta, tolerance, direction, verdict", [
    (-10.0, 5.0, "higher", "REGRESSION"),   # fewer IOPS
    (10.0, 5.0, "higher", "IMPROVEMENT"),
    (10.0, 5.0, "lower", "REGRESSION"),     # more latency
    (-10.0, 5.0, "lower", "IMPROVEMENT"),
    (-5.0, 5.0, "higher", "SAME"),          # the boundary is within the tolerance
    (5.0, 5.0, "lower", "SAME"),
    (-5.01, 5.0, "higher", "REGRESSION"),
    (-10.0, 12.0, "higher", "SAME"),
    (0.0, 0.0, "higher", "SAME"),
    (None, 5.0, "higher", "NOT COMPARED"),
])
def test_verdict_direction_and_tolerance(delta, tolerance, direction, verdict):
    assert _compare.judge(delta, tolerance, direction) == verdict


@pytest.mark.parametrize("given, expected", [(None, None), ("", None), (0, 0.0), (5, 5.0), (2.5, 2.5), ("7.5", 7.5)])
def test_tolerance_input(given, expected):
    assert _compare.tolerance_input(given) == expected


@pytest.mark.parametrize("given", [-1, "-0.5", "abc", True, float("nan"), float("inf"), [5], {"a": 1}])
def test_a_bad_tolerance_names_the_variable_and_value(given):
    with pytest.raises(_compare.CompareError) as caught:
        _compare.tolerance_input(given)
    assert str(caught.value).startswith(f"pts_compare_tolerance_pct={given!r}: must be a number ≥ 0")


def test_median_and_spread_over_drives_a_drive_counted_once():
    rows = [{"run_id": run, "host": "h1", "drive": "d", "serial": serial, "figure": IOPS, "value": value, "steady": 1}
            for run, serial, value in (("r1", "A", 100.0), ("r2", "A", 120.0), ("r3", "A", 110.0),
                                       ("r1", "B", 90.0), ("r1", "C", 130.0))]
    rows.append({"run_id": "r1", "host": "h1", "drive": "e", "serial": "D", "figure": IOPS, "value": None,
                 "steady": 0})
    stats = _compare.side_stats(rows)
    # A: the median of its three runs (110); B 90; C 130 -> median 110, spread (130 - 90) / 110.
    assert (stats["n"], stats["median"], stats["min"], stats["max"]) == (3, 110.0, 90.0, 130.0)
    assert stats["spread_pct"] == pytest.approx(40 / 110 * 100)
    assert stats["missing"] == 1 and stats["steady"] == 3
    assert _compare.side_stats([])["median"] is None


def test_drives_without_a_serial_are_their_own_drives():
    rows = [{"run_id": "r1", "host": "h1", "drive": "loop0", "serial": None, "figure": IOPS, "value": 1.0},
            {"run_id": "r2", "host": "h1", "drive": "loop0", "serial": None, "figure": IOPS, "value": 3.0}]
    assert _compare.side_stats(rows)["n"] == 2


def test_run_to_run_spread_leaves_the_candidate_out():
    rows = [{"run_id": run, "value": value} for run, value in (("r1", 100.0), ("r1", 104.0), ("r2", 110.0),
                                                               ("cand", 10.0))]
    spread = _compare.run_to_run(rows, ["cand"])
    assert spread["runs"] == {"r1": 102.0, "r2": 110.0}
    assert spread["spread_pct"] == pytest.approx(8 / 106 * 100)
    assert _compare.run_to_run(rows, ["cand", "r2"])["spread_pct"] is None  # one run: no spread


def test_two_runs_regression_and_improvement_by_direction(index):
    conn = index([
        ("base", {"S1": {IOPS: 1000.0, LAT: 1.00}, "S2": {IOPS: 1100.0, LAT: 1.10}, "S3": {IOPS: 1200.0, LAT: 0.90}}, {}),
        ("cand", {"S1": {IOPS: 800.0, LAT: 0.80}, "S2": {IOPS: 900.0, LAT: 0.85}, "S3": {IOPS: 1000.0, LAT: 0.70}}, {}),
    ])
    selection = _compare.select(conn, ["base"], ["cand"], None, None, None)
    result = _compare.build(conn, selection)
    rows = by_figure(result)
    assert rows[IOPS]["baseline"]["median"] == 1100.0 and rows[IOPS]["candidate"]["median"] == 900.0
    assert rows[IOPS]["delta_pct"] == pytest.approx(-200 / 11)
    assert rows[IOPS]["verdict"] == "REGRESSION"        # fewer IOPS
    assert rows[LAT]["delta_pct"] == pytest.approx(-20.0)
    assert rows[LAT]["verdict"] == "IMPROVEMENT"        # less latency
    assert (rows[IOPS]["tolerance_pct"], rows[IOPS]["tolerance_source"]) == (5.0, "minimum")
    assert result["counts"] == {"REGRESSION": 1, "IMPROVEMENT": 1, "SAME": 0, "NOT COMPARED": 0}
    assert result["regressions"] == ["ACME X1: 4k random write"]
    assert TP_READ not in rows and by_figure(result) and result["groups"][0]["not_measured"] == [
        "throughput_1024k_read_mb_s", "throughput_1024k_write_mb_s", "latency_4k_write_p9999_ms"]
    # The same with a tolerance given: both SAME.
    result = _compare.build(conn, selection, tolerance_pct=25.0)
    assert {r["verdict"] for r in by_figure(result).values()} == {"SAME"}
    conn.close()


def test_the_tolerance_is_the_run_to_run_spread_when_it_is_larger(index):
    # Three earlier runs of the baseline's model and firmware: medians 100, 120, 110 -> spread 20 / 110 = 18.2 %.
    conn = index([
        ("old-1", {"S1": {IOPS: 100.0}}, {}), ("old-2", {"S1": {IOPS: 120.0}}, {}),
        ("base", {"S1": {IOPS: 110.0}}, {}),
        ("cand", {"S1": {IOPS: 95.0}}, {"firmware": "2.0"}),                            # -13.6 %: within
        ("other-settings", {"S1": {IOPS: 10.0}}, {"settings": {"pts_run_rate_iops": 100}}),  # not run alike: not used
        ("other-fw", {"S1": {IOPS: 10.0}}, {"firmware": "0.9"}),                       # another firmware: not used
    ])
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None))
    row = by_figure(result)[IOPS]
    assert row["run_to_run_runs"] == {"old-1": 100.0, "old-2": 120.0, "base": 110.0}
    assert row["run_to_run_spread_pct"] == pytest.approx(20 / 110 * 100)
    assert (row["tolerance_pct"], row["tolerance_source"]) == (pytest.approx(18.18, abs=0.01), "run-to-run spread")
    assert row["verdict"] == "SAME"
    # A tolerance given replaces the rule: -13.6 % is then a regression.
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None), tolerance_pct=5)
    assert by_figure(result)[IOPS]["verdict"] == "REGRESSION"
    conn.close()


def test_a_small_run_to_run_spread_keeps_the_five_percent_floor(index):
    conn = index([("old", {"S1": {IOPS: 101.0}}, {}), ("base", {"S1": {IOPS: 100.0}}, {}),
                  ("cand", {"S1": {IOPS: 96.0}}, {})])
    row = by_figure(_compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None)))[IOPS]
    assert row["run_to_run_spread_pct"] == pytest.approx(1 / 100.5 * 100)
    assert (row["tolerance_pct"], row["tolerance_source"], row["verdict"]) == (5.0, "minimum", "SAME")
    conn.close()


def test_missing_figures_are_not_compared(index):
    conn = index([("base", {"S1": {IOPS: 100.0, LAT: 1.0}}, {}), ("cand", {"S1": {IOPS: 100.0, TP_READ: 3000.0}}, {})])
    rows = by_figure(_compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None)))
    assert (rows[LAT]["verdict"], rows[LAT]["reason"]) == ("NOT COMPARED", "no candidate value")
    assert (rows[TP_READ]["verdict"], rows[TP_READ]["reason"]) == ("NOT COMPARED", "no baseline value")
    assert rows[IOPS]["verdict"] == "SAME"
    conn.close()


def test_firmware_mode_pools_every_run_and_gives_each_drives_history(index):
    conn = index([
        ("a1", {"S1": {IOPS: 1000.0}, "S2": {IOPS: 1040.0}}, {}),
        ("a2", {"S1": {IOPS: 1020.0}, "S3": {IOPS: 980.0}}, {}),
        ("b1", {"S1": {IOPS: 700.0}, "S2": {IOPS: 760.0}}, {"firmware": "2.0"}),
        ("x1", {"Z9": {IOPS: 5.0}}, {"model": "OTHER"}),
    ])
    selection = _compare.select(conn, None, None, "ACME X1", "1.0", "2.0")
    assert selection["baseline_runs"] == ["a1", "a2"] and selection["candidate_runs"] == ["b1"]
    result = _compare.build(conn, selection)
    row = by_figure(result)[IOPS]
    # Baseline drives: S1 median(1000, 1020) = 1010, S2 1040, S3 980 -> 1010; candidate 700, 760 -> 730.
    assert (row["baseline"]["n"], row["baseline"]["median"], row["candidate"]["median"]) == (3, 1010.0, 730.0)
    assert row["run_to_run_runs"] == {"a1": 1020.0, "a2": 1000.0}
    assert row["verdict"] == "REGRESSION"
    history = {h["serial"]: h for h in result["history"]}
    assert sorted(history) == ["S1", "S2"]  # S3 is in one run only
    assert [e["run"] for e in history["S1"]["runs"]] == ["a1", "a2", "b1"]
    assert [e["firmware"] for e in history["S1"]["runs"]] == ["1.0", "1.0", "2.0"]
    assert history["S1"]["trend"][IOPS]["delta_pct"] == pytest.approx(-30.0)
    assert history["S1"]["trend"][IOPS]["verdict"] == "REGRESSION"
    conn.close()


def test_models_only_on_one_side_are_named_not_compared(index):
    conn = index([("base", {"S1": {IOPS: 1.0}}, {}), ("cand", {"S2": {IOPS: 1.0}}, {"model": "OTHER"})])
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None))
    assert result["groups"] == [] and result["not_compared_models"] == {"baseline": ["ACME X1"],
                                                                        "candidate": ["OTHER"]}
    conn.close()


@pytest.mark.parametrize("args, message", [
    ((["nope"], ["cand"], None, None, None), "pts_compare_baseline_run=['nope']: run 'nope' is not indexed"),
    ((["base"], ["nope"], None, None, None), "pts_compare_candidate_run=['nope']: run 'nope' is not indexed"),
    ((["base"], None, None, None, None), "pts_compare_candidate_run=None: give a run id"),
    ((["base"], ["base"], None, None, None), "share run base"),
    ((["base"], ["cand"], "NOPE", None, None), "pts_compare_model='NOPE': no drive of that model"),
    ((None, None, None, None, None), "nothing to compare"),
    ((["base"], ["cand"], "ACME X1", "1.0", "2.0"), "not both"),
    ((None, None, None, "1.0", "2.0"), "pts_compare_model=None: a firmware comparison needs the drive model"),
    ((None, None, "NOPE", "1.0", "2.0"), "pts_compare_model='NOPE': no indexed run has a drive of that model"),
    ((None, None, "ACME X1", "1.0", "9.9"),
     "pts_compare_candidate_firmware='9.9': no indexed run has a 'ACME X1' drive with that firmware (indexed for "
     "'ACME X1': '1.0', '2.0')"),
    ((None, None, "ACME X1", None, "2.0"), "pts_compare_baseline_firmware=None: a firmware comparison needs both"),
    ((None, None, "ACME X1", "1.0", "1.0"), "are the same version"),
])
def test_a_selection_that_finds_nothing_names_the_variable(index, args, message):
    conn = index([("base", {"S1": {IOPS: 1.0}}, {}), ("cand", {"S1": {IOPS: 1.0}}, {"firmware": "2.0"})])
    with pytest.raises(_compare.CompareError) as caught:
        _compare.select(conn, *args)
    conn.close()
    assert message in str(caught.value)


def test_settings_that_differ_are_named():
    base = [{"settings": {"pts_run_rate_iops": 0, "pts_run_window": 5}}]
    cand = [{"settings": {"pts_run_rate_iops": 200, "pts_run_window": 5}}]
    assert _compare.settings_differences(base, cand) == [
        {"setting": "pts_run_rate_iops", "baseline": ["0"], "candidate": ["200"]}]


@pytest.mark.parametrize("base_tests, base_settings, shown", [
    pytest.param(["iops"], {}, "(not run: HIR)", id="side-did-not-run-the-test"),
    pytest.param(["iops", "hir"], {}, "(not recorded)", id="ran-it-but-the-plan-lacks-the-setting"),
    pytest.param(None, {}, "(not recorded)", id="tests-not-known"),
])
def test_a_tests_own_setting_on_a_side_that_did_not_run_it_is_said_so(base_tests, base_settings, shown):
    base = [{"settings": dict(base_settings, pts_run_window=5), "tests": base_tests}]
    cand = [{"settings": {"pts_run_window": 5, "pts_run_hir_repetitions": 360}, "tests": ["iops", "hir"]}]
    assert _compare.settings_differences(base, cand) == [
        {"setting": "pts_run_hir_repetitions", "baseline": [shown], "candidate": ["360"]}]


def test_a_figure_the_tests_ran_without_giving_is_not_called_not_run(tmp_path):
    root = str(tmp_path / "results")
    for number, run in enumerate(("base", "cand"), 1):
        make_run(root, run, [{"drive": "d1", "serial": "S1", "figures": {IOPS: 1000.0},
                              "no_value": ("latency_4k_write_p9999_ms",)}], when=day(number))
    _index.rebuild(root)
    conn = SqliteStore(os.path.join(root, "pts-history.sqlite"), readonly=True)
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None))
    conn.close()
    (group,) = result["groups"]
    assert group["no_value"] == ["latency_4k_write_p9999_ms"]
    assert "latency_4k_write_p9999_ms" not in group["not_measured"] and TP_READ in group["not_measured"]
    text = _compare_report.render_markdown(result, {}, False)
    assert "No value on either side although the test ran" in text and "4k random write p99.99 latency" in text
