# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive judged against the fleet's memory: each headline figure beside every earlier run of its model and firmware
in the history - its population.

- The population of a figure: every earlier measurement of it - one drive in one earlier run (a drive tested in three
  earlier runs counts three times) - of the same model and firmware, and the same kind of profile: quick-profile runs
  never count in a population of full ones, nor full ones in a quick one. Only final values (a steady window, or a
  completed test without a steady state): an unsteady window says nothing about the drive's level. Earlier: another run,
  started before this one.
- Its statistics: size, median, the 5th to 95th percentiles (linear interpolation between the closest ranks), the
  median absolute deviation (MAD), the spread (95th - 5th) / median x 100.
- Where the drive falls: the share of the population it is better than (a tie counts half) - better is higher for IOPS,
  MB/s and HIR's gain, lower for times.
- An outlier against it as within a run's cohort (plugin_utils/_acceptance.cohort_outliers): robust z-score
  0.6745 x (value - median) / MAD beyond the threshold and more than the minimum deviation from the median, in a
  population of at least the minimum size.
- The fleet's p-th percentile, counted from the worse end: the value p % of the population is worse than (the p-th
  percentile of IOPS, the (100 - p)-th of a latency)."""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures

LOWER_IS_BETTER_UNITS = ("ms", "us", "s", "min")


def better(figure: str) -> str:
    """"higher" or "lower" is better for a headline figure (times are lower-is-better; the acceptance criteria's
    directions agree: min_* for IOPS and MB/s, max_* for latency)."""
    unit = (_headline_figures.FIGURES.get(figure) or {}).get("unit")
    return "lower" if unit in LOWER_IS_BETTER_UNITS else "higher"


class Sorted:
    """A population's values in memory, in ascending order: what the statistics below read of a population by rank.
    The history's own (sql.StoredPopulation) answers the same questions from the database, reading only the ranks
    asked for - the same answers, so the same figures."""

    def __init__(self, ordered: list[float]):
        self.ordered = ordered
        self.n = len(ordered)
        self._deviations: dict[float, list[float]] = {}

    def at(self, rank: int) -> float:
        """The value of that rank (0: the lowest)."""
        return self.ordered[rank]

    def position(self, value: float) -> tuple[int, int]:
        """How many values are below ``value``, and how many equal it."""
        below = _count_below(self.ordered, value)
        return below, _count_below(self.ordered, value, inclusive=True) - below

    def deviation_at(self, centre: float, rank: int) -> float:
        """The rank-th smallest absolute deviation from ``centre``."""
        if centre not in self._deviations:
            self._deviations[centre] = sorted(abs(v - centre) for v in self.ordered)
        return self._deviations[centre][rank]


def ranked(values) -> Sorted:
    """Values in ascending order (a list or any sequence), or a population that reads them by rank (Sorted,
    sql.StoredPopulation)."""
    if hasattr(values, "at") and hasattr(values, "deviation_at"):
        return values
    return Sorted(values if isinstance(values, list) else list(values))


def _median_by_rank(n: int, at) -> float:
    """statistics.median of n values in ascending order, ``at(rank)`` giving each: the middle one, or the mean of
    the two middle ones."""
    if n % 2 == 1:
        return at(n // 2)
    return (at(n // 2 - 1) + at(n // 2)) / 2


def _quantile(population, q: float) -> float | None:
    if not population.n:
        return None
    position = (population.n - 1) * min(max(q, 0.0), 1.0)
    low = math.floor(position)
    high = min(low + 1, population.n - 1)
    return population.at(low) + (population.at(high) - population.at(low)) * (position - low)


def quantile(ordered, q: float) -> float | None:
    """The q-quantile (0 to 1) of values in ascending order, interpolated between the closest ranks; None for none."""
    return _quantile(ranked(ordered), q)


def worse_percentile(ordered, percent: float, direction: str) -> float | None:
    """The value ``percent`` % of the population is worse than."""
    return quantile(ordered, percent / 100.0 if direction == "higher" else 1.0 - percent / 100.0)


def better_than_pct(ordered, value: float, direction: str) -> float | None:
    """The share (%) of the population ``value`` is better than; a tie counts half."""
    population = ranked(ordered)
    if not population.n:
        return None
    below, equal = population.position(value)
    worse = below if direction == "higher" else population.n - below - equal
    return 100.0 * (worse + equal / 2.0) / population.n


def _count_below(ordered: list[float], value: float, inclusive: bool = False) -> int:
    low, high = 0, len(ordered)
    while low < high:
        middle = (low + high) // 2
        if ordered[middle] < value or (inclusive and ordered[middle] == value):
            low = middle + 1
        else:
            high = middle
    return low


def statistics_of(ordered) -> dict:
    """Size, median, percentiles, MAD and spread of values in ascending order (or of a population read by rank)."""
    population = ranked(ordered)
    n = population.n
    if not n:
        return {"n": 0}
    median = _median_by_rank(n, population.at)
    mad = _median_by_rank(n, lambda rank: population.deviation_at(median, rank))
    p5, p95 = _quantile(population, 0.05), _quantile(population, 0.95)
    return {"n": n, "median": median, "p5": p5, "p25": _quantile(population, 0.25),
            "p75": _quantile(population, 0.75), "p95": p95, "min": population.at(0), "max": population.at(n - 1),
            "mad": mad, "spread_pct": (p95 - p5) / abs(median) * 100.0 if median else None}


def robust_z(value: float, median: float, mad: float) -> float:
    """0.6745 x (value - median) / MAD (Iglewicz and Hoaglin); with MAD 0, infinite for any value off the median."""
    if mad:
        return 0.6745 * (value - median) / mad
    return 0.0 if value == median else math.copysign(math.inf, value - median)


def compare(figure: str, ordered, value: float | None, steady: bool, percentile: float | None = None) -> dict:
    """One figure of a drive against its population (values in ascending order, or a population read by rank): the
    population's statistics, and where ``value`` falls; with ``percentile``, the fleet's percentile counted from the
    worse end (``limit``)."""
    direction = better(figure)
    ordered = ranked(ordered)
    entry = {"figure": figure, "better": direction, "value": value, "steady": bool(steady),
             **statistics_of(ordered)}
    if not ordered.n:
        return entry
    if percentile is not None:
        entry["percentile"] = percentile
        entry["limit"] = worse_percentile(ordered, percentile, direction)
    if value is not None:
        entry["better_than_pct"] = better_than_pct(ordered, value, direction)
        z = robust_z(value, entry["median"], entry["mad"])
        entry["robust_z"] = z if math.isfinite(z) else None
        entry["robust_z_infinite"] = not math.isfinite(z)
        entry["deviation_pct"] = 100.0 * abs(value - entry["median"]) / abs(entry["median"]) if entry["median"] else 0.0
    return entry


def is_outlier(entry: dict, threshold: float, min_deviation_pct: float, min_size: int) -> bool:
    """Does a drive's figure sit far from its population (see the module's docstring)? Only a final value counts."""
    if not entry.get("steady") or entry.get("value") is None or (entry.get("n") or 0) < min_size:
        return False
    z = math.inf if entry.get("robust_z_infinite") else abs(entry.get("robust_z") or 0.0)
    return z > threshold and (entry.get("deviation_pct") or 0.0) > min_deviation_pct


def _readable(entry: object) -> bool:
    """A figure's entry of the report's own shape: every figure it compares a number, or None."""
    return isinstance(entry, dict) and all(
        entry.get(key) is None or (isinstance(entry[key], (int, float)) and not isinstance(entry[key], bool))
        for key in ("value", "median", "n", "robust_z", "deviation_pct"))


def outliers(block: dict | None, threshold: float, min_deviation_pct: float, min_size: int) -> list[dict]:
    """A drive's figures that are outliers against its population, each as the fleet summary lists it."""
    if not isinstance(block, dict) or not isinstance(block.get("figures"), dict):
        return []
    out = []
    for figure, entry in block["figures"].items():
        # A result.json whose population block is not the report's has nothing to flag.
        if figure not in _headline_figures.FIGURES or not _readable(entry):
            continue
        if is_outlier(entry, threshold, min_deviation_pct, min_size):
            z = entry.get("robust_z")
            out.append({"figure": figure, "value": entry["value"], "median": entry["median"],
                        "robust_z": z if z is not None else math.copysign(math.inf, entry["value"] - entry["median"]),
                        "deviation_pct": entry["deviation_pct"], "against": "population",
                        "cohort": f"{block.get('model')} / {block.get('firmware')}", "cohort_size": entry["n"],
                        "population": {"runs": block.get("runs"), "from": block.get("from"), "to": block.get("to"),
                                       "profile": block.get("profile")},
                        "better_than_pct": entry.get("better_than_pct")})
    return out


def block(population: dict, figures: dict, steady: dict, identity: dict, percentile: float | None = None) -> dict:
    """A drive's population block (result.json's ``population``): ``population`` as the store read it (per figure its
    values in ascending order or a population read by rank, runs, from, to), the drive's own ``figures`` and whether each is final (``steady``),
    ``identity`` (history, model, firmware, profile, before)."""
    compared = {}
    for figure, ordered in population["values"].items():
        compared[figure] = compare(figure, ordered, figures.get(figure), bool(steady.get(figure)), percentile)
    return {**identity, "runs": population.get("runs", 0), "from": population.get("from"),
            "to": population.get("to"), "figures": compared}
