# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A report kind: what it says of itself when it says nothing, and its plots' weight per test."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import PLOT_WEIGHT, ReportKind


def _kind(**given) -> ReportKind:
    return ReportKind(name="toy", build=dict, plots=lambda *args: {}, section=lambda *args: [], **given)


def test_a_kind_that_says_nothing_has_no_steady_state_and_the_common_weight():
    kind = _kind()
    assert (kind.steady_rule, kind.steady_row, kind.steady_clause, kind.steady_note, kind.stimulus) == \
        (False, False, "", "", None)
    assert kind.weight("anything") == PLOT_WEIGHT
    assert repr(kind) == "ReportKind('toy')"


def test_a_kinds_tests_may_weigh_differently():
    kind = _kind(plot_weight=3.0, plot_weights={"heavy": 9.0})
    assert (kind.weight("heavy"), kind.weight("light")) == (9.0, 3.0)
