# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""fio's status dumps and interval logs as numbers, on what real fio 3.33 runs on a loop device wrote (fixtures: the
job file that made each, its --status-interval output and its write_*_log files):

* fio-3.33-xsr-write-1m-qd4: one XSR-like group, 1.5 s of 1 MiB sequential writes, json+ dumps every 0.5 s, 100-ms logs;
* fio-3.33-hir-bursts-randwrite-4k-2x8: three 0.3-s bursts of 4k random writes (2 threads x QD 8), new_group and
  startdelay 0.9 s apart (0.6 s idle), their iops log;
* fio-3.33-hir-baseline-randwrite-4k-2x8: 1.2 s of continuous 4k random writes, dumps every 0.4 s, its iops log."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _histogram, _interval

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
XSR = "fio-3.33-xsr-write-1m-qd4"
BURSTS = "fio-3.33-hir-bursts-randwrite-4k-2x8"
BASELINE = "fio-3.33-hir-baseline-randwrite-4k-2x8"


def read(name: str) -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def dumps(name: str) -> list[dict]:
    found, rest = _interval.documents(read(name))
    assert rest == ""
    return [_interval.counters(text) for text in found]


def samples(name: str) -> list[dict]:
    sampler = _interval.Sampler()
    out = []
    for dump in dumps(name):
        out += [_interval.window(before, after) for dummy, before, after in sampler.feed(dump)]
    return out


# --- status dumps -------------------------------------------------------------------------------------------------

def test_fios_status_output_is_its_dumps_then_its_final_report_each_a_whole_document():
    text = read(f"{XSR}-status.json")
    found, rest = _interval.documents(text)
    assert len(found) == 4 and rest == ""
    assert all(json.loads(doc)["fio version"] == "fio-3.33" for doc in found)
    # A document fio is still writing is kept for the next read, whole once the rest of it comes.
    cut = len(found[0]) + len(found[1]) // 2 + text.index(found[0])
    head, pending = _interval.documents(text[:cut])
    assert len(head) == 1 and pending.startswith("{")
    more, rest = _interval.documents(pending + text[cut:])
    assert [json.loads(d)["timestamp_ms"] for d in head + more] == [json.loads(d)["timestamp_ms"] for d in found]


def test_a_brace_in_a_string_and_fios_notes_do_not_split_a_document():
    text = 'fio: note {not json}\n{"jobs": [{"jobname": "a}b{", "x": "\\"}"}]}\n{"jobs": []}\n{"jobs": ['
    found, rest = _interval.documents(text.replace("{not json}", "(not json)"))
    assert [json.loads(d)["jobs"] for d in found] == [[{"jobname": "a}b{", "x": '"}'}], []]
    assert rest == '{"jobs": ['


def test_a_dump_is_the_counters_since_the_job_started():
    first, second, third, final = dumps(f"{XSR}-status.json")
    assert (first["runtime_ms"], first["write"]["ios"], first["write"]["io_bytes"]) == (357, 835, 874512384)
    # Completed IOs: lat_ns's N, what the histogram counts; fio's total_ios also counts those in flight at the dump.
    raw = json.loads(_interval.documents(read(f"{XSR}-status.json"))[0][0])["jobs"][0]["write"]
    assert raw["total_ios"] > first["write"]["ios"] == _histogram.total(first["write"]["bins"]) == raw["lat_ns"]["N"]
    assert [d["runtime_ms"] for d in (first, second, third, final)] == [357, 858, 1357, 1502]
    assert first["job"]["name"] == "xsr-group1" and first["job"]["bs"] == 1 << 20 and final["read"]["ios"] == 0


def test_the_samples_are_fios_counters_between_consecutive_dumps_and_add_up_to_its_final_report():
    found = samples(f"{XSR}-status.json")
    final = _fio.parse(_interval.documents(read(f"{XSR}-status.json"))[0][-1])["jobs"][0]
    # The first from the job's start (shorter by fio's set-up), the last from the last periodic dump to the end.
    assert [s["runtime_ms"] for s in found] == [357, 501, 499, 145]
    assert [s["window"]["from_ms"] for s in found[1:]] == [s["window"]["to_ms"] for s in found[:-1]]
    assert [s["window"]["from_unix_ms"] for s in found[1:]] == [s["window"]["to_unix_ms"] for s in found[:-1]]
    assert sum(s["write"]["io_bytes"] for s in found) == final["write"]["io_bytes"] == 3645898752
    assert sum(s["write"]["total_ios"] for s in found) == final["write"]["total_ios"] == 3477
    second = found[1]
    assert second["write"]["io_bytes"] == 1909456896 - 874512384 and second["write"]["total_ios"] == 987
    assert second["total"]["bw_bytes"] == pytest.approx((1909456896 - 874512384) / 0.501)
    assert second["total"]["iops"] == pytest.approx(987 / 0.501)
    # The window's mean latency: fio's latency sum (mean x IOs) at its end less that at its start, over its IOs.
    first_dump, second_dump = dumps(f"{XSR}-status.json")[:2]
    assert second["write"]["lat_ns"]["mean"] == pytest.approx(
        (second_dump["write"]["lat_sum_ns"] - first_dump["write"]["lat_sum_ns"]) / 987)
    # IO-weighted, the samples' means give fio's mean over the run.
    assert sum(s["write"]["lat_ns"]["mean"] * s["write"]["total_ios"] for s in found) / 3477 == pytest.approx(
        final["write"]["lat_ns"]["mean"])


def test_a_windows_slowest_io_is_fios_own_where_its_maximum_rose_else_the_windows_slowest_bucket():
    found = samples(f"{XSR}-status.json")
    assert [s["write"]["lat_ns"]["max_from"] for s in found] == ["fio", "bucket", "bucket", "bucket"]
    assert found[0]["write"]["lat_ns"]["max"] == 8792763.0
    for sample in found[1:]:
        bins = sample["write"]["histogram"]["bins"]
        assert sample["write"]["lat_ns"]["max"] == bins[-1][0] < 8792763.0


def test_a_windows_percentiles_come_from_its_own_buckets_as_fio_computes_them():
    text = _interval.documents(read(f"{XSR}-status.json"))[0][0]
    first = samples(f"{XSR}-status.json")[0]
    # The first window is the whole run so far: its percentiles are the ones fio printed in that dump.
    printed = _fio.parse(text)["jobs"][0]["write"]["lat_ns"]["percentiles"]
    assert first["write"]["lat_ns"]["percentiles"] == printed


def test_a_last_window_without_a_completed_io_is_folded_into_the_one_before():
    first, second, third, final = dumps(f"{XSR}-status.json")
    # fio's final report 76 ms after its last dump, with bytes of IOs in flight counted and none completed.
    idle = dict(third, runtime_ms=third["runtime_ms"] + 76, write=dict(third["write"], io_bytes=final["write"]["io_bytes"]))
    sampler = _interval.Sampler()
    closed = [c for dump in (first, second, third, idle) for c in sampler.feed(dump)]
    assert [n for n, dummy, dummy2 in closed] == [1, 2, 3, 4] and _interval.completed(third, idle) == 0
    folded = sampler.fold_idle(closed)
    assert folded == closed[:2] + [(3, second, idle)] and sampler.number == 3
    windows = [_interval.window(b, a) for dummy, b, a in folded]
    assert sum(w["write"]["io_bytes"] for w in windows) == final["write"]["io_bytes"]
    assert sum(w["write"]["total_ios"] for w in windows) == third["write"]["ios"]
    # A window with IOs, or one with nothing before it to fold into, stays as it is.
    assert sampler.fold_idle(closed[:3]) == closed[:3]
    assert sampler.fold_idle(closed[3:]) == closed[3:] and sampler.fold_idle([]) == []


def test_dumps_out_of_order_or_not_of_one_run_are_refused():
    first, second = dumps(f"{XSR}-status.json")[:2]
    with pytest.raises(ValueError, match="no window"):
        _interval.window(second, first)
    with pytest.raises(ValueError, match="fewer IOs"):
        _interval.window(second, dict(first, runtime_ms=900))
    with pytest.raises(ValueError, match="earlier in fio's run time"):
        sampler = _interval.Sampler()
        sampler.feed(second)
        sampler.feed(first)
    assert _interval.Sampler().feed(first) and not _interval.Sampler().feed(dict(first, runtime_ms=0))
    with pytest.raises(ValueError, match="one fio section"):
        _interval.counters({"jobs": [{}, {}]})


def test_a_return_to_baselines_threads_are_one_job_its_samples_fios_own():
    found = samples(f"{BASELINE}-status.json")
    final = _fio.parse(_interval.documents(read(f"{BASELINE}-status.json"))[0][-1])["jobs"][0]
    assert final["numjobs"] == 2 and [s["runtime_ms"] for s in found] == [250, 400, 400, 151]
    assert sum(s["write"]["total_ios"] for s in found) == final["write"]["total_ios"]


# --- interval logs ----------------------------------------------------------------------------------------------

def test_a_log_line_is_time_value_direction_and_each_threads_lines_are_one_block():
    rows = _interval.parse_log(read(f"{BASELINE}_iops.log"))
    assert len(rows) == 22 and rows[0] == (1795685912932, 11485.0, 1, 0)
    # Two threads: fio wrote each one's lines as a block, when the run ended.
    assert {block for dummy, dummy2, dummy3, block in rows} == {0, 1} and rows[11][3] == 1
    with pytest.raises(ValueError, match="line 2"):
        _interval.parse_log("100, 5, 1, 0, 0\nnot a line\n")


def test_the_threads_lines_of_one_moment_add_up_to_the_jobs():
    series = _interval.ticks(_interval.parse_log(read(f"{BASELINE}_iops.log")), 100)
    assert len(series) == 11 and series[0] == [1795685912932, 11485.0 + 11676.0]
    # One thread's two lines never add up, however close (a short last interval of its own).
    rows = [(100, 5.0, 1, 0), (200, 5.0, 1, 0), (230, 2.0, 1, 0), (101, 6.0, 1, 1)]
    assert _interval.ticks(rows, 100) == [[101, 11.0], [200, 5.0], [230, 2.0]]
    assert _interval.ticks(rows, 100, direction=0) == []


def test_a_continuous_run_shows_no_idle_interval_in_its_logs():
    for name, kind in ((XSR, "bw"), (XSR, "iops"), (BASELINE, "iops")):
        series = _interval.ticks(_interval.parse_log(read(f"{name}_{kind}.log")), 100)
        found = _interval.idle(series, 100)
        assert (found["idle_ms"], found["gaps"]) == (0.0, 0) and found["longest_gap_ms"] < 150


def test_the_bursts_and_the_idle_between_them_as_fio_logged_them():
    series = _interval.ticks(_interval.parse_log(read(f"{BURSTS}_iops.log")), 100)
    # The runs of IO: ticks no further apart than GAP_SHARE logging intervals belong to one burst.
    runs: list[list[float]] = []
    for time_ms, dummy in series:
        if runs and time_ms - runs[-1][-1] <= 100 * _interval.GAP_SHARE:
            runs[-1].append(time_ms)
        else:
            runs.append([time_ms])
    assert [len(run) for run in runs] == [2, 2, 3]
    # From a burst's last tick to the start of the next one's first logging interval.
    gaps = [(b[0] - 100) - a[-1] for a, b in zip(runs, runs[1:])]
    # 0.6 s planned between bursts, seen to within a logging interval.
    assert gaps == [699, 663] and all(500 <= gap <= 700 for gap in gaps)
    found = _interval.idle(series, 100)
    assert found["gaps"] == 2 and found["idle_ms"] == pytest.approx(sum(gaps))
    # Per burst fio's own figures are its section's (new_group: one reporting group each).
    jobs = _fio.parse(read(f"{BURSTS}.json"))["jobs"]
    assert [j["name"] for j in jobs] == [f"hir-ws2-burst-{n:04d}" for n in (1, 2, 3)]
    assert [j["options"].get("startdelay") for j in jobs] == [None, "900ms", "1800ms"]


def test_a_synthetic_gap_counts_as_idle_less_the_interval_its_next_line_covers():
    series = [[100, 1.0], [200, 1.0], [260, 1.0], [900, 1.0], [1000, 1.0]]
    assert _interval.idle(series, 100) == {"idle_ms": 540.0, "longest_idle_ms": 540.0, "gaps": 1, "idle_periods": 1,
                                           "longest_gap_ms": 640, "stall_ms": 0.0, "ticks": 5, "interval_ms": 100}
    assert _interval.idle(series, 100, start_ms=900)["gaps"] == 0


@pytest.mark.parametrize("latency, idle_ms, stall_ms", [
    # No lat line in the gap: all of it idle.
    ([], 540.0, 0.0),
    # IOs completing at 900 ms after 700 ms in flight: they were waiting from 200 ms on - a stall, no idle.
    ([(900, 700e6, 1, 0)], 0.0, 540.0),
    # In flight from 500 ms only: 240 ms idle before, 300 ms stalled.
    ([(850, 350e6, 1, 0)], 240.0, 300.0),
    # Two lines covering the gap's two ends (260-400 and 700-800 ms) leave its middle idle.
    ([(400, 140e6, 1, 0), (800, 100e6, 1, 0)], 300.0, 240.0),
])
def test_a_gap_without_completions_is_idle_only_where_the_lat_log_shows_no_io_in_flight(latency, idle_ms, stall_ms):
    series = [[100, 1.0], [200, 1.0], [260, 1.0], [900, 1.0], [1000, 1.0]]
    found = _interval.idle(series, 100, latency=latency)
    assert found["idle_ms"] == pytest.approx(idle_ms) and found["stall_ms"] == pytest.approx(stall_ms)
    assert found["idle_periods"] == (1 if idle_ms else 0) and found["gaps"] == 1


def test_real_logs_of_a_continuous_run_show_no_idle_even_with_their_lat_log():
    latency = _interval.parse_log(read(f"{XSR}_lat.log"))
    series = _interval.ticks(_interval.parse_log(read(f"{XSR}_bw.log")), 100)
    found = _interval.idle(series, 100, latency=latency)
    assert found["idle_ms"] == 0.0 and found["longest_idle_ms"] == 0.0 and found["stall_ms"] == 0.0
    # The bursts' log with a lat log that shows nothing in flight between them: their idle stays idle.
    bursts = _interval.ticks(_interval.parse_log(read(f"{BURSTS}_iops.log")), 100)
    assert _interval.idle(bursts, 100, latency=[])["idle_ms"] == _interval.idle(bursts, 100)["idle_ms"] > 1000


@pytest.mark.parametrize("seconds, period, interval", [
    (0.3, None, 100), (0.5, None, 100), (1.5, None, 300), (5, None, 1000), (60, None, 1000),
    (60, 60, 1000), (0.5, 0.5, 100), (0.3, 0.3, 100), (7.3, 7.3, 730), (0.5, 1.5, 100), (5, 60, 1000)])
def test_the_logging_interval_is_a_fifth_of_the_shortest_part_from_100_ms_to_1_s(seconds, period, interval):
    found = _interval.log_interval_ms(seconds, period)
    assert found == interval
    if period:
        assert int(round(period * 1000)) % found == 0


@pytest.mark.parametrize("change, message", [
    (lambda job: job["write"]["lat_ns"].update(N="9"), r"a status dump's write: 'N' is not a number but '9'"),
    (lambda job: job["write"].update(lat_ns=[0]), r"write: 'lat_ns' is not an object but \[0\]"),
    (lambda job: job["write"]["lat_ns"].update(bins={"1000": "x"}), r"lat_ns.? bins are not numbers"),
])
def test_a_status_dump_count_that_is_not_fios_is_refused_by_name(change, message):
    found, dummy = _interval.documents(read(XSR + "-status.json"))
    document = json.loads(found[-1])
    change(document["jobs"][0])
    with pytest.raises(ValueError, match=message):
        _interval.counters(document)
