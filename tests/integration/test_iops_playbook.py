# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The IOPS test end to end: real ansible-playbook, real fio, a real loop device, tiny rounds.

Every expected figure is recomputed here from fio's own JSON output (round-NN.raw.json) with the
standard library, independently of the collection's parser and steady-state code.
"""

from __future__ import annotations

import json
import os
import re
import statistics

import pytest

MIXES = [100, 65, 0]
SIZES = {"64k": 65536, "4k": 4096, "512": 512}
MAX_ROUNDS = 6
WINDOW = 5


def raw_total_iops(raw: dict, mix: int, bs: int) -> float:
    (job,) = [j for j in raw["jobs"] if j["jobname"] == f"iops-r{mix}-{bs}"]
    assert job["error"] == 0
    return job["read"]["iops"] + job["write"]["iops"]


def independent_verdict(values: list[float]) -> dict:
    window = values[-WINDOW:]
    rounds = list(range(len(values) - WINDOW + 1, len(values) + 1))
    avg = statistics.fmean(window)
    fit = statistics.linear_regression(rounds, window)
    data_pct = 100 * (max(window) - min(window)) / avg
    slope_pct = 100 * abs(fit.slope) * (WINDOW - 1) / avg
    return {"rounds": rounds, "average": avg, "data_pct": data_pct, "slope_pct": slope_pct,
            "steady": data_pct <= 20 and slope_pct <= 10}


def test_iops_end_to_end(loop_device, run_pts):
    device = loop_device("128M")
    run = run_pts(
        {"pts_devices": [{"path": device.path, "name": "it-loop", "backing_file": device.image}],
         "pts_allow_destroy": True, "pts_profile": "quick"},
        {"pts_run_iops_mixes": MIXES, "pts_run_iops_block_sizes": list(SIZES), "pts_run_round_seconds": 0.5,
         "pts_run_max_rounds": MAX_ROUNDS},
    )
    assert run.rc == 0, run.stdout[-3000:] + run.stderr[-3000:]
    drive_dir = run.drive_dir("it-loop")
    test_dir = os.path.join(drive_dir, "iops")

    # -- rounds on disk: consecutive from 1, one job file and one fio output each
    count = len(run.rounds("it-loop"))
    assert 1 <= count <= MAX_ROUNDS
    raws = []
    for number in range(1, count + 1):
        with open(os.path.join(test_dir, f"round-{number:02d}.raw.json"), encoding="utf-8") as handle:
            raws.append(json.load(handle))
        with open(os.path.join(test_dir, f"round-{number:02d}.fio"), encoding="utf-8") as handle:
            job = handle.read()
        assert job.count("\nstonewall\n") == len(MIXES) * len(SIZES)
        for option in ("randrepeat=0", "norandommap=1", "refill_buffers=1", "direct=1", "numjobs=2",
                       "iodepth=16", f"filename={device.path}", "runtime=500ms"):
            assert f"\n{option}\n" in job, option

    # -- the stop rule: steady at the last round and not before, or not steady at the limit
    dv = [raw_total_iops(raw, 0, 4096) for raw in raws]
    steady_at = [n for n in range(WINDOW, count + 1) if independent_verdict(dv[:n])["steady"]]
    if steady_at:
        assert steady_at[0] == count
    else:
        assert count == MAX_ROUNDS

    # -- result.json agrees with fio's own numbers
    with open(os.path.join(drive_dir, "result.json"), encoding="utf-8") as handle:
        result = json.load(handle)["tests"]["iops"]
    assert result["dv"]["values"] == pytest.approx(dv)
    assert result["rounds_run"] == count
    expected_status = "steady" if steady_at else "not steady"
    assert result["status"] == expected_status
    if count >= WINDOW:
        mine = independent_verdict(dv)
        assert result["window"]["rounds"] == mine["rounds"]
        assert result["window"]["average"] == pytest.approx(mine["average"])
        assert result["window"]["data_excursion_pct"] == pytest.approx(mine["data_pct"])
        assert result["window"]["slope_excursion_pct"] == pytest.approx(mine["slope_pct"])
    window_raws = raws[-WINDOW:]
    for label, bs in SIZES.items():
        for mix in MIXES:
            mean = statistics.fmean(raw_total_iops(raw, mix, bs) for raw in window_raws)
            assert result["tables"]["iops"][label][str(mix)] == pytest.approx(mean)

    # -- the live verdicts (steady-state.json) are the ones the files give
    with open(os.path.join(test_dir, "steady-state.json"), encoding="utf-8") as handle:
        live = json.load(handle)["verdicts"]
    assert [v["round"] for v in live] == list(range(1, count + 1))
    assert [v["steady"] for v in live] == [n in steady_at for n in range(1, count + 1)]
    assert result["live_verdict_mismatch"] == []

    # -- report.md shows the same figures
    with open(os.path.join(drive_dir, "report.md"), encoding="utf-8") as handle:
        report = handle.read()
    assert "Quick profile — not a qualification" in report
    if steady_at:
        assert f"**Steady state reached at round {count}.**" in report
    else:
        assert "**Not steady**" in report
    row = re.search(r"^\| \*\*4k\*\* \| (.+) \|$", report, re.M).group(1)
    shown = [float(cell.replace(",", "")) for cell in row.split(" | ")]
    assert shown == [pytest.approx(result["tables"]["iops"]["4k"][str(m)], abs=0.051) for m in MIXES]
    for name in ("convergence", "verification", "measurement", "3d"):
        with open(os.path.join(drive_dir, "plots", f"iops-{name}.png"), "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"

    # -- one progress line per round with the DV and the steady-state figures
    lines = re.findall(r"^PTS localhost it-loop iops round (\d+)/6: DV 4k 0/100 iops = ([\d,.]+); .*$",
                       run.stdout, re.M)
    assert [int(number) for number, dummy in lines] == list(range(1, count + 1))
    assert [float(value.replace(",", "")) for dummy, value in lines] == [pytest.approx(v, abs=0.051) for v in dv]

    # -- purge and WIPC as the PTS asks: discard recorded, 2 x capacity written sequentially
    with open(os.path.join(test_dir, "purge.json"), encoding="utf-8") as handle:
        purge = json.load(handle)
    assert purge["method"] == "discard" and purge["secure"] is False
    with open(os.path.join(test_dir, "wipc.raw.json"), encoding="utf-8") as handle:
        wipc = json.load(handle)
    assert wipc["jobs"][0]["write"]["io_bytes"] == 2 * 128 * 1024 * 1024
    assert wipc["jobs"][0]["job options"]["bs"] == "128k"
    with open(os.path.join(drive_dir, "drive.json"), encoding="utf-8") as handle:
        drive = json.load(handle)["drive"]
    assert drive["backing_file"] == device.image and drive["size_bytes"] == 128 * 1024 * 1024
