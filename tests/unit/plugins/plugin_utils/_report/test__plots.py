# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the report's plots share (_plots): health marks per segment, log axes that end on labelled ticks, and one
colour and order per block size everywhere."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir, _plots


def test_health_marks_of_the_preconditioning_shade_its_rounds():
    marks = [{"round": 2, "kind": "throttled", "series": "precondition"}, {"round": 1, "kind": "warning", "series": "ws1"}]
    with _plots.round_marks(marks):
        assert _plots.segment_marks(_hir.PC_SEGMENT) == [{"round": 2, "kind": "throttled", "series": None}]
    assert _plots.segment_marks(_hir.PC_SEGMENT) == []


def test_log_axes_end_on_labelled_ticks_and_say_they_are_log():
    fig, ax = _plots.plt.subplots()
    ax.set_ylabel("latency (ms)")
    _plots.log_y(ax, [21.0, 38.0, 1.3])
    assert ax.get_ylim() == (1.0, 50.0)  # the 38 ms maximum lies below a labelled tick (50), not above the last (20)
    assert ax.get_ylabel() == "latency (ms) (log scale)"
    _plots.plt.close(fig)


def test_block_sizes_keep_one_colour_and_order_everywhere():
    assert _plots.by_block_size(["4k", "512", "1024k", "64k"]) == ["1024k", "64k", "4k", "512"]
    assert _plots.bs_color("4k", 0) == _plots.bs_color("4k", 5) == _plots.BS_COLORS["4k"]
