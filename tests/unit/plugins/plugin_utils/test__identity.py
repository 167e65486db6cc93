# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A drive's identity (_identity): what of a recorded drive counts as a change - the backing file, the size, the serial
and the firmware, not the device node, the spelling of the WWN or a serial this attempt could not read."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _identity
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._recorded_drives import LOOP_A, NVME


@pytest.mark.parametrize("recorded, now, changes", [
    (LOOP_A, dict(LOOP_A), []),
    (LOOP_A, dict(LOOP_A, path="/dev/loop9", resolved="/dev/loop9"), []),  # the node is not the drive
    (LOOP_A, dict(LOOP_A, backing_file="/srv/b.img"), ["backing_file '/srv/a.img' → '/srv/b.img'"]),
    (LOOP_A, dict(LOOP_A, size_bytes=134217728), ["size_bytes 67108864 → 134217728"]),
    (LOOP_A, {k: v for k, v in LOOP_A.items() if k != "backing_file"}, ["backing_file '/srv/a.img' → None"]),
    (NVME, dict(NVME, serial="S2"), ["serial 'S1' → 'S2'"]),
    (NVME, dict(NVME, wwn="0x0025388"), []),  # one WWN, written two ways
    (NVME, dict(NVME, firmware="GDC7"), ["firmware 'GDC5' → 'GDC7'"]),
    (NVME, dict(NVME, serial=None), []),  # a serial this attempt could not read is no evidence of another drive
    (NVME, dict(NVME, serial="S1 "), []),
])
def test_identity_changes(recorded, now, changes):
    assert _identity.identity_changes(_identity.identity(recorded), now) == changes
