# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Host Idle Recovery results to report: a real quick run's round files (fixtures/hir, two wait states on a loop
device) and hand-made tests of given preconditioning, burst and baseline series."""

from __future__ import annotations

import datetime
import os

# The real path: imported by its dotted name, this file is found through .collections/, a symbolic link the results
# code refuses to follow.
FIXTURE = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "fixtures", "hir", "fio-3.33-quick-loop-device", "hir"))

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

QUICK = {"burst": 0.5, "reps": 3, "baseline": 1.5, "pc": 1.0, "window": 2, "max_rounds": 3}


def _settings(plan: dict, states: list[int]) -> dict:
    return {"profile": "quick", "round_seconds": plan["burst"], "numjobs": 4, "iodepth": 32, "mixes": [0],
            "block_sizes": [4096], "window": plan["window"], "max_rounds": plan["max_rounds"],
            "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0, "notes": [],
            "parameters": {"wait_states": states, "repetitions": plan["reps"], "baseline_seconds": plan["baseline"],
                           "precondition_seconds": plan["pc"]}}


def _job(name: str, iops: float, seconds: float, **options) -> dict:
    ios = {"iops": iops, "bw_bytes": iops * 4096, "io_bytes": int(iops * 4096 * seconds),
           "total_ios": int(iops * seconds), "runtime_ms": int(seconds * 1000),
           "lat_ns": {"mean": 1e5, "max": 1e6, "min": 1e4}}
    empty = {"iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0,
             "lat_ns": {"mean": None, "max": None, "min": None}}
    return {"name": name, "rw": "randwrite", "mix": 0, "bs": 4096, "numjobs": 4, "iodepth": 32,
            "runtime_ms": int(seconds * 1000), "options": {k: str(v) for k, v in options.items()}, "read": empty,
            "write": ios, "total": ios}


class Clock:
    """Rounds one after another: each lands 0.5 s after its fio ends, the next starts 1 s later."""

    def __init__(self):
        self.now = T0

    def round(self, number: int, settings: dict, jobs: list[dict], elapsed: float, row: dict | None) -> dict:
        landed = self.now + datetime.timedelta(seconds=elapsed + 0.5)
        self.now = landed + datetime.timedelta(seconds=1)
        return {"round": number, "row": row, "settings": settings, "recorded_at": landed.isoformat(),
                "fio": {"jobs": jobs, "elapsed_s": elapsed, "fio_version": "fio-3.33"}}


def make_test(plan: dict, pc_values: list[float], states: list[int], bursts: dict, baselines: dict,
              failure: dict | None = None, planned: list[int] | None = None) -> dict:
    """A HIR test as load_test gives it: ``bursts``/``baselines`` map a wait state to its sections' IOPS (a state
    missing from ``baselines`` lacks its second round)."""
    planned = states if planned is None else planned
    settings = _settings(plan, planned)
    clock = Clock()
    segments = {"": {"rounds": [], "purge": {"method": "discard", "recorded_at": T0.isoformat(), "elapsed_s": 0.1},
                     "wipc": None, "steady_state": None, "failure": None}}
    pc_rounds = [clock.round(n, settings, [_job("hir-pc", v, plan["pc"])], plan["pc"] + 0.6, None)
                 for n, v in enumerate(pc_values, 1)]
    segments["precondition"] = {"rounds": pc_rounds, "purge": None, "wipc": None, "steady_state": None,
                                "failure": None}
    for state in states:
        period = plan["burst"] * (1 + state)
        jobs = [_job(f"hir-ws{state}-burst-{i + 1:04d}", v, plan["burst"],
                     **({"startdelay": f"{int(i * period * 1000)}ms"} if i else {}))
                for i, v in enumerate(bursts[state])]
        rounds = [clock.round(1, settings, jobs, (len(jobs) - 1) * period + plan["burst"] + 0.6,
                              {"label": f"wait state {state}", "phase": "bursts", "wait_state": state})]
        if state in baselines:
            count = len(baselines[state])
            base = [_job(f"hir-ws{state}-base-{i + 1:04d}", v, plan["baseline"] / count)
                    for i, v in enumerate(baselines[state])]
            rounds.append(clock.round(2, settings, base, plan["baseline"] + 0.3 * count + 0.3,
                                      {"label": f"baseline after {state}", "phase": "baseline", "wait_state": state}))
        segments[f"ws{state}"] = {"rounds": rounds, "purge": None, "wipc": None, "steady_state": None,
                                  "failure": None}
    if failure:
        segments[f"ws{states[-1]}" if states else "precondition"]["failure"] = failure
    return {"name": "hir", "dir": "/nonexistent/hir", "segments": segments, "purge": segments[""]["purge"],
            "wipc": None, "failure": None, "superseded": []}


STEADY_PC = [1500.0, 1000.0, 1010.0]  # steady at round 3: rounds 2 and 3 within 1 %

FLAT = {1: [1200.0, 1100.0, 1000.0], 2: [1300.0, 1250.0, 1200.0]}

BASE = {1: [900.0, 950.0, 1000.0], 2: [980.0, 1000.0, 1020.0]}
