# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pts_run_lock and pts_run_start run in the test process: a run of either (pts_run_lock unless told), of the lock of
one host, and the message a failing run gives."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.action import pts_run_lock
from ansible_collections.fleetqual.pts.tests.unit.plugins.action._controller_action import failure, run_action


def run(args, task_vars=None, check=False, action=pts_run_lock):
    return run_action(action, args, task_vars, check)


def lock(host="h1", task_vars=None, check=False):
    return run({"run_id": "it-1", "host": host}, task_vars, check)


def fail_message(args, task_vars=None, check=False, action=pts_run_lock) -> str:
    return failure(action, args, task_vars, check)
