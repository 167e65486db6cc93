# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The run's console lines, word for word: each round with its DVs, write saturation, sweep rows, XSR samples, the
plan and what a resume keeps, and --check's identity and guard lines. The actions print them; these are the texts."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _stop_rules
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _progress

RUN = "run-7"


def context(test: str = "iops", **extra) -> dict:
    return dict({"run_id": RUN, "host": "h1", "drive": "d1", "test": test, "segment": ""}, **extra)


def steady_verdict(number: int, steady: bool, value: float | None = 12345.67, metric: str = "iops", bs=4096,
                   mix: int = 0, data: float | None = 12.34, slope: float | None = 4.56, **dv) -> dict:
    return {"round": number, "steady": steady, "stop": steady, "max_rounds": 25,
            "reason": f"steady after round {number}" if steady else f"not steady after round {number}",
            "dvs": [dict({"name": "dv", "mix": mix, "bs": bs, "metric": metric, "dv_value": value, "steady": steady,
                          "data_excursion_pct": data, "slope_excursion_pct": slope,
                          "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0}, **dv)]}


# --- rounds -----------------------------------------------------------------------------------------------------------

def test_a_round_line_not_steady_then_steady():
    assert _progress.round_line("h1", context(), steady_verdict(1, False)) == (
        "PTS h1 d1 iops round 1/25: 4k 0/100 IOPS = 12,345.7 IOPS (data 12.3 %, slope 4.6 %); limits 20 % / 10 %; "
        "not steady")
    assert _progress.round_line("h1", context(), steady_verdict(2, True, value=23456.78, data=3.0, slope=None)) == (
        "PTS h1 d1 iops round 2/25: 4k 0/100 IOPS = 23,456.8 IOPS (data 3.0 %, slope n/a); limits 20 % / 10 %; "
        "STEADY")


@pytest.mark.parametrize("dv, shown", [
    ({"metric": "iops", "bs": 4096, "mix": 65, "value": 81234.5}, "4k 65/35 IOPS = 81,234.5 IOPS"),
    ({"metric": "lat_mean_ns", "bs": 512, "mix": 100, "value": 123456.0}, "512 100/0 mean latency = 0.12 ms"),
    ({"metric": "bw_bytes", "bs": 1048576, "mix": 100, "value": 2.5e9}, "1024k read = 2,500.00 MB/s"),
    ({"metric": "bw_bytes", "bs": "128k", "mix": 0, "value": None}, "128k write = n/a MB/s"),
    # A named section's DV (CBW's TC32/QD32) names itself.
    ({"metric": "iops", "bs": 4096, "mix": 0, "value": 5e5, "job": "tc32-qd32", "name": "TC32/QD32"},
     "TC32/QD32 = 500,000.0 IOPS"),
])
def test_the_round_line_names_each_kind_of_dv(dv, shown):
    named = {key: dv[key] for key in ("job", "name") if key in dv}
    verdict = steady_verdict(3, False, value=dv["value"], metric=dv["metric"], bs=dv["bs"], mix=dv["mix"],
                             data=None, slope=0.04, **named)
    assert _progress.round_line("h1", context(), verdict) == (
        f"PTS h1 d1 iops round 3/25: {shown} (data n/a, slope 0.0 %); limits 20 % / 10 %; not steady")


def test_a_round_line_of_several_dvs_and_a_segment():
    verdict = steady_verdict(4, False)
    verdict["dvs"].append(dict(verdict["dvs"][0], mix=100, dv_value=2.0e4, data_excursion_pct=1.0,
                               slope_excursion_pct=2.0, max_data_excursion_pct=15.0))
    line = _progress.round_line("h1", context("throughput", segment="1024k"), verdict)
    assert line == ("PTS h1 d1 throughput 1024k round 4/25: 4k 0/100 IOPS = 12,345.7 IOPS (data 12.3 %, slope 4.6 %); "
                    "4k 100/0 IOPS = 20,000.0 IOPS (data 1.0 %, slope 2.0 %); limits 20 % / 10 %; not steady")


def test_write_saturation_rounds():
    wsat = {"round": 7, "stop": False, "reason": "written 1.8 of 4.0 GiB", "iops": 45678.94, "lat_mean_ns": 350123.0}
    assert _progress.wsat_line("h1", context("wsat"), wsat) == (
        "PTS h1 d1 wsat round 7: 4k random write 45,678.9 IOPS, mean latency 0.350 ms; written 1.8 of 4.0 GiB")
    done = dict(wsat, round=8, stop=True, lat_mean_ns=None, reason="4.0 GiB written")
    assert _progress.wsat_line("h1", context("wsat"), done) == (
        "PTS h1 d1 wsat round 8: 4k random write 45,678.9 IOPS, mean latency n/a; 4.0 GiB written; DONE")


# --- sweeps and samples -----------------------------------------------------------------------------------------------

def _cells(count: int) -> list[dict]:
    return [{"name": f"s{i}", "iops": 100.0 * i, "mb_s": 0.4 * i, "lat_mean_ns": 1e6 * i} for i in range(1, count + 1)]


@pytest.mark.parametrize("row, shown", [
    ({"label": "QD 1", "cells": _cells(2)}, "QD 1: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s"),
    ({"label": "TC 4", "cells": _cells(6)},
     "TC 4: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s; s3 300 IOPS 1.2 MB/s; s4 400 IOPS 1.6 MB/s; +2 more"),
    ({"label": "TC 8", "cells": _cells(8)},
     "TC 8: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s; s3 300 IOPS 1.2 MB/s; s4 400 IOPS 1.6 MB/s; +4 more"),
    # HIR's bursts: more than 8 sections in one round are summed up.
    ({"label": "burst 5 s / idle 10 s", "cells": _cells(9)},
     "burst 5 s / idle 10 s: 9 sections, IOPS mean 500, min 100, max 900"),
    ({"label": "bursts", "cells": _cells(360)}, "bursts: 360 sections, IOPS mean 18,050, min 100, max 36,000"),
    ({"label": "offer 5000", "cells": _cells(1), "offered_iops": 5000, "achieved_iops": 4987.6, "delivered": True},
     "offered 5,000 IOPS, achieved 4,988 (delivered), mean latency 1.000 ms"),
    ({"label": "offer 9000", "cells": [], "offered_iops": 9000, "achieved_iops": 0, "delivered": False},
     "offered 9,000 IOPS, achieved 0 (NOT delivered), mean latency n/a"),
])
def test_a_sweep_row_is_summarised(row, shown):
    payload = dict(row, round=3, rounds=12, stop=False, reason="row 3 of 12")
    assert _progress.sweep_line("h1", context("hir", segment="burst"), payload) == (
        f"PTS h1 d1 hir burst round 3/12: {shown}; row 3 of 12")


def test_the_last_sweep_row_says_done():
    payload = {"round": 12, "rounds": 12, "label": "QD 32", "cells": _cells(1), "stop": True,
               "reason": "sweep complete"}
    assert _progress.sweep_line("h1", context("cbw"), payload) == (
        "PTS h1 d1 cbw round 12/12: QD 32: s1 100 IOPS 0.4 MB/s; sweep complete; DONE")


def test_an_xsr_sample_and_the_last():
    sample = {"round": 2, "rounds": 10, "label": "seq write", "stop": False, "reason": "fio's run goes on",
              "mb_s": 1234.56, "iops": 301.4, "lat_mean_ns": 1234567.0, "lat_max_ns": 9876543.0}
    assert _progress.sample_line("h1", context("xsr", segment="group-1"), sample) == (
        "PTS h1 d1 xsr group-1 sample 2 of 10: 1,234.6 MB/s, 301 IOPS, mean response time 1.235 ms, max "
        "9.877 ms; fio's run goes on")
    last = dict(sample, round=11, stop=True, reason="last sample: fio's run of the group ended", lat_max_ns=None)
    assert _progress.sample_line("h1", context("xsr", segment="group-1"), last) == (
        "PTS h1 d1 xsr group-1 sample 11 (10 planned): 1,234.6 MB/s, 301 IOPS, mean response time 1.235 ms, max n/a; "
        "last sample: fio's run of the group ended; DONE")


# --- the plan ---------------------------------------------------------------------------------------------------------

def _plan(done: bool = False, **drive) -> dict:
    tests = [{"test": "iops", "combinations": 56, "min_s": 600, "max_s": 1200, "done": done,
              "status": "complete" if done else None},
             {"test": "wsat", "combinations": 1, "min_s": 300, "max_s": 600, "done": False, "status": None}]
    return {"run_id": RUN, "estimate_note": "rounds x round time", "settings": {"purge_method": "auto",
                                                                                "write_cache": "keep"},
            "drives": [dict({"key": "d1", "tests": tests}, **drive)]}


@pytest.mark.parametrize("plan, left, lines", [
    (_plan(), (900.0, 1800.0),
     ["PTS plan h1 d1: iops 56 runs, wsat 1 runs; estimated 15.0-30.0 min (rounds x round time)"]),
    (_plan(mode_reason="SSD mode (non-rotational)", skipped=["hdd_iops: an HDD test"]), (900.0, 1800.0),
     ["PTS plan h1 d1: SSD mode (non-rotational); iops 56 runs, wsat 1 runs; estimated 15.0-30.0 min "
      "(rounds x round time); hdd_iops: an HDD test"]),
    # A resume keeps the finished tests and estimates only those left.
    (_plan(done=True), (300.0, 600.0),
     [f"PTS resume h1 d1: run {RUN} already finished iops (complete); kept, not run again",
      "PTS plan h1 d1: wsat 1 runs; estimated 5.0-10.0 min (rounds x round time)"]),
])
def test_a_drives_plan_lines(plan, left, lines):
    assert _progress.plan_lines("h1", plan, plan["drives"][0], left) == lines


def test_a_resume_that_finished_everything_has_no_test_left():
    plan = _plan(done=True)
    plan["drives"][0]["tests"][1].update(done=True, status="complete")
    assert _progress.plan_lines("h2", plan, plan["drives"][0], None) == [
        f"PTS resume h2 d1: run {RUN} already finished iops (complete), wsat (complete); kept, not run again",
        "PTS plan h2 d1: no test; estimated 0.0-0.0 min (rounds x round time)"]


# --- --check ----------------------------------------------------------------------------------------------------------

CHECK_DRIVES = [
    {"key": "d1", "resolved": "/dev/nvme0n1", "vendor": "ACME", "model": "X1", "serial": "S123", "wwn": "eui.0001",
     "firmware": "2.1", "size_bytes": 1000204886016, "interface": "nvme", "purge_methods": ["sanitize-block", "format"],
     "device_write_cache": True},
    {"key": "d2", "resolved": "/dev/sdb", "vendor": "WDC", "model": "HDD 8T\x1b[2J\x1b[31m", "serial": "Z9",
     "wwn": "naa.5000cca2", "firmware": "SN04", "size_bytes": 8001563222016, "interface": "sata",
     "purge_methods": [], "device_write_cache": None},
    {"key": "d3", "size_bytes": None},
]


def test_check_says_each_drive_and_the_guards_verdict():
    data = {"pts_drives": CHECK_DRIVES, "pts_guard": [
        {"key": "d1", "passed": True}, {"key": "d2", "passed": False, "refusals": ["mounted at /srv", "held by md0"]}]}
    assert [_progress.plain(line) for line in _progress.check_lines("h1", data)] == [
        "PTS check h1 d1: /dev/nvme0n1 ACME X1, serial S123, WWN eui.0001, firmware 2.1, 1,000,204,886,016 bytes, "
        "nvme; purge methods sanitize-block, format (auto would use sanitize-block); write cache enabled",
        # The drive's own strings reach the console without terminal escapes.
        "PTS check h1 d2: /dev/sdb WDC HDD 8T, serial Z9, WWN naa.5000cca2, firmware SN04, 8,001,563,222,016 bytes, "
        "sata; purge methods none (auto would use none: the test would fail); write cache not applicable",
        "PTS check h1 d3: not found",
        "PTS check h1 d1: the guard passes",
        "PTS check h1 d2: the guard REFUSES: mounted at /srv; held by md0",
    ]
    assert _progress.check_lines("h1", {"pts_host": {}}) == []


def test_check_says_the_settings_and_that_nothing_was_written():
    assert _progress.check_settings_line("h1", _plan()) == (
        "PTS check h1: purge method auto, write cache keep; --check wrote nothing")


# --- plain text for the console ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, shown", [
    ("HDD 8T\x1b[2J\x1b[31m", "HDD 8T"),  # CSI: clear the screen, red
    ("X\x1b]0;owned\x07Y", "XY"),  # OSC: the terminal's title
    ("a\tb\r\nc", "a b c"),  # line breaks and tabs: one line
    ("bell\x07 \x9b31m", "bell\ufffd "),  # a lone control character is shown as such; C1 CSI removed
    ("ACME X1 (rev 2)", "ACME X1 (rev 2)"),
    (12345, "12345"),
    ("stor\u202e10-rots", "stor\ufffd10-rots"),  # a right-to-left override cannot reverse what follows
    ("bay\u20281\u2029", "bay\ufffd1\ufffd"),  # line and paragraph separators start no line
    ("Laufwerk \u00e4 \u65e5\u672c", "Laufwerk \u00e4 \u65e5\u672c"),
])
def test_plain_takes_terminal_escapes_and_control_characters_out(raw, shown):
    assert _progress.plain(raw) == shown


@pytest.mark.parametrize("dv, label", [
    ({"bs": 4096, "mix": 0, "metric": "iops"}, "4k 0/100 IOPS"),
    ({"bs": 1048576, "mix": 0, "metric": "bw_bytes"}, "1024k write"),
    ({"bs": "8k", "mix": 100, "metric": "lat_mean_ns"}, "8k 100/0 mean latency"),
    ({"job": "pre", "name": "HIR preconditioning", "bs": 4096, "mix": 0, "metric": "iops"}, "HIR preconditioning"),
])
def test_dv_labels(dv, label):
    assert _progress.dv_label(dv) == label


def test_every_stop_rules_verdict_has_its_progress_line():
    """pts_segment prints a round's line by the key its stop rule files the verdict under."""
    assert set(_progress.LINES) == set(_stop_rules.PAYLOAD_KEYS)
    assert _progress.LINES == {"pts_steady_state": _progress.round_line, "pts_wsat": _progress.wsat_line,
                               "pts_sweep": _progress.sweep_line, "pts_sample": _progress.sample_line}
