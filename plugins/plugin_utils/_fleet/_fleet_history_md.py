# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""fleet.md's History: whether this run was written into the history (and why not), the comparison with each model's
previous run, and each model and firmware of the run against every earlier run of it - the population's size and
dates, its median and 5th to 95th percentiles beside this run's drives - with the drives that are outliers against it."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_history
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_figures import outlier_text
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md


def _written_lines(summary: dict) -> list[str]:
    history = summary.get("history") or {}
    where = ", ".join(md.code(d) for d in history.get("databases") or []) or "the history"
    if history.get("written"):
        return [f"This run was written into the history {where} ({md.plural(int(history.get('rows') or 0), 'row')}): "
                "`playbooks/compare.yml` and later runs compare with it.", ""]
    if history.get("error"):
        return [f"**This run was not written into the history** {where}: {md.text(history['error'])}. Its results "
                "are on disk and its verdicts stand; `playbooks/report.yml` (with the same `pts_history_url`) writes "
                "it into the history later.", ""]
    return []


def _comparison_lines(summary: dict) -> list[str]:
    found = (summary.get("history") or {}).get("comparisons") or []
    if not found:
        return []
    lines = ["Each model's drives against the run that tested the model and firmware last before this one:", ""]
    for entry in found:
        if entry.get("error"):
            lines.append(f"- {md.text(entry['comparison'])}: not written - {md.text(entry['error'])}")
            continue
        counts = entry.get("counts") or {}
        lines.append(f"- [{md.text(entry['comparison'])}]({entry['link']}): " + ", ".join(
            f"{counts.get(v, 0)} {v}" for v in ("REGRESSION", "IMPROVEMENT", "SAME", "NOT COMPARED")))
    return lines + [""]


def _cohort_lines(cohort: dict) -> list[str]:
    head = (f"### {md.text(cohort['model'])} / {md.text(cohort.get('firmware') or None)}, {cohort['profile']} profile: "
            f"{md.plural(int(cohort.get('runs') or 0), 'earlier run')}, {md.day(cohort.get('from'))} – "
            f"{md.day(cohort.get('to'))}")
    rows = []
    for entry in cohort["figures"]:
        spec = _headline_figures.FIGURES[entry["figure"]]
        digits = spec["digits"]
        rows.append([md.text(f"{spec['label']} ({spec['unit']})"), entry["better"], f"{entry['n']:,}",
                     md.fmt(float(entry["median"]), digits),
                     f"{md.fmt(float(entry['p5']), digits)} – {md.fmt(float(entry['p95']), digits)}",
                     md.DASH if entry.get("spread_pct") is None else f"{entry['spread_pct']:.1f} %",
                     md.DASH if entry["run_median"] is None else md.fmt(float(entry["run_median"]), digits),
                     f"{entry['worse_than_fifth']} of {entry['drives']}"])
    return [head, ""] + md.table(["Headline figure", "Better", "Population", "Median", "5th – 95th percentile",
                                  "Spread", "This run's median", "Worse than the fleet's 5th percentile"],
                                 rows, numeric=False) + [""]


def lines(summary: dict) -> list[str]:
    """The History section of fleet.md."""
    out = ["## History", ""] + _written_lines(summary) + _comparison_lines(summary)
    drives = summary["drives"]
    cohorts = _fleet_history.cohorts(drives)
    unread = _fleet_history.unread(drives)
    with_model = [d for d in drives if d.get("model")]
    if cohorts:
        out += ["Against the fleet's memory: each model and firmware of this run beside every earlier run of it in the "
                "history (its population: each drive of each earlier run once, final values only; quick-profile runs "
                "never count in a population of full ones, nor full ones in a quick one's). The fleet's 5th "
                "percentile is counted from the worse end (the 95th of a latency).", ""]
        for cohort in cohorts:
            out += _cohort_lines(cohort)
    elif with_model and not unread:
        out += ["Against the fleet's memory: no earlier run of this run's models and firmware in the history.", ""]
    for why, ids in unread.items():
        out += [f"The history could not be read when {md.plural(len(ids), 'drive')}' reports were drawn "
                f"({', '.join(md.text(i) for i in ids[:10])}{' …' if len(ids) > 10 else ''}): {md.text(why)}. "
                "`playbooks/report.yml` draws them again.", ""]
    flagged = [(d, o) for d in drives for o in d.get("outliers") or [] if o.get("against") == "population"]
    if flagged:
        settings = summary.get("outlier_settings") or {}
        out += [f"Outliers against their population (robust z-score beyond {settings.get('robust_z', 3.5):g} and more "
                f"than {settings.get('min_deviation_pct', 10.0):g} % from its median, in populations of at least "
                f"{settings.get('min_cohort', 3)}; they "
                f"{'fail' if settings.get('fail') else 'are flagged, not failed'}):", ""]
        out += [f"- ⚑ **{md.text(d['id'])}**: {md.text(outlier_text(o))}" for d, o in flagged] + [""]
    return out
