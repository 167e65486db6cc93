# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary: every listed drive of every host of one or more runs (or result trees), its verdict,
headline figures and cohort outliers, as fleet.md, fleet.json and junit.xml."""

from __future__ import annotations

import os
import stat

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _drive_verdict
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html, _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run, _acceptance, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _result_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_history
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_figures import (
    FIGURE_LABELS, exit_status, outlier_text)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_junit import render_junit
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_md import render_markdown
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _pass_rates


def fresh(drive_dir: str) -> bool:
    """Is result.json a regular file newer than every file it is built from (the host's plan and lost record among
    them: the verdict depends on them)?"""
    found = _safe_tree.lstat(os.path.join(drive_dir, "result.json"))
    if found is None or not stat.S_ISREG(found.st_mode):
        return False
    built = found.st_mtime
    host_dir = os.path.dirname(drive_dir)
    for name in ("plan.json", "lost.json"):
        other = _safe_tree.lstat(os.path.join(host_dir, name))
        if other is not None and other.st_mtime > built:
            return False
    for dummy, name, st in _safe_tree.walk_files(drive_dir, skip=("plots", "superseded")):
        if name not in _OUTPUTS and st.st_mtime > built:
            return False
    return True


_OUTPUTS = ("result.json", "report.md", "report.html", "report.pdf")


def drive_model(drive_dir: str, render: bool = True, history=None) -> dict:
    """The drive's report model: result.json when it is up to date, else the report is built again (reading the
    history ``history`` names: plugin_utils/_history/_location.Spec)."""
    if fresh(drive_dir):
        path = os.path.join(drive_dir, "result.json")
        try:
            return _result_files.check_result(_results.read_json(path), path)
        except _safe_tree.BadFile:
            pass  # not the result.json the report writes (a field of another type, too large, too deep): built again
    if render:
        return _drive_report.write_drive_report(drive_dir, history=history)["model"]
    return _drive_report.build_model(drive_dir, history)


def kept_for_the_fleet(model: dict) -> dict:
    """What each report kind keeps of a drive for the fleet summary (ReportKind.fleet_record: write saturation's end,
    CBW's and DIRTH's MaxIOPS points); from an empty model, a drive without results."""
    kept: dict = {}
    for kind in _kinds.KINDS.values():
        kept.update(kind.fleet_record(model))
    return kept


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
    return page if _safe_tree.exists(page) else os.path.join(drive_dir, "report.md")


def host_failure(host_dir: str) -> dict | None:
    """Why a host's drives were not tested (host-failure.json: a step before its drive workers failed), or None."""
    path = os.path.join(host_dir, "host-failure.json")
    try:
        record = _results.read_json(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return {"msg": f"its failure record cannot be read: {exc}"}
    return record


def collect(run_dirs: list[str], skip: set | None = None, history=None) -> list[dict]:
    """One record per listed or identified drive: host, drive, identity, verdict, headline figures, report path.
    Each record carries its per-round series under "_series" for the fleet plots (not written to fleet.json).
    ``skip``: (run directory, host directory name) pairs another live process is still running (a job slice)."""
    records = []
    for run_dir in run_dirs:
        for host in _safe_tree.subdirs(run_dir):
            host_dir = os.path.join(run_dir, host)
            if (run_dir, host) in (skip or set()) or _host_unreadable(host_dir):
                continue  # a host directory that cannot be read at all is a run error (run_errors)
            try:
                recorded = _drive_verdict.plan(host_dir)
            except (OSError, _safe_tree.BadFile) as exc:
                # The host's plan cannot be read: each of its drives is named with why, none judged without it.
                records += [_unreadable(run_dir, host, d, None, exc) for d in _results.drive_dirs_of_host(host_dir)]
                continue
            if recorded is None and host_failure(host_dir) is None:
                continue
            plan = (recorded or {}).get("plan") or {}
            planned = [t["name"] for t in plan.get("tests") or []]
            try:
                host_lost = _drive_verdict.lost(host_dir)
            except (OSError, _safe_tree.BadFile) as exc:
                host_lost = f"its host's lost record cannot be read: {exc}"
            seen_paths = set()
            for drive_dir in _results.drive_dirs_of_host(host_dir):
                try:
                    model = drive_model(drive_dir, history=history)
                    judged = _drive_verdict.judge(drive_dir, model, recorded)
                except (OSError, _safe_tree.BadFile) as exc:
                    # One drive's files that are not what the collection wrote fail that drive alone, named.
                    records.append(_unreadable(run_dir, host, drive_dir, recorded, exc))
                    continue
                drive = model.get("drive") or {}
                seen_paths.add((drive.get("spec") or {}).get("path") or drive.get("path"))
                if model.get("raid_member") and not model.get("tests"):
                    continue  # judged as part of its md array (RAID mode)
                records.append({
                    "id": f"{host}/{os.path.basename(drive_dir)}", "host": host, "drive": os.path.basename(drive_dir),
                    "run": os.path.basename(run_dir), "model": drive.get("model"), "firmware": drive.get("firmware"),
                    "serial": drive.get("serial"), "quick_profile": model.get("quick_profile"),
                    "report": _report_link(drive_dir), "time_s": _drive_time(model),
                    "test_times": {name: t.get("wall_s") for name, t in (model.get("tests") or {}).items()},
                    "tested": _tested(model), "tests_run": list((model.get("tests") or {}).keys()),
                    **kept_for_the_fleet(model), "_series": _fleet_plots.series(model),
                    # The figures measured but not resolved: "n/r" in the fleet table, as in the drive's report.
                    "unresolved": _headline_figures.unresolved(model),
                    # Against every earlier run of its model and firmware, as its report read the history.
                    "population": _fleet_history.brief(model.get("population")), **judged,
                })
            seen_names = set(_safe_tree.listdir(host_dir))
            for spec in plan.get("listed") or []:
                name = _results.safe_name(spec.get("name") or spec.get("serial") or spec.get("wwn")
                                          or os.path.basename(spec.get("path") or "unnamed"))
                # A drive listed by serial or WWN alone has a results directory named after it, but no listed path.
                if (spec.get("path") and spec["path"] in seen_paths) or name in seen_names:
                    continue
                judged = _acceptance.verdict(None, planned, None, lost=host_lost)
                records.append({"id": f"{host}/{name}", "host": host, "drive": name, "run": os.path.basename(run_dir),
                                "model": None, "firmware": None, "serial": spec.get("serial"), "report": None,
                                "time_s": None, "test_times": {}, "tested": None, "tests_run": [],
                                **kept_for_the_fleet({}), "_series": {}, "unresolved": {},
                                "headline": dict.fromkeys(_acceptance.HEADLINES), **judged})
    return records


def _host_unreadable(host_dir: str) -> str | None:
    """Why a host's results directory cannot be read at all (a level another user can change), or None."""
    try:
        _safe_tree.listdir(host_dir)
    except OSError as exc:
        return f"its results cannot be read: {exc}"
    return None


def _unreadable(run_dir: str, host: str, drive_dir: str, recorded: dict | None, exc: Exception) -> dict:
    """The record of a drive whose results cannot be read (a file that is a link, a FIFO, too large, too deep, of
    the wrong shape): INCOMPLETE, with the file and why."""
    planned = _drive_verdict.planned_tests(recorded, os.path.basename(drive_dir), None)
    judged = _acceptance.verdict(None, planned, None, lost=f"its results cannot be read: {exc}")
    return {"id": f"{host}/{os.path.basename(drive_dir)}", "host": host, "drive": os.path.basename(drive_dir),
            "run": os.path.basename(run_dir), "model": None, "firmware": None, "serial": None, "quick_profile": None,
            "report": None, "time_s": None, "test_times": {}, "tested": None, "tests_run": [],
            **kept_for_the_fleet({}), "_series": {}, "headline": dict.fromkeys(_acceptance.HEADLINES), "planned": planned,
            "plan_recorded": recorded is not None, **{k: v for k, v in judged.items() if k != "headline"}}


def run_errors(run_dirs: list[str], skip: set | None = None) -> list[dict]:
    """The hosts whose drives were not tested because a step before their drive workers failed (install, identity,
    the guard, RAID, the plan): each fails the run, whatever pts_fleet_fail_on says."""
    errors = []
    for run_dir in run_dirs:
        for host in _safe_tree.subdirs(run_dir):
            unreadable = _host_unreadable(os.path.join(run_dir, host))
            if unreadable and (run_dir, host) not in (skip or set()):
                errors.append({"host": host, "task": "reading its results", "msg": unreadable, "recorded_at": None})
                continue
            failure = host_failure(os.path.join(run_dir, host))
            if failure is not None and (run_dir, host) not in (skip or set()):
                errors.append({"host": str(failure.get("host") or host), "task": failure.get("task"),
                               "msg": str(failure.get("msg") or "failed"), "recorded_at": failure.get("recorded_at")})
    return errors


def summarize(run_dirs: list[str], out_dir: str, settings: dict | None = None, in_progress: list[dict] | None = None,
              errors: list[dict] | None = None, slice_of_run: bool = False, history=None) -> dict:
    """Judge every drive and write fleet.md, fleet.json and junit.xml. The fleet settings (fail_on,
    outlier_robust_z, outlier_min_deviation_pct, outlier_min_cohort, outliers_fail) are the ones the runs' plans
    recorded (_run.recorded_fleet_settings), each replaced by ``settings``' where that gives one: a summary written
    without the playbook's judging play judges as the run was told to.

    ``in_progress``: hosts another live ansible-playbook still runs (``{"run_dir", "host", "by"}``, a job slice that
    shares the run): listed, neither judged nor counted. ``slice_of_run``: this summary is the judge of one process of
    the run (a job slice, judge.yml's ``release_locks``): the last slice to finish judges them all, and hosts still
    running elsewhere do not fail this one; otherwise (playbooks/fleet_summary.yml during a run) they fail it, "in
    progress". ``errors``: run errors found after the drives (a publishing that failed), each ``{"host", "task",
    "msg"}``; like a host not tested, each fails the run. ``history``: where the history is (a
    plugin_utils/_history/_location.Spec; None: PTS_HISTORY_URL, else SQLite beside the runs) - the run is written
    into it, and the summary says whether it was."""
    busy = {(entry["run_dir"], entry["host"]) for entry in in_progress or []}
    chosen = dict(_run.recorded_fleet_settings(run_dirs),
                  **{k: v for k, v in (settings or {}).items() if v is not None})
    fail_on, outlier_threshold = chosen["fail_on"], float(chosen["outlier_robust_z"])
    outlier_min_deviation_pct = float(chosen["outlier_min_deviation_pct"])
    outlier_min_cohort, outliers_fail = int(chosen["outlier_min_cohort"]), bool(chosen["outliers_fail"])
    history, problem = _fleet_history.spec_or_error(history)
    records = collect(run_dirs, busy, history)
    given = [{"host": str(e.get("host") or ""), "task": e.get("task"), "msg": str(e.get("msg") or "failed")}
             for e in errors or []]
    errors = run_errors(run_dirs, busy) + given
    flagged = _acceptance.cohort_outliers([r for r in records if r.get("model")], outlier_threshold,
                                          outlier_min_deviation_pct, outlier_min_cohort)
    # Against the fleet's memory too: each drive's population (its report read it), with this summary's thresholds.
    against = _fleet_history.population_outliers(records, chosen)
    for record in records:
        record["outliers"] = flagged.get(record["id"], []) + against.get(record["id"], [])
        if record["outliers"] and outliers_fail and record["verdict"] == _acceptance.PASS:
            record["verdict"] = _acceptance.FAIL
            record["label"] = _acceptance.label(_acceptance.FAIL, bool(record.get("quick_profile")))
            record["reasons"] = [outlier_text(o) for o in record["outliers"]]
    counts = {v: sum(1 for r in records if r["verdict"] == v) for v in _acceptance.VERDICTS}
    summary = {
        "schema": _results.SCHEMA, "runs": [os.path.basename(d) for d in run_dirs], "generated_at": _results.now_iso(),
        "counts": counts, "fail_on": fail_on, "errors": errors,
        "failed": exit_status(records, fail_on, errors, 0 if slice_of_run else len(in_progress or []))["failed"],
        "in_progress_fails": bool(in_progress) and not slice_of_run,
        "in_progress": [{"host": e["host"], "run": os.path.basename(e["run_dir"]), "by": e.get("by")}
                        for e in in_progress or []],
        "outlier_settings": {"robust_z": outlier_threshold, "min_deviation_pct": outlier_min_deviation_pct,
                             "min_cohort": outlier_min_cohort, "fail": outliers_fail},
        "drives": [dict({k: v for k, v in r.items() if k != "_series"},
                        report=os.path.relpath(r["report"], out_dir) if r["report"] else None) for r in records],
        # Per requirement of the specifications, across the drives it applied to.
        "requirements": _pass_rates.rates(records),
    }
    # The run into the history before the summary's files, so they say whether it was written (and why not);
    # the verdicts stand either way.
    summary["history"] = _fleet_history.write(run_dirs, records, history, out_dir, problem)
    _safe_tree.makedirs(out_dir)
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
    return summary


def _footer(summary: dict) -> str:
    """fleet.pdf's running footer: the runs, the drives and when they were tested."""
    tested = [d["tested"] for d in summary["drives"] if d.get("tested")]
    when = f" · tested {min(t['from'] for t in tested)[:10]} – {max(t['to'] for t in tested)[:10]}" if tested else ""
    return f"Fleet summary · run {', '.join(summary['runs'])} · {md.plural(len(summary['drives']), 'drive')}{when}"


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
