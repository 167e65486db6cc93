# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The data variable's value (_dv.dv_value): a round's 4k write IOPS found by its value whatever the order of fio's jobs,
and an unknown DV metric refused."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _dv, _fio


def test_dv_value_finds_4k_write_by_value():
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "fio-3.33-iops-round.json")
    with open(path, encoding="utf-8") as handle:
        raw = json.load(handle)
    jobs = _fio.parse(json.dumps(raw))["jobs"]
    expected = next(j for j in raw["jobs"] if j["jobname"] == "iops-r0-4096")["write"]["iops"]
    assert _dv.dv_value(list(reversed(jobs)), 0, "4k") == expected
    with pytest.raises(ValueError, match="unknown DV metric"):
        _dv.dv_value(jobs, 0, "4k", "speed")
