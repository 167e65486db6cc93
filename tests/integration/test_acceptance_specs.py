# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Qualify against a specification, end to end on loop devices: a datasheet that passes and one that fails on a named
requirement, a QoS requirement whose percentile the run cannot resolve (not judged: INCOMPLETE or FAIL, as its
specification says), and a specification asking for a queue depth the selected tests do not run (the plan adds the QoS
measurement, or refuses before any write). Every requirement's figure, status and pass rate is computed again here from
fio's own output in the round files."""

from __future__ import annotations

import os
import statistics
from fractions import Fraction
from xml.etree import ElementTree

import yaml

from conftest import load, run_playbook, text

QUICK = {"pts_run_round_seconds": 0.2, "pts_run_max_rounds": 5, "pts_run_window": 3,
         "pts_precondition_capacity_multiple": 1}
WINDOW = 3


def write_spec(tmp_path, name: str, spec: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return str(path)


def host_vars(devices: dict, specs: list[str], **extra) -> dict:
    return dict({"pts_devices": [{"path": d.path, "name": name, "backing_file": d.image} for name, d in devices.items()],
                 "pts_allow_destroy": True, "pts_profile": "quick", "pts_acceptance_specs": specs}, **extra)


# What fio printed, read here without the collection's code.
def raw_rounds(drive_dir: str, test: str, segment: str = "") -> list[dict]:
    folder = os.path.join(drive_dir, test, segment)
    names = sorted(n for n in os.listdir(folder) if n.startswith("round-") and n.endswith(".raw.json"))
    return [load(os.path.join(folder, n)) for n in names]


def job(raw: dict, name: str) -> dict:
    (found,) = [j for j in raw["jobs"] if j["jobname"] == name]
    return found


def steady(values: list[float]) -> bool:
    """SNIA PTS steady state over the last WINDOW rounds: range <= 20 % and slope excursion <= 10 % of the average."""
    window = values[-WINDOW:]
    if len(values) < WINDOW:
        return False
    average = statistics.fmean(window)
    slope = statistics.linear_regression(range(WINDOW), window).slope
    return 100 * (max(window) - min(window)) / average <= 20 and 100 * abs(slope) * (WINDOW - 1) / average <= 10


def percentile_ms(bins: dict, pct: str) -> tuple[float | None, int]:
    """A percentile of fio's latency bins ({ns: count}) as fio computes it, None unless ten IOs lie beyond it."""
    rows = sorted((int(k), v) for k, v in bins.items() if v)
    count = sum(v for dummy, v in rows)
    beyond = Fraction(10) / (1 - Fraction(pct) / 100)
    if count < beyond:
        return None, count
    running = 0
    for latency, number in rows:
        running += number
        if running >= Fraction(pct) * count / 100:
            return latency / 1e6, count
    return None, count


def merged_bins(raws: list[dict], name: str, direction: str) -> dict:
    out: dict = {}
    for raw in raws:
        for key, value in job(raw, name)[direction]["lat_ns"]["bins"].items():
            out[key] = out.get(key, 0) + value
    return out


def status(value: float | None, comparison: str, limit: float) -> str:
    if value is None:
        return "NOT JUDGED"
    return "PASS" if (value >= limit if comparison == ">=" else value <= limit) else "FAIL"


def requirements_of(run, drive: str) -> dict:
    model = load(os.path.join(run.drive_dir(drive), "result.json"))
    return {r["id"]: r for r in model["verdict"]["requirements"]}, model


def check_pass_rates(summary: dict) -> None:
    """fleet.json's pass rates are the drives' statuses counted again."""
    counted: dict = {}
    for drive in summary["drives"]:
        for record in drive.get("requirements") or []:
            row = counted.setdefault(record["case"], [0, 0, 0, 0])
            row[0] += 1
            row[{"PASS": 1, "FAIL": 2, "NOT JUDGED": 3}[record["status"]]] += 1
    assert {r["case"]: [r["drives"], r["passed"], r["failed"], r["not_judged"]] for r in summary["requirements"]} == \
        counted
    for row in summary["requirements"]:
        assert row["pass_rate"] == row["passed"] / row["drives"]


def junit_cases(run) -> dict:
    suite = ElementTree.parse(os.path.join(run.run_dir, "junit.xml")).getroot()
    return {(c.get("classname"), c.get("name")): c for c in suite}


def test_a_datasheet_that_passes_and_one_that_fails_on_a_named_requirement(loop_device, tmp_path):
    devices = {"a": loop_device("32M"), "b": loop_device("48M")}
    datasheet = write_spec(tmp_path, "datasheet.yml", {
        "name": "Loop datasheet", "version": "1.0", "source": {"document": "Loop device brief", "section": "3"},
        "applies_to": {"model": "loop*"},
        "requirements": [
            {"id": "RW4K", "figure": "iops.4k.0/100", "rated": 100, "min_pct_of_rated": 50},
            {"id": "RR4K", "figure": "iops.4k.100/0", "limit": 0.1, "unit": "kIOPS"},
            {"id": "SR128K", "figure": "throughput.128k.read", "rated": 0.01, "unit": "GB/s", "min_pct_of_rated": 10},
            {"id": "LAT-RD", "figure": "latency.4k.100/0.read.mean", "limit": 1, "unit": "s"},
            # p50 needs 20 IOs: a loaded machine's loop device may write only a few hundred in a window at QD1.
            {"id": "LAT-WR-P50", "figure": "latency.4k.0/100.write.p50", "limit": 1000, "unit": "ms"}]})
    # The strict one applies to the 48 MiB drive only (its capacity class): 10 M IOPS is no loop device's.
    strict = write_spec(tmp_path, "strict.yml", {
        "name": "Loop datasheet strict", "version": "2.0", "source": "Loop device brief, strict edition",
        "applies_to": {"model": "loop*", "capacity": "48MiB"},
        "requirements": [{"id": "RW4K-STRICT", "title": "4k random write", "figure": "iops.4k.0/100", "limit": 1e7},
                         {"id": "RR4K", "figure": "iops.4k.100/0", "limit": 1}]})
    extra = dict(QUICK, pts_tests=["iops", "throughput", "latency"], pts_run_iops_mixes=[100, 0],
                 pts_run_iops_block_sizes=["4k"], pts_run_throughput_block_sizes=["128k"],
                 pts_run_latency_mixes=[100, 0], pts_run_latency_block_sizes=["4k"])
    run = run_playbook(tmp_path, host_vars(devices, [datasheet, strict]), extra, run_id="datasheet")
    assert run.fleet is not None, run.stdout[-3000:]
    # The specifications say what the selected tests measure: the plan adds nothing.
    assert "PTS acceptance" not in run.stdout

    by_drive = {}
    for drive in ("a", "b"):
        records, model = requirements_of(run, drive)
        by_drive[drive] = records
        iops, latency = raw_rounds(run.drive_dir(drive), "iops"), raw_rounds(run.drive_dir(drive), "latency")
        throughput = raw_rounds(run.drive_dir(drive), "throughput", "128k")
        window = {"iops": iops[-WINDOW:], "latency": latency[-WINDOW:], "throughput": throughput[-WINDOW:]}
        found = {
            "RW4K": statistics.fmean(job(r, "iops-r0-4096")["write"]["iops"] for r in window["iops"]),
            "RR4K": statistics.fmean(job(r, "iops-r100-4096")["read"]["iops"] for r in window["iops"]),
            "SR128K": statistics.fmean(job(r, "tp-read-131072")["read"]["bw_bytes"] / 1e6 for r in window["throughput"]),
            "LAT-RD": statistics.fmean(job(r, "latency-r100-4096")["read"]["lat_ns"]["mean"] / 1e6
                                       for r in window["latency"]),
        }
        p50, ios = percentile_ms(merged_bins(window["latency"], "latency-r0-4096", "write"), "50")
        found["LAT-WR-P50"] = p50
        found["RW4K-STRICT"] = found["RW4K"]
        limits = {"RW4K": (">=", 50), "RR4K": (">=", 100 if drive == "a" else 1), "SR128K": (">=", 1),
                  "LAT-RD": ("<=", 1000), "LAT-WR-P50": ("<=", 1000), "RW4K-STRICT": (">=", 1e7)}
        wanted = ["RW4K", "RR4K", "SR128K", "LAT-RD", "LAT-WR-P50"] if drive == "a" else \
            ["RW4K", "SR128K", "LAT-RD", "LAT-WR-P50", "RW4K-STRICT", "RR4K"]
        assert sorted(records) == sorted(wanted)
        for ident, record in records.items():
            if found[ident] is None:
                assert record["measured"] is None, (drive, ident, record)
            else:
                assert abs(record["measured"] - found[ident]) <= 1e-6 * found[ident], (drive, ident, record, found)
            assert record["status"] == status(found[ident], *limits[ident]), (drive, ident)
            for path in record["files"]:
                assert os.path.isfile(os.path.join(run.drive_dir(drive), path)), path
        assert records["LAT-WR-P50"]["ios"] == ios
        assert records["RW4K"]["files"] == [f"iops/round-{n:02d}.json" for n in range(len(iops) - 2, len(iops) + 1)]

        # The verdict: FAIL on a requirement that fails, else PASS only when every test was steady (PTS rule).
        dvs = [[job(r, "iops-r0-4096")["write"]["iops"] for r in iops],
               [job(r, "tp-read-131072")["read"]["bw_bytes"] for r in throughput],
               [job(r, "tp-write-131072")["write"]["bw_bytes"] for r in throughput],
               [job(r, "latency-r0-4096")["write"]["lat_ns"]["mean"] for r in latency]]
        failing = [i for i, r in records.items() if r["status"] == "FAIL"]
        expected = "FAIL" if failing or not all(steady(v) for v in dvs) else "PASS"
        assert model["verdict"]["verdict"] == expected, model["verdict"]["reasons"]
        assert model["verdict"]["failed_requirements"] == \
            [records[i]["case"] for i in wanted if records[i]["status"] == "FAIL"]

    # The datasheet passes on both drives; the strict one fails on RW4K-STRICT, named on page 1 and in the reasons.
    assert {i: r["status"] for i, r in by_drive["a"].items()} == dict.fromkeys(by_drive["a"], "PASS")
    assert by_drive["b"]["RW4K-STRICT"]["status"] == "FAIL" and by_drive["b"]["RR4K"]["status"] == "PASS"
    report_b = text(os.path.join(run.drive_dir("b"), "report.md"))
    assert "Failed requirements: `Loop datasheet strict 2.0: RW4K-STRICT`." in report_b.split("## Contents")[0]
    assert any(r.startswith("Loop datasheet strict 2.0: RW4K-STRICT: iops.4k.0/100") for r in
               load(os.path.join(run.drive_dir("b"), "result.json"))["verdict"]["reasons"])
    acceptance = report_b.split("Acceptance\n\n", 2)[-1]
    assert "**Loop datasheet strict 2.0** — source: Loop device brief, strict edition" in acceptance
    assert "| `RW4K-STRICT` | 4k random write | `iops.4k.0/100` | ≥ 10,000,000 IOPS |" in acceptance

    summary = run.fleet
    check_pass_rates(summary)
    rates = {r["case"]: r for r in summary["requirements"]}
    assert (rates["Loop datasheet 1.0: RW4K"]["drives"], rates["Loop datasheet 1.0: RW4K"]["pass_rate"]) == (2, 1.0)
    assert (rates["Loop datasheet strict 2.0: RW4K-STRICT"]["drives"],
            rates["Loop datasheet strict 2.0: RW4K-STRICT"]["pass_rate"],
            rates["Loop datasheet strict 2.0: RW4K-STRICT"]["failed_drives"]) == (1, 0.0, ["localhost/b"])
    fleet_md = text(os.path.join(run.run_dir, "fleet.md"))
    assert "| Loop datasheet strict 2.0 | `RW4K-STRICT` | `iops.4k.0/100` | ≥ 10,000,000 IOPS | 1 | 0 | 1 | 0 | **0 %** | " \
           "FAIL: localhost/b |" in fleet_md
    cases = junit_cases(run)
    for drive in ("a", "b"):
        for record in by_drive[drive].values():
            case = cases[(f"pts.localhost.{drive}", record["case"])]
            assert (case.find("failure") is not None) == (record["status"] == "FAIL")
    assert ("pts.localhost.a", "Loop datasheet strict 2.0: RW4K-STRICT") not in cases


def test_a_qos_percentile_the_run_cannot_resolve_is_not_judged_as_its_specification_says(loop_device, tmp_path):
    devices = {"a": loop_device("32M"), "b": loop_device("48M")}

    def qos_spec(capacity: str, not_judged: str) -> dict:
        return {"name": f"Loop QoS {not_judged}", "version": "1", "source": {"document": "QoS table"},
                "applies_to": {"model": "loop*", "capacity": capacity}, "not_judged": not_judged,
                "requirements": [{"id": "R-P99", "figure": "qos.read.qd1.p99", "limit": 1, "unit": "s"},
                                 {"id": "W-P99999", "figure": "qos.write.qd1.p99.999", "limit": 1, "unit": "s"}]}
    specs = [write_spec(tmp_path, "incomplete.yml", qos_spec("32MiB", "incomplete")),
             write_spec(tmp_path, "fail.yml", qos_spec("48MiB", "fail"))]
    # Steady state is not what is tested here: the loop's noise may leave the preconditioning unsteady.
    rule = {"name": "loop", "model": "loop*", "require_steady": False}
    extra = dict(QUICK, pts_tests=["qos"], pts_run_qos_queue_depths=[1], pts_run_qos_max_seconds=1,
                 pts_run_qos_precondition_seconds=0.2)
    run = run_playbook(tmp_path, host_vars(devices, specs, pts_acceptance=[rule]), extra, run_id="qos-nr")
    assert run.fleet is not None, run.stdout[-3000:]
    # p99.999 needs 1,000,000 IOs a cell: the plan raises the QoS measurement's percentile to it.
    assert "PTS acceptance localhost: adds pts_run_qos_percentile = 99.999 for" in run.stdout
    for drive, counted in (("a", "INCOMPLETE"), ("b", "FAIL")):
        records, model = requirements_of(run, drive)
        raws = raw_rounds(run.drive_dir(drive), "qos", "measure")
        assert [j["jobname"] for r in raws for j in r["jobs"]] == ["qos-read-qd1", "qos-write-qd1"]
        read, write = job(raws[0], "qos-read-qd1")["read"], job(raws[1], "qos-write-qd1")["write"]
        # Each cell was told to run the IOs p99.999 needs, and its 1 s cap ended it long before.
        assert "io_size=4096000000" in text(os.path.join(run.drive_dir(drive), "qos", "measure", "round-02.fio"))
        assert write["total_ios"] < 1_000_000
        p99, ios = percentile_ms(read["lat_ns"]["bins"], "99")
        assert records["R-P99"]["ios"] == ios == read["total_ios"]
        assert records["R-P99"]["status"] == status(p99, "<=", 1000)
        assert records["R-P99"]["measured"] == (None if p99 is None else p99)
        unresolved = records["W-P99999"]
        assert (unresolved["status"], unresolved["measured"], unresolved["ios"], unresolved["needed"]) == \
            ("NOT JUDGED", None, write["total_ios"], 1_000_000)
        assert unresolved["files"] == ["qos/measure/round-02.json"]
        verdict = model["verdict"]
        case = f"Loop QoS {'incomplete' if drive == 'a' else 'fail'} 1: W-P99999"
        why = (f"{case} (qos.write.qd1.p99.999): not judged: the QoS run of 4k random write at QD1 counted "
               f"{write['total_ios']:,} IOs; p99.999 needs at least 1,000,000 (10 beyond it) to be resolved")
        if counted == "FAIL":
            assert verdict["verdict"] == "FAIL" and case in verdict["failed_requirements"]
            assert why + " (its specification fails a requirement it cannot judge)" in verdict["reasons"]
        else:
            assert verdict["verdict"] == ("FAIL" if records["R-P99"]["status"] == "FAIL" else "INCOMPLETE")
            assert case not in verdict["failed_requirements"]
            assert verdict["verdict"] == "FAIL" or why in verdict["reasons"]
        report = text(os.path.join(run.drive_dir(drive), "report.md"))
        assert f"n/r: {write['total_ios']:,} IOs, 1,000,000 needed" in report
        assert f"**not judged** (counts as {counted})" in report
    check_pass_rates(run.fleet)
    cases = junit_cases(run)
    assert cases[("pts.localhost.a", "Loop QoS incomplete 1: W-P99999")].find("error") is not None
    assert cases[("pts.localhost.b", "Loop QoS fail 1: W-P99999")].find("failure") is not None
    # An INCOMPLETE drive fails the run whatever pts_fleet_fail_on says; the exit code was checked against it.
    assert run.fleet["failed"] is True and run.rc != 0


def test_a_queue_depth_no_selected_test_runs_is_added_or_refused_before_any_write(loop_device, tmp_path):
    device = loop_device("32M")
    spec = write_spec(tmp_path, "qd8.yml", {
        "name": "Loop QoS", "version": "1", "source": {"document": "QoS table", "section": "QD8"},
        "applies_to": {"model": "loop*"},
        "requirements": [{"id": "Q8", "figure": "qos.read.qd8.p99", "limit": 1, "unit": "s"},
                         {"id": "LAT", "figure": "latency.4k.100/0.read.mean", "limit": 1, "unit": "s"}]})
    extra = dict(QUICK, pts_tests=["latency"], pts_run_latency_mixes=[100, 0], pts_run_latency_block_sizes=["4k"],
                 pts_run_qos_max_seconds=3, pts_run_qos_precondition_seconds=0.2)
    before = device.checksum()
    refused = run_playbook(tmp_path, host_vars({"d": device}, [spec], pts_acceptance_measure="refuse"), extra,
                           run_id="qd-refused")
    assert refused.rc != 0
    assert (f"pts_plan: acceptance specification 'Loop QoS 1' ({spec}) requirement 'Q8' asks for qos.read.qd8.p99 on "
            "drive d, which no selected test measures: the QoS measurement is not selected (pts_tests); set "
            "pts_acceptance_measure: add to let the plan add what they need; nothing was written") in refused.stdout
    for step in ("Run every segment of each test", "wipc.fio", "round-01"):
        assert step not in refused.stdout, step
    assert device.checksum() == before
    assert not os.path.exists(os.path.join(refused.drive_dir("d"), "latency"))

    run = run_playbook(tmp_path, host_vars({"d": device}, [spec]), extra, run_id="qd-added")
    assert run.fleet is not None, run.stdout[-3000:]
    for line in ("PTS acceptance localhost: adds pts_run_tests += qos for Loop QoS 1: Q8 (qos.read.qd8.p99)",
                 "PTS acceptance localhost: adds pts_run_qos_queue_depths += 8 for Loop QoS 1: Q8 (qos.read.qd8.p99)",
                 "PTS acceptance localhost: adds pts_run_qos_percentile = 99 for Loop QoS 1: Q8 (qos.read.qd8.p99)"):
        assert line in run.stdout, line
    plan = load(os.path.join(run.run_dir, "localhost", "plan.json"))["plan"]
    assert [(a["variable"], a["value"]) for a in plan["acceptance_measure"]["added"]] == [
        ("pts_run_tests", "qos"), ("pts_run_qos_queue_depths", 8), ("pts_run_qos_percentile", "99")]
    # The QoS measurement ran at the specification's queue depth alone: one read and one write cell at QD8.
    raws = raw_rounds(run.drive_dir("d"), "qos", "measure")
    assert [j["jobname"] for r in raws for j in r["jobs"]] == ["qos-read-qd8", "qos-write-qd8"]
    job_file = text(os.path.join(run.drive_dir("d"), "qos", "measure", "round-01.fio"))
    assert "iodepth=8\ntime_based=0\nio_size=4096000\n" in job_file
    read = job(raws[0], "qos-read-qd8")["read"]
    p99, ios = percentile_ms(read["lat_ns"]["bins"], "99")
    records, model = requirements_of(run, "d")
    assert (records["Q8"]["ios"], records["Q8"]["files"]) == (ios, ["qos/measure/round-01.json"])
    assert records["Q8"]["status"] == status(p99, "<=", 1000) and records["Q8"]["measured"] == p99
    latency = raw_rounds(run.drive_dir("d"), "latency")[-WINDOW:]
    mean = statistics.fmean(job(r, "latency-r100-4096")["read"]["lat_ns"]["mean"] / 1e6 for r in latency)
    assert abs(records["LAT"]["measured"] - mean) <= 1e-6 * mean
    assert records["LAT"]["status"] == status(mean, "<=", 1000)
    check_pass_rates(run.fleet)
    assert model["verdict"]["failed_requirements"] == [r["case"] for r in records.values() if r["status"] == "FAIL"]
