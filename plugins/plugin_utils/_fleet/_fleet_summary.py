# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary: every listed drive of every host of one or more runs (or result trees), its verdict,
headline figures and cohort outliers, as fleet.md, fleet.json and junit.xml."""

from __future__ import annotations

import os
from xml.etree import ElementTree

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline, _judge
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html, _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run, _verdicts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare, _history
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

FIGURE_LABELS = {figure: (spec["short"], spec["digits"]) for figure, spec in _headline.FIGURES.items()}
# The PTS-E 1.1 figures, a column each in the drives table (the columns no drive has are left out); PTS 2.0's go in a
# table of their own, a column per test.
PTS1_FIGURES = tuple(f for f, spec in _headline.FIGURES.items() if not spec.get("optional"))
PTS2_COLUMNS = (("cbw", "CBW MaxIOPS (IOPS · ART ms · 99.999 % ms)"),
                ("dirth", "DIRTH MaxIOPS (IOPS · ART ms · 99.999 % ms)"),
                ("xsr", "XSR recovery (min into group 3)"), ("hir", "HIR gain per wait state"))


def fresh(drive_dir: str) -> bool:
    """Is result.json newer than every file it is built from (the host's plan and lost record among them: the
    verdict depends on them)?"""
    result = os.path.join(drive_dir, "result.json")
    if not os.path.exists(result):
        return False
    built = os.path.getmtime(result)
    host_dir = os.path.dirname(drive_dir)
    for name in ("plan.json", "lost.json"):
        if os.path.exists(os.path.join(host_dir, name)) and os.path.getmtime(os.path.join(host_dir, name)) > built:
            return False
    for root, dirs, files in os.walk(drive_dir):
        dirs[:] = [d for d in dirs if d not in ("plots", "superseded")]
        for name in files:
            if name not in _OUTPUTS and os.path.getmtime(os.path.join(root, name)) > built:
                return False
    return True


_OUTPUTS = ("result.json", "report.md", "report.html", "report.pdf")


def drive_model(drive_dir: str, render: bool = True) -> dict:
    """The drive's report model: result.json when it is up to date, else the report is built again."""
    if fresh(drive_dir):
        return _results.read_json(os.path.join(drive_dir, "result.json"))
    if render:
        return _drive_report.write_drive_report(drive_dir)["model"]
    return _drive_report.build_model(drive_dir)


def _drive_time(model: dict) -> float | None:
    """A drive's test time: the sum of its tests' wall times (purge to last round)."""
    walls = [t["wall_s"] for t in (model.get("tests") or {}).values() if t.get("wall_s") is not None]
    return sum(walls) if walls else None


def _tested(model: dict) -> dict | None:
    """When the drive's tests ran: the first test's start and the last one's end (UTC, from the round files)."""
    tests = (model.get("tests") or {}).values()
    starts = [t["started_at"] for t in tests if t.get("started_at")]
    ends = [t["finished_at"] for t in tests if t.get("finished_at")]
    return {"from": min(starts), "to": max(ends)} if starts and ends else None


def _report_link(drive_dir: str) -> str:
    """The drive's report to link: report.html when it was made (one self-contained file), else report.md."""
    page = os.path.join(drive_dir, "report.html")
    return page if os.path.exists(page) else os.path.join(drive_dir, "report.md")


def host_failure(host_dir: str) -> dict | None:
    """Why a host's drives were not tested (host-failure.json: a step before its drive workers failed), or None."""
    path = os.path.join(host_dir, "host-failure.json")
    try:
        record = _results.read_json(path)
    except (OSError, ValueError):
        return None if not os.path.exists(path) else {"msg": f"{path} cannot be read"}
    return record if isinstance(record, dict) else {"msg": f"{path} is not a failure record"}


def collect(run_dirs: list[str], skip: set | None = None) -> list[dict]:
    """One record per listed or identified drive: host, drive, identity, verdict, headline figures, report path.
    Each record carries its per-round series under "_series" for the fleet plots (not written to fleet.json).
    ``skip``: (run directory, host directory name) pairs another live process is still running (a job slice)."""
    records = []
    for run_dir in run_dirs:
        for host in sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else []:
            host_dir = os.path.join(run_dir, host)
            if (run_dir, host) in (skip or set()) or not os.path.isdir(host_dir):
                continue
            recorded = _judge.plan(host_dir)
            if recorded is None and host_failure(host_dir) is None:
                continue
            plan = (recorded or {}).get("plan") or {}
            planned = [t["name"] for t in plan.get("tests") or []]
            host_lost = _judge.lost(host_dir)
            seen_paths = set()
            for drive_dir in sorted(d for d in (os.path.join(host_dir, e) for e in os.listdir(host_dir))
                                    if os.path.exists(os.path.join(d, "drive.json"))):
                model = drive_model(drive_dir)
                drive = model.get("drive") or {}
                seen_paths.add((drive.get("spec") or {}).get("path") or drive.get("path"))
                if model.get("raid_member") and not model.get("tests"):
                    continue  # judged as part of its md array (RAID mode)
                judged = _judge.judge(drive_dir, model, recorded)
                records.append({
                    "id": f"{host}/{os.path.basename(drive_dir)}", "host": host, "drive": os.path.basename(drive_dir),
                    "run": os.path.basename(run_dir), "model": drive.get("model"), "firmware": drive.get("firmware"),
                    "serial": drive.get("serial"), "quick_profile": model.get("quick_profile"),
                    "report": _report_link(drive_dir), "time_s": _drive_time(model),
                    "test_times": {name: t.get("wall_s") for name, t in (model.get("tests") or {}).items()},
                    "tested": _tested(model), "tests_run": list((model.get("tests") or {}).keys()),
                    "maxiops_points": {name: _headline.maxiops_point(model, name) for name in ("cbw", "dirth")
                                       if _headline.maxiops_point(model, name)},
                    "wsat": _headline.wsat_end(model), "_series": _fleet_plots.series(model), **judged,
                })
            seen_names = set(os.listdir(host_dir))
            for spec in plan.get("listed") or []:
                name = _results.safe_name(spec.get("name") or spec.get("serial") or spec.get("wwn")
                                          or os.path.basename(spec.get("path") or "unnamed"))
                # A drive listed by serial or WWN alone has a results directory named after it, but no listed path.
                if (spec.get("path") and spec["path"] in seen_paths) or name in seen_names:
                    continue
                judged = _verdicts.verdict(None, planned, None, lost=host_lost)
                records.append({"id": f"{host}/{name}", "host": host, "drive": name, "run": os.path.basename(run_dir),
                                "model": None, "firmware": None, "serial": spec.get("serial"), "report": None,
                                "time_s": None, "test_times": {}, "tested": None, "tests_run": [],
                                "maxiops_points": {}, "wsat": None, "_series": {},
                                "headline": dict.fromkeys(_verdicts.HEADLINES), **judged})
    return records


def run_errors(run_dirs: list[str], skip: set | None = None) -> list[dict]:
    """The hosts whose drives were not tested because a step before their drive workers failed (install, identity,
    the guard, RAID, the plan): each fails the run, whatever pts_fleet_fail_on says."""
    errors = []
    for run_dir in run_dirs:
        for host in sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else []:
            failure = host_failure(os.path.join(run_dir, host))
            if failure is not None and (run_dir, host) not in (skip or set()):
                errors.append({"host": str(failure.get("host") or host), "task": failure.get("task"),
                               "msg": str(failure.get("msg") or "failed"), "recorded_at": failure.get("recorded_at")})
    return errors


def summarize(run_dirs: list[str], out_dir: str, settings: dict | None = None, in_progress: list[dict] | None = None,
              errors: list[dict] | None = None) -> dict:
    """Judge every drive and write fleet.md, fleet.json and junit.xml. The fleet settings (fail_on,
    outlier_robust_z, outlier_min_deviation_pct, outlier_min_cohort, outliers_fail) are the ones the runs' plans
    recorded (_run.recorded_fleet_settings), each replaced by ``settings``' where that gives one: a summary written
    without the playbook's judging play judges as the run was told to.

    ``in_progress``: hosts another live ansible-playbook still runs (``{"run_dir", "host", "by"}``, a job slice that
    shares the run): listed, neither judged nor counted; the last slice to finish judges them all. ``errors``: run errors
    found after the drives (a publishing that failed), each ``{"host", "task", "msg"}``; like a host not tested, each
    fails the run."""
    busy = {(entry["run_dir"], entry["host"]) for entry in in_progress or []}
    chosen = dict(_run.recorded_fleet_settings(run_dirs),
                  **{k: v for k, v in (settings or {}).items() if v is not None})
    fail_on, outlier_threshold = chosen["fail_on"], float(chosen["outlier_robust_z"])
    outlier_min_deviation_pct = float(chosen["outlier_min_deviation_pct"])
    outlier_min_cohort, outliers_fail = int(chosen["outlier_min_cohort"]), bool(chosen["outliers_fail"])
    records = collect(run_dirs, busy)
    given = [{"host": str(e.get("host") or ""), "task": e.get("task"), "msg": str(e.get("msg") or "failed")}
             for e in errors or []]
    errors = run_errors(run_dirs, busy) + given
    flagged = _verdicts.cohort_outliers([r for r in records if r.get("model")], outlier_threshold,
                                        outlier_min_deviation_pct, outlier_min_cohort)
    for record in records:
        record["outliers"] = flagged.get(record["id"], [])
        if record["outliers"] and outliers_fail and record["verdict"] == _verdicts.PASS:
            record["verdict"] = _verdicts.FAIL
            record["label"] = _verdicts.label(_verdicts.FAIL, bool(record.get("quick_profile")))
            record["reasons"] = [_outlier_text(o) for o in record["outliers"]]
    counts = {v: sum(1 for r in records if r["verdict"] == v) for v in _verdicts.VERDICTS}
    summary = {
        "schema": _results.SCHEMA, "runs": [os.path.basename(d) for d in run_dirs], "generated_at": _results.now_iso(),
        "counts": counts, "fail_on": fail_on, "errors": errors,
        "failed": exit_status(records, fail_on, errors)["failed"],
        "in_progress": [{"host": e["host"], "run": os.path.basename(e["run_dir"]), "by": e.get("by")}
                        for e in in_progress or []],
        "outlier_settings": {"robust_z": outlier_threshold, "min_deviation_pct": outlier_min_deviation_pct,
                             "min_cohort": outlier_min_cohort, "fail": outliers_fail},
        "drives": [dict({k: v for k, v in r.items() if k != "_series"},
                        report=os.path.relpath(r["report"], out_dir) if r["report"] else None) for r in records],
    }
    os.makedirs(out_dir, exist_ok=True)
    plots = _cohort_plots(summary, out_dir)
    models = _fleet_plots.by_model(records, out_dir, summary["runs"]) if _plots.available() else {}
    formats = _drive_report.formats_from_env()
    outputs = {"not_produced": _html.not_produced(formats)}
    outputs["not_produced"].update({k: "not asked for (PTS_REPORT_FORMATS)" for k in _drive_report.FORMATS if k not in formats})
    summary["outputs"] = outputs
    _results.atomic_write_json(os.path.join(out_dir, "fleet.json"), summary)
    fleet_md = os.path.join(out_dir, "fleet.md")
    _results.atomic_write_text(fleet_md, render_markdown(summary, plots, models))
    _results.atomic_write_text(os.path.join(out_dir, "junit.xml"), render_junit(summary))
    if "html" not in outputs["not_produced"]:
        made = _html.write(fleet_md, "Fleet summary — " + ", ".join(summary["runs"]), pdf="pdf" in formats,
                           footer=_footer(summary))
        made["not_produced"] = dict(outputs["not_produced"], **made["not_produced"])
        summary["outputs"] = {"html": made["html"] and os.path.basename(made["html"]),
                              "pdf": made["pdf"] and os.path.basename(made["pdf"]), "not_produced": made["not_produced"]}
        if made["not_produced"] != outputs["not_produced"]:
            _results.atomic_write_json(os.path.join(out_dir, "fleet.json"), summary)
    # The history index beside the runs (playbooks/compare.yml reads it), from the files just written; its failure
    # is said in summary["history"], never the summary's.
    summary["history"] = _history.after_summary(run_dirs, os.path.join(out_dir, "fleet.json"))
    # Then each drive report's history comparison: its model's drives in this run against the run that tested that
    # model and firmware last before it (the link is in the report already; here its page is written).
    if not summary["history"].get("error"):
        summary["history"]["comparisons"] = _compare.previous_comparisons(run_dirs)
    return summary


def _footer(summary: dict) -> str:
    """fleet.pdf's running footer: the runs, the drives and when they were tested."""
    tested = [d["tested"] for d in summary["drives"] if d.get("tested")]
    when = f" · tested {min(t['from'] for t in tested)[:10]} – {max(t['to'] for t in tested)[:10]}" if tested else ""
    return f"Fleet summary · run {', '.join(summary['runs'])} · {md.plural(len(summary['drives']), 'drive')}{when}"


def _outlier_text(outlier: dict) -> str:
    label, digits = FIGURE_LABELS[outlier["figure"]]
    return (f"{label} {outlier['value']:,.{digits}f} is {outlier['deviation_pct']:.0f} % from its cohort's median "
            f"{outlier['median']:,.{digits}f} (robust z {outlier['robust_z']:+.1f}, {outlier['cohort_size']} drives)")


def _cohort_plots(summary: dict, out_dir: str) -> dict:
    if not _plots.available():
        return {}
    cohorts: dict[str, list[dict]] = {}
    for drive in summary["drives"]:
        if drive.get("model"):
            cohorts.setdefault(f"{drive['model']} / {drive.get('firmware') or '?'}", []).append(drive)
    paths = {}
    for index, (name, drives) in enumerate(sorted(cohorts.items()), 1):
        if len(drives) < 2:
            continue
        panels = []
        for figure, (label, dummy) in FIGURE_LABELS.items():
            points = [(d["id"], d["headline"][figure], any(o["figure"] == figure for o in d["outliers"]))
                      for d in drives if d["headline"].get(figure) is not None]
            if points:
                panels.append((label, points))
        if panels:
            path = os.path.join(out_dir, "plots", f"cohort-{index:02d}.png")
            title = md.plot_label(f"Cohort {name}: {len(drives)} drive(s)")
            paths[name] = os.path.relpath(_charts.cohort(path, title, panels), out_dir)
    return paths


def exit_status(drives: list[dict], fail_on: list[str], errors: list[dict] | None = None) -> dict:
    """Whether the run's exit status fails, and the line that says why: every reason to fail the run is decided here
    and nowhere else, and ansible-playbook's exit code is this. Never a 0 for a drive that was not tested: a run error
    (a host whose drives were not tested, results not published) and an INCOMPLETE drive always fail the run;
    pts_fleet_fail_on decides about FAIL (and outliers' FAIL)."""
    why = []
    if errors:
        why.append(f"{md.plural(len(errors), 'run error')} (a host whose drives were not tested, results not "
                   "published)")
    incomplete = [d for d in drives if d["verdict"] == _verdicts.INCOMPLETE]
    if incomplete:
        why.append(f"{md.plural(len(incomplete), 'drive')} INCOMPLETE (not every planned test finished)")
    failing = [d for d in drives if d["verdict"] in fail_on and d["verdict"] != _verdicts.INCOMPLETE]
    if failing:
        why.append(f"{md.plural(len(failing), 'drive')} with a verdict in `pts_fleet_fail_on` ({', '.join(fail_on)})")
    if why:
        return {"failed": True, "line": f"Exit status: **fails** — {'; '.join(why)}."}
    if not fail_on or fail_on == [_verdicts.INCOMPLETE]:
        return {"failed": False, "line": "Exit status: **passes** — every drive finished its tests, and "
                                         "`pts_fleet_fail_on` names no other verdict that fails the run (the verdicts "
                                         "above still stand)."}
    return {"failed": False, "line": f"Exit status: **passes** — every drive finished its tests, and none has a "
                                     f"verdict in `pts_fleet_fail_on` ({', '.join(fail_on)})."}


def _exit_line(summary: dict) -> str:
    return exit_status(summary["drives"], summary["fail_on"], summary.get("errors"))["line"]


def _errors_lines(summary: dict) -> list[str]:
    lines = []
    if summary.get("errors"):
        lines += ["## Run errors", ""]
        lines += [f"- **{md.text(e['host'])}**: {md.text(e.get('task') or 'a step')} failed — {md.text(e['msg'])}"
                  for e in summary["errors"]]
        lines.append("")
    if summary.get("in_progress"):
        lines += ["## Still running", "",
                  "Hosts of this run that another ansible-playbook (a job slice) is still testing: not judged here; the "
                  "last slice to finish, or `playbooks/fleet_summary.yml` afterwards, judges them.", ""]
        lines += [f"- **{md.text(e['host'])}** ({md.text(e['run'])}): {md.text(e.get('by') or 'another process')}"
                  for e in summary["in_progress"]]
        lines.append("")
    return lines


def _counts_line(summary: dict) -> str:
    drives = summary["drives"]
    parts = []
    for verdict in _verdicts.VERDICTS:
        quick = sum(1 for d in drives if d["verdict"] == verdict and d.get("quick_profile"))
        full = sum(1 for d in drives if d["verdict"] == verdict and not d.get("quick_profile"))
        if full or not quick:
            parts.append(f"{full} {verdict}")
        if quick:
            parts.append(f"{quick} {_verdicts.label(verdict, True)}")
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
    unruled = [d for d in identified if not d.get("rule")]
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


def _pts2_cell(drive: dict, test: str) -> str:
    """A PTS 2.0 test's key figures of one drive in fleet.md's table; italic when its test was not steady."""
    figures = drive.get("headline") or {}
    steady = drive.get("headline_steady") or {}
    if test not in (drive.get("tests_run") or []):
        return md.DASH
    if test in ("cbw", "dirth"):
        iops = figures.get(f"{test}_max_iops")
        if iops is None:
            return "not measured"
        point = (drive.get("maxiops_points") or {}).get(test)
        text = " · ".join(md.fmt(float(v), digits) if v is not None else md.DASH for v, digits in (
            (iops, 0), (figures.get(f"{test}_max_art_ms"), 3), (figures.get(f"{test}_max_p99999_ms"), 3)))
        text += f" ({md.text(point)})" if point else ""
        return text if steady.get(f"{test}_max_iops") else f"*{text}*"
    if test == "xsr":
        minutes = figures.get("xsr_recovery_min")
        return md.fmt(float(minutes), 1) if minutes is not None else "not recovered"
    measured = [f"hir_gain_ws{state}" for state in _headline.HIR_WAIT_STATES
                if figures.get(f"hir_gain_ws{state}") is not None]
    if not measured:
        return "not measured"
    text = " · ".join(f"WS{figure[len('hir_gain_ws'):]} ×{figures[figure]:.2f}" for figure in measured)
    # Every wait state's gain is over the same preconditioning: steady or not together.
    return text if steady.get(measured[0]) else f"*{text}*"


def _pts2_table(summary: dict) -> list[str]:
    columns = [(test, header) for test, header in PTS2_COLUMNS
               if any(test in (d.get("tests_run") or []) for d in summary["drives"])]
    if not columns:
        return []
    drives = [d for d in summary["drives"] if any(t in (d.get("tests_run") or []) for t, dummy in columns)]
    rows = [[md.text(d["host"]), md.text(d["drive"])] + [_pts2_cell(d, test) for test, dummy in columns] for d in drives]
    return (["## PTS 2.0 tests", "",
             "Each test's key figures: CBW's and DIRTH's MaxIOPS point as measured after its pre-write (IOPS, mean "
             "response time, the 99.999 % of all its IOs from fio's histogram; the point's TC/QD), XSR's recovery "
             "(minutes into group 3 until its throughput is back at group 1's mean less the tolerance) and HIR's gain "
             "per wait state (mean burst IOPS ÷ the preconditioning's window average). *Italic*: from a test that was "
             "not steady.", ""]
            + md.table(["Host", "Drive"] + [header for dummy, header in columns], rows, numeric=False) + [""])


def render_markdown(summary: dict, plots: dict, models: dict | None = None) -> str:
    lines = [f"# Fleet summary — {', '.join(md.text(r) for r in summary['runs'])}", "",
             _counts_line(summary) + " " + _exit_line(summary), ""]
    lines += _dates_line(summary)
    lines += _quick_line(summary) + _outputs_lines(summary) + _errors_lines(summary)
    lines += _rules_line(summary)
    # The PTS-E 1.1 figure columns some drive has (a PTS 2.0 run alone has none of them).
    figures = [f for f in PTS1_FIGURES if any((d.get("headline") or {}).get(f) is not None for d in summary["drives"])]
    saturated = any(d.get("wsat") for d in summary["drives"])
    headers = ["Host", "Drive", "Serial", "Model", "Firmware", "Verdict"] + \
        [FIGURE_LABELS[f][0] for f in figures] + (["Write saturation"] if saturated else []) + ["Test time", "Report"]
    rows = []
    for drive in summary["drives"]:
        verdict = f"**{drive.get('label') or drive['verdict']}**" + (" ⚑" if drive["outliers"] else "")
        cells = [_figure_cell(drive, f) for f in figures]
        link = f"[report]({drive['report']})" if drive["report"] else md.DASH
        wsat = drive.get("wsat")
        wsat_cell = md.DASH if not wsat else md.text(
            f"{wsat['status']}, {wsat['capacity_written']:.2f} ×" if wsat.get("capacity_written") is not None
            else wsat["status"])
        rows.append([md.text(drive["host"]), md.text(drive["drive"]), md.text(drive.get("serial") or None),
                     md.text(drive.get("model") or None), md.text(drive.get("firmware") or None), verdict] + cells
                    + ([wsat_cell] if saturated else []) + [_headline.duration(drive.get("time_s")), link])
    lines += md.table(headers, rows, numeric=False)
    lines += ["", ("Figures are measurement-window averages (MB/s = 10⁶ bytes/s); *italic* ones come from a window that "
                   "was not steady (the test stopped, failed or reached its round limit). " if figures else "")
              + "⚑ marks a cohort outlier. "
              + (f"\\* p99.99: {_headline.P9999_NOTE}. " if "latency_4k_write_p9999_ms" in figures else "")
              + ("Write saturation: how it ended and the user capacity written (× capacity). " if saturated else "")
              + "Test time: the drive's tests' wall times added up.", ""]
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
    outliers = [d for d in summary["drives"] if d["outliers"]]
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
            lines.append(f"- ⚑ **{md.text(drive['id'])}**: {md.text(_outlier_text(outlier))}")
    if outliers:
        lines.append("")
    for name, path in plots.items():
        lines += md.image(path, f"Cohort {name}: every drive's figure, the cohort median, outliers in red.")
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
                          and (d.get("headline_steady") or {}).get(f, True)) for f in _verdicts.HEADLINES), default=0)
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
        return md.DASH
    text = md.fmt(float(value), FIGURE_LABELS[figure][1])
    return text if (drive.get("headline_steady") or {}).get(figure) else f"*{text}*"


def _case(suite, classname: str, name: str, passed: bool | None, text: str, seconds: float | None):
    """A test case: passed (system-out), failed (failure) or not judged (error: it did not finish)."""
    case = ElementTree.SubElement(suite, "testcase", classname=classname, name=name,
                                  time=f"{seconds:.3f}" if seconds is not None else "0")
    if passed is None:
        ElementTree.SubElement(case, "error", message=text).text = text
    elif not passed:
        ElementTree.SubElement(case, "failure", message=text).text = text
    else:
        ElementTree.SubElement(case, "system-out").text = text
    return case


def render_junit(summary: dict) -> str:
    """One test case per drive and criterion (each PTS test's own - steady state, write saturation - with the test's
    wall time), per cohort outlier, and the drive's verdict with its total test time; the suite's time is the sum."""
    suite = ElementTree.Element("testsuite", name="fleetqual.pts", timestamp=summary["generated_at"])
    counts = {"tests": 0, "failures": 0, "errors": 0}
    total = 0.0
    for drive in summary["drives"]:
        classname = md.plain(f"pts.{drive['host']}.{drive['drive']}")
        times = drive.get("test_times") or {}
        # XML 1.0 cannot carry control characters at all: drive strings reach junit.xml as plain text.
        cases = [(c["criterion"], c["passed"], md.plain(c["text"]), times.get(c.get("test")) if "figure" not in c
                  else None) for c in drive["checks"]]
        cases += [(f"cohort {o['figure']}", not summary["outlier_settings"]["fail"], md.plain(_outlier_text(o)), None)
                  for o in drive["outliers"]]
        label = drive.get("label") or drive["verdict"]
        text = md.plain(f"{label}: " + "; ".join(drive["reasons"]) if drive["reasons"] else label)
        outcome = {"PASS": True, "FAIL": False}.get(drive["verdict"])
        cases.append(("verdict", outcome, text, drive.get("time_s")))
        for name, passed, message, seconds in cases:
            case = _case(suite, classname, name, passed, message, seconds)
            counts["tests"] += 1
            counts["failures"] += passed is False
            counts["errors"] += passed is None
            if name == "verdict" and drive.get("quick_profile"):
                properties = ElementTree.SubElement(case, "properties")
                ElementTree.SubElement(properties, "property", name="profile", value="quick (not a qualification)")
        total += drive.get("time_s") or 0.0
    for error in summary.get("errors") or []:
        # A run error is no drive's: one error case per host (or results host) it concerns.
        _case(suite, md.plain(f"pts.{error['host']}"), md.plain(error.get("task") or "run"), None,
              md.plain(error["msg"]), None)
        counts["tests"] += 1
        counts["errors"] += 1
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{total:.3f}")
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
