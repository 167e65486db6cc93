# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two hosts of a run as the controller's hostvars hold them: their drives, the guard's passes and the plan's drives."""

from __future__ import annotations

HOSTVARS = {
    "h1": {"group_names": ["rack12"], "pts_allow_destroy": True,
           "pts_run_drives": [{"path": "/dev/a", "key": "A"}, {"path": "/dev/b", "key": "B"},
                              {"path": "/dev/c", "key": "C"}],
           "pts_guard_passed": {"/dev/a": {"resolved": "/dev/a"}, "/dev/b": {"resolved": "/dev/b"}},
           "pts_run_plan": {"drives": [{"key": "A"}, {"key": "B"}]}},
    "h2": {"group_names": ["rack12"], "pts_run_drives": [{"path": "/dev/x", "key": "X"}],
           "pts_guard_passed": {}, "pts_run_plan": {"drives": []}},
}
