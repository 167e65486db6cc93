# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _characterisation, _sweep

SETTINGS = {"profile": "quick", "round_seconds": 1, "numjobs": 1, "iodepth": 32, "mixes": [100, 0],
            "precondition": {"seconds": 3, "iodepth": 32},
            "sweep": {"workloads": ["randread", "randwrite"], "steps": [100, 200, 300, 400], "tolerance_pct": 5,
                      "misses": 2}}


def _direction(iops: float) -> dict:
    return {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": int(iops * 4096), "total_ios": int(iops),
            "lat_ns": {"mean": 1e5, "max": 1e6, "min": 1e4}}


def _job(name: str, rw: str, iops: float, **options) -> dict:
    empty = {"iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0,
             "lat_ns": {"mean": None, "max": None, "min": None}}
    read, write = (_direction(iops), empty) if rw == "randread" else (empty, _direction(iops))
    return {"name": name, "rw": rw, "mix": 100 if rw == "randread" else 0, "bs": 4096, "numjobs": 1, "iodepth": 32,
            "options": {k: str(v) for k, v in options.items()}, "read": read, "write": write,
            "total": {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": int(iops * 4096), "total_ios": int(iops),
                      "lat_ns": {"mean": 1e5, "max": 1e6, "min": 1e4}}}


def _ramp(rw: str, achieved: list[float], stopped: bool = True) -> dict:
    rounds = [{"round": n, "row": {"label": f"{100 * n} IOPS offered", "offered_iops": 100 * n}, "settings": SETTINGS,
               "recorded_at": f"2026-01-01T00:00:0{n}+00:00",
               "fio": {"jobs": [_job(f"demand-{rw}-{100 * n}", rw, a, rate_iops=100 * n)], "elapsed_s": 1.0}}
              for n, a in enumerate(achieved, 1)]
    verdicts = [{"round": len(rounds), "rounds": 4, "stop": stopped, "reason": "limit"}]
    return {"rounds": rounds, "purge": {"method": "discard", "recorded_at": "2026-01-01T00:00:00+00:00"},
            "wipc": None, "steady_state": {"verdicts": verdicts}, "failure": None}


def _test(segments: dict) -> dict:
    return {"name": "latency_demand", "segments": segments, "purge": None, "wipc": None, "failure": None,
            "superseded": []}


def test_the_knee_is_the_last_offer_delivered_before_the_misses_that_end_the_ramp():
    result = _sweep.build(_test({"randread": _ramp("randread", [100, 198, 250, 260]),
                                 "randwrite": _ramp("randwrite", [99, 150, 300, 400])}))
    assert result["status"] == "complete" and result["rounds_run"] == 8
    read, write = result["ramps"]
    assert read["knee"]["offered_iops"] == 200 and read["max_achieved_iops"] == 260
    assert [s["delivered"] for s in read["steps"]] == [True, True, False, False]
    # One missed step, then the drive followed the offer again up to the last step: no limit, no knee.
    assert write["knee"] is None and not write["limit_reached"]
    lines = _characterisation.section(result, {}, 3, 0)
    assert "| Random read | 200 | 198 | 0.100 | 1.000 | 260 | 4 |" in lines
    assert "| Random write | not reached: the last step, 400, was delivered | — | — | — | 400 | 4 |" in lines


def test_a_sweep_with_a_part_missing_or_unfinished_is_incomplete():
    assert _sweep.build(_test({"randread": _ramp("randread", [100, 50, 50])}))["status"] == "incomplete"
    unfinished = {"randread": _ramp("randread", [100, 200], stopped=False), "randwrite": _ramp("randwrite", [50, 50])}
    assert _sweep.build(_test(unfinished))["status"] == "incomplete"


def test_a_step_without_rate_iops_is_an_error_not_a_figure():
    segment = _ramp("randread", [100])
    segment["rounds"][0]["fio"]["jobs"][0]["options"] = {}
    with pytest.raises(ValueError, match="round 1 of the randread ramp has no rate_iops"):
        _sweep.build(_test({"randread": segment}))
