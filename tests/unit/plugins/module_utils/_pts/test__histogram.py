# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _histogram

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
PERCENTS = ("50", "99", "99.9", "99.99", "99.999")


def _load(name: str) -> dict:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return json.load(handle)


# Ten IOs: 100 ns x 4, 200 ns x 3, 400 ns x 2, 1000 ns x 1.
TEN = [[200, 3], [100, 4], [1000, 1], [400, 2]]


@pytest.mark.parametrize("percent, expected", [
    ("40", 100),      # 4 of 10 reach 40 % exactly: that bucket (fio compares with >=)
    ("40.1", 200),
    ("50", 200),
    ("70", 200),
    ("70.0001", 400),
    ("90", 400),
    ("99", 1000),
    ("99.999", 1000),  # fewer IOs than the percentile resolves: the slowest bucket
    ("100", 1000),
    (0.5, 100),
    (10, 100),
])
def test_a_percentile_is_the_first_bucket_whose_running_count_reaches_it(percent, expected):
    assert _histogram.percentile(TEN, percent) == expected


def test_percentiles_match_fio_at_the_edge_where_a_double_product_would_not():
    # 33,000 IOs, one per bucket. fio holds 99.9 as a double (a hair above 99.9) and compares in long double: the
    # threshold is 32,967.000000000002, so the 32,968th bucket is the first to reach it. The same product in doubles
    # rounds to 32,967.0 exactly and would stop one bucket early.
    bins = [[ns, 1] for ns in range(1, 33001)]
    assert 99.9 / 100 * 33000 == 32967.0
    assert _histogram.percentile(bins, "99.9") == 32968
    assert _histogram.percentiles(bins, ["50", "99.9", "99"]) == {"50": 16500, "99": 32670, "99.9": 32968}


@pytest.mark.parametrize("bins, count, mean", [
    (TEN, 10, (400 + 600 + 800 + 1000) / 10),
    ([], 0, None),
    ([[5, 0]], 0, None),
    ([[7, 2], [7, 3]], 5, 7.0),
])
def test_total_and_mean_of_the_bins(bins, count, mean):
    assert _histogram.total(bins) == count
    assert _histogram.mean(bins) == mean


def test_an_empty_histogram_has_no_percentiles_and_no_distribution():
    assert _histogram.percentile([], "99") is None
    assert _histogram.percentiles([[10, 0]]) == {}
    assert _histogram.cumulative([]) == []
    assert _histogram.rebin([]) == {"width_ns": 1_000_000, "bins": [], "beyond": None}


def test_merging_adds_the_counts_of_equal_latencies_and_keeps_latency_order():
    read = [[300, 2], [100, 1]]
    write = [[100, 4], [200, 1], [500, 0]]
    assert _histogram.merge(read, write) == [[100, 5], [200, 1], [300, 2]]
    assert _histogram.merge(read, None, []) == [[100, 1], [300, 2]]
    assert _histogram.merge() == []


def test_the_cumulative_distribution_ends_at_all_ios():
    assert _histogram.cumulative(TEN) == [[100, 0.4], [200, 0.7], [400, 0.9], [1000, 1.0]]


@pytest.mark.parametrize("bins", [
    "x", [[1, 2, 3]], [[1, -1]], [[-1, 1]], [[1, 1.5]], [["a", 1]], [[True, 1]], [[1, float("nan")]],
])
def test_malformed_bins_are_an_error(bins):
    with pytest.raises(ValueError):
        _histogram.total(bins)


@pytest.mark.parametrize("percent", [0, -1, 100.5, "x", None, True])
def test_a_percentile_out_of_range_is_an_error(percent):
    with pytest.raises(ValueError):
        _histogram.percentile(TEN, percent)


@pytest.mark.parametrize("percent, needed", [
    ("50", 20), ("99", 1000), ("99.9", 10_000), ("99.99", 100_000), ("99.999", 1_000_000), (99.99, 100_000),
    ("100", 0),
])
def test_a_percentile_needs_ten_ios_beyond_it(percent, needed):
    assert _histogram.needed(percent) == needed


@pytest.mark.parametrize("count, percent, expected", [
    (10_000, "99.9", True), (9_999, "99.9", False), (1_000_000, "99.999", True), (999_999, "99.999", False),
    (35229, "99", True), (35229, "99.99", False), (100_000, "99.99", True), (0, "50", False),
])
def test_whether_a_percentile_is_resolved_by_the_ios_counted(count, percent, expected):
    assert _histogram.resolved(count, percent) is expected


def test_a_summary_gives_only_what_the_ios_resolve_and_how_many_each_needs():
    bins = [[ns, 1] for ns in range(1, 20_001)]
    found = _histogram.summary(bins)
    assert found["ios"] == 20_000
    # fio holds 99.9 as a double a hair above it: the 19,981st IO (as fio computes it, see above).
    assert found["percentiles"] == {"50": 10_000, "99": 19_800, "99.9": 19_981, "99.99": None, "99.999": None}
    assert found["needed"]["99.99"] == 100_000


def test_the_ios_between_two_readings_of_one_run_are_their_buckets_difference():
    before = [[100, 4], [200, 1]]
    after = [[100, 6], [200, 1], [900, 2]]
    assert _histogram.subtract(after, before) == [[100, 2], [900, 2]]
    assert _histogram.subtract(after, []) == after
    with pytest.raises(ValueError, match="not two readings of one run"):
        _histogram.subtract(after=before, before=after)  # the readings swapped


@pytest.mark.parametrize("slowest_ns, width_ns", [
    (50_000_000, 1_000_000),      # 51 bins of ADATA's 1 ms
    (19_000_000, 1_000_000),      # 20 bins: still 1 ms
    (18_999_999, 200_000),        # 19 bins would be too few: about 100 of 0.2 ms
    (5_000_000, 50_000),          # a drive whose slowest IO took 5 ms: 0.05 ms bins
    (400_000, 5_000),             # every IO sub-millisecond: 5 us bins
    (199_999_999, 1_000_000),
    (250_000_000, 5_000_000),     # 251 bins of 1 ms would be too many
    (2_000_000_000, 20_000_000),
    (50, 1),
    (0, 1),
])
def test_the_bin_width_is_1_ms_when_readable_else_a_1_2_5_width_for_about_100_bins(slowest_ns, width_ns):
    assert _histogram.bin_width(slowest_ns) == width_ns
    if slowest_ns:
        assert 1 <= slowest_ns // width_ns + 1 <= _histogram.MOST_BINS


def test_rebinning_puts_each_bucket_whole_into_the_bin_of_its_latency_and_keeps_empty_bins():
    bins = [[10, 1], [999, 2], [1000, 3], [3500, 4]]
    assert _histogram.rebin(bins, 1000) == {"width_ns": 1000, "bins": [[0, 3], [1000, 3], [2000, 0], [3000, 4]],
                                            "beyond": None}
    auto = _histogram.rebin([[120_000, 10], [4_900_000, 1]])
    assert auto["width_ns"] == 50_000 and len(auto["bins"]) == 99 and auto["beyond"] is None
    assert sum(c for dummy, c in auto["bins"]) == 11 and auto["bins"][2] == [100_000, 10]
    with pytest.raises(ValueError):
        _histogram.rebin(bins, -5)


def test_rebinning_up_to_a_limit_counts_the_slower_buckets_apart():
    # A drive whose slowest IOs took 2.6 s: bins up to its 99.99th percentile, and those few IOs beyond.
    bins = [[200_000, 29000], [900_000, 970], [4_000_000, 27], [1_100_000_000, 1], [2_600_000_000, 2]]
    limit = _histogram.percentile(bins, "99.99")
    assert limit == 4_000_000
    binned = _histogram.rebin(bins, limit_ns=limit)
    assert binned["width_ns"] == 50_000 and len(binned["bins"]) == 81
    assert sum(c for dummy, c in binned["bins"]) == 29997
    assert binned["beyond"] == {"ios": 3, "from_ns": 1_100_000_000, "to_ns": 2_600_000_000}
    # A limit at or past the slowest IO changes nothing.
    assert _histogram.rebin(bins, limit_ns=3_000_000_000) == _histogram.rebin(bins)


def test_percentiles_of_a_real_measurement_equal_fios_own_and_the_mean_is_close():
    """cbw-max-measure of a quick CBW run (json+ with lat_percentiles=1, as _fio keeps it): fio's percentiles per
    direction from the very buckets it printed."""
    fixture = _load(os.path.join("intensity", "fio-3.33-cbw-max-measure.json"))
    job = fixture["job"]
    for direction in ("read", "write"):
        data = job[direction]
        bins = data["histogram"]["bins"]
        assert data["histogram"]["source"] == "lat_ns"
        assert _histogram.total(bins) == data["total_ios"]
        ours = _histogram.percentiles(bins, PERCENTS)
        assert {k: float(v) for k, v in ours.items()} == data["lat_ns"]["percentiles"]
        for percent in PERCENTS:
            assert _histogram.percentile(bins, percent) == data["lat_ns"]["percentiles"][percent]
        assert _histogram.mean(bins) == pytest.approx(data["lat_ns"]["mean"], rel=2e-3)
        # fio's slowest IO lies in the last bucket, within 1/128 of its representative value.
        assert bins[-1][0] == pytest.approx(data["lat_ns"]["max"], rel=1 / 128)
    merged = _histogram.merge(job["read"]["histogram"]["bins"], job["write"]["histogram"]["bins"])
    assert _histogram.total(merged) == job["total"]["total_ios"]
    assert _histogram.mean(merged) == pytest.approx(job["total"]["lat_ns"]["mean"], rel=2e-3)
    # All IOs together: between the two directions' own percentiles.
    for percent in PERCENTS:
        low, high = sorted(job[d]["lat_ns"]["percentiles"][percent] for d in ("read", "write"))
        assert low <= _histogram.percentile(merged, percent) <= high


@pytest.mark.parametrize("source", ["lat_ns", "clat_ns"])
def test_percentiles_of_fios_raw_json_plus_equal_its_own_for_total_and_completion_latency(source):
    """fio's raw json+ output prints both histograms (with lat_percentiles=1): each one's percentiles are fio's."""
    raw = _load("fio-3.33-jsonplus-mixed.json")
    for job in raw["jobs"]:
        for direction in ("read", "write"):
            block = job[direction][source]
            bins = [[int(ns), count] for ns, count in block["bins"].items()]
            ours = _histogram.percentiles(bins, PERCENTS)
            assert ours == {f"{float(k):g}": v for k, v in block["percentile"].items()}
            assert _histogram.total(bins) == block["N"]
            assert _histogram.mean(bins) == pytest.approx(block["mean"], rel=2e-3)
    parsed = _fio.parse(json.dumps(raw))["jobs"][0]
    assert parsed["read"]["histogram"]["source"] == "lat_ns"
