# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the PTS 2.0 tests (HIR, XSR, CBW, DIRTH) share: one fio section as their segments give it, the drive's block
size check and fio's limit on threads per job file."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label

# fio's own floor per stonewalled job section (docs/docsite/rst/performance.rst): the idle time between two stonewalled sections -
# which is why HIR's bursts are not stonewalled and its returns to baseline and XSR's groups are one section each.
SECTION_S = 0.3
# fio refuses a job file whose sections' threads (numjobs clones) add up to more.
FIO_MAX_JOBS = 4096


def section(name: str, rw: str, mix: int, bs: int, seconds: float, start_s: float | None = None,
            group: str | None = None, **options) -> dict:
    """One fio section; ``group="new"``: its own reporting group that starts without waiting for the sections before
    it (new_group instead of stonewall)."""
    cell = {"name": name, "rw": rw, "mix": mix, "bs": bs, "seconds": float(seconds), "options": options}
    if start_s:
        cell["start_s"] = float(start_s)
    if group:
        cell["group"] = group
    return cell


def unfit_sizes(test: dict, logical_block_size: int) -> list[str]:
    """Why the drive cannot run the test: a note when one of its block sizes is below or not a multiple of the drive's
    logical block size, else nothing."""
    sizes = test.get("bssplit_sizes") or test["block_sizes"]
    small = [bs for bs in sizes if bs < logical_block_size or bs % logical_block_size]
    if not small:
        return []
    shown = ", ".join(block_size_label(bs) for bs in small)
    hint = " (give pts_run_cbw_bssplit a mix without them)" if test.get("bssplit") else ""
    return [f"its block size{'s' if len(small) > 1 else ''} {shown} "
            f"{'are' if len(small) > 1 else 'is'} below or not a multiple of the drive's logical block size "
            f"of {logical_block_size} bytes{hint}"]


def finish(segments: list[dict]) -> tuple[list[dict], list[str]]:
    """Segments of rows run their first row's sections when the plan shows them."""
    for segment in segments:
        if segment.get("rounds"):
            segment["combinations"] = segment["rounds"][0]["combinations"]
    return segments, []


def jobs_fit(name: str, rounds: list[tuple[str, int, str, object, str]]) -> None:
    """fio runs at most FIO_MAX_JOBS threads (every section's numjobs clones) in one job file: a round planned past
    that would fail only once the drive has been purged and preconditioned, so the plan refuses it first. ``rounds``:
    (what, threads, the variable to name, its value, what to change)."""
    for what, jobs, variable, value, change in rounds:
        if jobs > FIO_MAX_JOBS:
            raise fail(variable, value, f"makes {name}'s {what} one fio job file of {jobs:,} threads (its sections' "
                                        f"threads added up); fio runs at most {FIO_MAX_JOBS:,}: {change}")
