# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import statistics

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _steady_state as ss

TKPERF_IOPS_WINDOW = [31786, 31149, 30793, 32721, 31564]  # TKperf's example report, steady


@pytest.mark.parametrize(
    "values, steady, reason_part",
    [
        (TKPERF_IOPS_WINDOW, True, "within limits"),
        ([100, 100, 100, 100, 100], True, "within limits"),
        # range 30 % of the average fails although the best fit is flat
        ([85, 115, 100, 115, 85], False, "data excursion"),
        # a steady climb: range 16 % passes, slope 16 % fails
        ([92, 96, 100, 104, 108], False, "slope excursion"),
        # both fail
        ([50, 75, 100, 125, 150], False, "data excursion"),
        # only the last five rounds count: early FOB rounds are outside the window
        ([300, 250, 101, 99, 100, 100, 100], True, "within limits"),
    ],
)
def test_verdicts(values, steady, reason_part):
    verdict = ss.evaluate(values)
    assert verdict.steady is steady
    assert reason_part in verdict.reason


def test_figures_match_an_independent_computation():
    values = [31786.0, 31149.0, 30793.0, 32721.0, 31564.0, 30001.0]
    verdict = ss.evaluate(values)
    window = values[-5:]
    fit = statistics.linear_regression([2, 3, 4, 5, 6], window)
    avg = statistics.fmean(window)
    assert verdict.rounds == [2, 3, 4, 5, 6]
    assert verdict.average == pytest.approx(avg)
    assert verdict.data_excursion == pytest.approx(max(window) - min(window))
    assert verdict.data_excursion_pct == pytest.approx(100 * (max(window) - min(window)) / avg)
    assert verdict.slope == pytest.approx(fit.slope)
    assert verdict.intercept == pytest.approx(fit.intercept)
    assert verdict.slope_excursion_pct == pytest.approx(100 * abs(fit.slope) * 4 / avg)


def test_limits_are_inclusive():
    # max - min is exactly 20 % of the average of 100: allowed (the PTS says "within").
    verdict = ss.evaluate([90, 110, 100, 110, 90])
    assert verdict.data_excursion_pct == pytest.approx(20.0)
    assert verdict.steady


@pytest.mark.parametrize("count", [0, 1, 4])
def test_fewer_rounds_than_the_window(count):
    verdict = ss.evaluate([100.0] * count)
    assert not verdict.steady
    assert verdict.reason == f"need 5 rounds for the window, have {count}"
    assert verdict.average is None


def test_zero_average_is_not_steady_and_not_an_error():
    verdict = ss.evaluate([0, 0, 0, 0, 0])
    assert not verdict.steady
    assert "window average is 0" in verdict.reason
    assert verdict.data_excursion_pct is None


@pytest.mark.parametrize(
    "window, max_rounds, message",
    [
        (6, 5, "window 6 is larger than max_rounds 5"),
        (1, 25, "window 1 is below 2"),
        (5, 0, "max_rounds 0 is below 1"),
    ],
)
def test_bad_limits_are_rejected(window, max_rounds, message):
    with pytest.raises(ValueError, match=message):
        ss.check_limits(window, max_rounds)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_values_are_rejected(bad):
    with pytest.raises(ValueError, match="not a finite, non-negative number"):
        ss.evaluate([1, 2, 3, 4, bad])


def test_history_and_first_steady_round():
    values = [500, 300, 200, 101, 100, 99, 100, 100]
    verdicts = ss.history(values)
    assert [v.steady for v in verdicts][:4] == [False] * 4
    first = ss.first_steady_round(verdicts)
    assert first is not None
    assert verdicts[first - 1].steady
    assert not any(v.steady for v in verdicts[: first - 1])
    assert ss.first_steady_round(ss.history([1, 50, 100])) is None
