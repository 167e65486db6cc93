# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which drives a specification applies to (_applies): by model and firmware pattern, interface and capacity - a rated
capacity, a range of one, or a size in binary units."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _applies

DRIVE = {"model": "ACME PM1 3.84TB", "firmware": "2.1", "interface": "NVMe", "size_bytes": 3_840_755_982_336}


@pytest.mark.parametrize("applies, drive, matched", [
    ({"model": "ACME PM1*"}, {}, True),
    ({"model": "ACME PM2*"}, {}, False),
    ({"model": "*", "firmware": "1.*"}, {}, False),
    ({"model": "*", "interface": "nvme"}, {}, True),
    ({"model": "*", "interface": "sata"}, {}, False),
    ({"model": "*", "capacity": "3.84TB"}, {}, True),
    ({"model": "*", "capacity": "1.92TB"}, {}, False),
    ({"model": "*", "capacity": "3.84TB"}, {"size_bytes": 4_000_787_030_016}, False),
    ({"model": "*", "capacity": {"min": "3.5TB"}}, {}, True),
    ({"model": "*", "capacity": {"max": "3.5TB"}}, {}, False),
    ({"model": "*", "capacity": "64MiB"}, {"size_bytes": 67108864}, True),
])
def test_a_specification_applies_to_the_drives_it_names(applies, drive, matched):
    checked = _applies.validate(applies, "applies_to")
    assert _applies.matches(checked, dict(DRIVE, **drive)) is matched
