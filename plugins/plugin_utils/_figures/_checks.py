# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""How a report kind's tests read in a drive's verdict, where the generic words would mislead. plugin_utils/_acceptance
asks these and names no test."""

from __future__ import annotations

from typing import Callable


class Checks:
    """One report kind's verdict words. ``not_steady(result, limit)``: why one of its tests that had to be steady was
    not (after "steady state required, "), where "not reached in N rounds" would not say it (throughput's limit is per
    block size). ``ended``: for a test without a steady state of its own, ``(criterion, states, text(model,
    result))``: the check it passes when it ends in one of ``states`` (write saturation's capacity written)."""

    __slots__ = ("not_steady", "ended")

    def __init__(self, *, not_steady: Callable | None = None, ended: tuple[str, tuple, Callable] | None = None):
        self.not_steady = not_steady
        self.ended = ended
