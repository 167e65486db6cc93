# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A dependent variable (DV): the figure of one fio section a steady-state rule tracks, found in a round's jobs."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import find_job, find_named
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size

DV_METRICS = ("iops", "bw_bytes", "lat_mean_ns")


class DvError(PtsError, ValueError):
    """A dependent variable that cannot be read from a round's fio jobs."""


def dv_name(dv: dict) -> str:
    return f"{block_size_label(dv['bs'])} {dv['mix']}/{100 - dv['mix']} {dv['metric']}"


def dv_value(jobs: list[dict], mix: int, bs: object, metric: str = "iops", job: str | None = None) -> float:
    """The dependent variable of one round, found by (mix, block size) among the round's fio jobs - or by its
    section's name (``job``) where several sections share a mix and block size."""
    if metric not in DV_METRICS:
        raise DvError(f"unknown DV metric {metric!r}; known: {', '.join(DV_METRICS)}")
    total = (find_named(jobs, job) if job else find_job(jobs, int(mix), parse_block_size(bs)))["total"]
    value = total["lat_ns"]["mean"] if metric == "lat_mean_ns" else total[metric]
    if value is None:
        raise DvError(f"the {block_size_label(parse_block_size(bs))} {mix}/{100 - int(mix)} run completed no IO")
    return float(value)
