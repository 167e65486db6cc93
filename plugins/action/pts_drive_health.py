# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._filing import FilingAction


class ActionModule(FilingAction):
    """Run the pts_drive_health module on the host and file its result in the run's results tree on the controller."""
