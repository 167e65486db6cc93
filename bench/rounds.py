# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Round overhead, fidelity and the TKperf way, side by side on one loop device.

1. The IOPS test through the collection (full 56-combination matrix, ROUNDS rounds).
2. Overhead per round: the time between one round's fio ending and the next one's, minus the next fio's own
   run time (measured inside fio_job) - everything the harness adds between the drive's rounds.
3. Fidelity: the same job file (round 2's) run REPEAT times by bare fio and REPEAT times through the collection's
   fio_job (async, detached, waited for by its action plugin, as in a round), interleaved so the drive's drift
   hits both alike; their 4k-write IOPS compared, with each side's spread as the noise. Bare fio's wall time
   is also the round's reference.
4. The TKperf way: the same 56 combinations as 56 fio processes, one after the other, against one process.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from _common import ROOT, LoopDevice, machine, run_playbook, save, table

ROUNDS = int(os.environ.get("PTS_BENCH_ROUNDS", "6"))
SECONDS = float(os.environ.get("PTS_BENCH_SECONDS", "0.5"))
REPEAT = int(os.environ.get("PTS_BENCH_REPEAT", "4"))


def fio_wall(job_file: str, output: str) -> tuple[float, dict]:
    started = time.monotonic()
    subprocess.run(["fio", "--output-format=json", f"--output={output}", job_file], check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    with open(output, encoding="utf-8") as handle:
        return wall, json.load(handle)


def collection_fio(job_file: str, work: pathlib.Path, expected: float, device: str, guard: dict) -> dict:
    """One run of the job file through fleetqual.pts.fio_job (async, poll 0: the action waits), as a round runs,
    with the guard's record of the device from the collection's own run (fio_job writes nothing without one)."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
               ANSIBLE_LOCAL_TEMP=str(work / "ansible-local"), ANSIBLE_REMOTE_TMP=str(work / "ansible-remote"),
               ANSIBLE_NOCOLOR="1", ANSIBLE_LOAD_CALLBACK_PLUGINS="0")
    args = json.dumps({"job_file": job_file, "expected_seconds": expected, "device": device, "expect": guard})
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible"), "localhost", "-c", "local",
                           "-e", "ansible_python_interpreter=/usr/bin/python3", "-m", "fleetqual.pts.fio_job",
                           "-a", args, "-B", "3600", "-P", "0", "-o"],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or "=>" not in proc.stdout:
        sys.exit(f"fio_job through the collection failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    raw = json.loads(proc.stdout.split("=>", 1)[1])["pts_fio_raw"]
    return json.loads(raw) if isinstance(raw, str) else raw


def dv(raw: dict) -> float:
    (job,) = [j for j in raw["jobs"] if j["jobname"] == "iops-r0-4096"]
    return job["read"]["iops"] + job["write"]["iops"]


def split_jobs(text: str, folder: str) -> list[str]:
    """One job file per combination: the global section and one job section each (TKperf's one fio per run)."""
    head, *sections = text.split("\n[")
    head += "".join("\n[" + s for s in sections if s.startswith("global]"))
    files = []
    for index, section in enumerate(s for s in sections if not s.startswith("global]")):
        path = os.path.join(folder, f"combo-{index:02d}.fio")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(head + "\n[" + section)
        files.append(path)
    return files


def main() -> dict:
    work = pathlib.Path(tempfile.mkdtemp(prefix="pts-bench-rounds-", dir="/var/tmp"))
    device = LoopDevice(work, "1G")
    try:
        run = run_playbook(
            work,
            {"pts_devices": [{"path": device.path, "name": "bench", "backing_file": device.image}],
             "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"]},
            {"pts_run_round_seconds": SECONDS, "pts_run_max_rounds": ROUNDS, "pts_run_window": ROUNDS},
            run_id="bench-rounds")
        if run.rc != 0:
            sys.exit(f"the collection's run failed:\n{run.stdout[-3000:]}")
        test_dir = os.path.join(run.drive_dir("bench"), "iops")
        raws, elapsed = [], []
        for number in range(1, ROUNDS + 1):
            with open(os.path.join(test_dir, f"round-{number:02d}.raw.json"), encoding="utf-8") as handle:
                raws.append(json.load(handle))
            with open(os.path.join(test_dir, f"round-{number:02d}.json"), encoding="utf-8") as handle:
                elapsed.append(json.load(handle)["fio"]["elapsed_s"])
        overheads = [(raws[n]["timestamp_ms"] - raws[n - 1]["timestamp_ms"]) / 1000.0 - elapsed[n]
                     for n in range(1, ROUNDS)]
        with open(os.path.join(run.drive_dir("bench"), "guard.json"), encoding="utf-8") as handle:
            guard = json.load(handle)
        job_file = os.path.join(test_dir, "round-02.fio")
        with open(job_file, encoding="utf-8") as handle:
            job_text = handle.read()
        bare, through = [], []
        expected = 0.0
        for i in range(REPEAT):
            # ABBA order: whichever runs second in a pair pays for the first one's writes still being flushed.
            if i % 2 == 0:
                bare.append(fio_wall(job_file, os.path.join(work, f"bare-{i}.json")))
                expected = bare[-1][0]
            through.append(collection_fio(job_file, work, expected or statistics.fmean(elapsed), device.path, guard))
            if i % 2 == 1:
                bare.append(fio_wall(job_file, os.path.join(work, f"bare-{i}.json")))
        combos = split_jobs(job_text, work)
        started = time.monotonic()
        for index, path in enumerate(combos):
            fio_wall(path, os.path.join(work, f"tkperf-{index}.json"))
        tkperf_wall = time.monotonic() - started
    finally:
        device.detach()
        shutil.rmtree(work, ignore_errors=True)

    bare_walls = [w for w, dummy in bare]
    bare_dv = [dv(r) for dummy, r in bare]
    ours_dv = [dv(r) for r in through]
    rounds_dv = [dv(r) for r in raws[1:]]
    per_job = (statistics.fmean(bare_walls) - len(combos) * SECONDS) / len(combos)
    round_60 = len(combos) * (60 + per_job)
    overhead = statistics.fmean(overheads)
    result = {
        "machine": machine(), "rounds": ROUNDS, "seconds_per_combination": SECONDS, "combinations": len(combos),
        "overhead_s": {"mean": overhead, "max": max(overheads), "each": overheads},
        "round_s": {"collection_fio": statistics.fmean(elapsed[1:]), "bare_fio": statistics.fmean(bare_walls),
                    "tkperf_way": tkperf_wall},
        "overhead_pct_quick": 100 * overhead / statistics.fmean(elapsed[1:]),
        "overhead_pct_60s": 100 * overhead / round_60,
        "fio_per_job_s": per_job,
        "fidelity": {"collection_mean": statistics.fmean(ours_dv), "bare_mean": statistics.fmean(bare_dv),
                     "ratio": statistics.fmean(ours_dv) / statistics.fmean(bare_dv),
                     "bare_noise_pct": 100 * statistics.pstdev(bare_dv) / statistics.fmean(bare_dv),
                     "collection_noise_pct": 100 * statistics.pstdev(ours_dv) / statistics.fmean(ours_dv),
                     "bare": bare_dv, "collection": ours_dv, "rounds": rounds_dv},
    }
    save("rounds", result)
    print(table(["measure", "value"], [
        ["combinations per round", len(combos)],
        [f"fio wall per round at {SECONDS:g} s (collection / bare)",
         f"{result['round_s']['collection_fio']:.2f} s / {result['round_s']['bare_fio']:.2f} s"],
        ["harness overhead per round (mean / max)", f"{overhead:.2f} s / {max(overheads):.2f} s"],
        ["overhead at the quick profile", f"{result['overhead_pct_quick']:.1f} %"],
        ["overhead extrapolated to 60 s per combination", f"{result['overhead_pct_60s']:.3f} %"],
        ["4k write IOPS, through fio_job / bare fio, interleaved (ratio)",
         f"{result['fidelity']['collection_mean']:,.0f} / {result['fidelity']['bare_mean']:,.0f} "
         f"({result['fidelity']['ratio']:.3f})"],
        ["run-to-run noise (stdev), bare / collection",
         f"{result['fidelity']['bare_noise_pct']:.1f} % / {result['fidelity']['collection_noise_pct']:.1f} %"],
        ["round wall: one fio process vs TKperf's 56", f"{result['round_s']['bare_fio']:.1f} s vs {tkperf_wall:.1f} s"],
    ]))
    return result


if __name__ == "__main__":
    main()
