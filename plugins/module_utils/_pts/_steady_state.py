# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""SNIA PTS steady-state math (PTS Enterprise 1.1, definition 2.1.18; section 3.3 of the Myce/OakGate text).

For the dependent-variable values of the last ``window`` rounds with average ``avg``:

* data excursion: ``max - min <= max_data_excursion_pct`` % of ``avg`` (20 %), and
* slope excursion: the least-squares line ``y = a + b * round`` over the window has
  ``|b| * (window - 1) <= max_slope_excursion_pct`` % of ``avg`` (10 %).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

DEFAULT_WINDOW = 5
DEFAULT_MAX_ROUNDS = 25
DEFAULT_MAX_DATA_EXCURSION_PCT = 20.0
DEFAULT_MAX_SLOPE_EXCURSION_PCT = 10.0


class SteadyStateError(PtsError, ValueError):
    """Limits or a series the steady-state rule cannot judge."""


@dataclass(frozen=True)
class Verdict:
    steady: bool
    reason: str
    window: int
    max_data_excursion_pct: float
    max_slope_excursion_pct: float
    rounds: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    average: float | None = None
    data_excursion: float | None = None
    data_excursion_pct: float | None = None
    slope: float | None = None
    intercept: float | None = None
    slope_excursion: float | None = None
    slope_excursion_pct: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def check_limits(
    window: int,
    max_rounds: int,
    max_data_excursion_pct: float = DEFAULT_MAX_DATA_EXCURSION_PCT,
    max_slope_excursion_pct: float = DEFAULT_MAX_SLOPE_EXCURSION_PCT,
) -> None:
    """Raise ValueError for limits that make the rule meaningless."""
    if window < 2:
        raise SteadyStateError(f"window {window} is below 2: a best-fit slope needs two rounds")
    if max_rounds < 1:
        raise SteadyStateError(f"max_rounds {max_rounds} is below 1")
    if window > max_rounds:
        raise SteadyStateError(f"window {window} is larger than max_rounds {max_rounds}: steady state could never be judged")
    for name, value in (
        ("max_data_excursion_pct", max_data_excursion_pct),
        ("max_slope_excursion_pct", max_slope_excursion_pct),
    ):
        if not 0 < value <= 100:
            raise SteadyStateError(f"{name} {value} is outside (0, 100]")


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares ``y = intercept + slope * x``; returns (slope, intercept)."""
    n = len(xs)
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    slope = sxy / sxx
    return slope, mean_y - slope * mean_x


def evaluate(
    values: list[float],
    window: int = DEFAULT_WINDOW,
    max_data_excursion_pct: float = DEFAULT_MAX_DATA_EXCURSION_PCT,
    max_slope_excursion_pct: float = DEFAULT_MAX_SLOPE_EXCURSION_PCT,
    first_round: int = 1,
) -> Verdict:
    """Judge the last ``window`` of ``values`` (one DV per round, round numbers from ``first_round``)."""
    if window < 2:
        raise SteadyStateError(f"window {window} is below 2: a best-fit slope needs two rounds")
    numbers = [float(v) for v in values]
    for value in numbers:
        if not math.isfinite(value) or value < 0:
            raise SteadyStateError(f"dependent variable {value!r} is not a finite, non-negative number")
    limits = dict(
        window=window,
        max_data_excursion_pct=float(max_data_excursion_pct),
        max_slope_excursion_pct=float(max_slope_excursion_pct),
    )
    if len(numbers) < window:
        return Verdict(
            steady=False,
            reason=f"need {window} rounds for the window, have {len(numbers)}",
            rounds=list(range(first_round, first_round + len(numbers))),
            values=numbers,
            **limits,
        )

    win = numbers[-window:]
    start = first_round + len(numbers) - window
    rounds = list(range(start, start + window))
    average = sum(win) / window
    data_excursion = max(win) - min(win)
    slope, intercept = fit_line([float(r) for r in rounds], win)
    slope_excursion = abs(slope) * (window - 1)
    figures = dict(
        rounds=rounds,
        values=win,
        average=average,
        data_excursion=data_excursion,
        slope=slope,
        intercept=intercept,
        slope_excursion=slope_excursion,
        **limits,
    )
    if average == 0:
        return Verdict(
            steady=False,
            reason="window average is 0: the excursions cannot be expressed as % of it",
            **figures,
        )

    data_pct = 100.0 * data_excursion / average
    slope_pct = 100.0 * slope_excursion / average
    failures = []
    if data_pct > max_data_excursion_pct:
        failures.append(f"data excursion {data_pct:.1f} % > {max_data_excursion_pct:g} %")
    if slope_pct > max_slope_excursion_pct:
        failures.append(f"slope excursion {slope_pct:.1f} % > {max_slope_excursion_pct:g} %")
    return Verdict(
        steady=not failures,
        reason="; ".join(failures) if failures else "both excursions within limits",
        data_excursion_pct=data_pct,
        slope_excursion_pct=slope_pct,
        **figures,
    )


def history(
    values: list[float],
    window: int = DEFAULT_WINDOW,
    max_data_excursion_pct: float = DEFAULT_MAX_DATA_EXCURSION_PCT,
    max_slope_excursion_pct: float = DEFAULT_MAX_SLOPE_EXCURSION_PCT,
    first_round: int = 1,
) -> list[Verdict]:
    """The verdict after each round, as the runner saw it while the test was going on."""
    return [
        evaluate(values[: i + 1], window, max_data_excursion_pct, max_slope_excursion_pct, first_round)
        for i in range(len(values))
    ]


def first_steady_round(verdicts: list[Verdict]) -> int | None:
    """The round number at which the window first became steady, or None."""
    for verdict in verdicts:
        if verdict.steady:
            return verdict.rounds[-1]
    return None
