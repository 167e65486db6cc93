# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""fio's latency histograms (``--output-format=json+``) as numbers: merge, count, mean, percentiles, cumulative
distribution and fixed-width bins for plotting.

A histogram is fio's bins as ``_fio`` keeps them: ``[[latency_ns, IOs], ...]``. fio counts every IO in one of its
log-linear buckets (64 per power of two, so a bucket is at most 1/64 of its latency wide) and prints each bucket by its
representative value (``plat_idx_to_val``: the middle of the bucket, below 128 ns the value itself); every figure here
is computed from those values, exactly as fio computes its own percentiles from the same buckets (stat.c,
``calc_clat_percentiles``), so a percentile of one direction's bins equals fio's. The mean of the bins is within a
bucket's half-width of fio's mean (fio averages the IOs' exact latencies), i.e. within about 0.8 %.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

# Fixed-width bins for a histogram plot: ADATA's PTS 2.0 port aims for 1 ms bins; a width from the 1-2-5 series
# is taken instead when 1 ms would give fewer than FEWEST_BINS or more than MOST_BINS bins up to the slowest IO.
PREFERRED_WIDTH_NS = 1_000_000
FEWEST_BINS = 20
MOST_BINS = 200
TARGET_BINS = 100


class HistogramError(PtsError, ValueError):
    """A latency histogram that is not a list of [latency_ns, IOs] pairs."""


def normalise(bins: object) -> list[list[int]]:
    """A histogram checked and in latency order: [[latency_ns, IOs], ...], empty bins dropped, one row per latency
    (rows of the same latency added up)."""
    if not isinstance(bins, (list, tuple)):
        raise HistogramError(f"a histogram is a list of [latency_ns, IOs] pairs, not {type(bins).__name__}")
    counts: dict[int, int] = {}
    for row in bins:
        if not isinstance(row, (list, tuple)) or len(row) != 2:
            raise HistogramError(f"a histogram bin is a [latency_ns, IOs] pair, not {row!r}")
        latency, count = row
        if isinstance(latency, bool) or isinstance(count, bool) or not isinstance(latency, (int, float)) \
                or not isinstance(count, (int, float)) or not math.isfinite(latency) or not math.isfinite(count):
            raise HistogramError(f"a histogram bin holds two numbers, not {row!r}")
        if latency < 0 or count < 0 or count != int(count):
            raise HistogramError(f"a histogram bin is a latency >= 0 and a whole count >= 0, not {row!r}")
        if count:
            counts[int(latency)] = counts.get(int(latency), 0) + int(count)
    return [[latency, counts[latency]] for latency in sorted(counts)]


def merge(*histograms: object) -> list[list[int]]:
    """Several histograms as one (a mixed workload's read and write bins: all its IOs). fio numbers its buckets the
    same way for every direction, so equal latencies are the same bucket and their counts add up."""
    rows: list = []
    for bins in histograms:
        if bins:
            rows.extend(normalise(bins))
    return normalise(rows)


def total(bins: object) -> int:
    """How many IOs the histogram counts."""
    return sum(count for dummy, count in normalise(bins))


def mean(bins: object) -> float | None:
    """The IO-weighted mean of the bins' latencies (ns); None for an empty histogram."""
    rows = normalise(bins)
    count = sum(c for dummy, c in rows)
    return sum(latency * c for latency, c in rows) / count if count else None


def _fraction(percent: object) -> Fraction:
    """A percentile as fio holds it (a double, from its percentile_list), exactly."""
    if isinstance(percent, bool):
        raise HistogramError(f"{percent!r} is not a percentile")
    try:
        value = float(percent)
    except (TypeError, ValueError) as exc:
        raise HistogramError(f"{percent!r} is not a percentile") from exc
    if not 0 < value <= 100:
        raise HistogramError(f"a percentile is above 0 and at most 100, not {percent!r}")
    return Fraction(value)


def percentile(bins: object, percent: object) -> int | None:
    """The ``percent`` percentile (ns) the way fio computes it: the first bucket, in latency order, at which the
    running count of IOs reaches ``percent`` / 100 x all IOs (fio compares in long double; exact fractions here).
    None for an empty histogram."""
    return percentiles(bins, [percent]).get(_key(percent))


def _key(percent: object) -> str:
    return f"{float(percent):g}"


def percentiles(bins: object, percents=("50", "99", "99.9", "99.99", "99.999")) -> dict:
    """Several percentiles in one pass: {"99.9": ns, ...} (keys as fio prints them); {} for an empty histogram."""
    rows = normalise(bins)
    count = sum(c for dummy, c in rows)
    if not count:
        return {}
    wanted = sorted((_fraction(p) * count / 100, _key(p)) for p in percents)
    found, running, index = {}, 0, 0
    for latency, c in rows:
        running += c
        while index < len(wanted) and running >= wanted[index][0]:
            found[wanted[index][1]] = latency
            index += 1
        if index == len(wanted):
            break
    return found


# How many IOs must lie beyond a percentile for a sample to resolve it: with fewer, the percentile is one of the few
# slowest IOs (with none, the slowest itself) and says more about chance than about the drive.
BEYOND = 10


def needed(percent: object) -> int:
    """The fewest IOs that resolve the percentile: BEYOND / (1 - p), the percentage taken as the decimal it is written
    as (99 % needs 1,000 IOs, 99.9 % 10,000, 99.99 % 100,000, 99.999 % 1,000,000)."""
    exact = Fraction(repr(float(_fraction(percent))))
    if exact == 100:
        return 0  # the slowest IO: any sample has it
    return math.ceil(BEYOND / (1 - exact / 100))


def resolved(count: int, percent: object) -> bool:
    """Whether ``count`` IOs resolve the percentile: at least BEYOND of them lie beyond it (see needed)."""
    return count >= needed(percent) and count > 0


def subtract(after: object, before: object) -> list[list[int]]:
    """The IOs a cumulative histogram gained between two readings (fio's status dumps count from the job's start):
    ``after`` less ``before``, bucket by bucket. ValueError when a bucket lost IOs (not two readings of one run)."""
    counts = dict(normalise(after))
    for latency, count in normalise(before or []):
        left = counts.get(latency, 0) - count
        if left < 0:
            raise HistogramError(f"the later histogram has fewer IOs at {latency} ns than the earlier one: not two "
                                 "readings of one run")
        counts[latency] = left
    return [[latency, counts[latency]] for latency in sorted(counts) if counts[latency]]


def summary(bins: object, percents=("50", "99", "99.9", "99.99", "99.999")) -> dict:
    """Percentiles with what it takes to trust them: {"ios", "percentiles": {p: ns or None}, "needed": {p: IOs}}.
    A percentile the IOs do not resolve (see resolved) is None here - reports flag it instead of printing a number."""
    rows = normalise(bins)
    count = sum(c for dummy, c in rows)
    found = percentiles(rows, percents)
    keys = [_key(p) for p in percents]
    return {"ios": count,
            "percentiles": {k: found.get(k) if resolved(count, k) else None for k in keys},
            "needed": {k: needed(k) for k in keys}}


def cumulative(bins: object) -> list[list[float]]:
    """The cumulative distribution: per bin [latency_ns, fraction of all IOs at or below it] (the last is 1.0)."""
    rows = normalise(bins)
    count = sum(c for dummy, c in rows)
    out, running = [], 0
    for latency, c in rows:
        running += c
        out.append([latency, running / count])
    return out


def _one_two_five(value: float) -> int:
    """The smallest width of the 1-2-5 series (in ns, at least 1) at or above ``value``."""
    if value <= 1:
        return 1
    exponent = math.floor(math.log10(value))
    for e in (exponent, exponent + 1):
        for step in (1, 2, 5):
            width = step * 10 ** e
            if width >= value * (1 - 1e-12):
                return int(width)
    return int(10 ** (exponent + 1))


def bin_width(slowest_ns: float) -> int:
    """A readable fixed bin width (ns) for IOs from 0 to ``slowest_ns``: 1 ms (ADATA's choice) when that gives
    FEWEST_BINS to MOST_BINS bins, else the 1-2-5 width giving about TARGET_BINS (finer when every IO is
    sub-millisecond, coarser when the slowest took seconds)."""
    if slowest_ns <= 0:
        return 1
    if FEWEST_BINS <= math.floor(slowest_ns / PREFERRED_WIDTH_NS) + 1 <= MOST_BINS:
        return PREFERRED_WIDTH_NS
    return _one_two_five(slowest_ns / TARGET_BINS)


def rebin(bins: object, width_ns: int | None = None, limit_ns: int | None = None) -> dict:
    """The histogram in fixed-width bins from 0: {"width_ns", "bins": [[start_ns, IOs], ...], "beyond": {"ios",
    "from_ns", "to_ns"} or None}. Empty bins are kept (a gap shows as one). Each of fio's buckets goes whole into the
    bin of its representative latency. The bins reach the slowest IO's bucket, or with ``limit_ns`` (a high
    percentile, so that a few very slow IOs do not squeeze everything else into the first bin) the bin holding
    ``limit_ns``; the buckets past it are counted in "beyond". Without ``width_ns`` the width suits the range shown
    (bin_width)."""
    rows = normalise(bins)
    if width_ns is not None and (isinstance(width_ns, bool) or int(width_ns) <= 0):
        raise HistogramError(f"a bin width is a positive number of ns, not {width_ns!r}")
    if not rows:
        return {"width_ns": int(width_ns or PREFERRED_WIDTH_NS), "bins": [], "beyond": None}
    top = rows[-1][0] if limit_ns is None else min(rows[-1][0], max(0, int(limit_ns)))
    width = int(width_ns) if width_ns else bin_width(top)
    counts = [0] * (top // width + 1)
    beyond = [(latency, c) for latency, c in rows if latency // width >= len(counts)]
    for latency, c in rows:
        if latency // width < len(counts):
            counts[latency // width] += c
    return {"width_ns": width, "bins": [[index * width, c] for index, c in enumerate(counts)],
            "beyond": {"ios": sum(c for dummy, c in beyond), "from_ns": beyond[0][0], "to_ns": beyond[-1][0]}
            if beyond else None}
