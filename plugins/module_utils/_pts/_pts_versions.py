# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The PTS versions a run can follow (``pts_spec``) and what each sets: the values of the variables the operator
leaves unset. Sources: SNIA SSS PTS Enterprise 1.1 as TKperf and the Myce/OakGate lab run it, and PTS 2.0.2; see
docs/docsite/rst/snia_mapping.rst.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail

SPECS = ("1.1", "2.0")
SPEC_NAMES = {"1.1": "SNIA SSS PTS Enterprise 1.1 (as TKperf runs it)", "2.0": "SNIA SSS PTS 2.0.2 Enterprise"}
# What pts_spec sets, each overridable by its own variable (pts_run_<key>).
SPEC_DEFAULTS = {
    "1.1": {
        "numjobs": 2,
        "iodepth": 16,
        "iops_dvs": [{"bs": "4k", "mix": 0}],
        "throughput_block_sizes": ["1024k", "64k", "8k", "4k", "512"],
        "throughput_wipc": False,
        "wsat_latency_plots": False,
    },
    "2.0": {
        # PTS 2.0's recommended total outstanding IOs for Enterprise: 4 threads x QD 32.
        "numjobs": 4,
        "iodepth": 32,
        # All three must be steady for the IOPS test to stop.
        "iops_dvs": [{"bs": "4k", "mix": 0}, {"bs": "64k", "mix": 65}, {"bs": "1024k", "mix": 100}],
        "throughput_block_sizes": ["1024k", "128k"],
        "throughput_wipc": True,
        "wsat_latency_plots": True,
    },
}


def spec(value: object, variable: str = "pts_run_spec") -> str:
    """The PTS version a run follows: "1.1" or "2.0" (unquoted in YAML they are the numbers 1.1 and 2.0)."""
    text = f"{value:.1f}" if isinstance(value, float) else str(value).strip()
    if isinstance(value, bool) or text not in SPECS:
        raise fail(variable, value, f"unknown PTS version; known: {', '.join(SPECS)} (PTS-E 1.1 as TKperf runs it, "
                                    "or PTS 2.0.2)")
    return text


def spec_value(params: dict, chosen: str, key: str):
    """A spec-dependent variable: the operator's pts_run_<key>, else the spec's default."""
    value = params.get("pts_run_" + key)
    return SPEC_DEFAULTS[chosen][key] if value is None else value
