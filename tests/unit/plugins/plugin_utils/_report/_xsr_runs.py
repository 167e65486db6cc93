# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hand-made XSR tests: three groups of samples of given throughput, and a realistic series at the standard scale."""

from __future__ import annotations

import datetime
import math
import random

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _xsr

START = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

BS = {"group1": 1048576, "group2": 8192, "group3": 1048576}

QD = 32


def _direction(mb_s: float, bs: int, seconds: float, art_ms: float, mrt_ms: float) -> dict:
    iops = mb_s * 1e6 / bs
    return {"iops": iops, "bw_bytes": mb_s * 1e6, "io_bytes": int(mb_s * 1e6 * seconds),
            "total_ios": int(iops * seconds), "runtime_ms": int(seconds * 1000),
            "lat_ns": {"mean": art_ms * 1e6, "max": mrt_ms * 1e6, "min": art_ms * 1e5}}


def sample_round(group: str, number: int, mb_s: float, end_s: float, settings: dict, seconds: float = 60.0,
                 art_ms: float | None = None, mrt_ms: float | None = None, recorded: bool = True) -> dict:
    """One XSR round file as pts_round files it: one fio section xsr-<group>-NNNN, its verdict, its times. Without
    a given ART, Little's law at QD 32 (ART = QD x block size / throughput); MRT three times that."""
    bs = BS[group]
    art_ms = QD * bs / (mb_s * 1e6) * 1e3 if art_ms is None else art_ms
    mrt_ms = 3 * art_ms if mrt_ms is None else mrt_ms
    figures = _direction(mb_s, bs, seconds, art_ms, mrt_ms)
    empty = {"iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0, "runtime_ms": 0,
             "lat_ns": {"mean": None, "max": None, "min": None}}
    job = {"name": f"xsr-{group}-{number:04d}", "rw": "randwrite" if group == "group2" else "write", "mix": 0,
           "bs": bs, "numjobs": 1, "iodepth": QD, "runtime_ms": int(seconds * 1000), "options": {},
           "read": empty, "write": figures, "total": {k: v for k, v in figures.items() if k != "runtime_ms"},
           "cpu": {"usr_pct": 1.0, "sys_pct": 1.0}}
    return {"round": number, "row": {"label": f"{group} sample {number}", "sample": number}, "settings": settings,
            "segment": group, "fio": {"jobs": [job], "elapsed_s": seconds, "fio_version": "fio-3.33"},
            "recorded_at": (START + datetime.timedelta(seconds=end_s)).isoformat() if recorded else "unknown",
            "verdict": {"round": number, "mb_s": mb_s, "stop": False}}


def make_test(series: dict, seconds: float = 60.0, gap_s: float = 0.0, tolerance: float = 5.0,
              minutes: list[float] | None = None, recorded: bool = True, failure: dict | None = None,
              latencies: dict | None = None) -> dict:
    """A loaded XSR test (as _results.load_test returns it) from throughput per sample per group; every group
    planned as long as its series unless ``minutes`` says otherwise. Samples run back to back, ``gap_s`` apart."""
    minutes = minutes or [len(series.get(g) or []) * seconds / 60 or 1 for g in _xsr.GROUPS]
    settings = {"profile": "standard", "round_seconds": seconds, "numjobs": 1, "iodepth": QD, "notes": [],
                "parameters": {"group_minutes": minutes, "sequential_block_size": 1048576, "random_block_size": 8192,
                               "recovery_tolerance_pct": tolerance}}
    segments = {"": {"rounds": [], "purge": {"method": "format", "elapsed_s": 2.0,
                                             "recorded_at": START.isoformat()}, "failure": None}}
    clock = 0.0
    for group in _xsr.GROUPS:
        rounds = []
        for number, mb_s in enumerate(series.get(group) or [], 1):
            clock += seconds
            art, mrt = (latencies or {}).get((group, number), (None, None))
            rounds.append(sample_round(group, number, mb_s, clock, settings, seconds, art, mrt, recorded))
            clock += gap_s
        if rounds or group in series:
            segments[group] = {"rounds": rounds, "purge": None, "failure": None}
    if failure:
        segments[list(segments)[-1]]["failure"] = failure
    return {"name": "xsr", "segments": segments, "purge": segments[""]["purge"], "wipc": None, "failure": None,
            "superseded": []}


def realistic(seed: int = 7, minutes: tuple[int, int, int] = (480, 360, 480)) -> dict:
    """A full standard run's throughput (1,320 one-minute samples): sequential writes near 2,800 MB/s, random 8k
    writes falling from 1,200 to 300 MB/s, then sequential writes recovering over about an hour, with noise."""
    rng = random.Random(seed)

    def noise(level: float, pct: float) -> float:
        return level * (1 + rng.uniform(-pct, pct) / 100)

    return {
        "group1": [noise(2800 - 200 * (m > 240), 3) for m in range(minutes[0])],
        "group2": [noise(300 + 900 * math.exp(-m / 20), 5) for m in range(minutes[1])],
        "group3": [noise(2600 - 1500 * math.exp(-m / 30), 3) for m in range(minutes[2])],
    }
