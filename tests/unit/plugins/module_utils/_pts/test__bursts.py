# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""HIR's burst schedule from fio's iops log and run times: which lines are whose, when each burst ran, which started
late; and a section's figures from fio's counts."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _bursts, _fio, _interval

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def _series(starts_ms: list[float], runtime_ms: float, interval_ms: float, lag_ms: float = 3.0) -> list[list[float]]:
    """Log lines as fio writes them for bursts starting at ``starts_ms``: one line per whole interval of IO, a few ms
    after the interval ends, none for the last partial interval."""
    out = []
    for start in starts_ms:
        for k in range(1, int(runtime_ms // interval_ms) + 1):
            if k * interval_ms + lag_ms < runtime_ms:
                out.append([start + k * interval_ms + lag_ms, 1000.0])
    return out


# Bursts of 1,002 ms every 3 s (2-s idle), 200-ms logging intervals: tolerance max(300, 200) = 300 ms.
@pytest.mark.parametrize("starts, late, idle", [
    pytest.param([0, 3000, 6000, 9000], [], [1998, 1998, 1998], id="on-schedule"),
    pytest.param([0, 3010, 6040, 9000], [], [2008, 2028, 1958], id="fork-jitter-within-tolerance"),
    pytest.param([0, 3000, 6833, 9000], [3], [1998, 2831, 1165], id="burst-3-late"),
    pytest.param([400, 3000, 6000, 9000], [1], [1598, 1998, 1998], id="first-burst-late-others-not-early"),
    pytest.param([0, 3000, 6301, 9000], [3], [1998, 2299, 1697], id="just-past-tolerance"),
])
def test_schedule_measures_each_burst_and_names_the_late_ones(starts, late, idle):
    runtime, interval, period = 1002.0, 200.0, 3000.0
    series = _series(starts, runtime, interval)
    placed = _bursts.place(series, [runtime] * 4, interval)
    assert [p["lines"] for p in placed] == [4, 4, 4, 4]
    found = _bursts.schedule(placed, [runtime] * 4, period, 2000.0, interval)
    assert found["late"] == late and found["held"] is (not late)
    assert found["tolerance_ms"] == 300.0
    # Idle from one burst's end (start + run time, its unlogged last interval counted) to the next one's start.
    assert found["idle_ms"] == pytest.approx(idle)
    assert [b["end_ms"] - b["start_ms"] for b in found["bursts"]] == [runtime] * 4


@pytest.mark.parametrize("interval, idle, tolerance", [
    pytest.param(1000.0, 5000.0, 1500.0, id="standard-ws1-logging-resolution"),
    pytest.param(1000.0, 50000.0, 5000.0, id="standard-ws10-tenth-of-idle"),
    pytest.param(100.0, 500.0, 150.0, id="quick-ws1"),
])
def test_tolerance_is_the_longer_of_the_log_resolution_and_a_tenth_of_the_idle(interval, idle, tolerance):
    assert _bursts.tolerance_ms(interval, idle) == tolerance


def test_a_burst_without_lines_is_not_placed_and_the_schedule_cannot_hold():
    runtime, interval = 1002.0, 200.0
    series = _series([0, 3000, 9000], runtime, interval)
    placed = _bursts.place(series, [runtime, runtime, 0, runtime], interval)
    assert placed[2] is None and [p["lines"] for p in placed if p] == [4, 4, 4]
    found = _bursts.schedule(placed, [runtime, runtime, 0, runtime], 3000.0, 2000.0, interval)
    assert found["unplaced"] == [3] and found["held"] is False and found["late"] == []
    assert found["idle_ms"][1] is None and found["idle_ms"][2] is None


def test_bursts_less_than_an_interval_apart_may_not_be_told_apart():
    # Burst 1 logged 150 ms after each interval (fio's helper thread late), burst 2 started 50 ms after burst 1 ended
    # and logged on time: its first line falls within burst 1's reach and is taken by it, so burst 2 is measured
    # starting an interval late - the limit _bursts.place states.
    series = _series([0], 1000.0, 200.0, lag_ms=150.0) + _series([1050], 1000.0, 200.0)
    placed = _bursts.place(series, [1000.0, 1000.0], 200.0)
    assert (placed[0]["lines"], placed[1]["lines"]) == (5, 3)
    assert placed[1]["first_ms"] - 200.0 == pytest.approx(1050 + 200 + 3)


def test_captured_late_burst_log_is_placed_and_burst_3_is_late():
    """fio 3.33 on a loop device (the late-burst fixture of tests/unit/plugins/plugin_utils): four 1-s bursts 3 s
    apart, fio's main process stopped for 2 s in the idle before burst 3."""
    base = os.path.join(os.path.dirname(__file__), "..", "..", "plugin_utils", "fixtures", "hir", "fio-3.33-late-burst",
                        "hir", "ws2")
    with open(os.path.join(base, "round-01_iops.log"), encoding="utf-8") as handle:
        series = _interval.ticks(_interval.parse_log(handle.read()), 200)
    with open(os.path.join(base, "round-01.raw.json"), encoding="utf-8") as handle:
        raw = json.load(handle)
    runtimes = [job["write"]["runtime"] for job in raw["jobs"]]
    placed = _bursts.place(series, runtimes, 200)
    assert sum(p["lines"] for p in placed) == len(series) and all(placed)
    found = _bursts.schedule(placed, runtimes, 3000.0, 2000.0, 200)
    assert found["late"] == [3]
    late = found["bursts"][2]["late_ms"]
    assert 700 <= late <= 1000
    # The idle before burst 3 is longer than planned by about its delay, the one after shorter by as much.
    assert found["idle_ms"][1] == pytest.approx(2000 + late, abs=200)
    assert found["idle_ms"][2] == pytest.approx(2000 - late, abs=200)


@pytest.mark.parametrize("fixture", ["fio-3.33-hir-bursts-randwrite-4k-2x8.json", "fio-3.33-iops-round.json",
                                     "fio-3.33-jsonplus-mixed.json"])
def test_counted_figures_are_fios_own(fixture):
    with open(os.path.join(FIXTURES, fixture), encoding="utf-8") as handle:
        text = handle.read()
    raw, parsed = json.loads(text[text.index("{"):]), _fio.parse(text)
    for job, own in zip(parsed["jobs"], raw["jobs"]):
        found = _fio.counted(job)
        for direction in ("read", "write"):
            if not own[direction]["runtime"]:
                assert found[direction]["iops"] == 0.0
                continue
            assert found[direction]["iops"] == pytest.approx(own[direction]["iops"], rel=1e-9)
            # fio truncates bytes/s to a whole number.
            assert int(found[direction]["bw_bytes"]) == own[direction]["bw_bytes"]
        assert found["total"]["iops"] == pytest.approx(own["read"]["iops"] + own["write"]["iops"], rel=1e-9)
