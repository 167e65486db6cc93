# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Host Idle Recovery section (_hir_md.section): what ran and the choices made, the recovery table per wait state,
the sources and plots; what is missing named, and a test with no round finished."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir, _hir_md
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._hir_runs import (
    BASE, FIXTURE, FLAT, QUICK, STEADY_PC, make_test)


def test_section_says_what_ran_and_the_choices():
    result = _hir.build(_results.load_test(FIXTURE))
    plots = {k: f"plots/hir-{k}.png" for k in ("convergence", "verification", "timeline", "detail", "recovery")}
    lines = _hir_md.section(result, plots, 7, 0)
    text = "\n".join(lines)
    assert lines[0] == "## 7 Host Idle Recovery"
    assert "**Steady**: preconditioning steady at round 2; 2 wait states run, each with its bursts and its return " \
           "to baseline." in lines
    assert "  Round 1: 3 x (0.5 s of 4k random write, then N x 0.5 s idle);" in lines
    assert "  Round 2: return to baseline, 1.5 s of continuous 4k random write (3 sections of 0.5 s back to back)" \
        in lines
    assert "Preconditioning: **Steady state reached at round 2.**" in lines
    for heading in ("### 7.1 Preconditioning steady state information", "### 7.2 Preconditioning plots",
                    "### 7.3 IOPS against time", "### 7.4 Recovery per wait state",
                    "### 7.5 Purge, preconditioning and files"):
        assert heading in lines
    # Planned idle, measured idle (none: these rounds have no logs), the figures; a steady window is headed so.
    assert "| WS1 | 0.50 | — | 3 | 56,692.4 | 48,475.0 | 71,190.9 | 47,741.8 (3) | 59,863.0 | 0.95 | 1.19 |" in lines
    assert "Preconditioning steady-state IOPS" in text and "(not steady)" not in text
    assert "CloudHarmony" in text and "ADATA" in text and "startdelay" in text and "not confirmed" in text
    assert "within a round the times are the schedule" in text and "recorded_at − elapsed_s" in text
    for key, path in plots.items():
        assert f"]({path})" in text, key
    assert "[01](hir/ws2/round-01.fio)" in text


def test_section_names_what_is_missing():
    result = _hir.build(make_test(QUICK, STEADY_PC, [1, 2], FLAT, {1: BASE[1]}, planned=[1, 2, 5]))
    lines = _hir_md.section(result, {}, 4, 0)
    assert ("**Incomplete**: preconditioning steady at round 3; 1 wait state run; WS2 lacks its return to baseline; "
            "WS5 lacks its bursts and return to baseline.") in lines
    assert "| WS5 bursts | **not run** | — |" in lines
    assert _hir_md.section(_hir.build(make_test(QUICK, [], [], {}, {})), {}, 4, 0)[-2] == \
        "No round finished; nothing was measured."
