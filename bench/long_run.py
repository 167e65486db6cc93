# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A long test: a write saturation of ROUNDS rounds on a loop device, each round a few rate-limited 4k writes, so
the harness, not the drive, sets the pace. Measures per 100 rounds the controller's gap between rounds (from one
round's result on disk to the next one's, minus the next one's fio run time), its CPU time per round, and its
memory (PSS and RSS of ansible-playbook and every process it started, sampled once a second); then the time to
rebuild that drive's report from disk.

The gap is measured from the round files' own timestamps (recorded when the callback writes them), so it holds
everything the controller does between two rounds: the round's result crossing from the worker, the callback
writing it, the next job file rendered and written, fio_job started on the host, and the polls for its end.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from _common import ROOT, LoopDevice, machine, save, table, tree_memory_kib

ROUNDS = int(os.environ.get("PTS_BENCH_LONG_ROUNDS", "1500"))
ROUND_SECONDS = 0.01
RATE = 50  # per fio job: one 4k write per job in a 10-ms round
ROUND_BYTES = 2 * 4096
DEVICE_BYTES = 64 << 20
BIN = os.path.join(ROOT, ".venv", "bin")
sys.path.insert(0, os.path.join(ROOT, ".collections"))

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report


def _clock_ticks(pids_root: int) -> float:
    """CPU seconds used so far by a process and its live descendants (utime + stime), plus reaped children."""
    parents, cpu = {}, {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            parents[int(pid)] = int(fields[1])
            # utime, stime, cutime, cstime (fields 14-17; here offset by the two before the ")")
            cpu[int(pid)] = sum(int(v) for v in fields[11:15])
        except (OSError, IndexError, ValueError):
            continue
    total = 0
    for pid, ticks in cpu.items():
        node = pid
        while node and node != pids_root:
            node = parents.get(node, 0)
        if node == pids_root:
            total += ticks
    return total / os.sysconf("SC_CLK_TCK")


def main() -> dict:
    work = pathlib.Path(tempfile.mkdtemp(prefix="pts-bench-long-", dir="/var/tmp"))
    device = LoopDevice(work, "64M")
    samples: list[tuple[float, dict, float]] = []
    try:
        inventory = work / "hosts.yml"
        multiple = (ROUNDS - 0.5) * ROUND_BYTES / DEVICE_BYTES
        inventory.write_text(json.dumps({"all": {"hosts": {"localhost": {
            "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(work / "remote"), "pts_fleet_fail_on": [], "pts_allow_destroy": True,
            "pts_profile": "quick", "pts_tests": ["wsat"],
            "pts_devices": [{"path": device.path, "name": "long", "backing_file": device.image}],
            "pts_run_wsat_round_seconds": ROUND_SECONDS, "pts_run_rate_iops": RATE,
            "pts_run_wsat_capacity_multiple": multiple, "pts_run_wsat_max_hours": 24}}}}))
        env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
                   ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
                   ANSIBLE_LOCAL_TEMP=str(work / "ansible-local"), ANSIBLE_REMOTE_TMP=str(work / "ansible-remote"),
                   MPLCONFIGDIR=str(work / "mpl"), PTS_RESULTS_DIR=str(work / "results"), PTS_RUN_ID="long")
        with open(work / "run.log", "w", encoding="utf-8") as log:
            proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory)],
                                    cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

            def sample():
                while proc.poll() is None:
                    samples.append((time.time(), tree_memory_kib(proc.pid), _clock_ticks(proc.pid)))
                    time.sleep(1.0)
            sampler = threading.Thread(target=sample)
            sampler.start()
            rc = proc.wait()
            sampler.join()
        if rc != 0:
            sys.exit(f"the long run failed (rc {rc}); see {work / 'run.log'}")
        drive_dir = work / "results" / "long" / "localhost" / "long"
        wsat = drive_dir / "wsat"
        numbers = sorted(int(m.group(1)) for p in wsat.iterdir() if (m := re.match(r"^round-(\d+)\.json$", p.name)))
        stamps, fio_s = [], []
        for number in numbers:
            with open(wsat / f"round-{number:02d}.json", encoding="utf-8") as handle:
                record = json.load(handle)
            stamps.append(datetime.datetime.fromisoformat(record["recorded_at"]).timestamp())
            fio_s.append(record["fio"]["elapsed_s"])
        started = time.monotonic()
        _drive_report.write_drive_report(str(drive_dir))
        report_s = time.monotonic() - started
    finally:
        device.detach()
        shutil.rmtree(work, ignore_errors=True)

    gaps = [stamps[i] - stamps[i - 1] - fio_s[i] for i in range(1, len(stamps))]
    per_100 = []
    for start in range(0, len(numbers), 100):
        chunk = numbers[start:start + 100]
        first, last = stamps[start], stamps[start + len(chunk) - 1]
        window = [s for s in samples if first <= s[0] <= last]
        chunk_gaps = gaps[max(start - 1, 0):start + len(chunk) - 1]
        cpu = (window[-1][2] - window[0][2]) / max(1, len(chunk) - 1) if len(window) > 1 else None
        per_100.append({
            "rounds": f"{chunk[0]}-{chunk[-1]}", "gap_mean_s": statistics.fmean(chunk_gaps),
            "gap_p95_s": sorted(chunk_gaps)[int(0.95 * (len(chunk_gaps) - 1))],
            "fio_mean_s": statistics.fmean(fio_s[start:start + len(chunk)]),
            "cpu_per_round_s": cpu,
            "pss_mib": max(s[1]["pss"] for s in window) / 1024 if window else None,
            "rss_mib": max(s[1]["rss"] for s in window) / 1024 if window else None,
        })
    before = {numbers[i]: gaps[i - 1] for i in range(1, len(numbers))}  # the gap before round n
    first10 = statistics.fmean(before[n] for n in range(2, 11))
    late = statistics.fmean(before[n] for n in range(991, 1011) if n in before) if 1010 in before else \
        statistics.fmean(gaps[-20:])
    # A gap holds up to one poll interval of waiting for fio's end, so 9 or 20 gaps move by 20 % between runs on an
    # idle machine; the medians of 50 gaps at each end say whether the cost per round grew.
    early_50 = statistics.median(before[n] for n in range(2, 52) if n in before)
    late_50 = statistics.median(before[n] for n in range(976, 1026) if n in before) if 1025 in before else \
        statistics.median(gaps[-50:])
    result = {"machine": machine(), "rounds": len(numbers), "round_seconds": ROUND_SECONDS, "rate_iops_per_job": RATE,
              "gap_rounds_2_10_s": first10, "gap_rounds_990_1010_s": late, "gap_change_pct": 100 * (late / first10 - 1),
              "gap_median_rounds_2_51_s": early_50, "gap_median_rounds_976_1025_s": late_50,
              "gap_median_change_pct": 100 * (late_50 / early_50 - 1),
              "per_100": per_100, "report_s": report_s, "gaps_s": gaps,
              "pss_first_mib": per_100[0]["pss_mib"], "pss_last_mib": per_100[-1]["pss_mib"]}
    save("long_run", result)
    print(table(["rounds", "gap mean", "gap p95", "fio", "controller CPU / round", "PSS", "RSS"], [
        [r["rounds"], f"{r['gap_mean_s']:.3f} s", f"{r['gap_p95_s']:.3f} s", f"{r['fio_mean_s']:.3f} s",
         "-" if r["cpu_per_round_s"] is None else f"{r['cpu_per_round_s']:.3f} s",
         "-" if r["pss_mib"] is None else f"{r['pss_mib']:.0f} MiB",
         "-" if r["rss_mib"] is None else f"{r['rss_mib']:.0f} MiB"] for r in per_100]))
    print(f"gap rounds 2-10 {first10:.3f} s, around round 1,000 {late:.3f} s ({result['gap_change_pct']:+.1f} %); "
          f"median gap rounds 2-51 {early_50:.3f} s, rounds 976-1025 {late_50:.3f} s "
          f"({result['gap_median_change_pct']:+.1f} %); report for {len(numbers)} rounds: {report_s:.1f} s")
    return result


if __name__ == "__main__":
    main()
