# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The report's charts (_charts): a convergence plot unchanged without health marks and marked with them, round 1's
purged reads hollow with the window's stars; capacity labels of one round on lines of their own; a cohort plot's
panels four to a row."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts, _plots, _throughput
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._png import PNG


def test_convergence_plots_are_unchanged_without_marks_and_marked_with_them(tmp_path):
    panels = {"": {"4k": [100.0, 90.0, 95.0, 94.0, 96.0], "64k": [50.0, 45.0, 47.0, 48.0, 46.0]}}

    def draw(name: str, **kwargs) -> bytes:
        path = _charts.convergence(str(tmp_path / name), "t", "IOPS", panels, highlight="4k", window_rounds=[1, 5],
                                   **kwargs)
        with open(path, "rb") as handle:
            return handle.read()

    plain = draw("plain.png")
    assert draw("again.png") == plain
    with _plots.round_marks([]):
        assert draw("empty.png") == plain
    with _plots.round_marks([{"round": 3, "kind": "throttled", "series": None}]):
        shaded = draw("shaded.png")
    ringed = draw("ringed.png", marks=[{"round": 2, "kind": "warning", "series": "64k"}])
    assert len({plain, shaded, ringed}) == 3
    assert draw("after.png") == plain  # the marks end with their block


def test_the_convergence_plot_draws_round_1s_purged_reads_hollow_with_windows_stars_and_health_marks(tmp_path):
    panels = {"Sequential write": {"1024k": [2000.0, 1900.0, 1950.0], "64k": [1500.0, 1400.0, 1450.0]},
              "Sequential read": {"1024k": [7000.0, 1200.0, 1210.0], "64k": [7400.0, 1100.0, None]}}
    marks = [{"round": 2, "kind": "throttled", "series": "1024k"}, {"round": 3, "kind": "warning"}]
    with _plots.round_marks(marks):
        path = _charts.convergence(
            str(tmp_path / "c.png"), "t", "MB/s", panels,
            hollow={("Sequential read", "1024k"): 1, ("Sequential read", "64k"): 1},
            hollow_label=_throughput.PURGED_LABEL,
            windows={"1024k": [1, 2, 3], "64k": [1, 2]}, steady_at={("Sequential write", "1024k"): 3},
            subtitle="s")
    with open(path, "rb") as handle:
        assert handle.read(8) == PNG


def test_capacity_labels_crossed_in_the_same_round_do_not_print_on_top_of_each_other(tmp_path, monkeypatch):
    """A quick profile writes more than a capacity a round: 2 × and 3 × (then 4 ×…) mark the same round."""
    placed = {}
    finish = _plots.finish_figure

    def keep(fig, path, subtitle):
        placed[path] = [(text.get_text(), text.xy[0], text.xyann) for ax in fig.axes for text in ax.texts]
        return finish(fig, path, subtitle)

    monkeypatch.setattr(_plots, "finish_figure", keep)
    _charts.xy_panels(str(tmp_path / "w.png"), "t", [("Round", "IOPS", [1, 2, 3], {"IOPS": [1.0, 2.0, 3.0]}, False)],
                      markers=[[(1.0, "1 ×"), (2.0, "2 ×"), (2.0, "3 ×"), (3.0, "4 ×"), (3.0, "5 ×"), (3.0, "6 ×")]])
    assert len(placed) == 1
    labels = next(iter(placed.values()))
    at = {}
    for text, x, offset in labels:
        at.setdefault(x, []).append(offset)
    # Labels of one round each take their own line; none shares another's spot.
    assert all(len(set(offsets)) == len(offsets) for offsets in at.values()) and len(at[3.0]) == 3


@pytest.mark.parametrize("figures, rows", [(1, 1), (4, 1), (5, 2), (13, 4)])
def test_a_cohort_plot_wraps_its_panels_four_to_a_row(tmp_path, figures, rows):
    """A single row of a dozen panels printed too small to read on fleet.pdf."""
    from PIL import Image

    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts

    panels = [(f"figure {n}", [("h/d1", 100.0 + n, False), ("h/d2", 110.0 + n, n == 3)]) for n in range(figures)]
    path = _charts.cohort(str(tmp_path / "cohort.png"), "Cohort X / 1.0: 2 drive(s)", panels, "run r1")
    width, height = Image.open(path).size
    # Never wider than the other plots; one panel row a little over 3 inches tall.
    assert width <= 9.5 * 110 + 1
    assert 3.3 * rows * 110 <= height <= (3.3 * rows + 0.8) * 110 + 1
