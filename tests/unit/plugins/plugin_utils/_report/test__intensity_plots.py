# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CBW and DIRTH plots (_intensity_plots.plots): every plot of a real run and of the standard scale drawn, a
throttled loop round shaded on the loop's plots only, one bin width for a figure's histograms, the loop window's state on
the grid plots, and the demand intensity ring naming the loop's figure and the measured one."""

from __future__ import annotations

import copy
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import (
    _charts, _intensity, _intensity_md, _intensity_plots, _plots)
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._intensity_runs import (
    PLOTS, RUN, _copy, synthetic)
from conftest import figure_with


@pytest.mark.parametrize("name, extra", [("cbw", set()), ("dirth", {"confidence"})])
def test_every_plot_of_a_real_run_is_drawn(tmp_path, name, extra):
    result = _intensity.build(_results.load_test(os.path.join(RUN, name)))
    drawn = _intensity_plots.plots(result, str(tmp_path), "d1 (loop device)", "quick profile")
    assert set(drawn) == PLOTS | extra
    for key, path in drawn.items():
        assert os.path.basename(path).startswith(f"{name}-") and os.path.getsize(path) > 5000, key


def test_a_loop_round_the_drive_throttled_in_is_shaded_on_the_loop_plots_only(tmp_path, monkeypatch):
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    seen = {}

    def convergence(path, *args, **kwargs):
        seen[os.path.basename(path)] = kwargs.get("marks")
        return path
    monkeypatch.setattr(_charts, "convergence", convergence)
    with _plots.round_marks([{"round": 2, "kind": "throttled", "series": "loop"}]):
        _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    assert seen == {"cbw-pc-convergence.png": [],
                    "cbw-loop-prewrite.png": [{"round": 2, "kind": "throttled", "series": None}],
                    "cbw-loop-convergence.png": [{"round": 2, "kind": "throttled", "series": None}]}


def test_the_standard_scale_plots_are_all_drawn(tmp_path):
    result = _intensity.build(synthetic())
    drawn = _intensity_plots.plots(copy.deepcopy(result), str(tmp_path), "d1 (SAMSUNG MZQL23T8HCLS-00A07)", "run r1")
    assert set(drawn) == PLOTS | {"confidence"}


def test_the_histograms_of_a_figure_share_one_bin_width(tmp_path, monkeypatch):
    widths = []
    finish = _plots.finish_figure

    def keep(fig, path, subtitle):
        if path.endswith("histograms.png"):
            widths.extend(text.get_text() for ax in fig.axes for text in ax.get_legend().get_texts()
                          if text.get_text().startswith("IOs per "))
        return finish(fig, path, subtitle)

    monkeypatch.setattr(_plots, "finish_figure", keep)
    monkeypatch.setattr(_intensity_plots, "finish_figure", keep)
    for name in ("cbw", "dirth"):
        result = _intensity.build(_results.load_test(_copy(tmp_path, name)))
        before = len(widths)
        _intensity_plots.plots(result, str(tmp_path / f"plots-{name}"), name, "")
        assert len(widths) - before == 3 and len(set(widths[before:])) == 1, widths[before:]


@pytest.mark.parametrize("name", ["cbw", "dirth"])
@pytest.mark.parametrize("steady", [True, False])
def test_the_grid_plots_carry_the_loop_windows_state(tmp_path, figures, name, steady):
    """Demand Variation, Demand Intensity, IOPS/ART vs OIO and CPU use average the TC x QD loop's window: a window
    that was not steady says so on each of them."""
    result = _intensity.build(_results.load_test(os.path.join(RUN, name)))
    result["loop"]["steady"] = steady
    result["loop"]["steady_round"] = 3 if steady else None
    _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    rounds = result["loop"]["window_rounds"]
    expected = f"{'STEADY' if steady else 'NOT STEADY'} (loop window rounds {rounds[0]}–{rounds[-1]})"
    for title in ("Demand Variation", "Demand Intensity", "IOPS and response time vs outstanding IOs",
                  "fio CPU use"):
        assert expected in figure_with(figures, f"{name.upper()} {title}")["texts"], title


def test_the_demand_intensity_ring_names_the_loop_figure_and_the_measured_one(tmp_path, figures):
    """The ring stands at the loop's window average; the summary's MaxIOPS is the point measured after its pre-write.
    Both are given, so the two numbers are not read as one."""
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    _intensity_plots.plots(result, str(tmp_path), "d1", "quick profile")
    texts = figure_with(figures, "CBW Demand Intensity")["texts"]
    point = next(p for p in result["points"] if p["point"] == "max")
    cell = _intensity.grid_cells(result)[(point["tc"], point["qd"])]
    label = next(t for t in texts if t.startswith("MaxIOPS"))
    assert f"{cell['iops']:,.0f} in the loop" in label
    assert f"{point['measure']['iops']:,.0f} measured after its pre-write" in label
    assert result["headline"]["max_measured_iops"] == point["measure"]["iops"]
    section = "\n".join(_intensity_md.section(result, {"demand_intensity": "plots/cbw-demand-intensity.png"}, 7, 1 << 28))
    assert "so it differs from the ring's IOPS" in section and "(7.4: a run of its own" in section
