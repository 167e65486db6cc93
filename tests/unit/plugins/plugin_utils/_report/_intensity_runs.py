# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CBW and DIRTH results to report: a real quick run's round files (fixtures/intensity, TC [2, 1] x QD [4, 1] on a
64 MiB loop device) and a synthetic run at the standard scale (7 x 7 grid, 25 loop rounds)."""

from __future__ import annotations

import math
import os
import random
import shutil

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity as _intensity_test

# The real path: imported by its dotted name, this file is found through .collections/, a symbolic link the results
# code refuses to follow.
RUN = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "fixtures", "intensity", "fio-3.33-quick-loop-device"))

PLOTS = {"pc_convergence", "pc_verification", "loop_prewrite", "loop_convergence", "loop_verification",
         "demand_variation", "demand_intensity", "outstanding", "cpu", "point_prewrites", "histograms"}


def _copy(tmp_path, name: str) -> str:
    path = str(tmp_path / name)
    shutil.copytree(os.path.join(RUN, name), path)
    return path


GRID = [32, 16, 8, 6, 4, 2, 1]


def _plat_val(index: int) -> int:
    """fio's representative latency of bucket ``index`` (stat.c plat_idx_to_val, FIO_IO_U_PLAT_BITS 6)."""
    if index < 128:
        return index
    error_bits = (index >> 6) - 1
    return int((1 << (error_bits + 6)) + (index % 64 + 0.5) * (1 << error_bits))


def _lognormal_bins(count: int, median_ns: float, sigma: float = 0.6) -> list[list[int]]:
    """``count`` IOs over fio's buckets, log-normally around ``median_ns``, and a thin tail of slow IOs."""
    def cdf(ns):
        return 0.5 * (1 + math.erf((math.log(max(ns, 1)) - math.log(median_ns)) / (sigma * math.sqrt(2))))
    bins = []
    for index in range(128, 1856):
        error_bits = (index >> 6) - 1
        low = (1 << (error_bits + 6)) + (index % 64) * (1 << error_bits)
        ios = int(count * (cdf(low + (1 << error_bits)) - cdf(low)))
        if ios:
            bins.append([_plat_val(index), ios])
    bins += [[_plat_val(1600 + 7 * i), 3 - i % 3] for i in range(12)]
    return bins


def _direction(iops: float, art_ns: float, seconds: float, bins: list | None = None) -> dict:
    ios = int(iops * seconds)
    if not ios:
        return {"iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0, "runtime_ms": 0,
                "lat_ns": {"min": None, "max": None, "mean": None, "percentiles": {}}}
    data = {"iops": iops, "bw_bytes": iops * 8192, "io_bytes": ios * 8192, "total_ios": ios,
            "runtime_ms": int(seconds * 1000), "lat_ns": {"min": art_ns / 4, "max": art_ns * 40, "mean": art_ns,
                                                          "percentiles": {}}}
    if bins:
        data["total_ios"] = _histogram.total(bins)
        data["lat_ns"].update(mean=_histogram.mean(bins), max=float(bins[-1][0]),
                              percentiles={k: float(v) for k, v in _histogram.percentiles(bins).items()})
        data["histogram"] = {"source": "lat_ns", "bins": bins}
    return data


def _job(name: str, mix: int, tc: int, qd: int, iops: float, art_ms: float, seconds: float,
         histogram: bool = False) -> dict:
    reads, writes = iops * mix / 100, iops * (100 - mix) / 100
    read = _direction(reads, art_ms * 0.8e6, seconds,
                      _lognormal_bins(int(reads * seconds), art_ms * 0.7e6) if histogram and reads else None)
    write = _direction(writes, art_ms * 1.2e6, seconds,
                       _lognormal_bins(int(writes * seconds), art_ms * 1.0e6) if histogram and writes else None)
    ios = read["total_ios"] + write["total_ios"]
    mean = sum(d["lat_ns"]["mean"] * d["total_ios"] for d in (read, write) if d["total_ios"]) / ios
    return {"name": name, "rw": "randrw" if 0 < mix < 100 else "randwrite", "mix": mix, "bs": 8192, "numjobs": tc,
            "iodepth": qd, "runtime_ms": int(seconds * 1000), "options": {}, "read": read, "write": write,
            "total": {"iops": reads + writes, "bw_bytes": iops * 8192, "io_bytes": ios * 8192, "total_ios": ios,
                      "lat_ns": {"mean": mean, "max": max(d["lat_ns"]["max"] or 0 for d in (read, write)),
                                 "min": min(d["lat_ns"]["min"] or math.inf for d in (read, write))}},
            "cpu": {"usr_pct": 2.0 + tc * qd / 40, "sys_pct": 5.0 + tc}}


def _model(tc: int, qd: int, noise: float) -> tuple[float, float]:
    """A drive that saturates at 400k IOPS: its IOPS and (Little's law) its mean response time in ms."""
    oio = tc * qd
    iops = 400_000 * (1 - math.exp(-oio / 150)) * noise
    return iops, oio / iops * 1000 + 0.02


def synthetic(rounds: int = 25, steady: bool = False, tcs=tuple(GRID), qds=tuple(GRID), samples: int = 60) -> dict:
    """A DIRTH test as load_test returns it: 6 preconditioning rounds (steady at the 6th), ``rounds`` loop rounds over
    the grid (the tracking point flat from round 4 when ``steady``, else swinging by 30 % from round to round), three
    operating points (chosen as pts_round does) with 60 pre-write samples and a measurement with histograms."""
    rng = random.Random(7)
    params = {"thread_counts": list(tcs), "queue_depths": list(qds), "mix": 65, "max_art_ms": 5.0, "bssplit": None,
              "bssplit_sizes": [8192], "distribution": None, "precondition_seconds": 1800, "prewrite_seconds": 300,
              "point_seconds": 60, "point_prewrite_seconds": 60 * samples, "sample_seconds": 60,
              "point_measure_seconds": 600}
    settings = {"profile": "standard", "window": 5, "max_rounds": 25, "max_data_excursion_pct": 20.0,
                "max_slope_excursion_pct": 10.0, "numjobs": tcs[0], "iodepth": qds[0], "block_sizes": [8192],
                "mixes": [65, 0], "parameters": params, "wipc": {"block_size": "128k", "capacity_multiple": 2}}

    def record(number, jobs, row=None):
        return {"round": number, "row": row, "settings": settings, "recorded_at": f"2026-01-01T{number % 24:02d}:00:00",
                "fio": {"jobs": jobs, "elapsed_s": 60.0, "fio_version": "fio-3.33"}}

    pc = [record(n, [_job("dirth-pc", 0, tcs[0], qds[0], 150_000 * (2 if n == 1 else 1 + 0.01 * (n % 2)), 1.0, 1800)])
          for n in range(1, 7)]
    loop = []
    for number in range(1, rounds + 1):
        settle = 1 + 0.6 / number
        jobs = [_job("dirth-prewrite", 0, tcs[0], qds[0], 160_000 * settle, 6.0, 300)]
        for tc in tcs:
            for qd in qds:
                iops, art = _model(tc, qd, settle * (1 + rng.uniform(-0.02, 0.02)))
                if (tc, qd) == (tcs[0], qds[0]):
                    iops = 300_000.0 if steady and number > 3 else iops * (1.3 if number % 2 else 1.0)
                jobs.append(_job(_intensity_test.grid_name("dirth", tc, qd), 65, tc, qd, iops, art, 60))
        loop.append(record(number, jobs))
    test = dict(params, name="dirth", block_sizes=[8192])
    points = _intensity_test.operating_points(_intensity_test.window_grid([r["fio"]["jobs"] for r in loop[-5:]], test), test)
    points["window_rounds"] = list(range(rounds - 4, rounds + 1))
    rows = []
    for number, point in enumerate(_intensity_test.POINTS, 1):
        at = points[point]
        row = {"point": point, "tc": at["tc"], "qd": at["qd"], "chosen": points, "label": f"{point} operating point"}
        jobs = [_job(f"dirth-{point}-pre-{i:03d}", 0, at["tc"], at["qd"], at["iops"] * (0.8 + 0.2 * i / samples),
                     at["art_ms"], 60) for i in range(1, samples + 1)]
        jobs.append(_job(f"dirth-{point}-measure", 65, at["tc"], at["qd"], at["iops"], at["art_ms"], 600,
                         histogram=True))
        rows.append(record(number, jobs, row))
    segments = {name: {"rounds": found, "purge": None, "wipc": None, "steady_state": None, "failure": None}
                for name, found in (("precondition", pc), ("loop", loop), ("points", rows))}
    return {"name": "dirth", "dir": "/nonexistent/dirth", "segments": segments, "failure": None, "superseded": [],
            "purge": {"method": "format", "elapsed_s": 3.0, "recorded_at": "2026-01-01T00:00:00"}, "wipc": None}
