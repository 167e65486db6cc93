# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary: every listed drive of every host of one or more runs (or result trees), its verdict,
headline figures and cohort outliers, as fleet.md, fleet.json and junit.xml."""

from __future__ import annotations

import glob
import os
from xml.etree import ElementTree

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _plots, _report, _results, _verdicts

FIGURE_LABELS = {
    "iops_4k_write": ("4k write IOPS", 0),
    "throughput_1024k_write_mb_s": ("1024k write MB/s", 1),
    "throughput_1024k_read_mb_s": ("1024k read MB/s", 1),
    "latency_4k_write_mean_ms": ("4k write mean lat. ms", 3),
    "latency_4k_write_p9999_ms": ("4k write p99.99 ms", 3),
}


def fresh(drive_dir: str) -> bool:
    """Is result.json newer than every file it is built from?"""
    result = os.path.join(drive_dir, "result.json")
    if not os.path.exists(result):
        return False
    built = os.path.getmtime(result)
    for root, dirs, files in os.walk(drive_dir):
        dirs[:] = [d for d in dirs if d not in ("plots", "superseded")]
        for name in files:
            if name not in ("result.json", "report.md") and os.path.getmtime(os.path.join(root, name)) > built:
                return False
    return True


def drive_model(drive_dir: str, render: bool = True) -> dict:
    """The drive's report model: result.json when it is up to date, else the report is built again."""
    if fresh(drive_dir):
        return _results.read_json(os.path.join(drive_dir, "result.json"))
    if render:
        return _report.write_drive_report(drive_dir)["model"]
    return _report.build_model(drive_dir)


def _lost(path: str) -> str | None:
    lost = os.path.join(path, "lost.json")
    if not os.path.exists(lost):
        return None
    return "host lost: " + str(_results.read_json(lost).get("msg") or "unreachable")


def collect(run_dirs: list[str]) -> list[dict]:
    """One record per listed or identified drive: host, drive, identity, verdict, headline figures, report path."""
    records = []
    for run_dir in run_dirs:
        for host in sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else []:
            host_dir = os.path.join(run_dir, host)
            plan_file = os.path.join(host_dir, "plan.json")
            if not os.path.isdir(host_dir) or not os.path.exists(plan_file):
                continue
            plan = _results.read_json(plan_file).get("plan") or {}
            planned = [t["name"] for t in plan.get("tests") or []]
            rules = plan.get("acceptance") or []
            host_lost = _lost(host_dir)
            seen_paths = set()
            for drive_dir in sorted(d for d in (os.path.join(host_dir, e) for e in os.listdir(host_dir))
                                    if os.path.exists(os.path.join(d, "drive.json"))):
                model = drive_model(drive_dir)
                drive = model.get("drive") or {}
                seen_paths.add((drive.get("spec") or {}).get("path") or drive.get("path"))
                if model.get("raid_member") and not model.get("tests"):
                    continue  # judged as part of its md array (RAID mode)
                rule = _verdicts.matching_rule(rules, drive.get("model"), drive.get("firmware"))
                # A drive's own plan says which tests its mode (SSD or HDD) runs.
                own = next((d for d in plan.get("drives") or [] if d.get("key") == os.path.basename(drive_dir)), None)
                tests = [t["test"] for t in own["tests"]] if own else planned
                judged = _verdicts.verdict(model, tests, rule, lost=_lost(drive_dir) or host_lost)
                records.append({
                    "id": f"{host}/{os.path.basename(drive_dir)}", "host": host, "drive": os.path.basename(drive_dir),
                    "run": os.path.basename(run_dir), "model": drive.get("model"), "firmware": drive.get("firmware"),
                    "serial": drive.get("serial"), "quick_profile": model.get("quick_profile"),
                    "report": os.path.join(drive_dir, "report.md"), **judged,
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
                                "headline": dict.fromkeys(_verdicts.HEADLINES), **judged})
    return records


DEFAULT_FAIL_ON = [_verdicts.FAIL, _verdicts.INCOMPLETE]


def recorded_fail_on(run_dirs: list[str]) -> list[str]:
    """The verdicts that fail the run as the runs' plans recorded them (pts_fleet_fail_on, validated with the plan):
    the union over every host's plan, and FAIL, INCOMPLETE when no plan recorded any."""
    found: list[str] | None = None
    for run_dir in run_dirs:
        for plan_file in sorted(glob.glob(os.path.join(run_dir, "*", "plan.json"))):
            try:
                fleet = (_results.read_json(plan_file).get("plan") or {}).get("fleet") or {}
            except (OSError, ValueError):
                continue
            if isinstance(fleet.get("fail_on"), list):
                found = sorted(set(found or []) | {v for v in fleet["fail_on"] if v in _verdicts.VERDICTS})
    return list(DEFAULT_FAIL_ON) if found is None else found


def summarize(run_dirs: list[str], out_dir: str, fail_on: list[str] | None = None, outlier_threshold: float = 3.5,
              outlier_min_deviation_pct: float = 10.0, outlier_min_cohort: int = 3, outliers_fail: bool = False) -> dict:
    """Judge every drive and write fleet.md, fleet.json and junit.xml; ``fail_on`` None means as the plans recorded
    it (the run's own pts_fleet_fail_on), so a summary written without the playbook's judging play still honours it."""
    if fail_on is None:
        fail_on = recorded_fail_on(run_dirs)
    records = collect(run_dirs)
    flagged = _verdicts.cohort_outliers([r for r in records if r.get("model")], outlier_threshold,
                                        outlier_min_deviation_pct, outlier_min_cohort)
    for record in records:
        record["outliers"] = flagged.get(record["id"], [])
        if record["outliers"] and outliers_fail and record["verdict"] == _verdicts.PASS:
            record["verdict"] = _verdicts.FAIL
            record["reasons"] = [_outlier_text(o) for o in record["outliers"]]
    counts = {v: sum(1 for r in records if r["verdict"] == v) for v in _verdicts.VERDICTS}
    summary = {
        "schema": _results.SCHEMA, "runs": [os.path.basename(d) for d in run_dirs], "generated_at": _results.now_iso(),
        "counts": counts, "fail_on": fail_on, "failed": any(r["verdict"] in fail_on for r in records),
        "outlier_settings": {"robust_z": outlier_threshold, "min_deviation_pct": outlier_min_deviation_pct,
                             "min_cohort": outlier_min_cohort, "fail": outliers_fail},
        "drives": [dict(r, report=os.path.relpath(r["report"], out_dir) if r["report"] else None) for r in records],
    }
    os.makedirs(out_dir, exist_ok=True)
    plots = _cohort_plots(summary, out_dir)
    _results.atomic_write_json(os.path.join(out_dir, "fleet.json"), summary)
    _results.atomic_write_text(os.path.join(out_dir, "fleet.md"), render_markdown(summary, plots))
    _results.atomic_write_text(os.path.join(out_dir, "junit.xml"), render_junit(summary))
    return summary


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
            paths[name] = os.path.relpath(_plots.cohort(path, title, panels), out_dir)
    return paths


def render_markdown(summary: dict, plots: dict) -> str:
    counts = summary["counts"]
    lines = [f"# Fleet summary — {', '.join(md.text(r) for r in summary['runs'])}", "",
             f"**{counts['PASS']} PASS · {counts['FAIL']} FAIL · {counts['INCOMPLETE']} INCOMPLETE** of "
             f"{len(summary['drives'])} drive(s). The run fails on: {', '.join(summary['fail_on']) or 'nothing'}"
             f" — {'**failed**' if summary['failed'] else 'passed'}.", ""]
    if any(d.get("quick_profile") for d in summary["drives"]):
        lines += ["> **Quick profile — not a qualification**: some drives ran the quick profile.", ""]
    headers = ["Host", "Drive", "Model", "Firmware", "Verdict"] + [FIGURE_LABELS[f][0] for f in FIGURE_LABELS] + ["Report"]
    rows = []
    for drive in summary["drives"]:
        verdict = f"**{drive['verdict']}**" + (" ⚑" if drive["outliers"] else "")
        figures = [_figure_cell(drive, f) for f in FIGURE_LABELS]
        link = f"[report]({drive['report']})" if drive["report"] else md.DASH
        rows.append([md.text(drive["host"]), md.text(drive["drive"]), md.text(drive.get("model") or None),
                     md.text(drive.get("firmware") or None), verdict] + figures + [link])
    lines += md.table(headers, rows, numeric=False)
    lines += ["", "Figures are measurement-window averages (MB/s = 10⁶ bytes/s); *italic* ones come from a window that was "
                  "not steady (the test stopped, failed or reached its round limit). ⚑ marks a cohort outlier.", ""]
    problems = [d for d in summary["drives"] if d["verdict"] != "PASS"]
    if problems:
        lines += ["## Why not PASS", ""]
        for drive in problems:
            lines.append(f"- **{md.text(drive['id'])}** {drive['verdict']}: " + "; ".join(md.text(r) for r in drive["reasons"]))
        lines.append("")
    outliers = [d for d in summary["drives"] if d["outliers"]]
    settings = summary["outlier_settings"]
    lines += ["## Cohorts", "",
              f"Drives of one model and firmware are compared with their cohort's median: a figure is flagged when "
              f"its robust z-score (0.6745 × deviation / median absolute deviation) exceeds {settings['robust_z']:g} "
              f"and it is more than {settings['min_deviation_pct']:g} % from the median, in cohorts of at least "
              f"{settings['min_cohort']} drives. Outliers {'fail' if settings['fail'] else 'are flagged, not failed'}.",
              ""]
    for drive in outliers:
        for outlier in drive["outliers"]:
            lines.append(f"- ⚑ **{md.text(drive['id'])}**: {md.text(_outlier_text(outlier))}")
    if outliers:
        lines.append("")
    for name, path in plots.items():
        lines += md.image(path, f"Cohort {name}: every drive's figure, the cohort median, outliers in red.")
    return "\n".join(lines).rstrip() + "\n"


def _figure_cell(drive: dict, figure: str) -> str:
    value = drive["headline"].get(figure)
    if value is None:
        return md.DASH
    text = md.fmt(float(value), FIGURE_LABELS[figure][1])
    return text if (drive.get("headline_steady") or {}).get(figure) else f"*{text}*"


def render_junit(summary: dict) -> str:
    """One test case per drive and criterion, for CI systems."""
    suite = ElementTree.Element("testsuite", name="fleetqual.pts", timestamp=summary["generated_at"])
    tests = failures = errors = 0
    for drive in summary["drives"]:
        classname = md.plain(f"pts.{drive['host']}.{drive['drive']}")
        # XML 1.0 cannot carry control characters at all: drive strings reach junit.xml as plain text.
        cases = [(c["criterion"], c["passed"], md.plain(c["text"])) for c in drive["checks"]]
        cases += [(f"cohort {o['figure']}", not summary["outlier_settings"]["fail"], md.plain(_outlier_text(o)))
                  for o in drive["outliers"]]
        for name, passed, text in cases:
            case = ElementTree.SubElement(suite, "testcase", classname=classname, name=name)
            tests += 1
            if not passed:
                failures += 1
                ElementTree.SubElement(case, "failure", message=text).text = text
            else:
                ElementTree.SubElement(case, "system-out").text = text
        case = ElementTree.SubElement(suite, "testcase", classname=classname, name="verdict")
        tests += 1
        text = md.plain(f"{drive['verdict']}: " + "; ".join(drive["reasons"]) if drive["reasons"] else drive["verdict"])
        if drive["verdict"] == "FAIL":
            failures += 1
            ElementTree.SubElement(case, "failure", message=text).text = text
        elif drive["verdict"] == "INCOMPLETE":
            errors += 1
            ElementTree.SubElement(case, "error", message=text).text = text
        else:
            ElementTree.SubElement(case, "system-out").text = text
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
