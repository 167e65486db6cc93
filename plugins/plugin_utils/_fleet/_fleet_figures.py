# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What the fleet summary shows and judges per drive: the figures' labels and columns, an outlier in words, and the
run's exit status (every reason to fail the run is decided in exit_status).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance


FIGURE_LABELS = {figure: (spec["short"], spec["digits"]) for figure, spec in _headline_figures.FIGURES.items()}
# The PTS-E 1.1 figures, a column each in the drives table (the columns no drive has are left out); PTS 2.0's go in a
# table of their own, a column per test (each report kind's fleet_columns).
PTS1_FIGURES = tuple(f for f, spec in _headline_figures.FIGURES.items() if not spec.get("optional"))


def outlier_text(outlier: dict) -> str:
    label, digits = FIGURE_LABELS[outlier["figure"]]
    if outlier.get("against") == "population":
        # Against every earlier run of its model and firmware in the history (_history/_population.py).
        known = outlier.get("population") or {}
        span = f", {(known.get('from') or '')[:10]} – {(known.get('to') or '')[:10]}" if known.get("from") else ""
        return (f"{label} {outlier['value']:,.{digits}f} is {outlier['deviation_pct']:.0f} % from the fleet's median "
                f"{outlier['median']:,.{digits}f} for {outlier['cohort']} (robust z {outlier['robust_z']:+.1f}; "
                f"{outlier['cohort_size']:,} earlier measurements in {known.get('runs') or 0} run(s){span}, "
                f"{known.get('profile') or 'full'} profile)")
    return (f"{label} {outlier['value']:,.{digits}f} is {outlier['deviation_pct']:.0f} % from its cohort's median "
            f"{outlier['median']:,.{digits}f} (robust z {outlier['robust_z']:+.1f}, {outlier['cohort_size']} drives)")


def exit_status(drives: list[dict], fail_on: list[str], errors: list[dict] | None = None,
                in_progress: int = 0) -> dict:
    """Whether the run's exit status fails, and the line that says why: every reason to fail the run is decided here
    and nowhere else, and ansible-playbook's exit code is this. Never a 0 for a drive that was not tested: a run error
    (a host whose drives were not tested, results not published) and an INCOMPLETE drive always fail the run;
    pts_fleet_fail_on decides about FAIL (and outliers' FAIL). ``in_progress``: hosts still running that fail this
    summary (a summary written from outside the run while it runs: it cannot pass what was not judged yet)."""
    why = []
    if in_progress:
        why.append(f"in progress: {md.plural(in_progress, 'host')} still running, not judged yet (summarize again "
                   "when the run has ended)")
    if errors:
        why.append(f"{md.plural(len(errors), 'run error')} (a host whose drives were not tested, results not "
                   "published)")
    incomplete = [d for d in drives if d["verdict"] == _acceptance.INCOMPLETE]
    if incomplete:
        why.append(f"{md.plural(len(incomplete), 'drive')} INCOMPLETE (not every planned test finished)")
    failing = [d for d in drives if d["verdict"] in fail_on and d["verdict"] != _acceptance.INCOMPLETE]
    if failing:
        why.append(f"{md.plural(len(failing), 'drive')} with a verdict in `pts_fleet_fail_on` ({', '.join(fail_on)})")
    if why:
        return {"failed": True, "line": f"Exit status: **fails** — {'; '.join(why)}."}
    if not fail_on or fail_on == [_acceptance.INCOMPLETE]:
        return {"failed": False, "line": "Exit status: **passes** — every drive finished its tests, and "
                                         "`pts_fleet_fail_on` names no other verdict that fails the run (the verdicts "
                                         "above still stand)."}
    return {"failed": False, "line": f"Exit status: **passes** — every drive finished its tests, and none has a "
                                     f"verdict in `pts_fleet_fail_on` ({', '.join(fail_on)})."}
