# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Host Idle Recovery plots (_hir_plots.plots): every plot of a real run drawn; the preconditioning's two alone
when no wait state ran."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir, _hir_plots
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._hir_runs import (
    FIXTURE, QUICK, make_test)


def test_plots_are_drawn(tmp_path):
    result = _hir.build(_results.load_test(FIXTURE))
    drawn = _hir_plots.plots(result, str(tmp_path), "d1 (loop device)", "quick profile")
    assert set(drawn) == {"convergence", "verification", "timeline", "detail", "recovery"}
    for path in drawn.values():
        assert os.path.getsize(path) > 10000 and os.path.basename(path).startswith("hir-")
    # Preconditioning only: its two plots, nothing against time.
    only_pc = _hir.build(make_test(QUICK, [1000.0, 2000.0], [], {}, {}, planned=[1]))
    assert set(_hir_plots.plots(only_pc, str(tmp_path / "pc"), "d1", "")) == {"convergence", "verification"}
