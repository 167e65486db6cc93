# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Many drives of one host at once: the controller's memory per running drive, the gap between rounds, and the end
phase - from the last round on disk to ansible-playbook's exit (each drive's report, the fleet summary) - at 1, 8 and
32 drives (PTS_BENCH_DRIVES="1 8 32").

Each drive is a 32 MiB loop device running a write saturation of rate-limited rounds (the drive is not the bottleneck:
the harness is). Memory is the PSS of ansible-playbook and every process it started, sampled every half second: the
median while every drive is in its rounds; the peak of the end (from the first drive's last round on: the drives'
post-test tasks, their reports, the judge); and the run's peak (the start too, when every drive is guarded, purged and
preconditioned at once). Each is the whole tree's, and the controller's alone: without the modules' processes
(AnsiballZ, and the fio they start), which on a fleet run on the drives' hosts - here the host is the controller. Per
running drive is the growth of each from 1 drive to N, divided by N-1. The end phase is from the last round on disk to
ansible-playbook's exit. The load average is noted at the start and the end of each run (a shared machine's times are
only as good as that). Reports are drawn pts_report_concurrency at once (PTS_BENCH_REPORT_CONCURRENCY; unset: the
controller's usable cores); the console's "waiting for a report slot" lines are counted.

PTS_BENCH_ROOT runs another checkout of the collection (an earlier commit, for a before/after in one sitting).
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from _common import ROOT as HERE, LoopDevice, machine, save, table, tree_memory_kib

ROOT = os.environ.get("PTS_BENCH_ROOT", HERE)
COUNTS = [int(n) for n in os.environ.get("PTS_BENCH_DRIVES", "1 8 32").split()]
ROUNDS = int(os.environ.get("PTS_BENCH_DRIVE_ROUNDS", "40"))
ROUND_SECONDS = float(os.environ.get("PTS_BENCH_ROUND_SECONDS", "0.5"))
RATE = 50


def _rounds(drive_dir: pathlib.Path) -> list[dict]:
    found = []
    for path in (drive_dir / "wsat").glob("round-*.json"):
        if ".raw." not in path.name:
            with open(path, encoding="utf-8") as handle:
                found.append(json.load(handle))
    return sorted(found, key=lambda r: r["round"])


def _load() -> float:
    with open("/proc/loadavg", encoding="utf-8") as handle:
        return float(handle.read().split()[0])


def one(count: int) -> dict:
    load_start = _load()
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"pts-bench-drives-{count}-", dir="/var/tmp"))
    devices = [LoopDevice(work, "32M") for dummy in range(count)]
    samples: list[tuple[float, dict]] = []
    try:
        inventory = work / "hosts.yml"
        inventory.write_text(json.dumps({"all": {"hosts": {"localhost": {
            "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(work / "remote"), "pts_fleet_fail_on": [], "pts_allow_destroy": True,
            "pts_profile": "quick", "pts_tests": ["wsat"], "pts_precondition_capacity_multiple": 1,
            "pts_devices": [{"path": d.path, "name": f"d{i:02d}", "backing_file": d.image} for i, d in enumerate(devices)],
            "pts_run_wsat_round_seconds": ROUND_SECONDS, "pts_run_rate_iops": RATE,
            # rounds x two jobs x RATE IOPS x round time x 4 KiB, just under: the rule stops after ROUNDS rounds.
            "pts_run_wsat_capacity_multiple": (ROUNDS - 0.5) * 2 * RATE * ROUND_SECONDS * 4096 / (32 << 20),
            "pts_run_wsat_max_hours": 2}}}}))
        extra = ["-e", f"pts_report_concurrency={os.environ['PTS_BENCH_REPORT_CONCURRENCY']}"] \
            if os.environ.get("PTS_BENCH_REPORT_CONCURRENCY") else []
        env = dict(os.environ, PATH=os.path.join(ROOT, ".venv", "bin") + os.pathsep + os.environ.get("PATH", ""),
                   ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"), ANSIBLE_FORKS=str(count + 10),
                   ANSIBLE_LOCAL_TEMP=str(work / "ansible-local"), ANSIBLE_REMOTE_TMP=str(work / "ansible-remote"),
                   MPLCONFIGDIR=str(work / "mpl"), PTS_RESULTS_DIR=str(work / "results"), PTS_RUN_ID="drives")
        with open(work / "run.log", "w", encoding="utf-8") as log:
            proc = subprocess.Popen([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "playbooks/pts.yml", "-i",
                                     str(inventory)] + extra, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

            def sample():
                while proc.poll() is None:
                    samples.append((time.time(), tree_memory_kib(proc.pid)))
                    time.sleep(0.5)
            sampler = threading.Thread(target=sample)
            sampler.start()
            rc = proc.wait()
            ended = time.time()
            sampler.join()
        drive_dirs = sorted((work / "results" / "drives" / "localhost").glob("d*"))
        rounds = {d.name: _rounds(d) for d in drive_dirs}
        if len(rounds) != count or any(len(r) < ROUNDS for r in rounds.values()):
            sys.exit(f"{count} drives: the run did not finish its rounds (rc {rc}); see {work / 'run.log'}")

        def stamp(record: dict) -> float:
            return datetime.datetime.fromisoformat(record["recorded_at"]).timestamp()
        first_end = min(stamp(r[0]) for r in rounds.values())
        all_started = max(stamp(r[0]) for r in rounds.values())
        last_round = max(stamp(r[-1]) for r in rounds.values())
        first_done = min(stamp(r[-1]) for r in rounds.values())
        in_rounds = [s for s in samples if all_started <= s[0] <= first_done] or \
            [s for s in samples if first_end <= s[0] <= last_round]
        testing = [s[1]["pss"] for s in in_rounds]
        # The end: from the first drive's last round on, while drives end and their reports are drawn.
        ending = [s[1]["pss"] for s in samples if s[0] >= first_done] or [0]
        gaps = [stamp(r[i]) - stamp(r[i - 1]) - r[i]["fio"]["elapsed_s"] for r in rounds.values() for i in range(1, len(r))]
        waits = (work / "run.log").read_text(encoding="utf-8").count(": waiting for a report slot")
        return {"drives": count, "rc": rc, "load_start": load_start, "load_end": _load(), "slot_waits": waits,
                "pss_testing_mib": statistics.median(testing) / 1024,
                "controller_testing_mib": statistics.median(s[1]["pss"] - s[1]["host_pss"] for s in in_rounds) / 1024,
                "pss_end_peak_mib": max(ending) / 1024,
                "pss_peak_mib": max(s[1]["pss"] for s in samples) / 1024,
                "controller_peak_mib": max(s[1]["pss"] - s[1]["host_pss"] for s in samples) / 1024,
                "end_phase_s": ended - last_round,
                "gap_median_s": statistics.median(gaps), "gap_p95_s": sorted(gaps)[int(0.95 * (len(gaps) - 1))],
                "processes_testing": statistics.median(s[1]["processes"] for s in samples
                                                       if all_started <= s[0] <= first_done) if testing else None}
    finally:
        for device in devices:
            device.detach()
        shutil.rmtree(work, ignore_errors=True)


def main() -> dict:
    rows = [one(count) for count in COUNTS]
    base = rows[0]
    for row in rows:
        extra = row["drives"] - base["drives"]
        for key in ("pss_testing", "controller_testing", "pss_end_peak", "pss_peak", "controller_peak"):
            row[f"{key}_per_drive_mib"] = (row[f"{key}_mib"] - base[f"{key}_mib"]) / extra if extra else None
        # Under their names in earlier results too.
        row["pss_per_drive_mib"], row["peak_per_drive_mib"] = row["pss_testing_per_drive_mib"], \
            row["pss_peak_per_drive_mib"]
        row["end_phase_vs_first"] = row["end_phase_s"] / base["end_phase_s"]
    result = {"machine": machine(), "root": ROOT, "rounds": ROUNDS, "round_seconds": ROUND_SECONDS, "rows": rows}
    save("drives" if ROOT == HERE else "drives-other-root", result)

    def mib(row: dict, key: str) -> str:
        per = row[f"{key}_per_drive_mib"]
        return f"{row[f'{key}_mib']:.0f} MiB" + ("" if per is None else f" ({per:+.1f})")
    print(table(["drives", "PSS testing (per drive)", "controller alone", "end peak (per drive)", "run's peak",
                 "controller alone", "gap median", "gap p95", "end phase", f"vs {base['drives']}", "slot waits",
                 "load start/end"], [
        [r["drives"], mib(r, "pss_testing"), mib(r, "controller_testing"), mib(r, "pss_end_peak"), mib(r, "pss_peak"),
         mib(r, "controller_peak"), f"{r['gap_median_s']:.3f} s", f"{r['gap_p95_s']:.3f} s",
         f"{r['end_phase_s']:.1f} s", f"{r['end_phase_vs_first']:.2f} x", r["slot_waits"],
         f"{r['load_start']:.1f} / {r['load_end']:.1f}"] for r in rows]))
    return result


if __name__ == "__main__":
    main()
