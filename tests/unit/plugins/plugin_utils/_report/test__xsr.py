# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Cross stimulus recovery (PTS 2.0 XSR) in the report: a real quick run (fixtures/xsr, three groups of six samples on
a loop device) and hand-made sample series whose settle and recovery times are known exactly."""

from __future__ import annotations

import json
import math
import os
import re

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _xsr, _xsr_md
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._xsr_runs import (
    START, make_test, realistic)

FIXTURE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "xsr"))


def test_the_real_quick_run_gives_every_sample_and_the_transitions_its_files_imply():
    result = _xsr.build(_results.load_test(FIXTURE))
    json.dumps(result)
    assert result["status"] == "complete" and result["rounds_run"] == 18 and result["time_base"] == "recorded"
    assert (result["steady"], result["steady_round"], result["steady_text"]) == (False, None, None)
    assert [g["access"] for g in result["groups"]] == ["SEQ 1024k write", "RND 8k write", "SEQ 1024k write"]
    assert [(g["samples"], g["planned"], g["final_samples"]) for g in result["groups"]] == [(6, 6, 1)] * 3
    first = result["samples"][0]
    assert first["round_file"] == "group1/round-01" and first["mb_s"] == pytest.approx(2306.448606)
    assert first["art_ms"] == pytest.approx(14.046942699637) and first["mrt_ms"] == pytest.approx(41.57131)
    # The first sample starts the clock (its recorded_at less fio's 0.85 s); times only grow.
    assert first["start_min"] == 0.0 and first["t_min"] == pytest.approx(0.85 / 60, abs=1e-6)
    times = [s["t_min"] for s in result["samples"]]
    assert times == sorted(times)
    group1 = result["groups"][0]
    assert group1["mean_mb_s"] == pytest.approx(2644.7038731666667)
    assert group1["peak_mrt_ms"] == pytest.approx(41.57131) and group1["final_mb_s"] == pytest.approx(2403.245191)
    # Group 3 reaches 95 % of group 1's mean (2,512.5 MB/s) in its second sample, never the mean itself.
    recovery = result["transitions"]["recovery"]
    assert recovery["sample"] == 2 and recovery["low_mb_s"] == pytest.approx(0.95 * 2644.7038731666667)
    assert result["transitions"]["recovery_at_mean"]["reason"] == "not recovered within group 3"
    # Group 2's final level is its last sample (391.7): only that sample is in its band, by construction - not a
    # settle point.
    settle = result["transitions"]["settle"]
    assert settle["sample"] is None and settle["reason"].startswith("not resolved: group 2 stays in the band only")
    assert result["headline"] == {"recovery_min": recovery["minutes"],
                                  "settle_min": result["transitions"]["settle"]["minutes"],
                                  "group_means_mb_s": [g["mean_mb_s"] for g in result["groups"]]}
    lines = _xsr_md.section(result, {"throughput": "plots/xsr-throughput.png", "panels": "plots/xsr-panels.png"}, 8,
                            67108864)
    text = "\n".join(lines)
    assert lines[0] == "## 8 Cross Stimulus Recovery"
    assert "| **1** SEQ 1024k write | 6 of 6 | 0.13 | 2,644.7 | 2,403.2 (1) | 2,522 | 12.377 | 14.047 | 41.571 |" \
        in lines
    assert "[1](xsr/group1/round-01.json)" in text and "[6](xsr/group3/round-06.json)" in text
    assert "| **Recovery**, group 2 → 3 | ≥ 2,512.5 MB/s | [sample 2](xsr/group3/round-02.json) |" in text
    assert "![XSR Throughput Plot](plots/xsr-throughput.png)" in text
    assert ("| Recovery, group 2 → 3, as ADATA counts it (tolerance 0) | ≥ 2,644.7 MB/s "
            "| not recovered within group 3 |") in text


@pytest.mark.parametrize("group2, settle", [
    # Final level = the last sample (10 % of 10, rounded up): 400; the band 380-420 is inclusive.
    ([1000, 800, 600, 420, 390, 410, 400, 400, 400, 400], 4),
    # A sample that leaves the band starts the count again.
    ([500, 400, 400, 450, 400, 400, 400, 400, 400, 400], 5),
    # Settled from the first sample.
    ([400] * 10, 1),
    # The last sample is the final level, so it is always in the band: settling there is no finding (not resolved).
    ([400, 300, 500, 300, 500, 300, 500, 300, 500, 300], None),
])
def test_settle_is_the_first_sample_from_which_every_later_one_stays_in_the_band(group2, settle):
    result = _xsr.build(make_test({"group1": [1000] * 10, "group2": group2, "group3": [1000] * 10}))
    transition = result["transitions"]["settle"]
    assert transition["sample"] == settle
    if settle is None:
        assert transition["reason"].startswith("not resolved") and result["headline"]["settle_min"] is None
        return
    # Samples of 60 s back to back: the nth sample ends n minutes after the group started.
    assert transition["minutes"] == pytest.approx(settle) and result["headline"]["settle_min"] == pytest.approx(settle)
    assert transition["at_min"] == pytest.approx(10 + settle) and transition["stimulus_min"] == pytest.approx(settle)
    assert (transition["low_mb_s"], transition["high_mb_s"]) == (pytest.approx(0.95 * group2[-1]),
                                                                 pytest.approx(1.05 * group2[-1]))


@pytest.mark.parametrize("group3, tolerance, recovered, at_mean", [
    ([500, 800, 940, 960, 1000, 1000], 5, 4, 5),
    ([950, 1000, 1000, 1000, 1000, 1000], 5, 1, 2),
    # Never reaches the mean less 5 %.
    ([500, 800, 900, 940, 940, 940], 5, None, None),
    # ADATA's definition: the group-1 mean itself.
    ([500, 800, 940, 960, 999.9, 1000], 0, 6, 6),
    ([500, 800, 940, 960, 999.9, 999.9], 0, None, None),
])
def test_recovery_is_the_first_group3_sample_that_reaches_the_group1_mean_less_the_tolerance(group3, tolerance,
                                                                                             recovered, at_mean):
    group1 = [900, 1100, 1000, 1000]  # mean 1,000
    result = _xsr.build(make_test({"group1": group1, "group2": [300] * 5, "group3": group3}, tolerance=tolerance))
    recovery = result["transitions"]["recovery"]
    assert recovery["reference_mb_s"] == pytest.approx(1000)
    assert recovery["low_mb_s"] == pytest.approx(1000 * (1 - tolerance / 100))
    assert recovery["sample"] == recovered and result["headline"]["recovery_min"] == (
        None if recovered is None else pytest.approx(recovered))
    if recovered is None:
        assert recovery["reason"] == "not recovered within group 3" and recovery["minutes"] is None
    else:
        assert recovery["at_min"] == pytest.approx(4 + 5 + recovered)
    if tolerance:
        assert result["transitions"]["recovery_at_mean"]["sample"] == at_mean
    else:
        # Tolerance 0 is ADATA's definition: one figure, said once.
        assert "recovery_at_mean" not in result["transitions"]
    text = "\n".join(_xsr_md.section(result, {}, 5, 0))
    assert (f"reaches the group-1 mean less {tolerance:g} %" if tolerance else "reaches the group-1 mean itself") \
        in text
    assert "counts the first minute that reaches the group-1 mean itself (tolerance 0)" in text
    if recovered is None:
        assert "| **Recovery**, group 2 → 3 |" in text and "| not recovered within group 3 | — |" in text


def test_settle_at_tolerance_zero_needs_the_final_level_itself():
    result = _xsr.build(make_test({"group1": [1000] * 4, "group2": [600, 401, 400, 400.0, 400], "group3": [1000] * 4},
                                  tolerance=0))
    assert result["transitions"]["settle"]["sample"] == 3
    noisy = _xsr.build(make_test({"group1": [1000] * 4, "group2": [600, 400, 401, 399, 400], "group3": [1000] * 4},
                                 tolerance=0))
    assert noisy["transitions"]["settle"]["sample"] is None


def test_minutes_are_real_time_with_the_controller_gaps_and_writing_time_without():
    result = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 3, "group3": [500, 960, 1000]},
                                  gap_s=3.0))
    recovery = result["transitions"]["recovery"]
    # Two samples of 60 s and the 3 s between them: 123 s after group 3's first sample started.
    assert recovery["sample"] == 2 and recovery["minutes"] == pytest.approx(2.05)
    assert recovery["stimulus_min"] == pytest.approx(2.0) and result["mean_gap_s"] == pytest.approx(3.0)
    assert result["groups"][2]["start_min"] == pytest.approx(6 + 6 * 3 / 60)
    assert result["groups"][0]["duration_min"] == pytest.approx(3.1)
    text = "\n".join(_xsr_md.section(result, {}, 5, 0))
    assert "between two samples the drive was idle for 3.00 s on average" in text


def test_without_recorded_times_samples_are_laid_end_to_end_by_fio_time():
    result = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 3, "group3": [500, 960, 1000]},
                                  gap_s=3.0, recorded=False))
    assert result["time_base"] == "fio" and result["mean_gap_s"] is None
    assert [s["t_min"] for s in result["samples"]] == pytest.approx(list(range(1, 10)))
    assert result["transitions"]["recovery"]["minutes"] == pytest.approx(2.0)
    assert "fio time: the round files carry no usable recorded_at" in "\n".join(_xsr_md.section(result, {}, 5, 0))


@pytest.mark.parametrize("samples, final", [(480, 48), (360, 36), (15, 2), (10, 1), (6, 1), (1, 1), (0, 0)])
def test_final_level_is_the_last_tenth_of_samples_rounded_up(samples, final):
    assert _xsr.final_count(samples) == final


def test_group_table_figures():
    latencies = {("group1", 2): (2.0, 5000.0), ("group2", 1): (0.5, 80.0), ("group2", 3): (0.9, 20.0)}
    group1 = [1000.0] * 9 + [500.0, 700.0]  # 11 samples: the last 2 make the final level
    result = _xsr.build(make_test({"group1": group1, "group2": [400, 300, 200], "group3": [1000] * 2},
                                  latencies=latencies))
    one, two, three = result["groups"]
    assert one["final_samples"] == 2 and one["final_mb_s"] == pytest.approx(600.0)
    assert one["mean_mb_s"] == pytest.approx((9000 + 1200) / 11) and one["peak_mrt_ms"] == pytest.approx(5000.0)
    assert one["duration_min"] == pytest.approx(11) and one["stimulus_min"] == pytest.approx(11)
    assert two["peak_art_ms"] == pytest.approx(0.9) and two["peak_mrt_ms"] == pytest.approx(80.0)
    assert two["mean_iops"] == pytest.approx(300e6 / 8192)
    assert (three["start_min"], three["end_min"]) == (pytest.approx(14), pytest.approx(16))
    assert result["headline"]["group_means_mb_s"] == [pytest.approx(one["mean_mb_s"]), pytest.approx(300.0),
                                                      pytest.approx(1000.0)]
    assert _xsr.planned_samples({"round_seconds": 60, "parameters": {"group_minutes": [480, 360, 480]}}) == \
        [480, 360, 480]


@pytest.mark.parametrize("series, minutes, failure, status", [
    ({"group1": [1000] * 3, "group2": [300] * 3, "group3": [1000] * 3}, None, None, "complete"),
    ({"group1": [1000] * 3, "group2": [300] * 3, "group3": [1000] * 2}, [3, 3, 3], None, "incomplete"),
    ({"group1": [1000] * 3, "group2": [300] * 1}, [3, 3, 3], None, "incomplete"),
    ({"group1": [1000] * 3, "group2": [300] * 3, "group3": [1000] * 2}, [3, 3, 3],
     {"phase": "round", "round": 3, "msg": "fio: io_u error"}, "failed"),
    ({}, [3, 3, 3], None, "no rounds"),
    ({"group1": []}, [3, 3, 3], {"phase": "round", "round": 1, "msg": "fio: io_u error"}, "failed"),
])
def test_status(series, minutes, failure, status):
    result = _xsr.build(make_test(series, minutes=minutes, failure=failure))
    json.dumps(result)
    assert result["status"] == status and result["steady"] is False and result["steady_text"] is None
    text = "\n".join(_xsr_md.section(result, {}, 6, 0))
    assert {"complete": "**Complete**", "incomplete": "**Incomplete**", "failed": "**Failed**",
            "no rounds": "**No sample finished**"}[status] in text


def test_unfinished_groups_are_not_judged_against_a_level_they_never_reached():
    short2 = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 2}, minutes=[3, 3, 3]))
    assert short2["transitions"]["settle"]["sample"] is None and not short2["transitions"]["settle"]["judged"]
    assert short2["transitions"]["settle"]["reason"] == "group 2 ran 2 of 3 samples: its final level is not known"
    assert short2["transitions"]["recovery"]["reason"] == "group 3 did not run"
    assert short2["headline"]["group_means_mb_s"][2] is None
    short3 = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 3, "group3": [500, 600]},
                                  minutes=[3, 3, 5]))
    assert short3["transitions"]["recovery"]["reason"] == "not recovered within the 2 of 5 group-3 samples run"
    # Reaching the level in the samples that ran counts, whatever came after.
    early = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 3, "group3": [500, 1000]},
                                 minutes=[3, 3, 5]))
    assert early["transitions"]["recovery"]["sample"] == 2


def test_a_round_without_its_fio_section_is_an_error_not_a_figure():
    test = make_test({"group1": [1000] * 2, "group2": [300] * 2, "group3": [1000] * 2})
    jobs = test["segments"]["group2"]["rounds"][1]["fio"]["jobs"]
    jobs.append(dict(jobs[0], name="something-else"))
    jobs[0] = dict(jobs[0], name="another")
    with pytest.raises(ValueError, match="group2 round 2 has no fio section xsr-group2-0002"):
        _xsr.build(test)


def test_a_full_run_builds_and_renders_with_a_sampled_table():
    series = realistic()
    result = _xsr.build(make_test(series, gap_s=1.0))
    lines = _xsr_md.section(result, {"throughput": "plots/xsr-throughput.png", "panels": "plots/xsr-panels.png"}, 4,
                            3840755982336)
    assert result["status"] == "complete" and result["rounds_run"] == 1320
    assert [g["final_samples"] for g in result["groups"]] == [48, 36, 48]
    sample_rows = [line for line in lines if re.match(r"^\| [\d,.]+ \| \[[\d,]+\]\(xsr/group", line)]
    # Per group its first and last ten samples and about ten between.
    assert 75 <= len(sample_rows) <= 90
    assert [line for line in lines if line.startswith("<details>")] == [
        "<details><summary>Group 1 (SEQ 1024k write): 480 samples</summary>",
        "<details><summary>Group 2 (RND 8k write): 360 samples</summary>",
        "<details><summary>Group 3 (SEQ 1024k write): 480 samples</summary>"]
    assert any("of 480 rows" in line for line in lines) and any("of 360 rows" in line for line in lines)
    # At most a handful of job files linked per group, not 480.
    assert "… (480 job files in `xsr/group1/`)" in "\n".join(lines)
    assert len("\n".join(lines)) < 40000
    # Recovery of 2,600 - 1,500 e^(-m/30) to 95 % of ~2,700: about an hour into group 3, never the mean itself.
    recovery = result["transitions"]["recovery"]
    assert 60 < recovery["minutes"] < 200 and result["transitions"]["recovery_at_mean"]["sample"] is None
    # Random writes with ±5 % noise never stay within ±5 % of their final level for long: no settle point before the
    # final level's own samples.
    assert result["transitions"]["settle"]["sample"] is None
    quiet = dict(series, group2=[300 + 900 * math.exp(-m / 20) for m in range(360)])
    settle = _xsr.build(make_test(quiet, gap_s=1.0))["transitions"]["settle"]
    assert settle["sample"] is not None and 50 < settle["minutes"] < 100


# A group run as one fio (fio 3.33 on a loop device: 1.5 s of 1 MiB sequential writes, json+ status dumps every 0.5 s,
# 100-ms interval logs; tests/unit/plugins/module_utils/fixtures): its round files are the status-dump samples, as
# pts_segment files them, and its logs lie beside them.
CAPTURED = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "module_utils", "fixtures", "fio-3.33-xsr-write-1m-qd4"))


def _captured_group(tmp_path, sample_s: float = 0.5) -> dict:
    from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _interval

    with open(CAPTURED + "-status.json", encoding="utf-8") as handle:
        found, dummy = _interval.documents(handle.read())
    sampler = _interval.Sampler()
    closed = [c for text in found for c in sampler.feed(_interval.counters(text))]
    settings = {"profile": "quick", "round_seconds": sample_s, "numjobs": 1, "iodepth": 4, "notes": [],
                "parameters": {"group_minutes": [0.025, 0.025, 0.025], "sequential_block_size": 1048576,
                               "random_block_size": 8192, "recovery_tolerance_pct": 5}}
    rounds = []
    for (number, before, after), text in zip(closed, found):
        job = _interval.window(before, after)
        parsed = _fio.parse(text)
        rounds.append({"round": number, "row": {"label": f"sample {number}", "sample": number}, "settings": settings,
                       "segment": "group1", "recorded_at": START.isoformat(),
                       "fio": dict(parsed, jobs=[job], elapsed_s=job["runtime_ms"] / 1000.0),
                       "verdict": {"round": number, "stop": number == len(closed)}})
    logs = {}
    for kind in ("bw", "iops", "lat"):
        path = tmp_path / f"round-01_{kind}.log"
        with open(f"{CAPTURED}_{kind}.log", encoding="utf-8") as source:
            path.write_text(source.read(), encoding="utf-8")
        logs[kind] = str(path)
    segments = {"": {"rounds": [], "purge": {"method": "discard", "elapsed_s": 0.1, "recorded_at": START.isoformat()},
                     "failure": None},
                "group1": {"rounds": rounds, "purge": None, "failure": None, "logs": {"round-01": logs}}}
    return {"name": "xsr", "segments": segments, "purge": segments[""]["purge"], "wipc": None, "failure": None,
            "superseded": []}


def _log_values(kind: str) -> list[float]:
    with open(f"{CAPTURED}_{kind}.log", encoding="utf-8") as handle:
        return [float(line.split(",")[1]) for line in handle if line.strip()]


def _dumps() -> list[dict]:
    """fio's status dumps and final report of the captured group, parsed here without the collection's code."""
    decoder, out, index = json.JSONDecoder(), [], 0
    with open(CAPTURED + "-status.json", encoding="utf-8") as handle:
        text = handle.read()
    while (start := text.find("{", index)) >= 0:
        found, index = decoder.raw_decode(text, start)
        out.append(found["jobs"][0]["write"])
    return out


def test_a_continuous_groups_samples_are_fios_counts_and_its_log_only_the_line(tmp_path):
    result = _xsr.build(_captured_group(tmp_path))
    assert result["time_base"] == "status" and result["rounds_run"] == 4
    samples = result["samples"]
    # Each sample: fio's counters at the dump that ends it less those at the one before, over the run time between.
    dumps = [d for i, d in enumerate(_dumps()) if i == 0 or d["runtime"] != _dumps()[i - 1]["runtime"]]
    before = [{"io_bytes": 0, "lat_ns": {"N": 0}, "runtime": 0}] + dumps[:-1]
    mb_s = [(b["io_bytes"] - a["io_bytes"]) * 1000 / (b["runtime"] - a["runtime"]) / 1e6 for a, b in zip(before, dumps)]
    iops = [(b["lat_ns"]["N"] - a["lat_ns"]["N"]) * 1000 / (b["runtime"] - a["runtime"]) for a, b in zip(before, dumps)]
    assert [s["mb_s"] for s in samples] == pytest.approx(mb_s, rel=1e-9)
    assert [s["iops"] for s in samples] == pytest.approx(iops, rel=1e-9)
    # The group's mean - XSR's recovery reference - is fio's own throughput of the whole run (its final report),
    # not the mean of its bw log lines (which misses the run's last, unlogged interval).
    group = result["groups"][0]
    final = dumps[-1]
    assert group["mean_mb_s"] == pytest.approx(final["io_bytes"] * 1000 / final["runtime"] / 1e6, rel=1e-9)
    assert int(group["mean_mb_s"] * 1e6) == final["bw_bytes"]
    bw = _log_values("bw")
    assert group["log"]["mean_mb_s"] == pytest.approx(sum(bw) / len(bw) * 1024 / 1e6)
    assert group["mean_mb_s"] != pytest.approx(group["log"]["mean_mb_s"], rel=1e-3)
    # A sample's MRT is its own window's: the slowest IO counts in the one sample it completed in.
    maxima = [s["mrt_ms"] for s in samples]
    assert max(maxima) == pytest.approx(final["lat_ns"]["max"] / 1e6)
    assert maxima.count(max(maxima)) == 1
    # The samples tile the run: each starts where the one before it ended, on fio's clock.
    assert all(b["start_min"] == pytest.approx(a["t_min"]) for a, b in zip(samples, samples[1:]))
    # No idle between the samples: every 100-ms interval had IO.
    idle = result["idle"]
    assert idle["interval_ms"] == 100 and idle["within_ms"] == 0.0 and idle["longest_idle_ms"] < 100
    text = "\n".join(_xsr_md.section(result, {}, 3, 1 << 30))
    assert "below fio's logging granularity" in text and "fio's own counters" in text
    assert "| Test minute | Sample | Seconds | MB/s |" in text and "so one slow IO is the MRT of one sample only" in text


def test_a_group_without_its_logs_falls_back_to_its_status_dump_samples(tmp_path):
    test = _captured_group(tmp_path)
    test["segments"]["group1"]["logs"] = {}
    result = _xsr.build(test)
    assert result["time_base"] == "status" and len(result["samples"]) == 4
    assert result["samples"][0]["round_file"] == "group1/round-01"
