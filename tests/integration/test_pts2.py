# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SNIA PTS 2.0.2 end to end on loop devices: pts_spec "2.0" (IOPS with three tracking variables, throughput with a
WIPC per block size) and the tests PTS-E 1.1 does not have - HIR, XSR, CBW and DIRTH - each run by playbooks/pts.yml,
their report tables checked against values recomputed here from the round files fio's output went into, and every
file they write validated against its JSON Schema (meta/schemas/)."""

from __future__ import annotations

import glob
import os
import re
import statistics

import pytest

from conftest import load, text
from contracts import assert_files_validate

# Rounds of 0.5 s on a small matrix, a window of 2 in at most 3 rounds: the loops, not the drive, are under test.
SHORT = {"pts_run_max_rounds": 3, "pts_run_window": 2}


def round_files(directory):
    """The parsed round files of one segment, in round order."""
    paths = glob.glob(os.path.join(directory, "round-*.json"))
    numbered = sorted((int(m.group(1)), p) for p in paths if (m := re.match(r"round-(\d+)\.json$", os.path.basename(p))))
    return [load(p) for dummy, p in numbered]


def raw_jobs(directory, number):
    """fio's own JSON of one round, by section name."""
    raw = load(os.path.join(directory, f"round-{number:02d}.raw.json"))
    return {job["jobname"]: job for job in raw["jobs"]}


def raw_iops(job):
    return job["read"]["iops"] + job["write"]["iops"]


def device_vars(device, **extra):
    return {"pts_devices": [{"path": device.path, "name": "d1", "backing_file": device.image}],
            "pts_allow_destroy": True, "pts_profile": "quick", **extra}


def test_spec_2_0_tracks_three_iops_variables_and_preconditions_each_throughput_block_size(loop_device, run_pts):
    device = loop_device("64M")
    extra = dict(SHORT, pts_spec="2.0", pts_tests=["iops", "throughput"],
                 pts_run_iops_block_sizes=["1024k", "64k", "4k"], pts_run_iops_mixes=[100, 65, 0])
    run = run_pts(device_vars(device), extra)
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    assert_files_validate(run)
    drive_dir = run.drive_dir("d1")
    plan = load(os.path.join(run.run_dir, "localhost", "plan.json"))["plan"]
    assert plan["spec"] == "2.0" and plan["variables"]["pts_run_spec"] == "2.0"

    # IOPS: 4 threads x QD 32 (PTS 2.0's OIO), three tracking variables judged after every round, all from fio's own
    # IOPS of the three combinations.
    iops_dir = os.path.join(drive_dir, "iops")
    rounds = round_files(iops_dir)
    assert rounds and all(r["settings"]["spec"] == "2.0" for r in rounds)
    job_text = text(os.path.join(iops_dir, "round-01.fio"))
    assert "numjobs=4" in job_text and "iodepth=32" in job_text and "percentile_list=50:99:99.9:99.99:99.999" in job_text
    for rnd in rounds:
        jobs = raw_jobs(iops_dir, rnd["round"])
        judged = {(dv["bs"], dv["mix"]): dv["dv_value"] for dv in rnd["verdict"]["dvs"]}
        assert judged == pytest.approx({(4096, 0): raw_iops(jobs["iops-r0-4096"]),
                                        (65536, 65): raw_iops(jobs["iops-r65-65536"]),
                                        (1048576, 100): raw_iops(jobs["iops-r100-1048576"])})
        # The test stops only when all three are steady.
        assert rnd["verdict"]["steady"] == all(dv["steady"] for dv in rnd["verdict"]["dvs"])
    assert rounds[-1]["verdict"]["steady"] or len(rounds) == 3

    # Throughput: 1024k then 128k, each purged and then preconditioned with 2 x capacity of sequential writes at its
    # own block size before its first round reads anything.
    tp_dir = os.path.join(drive_dir, "throughput")
    assert sorted(os.listdir(tp_dir)) == ["1024k", "128k"]
    for name, bs in (("1024k", 1 << 20), ("128k", 128 << 10)):
        segment = os.path.join(tp_dir, name)
        purge, wipc = load(os.path.join(segment, "purge.json")), load(os.path.join(segment, "wipc.json"))
        (job,) = wipc["fio"]["jobs"]
        assert job["bs"] == bs and job["rw"] == "write" and job["write"]["io_bytes"] == 2 * (64 << 20)
        first_round = load(os.path.join(segment, "round-01.json"))
        assert purge["recorded_at"] < wipc["recorded_at"] < first_round["recorded_at"]
        assert first_round["settings"]["segment_wipc"] is True
    report = text(os.path.join(drive_dir, "report.md"))
    assert "The SNIA tests follow SNIA SSS PTS 2.0.2 Enterprise." in report
    assert "Test specification | SNIA SSS PTS 2.0.2 Enterprise (IOPS, Throughput)" in report
    result = load(os.path.join(drive_dir, "result.json"))["tests"]
    assert [(dv["bs"], dv["mix"]) for dv in result["iops"]["dvs"]] == [("4k", 0), ("64k", 65), ("1024k", 100)]


def test_hir_runs_its_wait_states_on_schedule_and_reports_what_fio_measured(loop_device, run_pts):
    device = loop_device("64M")
    extra = dict(SHORT, pts_tests=["hir"], pts_run_hir_wait_states=[1, 3])
    run = run_pts(device_vars(device), extra)
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    assert_files_validate(run)
    hir_dir = os.path.join(run.drive_dir("d1"), "hir")
    assert sorted(os.listdir(hir_dir)) == ["precondition", "purge.json", "ws1", "ws3"]
    result = load(os.path.join(run.drive_dir("d1"), "result.json"))["tests"]["hir"]

    # Preconditioning: 4k random writes, one section a round, until its IOPS are steady (or the round limit).
    pc = round_files(os.path.join(hir_dir, "precondition"))
    values = [raw_iops(raw_jobs(os.path.join(hir_dir, "precondition"), r["round"])["hir-pc"]) for r in pc]
    assert result["precondition"]["dv"]["values"] == pytest.approx(values)
    average = statistics.mean(values[-2:])
    assert result["precondition"]["rounds_run"] == len(pc) and pc[-1]["verdict"]["stop"]
    if result["precondition"]["steady"]:
        assert result["precondition"]["iops"] == pytest.approx(average)

    for state, entry in zip((1, 3), result["wait_states"]):
        directory = os.path.join(hir_dir, f"ws{state}")
        bursts, baseline = round_files(directory)
        assert (bursts["row"]["phase"], baseline["row"]["phase"]) == ("bursts", "baseline")
        # The bursts start on a fixed schedule counted from fio's start: 0.5 s of writes, then 0.5 x state s idle.
        job_text = text(os.path.join(directory, "round-01.fio"))
        period_ms = int(500 * (1 + state))
        assert [f"startdelay={n * period_ms}ms" in job_text for n in (1, 2)] == [True, True]
        burst_iops = [raw_iops(job) for name, job in sorted(raw_jobs(directory, 1).items())]
        (base_job,) = raw_jobs(directory, 2).values()
        assert len(burst_iops) == 3 and base_job["jobname"] == f"hir-ws{state}-base"
        # Each burst's IOPS and the baseline's mean are fio's own for their sections.
        assert entry["bursts"]["iops"] == pytest.approx(burst_iops, rel=1e-9)
        assert entry["baseline"]["mean"] == pytest.approx(raw_iops(base_job), rel=1e-9)
        assert entry["bursts"]["mean"] == pytest.approx(statistics.mean(burst_iops), rel=1e-9)
        assert entry["gain"] == pytest.approx(entry["bursts"]["mean"] / result["precondition"]["iops"])
    report = text(os.path.join(run.drive_dir("d1"), "report.md"))
    assert "## 4 Host Idle Recovery" in report
    assert re.search(rf"\| WS3 \| 1\.50 \| [\d.]+ \([\d.]+ – [\d.]+\) \| 3 \| {entry['bursts']['mean']:,.1f} \|", report)


def test_xsr_runs_each_group_as_one_sequential_or_random_stream(loop_device, run_pts):
    device = loop_device("256M")
    extra = {"pts_tests": ["xsr"], "pts_run_xsr_group_minutes": [0.03, 0.03, 0.03], "pts_run_xsr_sample_seconds": 0.3}
    run = run_pts(device_vars(device), extra)
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    assert_files_validate(run)
    xsr_dir = os.path.join(run.drive_dir("d1"), "xsr")
    result = load(os.path.join(run.drive_dir("d1"), "result.json"))["tests"]["xsr"]
    assert result["status"] == "complete" and result["time_base"] == "status"
    for index, (group, rw, bs) in enumerate((("group1", "write", 1 << 20), ("group2", "randwrite", 8 << 10),
                                             ("group3", "write", 1 << 20))):
        directory = os.path.join(xsr_dir, group)
        samples = round_files(directory)
        # One fio run of 6 x 0.3 s, cut at its status dumps while it ran (a short first and last window: 6 or 7).
        assert len(samples) in (6, 7) and samples[-1]["verdict"]["stop"]
        job_text = text(os.path.join(directory, "round-01.fio"))
        assert f"rw={rw}\n" in job_text and f"bs={bs}\n" in job_text and "runtime=1800ms" in job_text
        # A sequential group is one stream from LBA 0 (no offset of its own), wrapping at the drive's end.
        assert "offset=" not in job_text
        # The report's samples are those status-dump windows, each fio's counts.
        table = result["groups"][index]
        mb_s = [s["mb_s"] for s in result["samples"] if s["group"] == index + 1]
        assert table["samples"] == len(mb_s) == len(samples)
        assert mb_s == pytest.approx([r["fio"]["jobs"][0]["total"]["bw_bytes"] / 1e6 for r in samples], rel=1e-9)
    group1 = result["groups"][0]["mean_mb_s"]
    recovery = result["transitions"]["recovery"]
    tolerance = result["tolerance_pct"]
    group3 = [s for s in result["samples"] if s["group"] == 3]
    first = next((s["sample"] for s in group3 if s["mb_s"] >= group1 * (1 - tolerance / 100)), None)
    assert recovery["sample"] == first
    assert "PTS localhost d1 xsr group2 sample 6 of 6: " in run.stdout and "## 3 Cross Stimulus Recovery" in \
        text(os.path.join(run.drive_dir("d1"), "report.md"))


@pytest.mark.parametrize("name, extra", [
    ("cbw", {}),
    ("dirth", {"pts_run_dirth_block_size": "16k", "pts_run_dirth_mix": 70}),
])
def test_cbw_and_dirth_choose_their_operating_points_from_the_loops_window_and_measure_their_histograms(
        loop_device, run_pts, name, extra):
    device = loop_device("64M")
    run = run_pts(device_vars(device), dict(SHORT, pts_tests=[name], **extra))
    assert run.rc == 0, (run.stdout + run.stderr)[-4000:]
    assert_files_validate(run)
    test_dir = os.path.join(run.drive_dir("d1"), name)
    assert sorted(e for e in os.listdir(test_dir) if os.path.isdir(os.path.join(test_dir, e))) == [
        "loop", "points", "precondition"]
    purge, wipc = load(os.path.join(test_dir, "purge.json")), load(os.path.join(test_dir, "wipc.json"))
    assert purge["recorded_at"] < wipc["recorded_at"] and wipc["fio"]["jobs"][0]["write"]["io_bytes"] == 2 * (64 << 20)
    result = load(os.path.join(run.drive_dir("d1"), "result.json"))["tests"][name]

    # The TC x QD loop: every point its own section with its own threads and queue depth, at the test's mix.
    loop_dir = os.path.join(test_dir, "loop")
    loop = round_files(loop_dir)
    sections = raw_jobs(loop_dir, 1)
    assert list(sections) == [f"{name}-prewrite", f"{name}-tc2-qd4", f"{name}-tc2-qd1", f"{name}-tc1-qd4",
                              f"{name}-tc1-qd1"]
    options = sections[f"{name}-tc2-qd1"]["job options"]
    assert (options["numjobs"], options["iodepth"]) == ("2", "1")
    assert options["rwmixread"] == ("40" if name == "cbw" else "70")
    if name == "cbw":
        assert options["bssplit"].startswith("512/4:1k/1:") and options["random_distribution"] == "zoned:50/5:30/15:20/80"
    else:
        assert options["bs"] == "16384" and "bssplit" not in options
    # The window averages, recomputed from fio's own figures of the loop's last rounds (the window).
    window = [r["round"] for r in loop][-2:]
    grid = {}
    for tc in (2, 1):
        for qd in (4, 1):
            jobs = [raw_jobs(loop_dir, n)[f"{name}-tc{tc}-qd{qd}"] for n in window]
            ios = [j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs]
            art = [(j["read"]["lat_ns"]["mean"] * j["read"]["total_ios"] + j["write"]["lat_ns"]["mean"]
                    * j["write"]["total_ios"]) / n / 1e6 for j, n in zip(jobs, ios)]
            grid[(tc, qd)] = {"iops": statistics.mean(raw_iops(j) for j in jobs), "art_ms": statistics.mean(art)}
    reported = {(cell["tc"], cell["qd"]): cell for cell in result["loop"]["grid"]}
    for key, value in grid.items():
        assert reported[key]["iops"] == pytest.approx(value["iops"])
        assert reported[key]["art_ms"] == pytest.approx(value["art_ms"], rel=1e-6)
    # MaxIOPS: the most IOPS under the 5 ms ceiling; MinIOPS: TC1/QD1; MidIOPS: closest to halfway between them.
    under = [k for k, v in grid.items() if v["art_ms"] < 5]
    top = max(under, key=lambda k: (grid[k]["iops"], -k[0] * k[1])) if under else (1, 1)
    target = (grid[top]["iops"] + grid[(1, 1)]["iops"]) / 2
    mid = min(grid, key=lambda k: (abs(grid[k]["iops"] - target), k[0] * k[1]))
    points_dir = os.path.join(test_dir, "points")
    points = round_files(points_dir)
    assert [(p["row"]["point"], p["row"]["tc"], p["row"]["qd"]) for p in points] == [
        ("max", *top), ("mid", *mid), ("min", 1, 1)]
    assert result["choice_checks"] == []
    # Each point's measurement ran with fio json+: its percentiles from the merged bins are fio's own figures.
    for number, entry in enumerate(result["points"], 1):
        raw = raw_jobs(points_dir, number)[f"{name}-{entry['point']}-measure"]
        assert "bins" in raw["read"]["lat_ns"] and "bins" in raw["write"]["lat_ns"]
        assert entry["measure"]["iops"] == pytest.approx(raw_iops(raw))
        assert entry["measure"]["total_ios"] == raw["read"]["total_ios"] + raw["write"]["total_ios"]
        slowest = max(raw["read"]["lat_ns"]["max"], raw["write"]["lat_ns"]["max"])
        assert entry["measure"]["mrt_ms"] == pytest.approx(slowest / 1e6)
    report = text(os.path.join(run.drive_dir("d1"), "report.md"))
    assert f"plots/{name}-histograms.png" in report
    assert (f"plots/{name}-confidence.png" in report) == (name == "dirth")
