# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The XSR plots (_xsr_plots.plots): throughput against time and the group panels of a full run; of a partial run
the same two, of a run without a sample none."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _xsr, _xsr_plots
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._xsr_runs import make_test, realistic


def test_plots_of_a_full_run_are_drawn(tmp_path):
    result = _xsr.build(make_test(realistic(), gap_s=1.0))
    drawn = _xsr_plots.plots(result, str(tmp_path), "drive (model)", "run test")
    assert sorted(drawn) == ["panels", "throughput"]
    assert [os.path.basename(p) for p in (drawn["throughput"], drawn["panels"])] == [
        "xsr-throughput.png", "xsr-panels.png"]
    assert all(os.path.getsize(p) > 10000 for p in drawn.values())


def test_plots_of_a_partial_run_and_of_none(tmp_path):
    partial = _xsr.build(make_test({"group1": [1000] * 3, "group2": [300] * 1}, minutes=[3, 3, 3]))
    assert sorted(_xsr_plots.plots(partial, str(tmp_path), "drive", "run")) == ["panels", "throughput"]
    assert _xsr_plots.plots(_xsr.build(make_test({}, minutes=[3, 3, 3])), str(tmp_path), "drive", "run") == {}
