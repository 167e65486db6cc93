# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Myce/OakGate characterisation tests and HDD mode end to end: real ansible-playbook, real fio, loop devices.

Expected figures are read here from fio's own JSON (round-NN.raw.json) and from the job files fio ran.
"""

from __future__ import annotations

import glob
import os
import re

from conftest import ROOT, load, text
from contracts import validate_run

QUICK = {
    "pts_tests": ["latency_demand", "rw_sweep", "mixed_sweep", "entropy_sweep"],
    "pts_run_sweep_workloads": ["randread", "write"],
    "pts_run_entropy_queue_depths": [32],
    # A smaller first step than the quick profile's 25,000: a loop device on a busy 2-core machine still delivers it
    # (10,000 randwrite IOPS it did not, twice, beside the trial's fio).
    "pts_run_demand_start_iops": 2000,
    "pts_run_demand_step_iops": 10000,
}
START, STEP = 2000, 10000


def rounds(directory):
    """(job file text, fio's raw JSON) of every round, in order."""
    count = len(glob.glob(os.path.join(directory, "round-[0-9][0-9].raw.json")))
    return [(text(os.path.join(directory, f"round-{n:02d}.fio")), load(os.path.join(directory, f"round-{n:02d}.raw.json")))
            for n in range(1, count + 1)]


def sections(job_text):
    """Each job section's options, by section name."""
    found, current = {}, None
    for line in job_text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = found.setdefault(line[1:-1], {})
        elif current is not None and "=" in line:
            key, value = line.split("=", 1)
            current[key] = value
    return found


def raw_iops(job):
    return job["read"]["iops"] + job["write"]["iops"]


def test_the_characterisation_tests_run_what_they_say(loop_device, run_pts):
    device = loop_device("256M")
    spec = {"path": device.path, "name": "d1", "backing_file": device.image}
    run = run_pts({"pts_devices": [spec], "pts_allow_destroy": True, "pts_profile": "quick"}, QUICK)
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    drive_dir = run.drive_dir("d1")
    result = load(os.path.join(drive_dir, "result.json"))["tests"]
    assert re.search(r"PTS localhost d1 latency_demand randread round 1/\d+: offered 2,000 IOPS, achieved ", run.stdout)

    # Latency vs demand: each step offers rate_iops; up to the knee the drive delivers it, and fio never runs above it.
    for ramp in result["latency_demand"]["ramps"]:
        steps = rounds(os.path.join(drive_dir, "latency_demand", ramp["name"]))
        delivered = []
        for number, (job_text, raw) in enumerate(steps, 1):
            (job,) = raw["jobs"]
            offered = START + STEP * (number - 1)
            assert int(sections(job_text)[job["jobname"]]["rate_iops"]) == offered
            achieved = raw_iops(job)
            assert achieved <= offered * 1.02, (ramp["name"], number, achieved)
            delivered.append(achieved >= offered * 0.95)
        assert any(delivered), f"{ramp['name']}: not even {START:,} IOPS delivered"
        # The knee: the last step delivered before the misses that ended the ramp.
        assert ramp["knee"]["offered_iops"] == START + STEP * (max(n for n, ok in enumerate(delivered, 1) if ok) - 1)
        # The ramp ends after two misses in a row, not before.
        assert delivered[-2:] == [False, False] and "False, False" not in str(delivered[:-1])
        assert [s["achieved_iops"] for s in ramp["steps"]] == [raw_iops(r["jobs"][0]) for dummy, r in steps]

    # Reads/writes sweep: one round per queue depth, one cell per block size, at the queue depth in the job file.
    sweep = result["rw_sweep"]
    assert sweep["status"] == "complete" and [s["name"] for s in sweep["segments"]] == ["randread", "write"]
    for segment in sweep["segments"]:
        steps = rounds(os.path.join(drive_dir, "rw_sweep", segment["name"]))
        assert len(steps) == 2
        for row, (job_text, raw), qd in zip(segment["rows"], steps, (4, 32)):
            options = sections(job_text)
            assert {o["iodepth"] for name, o in options.items() if name != "global"} == {str(qd)}
            assert [(c["iodepth"], c["bs"]) for c in row["cells"]] == [(qd, 4096), (qd, 32768)]
            assert [c["iops"] for c in row["cells"]] == [raw_iops(j) for j in raw["jobs"]]
            assert {o["rw"] for name, o in options.items() if name != "global"} == {segment["name"]}

    # Mixed sweep: every cell's read share is what its rwmixread asked for.
    mixed = result["mixed_sweep"]["segments"][0]
    for job_text, raw in rounds(os.path.join(drive_dir, "mixed_sweep")):
        options = sections(job_text)
        for job in raw["jobs"]:
            mix = int(options[job["jobname"]].get("rwmixread", 100 if options[job["jobname"]]["rw"] == "randread" else 0))
            share = 100.0 * job["read"]["total_ios"] / (job["read"]["total_ios"] + job["write"]["total_ios"])
            assert abs(share - mix) <= 5, (job["jobname"], share, mix)
    assert [c["mix"] for c in mixed["rows"][0]["cells"]] == [100, 99, 95, 90, 70, 50, 0]

    # Entropy sweep: the job files carry the compressibility asked for (100 - entropy) and fio ran with it.
    for part in ("mix-0-100", "mix-70-30"):
        (row,) = [r for s in result["entropy_sweep"]["segments"] if s["name"] == part for r in s["rows"]]
        assert [c["entropy_pct"] for c in row["cells"]] == [5, 50, 100]
        ((job_text, raw),) = rounds(os.path.join(drive_dir, "entropy_sweep", part))
        options = sections(job_text)
        for job, entropy in zip(raw["jobs"], (5, 50, 100)):
            assert options[job["jobname"]]["buffer_compress_percentage"] == str(100 - entropy)
            assert job["job options"]["buffer_compress_percentage"] == str(100 - entropy)
            assert job["write"]["total_ios"] > 0
        assert "refill_buffers=1" in job_text

    # Every part was purged and preconditioned with timed 4k random writes as the methodology asks.
    for part in ("latency_demand/randread", "latency_demand/randwrite", "rw_sweep", "mixed_sweep",
                 "entropy_sweep/mix-0-100", "entropy_sweep/mix-70-30"):
        assert load(os.path.join(drive_dir, part, "purge.json"))["method"] == "discard"
        wipc = text(os.path.join(drive_dir, part, "wipc.fio"))
        assert "rw=randwrite" in wipc and "bs=4k" in wipc and "iodepth=32" in wipc and "zero_buffers=1" in wipc

    report = text(os.path.join(drive_dir, "report.md"))
    for heading in ("Latency vs Demand", "Reads and Writes Sweep", "Mixed Reads/Writes Sweep", "Entropy Sweep",
                    "Myce/OakGate characterisation"):
        assert heading in report, heading
    plots = load(os.path.join(drive_dir, "result.json"))["plots"]
    assert set(plots["rw_sweep"]) == {"heat-randread", "heat-write", "lines"}
    for drawn in plots.values():
        for path in drawn.values():
            assert os.path.getsize(os.path.join(drive_dir, path)) > 10000, path


def test_a_drive_in_hdd_mode_runs_by_zone(loop_device, run_pts):
    device = loop_device("256M", rotational=True)
    spec = {"path": device.path, "name": "disk", "backing_file": device.image, "mode": "hdd"}
    run = run_pts({"pts_devices": [spec], "pts_allow_destroy": True, "pts_profile": "quick"},
                  {"pts_tests": ["iops", "throughput", "latency"], "pts_run_hdd_iops_block_sizes": ["16k", "4k"]})
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    # The change of test is said in the plan line: the HDD tests in place of the ones selected, and what is left out.
    assert re.search(r"PTS plan localhost disk: HDD mode set by the drive entry \(runs iops as hdd_iops, throughput "
                     r"as hdd_throughput\); hdd_iops 24 runs, hdd_throughput 16 runs; .*latency not run: an SSD test, "
                     r"and the drive runs in HDD mode", run.stdout)
    drive_dir = run.drive_dir("disk")
    assert sorted(e for e in os.listdir(drive_dir) if os.path.isdir(os.path.join(drive_dir, e))) == [
        "hdd_iops", "hdd_throughput", "plots"]
    size = 256 * 2 ** 20
    for test in ("hdd_iops", "hdd_throughput"):
        assert not os.path.exists(os.path.join(drive_dir, test, "purge.json"))  # no purge, no WIPC in HDD mode
        assert not os.path.exists(os.path.join(drive_dir, test, "wipc.json"))
        zones = []
        for job_text, raw in rounds(os.path.join(drive_dir, test)):
            cells = {k: v for k, v in sections(job_text).items() if k != "global"}
            assert len({(c["offset"], c["size"]) for c in cells.values()}) == 1
            cell = next(iter(cells.values()))
            zones.append((int(cell["offset"]), int(cell["size"])))
            assert all(raw_iops(job) > 0 for job in raw["jobs"])
        # Four zones, outer (LBA 0) to inner, that tile the whole device.
        assert zones == [(i * size // 4, size // 4) for i in range(4)]
    result = load(os.path.join(drive_dir, "result.json"))["tests"]
    assert result["hdd_iops"]["status"] == "complete" and len(result["hdd_iops"]["segments"][0]["rows"]) == 4
    report = text(os.path.join(drive_dir, "report.md"))
    assert "| Test mode | HDD mode set by the drive entry (runs iops as hdd_iops, throughput as hdd_throughput) |" \
        in report
    # The zone rounds answer to the round file's contract too.
    assert validate_run(run.run_dir, os.path.join(ROOT, "meta", "schemas"))["round"] >= 8
    assert "TKperf HDD mode (HDD IOPS by Zone, HDD Throughput by Zone)" in report


def test_the_drive_mode_can_be_forced_either_way(loop_device, run_pts):
    disk = loop_device("64M", rotational=True)
    run = run_pts({"pts_devices": [{"path": disk.path, "name": "disk", "mode": "ssd"}], "pts_allow_destroy": True,
                   "pts_profile": "quick", "pts_drive_mode": "hdd"}, {"pts_tests": ["iops"]}, check=True)
    assert run.rc == 0, (run.stdout + run.stderr)[-3000:]
    assert "PTS plan localhost disk: SSD mode set by the drive entry; iops 56 runs" in run.stdout
    flash = loop_device("64M")
    run = run_pts({"pts_devices": [{"path": flash.path, "name": "flash"}], "pts_allow_destroy": True,
                   "pts_profile": "quick", "pts_drive_mode": "hdd"}, {"pts_tests": ["iops"]}, check=True)
    assert "PTS plan localhost flash: HDD mode set by pts_drive_mode (runs iops as hdd_iops); hdd_iops 36 runs" \
        in run.stdout
    # A loop device's rotational flag is no evidence of a disk: drive mode auto tests it as an SSD.
    run = run_pts({"pts_devices": [{"path": disk.path, "name": "disk"}], "pts_allow_destroy": True,
                   "pts_profile": "quick"}, {"pts_tests": ["iops"]}, check=True)
    assert run.rc == 0, (run.stdout + run.stderr)[-3000:]
    assert "PTS plan localhost disk: SSD mode: a loop device (its rotational flag says nothing of the file behind " \
           "it); iops 56 runs" in run.stdout
    assert "[WARNING]" not in run.stdout + run.stderr, (run.stdout + run.stderr)[-3000:]
