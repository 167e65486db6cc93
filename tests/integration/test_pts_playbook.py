# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""All four PTS tests end to end: real ansible-playbook, real fio, a real loop device, tiny rounds.

Every expected figure is recomputed here from fio's own JSON output (round-NN.raw.json) with the
standard library, independently of the collection's parser, steady-state code and report model.
"""

from __future__ import annotations

import glob
import os
import re
import statistics

import pytest

from conftest import load

MAX_ROUNDS = 6
WINDOW = 5
SMALL = {
    "pts_run_round_seconds": 0.5, "pts_run_max_rounds": MAX_ROUNDS,
    "pts_run_iops_mixes": [100, 65, 0], "pts_run_iops_block_sizes": ["64k", "4k", "512"],
    "pts_run_throughput_block_sizes": ["1024k", "64k"],
    "pts_run_latency_mixes": [100, 65, 0], "pts_run_latency_block_sizes": ["4k", "512"],
    "pts_run_wsat_round_seconds": 1,
}
SIZES = {"64k": 65536, "4k": 4096, "512": 512}


def raw_job(raw: dict, name: str) -> dict:
    (job,) = [j for j in raw["jobs"] if j["jobname"] == name]
    assert job["error"] == 0
    return job


def independent_verdict(values: list[float]) -> dict:
    window = values[-WINDOW:]
    rounds = list(range(len(values) - WINDOW + 1, len(values) + 1))
    avg = statistics.fmean(window)
    fit = statistics.linear_regression(rounds, window)
    data_pct = 100 * (max(window) - min(window)) / avg
    slope_pct = 100 * abs(fit.slope) * (WINDOW - 1) / avg
    return {"rounds": rounds, "average": avg, "data_pct": data_pct, "slope_pct": slope_pct,
            "steady": data_pct <= 20 and slope_pct <= 10}


def raws(directory: str) -> list[dict]:
    count = len([f for f in os.listdir(directory) if re.fullmatch(r"round-\d+\.raw\.json", f)])
    return [load(os.path.join(directory, f"round-{n:02d}.raw.json")) for n in range(1, count + 1)]


def check_stop_rule(dv_series: list[list[float]], count: int) -> list[int]:
    """Steady at the last round and not before, or not steady at the limit; returns the steady rounds."""
    steady_at = [n for n in range(WINDOW, count + 1)
                 if all(independent_verdict(series[:n])["steady"] for series in dv_series)]
    if steady_at:
        assert steady_at[0] == count
    else:
        assert count == MAX_ROUNDS
    return steady_at


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """One run of all four tests, shared by the checks below (about three minutes)."""
    from conftest import LoopDevice, run_playbook
    tmp = tmp_path_factory.mktemp("full")
    device = LoopDevice(tmp, "128M")
    try:
        run = run_playbook(tmp, {"pts_devices": [{"path": device.path, "name": "it-loop", "backing_file": device.image}],
                                 "pts_allow_destroy": True, "pts_profile": "quick"}, SMALL)
    finally:
        device.detach()
    assert run.rc == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run, device


def test_iops(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    test_dir = os.path.join(drive_dir, "iops")
    rounds = raws(test_dir)
    count = len(rounds)
    for number in range(1, count + 1):
        with open(os.path.join(test_dir, f"round-{number:02d}.fio"), encoding="utf-8") as handle:
            job = handle.read()
        assert job.count("\nstonewall\n") == 9
        for option in ("randrepeat=0", "norandommap=1", "refill_buffers=1", "direct=1", "numjobs=2", "iodepth=16",
                       f"filename={device.path}", "runtime=500ms"):
            assert f"\n{option}\n" in job, option

    def iops(raw, mix, bs):
        job = raw_job(raw, f"iops-r{mix}-{bs}")
        return job["read"]["iops"] + job["write"]["iops"]

    dv = [iops(raw, 0, 4096) for raw in rounds]
    steady_at = check_stop_rule([dv], count)
    result = load(os.path.join(drive_dir, "result.json"))["tests"]["iops"]
    assert result["dv"]["values"] == pytest.approx(dv)
    assert result["status"] == ("steady" if steady_at else "not steady")
    mine = independent_verdict(dv)
    assert result["dv"]["window"]["rounds"] == mine["rounds"]
    assert result["dv"]["window"]["data_excursion_pct"] == pytest.approx(mine["data_pct"])
    assert result["dv"]["window"]["slope_excursion_pct"] == pytest.approx(mine["slope_pct"])
    for label, bs in SIZES.items():
        for mix in (100, 65, 0):
            assert result["tables"]["iops"][label][str(mix)] == pytest.approx(
                statistics.fmean(iops(raw, mix, bs) for raw in rounds[-WINDOW:]))
    # Each round file holds the verdict the run judged after it; steady-state.json says where the loop stopped.
    live = [load(os.path.join(test_dir, f"round-{n:02d}.json"))["verdict"] for n in range(1, count + 1)]
    assert [v["steady"] for v in live] == [n in steady_at for n in range(1, count + 1)]
    assert load(os.path.join(test_dir, "steady-state.json"))["last_round"] == count

    report = open(os.path.join(drive_dir, "report.md"), encoding="utf-8").read()
    row = re.search(r"^\| \*\*4k\*\* \| (.+) \|$", report, re.M).group(1)
    assert [float(c.replace(",", "")) for c in row.split(" | ")] == [
        pytest.approx(result["tables"]["iops"]["4k"][str(m)], abs=0.051) for m in (100, 65, 0)]
    lines = re.findall(r"^PTS localhost it-loop iops round (\d+)/6: 4k 0/100 IOPS = ([\d,.]+) IOPS", run.stdout, re.M)
    assert [int(n) for n, dummy in lines] == list(range(1, count + 1))
    assert [float(v.replace(",", "")) for dummy, v in lines] == [pytest.approx(v, abs=0.051) for v in dv]
    wipc = load(os.path.join(test_dir, "wipc.raw.json"))
    assert wipc["jobs"][0]["write"]["io_bytes"] == 2 * 128 * 1024 * 1024


def test_throughput(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    result = load(os.path.join(drive_dir, "result.json"))["tests"]["throughput"]
    assert [s["name"] for s in result["segments"]] == ["1024k", "64k"]
    for segment in result["segments"]:
        seg_dir = os.path.join(drive_dir, "throughput", segment["name"])
        bs = 1048576 if segment["name"] == "1024k" else 65536
        assert load(os.path.join(seg_dir, "purge.json"))["method"] == "discard"  # purged before each block size
        rounds = raws(seg_dir)
        read = [raw_job(r, f"tp-read-{bs}")["read"]["bw_bytes"] for r in rounds]
        write = [raw_job(r, f"tp-write-{bs}")["write"]["bw_bytes"] for r in rounds]
        for raw in rounds:
            assert raw_job(raw, f"tp-read-{bs}")["job options"]["rw"] == "read"
            assert raw_job(raw, f"tp-write-{bs}")["job options"]["rw"] == "write"
        steady_at = check_stop_rule([read, write], len(rounds))
        assert segment["status"] == ("steady" if steady_at else "not steady")
        assert segment["mb_per_s"]["read"] == pytest.approx(statistics.fmean(read[-WINDOW:]) / 1e6)
        assert segment["mb_per_s"]["write"] == pytest.approx(statistics.fmean(write[-WINDOW:]) / 1e6)
    report = open(os.path.join(drive_dir, "report.md"), encoding="utf-8").read()
    row = re.search(r"^\| \*\*1024k\*\* \| ([\d,.]+) \| ([\d,.]+) \|", report, re.M)
    big = result["segments"][0]["mb_per_s"]
    assert float(row.group(1).replace(",", "")) == pytest.approx(big["read"], abs=0.006)
    assert float(row.group(2).replace(",", "")) == pytest.approx(big["write"], abs=0.006)


def test_latency(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    test_dir = os.path.join(drive_dir, "latency")
    rounds = raws(test_dir)
    for raw in rounds:
        for job in raw["jobs"]:
            assert job["job options"].get("numjobs", raw["global options"].get("numjobs")) == "1"
            assert job["job options"].get("iodepth", raw["global options"].get("iodepth")) == "1"
    dv = [raw_job(r, "latency-r0-4096")["write"]["lat_ns"]["mean"] for r in rounds]
    steady_at = check_stop_rule([dv], len(rounds))
    result = load(os.path.join(drive_dir, "result.json"))["tests"]["latency"]
    assert result["status"] == ("steady" if steady_at else "not steady")
    assert result["dv"]["values"] == pytest.approx(dv)
    window = rounds[-WINDOW:]
    mixed = [raw_job(r, "latency-r65-4096") for r in window]
    weighted = [(j["read"]["lat_ns"]["mean"] * j["read"]["total_ios"] + j["write"]["lat_ns"]["mean"] *
                 j["write"]["total_ios"]) / (j["read"]["total_ios"] + j["write"]["total_ios"]) for j in mixed]
    assert result["tables"]["mean_ms"]["4k"]["65"] == pytest.approx(statistics.fmean(weighted) / 1e6)
    assert result["tables"]["max_ms"]["4k"]["65"] == pytest.approx(
        max(max(j["read"]["lat_ns"]["max"], j["write"]["lat_ns"]["max"]) for j in mixed) / 1e6)
    # Percentiles of all the window's reads: the rounds' fio latency histograms (json+) merged, the first bucket whose
    # running count reaches p % of them (fio's own rule); unresolved (None) with fewer than 10 / (1 - p) IOs.
    merged = {}
    for j in mixed:
        for bucket, count in j["read"]["lat_ns"]["bins"].items():
            merged[int(bucket)] = merged.get(int(bucket), 0) + count
    total = sum(merged.values())
    assert result["percentile_ios"]["4k 65/35 read"] == total

    def percentile(p):
        running = 0
        for bucket in sorted(merged):
            running += merged[bucket]
            if running * 100 >= p * total:
                return bucket / 1e6
        return None

    for key, p, needed in (("99", 99, 1000), ("99.9", 99.9, 10000), ("99.99", 99.99, 100000)):
        expected = percentile(p) if total >= needed else None
        assert result["percentiles_ms"]["4k 65/35 read"][key] == (pytest.approx(expected) if expected else None)


def test_write_saturation(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    rounds = raws(os.path.join(drive_dir, "wsat"))
    written = [raw_job(r, "wsat-4096")["write"]["io_bytes"] for r in rounds]
    target = 4 * 128 * 1024 * 1024
    # stops at the first round that brings the total to the target (the quick profile's time cap is minutes)
    assert sum(written) >= target and sum(written[:-1]) < target
    result = load(os.path.join(drive_dir, "result.json"))["tests"]["wsat"]
    assert result["status"] == "complete" and result["written_bytes"] == sum(written)
    assert [r["iops"] for r in result["per_round"]] == pytest.approx(
        [raw_job(r, "wsat-4096")["write"]["iops"] for r in rounds])
    lines = re.findall(r"^PTS localhost it-loop wsat round (\d+): ", run.stdout, re.M)
    assert [int(n) for n in lines] == list(range(1, len(rounds) + 1))


def test_report_lists_every_test_with_plots_and_times(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    report = open(os.path.join(drive_dir, "report.md"), encoding="utf-8").read()
    for number, title in enumerate(("IOPS", "Throughput", "Latency", "Write Saturation"), 4):
        assert f"\n## {number} {title}\n" in report
    plots = load(os.path.join(drive_dir, "result.json"))["plots"]
    assert set(plots) == {"iops", "throughput", "latency", "wsat"}
    for names in plots.values():
        for path in names.values():
            with open(os.path.join(drive_dir, path), "rb") as handle:
                assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert re.search(r"^\| Write Saturation \| 2 × 16 = 32 \| 1\.0 s \| \d+ \| complete \| [\d.]+ (?:s|min) \|$", report, re.M)
    assert re.search(r"^PTS plan localhost it-loop: SSD mode: the drive reports itself non-rotational; iops 9 runs, "
                     r"throughput 4 runs, latency 6 runs, wsat 1 runs; estimated [\d.]+-[\d.]+ min", run.stdout, re.M)


def test_every_round_record_says_the_loop_device_has_no_health_and_the_report_says_so_once(full_run):
    run, device = full_run
    drive_dir = run.drive_dir("it-loop")
    records = sorted(glob.glob(os.path.join(drive_dir, "*", "round-[0-9][0-9]*.json"))
                     + glob.glob(os.path.join(drive_dir, "*", "*", "round-[0-9][0-9]*.json")))
    records = [p for p in records if not p.endswith(".raw.json")]
    assert len(records) >= 4 * WINDOW
    health = [load(p)["fio"]["health"] for p in records]
    # identify found no health log, so no round probed or read one: nothing costs anything per round.
    assert {h["none"] for h in health} == {"a loop device (a file) has no SMART or NVMe health log"}
    assert max(h["cost_s"] for h in health) < 0.05
    report = open(os.path.join(drive_dir, "report.md"), encoding="utf-8").read()
    assert report.count("**the drive reports none**") == 1 and report.count("health log") == 1
    assert "Drive health per round" not in report
    result = load(os.path.join(drive_dir, "result.json"))
    assert result["round_health"]["read"] == 0 and result["round_health"]["marked"] == []
    assert all("temperature" not in names for names in result["plots"].values())


def test_a_4k_sector_drive_drops_512_and_keeps_the_4k_dv(loop_device, run_pts):
    device = loop_device("64M", sector_size=4096)
    run = run_pts({"pts_devices": [{"path": device.path, "name": "4kn", "backing_file": device.image}],
                   "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops", "latency"]},
                  dict(SMALL, pts_run_max_rounds=WINDOW))
    assert run.rc == 0, run.stdout[-3000:]
    drive_dir = run.drive_dir("4kn")
    assert load(os.path.join(drive_dir, "drive.json"))["drive"]["logical_block_size"] == 4096
    result = load(os.path.join(drive_dir, "result.json"))["tests"]
    for test, dv_name in (("iops", "iops-r0-4096"), ("latency", "latency-r0-4096")):
        rounds = raws(os.path.join(drive_dir, test))
        assert all(j["job options"]["bs"] != "512" for r in rounds for j in r["jobs"])
        assert result[test]["notes"] == ["512 dropped: the drive's logical block size is 4096 bytes"]
        assert result[test]["dv"]["bs"] == "4k"
        metric = (lambda j: j["read"]["iops"] + j["write"]["iops"]) if test == "iops" else \
            (lambda j: j["write"]["lat_ns"]["mean"])
        assert result[test]["dv"]["values"] == pytest.approx([metric(raw_job(r, dv_name)) for r in rounds])
    report = open(os.path.join(drive_dir, "report.md"), encoding="utf-8").read()
    assert "> Note: 512 dropped: the drive's logical block size is 4096 bytes" in report
