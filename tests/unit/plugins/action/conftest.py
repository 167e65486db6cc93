# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The settings of a run the controller actions' tests run in (a results directory under tmp_path)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.tests.unit.plugins.action._controller_action import run_settings


@pytest.fixture
def settings(monkeypatch, tmp_path):
    return run_settings(monkeypatch, tmp_path)
