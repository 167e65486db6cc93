# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host Idle Recovery: the result from hand-made and real (quick loop-device) round files, the section, the plots."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir, _hir_md, _hir_plots
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._hir_runs import (
    BASE, Clock, FIXTURE, FLAT, QUICK, STEADY_PC, T0, _job, _settings, make_test)

STANDARD = {"burst": 5.0, "reps": 360, "baseline": 1800.0, "pc": 1800.0, "window": 5, "max_rounds": 25}

FAILURE = {"phase": "round", "round": 1, "msg": "fio failed", "rc": 1, "stderr": "", "recorded_at": T0.isoformat()}


@pytest.mark.parametrize("pc, states, bursts, baselines, failure, planned, status", [
    pytest.param(STEADY_PC, [1, 2], FLAT, BASE, None, None, "steady", id="steady"),
    pytest.param([1000.0, 2000.0, 500.0], [1, 2], FLAT, BASE, None, None, "not steady", id="pc-round-limit"),
    pytest.param(STEADY_PC, [1, 2], FLAT, {1: BASE[1]}, None, None, "incomplete", id="baseline-missing"),
    pytest.param(STEADY_PC, [1], FLAT, BASE, None, [1, 2], "incomplete", id="wait-state-not-run"),
    pytest.param([1000.0, 2000.0], [], {}, {}, None, [1, 2], "incomplete", id="pc-unfinished"),
    pytest.param(STEADY_PC, [1, 2], FLAT, {1: BASE[1]}, FAILURE, None, "failed", id="failed"),
    pytest.param([], [], {}, {}, None, [1, 2], "no rounds", id="nothing"),
    pytest.param([], [], {}, {}, FAILURE, [1, 2], "failed", id="failed-before-rounds"),
])
def test_status(pc, states, bursts, baselines, failure, planned, status):
    result = _hir.build(make_test(QUICK, pc, states, bursts, baselines, failure, planned))
    assert result["status"] == status
    json.dumps(result)  # result.json is written from it
    assert result["rounds_run"] == len(pc) + len(states) + sum(1 for s in states if s in baselines)


def test_steady_text_and_steady_round():
    result = _hir.build(make_test(QUICK, STEADY_PC, [1, 2], FLAT, BASE))
    assert result["steady"] is True and result["steady_round"] == 3
    assert result["steady_text"] == "preconditioning steady at round 3; 2 wait states run"
    unsteady = _hir.build(make_test(QUICK, [1000.0, 2000.0, 500.0], [1, 2], FLAT, BASE))
    assert unsteady["steady"] is False and unsteady["steady_round"] is None
    assert unsteady["steady_text"] == "preconditioning not steady in 3 rounds (limit 3); 2 wait states run"
    assert unsteady["not_steady_text"] == "not reached by the preconditioning in 3 rounds (limit 3)"
    assert result["not_steady_text"] is None


def test_gain_is_the_mean_burst_over_the_preconditioning_window_average():
    result = _hir.build(make_test(QUICK, STEADY_PC, [1, 2], FLAT, BASE))
    window = STEADY_PC[-QUICK["window"]:]  # the steady window: rounds 2 and 3
    pc_iops = sum(window) / len(window)
    assert result["precondition"]["iops"] == pytest.approx(pc_iops)
    assert result["headline"]["pc_iops"] == pytest.approx(pc_iops)
    for entry in result["wait_states"]:
        state = entry["wait_state"]
        burst_mean = sum(FLAT[state]) / len(FLAT[state])
        base_mean = sum(BASE[state]) / len(BASE[state])
        assert entry["bursts"]["mean"] == pytest.approx(burst_mean)
        assert (entry["bursts"]["min"], entry["bursts"]["max"]) == (min(FLAT[state]), max(FLAT[state]))
        assert entry["baseline"]["mean"] == pytest.approx(base_mean)
        assert entry["gain"] == pytest.approx(burst_mean / pc_iops)
        assert entry["burst_over_baseline"] == pytest.approx(burst_mean / base_mean)
        assert result["headline"]["gain"][str(state)] == pytest.approx(burst_mean / pc_iops)
        assert entry["idle_s"] == pytest.approx(QUICK["burst"] * state)


def test_time_axis_bursts_on_their_schedule_baseline_after_them_wait_states_in_order():
    result = _hir.build(make_test(QUICK, STEADY_PC, [1, 2], FLAT, BASE))
    first, second = result["wait_states"]
    assert first["bursts"]["start_s"] == 0.0  # the axis starts at the first wait state's round
    # Bursts at their start delays: i x (burst + N x burst) from the round's start.
    assert first["bursts"]["t_s"] == pytest.approx([0.0, 1.0, 2.0])
    assert second["bursts"]["t_s"] == pytest.approx([second["bursts"]["start_s"] + d for d in (0.0, 1.5, 3.0)])
    times = []
    for entry in result["wait_states"]:
        for phase in ("bursts", "baseline"):
            part = entry[phase]
            assert part["start_s"] <= part["t_s"][0] and part["t_s"][-1] < part["end_s"]
            times += part["t_s"]
    assert times == sorted(times) and len(set(times)) == len(times)
    # Baseline sections back to back: each after the run time of those before it and an equal share of fio's time
    # outside the sections (here 0.3 s per section and 0.3 s of start-up: 1.2 s over 3 sections).
    base = first["baseline"]
    assert [t - base["start_s"] for t in base["t_s"]] == pytest.approx([0.0, 0.9, 1.8])


def test_a_burst_without_a_start_delay_sits_on_the_plan_schedule():
    test = make_test(QUICK, STEADY_PC, [2], {2: FLAT[2]}, {2: BASE[2]})
    for job in test["segments"]["ws2"]["rounds"][0]["fio"]["jobs"]:
        job["options"] = {}
    entry = _hir.build(test)["wait_states"][0]
    assert [t - entry["bursts"]["start_s"] for t in entry["bursts"]["t_s"]] == pytest.approx([0.0, 1.5, 3.0])


@pytest.mark.parametrize("text, seconds", [("1000ms", 1.0), ("2.5s", 2.5), ("3", 3.0), ("1500000us", 1.5),
                                           ("2m", 120.0), (None, None), ("soon", None)])
def test_fio_seconds(text, seconds):
    assert _hir._fio_seconds(text) == seconds


def test_real_quick_run_from_its_round_files():
    result = _hir.build(_results.load_test(FIXTURE))
    assert result["status"] == "steady" and result["steady_round"] == 2 and result["rounds_run"] == 6
    assert result["planned_wait_states"] == [1, 2]
    ws1 = result["wait_states"][0]
    # fio's own section IOPS from ws1/round-01.json (bursts) and round-02.json (baseline).
    assert ws1["bursts"]["iops"] == pytest.approx([71190.854871, 48475.0499, 50411.177645], rel=1e-9)
    assert ws1["bursts"]["t_s"] == pytest.approx([0.0, 1.0, 2.0])
    pc = (58907.092907 + 60818.905473) / 2
    assert result["headline"]["pc_iops"] == pytest.approx(pc)
    assert result["headline"]["gain"]["1"] == pytest.approx((71190.854871 + 48475.0499 + 50411.177645) / 3 / pc)
    assert ws1["baseline"]["mean"] == pytest.approx((49744.510978 + 39996.007984 + 53485.02994) / 3)


def test_a_standard_hir_builds_and_draws_every_wait_state(tmp_path):
    """Five wait states of 360 bursts and 360 baseline sections each, 25 preconditioning rounds."""
    states = [1, 2, 3, 5, 10]
    bursts = {s: [20000.0 + 40000.0 * (i % 7) / 6 * s / 10 for i in range(360)] for s in states}
    baselines = {s: [15000.0 + (i % 11) * 100 for i in range(360)] for s in states}
    pc = [50000.0 - 30000.0 * min(1.0, n / 10) for n in range(25)]
    test = make_test(STANDARD, pc, states, bursts, baselines)
    result = _hir.build(test)
    drawn = _hir_plots.plots(result, str(tmp_path), "d1", "run standard")
    assert result["status"] == "steady" and result["rounds_run"] == 25 + 2 * len(states)
    assert [s["bursts"]["count"] for s in result["wait_states"]] == [360] * 5
    assert [s["baseline"]["count"] for s in result["wait_states"]] == [360] * 5
    assert sum(len(s["bursts"]["t_s"]) + len(s["baseline"]["t_s"]) for s in result["wait_states"]) == 3600
    last = result["wait_states"][-1]
    # WS10's 360th burst starts 359 x 55 s after its round's start.
    assert last["bursts"]["t_s"][-1] - last["bursts"]["start_s"] == pytest.approx(359 * 55.0)
    assert len(drawn) == 5 and all(os.path.exists(p) for p in drawn.values())
    json.dumps(result)


# A wait state as fio 3.33 ran it on a loop device (tests/unit/plugins/module_utils/fixtures): three 0.3-s bursts
# 0.9 s apart (wait state 2), one fio run with its iops log; then a return to baseline of 1.2 s, one fio section with
# status dumps every 0.4 s and its iops log; 100-ms logging intervals, 2 threads each.
CAPTURED = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "module_utils", "fixtures"))


def _captured_wait_state(tmp_path) -> dict:
    from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _interval

    def read(name):
        with open(os.path.join(CAPTURED, name), encoding="utf-8") as handle:
            return handle.read()

    plan = dict(QUICK, burst=0.3, baseline=1.2)
    settings = _settings(plan, [2])
    settings["parameters"]["baseline_sample_seconds"] = 0.4
    clock = Clock()
    pc = [clock.round(n, settings, [_job("hir-pc", v, 1.0)], 1.6, None) for n, v in enumerate(STEADY_PC, 1)]
    bursts = clock.round(1, settings, [], 2.4, {"label": "wait state 2", "phase": "bursts", "wait_state": 2})
    bursts["fio"] = dict(_fio.parse(read("fio-3.33-hir-bursts-randwrite-4k-2x8.json")), elapsed_s=2.4)
    found, dummy = _interval.documents(read("fio-3.33-hir-baseline-randwrite-4k-2x8-status.json"))
    sampler = _interval.Sampler()
    closed = [c for text in found for c in sampler.feed(_interval.counters(text))]
    base = clock.round(2, settings, [], 1.5, {"label": "baseline after 2", "phase": "baseline", "wait_state": 2,
                                              "samples": {"sample_s": 0.4, "count": 3}})
    base["fio"] = dict(_fio.parse(found[-1]), elapsed_s=1.5,
                       samples=[dict(_interval.window(b, a), sample=n) for n, b, a in closed])
    logs = {}
    for stem, name in (("round-01", "fio-3.33-hir-bursts-randwrite-4k-2x8"),
                       ("round-02", "fio-3.33-hir-baseline-randwrite-4k-2x8")):
        path = tmp_path / f"{stem}_iops.log"
        path.write_text(read(f"{name}_iops.log"), encoding="utf-8")
        logs[stem] = {"iops": str(path)}
    segments = {"": {"rounds": [], "purge": {"method": "discard", "recorded_at": T0.isoformat(), "elapsed_s": 0.1},
                     "wipc": None, "steady_state": None, "failure": None},
                "precondition": {"rounds": pc, "purge": None, "wipc": None, "steady_state": None, "failure": None},
                "ws2": {"rounds": [bursts, base], "purge": None, "wipc": None, "steady_state": None, "failure": None,
                        "logs": logs}}
    return {"name": "hir", "dir": str(tmp_path), "segments": segments, "purge": segments[""]["purge"], "wipc": None,
            "failure": None, "superseded": []}


def _ticks(name: str) -> list[list[float]]:
    from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval

    with open(os.path.join(CAPTURED, name), encoding="utf-8") as handle:
        return _interval.ticks(_interval.parse_log(handle.read()), 100)


def _raw_documents(name: str) -> list[dict]:
    """fio's own JSON documents of a captured output (status dumps, then the final report), parsed here without the
    collection's code."""
    decoder, text, out, index = json.JSONDecoder(), open(os.path.join(CAPTURED, name), encoding="utf-8").read(), [], 0
    while (start := text.find("{", index)) >= 0:
        found, index = decoder.raw_decode(text, start)
        out.append(found)
    return out


def test_a_captured_wait_states_figures_are_fios_counts_and_its_log_the_timeline(tmp_path):
    result = _hir.build(_captured_wait_state(tmp_path))
    (entry,) = result["wait_states"]
    bursts, base = entry["bursts"], entry["baseline"]
    burst_ticks = _ticks("fio-3.33-hir-bursts-randwrite-4k-2x8_iops.log")
    base_ticks = _ticks("fio-3.33-hir-baseline-randwrite-4k-2x8_iops.log")
    # The timeline is every line fio logged, its two threads added up, on the test's time axis.
    assert bursts["log"]["iops"] == [v for dummy, v in burst_ticks]
    assert base["log"]["iops"] == [v for dummy, v in base_ticks]
    steps = [b - a for a, b in zip(bursts["log"]["t_s"], bursts["log"]["t_s"][1:])]
    assert steps == pytest.approx([(b[0] - a[0]) / 1000 for a, b in zip(burst_ticks, burst_ticks[1:])], abs=1e-3)
    # Each burst's IOPS is fio's own: its IOs over the time fio ran it, as fio printed it.
    (raw,) = _raw_documents("fio-3.33-hir-bursts-randwrite-4k-2x8.json")
    fio_iops = [job["write"]["iops"] for job in raw["jobs"]]
    assert bursts["iops"] == pytest.approx(fio_iops, rel=1e-9)
    assert bursts["iops"] == pytest.approx([j["write"]["total_ios"] * 1000 / j["write"]["runtime"] for j in raw["jobs"]],
                                           rel=1e-12)
    assert [b["log_lines"] for b in bursts["per_burst"]] == [2, 2, 3] and bursts["unit"] == "burst"
    # The log's means are not the figure: they differ from fio's by more than rounding.
    means = [sum(v for dummy, v in burst_ticks[a:b]) / (b - a) for a, b in ((0, 2), (2, 4), (4, 7))]
    assert means != pytest.approx(fio_iops, rel=1e-3)
    assert bursts["seconds"] == pytest.approx(sum(j["write"]["runtime"] for j in raw["jobs"]) / 1000)
    # The baseline's samples: fio's counters at one status dump less those at the one before, over the run time
    # between them; its mean fio's for the whole section.
    dumps = _raw_documents("fio-3.33-hir-baseline-randwrite-4k-2x8-status.json")
    counts = [(0, 0)] + [(d["jobs"][0]["write"]["lat_ns"]["N"], d["jobs"][0]["write"]["runtime"]) for d in dumps]
    counts = [c for i, c in enumerate(counts) if i == 0 or c[1] != counts[i - 1][1]]
    own = [(b[0] - a[0]) * 1000 / (b[1] - a[1]) for a, b in zip(counts, counts[1:])]
    assert base["iops"] == pytest.approx(own, rel=1e-9) and base["unit"] == "sample"
    assert base["mean"] == pytest.approx(dumps[-1]["jobs"][0]["write"]["iops"], rel=1e-9)
    assert entry["gain"] == pytest.approx(bursts["mean"] / result["precondition"]["iops"])
    # Idle between the bursts: 0.6 s planned; measured from one burst's end (start + fio's run time) to the next
    # one's start, to within a 100-ms logging interval - no longer a logging interval too long.
    idle = entry["idle"]
    assert idle["bursts_logged"] == 3 and 0.5 <= idle["between_bursts"]["min"] <= idle["between_bursts"]["max"] <= 0.7
    assert idle["baseline_idle_ms"] == 0.0 and idle["baseline_gaps"] == 0
    assert bursts["schedule"]["held"] is True and entry["not_valid"] is None and result["late_bursts"] == []
    text = "\n".join(_hir_md.section(result, {}, 4, 1 << 30))
    assert "Every figure is fio's own count" in text and "| WS2 | 0.60 |" in text
    assert "Held by every wait state (WS2)" in text


# A real HIR run (playbooks/pts.yml, fio 3.33, quick profile on a 128 MiB loop device): wait state 2 of four 1-s
# bursts 3 s apart with 200-ms logs, then 2 s of return to baseline in 1-s samples. During the idle before burst 3,
# fio's main process - the one that starts each burst's job at its startdelay - was stopped (SIGSTOP) for 2 s, as a
# loaded host would hold it: fio started burst 3 late, and the run's files are as the collection filed them.
LATE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "hir", "fio-3.33-late-burst", "hir"))


def _late_raw(name: str) -> list[dict]:
    decoder, out, index = json.JSONDecoder(), [], 0
    with open(os.path.join(LATE, "ws2", name), encoding="utf-8") as handle:
        text = handle.read()
    while (start := text.find("{", index)) >= 0:
        found, index = decoder.raw_decode(text, start)
        out.append(found)
    return out


def test_every_figure_of_a_real_run_is_fios_own_to_1e_9():
    result = _hir.build(_results.load_test(LATE))
    (entry,) = result["wait_states"]
    (raw,) = _late_raw("round-01.raw.json")
    # Each burst: fio's IOPS of its reporting group, and its IOs, bytes and run time as fio counted them.
    per_burst = entry["bursts"]["per_burst"]
    for burst, job in zip(per_burst, raw["jobs"]):
        own = job["write"]
        assert burst["iops"] == pytest.approx(own["iops"], rel=1e-9)
        counts = (burst["ios"], burst["io_bytes"], burst["runtime_ms"])
        assert counts == (own["total_ios"], own["io_bytes"], own["runtime"])
        assert int(burst["mb_s"] * 1e6) == own["bw_bytes"]
    assert entry["bursts"]["iops"] == [b["iops"] for b in per_burst]
    assert entry["bursts"]["mean"] == pytest.approx(sum(j["write"]["iops"] for j in raw["jobs"]) / 4, rel=1e-9)
    # "s of writes": the time fio ran the bursts, not the logged intervals (a few of which it never logs).
    assert entry["bursts"]["seconds"] == pytest.approx(sum(j["write"]["runtime"] for j in raw["jobs"]) / 1000)
    # The return to baseline: each sample fio's counts between two status dumps, its mean fio's for the section.
    dumps = _late_raw("round-02.status.json") + _late_raw("round-02.raw.json")
    counts = [(0, 0)]
    for dump in dumps:
        write = dump["jobs"][0]["write"]
        if write["runtime"] != counts[-1][1]:
            counts.append((write["lat_ns"]["N"], write["runtime"]))
    own = [(b[0] - a[0]) * 1000 / (b[1] - a[1]) for a, b in zip(counts, counts[1:])]
    assert entry["baseline"]["iops"] == pytest.approx(own, rel=1e-9)
    assert entry["baseline"]["mean"] == pytest.approx(dumps[-1]["jobs"][0]["write"]["iops"], rel=1e-9)
    # Idle before the baseline: from fio's final report of the bursts to the baseline's first status window start.
    first = dumps[0]["timestamp_ms"] - dumps[0]["jobs"][0]["write"]["runtime"]
    assert entry["idle"]["before_baseline_s"] == pytest.approx((first - raw["timestamp_ms"]) / 1000, abs=2e-3)


def test_a_late_burst_is_flagged_named_and_its_wait_state_has_no_gain(tmp_path):
    result = _hir.build(_results.load_test(LATE))
    (entry,) = result["wait_states"]
    schedule = entry["bursts"]["schedule"]
    assert schedule["held"] is False and [b["burst"] for b in schedule["late"]] == [3]
    late = schedule["late"][0]
    assert 0.7 <= late["late_s"] <= 1.0 and schedule["tolerance_s"] == pytest.approx(0.3)
    # Its idle stated as measured: longer before it, shorter after it, by about its delay.
    assert late["idle_before_s"] == pytest.approx(2.0 + late["late_s"], abs=0.2)
    assert late["idle_after_s"] == pytest.approx(2.0 - late["late_s"], abs=0.2)
    assert [b["late"] for b in entry["bursts"]["per_burst"]] == [False, False, True, False]
    # Not a result: no headline gain, the reason beside it, the late burst in result.json.
    assert entry["gain"] is not None and result["headline"]["gain"] == {"2": None}
    assert result["headline"]["not_valid"] == {"2": f"schedule not held: burst 3 started {late['late_s']:.2f} s late"}
    assert result["late_bursts"] == [dict(late, wait_state=2)]
    json.dumps(result)
    text = "\n".join(_hir_md.section(result, {}, 5, 1 << 30))
    assert f"**WS2 burst 3** started {late['late_s']:.2f} s late" in text and "**Not held** by WS2" in text
    assert f"n/r (×{entry['gain']:.2f} measured; schedule not held)" in text
    assert "Preconditioning last-window IOPS (not steady)" in text or "Preconditioning steady-state IOPS" in text
    drawn = _hir_plots.plots(result, str(tmp_path), "d1", "run")
    assert os.path.getsize(drawn["timeline"]) > 10000


def test_a_wait_state_that_kept_its_schedule_is_valid(tmp_path):
    # The same run with burst 3's log lines moved back by its delay, as if fio had started it on time: every burst
    # on its place, the schedule held, the gain a result.
    test = _results.load_test(LATE)
    late = _hir.build(test)["wait_states"][0]["bursts"]["per_burst"][2]
    assert late["late"] is True
    shift = int(round(late["late_s"] * 1000))
    begin, end = _burst_span(3)
    moved = []
    with open(test["segments"]["ws2"]["logs"]["round-01"]["iops"], encoding="utf-8") as handle:
        for line in handle:
            parts = line.split(",")
            stamp = int(parts[0])
            moved.append(",".join([str(stamp - shift if begin <= stamp <= end else stamp)] + parts[1:]))
    path = tmp_path / "round-01_iops.log"
    path.write_text("".join(moved), encoding="utf-8")
    test["segments"]["ws2"]["logs"]["round-01"]["iops"] = str(path)
    result = _hir.build(test)
    (entry,) = result["wait_states"]
    assert entry["bursts"]["schedule"]["held"] is True and entry["not_valid"] is None
    assert result["headline"]["gain"]["2"] == pytest.approx(entry["gain"]) and result["late_bursts"] == []


def _late_line_times() -> set[int]:
    with open(os.path.join(LATE, "ws2", "round-01_iops.log"), encoding="utf-8") as handle:
        return {int(line.split(",")[0]) for line in handle if line.strip()}


def _burst_span(number: int) -> tuple[int, int]:
    """The first and last log time of burst ``number`` in the late fixture: its lines lie in one run of times more
    than a second from the others."""
    runs, times = [], sorted(_late_line_times())
    for stamp in times:
        if runs and stamp - runs[-1][-1] < 1000:
            runs[-1].append(stamp)
        else:
            runs.append([stamp])
    return runs[number - 1][0], runs[number - 1][-1]
