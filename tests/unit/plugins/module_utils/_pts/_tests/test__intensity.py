# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What CBW and DIRTH share (_tests/_intensity.py): the operating points chosen from the TC/QD loop's window grid (MaxIOPS
under the response time ceiling, MinIOPS, MidIOPS closest to halfway), the window grid averaged over the loop's last rounds,
and an operating point's row of prewrites and measurement at the chosen thread count and queue depth."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity


def _grid(values: dict) -> dict:
    return {key: {"iops": iops, "art_ms": art, "rounds": 5} for key, (iops, art) in values.items()}


TEST = {"name": "cbw", "thread_counts": [4, 2, 1], "queue_depths": [8, 1], "max_art_ms": 5.0}


def test_operating_points_max_under_the_ceiling_min_lowest_mid_closest_to_halfway():
    grid = _grid({(4, 8): (90_000, 6.0), (4, 1): (40_000, 0.4), (2, 8): (80_000, 4.0), (2, 1): (20_000, 0.2),
                  (1, 8): (50_000, 2.0), (1, 1): (10_000, 0.1)})
    points = _intensity.operating_points(grid, TEST)
    # TC4/QD8 has the most IOPS but a 6 ms ART: MaxIOPS is TC2/QD8.
    assert (points["max"]["tc"], points["max"]["qd"], points["max"]["iops"]) == (2, 8, 80_000)
    assert (points["min"]["tc"], points["min"]["qd"]) == (1, 1)
    assert points["mid_target_iops"] == 45_000 and (points["mid"]["tc"], points["mid"]["qd"]) == (4, 1)
    assert points["notes"] == []


def test_operating_points_ties_go_to_fewer_outstanding_ios_and_no_point_under_the_ceiling_is_said():
    grid = _grid({(4, 8): (50_000, 1.0), (2, 8): (50_000, 1.0), (1, 1): (10_000, 0.1), (4, 1): (30_000, 0.5),
                  (2, 1): (30_000, 0.5), (1, 8): (5_000, 1.0)})
    points = _intensity.operating_points(grid, TEST)
    assert (points["max"]["tc"], points["max"]["qd"]) == (2, 8) and (points["mid"]["tc"], points["mid"]["qd"]) == (2, 1)
    slow = _grid({key: (value["iops"], 9.0) for key, value in grid.items()})
    points = _intensity.operating_points(slow, TEST)
    assert points["max"] == points["min"] and "no grid point had a mean response time below 5 ms" in points["notes"][0]
    with pytest.raises(ValueError, match="did not measure TC1/QD1"):
        _intensity.operating_points(_grid({(4, 8): (1, 1)}), TEST)


def _job(name, iops, lat_ms):
    return {"name": name, "total": {"iops": iops, "lat_ns": {"mean": lat_ms * 1e6}}}


def test_the_window_grid_averages_each_point_over_the_loops_last_rounds():
    rounds = [[_job("cbw-tc4-qd8", 100, 2.0), _job("cbw-tc1-qd1", 10, 0.1), _job("cbw-prewrite", 999, 9)],
              [_job("cbw-tc4-qd8", 200, 4.0), _job("cbw-tc1-qd1", 30, 0.3)]]
    grid = _intensity.window_grid(rounds, TEST)
    assert grid[(4, 8)] == {"iops": 150.0, "art_ms": 3.0, "rounds": 2}
    assert grid[(1, 1)] == pytest.approx({"iops": 20.0, "art_ms": 0.2, "rounds": 2})
    assert (2, 1) not in grid


def test_a_point_row_runs_the_chosen_tc_and_qd_and_says_why():
    test = dict(TEST, block_sizes=[8192], mix=65, point_prewrite_seconds=120, sample_seconds=60,
                point_measure_seconds=600, bssplit=None, distribution=None, name="dirth")
    points = {"max": {"tc": 2, "qd": 8, "iops": 80_000.0, "art_ms": 4.0}}
    row = _intensity.point_row(test, {"label": "MaxIOPS operating point", "point": "max", "combinations": []}, points)
    assert row["label"] == "MaxIOPS operating point: TC2/QD8 (80,000 IOPS, ART 4.000 ms in the loop's window)"
    assert [c["name"] for c in row["combinations"]] == ["dirth-max-pre-001", "dirth-max-pre-002", "dirth-max-measure"]
    assert [(c["mix"], c["options"]["numjobs"], c["options"]["iodepth"]) for c in row["combinations"]] == [
        (0, 2, 8), (0, 2, 8), (65, 2, 8)]
    assert row["chosen"] is points and (row["tc"], row["qd"]) == (2, 8)
