# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary in Markdown (fleet.md): the exit line, counts, errors, the drives and PTS 2.0 tables, the cohorts and
outliers.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._latency import P9999_NOTE
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_history_md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_figures import (
    FIGURE_LABELS, PTS1_FIGURES, exit_status, outlier_text)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_requirements


def _exit_line(summary: dict) -> str:
    running = len(summary.get("in_progress") or []) if summary.get("in_progress_fails") else 0
    return exit_status(summary["drives"], summary["fail_on"], summary.get("errors"), running)["line"]


def _errors_lines(summary: dict) -> list[str]:
    lines = []
    if summary.get("errors"):
        lines += ["## Run errors", ""]
        lines += [f"- **{md.text(e['host'])}**: {md.text(e.get('task') or 'a step')} failed — {md.text(e['msg'])}"
                  for e in summary["errors"]]
        lines.append("")
    if summary.get("in_progress"):
        lines += ["## Still running", "",
                  "Hosts of this run that another ansible-playbook is still testing: not judged here; " + (
                      "this summary was written from outside the run while it runs, so its exit status fails (in "
                      "progress): summarize again when the run has ended." if summary.get("in_progress_fails") else
                      "the last slice of the run to finish, or `playbooks/fleet_summary.yml` afterwards, judges "
                      "them."), ""]
        lines += [f"- **{md.text(e['host'])}** ({md.text(e['run'])}): {md.text(e.get('by') or 'another process')}"
                  for e in summary["in_progress"]]
        lines.append("")
    return lines


def _counts_line(summary: dict) -> str:
    drives = summary["drives"]
    parts = []
    for verdict in _acceptance.VERDICTS:
        quick = sum(1 for d in drives if d["verdict"] == verdict and d.get("quick_profile"))
        full = sum(1 for d in drives if d["verdict"] == verdict and not d.get("quick_profile"))
        if full or not quick:
            parts.append(f"{full} {verdict}")
        if quick:
            parts.append(f"{quick} {_acceptance.label(verdict, True)}")
    return f"**{' · '.join(parts)}** of {md.plural(len(drives), 'drive')}."


def _quick_line(summary: dict) -> list[str]:
    drives = summary["drives"]
    quick = sum(1 for d in drives if d.get("quick_profile"))
    if not quick:
        return []
    who = "every drive" if quick == len(drives) else f"{quick} of {len(drives)} drives"
    return [f"> **Quick profile — not a qualification**: {who} ran the quick profile (seconds per run, a few "
            "rounds). Their verdicts say whether the harness works, not whether a drive qualifies.", ""]


def _outputs_lines(summary: dict) -> list[str]:
    missing = (summary.get("outputs") or {}).get("not_produced") or {}
    made = [f"[fleet.{kind}](fleet.{kind})" for kind in ("html", "pdf") if kind not in missing]
    lines = [f"This summary: [fleet.md](fleet.md) · {' · '.join(made)}."] if made else []
    lines += [f"> **fleet.{kind} was not produced**: {md.text(reason)}" for kind, reason in missing.items()]
    return lines + [""] if lines else []


def _dates_line(summary: dict) -> list[str]:
    """When the drives were tested (UTC, from their round files)."""
    tested = [d["tested"] for d in summary["drives"] if d.get("tested")]
    if not tested:
        return ["Tested: no drive finished a round.", ""]
    first, last = min(t["from"] for t in tested), max(t["to"] for t in tested)
    return [f"Tested {first[:16].replace('T', ' ')} – {last[:16].replace('T', ' ')} UTC (the first test's purge to the "
            "last round, over every drive).", ""]


def _rules_line(summary: dict) -> list[str]:
    """Which drives no acceptance rule (pts_acceptance) matched: they are judged on their tests alone."""
    identified = [d for d in summary["drives"] if d.get("model")]
    # A drive an acceptance specification file applies to is judged against it, rule or not.
    unruled = [d for d in identified if not d.get("rule") and not d.get("specs")]
    if not unruled:
        return []
    models = ", ".join(sorted({md.text(d["model"]) for d in unruled}))
    if len(unruled) == len(identified):
        return [f"No acceptance rule matched: no drive's model and firmware matches a rule of `pts_acceptance` "
                f"({models}); every drive is judged on its tests alone (each finished, steady where the PTS asks "
                "for it).", ""]
    return [f"No acceptance rule matched {md.plural(len(unruled), 'drive')} of {len(identified)} ({models}): "
            f"{'they are' if len(unruled) > 1 else 'it is'} judged on the tests alone (each finished, steady where "
            "the PTS asks for it).", ""]


def _columns(table: str) -> list:
    """The report kinds' columns of one of fleet.md's tables (ReportKind.fleet_columns), in the kinds' order."""
    return [column for kind in _kinds.KINDS.values() for column in kind.fleet_columns if column.table == table]


def _pts2_cell(drive: dict, column) -> str:
    if column.test not in (drive.get("tests_run") or []):
        return md.DASH
    return column.cell(drive, column.test)


def _pts2_table(summary: dict) -> list[str]:
    every = _columns("pts2")
    columns = [c for c in every if any(c.test in (d.get("tests_run") or []) for d in summary["drives"])]
    if not columns:
        return []
    drives = [d for d in summary["drives"] if any(c.test in (d.get("tests_run") or []) for c in columns)]
    rows = [[md.text(d["host"]), md.text(d["drive"])] + [_pts2_cell(d, c) for c in columns] for d in drives]
    notes = [c.note for c in every if c.note]
    return (["## PTS 2.0 tests", "",
             f"Each test's key figures: {', '.join(notes[:-1])} and {notes[-1]}. *Italic*: from a test that was "
             "not steady. n/r: measured but not resolved - a percentile its IOs are too few for, a wait state whose "
             "bursts did not keep their schedule (the drive's report says why).", ""]
            + md.table(["Host", "Drive"] + [c.header for c in columns], rows, numeric=False) + [""])


def render_markdown(summary: dict, plots: dict, models: dict | None = None) -> str:
    lines = [f"# Fleet summary — {', '.join(md.text(r) for r in summary['runs'])}", "",
             _counts_line(summary) + " " + _exit_line(summary), ""]
    lines += _dates_line(summary)
    lines += _quick_line(summary) + _outputs_lines(summary) + _errors_lines(summary)
    lines += _rules_line(summary)
    # The PTS-E 1.1 figure columns some drive has (a PTS 2.0 run alone has none of them).
    figures = [f for f in PTS1_FIGURES if any((d.get("headline") or {}).get(f) is not None for d in summary["drives"])]
    # The report kinds' own columns some drive has (write saturation's end).
    extra = [c for c in _columns("drives") if any(d.get(c.key) for d in summary["drives"])]
    headers = ["Host", "Drive", "Serial", "Model", "Firmware", "Verdict"] + \
        [FIGURE_LABELS[f][0] for f in figures] + [c.header for c in extra] + ["Test time", "Report"]
    rows = []
    for drive in summary["drives"]:
        verdict = f"**{drive.get('label') or drive['verdict']}**" + (" ⚑" if drive["outliers"] else "")
        cells = [_figure_cell(drive, f) for f in figures]
        link = f"[report]({drive['report']})" if drive["report"] else md.DASH
        rows.append([md.text(drive["host"]), md.text(drive["drive"]), md.text(drive.get("serial") or None),
                     md.text(drive.get("model") or None), md.text(drive.get("firmware") or None), verdict] + cells
                    + [c.cell(drive, c.test) for c in extra] + [_headline_figures.duration(drive.get("time_s")), link])
    lines += md.table(headers, rows, numeric=False)
    lines += ["", ("Figures are measurement-window averages (MB/s = 10⁶ bytes/s); *italic* ones come from a window that "
                   "was not steady (the test stopped, failed or reached its round limit). " if figures else "")
              + "⚑ marks an outlier against its cohort or the fleet's earlier runs (History). "
              + ("n/r: measured but not resolved (too few IOs for the percentile; the drive's report says how many). "
                 if any(f in (d.get("unresolved") or {}) for d in summary["drives"] for f in figures) else "")
              + (f"\\* p99.99: {P9999_NOTE}. " if "latency_4k_write_p9999_ms" in figures else "")
              + "".join(c.note for c in extra)
              + "Test time: the drive's tests' wall times added up.", ""]
    lines += _fleet_requirements.section(summary)
    lines += _pts2_table(summary)
    problems = [d for d in summary["drives"] if d["verdict"] != "PASS"]
    if problems:
        lines += ["## Why not PASS", ""]
        for drive in problems:
            lines.append(f"- **{md.text(drive['id'])}** {md.text(drive.get('label') or drive['verdict'])}: "
                         + "; ".join(md.text(r) for r in drive["reasons"]))
        lines.append("")
    if models:
        lines += ["## Drives by model", "",
                  "Every drive of a model on one plot per headline figure: the IOPS, throughput and latency DVs round "
                  "by round, and write saturation's IOPS against the capacity written. Round 1's reads of a drive "
                  "purged just before them (no WIPC) are drawn hollow, out of the scale (▲ on the frame: above it).",
                  ""]
        for name, path in models.items():
            lines += md.image(path, f"Model {name}: each drive's DV per round, one colour per drive.")
    # Outliers against the population (the fleet's earlier runs) are listed under History.
    outliers = [d for d in summary["drives"] if any(o.get("against") != "population" for o in d["outliers"])]
    settings = summary["outlier_settings"]
    lines += ["## Cohorts", "",
              f"Drives of one model and firmware are compared with their cohort's median: a figure is flagged when "
              f"its robust z-score (0.6745 × deviation / median absolute deviation) exceeds {settings['robust_z']:g} "
              f"and it is more than {settings['min_deviation_pct']:g} % from the median, in cohorts of at least "
              f"{settings['min_cohort']} drives. Outliers {'fail' if settings['fail'] else 'are flagged, not failed'}.",
              ""]
    lines += _cohort_sizes(summary)
    for drive in outliers:
        for outlier in drive["outliers"]:
            if outlier.get("against") != "population":
                lines.append(f"- ⚑ **{md.text(drive['id'])}**: {md.text(outlier_text(outlier))}")
    if outliers:
        lines.append("")
    for name, path in plots.items():
        lines += md.image(path, f"Cohort {name}: every drive's figure, the cohort median, outliers in red.")
    lines += _fleet_history_md.lines(summary)
    return "\n".join(lines).rstrip() + "\n"


def _cohort_sizes(summary: dict) -> list[str]:
    """How big the cohorts were, and that none was compared when none had enough drives with a steady figure."""
    settings = summary["outlier_settings"]
    cohorts: dict = {}
    for drive in summary["drives"]:
        if drive.get("model"):
            cohorts.setdefault((drive["model"], drive.get("firmware")), []).append(drive)
    compared = []
    for key, drives in cohorts.items():
        steady = max((sum(1 for d in drives if (d.get("headline") or {}).get(f) is not None
                          and (d.get("headline_steady") or {}).get(f, True)) for f in _acceptance.HEADLINES), default=0)
        if steady >= settings["min_cohort"]:
            compared.append(key)
    sizes = ", ".join(f"{md.text(model)} / {md.text(firmware or '—')}: {md.plural(len(drives), 'drive')}"
                      for (model, firmware), drives in sorted(cohorts.items(), key=lambda item: str(item[0])))
    if not cohorts:
        return ["No drive reported a model: there is no cohort to compare.", ""]
    if not compared:
        return [f"**No cohort was compared**: none had {settings['min_cohort']} drives or more with a steady figure "
                f"(`pts_fleet_outlier_min_cohort`). Cohorts: {sizes}.", ""]
    return [f"Cohorts: {sizes}; compared: {len(compared)} of {len(cohorts)}.", ""]


def _figure_cell(drive: dict, figure: str) -> str:
    value = drive["headline"].get(figure)
    if value is None:
        # Measured but not resolved (too few IOs for the percentile): n/r, as the drive's report says.
        return "n/r" if figure in (drive.get("unresolved") or {}) else md.DASH
    text = md.fmt(float(value), FIGURE_LABELS[figure][1])
    return text if (drive.get("headline_steady") or {}).get(figure) else f"*{text}*"
