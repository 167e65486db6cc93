# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Requirements across a fleet (_pass_rates.rates): per requirement the drives it applied to, passed, failed and not
judged, and the pass rate, as the fleet summary's requirements table shows them."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_requirements
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._requirements._judged_fleet import _fleet


def test_pass_rates_count_every_drive_a_requirement_applied_to():
    rows = {r["id"]: r for r in _fleet()["requirements"]}
    assert (rows["RR4K"]["drives"], rows["RR4K"]["passed"], rows["RR4K"]["failed"], rows["RR4K"]["failed_drives"]) \
        == (3, 2, 1, ["h/b"])
    assert rows["RR4K"]["pass_rate"] == pytest.approx(2 / 3)
    assert (rows["QOS-R1"]["passed"], rows["QOS-R1"]["not_judged"], rows["QOS-R1"]["not_judged_drives"]) == \
        (2, 1, ["h/c"])
    table = "\n".join(_fleet_requirements.section(_fleet()))
    assert "| ACME PM1 2.1 | `RR4K` | `iops.4k.100/0` | ≥ 90 % of rated 1,000 kIOPS (900,000 IOPS) | 3 | 2 | 1 | 0 | " \
           "**67 %** | FAIL: h/b |" in table
