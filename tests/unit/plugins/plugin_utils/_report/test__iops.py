# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The IOPS test with several tracking variables (PTS 2.0.2: all of them steady in the same round)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _iops, _plots

from conftest import SETTINGS, scaled_round, write_drive, write_wipc

PNG = b"\x89PNG\r\n\x1a\n"
# Three DVs of the fixture's matrix (64k and 4k x 100/65/0): 4k 0/100 first, as PTS 2.0.2 lists it.
DVS = [{"mix": 0, "bs": 4096, "metric": "iops", "name": "4k 0/100 iops"},
       {"mix": 65, "bs": 65536, "metric": "iops", "name": "64k 65/35 iops"},
       {"mix": 100, "bs": 65536, "metric": "iops", "name": "64k 100/0 iops"}]
SETTINGS_20 = dict(SETTINGS["iops"], spec="2.0", numjobs=4, iodepth=32, dvs=DVS)
FLAT = [1.0] * 8
# 4k 0/100 steady from round 5, 64k 65/35 at 5, not at 6 (its best fit rises 11.7 % across the window) and again at
# 7, 64k 100/0 from round 7: all three together at round 7 only.
STEADY = {(0, 4096): [1.0] * 8,
          (65, 65536): [1.0, 1.0, 1.0, 1.0, 1.0, 1.15, 1.0, 1.0],
          (100, 65536): [2.0, 1.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]}


def _write(tmp_path, factors: dict, settings: dict, rounds: int) -> str:
    """A drive with an IOPS test: purge, WIPC and ``rounds`` rounds, each (mix, bs) run scaled by its own factor."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    context = {"drive": "d1", "test": "iops", "settings": settings}
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    write_wipc(run_dir, "h1", "d1", "iops")
    for number in range(1, rounds + 1):
        fio = scaled_round("fio-3.33-iops-round.json", 1.0)
        for job in fio["jobs"]:
            factor = (factors.get((job["mix"], job["bs"])) or FLAT)[number - 1]
            for block in (job["read"], job["write"], job["total"]):
                block["iops"] *= factor
        fio["job_text"] = f"# round {number}\n"
        _results.file_payload(run_dir, "h1",
                              {"pts_fio": fio, "pts_context": dict(context, phase="round", round=number)})
    return drive_dir


def _markdown(written: dict) -> str:
    with open(written["report"], encoding="utf-8") as handle:
        return handle.read()


def test_the_test_stops_when_every_dv_is_steady_in_the_same_round(tmp_path):
    written = _drive_report.write_drive_report(_write(tmp_path, STEADY, SETTINGS_20, 7))
    result = written["model"]["tests"]["iops"]
    assert [dv["name"] for dv in result["dvs"]] == ["4k 0/100 iops", "64k 65/35 iops", "64k 100/0 iops"]
    # result["dv"] stays the first DV: the headline and the verdicts read it
    assert result["dv"] == result["dvs"][0] and result["dv"]["bs"] == "4k" and result["dv"]["mix"] == 0
    assert [dv["steady_round"] for dv in result["dvs"]] == [5, 5, 7]
    assert [dv["steady"] for dv in result["dvs"]] == [True, True, True]
    assert result["status"] == "steady" and result["steady_round"] == 7
    assert result["steady_text"] == ("steady at round 7 (all 3 DVs: 4k 0/100 IOPS, 64k 65/35 IOPS and "
                                     "64k 100/0 IOPS)")
    assert result["spec"] == "2.0"
    base = _fio.find_job(scaled_round("fio-3.33-iops-round.json", 1.0)["jobs"], 65, 65536)["total"]["iops"]
    assert result["dvs"][1]["values"] == pytest.approx([base * f for f in STEADY[(65, 65536)][:7]])
    # every DV's mix has its convergence series (the first one's also under the old key)
    assert set(result["convergence_by_mix"]) == {"0", "65", "100"}
    assert result["convergence"] == result["convergence_by_mix"]["0"]
    assert result["convergence_by_mix"]["65"]["64k"] == pytest.approx(result["dvs"][1]["values"])

    markdown = _markdown(written)
    section = markdown[markdown.index("## 4 IOPS"):markdown.index("## 5 ")]
    assert "While not all 3 DVs steady and round < max rounds" in section
    assert "4 threads × queue depth 32 = OIO 128" in section
    assert ("IOPS of 4k random write (0/100), 64k random mixed (65/35) and 64k random read (100/0)" in section)
    assert "**Steady state reached at round 7.**" in section
    assert "64k 65/35 steady from round 5" in section
    for index, words in enumerate(("4k random write (0/100)", "64k random mixed (65/35)", "64k random read (100/0)"), 1):
        assert f"Steady State Validation Table, DV {index} of 3: {words} IOPS" in section
    assert section.count("| Steady state reached at |") == 3
    assert "| 64k 65/35 IOPS | Data exc. % | Slope exc. % | 64k 100/0 IOPS |" in section
    assert "| Steady (all DVs) |" in section and "Steady (read and write)" not in section
    assert "| 7 |" in section and section.count("**yes**") == 1  # round 7 only: 64k 65/35 left steady state at 6

    plots = written["plots"]["iops"]
    assert set(plots) == {"convergence", "verification", "convergence-64k-65", "verification-64k-65",
                          "convergence-64k-100", "verification-64k-100", "measurement", "heatmap"}
    for key, path in plots.items():
        with open(os.path.join(os.path.dirname(written["report"]), path), "rb") as handle:
            assert handle.read(8) == PNG, key
        assert f"]({path})" in section


def test_a_dv_that_never_settles_fails_the_test_and_is_named(tmp_path):
    factors = {**STEADY, (100, 65536): [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2]}
    result = _drive_report.write_drive_report(_write(tmp_path, factors, SETTINGS_20, 8))["model"]["tests"]["iops"]
    assert result["status"] == "not steady" and result["steady_round"] is None and not result["steady"]
    assert result["not_steady_text"] == ("not reached by 64k 100/0 IOPS in 8 rounds (limit 8; all 3 DVs must be "
                                         "steady)")
    assert result["steady_text"] is None


def test_results_of_a_one_dv_run_keep_their_report(tmp_path):
    """Round files with settings "dv" alone (PTS-E 1.1, results recorded before "dvs"): one DV, the old layout."""
    written = _drive_report.write_drive_report(_write(tmp_path, STEADY, SETTINGS["iops"], 7))
    result = written["model"]["tests"]["iops"]
    assert result["dvs"] == [result["dv"]] and result["spec"] == "1.1"
    assert result["steady_round"] == result["dv"]["steady_round"] == 5
    assert result["steady_text"] == "steady at round 5"
    markdown = _markdown(written)
    section = markdown[markdown.index("## 4 IOPS"):markdown.index("## 5 ")]
    assert "Dependent variable: IOPS of 4k random write (0/100), found by mix and block size in each round." in section
    assert "While not steady state and round < max rounds" in section
    assert "Validation Table, DV" not in section and "| Steady |" in section
    assert set(written["plots"]["iops"]) == {"convergence", "verification", "measurement", "heatmap"}


def test_plot_keys_keep_the_first_dvs_names():
    assert _iops.plot_keys({"bs": "4k", "mix": 0}, 0) == {
        "convergence": "iops-convergence.png", "verification": "iops-verification.png"}
    assert _iops.plot_keys({"bs": "1024k", "mix": 100}, 2) == {
        "convergence-1024k-100": "iops-convergence-1024k-100.png",
        "verification-1024k-100": "iops-verification-1024k-100.png"}


def test_three_dvs_over_many_rounds_plot_quickly(tmp_path):
    """A long IOPS run (an operator who lets it go on past 25 rounds): thin plots, sampled round table."""
    rounds = 200
    values = [1000.0 + (n % 5) for n in range(rounds)]
    verdict = {"steady": True, "rounds": [196, 197, 198, 199, 200], "values": values[-5:], "window": 5,
               "average": 1002.0, "data_excursion": 4.0, "data_excursion_pct": 0.4, "slope": 0.1, "intercept": 980.0,
               "slope_excursion": 0.4, "slope_excursion_pct": 0.04, "max_data_excursion_pct": 20.0,
               "max_slope_excursion_pct": 10.0, "reason": "both excursions within limits"}
    dvs = [{"name": f"{bs} {mix}", "bs": bs, "mix": mix, "metric": "iops", "values": values, "window": verdict,
            "verdicts": [dict(verdict, round=n + 1) for n in range(rounds)], "steady": True, "steady_round": 5}
           for bs, mix in (("4k", 0), ("64k", 65), ("1024k", 100))]
    series = {bs: values for bs in ("1024k", "64k", "4k")}
    result = {"dv": dvs[0], "dvs": dvs, "window_rounds": list(range(196, 201)), "block_sizes": ["4k", "64k", "1024k"],
              "mixes": [100, 65, 0], "convergence": series,
              "convergence_by_mix": {"0": series, "65": series, "100": series},
              "tables": {"iops": {bs: {"100": 1.0, "65": 2.0, "0": 3.0} for bs in ("4k", "64k", "1024k")}}}
    drawn = _iops.plots(result, str(tmp_path), "d1", "test")
    assert len(drawn) == 8
    for path in drawn.values():
        with open(path, "rb") as handle:
            assert handle.read(8) == PNG


def test_convergence_plots_say_what_their_iops_are_carry_the_verdict_and_a_time_axis(make_run, monkeypatch):
    seen = {}
    finish = _plots.finish_figure

    def keep(fig, path, subtitle):
        seen[os.path.basename(path)] = [(ax.get_ylabel(), ax.get_title("right"),
                                         [child.get_xlabel() for child in ax.child_axes]) for ax in fig.axes]
        return finish(fig, path, subtitle)

    monkeypatch.setattr(_plots, "finish_figure", keep)
    written = _drive_report.write_drive_report(make_run([1.6, 1.3, 1.02, 0.98, 1.0, 1.01, 0.99]))
    (ylabel, stamp, top), = seen["iops-convergence.png"]
    assert ylabel.startswith("IOPS (write)") and "read + write" not in ylabel  # the DV's mix is 0/100
    assert stamp == "DV STEADY from round 7"
    assert top == ["Time at the round's end since the first round started (s)"]
    assert seen["iops-measurement.png"][0][1].startswith("STEADY from round 7 (window rounds 3–7)")
    times = written["model"]["tests"]["iops"]["round_end_s"]  # from the round files' recorded_at
    assert len(times) == 7 and times == sorted(times) and times[-1] > times[0]
