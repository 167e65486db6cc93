# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A comparison written out: compare.md (its tables and verdicts in Markdown), compare.json, the plots and compare.html,
and the comparisons a fleet summary writes with each earlier run of the same drive model (the selection and the
statistics: _compare.py).
"""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._latency import P9999_NOTE
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import HistoryError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _html, _previous
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _acceptance, _result_files, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._compare import (
    IMPROVEMENT, NOT_COMPARED, REGRESSION, RUN_SPREAD_TEXT, SAME, SPREAD_TEXT, CompareError, build, select)


# --- rendering ----------------------------------------------------------------------------------------------------

def _when(iso: str | None) -> str | None:
    """An ISO time as the reports show dates, to the second (runs of one day apart): 2026-11-23 15:43:41 UTC."""
    if not iso:
        return None
    return iso[:19].replace("T", " ") + (" UTC" if iso.endswith(("+00:00", "Z")) else "")


def _value(value, digits: int) -> str:
    return md.DASH if value is None else md.fmt(float(value), digits)


def _pct(value, signed: bool = False) -> str:
    if value is None:
        return md.DASH
    return f"{value:+.1f} %" if signed else f"{value:.1f} %"


def _side_cell(stats: dict, digits: int) -> str:
    if not stats["n"]:
        return md.DASH
    text = _value(stats["median"], digits)
    return text if stats["steady"] == stats["n"] else f"*{text}*"


def _range_cell(stats: dict, digits: int) -> str:
    if not stats["n"]:
        return md.DASH
    if stats["n"] == 1:
        return "1 drive"
    return (f"{_value(stats['min'], digits)} – {_value(stats['max'], digits)} ({_pct(stats['spread_pct'])}, "
            f"{stats['n']} drives)")


def _tolerance_cell(row: dict) -> str:
    how = {"given": "given", "minimum": "min.", "run-to-run spread": "run-to-run"}[row["tolerance_source"]]
    return f"{row['tolerance_pct']:.1f} % ({how})"


def _verdict_cell(row: dict) -> str:
    if row["verdict"] == NOT_COMPARED:
        return f"{NOT_COMPARED} ({md.text(row['reason'])})"
    return f"**{row['verdict']}**"


def exit_line(result: dict, fail_on_regression: bool) -> str:
    regressed = result["counts"][REGRESSION]
    if not fail_on_regression:
        return ("Exit status: **passes** — `pts_compare_fail_on_regression` is false"
                + (f" ({md.plural(regressed, 'figure')} regressed)." if regressed else "."))
    if regressed:
        return (f"Exit status: **fails** — {md.plural(regressed, 'figure')} regressed and "
                "`pts_compare_fail_on_regression` is true.")
    return "Exit status: **passes** — no figure regressed."


def _history_section(result: dict, plots: dict) -> list[str]:
    """Every compared drive indexed in two runs or more: its figures run by run and the change, and their plot."""
    if not result["history"]:
        return []
    lines = ["## Drive history (same serial across runs)", "",
             "Every compared drive indexed in two runs or more, in every indexed run, oldest first; the change "
             f"is its last run against its first, judged with the minimum tolerance ({result['tolerance']['min_pct']:g} %).",
             ""]
    for entry in result["history"]:
        figures = [f for f in _headline_figures.FIGURES if any(e["figures"].get(f) is not None for e in entry["runs"])]
        headers_h = ["Run", "Started", "Firmware", "Verdict"] + [md.text(_headline_figures.FIGURES[f]["short"])
                                                                 for f in figures]
        rows_h = [[md.text(e["run"]), md.text(_when(e.get("run_time"))), md.text(e.get("firmware") or None),
                   md.text(_acceptance.label(e["verdict"], e.get("quick_profile")) if e.get("verdict") else None)]
                  + [_value(e["figures"].get(f), _headline_figures.FIGURES[f]["digits"]) for f in figures]
                  for e in entry["runs"]]
        trend_row = ["**change**", md.DASH, md.DASH, md.DASH]
        for figure in figures:
            trend = entry["trend"].get(figure)
            trend_row.append(md.DASH if not trend else f"{_pct(trend['delta_pct'], signed=True)} {trend['verdict']}")
        lines += [f"### Serial {md.text(entry['serial'])} ({md.text(entry.get('model') or None)})", ""]
        lines += md.table(headers_h, rows_h + [trend_row], numeric=False) + [""]
    if plots.get("_history"):
        lines += md.image(plots["_history"], "Drive history: each drive's figures run by run, one line per serial.")
    return lines


def render_markdown(result: dict, plots: dict, fail_on_regression: bool) -> str:
    counts = result["counts"]
    compared = sum(counts[v] for v in (REGRESSION, IMPROVEMENT, SAME))
    title = f"Comparison — {result['baseline']['label']} vs {result['candidate']['label']}"
    lines = [f"# {md.text(title)}", "",
             f"**{counts[REGRESSION]} REGRESSION · {counts[IMPROVEMENT]} IMPROVEMENT · {counts[SAME]} SAME** of "
             f"{md.plural(compared, 'figure')} compared"
             + (f" ({counts[NOT_COMPARED]} not compared)" if counts[NOT_COMPARED] else "") + ". "
             + exit_line(result, fail_on_regression), ""]
    if any(g["quick_profile"] for g in result["groups"]):
        lines += ["> **Quick profile — not a qualification**: some of these runs ran the quick profile (seconds per "
                  "round, a few rounds); their figures show the harness works, and compare only roughly.", ""]
    for side in ("baseline", "candidate"):
        runs = "" if result["mode"] == "runs" else \
            f" — {'run' if len(result[side]['runs']) == 1 else 'runs'} " + ", ".join(md.text(r) for r in result[side]["runs"])
        lines.append(f"- **{side.capitalize()}**: {md.text(result[side]['label'])}{runs}")
    lines += [f"- **Tolerance**: {md.text(result['tolerance']['rule'])}", ""]
    if result["settings_differences"]:
        lines += ["> **The two sides were not run alike**: their figures differ for that reason too.", ">"]
        for diff in result["settings_differences"]:
            lines.append(f"> - `{diff['setting']}`: {md.text(', '.join(diff['baseline']))} → "
                         f"{md.text(', '.join(diff['candidate']))}")
        lines.append("")
    if not result["groups"]:
        lines += ["No drive model is on both sides: nothing was compared.", ""]
    for side in ("baseline", "candidate"):
        left = result["not_compared_models"][side]
        if left:
            lines += [f"Only on the {side} side, not compared: {', '.join(md.text(m) for m in left)}.", ""]
    headers = ["Figure", "Better", "Baseline median", "Baseline spread", "Candidate median", "Candidate spread",
               "Δ", "Tolerance", "Verdict"]
    for group in result["groups"]:
        lines += [f"## Model {md.text(group['model'])}", "",
                  f"Baseline: {md.plural(group['baseline_drives'], 'drive')}, firmware "
                  f"{md.text(', '.join(group['baseline_firmware']) or None)}; candidate: "
                  f"{md.plural(group['candidate_drives'], 'drive')}, firmware "
                  f"{md.text(', '.join(group['candidate_firmware']) or None)}.", ""]
        rows = []
        for row in group["figures"]:
            digits = row["digits"]
            rows.append([f"{md.text(row['label'])} ({md.text(row['unit'])})", row["better"],
                         _side_cell(row["baseline"], digits), _range_cell(row["baseline"], digits),
                         _side_cell(row["candidate"], digits), _range_cell(row["candidate"], digits),
                         _pct(row["delta_pct"], signed=True), _tolerance_cell(row), _verdict_cell(row)])
        lines += md.table(headers, rows, numeric=False) + [""]
        if group["not_measured"]:
            lines += ["Not measured on either side (the test did not run): "
                      + ", ".join(md.text(_headline_figures.FIGURES[f]["label"]) for f in group["not_measured"]) + ".", ""]
        if group.get("no_value"):
            lines += ["No value on either side although the test ran (not resolved - too few IOs for the percentile - "
                      "not recovered, or the wait state's schedule not held; each drive's report says why): "
                      + ", ".join(md.text(_headline_figures.FIGURES[f]["label"]) for f in group["no_value"]) + ".", ""]
        spreads = [f"{md.text(r['short'])} {_pct(r['run_to_run_spread_pct'])} over {len(r['run_to_run_runs'])} runs"
                   for r in group["figures"] if r["run_to_run_spread_pct"] is not None]
        given = result["tolerance"]["given_pct"] is not None
        if spreads:
            lines += ["Run-to-run spread of the baseline's cohort: " + "; ".join(spreads)
                      + (" (not used: the tolerance is given)." if given else "."), ""]
        else:
            lines += ["Run-to-run spread: fewer than two indexed runs of the baseline's model, firmware and settings "
                      "(the candidate's left out)" + (" (not needed: the tolerance is given)." if given else
                                                      ", so the tolerance is the minimum."), ""]
        for kind, caption in (("figures", "each drive's figure on both sides, the medians, and the tolerance band "
                                          "around the baseline median"),
                              ("rounds", "the DV round by round of every drive, baseline and candidate overlaid")):
            path = (plots.get(group["model"]) or {}).get(kind)
            if path:
                lines += md.image(path, f"Model {group['model']}: {caption}.")
    lines += _history_section(result, plots)
    lines += ["## How this is judged", "",
              "- Per drive model on both sides and per headline figure, the **median** over drives; "
              f"{SPREAD_TEXT}. *Italic* medians include a figure from a window that was not steady.",
              "- **Δ** = (candidate median − baseline median) / baseline median × 100.",
              f"- **Tolerance**: {md.text(result['tolerance']['rule'])}; {RUN_SPREAD_TEXT}.",
              "- **Verdict**: worse than the baseline by more than the tolerance is a REGRESSION, better by more an "
              "IMPROVEMENT, anything within it SAME. Better is *higher* for IOPS and MB/s and *lower* for latency. "
              "NOT COMPARED: a side has no value (the test did not run or did not finish, or ran without giving the "
              "figure: not resolved, not recovered, schedule not held).",
              f"- \\* p99.99: {P9999_NOTE}.", ""]
    return "\n".join(lines).rstrip() + "\n"


def write(result: dict, out_dir: str, fail_on_regression: bool, root: str | None = None,
          html: bool | None = None) -> dict:
    """compare.json, compare.md, the plots and compare.html in ``out_dir`` (``html`` None: as PTS_REPORT_FORMATS
    asks, like every report; no PDF); the result with its outputs."""
    _safe_tree.makedirs(out_dir)
    plots = _compare_plots.draw(result, out_dir, root) if _compare_plots.available() else {}
    result["plots"] = plots
    result["fail_on_regression"] = fail_on_regression
    result["failed"] = bool(fail_on_regression and result["counts"][REGRESSION])
    markdown_path = os.path.join(out_dir, "compare.md")
    _results.atomic_write_text(markdown_path, render_markdown(result, plots, fail_on_regression))
    outputs: dict = {"md": "compare.md", "json": "compare.json", "html": None, "not_produced": {}}
    if not _compare_plots.available():
        outputs["not_produced"]["plots"] = f"matplotlib is not installed: {_compare_plots.import_error()}"
    if html is None:
        html = "html" in _drive_report.formats_from_env()
    if not html:
        outputs["not_produced"]["html"] = "not asked for (PTS_REPORT_FORMATS)"
    else:
        made = _html.write(markdown_path, f"Comparison — {result['baseline']['label']} vs "
                                          f"{result['candidate']['label']}", pdf=False)
        outputs["html"] = made["html"] and os.path.basename(made["html"])
        outputs["not_produced"].update(made["not_produced"])
        outputs["not_produced"].pop("pdf", None)
    result["outputs"] = outputs
    _results.atomic_write_json(os.path.join(out_dir, "compare.json"), result)
    return result


def previous_comparisons(run_dirs: list[str], spec: Spec | None = None) -> list[dict]:
    """For each drive model and firmware of these runs whose drive report names a previous run (its ``previous``, read
    from the history when the report was drawn), the comparison of the two runs' drives of that model (runs mode, the
    model given) in <root>/compare/<previous>-vs-<run>-<model>/: the page each drive report links to as its history
    comparison (_report/_previous.py names it), from the history ``spec`` names (either back end). Per comparison its
    path or why it was not written; never raises (the summary stands without them)."""
    spec = spec or Spec()
    done = []
    for run_dir in run_dirs:
        run_dir = os.path.normpath(run_dir)
        root, run = os.path.dirname(run_dir), os.path.basename(run_dir)
        wanted: dict = {}
        for drive_dir in _results.drive_dirs(run_dir):
            path = os.path.join(drive_dir, "result.json")
            try:
                model = _result_files.check_result(_results.read_json(path), path)
            except (OSError, ValueError):
                continue
            found = model.get("previous")
            drive_model = (model.get("drive") or {}).get("model")
            if isinstance(found, dict) and isinstance(found.get("run_id"), str) and drive_model:
                wanted[_previous.comparison_name(found["run_id"], run, drive_model)] = (found["run_id"], drive_model)
        if not wanted:
            continue
        try:
            store = open_store(spec, root, readonly=True)
        except HistoryError as exc:
            done += [{"comparison": name, "error": spec.scrub(str(exc))} for name in wanted]
            continue
        with store:
            for name, (previous, drive_model) in sorted(wanted.items()):
                try:
                    selection = select(store, [previous], [run], drive_model, None, None, db=store.shown)
                    result = build(store, selection)
                    out = os.path.join(root, _previous.COMPARE_DIR, name)
                    write(result, out, fail_on_regression=False, root=root)
                    done.append({"comparison": name, "path": out, "counts": result["counts"]})
                except (CompareError, HistoryError, OSError, ValueError) as exc:
                    done.append({"comparison": name, "error": spec.scrub(str(exc))})
    return done
