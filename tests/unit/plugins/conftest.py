# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fixtures of the fio client's and the fio_job action's tests: the fake clock and the fio client's display."""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _filing, _fio_client
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fake_fio_host import Clock


@pytest.fixture
def fio_clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(_fio_client.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(_fio_client.time, "sleep", fake.sleep)
    return fake


@pytest.fixture
def fio_display(monkeypatch):
    fake = MagicMock()
    monkeypatch.setattr(_fio_client, "display", fake)
    monkeypatch.setattr(_filing, "display", fake)
    return fake
