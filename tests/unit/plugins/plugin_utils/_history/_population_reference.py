# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The population comparison as it was before it read by rank (3.0.0's, kept as the reference): every earlier value of
each figure read into Python, in order, and the statistics taken from the list; and a randomized history to hold the
store's reading by rank (sql.StoredPopulation) against it. Shared by the unit test (SQLite) and the PostgreSQL
integration test."""

from __future__ import annotations

import json
import math
import random
import statistics

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population, _schema

IOPS, LAT, MBS = "iops_4k_write", "latency_4k_write_mean_ms", "throughput_1024k_read_mb_s"
FIGURES = (IOPS, LAT, MBS)
MODELS = (("ACME X1", "1.0"), ("ACME X1", "2.0"), ("ACME X1", None), ("OTHER", "1.0"))
# A few values many rows share (ties, a zero median), beside values drawn at random.
TIES = (0.0, 100.0, 100.5, 101.0, 250.0)


# --- the reference: the lookup before it read by rank, unchanged -------------------------------------------------------

def old_read(store, model: str, firmware: str | None, quick: bool, figures: list[str], run: str,
             before: str | None) -> dict:
    """SqlStore.population as it was: every value of each figure, in order."""
    where, params = ["model = ?"], [model]
    if firmware is None:
        where.append("firmware IS NULL")
    else:
        where.append("firmware = ?")
        params.append(firmware)
    where += ["quick_profile = ?", "steady = 1", "value IS NOT NULL", "run_id <> ?"]
    params += [int(bool(quick)), run]
    if before:
        where.append("run_time < ?")
        params.append(before)
    values = {}
    for figure in figures:
        rows = store.fetch(store.sql(f"SELECT value FROM figures WHERE {' AND '.join(where)} AND figure = ? "
                                     "ORDER BY value"), params + [figure])
        values[figure] = [float(r["value"]) for r in rows]
    span: dict = {"runs": 0, "from": None, "to": None}
    if figures:
        marks = ", ".join("?" for dummy in figures)
        (row,) = store.fetch(store.sql(
            "SELECT COUNT(DISTINCT run_id) AS runs, MIN(run_time) AS first, MAX(run_time) AS last FROM figures "
            f"WHERE {' AND '.join(where)} AND figure IN ({marks})"), params + list(figures))
        span = {"runs": int(row["runs"] or 0), "from": row["first"], "to": row["last"]}
    return {"values": values, **span}


def old_quantile(ordered: list[float], q: float) -> float | None:
    if not ordered:
        return None
    position = (len(ordered) - 1) * min(max(q, 0.0), 1.0)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def old_count_below(ordered: list[float], value: float, inclusive: bool = False) -> int:
    low, high = 0, len(ordered)
    while low < high:
        middle = (low + high) // 2
        if ordered[middle] < value or (inclusive and ordered[middle] == value):
            low = middle + 1
        else:
            high = middle
    return low


def old_better_than_pct(ordered: list[float], value: float, direction: str) -> float | None:
    if not ordered:
        return None
    below = old_count_below(ordered, value)
    equal = old_count_below(ordered, value, inclusive=True) - below
    worse = below if direction == "higher" else len(ordered) - below - equal
    return 100.0 * (worse + equal / 2.0) / len(ordered)


def old_statistics(ordered: list[float]) -> dict:
    if not ordered:
        return {"n": 0}
    median = statistics.median(ordered)
    mad = statistics.median(sorted(abs(v - median) for v in ordered))
    p5, p95 = old_quantile(ordered, 0.05), old_quantile(ordered, 0.95)
    return {"n": len(ordered), "median": median, "p5": p5, "p25": old_quantile(ordered, 0.25),
            "p75": old_quantile(ordered, 0.75), "p95": p95, "min": ordered[0], "max": ordered[-1], "mad": mad,
            "spread_pct": (p95 - p5) / abs(median) * 100.0 if median else None}


def old_compare(figure: str, ordered: list[float], value: float | None, steady: bool,
                percentile: float | None = None) -> dict:
    direction = _population.better(figure)
    entry = {"figure": figure, "better": direction, "value": value, "steady": bool(steady), **old_statistics(ordered)}
    if not ordered:
        return entry
    if percentile is not None:
        entry["percentile"] = percentile
        q = percentile / 100.0 if direction == "higher" else 1.0 - percentile / 100.0
        entry["limit"] = old_quantile(ordered, q)
    if value is not None:
        entry["better_than_pct"] = old_better_than_pct(ordered, value, direction)
        if entry["mad"]:
            z = 0.6745 * (value - entry["median"]) / entry["mad"]
        else:
            z = 0.0 if value == entry["median"] else math.copysign(math.inf, value - entry["median"])
        entry["robust_z"] = z if math.isfinite(z) else None
        entry["robust_z_infinite"] = not math.isfinite(z)
        entry["deviation_pct"] = 100.0 * abs(value - entry["median"]) / abs(entry["median"]) if entry["median"] else 0.0
    return entry


def old_block(read: dict, figures: dict, steady: dict, identity: dict, percentile: float | None) -> dict:
    compared = {f: old_compare(f, ordered, figures.get(f), bool(steady.get(f)), percentile)
                for f, ordered in read["values"].items()}
    return {**identity, "runs": read.get("runs", 0), "from": read.get("from"), "to": read.get("to"),
            "figures": compared}


# --- a randomized history ---------------------------------------------------------------------------------------------

def when(day: int) -> str:
    return f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T10:00:00.000+00:00"


def history(rng: random.Random, runs: int = 40) -> list[tuple[str, list[dict], set]]:
    """Runs of a few drives each, as write_runs takes them: two models, three firmware versions (one of them none),
    full and quick profiles, unsteady windows, missing values, runs without a start time, runs on the same day, and
    values many rows share."""
    blank = dict.fromkeys(_schema.NAMES)
    prepared = []
    for number in range(runs):
        run = f"run-{number:03d}"
        run_time = None if rng.random() < 0.05 else when(rng.randrange(0, 60))
        quick = int(rng.random() < 0.25)
        rows = []
        for drive in range(rng.randrange(1, 9)):
            model, firmware = rng.choice(MODELS)
            common = dict(blank, run_id=run, host=f"h{drive % 3}", drive=f"d{drive}", serial=f"S{number}-{drive}",
                          model=model, firmware=firmware, run_time=run_time, quick_profile=quick,
                          profile="quick" if quick else "full", tests=json.dumps(["iops"]))
            for figure in FIGURES:
                draw = rng.random()
                if draw < 0.4:
                    value = rng.choice(TIES)
                elif draw < 0.45:
                    value = None
                elif draw < 0.55:
                    value = float(rng.randrange(0, 300))
                else:
                    value = rng.uniform(0.0, 300.0)
                rows.append(dict(common, figure=figure, value=value, unit="x",
                                 steady=int(rng.random() < 0.85), state="steady"))
        prepared.append((run, rows, {f"h{h}" for h in range(3)}))
    return prepared


def lookups(rng: random.Random, prepared: list, count: int):
    """Random drive reports against the history: (model, firmware, quick, {figure: value}, run, before, percentile).
    The drive's own run is one of the history's (its rows are left out, as before) or a new one; its values are often
    one of the population's (a tie)."""
    values = [row["value"] for dummy, rows, dummy2 in prepared for row in rows if row["value"] is not None]
    for dummy in range(count):
        model, firmware = rng.choice(MODELS)
        run = rng.choice(prepared)[0] if rng.random() < 0.7 else "run-new"
        draw = rng.random()
        before = None if draw < 0.2 else when(rng.randrange(0, 62))
        measured = {}
        for figure in rng.sample(FIGURES, rng.randrange(1, len(FIGURES) + 1)):
            measured[figure] = rng.choice(values) if rng.random() < 0.5 else rng.uniform(-10.0, 320.0)
        percentile = rng.choice((None, 5, 10, 2.5, 33.3, 49))
        yield model, firmware, bool(rng.random() < 0.3), measured, run, before, percentile


def both(store, lookup) -> tuple[dict, dict]:
    """The block the drive report makes now (a read transaction, by rank) and the reference's, outlier verdicts with
    them."""
    model, firmware, quick, measured, run, before, percentile = lookup
    steady = {f: i % 2 == 0 for i, f in enumerate(measured)}
    identity = {"model": model, "firmware": firmware, "profile": "quick" if quick else "full", "before": before}
    with store.reading():
        read = store.population_ranks(model, firmware, quick, measured, run, before)
        new = _population.block(read, measured, steady, identity, percentile)
    old = old_block(old_read(store, model, firmware, quick, list(measured), run, before), measured, steady, identity,
                    percentile)
    for block in (new, old):
        for entry in block["figures"].values():
            entry["outlier"] = _population.is_outlier(entry, 3.5, 10.0, 3)
    return new, old
