# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A test's descriptor (_tests/_descriptor.Test) refuses a stop rule or a family it does not know, naming it."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _descriptor


def test_a_descriptor_refuses_an_unknown_stop_rule_or_family():
    with pytest.raises(ValueError, match="unknown stop rule 'forever'"):
        _descriptor.Test(name="x", title="X", family="pts", stop="forever", purge="test", report="iops",
                         inputs=None, segments=None)
    with pytest.raises(ValueError, match="unknown family 'nvme'"):
        _descriptor.Test(name="x", title="X", family="nvme", stop="steady", purge="test", report="iops",
                         inputs=None, segments=None)
