# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The IOPS report kind's acceptance figures: the window-average IOPS of every R/W mix x block size of its matrix."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, round_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import window_stems
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._headline import Headlines
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._matrix import matrix_needs, matrix_planned


def _result(model: dict) -> dict:
    return (model.get("tests") or {}).get("iops") or {}


def _value(model: dict, params: dict) -> dict:
    result = _result(model)
    if not result.get("rounds_run"):
        return measured(None, "IOPS", "iops", reason="the IOPS test did not run")
    value = (((result.get("tables") or {}).get("iops") or {}).get(params["bs"]) or {}).get(str(params["mix"]))
    files = round_files("iops", "", window_stems(result))
    if value is None:
        return measured(None, "IOPS", "iops", files, result.get("status"),
                        reason=f"{params['bs']} {params['mix']}/{100 - params['mix']} is not in the IOPS test's matrix")
    return measured(value, "IOPS", "iops", files, result.get("status"))


FIGURES = (
    Figure("iops.<bs>.<mix>", unit="IOPS", direction="higher", test="iops",
           what="IOPS test: the measurement window's average IOPS (reads and writes) of one block size and R/W mix",
           example="iops.4k.100/0", value=_value,
           planned=matrix_planned("iops", "pts_run_iops_block_sizes", "pts_run_iops_mixes"),
           needs=matrix_needs("iops", "pts_run_iops_block_sizes", "pts_run_iops_mixes")),
)


def _headline_values(tests: dict) -> dict:
    iops = tests.get("iops") or {}
    return {"iops_4k_write": ((iops.get("tables") or {}).get("iops") or {}).get("4k", {}).get("0")}


HEADLINES = (Headlines(figures={"iops_4k_write": {"label": "4k random write", "short": "4k write IOPS", "unit": "IOPS",
                                                  "digits": 0, "test": "iops"}},
                       values=_headline_values),)
