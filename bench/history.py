# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history at fleet scale, SQLite beside the runs against PostgreSQL (a real server: tests/integration/pg.py starts
Debian's in a temporary directory, as the tests do): a history of 100 earlier runs of 1,000 drives of one model and
firmware (the largest population a drive can have: 100,000 earlier measurements of each figure), then

- the history write: the 101st run's 1,000 drives (5,000 rows) in one transaction - and, apart, reading those rows
  from a results tree of 1,000 drives (the same for both back ends); filling the 100 earlier runs (10 runs a
  transaction, as a rebuild writes them) is timed too;
- the population comparison as each drive's report makes it (plugin_utils/_history/_lookup.drive_history: the previous
  run and the five PTS-E 1.1 figures against their populations), per drive, for a sample of drives;
- the fleet summary's part (the population outliers and fleet.md's History of 1,000 drives, from their blocks).

PTS_BENCH_HISTORY_DRIVES, PTS_BENCH_HISTORY_RUNS and PTS_BENCH_HISTORY_SAMPLE change the sizes. A benchmark, not a
test."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import tempfile
import time
import tracemalloc

from _common import machine, save, table

import history_trees
from pg import PostgreSQL

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_history, _fleet_history_md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location, _lookup, _rows, _schema
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store

DRIVES = int(os.environ.get("PTS_BENCH_HISTORY_DRIVES", "1000"))
RUNS = int(os.environ.get("PTS_BENCH_HISTORY_RUNS", "100"))
SAMPLE = int(os.environ.get("PTS_BENCH_HISTORY_SAMPLE", "50"))
FIGURES = {"iops_4k_write": 150000.0, "throughput_1024k_read_mb_s": 3000.0, "throughput_1024k_write_mb_s": 2000.0,
           "latency_4k_write_mean_ms": 0.05, "latency_4k_write_p9999_ms": 2.0}


def when(number: int) -> str:
    return f"2026-{1 + number // 28:02d}-{1 + number % 28:02d}T10:00:00.000+00:00"


def run_rows(number: int, rng: random.Random) -> tuple[str, list[dict], set]:
    """One run of DRIVES drives on DRIVES // 10 hosts, every figure's row as run_rows writes it."""
    run = f"run-{number:04d}"
    blank = dict.fromkeys(_schema.NAMES)
    rows = []
    for drive in range(DRIVES):
        host = f"h{drive // 10:03d}"
        common = dict(blank, run_id=run, host=host, drive=f"bay{drive % 10}", serial=f"S{number:04d}-{drive:04d}",
                      model="ACME X1", firmware="1.0", vendor="ACME", capacity_bytes=3840 * 10 ** 9,
                      interface="nvme", run_time=when(number), profile="full", quick_profile=0,
                      tests=json.dumps(["iops", "latency", "throughput"]), verdict="PASS", verdict_source="fleet",
                      drive_dir=f"{run}/{host}/bay{drive % 10}")
        for figure, level in FIGURES.items():
            rows.append(dict(common, figure=figure, value=level * rng.gauss(1.0, 0.03), unit="x", state="steady",
                             steady=1))
    return run, rows, {f"h{h:03d}" for h in range(DRIVES // 10)}


BATCH = 10


def fill(spec, root: str) -> float:
    """RUNS earlier runs, BATCH runs a transaction (as a rebuild writes them); the seconds it took."""
    rng = random.Random(39)
    started = time.monotonic()
    with open_store(spec, root) as store:
        for first in range(0, RUNS, BATCH):
            store.write_runs([run_rows(number, rng) for number in range(first, min(first + BATCH, RUNS))])
    return time.monotonic() - started


def write_new(spec, root: str) -> float:
    prepared = run_rows(RUNS, random.Random(4039))
    started = time.monotonic()
    with open_store(spec, root) as store:
        store.write_runs([prepared])
    return time.monotonic() - started


def drive_model(number: int) -> dict:
    """What the drive report's lookup reads of a drive of the new run."""
    return {"drive": {"model": "ACME X1", "firmware": "1.0"}, "quick_profile": False,
            "command": {"recorded_at": when(RUNS)},
            "tests": {"iops": {"status": "steady", "tables": {"iops": {"4k": {"0": 140000.0 + number}}}},
                      "latency": {"status": "steady", "tables": {"mean_ms": {"4k": {"0": 0.05}}},
                                  "percentiles_ms": {"4k 0/100 write": {"99.99": 2.1}}},
                      "throughput": {"segments": [{"name": "1024k", "status": "steady", "mb_per_s": {
                          "read": 3000.0, "write": 2000.0}, "dvs": [{"steady": True}, {"steady": True}]}]}}}


def lookups(spec, root: str) -> dict:
    drive_dir = os.path.join(root, f"run-{RUNS:04d}", "h000", "bay0")
    per_drive, blocks = [], []
    for number in range(SAMPLE):
        started = time.monotonic()
        found = _lookup.drive_history(drive_dir, drive_model(number), spec)
        per_drive.append(time.monotonic() - started)
        blocks.append(found["population"])
    block = blocks[0]
    assert block["figures"]["iops_4k_write"]["n"] == RUNS * DRIVES, block
    # What one lookup allocates at its peak (the population's values are read into the drive's worker): Python's own
    # allocations, traced - not PSS (malloc's free lists and libpq's or SQLite's own buffers are not counted).
    tracemalloc.start()
    _lookup.drive_history(drive_dir, drive_model(0), spec)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"per_drive_s": per_drive, "block": block, "peak_mib": peak / 1048576}


def fleet_part(block: dict) -> float:
    """The fleet summary's population outliers and History section for DRIVES drives."""
    drives = [{"id": f"h{d // 10:03d}/bay{d % 10}", "model": "ACME X1", "verdict": "PASS", "outliers": [],
               "population": _fleet_history.brief(block)} for d in range(DRIVES)]
    started = time.monotonic()
    flagged = _fleet_history.population_outliers(drives, {"outlier_robust_z": 3.5, "outlier_min_deviation_pct": 10.0,
                                                          "outlier_min_cohort": 3})
    for drive in drives:
        drive["outliers"] = flagged.get(drive["id"], [])
    _fleet_history_md.lines({"drives": drives, "history": {"written": True, "databases": ["x"], "rows": 5000},
                             "outlier_settings": {}})
    return time.monotonic() - started


def tree_rows(work: str) -> float:
    """run_rows of a results tree of DRIVES drives (what the fleet summary reads before it writes)."""
    run_dir = history_trees.run(work, "tree", when(RUNS), [
        {"host": f"h{d // 10:03d}", "drive": f"bay{d % 10}", "serial": f"T{d}", "figures": dict(FIGURES)}
        for d in range(DRIVES)])
    started = time.monotonic()
    rows = _rows.run_rows(run_dir)
    assert len(rows) == DRIVES * len(FIGURES)
    return time.monotonic() - started


def main() -> dict:
    work = tempfile.mkdtemp(prefix="pts-bench-history-", dir="/var/tmp")
    server = PostgreSQL(durable=True)  # fsync on, as a real server's (and as SQLite's synchronous=FULL)
    results = {}
    try:
        read_s = tree_rows(os.path.join(work, "tree"))
        for name, spec in (("sqlite", _location.Spec()),
                           ("postgresql", _location.resolve(None, server.url()))):
            root = os.path.join(work, name)
            os.makedirs(root)
            filled = fill(spec, root)
            written = write_new(spec, root)
            found = lookups(spec, root)
            results[name] = {"fill_s": filled, "write_s": written, "lookup_s": found["per_drive_s"],
                             "lookup_peak_mib": found["peak_mib"], "fleet_s": fleet_part(found["block"])}
    finally:
        server.close()
        shutil.rmtree(work, ignore_errors=True)
    result = {"machine": machine(), "drives": DRIVES, "runs": RUNS, "sample": SAMPLE, "tree_rows_s": read_s,
              "backends": results}
    save("history", result)
    rows = []
    for name, found in results.items():
        per = found["lookup_s"]
        rows.append([name, f"{found['fill_s']:.1f} s", f"{found['write_s']:.2f} s",
                     f"{statistics.median(per):.3f} s", f"{sorted(per)[int(0.95 * (len(per) - 1))]:.3f} s",
                     f"{found['lookup_peak_mib']:.1f} MiB", f"{found['fleet_s']:.2f} s"])
    print(f"{RUNS} earlier runs x {DRIVES} drives (one model and firmware: {RUNS * DRIVES:,} earlier measurements of "
          f"each figure); rows of a {DRIVES}-drive results tree read in {read_s:.2f} s")
    print(table(["history", f"{RUNS} runs written", f"run {RUNS + 1} written ({DRIVES * 5:,} rows)",
                 "drive report's lookup, median", "p95", "lookup's peak allocation",
                 f"fleet summary's part ({DRIVES} drives)"], rows))
    return result


if __name__ == "__main__":
    main()
