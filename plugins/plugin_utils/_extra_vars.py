# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Extra variables a run refuses: the run's own state.

Extra variables (``-e``, an AWX survey or prompt on launch, a CI variable) beat every other variable of a play,
facts and registered results included. A launcher may set any input the documentation lists, but not what the run
works out for itself - the guard's verdicts, the plan, the run's token and directory, the drive workers' variables, a
role's private ``__pts_*`` variables, and the parameters the pts_run role hands the roles it includes. Given as extra
variables, they would replace what the run decided; they are refused by name before anything is written.
"""

from __future__ import annotations

# The facts the run sets and the drive workers' variables (plugin_utils/_workers.py).
STATE = ("pts_run_dir", "pts_run_token", "pts_run_concurrent", "pts_run_plan", "pts_run_drives", "pts_run_host",
         "pts_run_drive_key", "pts_run_published", "pts_guard_passed")
# Role-private variables, and the parameters of the roles pts_run includes (it sets them from the run's inputs).
PREFIXES = ("__pts_", "pts_guard_", "pts_identify_", "pts_raid_", "pts_purge_", "pts_precondition_")
# Inputs of the run that share a prefix above (the role passes them to the plan under these names).
INPUTS = ("pts_purge_method", "pts_precondition_block_size", "pts_precondition_capacity_multiple",
          "pts_precondition_iodepth", "pts_precondition_min_bytes_per_second")


def internal(name: str) -> bool:
    """Whether ``name`` is the run's own state, which no extra variable may set."""
    return name not in INPUTS and (name in STATE or name.startswith(PREFIXES))


def refusal(names) -> str | None:
    """Why these extra variables cannot run, or None."""
    found = sorted(str(n) for n in names if internal(str(n)))
    if not found:
        return None
    return (f"the extra variable{'s' if len(found) > 1 else ''} {', '.join(found)} would replace what the run decides "
            "itself (the guard's verdicts, the plan, the run's token and directories, the roles' own variables); set "
            "the documented inputs instead (pts_devices, pts_tests, pts_run_* ...); nothing was written")
