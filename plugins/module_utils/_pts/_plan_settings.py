# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a run plan records of its inputs: the variables that change what each test measures (a resumed run compares
them with the first attempt's, as they are canonicalised here) and the settings of the steps around the tests (the
plan itself: _plan.build_plan).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_actions import WRITE_CACHE_MODES
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_tools import (
    PURGE_METHODS as _DRIVE_PURGE_METHODS)
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import boolean as _boolean
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail as _fail, positive as _positive
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import no_control, number_text
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry


PURGE_METHODS = ("auto",) + tuple(sorted(_DRIVE_PURGE_METHODS))

# The variables that change what a test measures are each test's (_tests/); a resumed run compares them with the first
# attempt's. Timeouts (and the preconditioning's minimum rate, a timeout), the remote directory, pts_allow_destroy and
# the fleet's judging are left out: they change no figure.
_WIPC_VARIABLES = ("pts_precondition_block_size", "pts_precondition_capacity_multiple", "pts_precondition_iodepth")


def _canonical(key: str, value: object) -> object:
    """One spelling per value ("4k" and 4096, "0.5" and 0.5), so only real changes count."""
    if isinstance(value, (list, tuple)):
        return [_canonical(key, v) for v in value]
    if key.endswith(("block_size", "block_sizes")):
        try:
            return parse_block_size(value)
        except ValueError:
            return value
    if isinstance(value, str):
        number = number_text(value)
        return value if number is None else number
    return value


def measurement_variables(params: dict, tests: list[str], every: dict, common: dict) -> dict:
    """The validated value of every variable that shapes the selected tests' measurements, by variable name."""
    out = {"pts_run_tests": list(tests), **common}
    if not any(every[name]["wipc"] for name in tests):
        for name in _WIPC_VARIABLES:
            out.pop(name)
    for name in tests:
        test = _registry.BY_NAME[name]
        for variable, field in test.variables.items():
            out[variable] = every[name][field]
        for key in test.raw_variables:
            out["pts_run_" + key] = _canonical(key, test.effective(params, common["pts_run_profile"], key))
    return out


def step_settings(params: dict) -> dict:
    """What purge, preconditioning and the rounds need besides the matrix, validated once for every worker."""
    remote_dir = params.get("pts_run_remote_dir", "/var/lib/fleetqual-pts")
    if not isinstance(remote_dir, str) or not remote_dir.startswith("/"):
        raise _fail("pts_run_remote_dir", remote_dir, "must be an absolute path")
    no_control("pts_run_remote_dir", remote_dir)
    purge_method = params.get("pts_run_purge_method", "auto")
    if purge_method not in PURGE_METHODS:
        raise _fail("pts_run_purge_method", purge_method, f"unknown purge method; known: {', '.join(PURGE_METHODS)}")
    # The PTS enterprise setting, as the role's default (pts_write_cache) is.
    write_cache = params.get("pts_run_write_cache", "disabled")
    if write_cache not in WRITE_CACHE_MODES:
        raise _fail("pts_run_write_cache", write_cache, f"must be one of {', '.join(WRITE_CACHE_MODES)}")
    # The guard and the purge read the same switch; a string ("on", "yes", even "true") is refused here, before
    # the guard, so no step can read it differently from another.
    allow = _boolean("pts_allow_destroy", params.get("pts_allow_destroy", False))
    rate = params.get("pts_run_rate_iops", 0)
    rate = int(_positive("pts_run_rate_iops", rate, int)) if rate not in (0, "0", None) else 0
    return {
        "rate_iops": rate,
        "remote_dir": remote_dir,
        "purge_method": purge_method,
        "write_cache": write_cache,
        "allow_destroy": allow,
        "reconnect_timeout_s": _positive("pts_run_reconnect_timeout_s", params.get("pts_run_reconnect_timeout_s", 300),
                                         float),
        "wipc_iodepth": int(_positive("pts_precondition_iodepth", params.get("pts_precondition_iodepth", 32), int)),
        "wipc_min_bytes_per_second": int(_positive("pts_precondition_min_bytes_per_second",
                                                   params.get("pts_precondition_min_bytes_per_second", 20000000), int)),
    }
