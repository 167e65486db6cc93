# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A run id whose run has finished: a relaunch that would test nothing and pass.

A run id names one run; running it again resumes it - finished tests are kept, what is left runs. Once the run was
judged (its fleet.json lists a host as judged, not in progress), a later job with that id for that host would test
nothing and exit with the old verdict: a schedule or a relaunch in AWX would keep "qualifying" drives without writing
a byte. So such a job is refused before anything is written, saying when the run finished, unless it asks to resume
(``pts_resume: true`` - a run that ended with drives still to test, after a repair). A cancelled job never wrote its
fleet summary, so its relaunch resumes as before; job slices that share one run id each judge their own hosts, and a
slice that starts after another slice ended is not refused for the other slice's hosts.
"""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError, InputError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree


def finished(run_dir: str) -> dict | None:
    """When the run in ``run_dir`` was last judged and the hosts that judge saw finished (``{"at", "hosts"}``), or
    None when it has no fleet summary (never judged: a cancelled or a live run)."""
    path = os.path.join(run_dir, "fleet.json")
    try:
        summary = _results.read_json(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        # A fleet summary that cannot be read is no proof the run is unfinished: refused, naming it.
        raise DataError(f"cannot tell whether run {os.path.basename(run_dir)} has finished: {exc}") from None
    busy = {str(e.get("host")) for e in summary.get("in_progress") or [] if isinstance(e, dict)}
    hosts = {str(d.get("host")) for d in summary.get("drives") or [] if isinstance(d, dict)}
    hosts |= {str(e.get("host")) for e in summary.get("errors") or [] if isinstance(e, dict)}
    return {"at": str(summary.get("generated_at") or "an unknown time"), "hosts": sorted(hosts - busy)}


def resume(given: object) -> bool:
    if given in (None, ""):
        return False
    if not isinstance(given, bool):
        raise InputError(f"pts_resume={given!r}: must be true or false (a YAML boolean)")
    return given


def refusal(run_id: str, run_dir: str, hosts: list[str], resuming: bool, source: str) -> str | None:
    """Why this job must not run ``run_id`` on ``hosts``, or None: the run has finished for some of them and the job
    does not ask to resume it. ``source``: where the run id came from (said in the message)."""
    if resuming or not _safe_tree.exists(run_dir):
        return None
    done = finished(run_dir)
    if done is None:
        return None
    again = sorted(h for h in hosts if h in done["hosts"])
    if not again:
        return None
    shown = ", ".join(again[:5]) + (f" and {len(again) - 5} more" if len(again) > 5 else "")
    return (f"run {run_id} ({source}) already finished at {done['at']} for {shown}: running it again would test "
            "nothing and repeat its verdict. Leave pts_run_id unset for a new run (a new id for every launch), or "
            "resume only with pts_resume: true (a run that ended with drives still to test); nothing was written")
