# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CBW and DIRTH reports: from a real quick run's round files (fixtures/intensity, filed by the run on a 64 MiB
loop device, TC [2, 1] x QD [4, 1]) and from a synthetic run at the standard scale (7 x 7 grid, 25 loop rounds)."""

from __future__ import annotations

import copy
import json
import math
import os
import random
import shutil

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity as _intensity_test
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _intensity, _intensity_md, _intensity_plots, _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from conftest import figure_with

RUN = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "intensity", "fio-3.33-quick-loop-device"))
PLOTS = {"pc_convergence", "pc_verification", "loop_prewrite", "loop_convergence", "loop_verification",
         "demand_variation", "demand_intensity", "outstanding", "cpu", "point_prewrites", "histograms"}


def _copy(tmp_path, name: str) -> str:
    path = str(tmp_path / name)
    shutil.copytree(os.path.join(RUN, name), path)
    return path


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


def test_the_cbw_section_states_the_choices_and_shows_every_table():
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    lines = _intensity_md.section(result, {"histograms": "plots/cbw-histograms.png"}, 7, 64 * 2 ** 20)
    text = "\n".join(lines)
    assert lines[0] == "## 7 Composite Block Size Workload"
    for heading in ("### 7.1 Preconditioning", "### 7.2 TC × QD loop", "### 7.3 Demand variation and demand intensity",
                    "### 7.4 Operating points", "### 7.5 Purge, preconditioning and files"):
        assert heading in lines
    assert "| Block size | 512 | 1k | 1536 | 2k | 2560 | 3k | 3584 | 4k | 8k | 16k | 32k | 64k |" in lines
    assert "TC2/QD4 (PTS: TC32/QD32)" in text and "The 5 ms ceiling is ADATA's" in text
    assert "the first minute of 30-minute rounds" in text
    assert "| **MaxIOPS** | TC2/QD4 | 8 | 33,922.2 | 0.233 | most IOPS with ART below 5 ms |" in lines
    assert "| **MaxIOPS** TC2/QD4 | read | 14,136 | 14,121.9 | 0.183 | 0.453 | 2.408 | n/r | n/r | 4.187 |" in lines
    assert "|  | *all IOs* | 35,229 | 35,193.8 | 0.221 | 0.709 | 3.457 | n/r | n/r | 4.773 |" in lines
    assert "n/r: not resolved - a percentile needs 10 / (1 − p) IOs" in text
    assert "| **2** | 33,922 | 15,304 |" in lines
    assert "the choice is the one the run made" in text
    assert "![Response-time histograms](plots/cbw-histograms.png)" in lines
    assert ("so no number is given: MaxIOPS read (14,136 IOs): 99.99 %, 99.999 %; MaxIOPS write (21,093 IOs): "
            "99.99 %, 99.999 %; MaxIOPS all IOs (35,229 IOs): 99.99 %, 99.999 %; MidIOPS read (8,741 IOs): 99.9 %, "
            "99.99 %, 99.999 %;") in text
    assert "| Preconditioning | 2 rounds, steady at round 2 | — |" in lines
    assert "[02](cbw/points/round-02.fio)" in text


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


@pytest.mark.parametrize("name, extra", [("cbw", set()), ("dirth", {"confidence"})])
def test_every_plot_of_a_real_run_is_drawn(tmp_path, name, extra):
    result = _intensity.build(_results.load_test(os.path.join(RUN, name)))
    drawn = _intensity_plots.plots(result, str(tmp_path), "d1 (loop device)", "quick profile")
    assert set(drawn) == PLOTS | extra
    for key, path in drawn.items():
        assert os.path.basename(path).startswith(f"{name}-") and os.path.getsize(path) > 5000, key


def test_a_loop_round_the_drive_throttled_in_is_shaded_on_the_loop_plots_only(tmp_path, monkeypatch):
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    seen = {}

    def convergence(path, *args, **kwargs):
        seen[os.path.basename(path)] = kwargs.get("marks")
        return path
    monkeypatch.setattr(_charts, "convergence", convergence)
    with _plots.round_marks([{"round": 2, "kind": "throttled", "series": "loop"}]):
        _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    assert seen == {"cbw-pc-convergence.png": [],
                    "cbw-loop-prewrite.png": [{"round": 2, "kind": "throttled", "series": None}],
                    "cbw-loop-convergence.png": [{"round": 2, "kind": "throttled", "series": None}]}


def test_round_files_without_the_tests_parameters_are_an_error(tmp_path):
    path = _copy(tmp_path, "cbw")
    for segment, number in (("precondition", 2), ("loop", 2), ("points", 3)):
        _edit(os.path.join(path, segment, f"round-0{number}.json"),
              lambda record: record["settings"]["parameters"].pop("queue_depths"))
    with pytest.raises(ValueError, match="settings.parameters lack queue_depths"):
        _intensity.build(_results.load_test(path))


# A synthetic run at the standard scale --------------------------------------------------------------------------------

GRID = [32, 16, 8, 6, 4, 2, 1]


def _plat_val(index: int) -> int:
    """fio's representative latency of bucket ``index`` (stat.c plat_idx_to_val, FIO_IO_U_PLAT_BITS 6)."""
    if index < 128:
        return index
    error_bits = (index >> 6) - 1
    return int((1 << (error_bits + 6)) + (index % 64 + 0.5) * (1 << error_bits))


def _lognormal_bins(count: int, median_ns: float, sigma: float = 0.6) -> list[list[int]]:
    """``count`` IOs over fio's buckets, log-normally around ``median_ns``, and a thin tail of slow IOs."""
    def cdf(ns):
        return 0.5 * (1 + math.erf((math.log(max(ns, 1)) - math.log(median_ns)) / (sigma * math.sqrt(2))))
    bins = []
    for index in range(128, 1856):
        error_bits = (index >> 6) - 1
        low = (1 << (error_bits + 6)) + (index % 64) * (1 << error_bits)
        ios = int(count * (cdf(low + (1 << error_bits)) - cdf(low)))
        if ios:
            bins.append([_plat_val(index), ios])
    bins += [[_plat_val(1600 + 7 * i), 3 - i % 3] for i in range(12)]
    return bins


def _direction(iops: float, art_ns: float, seconds: float, bins: list | None = None) -> dict:
    ios = int(iops * seconds)
    if not ios:
        return {"iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0, "runtime_ms": 0,
                "lat_ns": {"min": None, "max": None, "mean": None, "percentiles": {}}}
    data = {"iops": iops, "bw_bytes": iops * 8192, "io_bytes": ios * 8192, "total_ios": ios,
            "runtime_ms": int(seconds * 1000), "lat_ns": {"min": art_ns / 4, "max": art_ns * 40, "mean": art_ns,
                                                          "percentiles": {}}}
    if bins:
        data["total_ios"] = _histogram.total(bins)
        data["lat_ns"].update(mean=_histogram.mean(bins), max=float(bins[-1][0]),
                              percentiles={k: float(v) for k, v in _histogram.percentiles(bins).items()})
        data["histogram"] = {"source": "lat_ns", "bins": bins}
    return data


def _job(name: str, mix: int, tc: int, qd: int, iops: float, art_ms: float, seconds: float,
         histogram: bool = False) -> dict:
    reads, writes = iops * mix / 100, iops * (100 - mix) / 100
    read = _direction(reads, art_ms * 0.8e6, seconds,
                      _lognormal_bins(int(reads * seconds), art_ms * 0.7e6) if histogram and reads else None)
    write = _direction(writes, art_ms * 1.2e6, seconds,
                       _lognormal_bins(int(writes * seconds), art_ms * 1.0e6) if histogram and writes else None)
    ios = read["total_ios"] + write["total_ios"]
    mean = sum(d["lat_ns"]["mean"] * d["total_ios"] for d in (read, write) if d["total_ios"]) / ios
    return {"name": name, "rw": "randrw" if 0 < mix < 100 else "randwrite", "mix": mix, "bs": 8192, "numjobs": tc,
            "iodepth": qd, "runtime_ms": int(seconds * 1000), "options": {}, "read": read, "write": write,
            "total": {"iops": reads + writes, "bw_bytes": iops * 8192, "io_bytes": ios * 8192, "total_ios": ios,
                      "lat_ns": {"mean": mean, "max": max(d["lat_ns"]["max"] or 0 for d in (read, write)),
                                 "min": min(d["lat_ns"]["min"] or math.inf for d in (read, write))}},
            "cpu": {"usr_pct": 2.0 + tc * qd / 40, "sys_pct": 5.0 + tc}}


def _model(tc: int, qd: int, noise: float) -> tuple[float, float]:
    """A drive that saturates at 400k IOPS: its IOPS and (Little's law) its mean response time in ms."""
    oio = tc * qd
    iops = 400_000 * (1 - math.exp(-oio / 150)) * noise
    return iops, oio / iops * 1000 + 0.02


def synthetic(rounds: int = 25, steady: bool = False, tcs=tuple(GRID), qds=tuple(GRID), samples: int = 60) -> dict:
    """A DIRTH test as load_test returns it: 6 preconditioning rounds (steady at the 6th), ``rounds`` loop rounds over
    the grid (the tracking point flat from round 4 when ``steady``, else swinging by 30 % from round to round), three
    operating points (chosen as pts_round does) with 60 pre-write samples and a measurement with histograms."""
    rng = random.Random(7)
    params = {"thread_counts": list(tcs), "queue_depths": list(qds), "mix": 65, "max_art_ms": 5.0, "bssplit": None,
              "bssplit_sizes": [8192], "distribution": None, "precondition_seconds": 1800, "prewrite_seconds": 300,
              "point_seconds": 60, "point_prewrite_seconds": 60 * samples, "sample_seconds": 60,
              "point_measure_seconds": 600}
    settings = {"profile": "standard", "window": 5, "max_rounds": 25, "max_data_excursion_pct": 20.0,
                "max_slope_excursion_pct": 10.0, "numjobs": tcs[0], "iodepth": qds[0], "block_sizes": [8192],
                "mixes": [65, 0], "parameters": params, "wipc": {"block_size": "128k", "capacity_multiple": 2}}

    def record(number, jobs, row=None):
        return {"round": number, "row": row, "settings": settings, "recorded_at": f"2026-01-01T{number % 24:02d}:00:00",
                "fio": {"jobs": jobs, "elapsed_s": 60.0, "fio_version": "fio-3.33"}}

    pc = [record(n, [_job("dirth-pc", 0, tcs[0], qds[0], 150_000 * (2 if n == 1 else 1 + 0.01 * (n % 2)), 1.0, 1800)])
          for n in range(1, 7)]
    loop = []
    for number in range(1, rounds + 1):
        settle = 1 + 0.6 / number
        jobs = [_job("dirth-prewrite", 0, tcs[0], qds[0], 160_000 * settle, 6.0, 300)]
        for tc in tcs:
            for qd in qds:
                iops, art = _model(tc, qd, settle * (1 + rng.uniform(-0.02, 0.02)))
                if (tc, qd) == (tcs[0], qds[0]):
                    iops = 300_000.0 if steady and number > 3 else iops * (1.3 if number % 2 else 1.0)
                jobs.append(_job(_intensity_test.grid_name("dirth", tc, qd), 65, tc, qd, iops, art, 60))
        loop.append(record(number, jobs))
    test = dict(params, name="dirth", block_sizes=[8192])
    points = _intensity_test.operating_points(_intensity_test.window_grid([r["fio"]["jobs"] for r in loop[-5:]], test), test)
    points["window_rounds"] = list(range(rounds - 4, rounds + 1))
    rows = []
    for number, point in enumerate(_intensity_test.POINTS, 1):
        at = points[point]
        row = {"point": point, "tc": at["tc"], "qd": at["qd"], "chosen": points, "label": f"{point} operating point"}
        jobs = [_job(f"dirth-{point}-pre-{i:03d}", 0, at["tc"], at["qd"], at["iops"] * (0.8 + 0.2 * i / samples),
                     at["art_ms"], 60) for i in range(1, samples + 1)]
        jobs.append(_job(f"dirth-{point}-measure", 65, at["tc"], at["qd"], at["iops"], at["art_ms"], 600,
                         histogram=True))
        rows.append(record(number, jobs, row))
    segments = {name: {"rounds": found, "purge": None, "wipc": None, "steady_state": None, "failure": None}
                for name, found in (("precondition", pc), ("loop", loop), ("points", rows))}
    return {"name": "dirth", "dir": "/nonexistent/dirth", "segments": segments, "failure": None, "superseded": [],
            "purge": {"method": "format", "elapsed_s": 3.0, "recorded_at": "2026-01-01T00:00:00"}, "wipc": None}


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


def test_the_standard_scale_plots_are_all_drawn(tmp_path):
    result = _intensity.build(synthetic())
    drawn = _intensity_plots.plots(copy.deepcopy(result), str(tmp_path), "d1 (SAMSUNG MZQL23T8HCLS-00A07)", "run r1")
    assert set(drawn) == PLOTS | {"confidence"}


def test_the_histograms_of_a_figure_share_one_bin_width(tmp_path, monkeypatch):
    widths = []
    finish = _plots.finish_figure

    def keep(fig, path, subtitle):
        if path.endswith("histograms.png"):
            widths.extend(text.get_text() for ax in fig.axes for text in ax.get_legend().get_texts()
                          if text.get_text().startswith("IOs per "))
        return finish(fig, path, subtitle)

    monkeypatch.setattr(_plots, "finish_figure", keep)
    monkeypatch.setattr(_intensity_plots, "finish_figure", keep)
    for name in ("cbw", "dirth"):
        result = _intensity.build(_results.load_test(_copy(tmp_path, name)))
        before = len(widths)
        _intensity_plots.plots(result, str(tmp_path / f"plots-{name}"), name, "")
        assert len(widths) - before == 3 and len(set(widths[before:])) == 1, widths[before:]


@pytest.mark.parametrize("name", ["cbw", "dirth"])
@pytest.mark.parametrize("steady", [True, False])
def test_the_grid_plots_carry_the_loop_windows_state(tmp_path, figures, name, steady):
    """Demand Variation, Demand Intensity, IOPS/ART vs OIO and CPU use average the TC x QD loop's window: a window
    that was not steady says so on each of them."""
    result = _intensity.build(_results.load_test(os.path.join(RUN, name)))
    result["loop"]["steady"] = steady
    result["loop"]["steady_round"] = 3 if steady else None
    _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    rounds = result["loop"]["window_rounds"]
    expected = f"{'STEADY' if steady else 'NOT STEADY'} (loop window rounds {rounds[0]}–{rounds[-1]})"
    for title in ("Demand Variation", "Demand Intensity", "IOPS and response time vs outstanding IOs",
                  "fio CPU use"):
        assert expected in figure_with(figures, f"{name.upper()} {title}")["texts"], title


def test_the_demand_intensity_ring_names_the_loop_figure_and_the_measured_one(tmp_path, figures):
    """The ring stands at the loop's window average; the summary's MaxIOPS is the point measured after its pre-write.
    Both are given, so the two numbers are not read as one."""
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    texts = figure_with(figures, "CBW Demand Intensity")["texts"]
    point = next(p for p in result["points"] if p["point"] == "max")
    cell = _intensity.grid_cells(result)[(point["tc"], point["qd"])]
    label = next(t for t in texts if t.startswith("MaxIOPS"))
    assert f"{cell['iops']:,.0f} in the loop" in label
    assert f"{point['measure']['iops']:,.0f} measured after its pre-write" in label
    assert result["headline"]["max_measured_iops"] == point["measure"]["iops"]
    section = "\n".join(_intensity_md.section(result, {"demand_intensity": "plots/cbw-demand-intensity.png"}, 7, 1 << 28))
    assert "so it differs from the ring's IOPS" in section and "(7.4: a run of its own" in section


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
