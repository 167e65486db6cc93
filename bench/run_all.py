# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make bench`: every benchmark, one after the other, then build/bench/performance.md from their results (the docsite's
Performance page, docs/docsite/rst/performance.rst, is updated from it by hand, with the date and the machine).

Benchmarks, not tests: nothing here fails on a number. PTS_BENCH_ONLY=rounds,long_run,report_time,fleet_scale picks
some; the tables of a benchmark not run this time come from its last results in bench/results/.
"""

from __future__ import annotations

import datetime
import json
import statistics
import os

import drives
import event_size
import fleet_scale
import fleet_summary
import guard_check
import history
import long_run
import report_time
import rounds
from _common import ROOT

BENCHES = {"rounds": rounds, "long_run": long_run, "drives": drives, "event_size": event_size, "report_time": report_time,
           "fleet_summary": fleet_summary, "fleet_scale": fleet_scale, "guard_check": guard_check,
           "history": history}


def _load(name: str) -> dict | None:
    path = os.path.join(ROOT, "bench", "results", f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def write_doc() -> str:
    r, t, f, long = _load("rounds"), _load("report_time"), _load("fleet_scale"), _load("long_run")
    machine = (r or t or f or long or {}).get("machine", {})
    lines = ["# Performance", "",
             f"Measured by `make bench` on {datetime.date.today().isoformat()}: {machine.get('cpu')}, "
             f"{machine.get('cores')} cores, {machine.get('memory_gib')} GiB, kernel {machine.get('kernel')}, "
             f"{machine.get('fio')}, Python {machine.get('python')}. Loop devices over files on the machine's disk; "
             "SSH hosts are network namespaces on the same machine (their sshd, modules and fio share its 2 cores "
             "with the controller). Benchmarks, not tests: CI does not fail on these numbers.", ""]
    if r:
        fid = r["fidelity"]
        lines += ["## Round overhead, fidelity and the TKperf way (`bench/rounds.py`)", "",
                  f"The IOPS test through the collection: {r['combinations']} combinations of "
                  f"{r['seconds_per_combination']:g} s per round, {r['rounds']} rounds, on a 1 GiB loop device; then "
                  "round 2's job file run alternately by bare fio and through the collection's `fio_job` (async, "
                  "waited for by its action plugin, as in a round; ABBA order, so neither side always runs second), "
                  "and the same combinations as one fio process each (TKperf's way).", "",
                  "| measure | value | target |", "|---|---:|---|",
                  f"| fio per round, collection / bare | {r['round_s']['collection_fio']:.2f} s / "
                  f"{r['round_s']['bare_fio']:.2f} s | |",
                  f"| harness overhead per round, mean (max) | {r['overhead_s']['mean']:.2f} s "
                  f"({r['overhead_s']['max']:.2f} s) | < 3 s: {_mark(r['overhead_s']['mean'] < 3)} |",
                  f"| overhead at {r['seconds_per_combination']:g} s per combination | "
                  f"{r['overhead_pct_quick']:.1f} % | |",
                  f"| overhead extrapolated to 60 s per combination | {r['overhead_pct_60s']:.3f} % | "
                  f"< 1 %: {_mark(r['overhead_pct_60s'] < 1)} |",
                  f"| 4k write IOPS, through fio_job / bare fio, interleaved (ratio) | {fid['collection_mean']:,.0f} / {fid['bare_mean']:,.0f} "
                  f"({fid['ratio']:.3f}) | ≈ 1 within noise (2 stdev): "
                  f"{_mark(abs(fid['ratio'] - 1) * 100 <= 2 * max(fid['bare_noise_pct'], fid['collection_noise_pct']))} |",
                  f"| run-to-run noise, bare / collection (stdev) | {fid['bare_noise_pct']:.1f} % / "
                  f"{fid['collection_noise_pct']:.1f} % | |",
                  f"| round wall, one fio process / TKperf's one per combination | {r['round_s']['bare_fio']:.1f} s / "
                  f"{r['round_s']['tkperf_way']:.1f} s | |", "",
                  f"fio pays about {r['fio_per_job_s']:.2f} s per job section even inside one process (start-up, "
                  "file open, ramp), so TKperf's one process per combination costs only "
                  f"{r['round_s']['tkperf_way'] - r['round_s']['bare_fio']:.1f} s more per "
                  f"{r['combinations']}-combination round here; the collection's own overhead is the gap between "
                  "rounds above, not inside them.", ""]
    if long:
        rows = long["per_100"]
        lines += ["## A long test: 1,500 rounds (`bench/long_run.py`)", "",
                  f"A write saturation of {long['rounds']:,} rounds on a loop device, each round "
                  f"{long['round_seconds']:g} s of 4k random writes held to {long['rate_iops_per_job']} IOPS per fio "
                  "job, so the harness, not the drive, sets the pace. *Gap*: from one round's result on disk to the "
                  "next one's, minus the next one's fio run time - everything the harness does between two rounds "
                  "(the round written, the next job file rendered and handed to the segment's fio server on the host, "
                  "fio's end noticed on the host, its output read and parsed). *Controller*: ansible-playbook and every process it started, "
                  "sampled once a second; memory as PSS (shared pages split among the processes mapping them) "
                  "beside RSS (shared pages counted once per process).", "",
                  "| rounds | gap mean | gap p95 | fio run time | controller CPU per round | controller PSS | "
                  "controller RSS |", "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {x['rounds']} | {x['gap_mean_s']:.3f} s | {x['gap_p95_s']:.3f} s | {x['fio_mean_s']:.3f} s | "
                  f"{'-' if x['cpu_per_round_s'] is None else format(x['cpu_per_round_s'], '.3f') + ' s'} | "
                  f"{'-' if x['pss_mib'] is None else format(x['pss_mib'], '.0f') + ' MiB'} | "
                  f"{'-' if x['rss_mib'] is None else format(x['rss_mib'], '.0f') + ' MiB'} |" for x in rows]
        memory_pct = 100 * (long["pss_last_mib"] / long["pss_first_mib"] - 1)
        gap_text = (f"Gap before rounds 2-10 {long['gap_rounds_2_10_s']:.3f} s, around round 1,000 "
                    f"{long['gap_rounds_990_1010_s']:.3f} s ({long['gap_change_pct']:+.1f} %")
        if "gap_median_change_pct" in long:
            spread = statistics.quantiles(long["gaps_s"], n=20)
            gap_text = (f"The gaps spread from {spread[0]:.3f} s (5th percentile) over {spread[9]:.3f} s (median) to "
                        f"{spread[-1]:.3f} s (95th): a mean of a few of them depends on how many of the slow ones "
                        "(most likely one more poll for fio's end) it catches, so the verdict is on the median of 50 gaps at each "
                        f"end. {gap_text}). Median gap before rounds 2-51 {long['gap_median_rounds_2_51_s']:.3f} s, "
                        f"before rounds 976-1025 {long['gap_median_rounds_976_1025_s']:.3f} s "
                        f"({long['gap_median_change_pct']:+.1f} %; target within 10 %: "
                        f"{_mark(abs(long['gap_median_change_pct']) <= 10)}")
        else:
            gap_text += f"; target within 10 %: {_mark(abs(long['gap_change_pct']) <= 10)}"
        lines += ["", f"{gap_text}). Controller PSS {long['pss_first_mib']:.0f} MiB in the first 100 rounds, "
                      f"{long['pss_last_mib']:.0f} MiB in the last ({memory_pct:+.1f} %; target within 10 %: "
                      f"{_mark(abs(memory_pct) <= 10)}). The drive's report, rebuilt from its {long['rounds']:,} "
                      f"round files: {long['report_s']:.1f} s.", ""]
    d = _load("drives")
    if d:
        rows = d["rows"]
        lines += ["## Many drives at once (`bench/drives.py`)", "",
                  f"One host's drives all testing at once: each a 32 MiB loop device running a write saturation of "
                  f"{d['rounds']} rate-limited rounds of {d['round_seconds']:g} s, so the harness sets the pace. Memory: "
                  "PSS of ansible-playbook and every process it started, the median while every drive is in its "
                  "rounds; *peak PSS*, the highest sample, in the end phase, while the reports are drawn "
                  "(`pts_report_concurrency` at once, each in a short-lived child); per running drive, the growth "
                  "over one drive divided by the drives added, of each. *End phase*: the last round on disk to "
                  "ansible-playbook's exit (each drive's report, the fleet summary). *Load*: the machine's load "
                  "average at the start and the end of the run.", "",
                  "| drives | PSS while testing | per running drive | peak PSS | peak per drive | gap median | gap p95 "
                  "| end phase | load |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

        def mib(value):
            return "-" if value is None else format(value, ".1f") + " MiB"
        lines += [f"| {x['drives']} | {x['pss_testing_mib']:.0f} MiB | {mib(x['pss_per_drive_mib'])} | "
                  f"{x['pss_peak_mib']:.0f} MiB | {mib(x.get('peak_per_drive_mib'))} | {x['gap_median_s']:.3f} s | "
                  f"{x['gap_p95_s']:.3f} s | {x['end_phase_s']:.1f} s ({x['end_phase_vs_first']:.2f} x) | "
                  f"{x.get('load_start', 0):.1f} / {x.get('load_end', 0):.1f} |" for x in rows]
        lines.append("")
    s = _load("fleet_summary")
    if s:
        lines += ["## The judge at fleet scale (`bench/fleet_summary.py`)", "",
                  "The fleet summary alone, as the judge writes it once every drive's worker has drawn its report "
                  "(each result.json up to date): fleet.md, fleet.json, junit.xml, fleet.html, fleet.pdf, the plots and "
                  "the history index; synthetic result trees.", "",
                  "| drives | wall | CPU |", "|---:|---:|---:|"]
        lines += [f"| {x['drives']:,} | {x['wall_s']:.1f} s | {x['cpu_s']:.1f} s |" for x in s["rows"]]
        lines.append("")
    h = _load("history")
    if h:
        lines += ["## The history at fleet scale (`bench/history.py`)", "",
                  f"A history of {h['runs']} earlier runs of {h['drives']:,} drives of one model and firmware "
                  f"({h['runs'] * h['drives']:,} earlier measurements of each headline figure), in SQLite beside the "
                  "runs and in PostgreSQL (a local server started by the benchmark). *Write*: the next run's "
                  f"{h['drives']:,} drives, {h['drives'] * 5:,} rows, one transaction. *Lookup*: what each drive's "
                  "report reads - its previous run and its five figures against their populations - per drive, over "
                  f"{h['sample']} drives. *Fleet summary's part*: the population outliers and fleet.md's History of "
                  f"{h['drives']:,} drives from their reports' blocks. Reading the rows of a {h['drives']:,}-drive "
                  f"results tree (both back ends): {h['tree_rows_s']:.2f} s.", "",
                  f"| history | {h['runs']} earlier runs written | run {h['runs'] + 1} written | lookup per drive, "
                  "median / p95 | lookup's peak allocation (tracemalloc) | fleet summary's part |",
                  "|---|---:|---:|---:|---:|---:|"]
        for name, x in h["backends"].items():
            per = sorted(x["lookup_s"])
            lines.append(f"| {name} | {x['fill_s']:.1f} s | {x['write_s']:.2f} s | {statistics.median(per):.3f} s / "
                         f"{per[int(0.95 * (len(per) - 1))]:.3f} s | {x.get('lookup_peak_mib', 0):.1f} MiB | "
                         f"{x['fleet_s']:.2f} s |")
        lines.append("")
    if t:
        lines += ["## Report time (`bench/report_time.py`)", "",
                  f"Synthetic results with the shape of real ones: 4 tests x {t['rounds_per_test']} rounds per drive "
                  "(56 combinations per IOPS round).", "",
                  "| measure | value | target |", "|---|---:|---|",
                  f"| drive report, 1 drive (Markdown, plots, HTML, PDF) | {t['report_1']['mean_s']:.1f} s | < 10 s: "
                  f"{_mark(t['report_1']['mean_s'] < 10)} |",
                  *([f"| drive report, 1 drive without the PDF (`PTS_REPORT_FORMATS=html`) | "
                     f"{t['report_1_no_pdf']['mean_s']:.1f} s | |"] if "report_1_no_pdf" in t else []),
                  f"| drive report, 10 drives, each (mean / max) | {t['report_10']['mean_s']:.1f} s / "
                  f"{t['report_10']['max_s']:.1f} s | < 10 s: {_mark(t['report_10']['max_s'] < 10)} |",
                  f"| drive report, 100 drives on {t['report_100']['workers']} processes, each (mean / max) | "
                  f"{t['report_100']['mean_s']:.1f} s / {t['report_100']['max_s']:.1f} s | |",
                  f"| 100 drive reports, wall | {t['report_100']['wall_s']:.0f} s | |",
                  f"| fleet summary, {t['fleet_drives']} drives | {t['fleet_1000_s']:.1f} s | < 60 s: "
                  f"{_mark(t['fleet_1000_s'] < 60)} |", ""]
        if t.get("per_format"):
            lines += ["Per part (`report_time.py --per-format`): one drive's report rebuilt cold three times, the median "
                      "of each part, wall clock (CPU time, a forked child's included):", "",
                      "| drive | model | plots | report.md | HTML | PDF | writing files | all |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|"]
            lines += [f"| {name} | " + " | ".join(f"{entry[f'{part}_s']:.2f} s ({entry[f'{part}_cpu_s']:.2f} s)"
                                                  for part in ("model", "plots", "markdown", "html", "pdf", "rest", "total"))
                      + " |" for name, entry in t["per_format"].items() if "total_cpu_s" in entry]
            lines.append("")
    if f:
        runs = f["runs"]
        x = f["extrapolation_1000_hosts"]
        lines += ["## Fleet scale (`bench/fleet_scale.py`)", "",
                  f"Write saturation on one loop device per SSH host, {f['round_seconds']:g} s rounds capped at "
                  f"{f['rate_iops_per_job']} IOPS per fio job, so the drive is the bottleneck; every host writes "
                  f"{f.get('rounds_per_host', 4)} rounds' worth of data. Wall time split from the results' "
                  "timestamps: the prepare play on every host, the drives' work (first purge to last round), and the "
                  "rest (reports, fleet summary). *Machine busy* is the whole machine's CPU use: here the SSH hosts' "
                  "sshd, module runs and fio share the controller's two cores.", "",
                  "| hosts | wall | vs 1 host | prepare / drives / rest | one drive, mean | host-rounds | controller CPU "
                  "| CPU per host-round | machine busy | peak controller PSS / RSS |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {r['hosts']} | {r['wall_s']:.0f} s | {r['wall_vs_one_host']:.2f} x | "
                  f"{r.get('prepare_s', 0):.0f} / {r.get('drives_s', 0):.0f} / {r.get('rest_s', 0):.0f} s | "
                  f"{r.get('drive_span_mean_s', 0):.0f} s | {r['rounds']} | "
                  f"{r['controller_cpu_s']:.0f} s | {r['cpu_per_host_round_s']:.2f} s | {r.get('machine_busy_pct', 0):.0f} % | "
                  f"{r.get('peak_pss_mib', 0):.0f} / {r['peak_rss_mib']:.0f} MiB |" for r in runs]
        lines += ["", f"Target: 16 hosts within 1.3 x one host - {_mark(runs[-1]['wall_vs_one_host'] <= 1.3)}.", ""]
        big, cores = runs[-1], float(f["machine"].get("cores") or 2)
        if big["wall_vs_one_host"] > 1.3 and "machine_busy_pct" in big:
            used = big["machine_busy_pct"] / 100 * cores * big["wall_s"]
            lines += [
                f"Why it is missed here: at {big['hosts']} hosts the machine's {cores:g} cores were "
                f"{big['machine_busy_pct']:.0f} % busy. Of the {used:.0f} CPU seconds used, the controller took "
                f"{big['controller_cpu_s']:.0f}; the other {used - big['controller_cpu_s']:.0f} were the simulated "
                "hosts' own work (their sshd, the module runs Ansible starts on them, fio, the loop devices' I/O), "
                "which on a real fleet runs on the hosts. With every core taken, each drive's four rounds stretch "
                f"from {runs[0].get('drive_span_mean_s', 0):.0f} s to {big.get('drive_span_mean_s', 0):.0f} s. The "
                f"controller's own cost per host-round falls as the fleet grows ({runs[0]['cpu_per_host_round_s']:.2f} "
                f"s at one host, {big['cpu_per_host_round_s']:.2f} s at {big['hosts']}); at these deliberately short "
                f"{f['round_seconds']:g}-s rounds, {big['hosts']} hosts would need "
                f"{big['hosts'] * big['cpu_per_host_round_s'] / f['round_seconds']:.1f} controller cores to keep pace, "
                "while a real 56-minute IOPS round leaves the controller idle almost all the time (below). So the "
                "target cannot be shown on one 2-core machine that is both the controller and all the hosts; it needs "
                "hosts that are separate machines.", ""]
        lines += [
            f"1,000 hosts on one controller: at {runs[-1]['cpu_per_host_round_s']:.2f} CPU seconds per host-round "
            f"and a standard IOPS round of about 56 min, the controller keeps {x['controller_cores_busy']:.2f} "
            f"cores busy; it needs `forks` = 1,000 (one per drive running at once) and about "
            f"{x['memory_gib']:.0f} GiB of memory ({x['per_worker_mib']:.0f} MiB PSS per running drive; summed RSS "
            f"would say {x.get('per_worker_rss_mib', 0):.0f} MiB, counting the pages the forked workers share with "
            "the controller once per worker). Beyond that, split the inventory across controllers (job slices) and "
            "merge with `playbooks/fleet_summary.yml`.", ""]
    g = _load("guard_check")
    if g:
        lines += ["## The check before every fio (`bench/guard_check.py`)", "",
                  f"On a held loop device, {g['repeat']} times each (load average {g['load']:.2f}): what the host "
                  "runs right before each fio starts.", "", "| check | median | max |", "|---|---:|---:|"]
        lines += [f"| {name} | {v['median_ms']:.1f} ms | {v['max_ms']:.1f} ms |" for name, v in g["parts"].items()]
        lines += [""]
    lines += _event_size_section()
    path = os.path.join(ROOT, "build", "bench", "performance.md")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines).rstrip() + "\n")
    return path


def _event_size_section() -> list[str]:
    after, before = _load("event_size"), _load("event_size_before")
    if not after:
        return []
    earlier = {r["drives"]: r for r in (before or {}).get("rows") or []}
    lines = ["## Events AWX stores (`bench/event_size.py`)", "",
             "One host's drives (16 MiB loop devices, the IOPS test at one block size and mix, three 0.2 s rounds) as "
             "one job through ansible-runner's streaming mode; the largest file of `job_events/` (AWX drops an "
             "event's result past 700,000 bytes). *Before*: the same benchmark against an earlier checkout "
             "(`PTS_BENCH_ROOT=<checkout> PTS_BENCH_LABEL=event_size_before`).", "",
             "| drives | largest event, before | largest event | its task | all events |", "|---:|---:|---:|---|---:|"]
    for row in after["rows"]:
        old = earlier.get(row["drives"])
        was = f"{old['largest_event_bytes']:,} B" if old else "n/a"
        lines.append(f"| {row['drives']} | {was} | {row['largest_event_bytes']:,} B | {row['largest_event']} | "
                     f"{row['all_events_bytes']:,} B |")
    return lines + [f"Target: every event under 64 kB at 24 drives - "
                    f"{_mark(all(r['largest_event_bytes'] < 64_000 for r in after['rows']))}.", ""]


def main() -> None:
    only = [n for n in os.environ.get("PTS_BENCH_ONLY", ",".join(BENCHES)).split(",") if n]
    for name in only:
        print(f"\n== {name}")
        BENCHES[name].main()
    print(f"\nwrote {write_doc()}")


if __name__ == "__main__":
    main()
