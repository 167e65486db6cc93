# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""WSAT's stop rule (_tests/wsat.stop): the target of bytes written or the time limit, whichever comes first, and the
progress it says until then."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import wsat


@pytest.mark.parametrize(
    "written, elapsed, stop, reason",
    [
        (4 * 10**9, 10, True, "target 4,000,000,000 reached"),
        (10**9, 86400, True, "time limit of 24 h reached"),
        (10**9, 3600, False, "1,000,000,000 of 4,000,000,000 bytes written (25.0 %)"),
    ],
)
def test_wsat_stop_rule(written, elapsed, stop, reason):
    decided, why = wsat.stop(written, 4 * 10**9, elapsed, 86400)
    assert decided is stop and reason in why
