# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every guest test needs root: building the image (debootstrap, apt-get) and booting it."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _needs_root():
    # A skip would read as a pass.
    if os.geteuid() != 0:
        pytest.fail("the guest needs root (debootstrap, apt-get)")
