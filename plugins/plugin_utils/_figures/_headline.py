# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A report kind's headline figures (the ones the summary page, result.json, the history and the fleet summary show):
what each is and how the kind finds it in its tests' report models. plugin_utils/_headline_figures asks these."""

from __future__ import annotations

from typing import Callable


class Headlines:
    """One report kind's headline figures. ``figures``: per figure, what it is (label, short, unit, digits, the test
    that measures it; optional, note); ``values(tests)``: per figure, its value from the report models of the drive's
    tests; ``state(tests, figure)``: the state of the window a figure comes from, where it is not its test's status;
    ``unresolved(tests, found)``: per figure measured but not given, why; ``details(tests)``: per figure, what
    result.json adds to it; ``final_states``: the states besides steady in which its figures are final (a test with no
    steady state of its own that completed)."""

    __slots__ = ("figures", "values", "state", "unresolved", "details", "final_states")

    def __init__(self, *, figures: dict, values: Callable, state: Callable | None = None,
                 unresolved: Callable | None = None, details: Callable | None = None, final_states: tuple = ()):
        self.figures = figures
        self.values = values
        self.state = state
        self.unresolved = unresolved or (lambda tests, found: {})
        self.details = details or (lambda tests: {})
        self.final_states = final_states
