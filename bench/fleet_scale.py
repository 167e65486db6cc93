# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet scale: 1, 4 and 16 SSH hosts (network namespaces with sshd, one loop device each) in a short profile
with fio rate-limited, so the drive is the bottleneck. Measures the fleet's wall time against one host's, the
controller's CPU seconds per host-round (ansible-playbook and everything it starts: forks, ssh clients) and the
controller's memory at the peak, and states what 1,000 hosts on one controller would need.

Write saturation is the test here (no preconditioning to skew the comparison): ROUND_SECONDS rounds of 4k
random writes capped at RATE IOPS per fio job, until ROUNDS rounds' worth of bytes are written, so every host
does the same work whatever the load. The wall time is split into the prepare play (validate, install, identify,
guard, plan on every host), the drives' work (first purge to last round) and the rest, from the timestamps in
the results tree; the machine's own CPU use (/proc/stat) shows how much of its two cores the simulated hosts
(their sshd, module runs and fio) take beside the controller.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import yaml
from _common import ROOT, LoopDevice, machine, save, table, tree_memory_kib
from netns import SshHost, cleanup_run_netns, make_key

SIZES = [int(n) for n in os.environ.get("PTS_BENCH_HOSTS", "1,4,16").split(",")]
ROUND_SECONDS = float(os.environ.get("PTS_BENCH_ROUND_SECONDS", "10"))
RATE = int(os.environ.get("PTS_BENCH_RATE_IOPS", "500"))
ROUNDS = int(os.environ.get("PTS_BENCH_FLEET_ROUNDS", "4"))
DEVICE_BYTES = 256 << 20
BIN = os.path.join(ROOT, ".venv", "bin")


def _cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat", encoding="utf-8") as handle:
        fields = [int(v) for v in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _stamp(path: pathlib.Path) -> float:
    with open(path, encoding="utf-8") as handle:
        return datetime.datetime.fromisoformat(json.load(handle)["recorded_at"]).timestamp()


def _last_round(wsat: pathlib.Path) -> pathlib.Path:
    return max((p for p in wsat.glob("round-*.json") if p.stem[6:].isdigit()), key=lambda p: int(p.stem[6:]))


def run_fleet(count: int, work: pathlib.Path) -> dict:
    key, public = make_key(str(work))
    hosts, devices = [], []
    try:
        inventory = {"all": {"vars": {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["wsat"],
                                      "pts_fleet_fail_on": []}, "hosts": {}}}
        for index in range(count):
            name = f"bench-{index + 1:02d}"
            host = SshHost(name, 100 + index, str(work / "hosts"), public)
            hosts.append(host)
            folder = work / "drives" / name
            folder.mkdir(parents=True)
            device = LoopDevice(folder, "256M")
            devices.append(device)
            inventory["all"]["hosts"][name] = dict(
                host.inventory_vars(key), pts_run_remote_dir=str(work / "remote" / name),
                pts_devices=[{"path": device.path, "name": "disk", "backing_file": device.image}])
        (work / "hosts.yml").write_text(yaml.safe_dump(inventory))
        env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
                   ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
                   ANSIBLE_LOCAL_TEMP=str(work / "ansible-local"), MPLCONFIGDIR=str(work / "mpl"),
                   PTS_RESULTS_DIR=str(work / "results"), PTS_RUN_ID="scale")
        # Rate-limited fio writes RATE x 2 jobs x 4 KiB a second: stop once ROUNDS rounds' worth is written.
        target = (ROUNDS - 0.5) * RATE * 2 * 4096 * ROUND_SECONDS
        extra = {"pts_run_wsat_round_seconds": ROUND_SECONDS, "pts_run_wsat_max_hours": 1,
                 "pts_run_wsat_capacity_multiple": round(target / DEVICE_BYTES, 4), "pts_run_rate_iops": RATE}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        busy0, total0 = _cpu_jiffies()
        started_at = time.time()
        started = time.monotonic()
        with open(work / "run.log", "w", encoding="utf-8") as log:
            proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i",
                                     str(work / "hosts.yml"), "-e", json.dumps(extra)], cwd=ROOT, env=env,
                                    stdout=log, stderr=subprocess.STDOUT)
            peak = {"rss": 0, "pss": 0}

            def sample():
                while proc.poll() is None:
                    memory = tree_memory_kib(proc.pid)
                    peak.update(rss=max(peak["rss"], memory["rss"]), pss=max(peak["pss"], memory["pss"]))
                    time.sleep(0.5)
            sampler = threading.Thread(target=sample)
            sampler.start()
            rc = proc.wait()
            sampler.join()
        wall = time.monotonic() - started
        ended_at = time.time()
        busy1, total1 = _cpu_jiffies()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if rc != 0:
            sys.exit(f"{count} hosts: the run failed (rc {rc}); see {work / 'run.log'}")
        wsat_dirs = [work / "results" / "scale" / h.name / "disk" / "wsat" for h in hosts]
        rounds = sum(len(list(d.glob("round-*.raw.json"))) for d in wsat_dirs)
        first_purge = min(_stamp(d / "purge.json") for d in wsat_dirs)
        last_round = max(_stamp(_last_round(d)) for d in wsat_dirs)
        drive_spans = [_stamp(_last_round(d)) - _stamp(d / "purge.json") for d in wsat_dirs]
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"hosts": count, "wall_s": wall, "rounds": rounds, "controller_cpu_s": cpu,
                "cpu_per_host_round_s": cpu / rounds, "peak_rss_mib": peak["rss"] / 1024,
                "peak_pss_mib": peak["pss"] / 1024,
                "prepare_s": first_purge - started_at, "drives_s": last_round - first_purge,
                "rest_s": ended_at - last_round, "drive_span_mean_s": sum(drive_spans) / len(drive_spans),
                "machine_busy_pct": 100.0 * (busy1 - busy0) / max(1, total1 - total0)}
    finally:
        for device in devices:
            device.detach()
        for host in hosts:
            host.teardown()
        cleanup_run_netns()


def main() -> dict:
    rows = []
    for count in SIZES:
        work = pathlib.Path(tempfile.mkdtemp(prefix=f"pts-bench-fleet{count}-", dir="/var/tmp"))
        try:
            rows.append(run_fleet(count, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    base = rows[0]
    for row in rows:
        row["wall_vs_one_host"] = row["wall_s"] / base["wall_s"]
    largest = rows[-1]
    # The standard profile's IOPS round: 56 combinations of 60 s plus fio's start-up per combination.
    standard_round_s = 56 * 60.4
    per_host_round = largest["cpu_per_host_round_s"]
    cores_needed = 1000 * per_host_round / standard_round_s
    # PSS, not RSS: forked workers share most pages with the controller, and summed RSS counts them once per worker.
    per_worker_mib = (largest["peak_pss_mib"] - base["peak_pss_mib"]) / max(1, largest["hosts"] - base["hosts"])
    per_worker_rss_mib = (largest["peak_rss_mib"] - base["peak_rss_mib"]) / max(1, largest["hosts"] - base["hosts"])
    result = {"machine": machine(), "round_seconds": ROUND_SECONDS, "rate_iops_per_job": RATE, "runs": rows,
              "rounds_per_host": ROUNDS,
              "extrapolation_1000_hosts": {"controller_cores_busy": cores_needed, "forks": 1000,
                                           "memory_gib": (base["peak_pss_mib"] + 999 * per_worker_mib) / 1024,
                                           "per_worker_mib": per_worker_mib, "per_worker_rss_mib": per_worker_rss_mib}}
    save("fleet_scale", result)
    print(table(["hosts", "wall", "vs 1 host", "prepare / drives / rest", "one drive", "host-rounds", "controller CPU",
                 "CPU per host-round", "machine busy", "peak PSS / RSS"], [
        [r["hosts"], f"{r['wall_s']:.0f} s", f"{r['wall_vs_one_host']:.2f} x",
         f"{r['prepare_s']:.0f} / {r['drives_s']:.0f} / {r['rest_s']:.0f} s", f"{r['drive_span_mean_s']:.0f} s",
         r["rounds"], f"{r['controller_cpu_s']:.0f} s", f"{r['cpu_per_host_round_s']:.2f} s",
         f"{r['machine_busy_pct']:.0f} %", f"{r['peak_pss_mib']:.0f} / {r['peak_rss_mib']:.0f} MiB"] for r in rows]))
    print(f"1,000 hosts (one drive each) on one controller: {1000 * per_host_round:,.0f} CPU seconds per standard "
          f"IOPS round of {standard_round_s / 60:.0f} min = {cores_needed:.2f} cores busy, forks = 1000, about "
          f"{result['extrapolation_1000_hosts']['memory_gib']:.0f} GiB (PSS; {per_worker_mib:.0f} MiB per running drive)")
    return result


if __name__ == "__main__":
    main()
