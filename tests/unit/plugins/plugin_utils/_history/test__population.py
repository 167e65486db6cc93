# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A drive against its population (every earlier run of its model and firmware): percentiles, where it falls, the
fleet's percentile counted from the worse end, outliers; and the store's population as the drive report reads it -
earlier runs only, this run left out, quick-profile runs never in a population of full ones."""

from __future__ import annotations

import math
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._earlier_runs import (
    HIR, IOPS, LAT, XSR, _earlier)


@pytest.mark.parametrize("values, q, expected", [
    ([], 0.5, None), ([7.0], 0.05, 7.0), ([1.0, 2.0], 0.5, 1.5), ([1.0, 2.0, 3.0, 4.0, 5.0], 0.25, 2.0),
    ([10.0 * i for i in range(1, 21)], 0.05, 19.5), ([10.0 * i for i in range(1, 21)], 0.95, 190.5),
    ([1.0, 2.0, 3.0], 1.5, 3.0), ([1.0, 2.0, 3.0], -1, 1.0),
])
def test_quantile_interpolates_between_the_closest_ranks(values, q, expected):
    assert _population.quantile(values, q) == expected


@pytest.mark.parametrize("figure, direction", [(IOPS, "higher"), ("throughput_1024k_read_mb_s", "higher"),
                                               (LAT, "lower"), ("latency_4k_write_p9999_ms", "lower"),
                                               (XSR, "lower"), (HIR, "higher"), ("cbw_max_art_ms", "lower")])
def test_which_way_is_better(figure, direction):
    assert _population.better(figure) == direction


def test_where_a_drive_falls_and_the_fleets_percentile_from_the_worse_end():
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert _population.better_than_pct(values, 50.0, "higher") == 49.5  # 49 below, a tie counts half
    assert _population.better_than_pct(values, 50.0, "lower") == 50.5
    assert _population.better_than_pct(values, 0.0, "higher") == 0.0
    assert _population.better_than_pct(values, 1000.0, "higher") == 100.0
    assert _population.worse_percentile(values, 5, "higher") == pytest.approx(5.95)
    assert _population.worse_percentile(values, 5, "lower") == pytest.approx(95.05)
    assert _population.better_than_pct([], 1.0, "higher") is None


def test_a_figures_comparison():
    values = sorted([100.0, 102.0, 98.0, 101.0, 99.0, 100.0, 103.0, 97.0, 100.0, 100.0])
    entry = _population.compare(IOPS, values, 60.0, True, percentile=5)
    assert (entry["n"], entry["median"], entry["min"], entry["max"], entry["mad"]) == (10, 100.0, 97.0, 103.0, 1.0)
    assert entry["limit"] == pytest.approx(97.45) and entry["better_than_pct"] == 0.0
    assert entry["robust_z"] == pytest.approx(0.6745 * -40.0) and entry["deviation_pct"] == pytest.approx(40.0)
    assert entry["spread_pct"] == pytest.approx((102.55 - 97.45) / 100 * 100)
    assert _population.is_outlier(entry, 3.5, 10.0, 3)
    assert not _population.is_outlier(entry, 3.5, 10.0, 11)  # too small a population
    assert not _population.is_outlier(entry, 3.5, 50.0, 3)  # not far enough from the median
    assert not _population.is_outlier(dict(entry, steady=False), 3.5, 10.0, 3)  # not a final value
    # A flat population: MAD 0, any value off the median is an outlier once far enough from it in %.
    flat = _population.compare(IOPS, [100.0] * 5, 80.0, True)
    assert flat["robust_z"] is None and flat["robust_z_infinite"] and _population.is_outlier(flat, 3.5, 10.0, 3)
    assert not _population.is_outlier(_population.compare(IOPS, [100.0] * 5, 100.0, True), 3.5, 10.0, 3)
    assert _population.compare(IOPS, [], 5.0, True) == {"figure": IOPS, "better": "higher", "value": 5.0,
                                                        "steady": True, "n": 0}


def test_outliers_as_the_fleet_summary_lists_them():
    block = {"model": "ACME X1", "firmware": "1.0", "runs": 4, "from": "2026-10-01T10:00", "to": "2026-10-04T10:00",
             "profile": "full", "figures": {
                 IOPS: _population.compare(IOPS, [100.0] * 8, 10.0, True),
                 LAT: _population.compare(LAT, [0.5] * 8, 0.5, True),
                 "not_a_figure": {"n": 99}, "throughput_1024k_read_mb_s": {"n": "x", "value": 1, "steady": True}}}
    (found,) = _population.outliers(block, 3.5, 10.0, 3)
    assert (found["figure"], found["against"], found["cohort"], found["cohort_size"]) == \
        (IOPS, "population", "ACME X1 / 1.0", 8)
    assert found["population"] == {"runs": 4, "from": "2026-10-01T10:00", "to": "2026-10-04T10:00", "profile": "full"}
    assert math.isinf(found["robust_z"]) and found["robust_z"] < 0
    assert _population.outliers({"error": "down"}, 3.5, 10.0, 3) == [] and _population.outliers(None, 1, 1, 1) == []


def test_the_store_reads_earlier_runs_of_the_model_firmware_and_profile_only(tmp_path):
    root = str(tmp_path / "results")
    _earlier(root)
    with SqliteStore(os.path.join(root, "pts-history.sqlite"), readonly=True) as store:
        full = store.population("ACME X1", "1.0", False, [IOPS, LAT], "this", "2026-11-01T10:00:00.000+00:00")
        quick = store.population("ACME X1", "1.0", True, [IOPS], "this", "2026-11-01T10:00:00.000+00:00")
        unbounded = store.population("ACME X1", "1.0", False, [IOPS], "this", None)
    assert full["values"][IOPS] == [1000.0 + n for n in range(1, 11)] and full["values"][LAT] == [0.5] * 10
    assert (full["runs"], full["from"], full["to"]) == (10, "2026-10-01T10:00:00.000+00:00",
                                                        "2026-10-10T10:00:00.000+00:00")
    assert quick["values"][IOPS] == [5.0, 5.0] and quick["runs"] == 2
    assert len(unbounded["values"][IOPS]) == 11  # without a start time, a later run counts too
