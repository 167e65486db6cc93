# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The CBW and DIRTH report section in Markdown (the model: _intensity.py; the figures: _intensity_plots.py).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME, OPERATING_POINT_TESTS, TITLES
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._intensity import (
    PERCENTILES, PHASES, POINTS, POINT_WORDS, grid_cells, percentile_cell, phase_summary, point_name, rounds_text,
    seconds)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _intensity, _intensity_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetColumn, PTS2_STEADY_NOTE, ReportKind


# Report section -------------------------------------------------------------------------------------------------------

def _procedure(result: dict) -> list[str]:
    params, workload = result["parameters"], result["workload"]
    tc, qd, mix = params["thread_counts"][0], params["queue_depths"][0], params["mix"]
    what = workload["label"]
    samples = max(1, int(round(float(params.get("point_prewrite_seconds") or 0) /
                               float(params.get("sample_seconds") or 1))))
    return ["```",
            "Preconditioning: while not steady and round < max rounds",
            f"  {what} 0/100 at TC{tc}/QD{qd} for {seconds(params.get('precondition_seconds'))}",
            "TC × QD loop: while not steady and round < max rounds",
            f"  pre-write: {what} 0/100 at TC{tc}/QD{qd} for {seconds(params.get('prewrite_seconds'))}",
            f"  for TC in {params['thread_counts']}",
            f"    for QD in {params['queue_depths']}",
            f"      {what} {md.mix(mix)} at TC/QD for {seconds(params.get('point_seconds'))}",
            "Operating points, chosen from the loop's measurement window: for P in MaxIOPS, MidIOPS, MinIOPS",
            f"  pre-write: {what} 0/100 at P's TC/QD for {seconds(params.get('point_prewrite_seconds'))} "
            f"({md.plural(samples, 'sample')})",
            f"  measurement: {what} {md.mix(mix)} at P's TC/QD for {seconds(params.get('point_measure_seconds'))}, "
            "with fio's latency histogram (json+)",
            "```", ""]


def _workload_lines(result: dict) -> list[str]:
    workload, params = result["workload"], result["parameters"]
    if workload.get("split"):
        lines = [f"Workload: random IO in a mix of block sizes (fio `bssplit={workload['bssplit']}`), as a share of "
                 "IOs:", ""]
        lines += md.table(["Block size"] + [s for s, dummy in workload["split"]],
                          [["% of IOs"] + [str(p) for dummy, p in workload["split"]]])
        lines += [""]
    else:
        lines = [f"Workload: random {workload['block_size']} IO (one block size).", ""]
    if workload.get("distribution"):
        zones = [zone.split("/") for zone in workload["distribution"][len("zoned:"):].split(":")]
        start, parts = 0.0, []
        for io, lba in zones:
            parts.append(f"{io} % of IOs to LBAs {start:g}–{start + float(lba):g} %")
            start += float(lba)
        lines += [f"LBA hot spots (fio `random_distribution={workload['distribution']}`): {'; '.join(parts)}.", ""]
    lines += [f"R/W mix of the loop and the measurements: {md.mix(params['mix'])} (read/write %). TC is fio's "
              "numjobs (threads), QD its iodepth per thread; each grid point runs as its own stonewalled fio section "
              "with direct I/O and random data.", ""]
    return lines


def _choices(result: dict) -> list[str]:
    params = result["parameters"]
    tc, qd = params["thread_counts"][0], params["queue_depths"][0]
    window = ((result["loop"].get("settings") or {}).get("window")
              or (result["settings"] or {}).get("window"))
    lines = [
        f"- Tracking point: the highest thread count × the highest queue depth of the grid, TC{tc}/QD{qd} (PTS: "
        "TC32/QD32), for the preconditioning, the between-round pre-writes and the loop's steady-state variable.",
        f"- Preconditioning's tracking variable: the IOPS of each whole round of "
        f"{seconds(params.get('precondition_seconds'))} (ADATA's PTS 2.0 port takes the first minute of 30-minute "
        "rounds).",
        f"- Operating points from the loop's measurement window (its last {window} rounds), by window averages: "
        f"MaxIOPS is the grid point with the most IOPS whose mean response time is below {params['max_art_ms']:g} ms; "
        "MinIOPS the lowest TC × QD; MidIOPS the point whose IOPS are closest to (MaxIOPS + MinIOPS) / 2; ties go to "
        "fewer outstanding IOs.",
        f"- The {params['max_art_ms']:g} ms ceiling is ADATA's; the specification's value is uncertain "
        "(pts_run_intensity_max_art_ms).",
        "- Response times are fio's total latency (submission + completion). Per direction the percentiles are fio's; "
        "for all IOs (read + write) they are computed from fio's merged histogram buckets the way fio computes its "
        "own (the first bucket whose running count reaches the percentage), and each bucket stands at fio's "
        "representative latency.",
    ]
    if result["test"] == "dirth":
        lines.append("- The confidence-level plot is drawn from fio's histograms; whether PTS 2.0.2 asks for it in "
                     "DIRTH is uncertain (ADATA draws it for latency and write saturation).")
    return ["Choices made where the sources differ or are uncertain:", "", *lines, ""]


def _steady_block(phase: dict, number: str, title: str, what: str) -> list[str]:
    lines = [f"### {number} {title}", ""]
    if not phase["rounds_run"]:
        return lines + [f"{what}: no round finished.", ""]
    dv = phase["dv"]
    lines += [_sections.verdict_line(phase, what), "",
              f"Dependent variable: {dv['name']}, the IOPS of section `{dv['job']}` in each round.", ""]
    lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, phase["settings"].get("max_rounds"),
                                 phase["steady_round"], phase["rounds_run"])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    lines += _sections.round_table([dv], {"iops": ("IOPS", 1.0, 1)})
    return lines + [""]


def _grid_table(result: dict, key: str, digits: int) -> list[str]:
    cells = grid_cells(result)
    qds = result["queue_depths"]
    return md.table(["TC ↓ / QD →"] + [str(q) for q in qds],
                    [[f"**{tc}**"] + [md.fmt((cells.get((tc, qd)) or {}).get(key), digits) for qd in qds]
                     for tc in result["thread_counts"]])


def _why(point: str, params: dict) -> str:
    return {"max": f"most IOPS with ART below {params['max_art_ms']:g} ms",
            "mid": "IOPS closest to (MaxIOPS + MinIOPS) / 2",
            "min": "lowest TC × QD"}[point]


def _idle_between_sections(result: dict) -> list[str]:
    """The idle time the operating points' stonewalled sections leave between them, as measured: fio's wall time of
    the round less its sections' run times (its start-up included)."""
    found = [p for p in result["points"] if p.get("outside_s") is not None and p.get("sections")]
    if not found:
        return []
    parts = [f"{p['word']} {md.fmt(p['outside_s'], 2)} s over {md.plural(p['sections'], 'section')}" for p in found]
    each = [p["outside_s"] / p["sections"] for p in found]
    return [f"**Idle between sections**: each point's pre-write samples and its measurement are fio sections run one "
            "after the other (stonewall), and between two of them fio's floor leaves the drive idle for a moment - "
            f"about {md.fmt(min(each), 2)}–{md.fmt(max(each), 2)} s per section here (fio's wall time of the round less "
            f"its sections' run times, its start-up included: {'; '.join(parts)}). The PTS asks for no idle there; it "
            "is short beside the standard test's 60-s samples, and may lift the measurement a little on a drive that "
            "recovers in under a second.", ""]


def _points_lines(result: dict, number: str, plots_rel: dict) -> list[str]:
    loop, params = result["loop"], result["parameters"]
    recomputed = loop.get("recomputed")
    ran = {p["point"]: p for p in result["points"]}
    lines = [f"### {number} Operating points", ""]
    if recomputed is None and not ran:
        return lines + [f"No operating point: {md.text(loop.get('choice_error') or 'the loop did not run')}.", ""]
    first = next(iter(ran.values()), None)
    chosen = (first or {}).get("chosen") or recomputed
    window = chosen.get("window_rounds") or loop["window_rounds"]
    lines += [f"Chosen from the TC × QD loop's measurement window (loop {rounds_text(window)}), by window averages; "
              f"MidIOPS aims at {chosen['mid_target_iops']:,.0f} IOPS:", ""]
    rows = []
    for point in POINTS:
        pick = chosen.get(point)
        if not pick:
            continue
        rows.append([f"**{POINT_WORDS[point]}**", point_name(pick["tc"], pick["qd"]), str(pick["tc"] * pick["qd"]),
                     md.fmt(float(pick["iops"])), md.fmt(float(pick["art_ms"]), 3), _why(point, params)])
    lines += md.table(["Point", "TC/QD", "OIO", "IOPS (window)", "ART ms (window)", "Why"], rows, numeric=False)
    lines += [""] + [f"> Note: {md.text(note)}" for note in chosen.get("notes") or []]
    if recomputed is None:
        lines += [f"> Warning: the choice could not be recomputed: {md.text(loop.get('choice_error'))}", ""]
    elif result["choice_checks"]:
        lines += ["> **Warning**: recomputed from the loop's window rounds with the same rule (window_grid and "
                  "operating_points in module_utils/_pts/_tests/_intensity.py), or checked against fio's own figures, "
                  "these differ from what the run recorded:",
                  ""] + [f"> - {md.text(c)}" for c in result["choice_checks"]] + [""]
    else:
        lines += ["Recomputed here from the loop's window rounds with the same rule, the choice is the one the run "
                  "made, and each point ran at its TC/QD.", ""]
    lines += _idle_between_sections(result)
    measured = [p for p in result["points"] if p.get("measure")]
    if measured:
        lines += ["Measurement at each point (after its pre-write), ms; per direction fio's own figures, *all IOs* "
                  "the IO-weighted ART, the percentiles of the merged read + write histogram (computed the way fio "
                  "does) and the slowest IO:", ""]
        rows = []
        for entry in measured:
            measure = entry["measure"]
            parts = [(name, measure["directions"][name]) for name in ("read", "write") if name in measure["directions"]]
            for index, (label, data) in enumerate(parts + [("all IOs", measure)]):
                rows.append([f"**{entry['word']}** {point_name(entry['tc'], entry['qd'])}" if not index else "",
                             label if label != "all IOs" else "*all IOs*", f"{data['total_ios']:,}",
                             md.fmt(float(data["iops"])), md.fmt(data["art_ms"], 3)]
                            + [percentile_cell(data, p) for p in PERCENTILES]
                            + [md.fmt(data["mrt_ms"], 3)])
        lines += md.table(["Point", "Direction", "IOs", "IOPS", "ART", "99 %", "99.9 %", "99.99 %", "99.999 %", "MRT"],
                          rows)
        short = []
        for entry in measured:
            measure = entry["measure"]
            for label, data in [*measure["directions"].items(), ("all IOs", measure)]:
                missed = [f"{p} %" for p in PERCENTILES[1:] if not _histogram.resolved(data["total_ios"], p)]
                if missed:
                    short.append(f"{entry['word']} {label} ({data['total_ios']:,} IOs): {', '.join(missed)}")
        lines += ["", "A percentile is the representative latency of fio's bucket (its middle; a bucket is at most "
                      "1/64 of its latency wide), so a top percentile can read a little above the MRT, fio's exact "
                      "slowest IO."]
        if short:
            lines += ["", "n/r: not resolved - a percentile needs 10 / (1 − p) IOs, ten of them beyond it (1,000 for "
                          "99 %, 10,000 for 99.9 %, 100,000 for 99.99 %, 1,000,000 for 99.999 %); with fewer it would "
                          f"be one of the few slowest IOs, so no number is given: {'; '.join(short)}."]
        lines += [""]
    lines += _sections.images(plots_rel, {
        "point_prewrites": "Operating point pre-writes: IOPS of every pre-write sample (100 % writes at the point's "
                           "TC/QD) before its measurement.",
        "histograms": "Response-time histograms: IOs (read + write) per fixed-width latency bin at each operating "
                      "point, from fio's histogram buckets (each counted at its representative latency), up to the "
                      "99.99th percentile, the IOs slower than that counted in the legend; the ART dashed, the MRT "
                      "(fio's slowest IO) in the title, dotted where it is on the plot.",
        "confidence": "Confidence levels: the share of IOs (read + write) completed within each response time, per "
                      "operating point, with the ART and the 3, 4 and 5 nines marked (from fio's merged histogram "
                      "buckets).",
    })
    return lines


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    title = result.get("title") or TITLES.get(result["test"], result["test"])
    if not result.get("rounds_run"):
        return [f"## {number} {title}", "", *_sections.status_notes(result), "No round finished; nothing was measured.",
                ""]
    pc, loop = result["precondition"], result["loop"]
    status = {
        "steady": f"**Steady**: {result['steady_text']}; all three operating points measured.",
        "not steady": f"**Not steady**: {result['steady_text']}; the figures below are the last rounds' and not "
                      "steady-state figures.",
        "incomplete": f"**Incomplete**: {result['steady_text']}.",
        "failed": f"**Failed**: {result['steady_text']}; the figures below are from the rounds that finished.",
    }[result["status"]]
    wipc = result["settings"].get("wipc") or {}
    wipc_text = (f" ({wipc.get('capacity_multiple')} × user capacity of {wipc.get('block_size')} sequential writes)"
                 if wipc else "")
    lines = [f"## {number} {title}", "", *_sections.status_notes(result), status, "",
             f"Purge, then workload-independent preconditioning{wipc_text}, then three phases, each with its own stop "
             "rule:", ""]
    lines += _procedure(result) + _workload_lines(result) + _choices(result)
    lines += [f"> Note: {md.text(note)}" for note in result.get("notes") or []]
    lines += _steady_block(pc, f"{number}.1", "Preconditioning", "Preconditioning")
    lines += _sections.images(plots_rel, {
        "pc_convergence": "Preconditioning: IOPS (100 % writes at the tracking point) per round, the measurement "
                          "window shaded.",
        "pc_verification": _sections.VERIFICATION_CAPTION,
    })
    lines += _steady_block(loop, f"{number}.2", "TC × QD loop", "TC × QD loop")
    lines += _sections.images(plots_rel, {
        "loop_prewrite": "Between-round pre-writes: IOPS of each round's pre-write (100 % writes at the tracking "
                         "point) before its grid.",
        "loop_convergence": f"Loop convergence: TC{loop['tracking']['tc']} IOPS per round at every queue depth, the "
                            "tracking point (the DV) in bold, the measurement window shaded.",
        "loop_verification": _sections.VERIFICATION_CAPTION,
    })
    lines += _sections.mismatch_warning(result)
    lines += [f"### {number}.3 Demand variation and demand intensity", ""]
    if loop["grid"]:
        lines += [f"Window averages over loop {rounds_text(loop['window_rounds'])} per thread count (TC) and queue "
                  "depth per thread (QD); ART is the mean response time of each round (read and write IO-weighted), "
                  "averaged over the rounds.", ""]
        lines += _sections.images(plots_rel, {
            "demand_variation": "Demand Variation: IOPS against queue depth, one line per thread count.",
            "demand_intensity": "Demand Intensity: mean response time against IOPS, one line per thread count "
                                "through its queue depths from low to high; the operating points ringed where the "
                                "loop's window averages put them (the figures they were chosen by). The summary's "
                                f"MaxIOPS is the point's own measurement after its pre-write ({number}.4: a run of its own, "
                                "at its TC/QD after 100 % writes there), so it differs from the ring's IOPS; the "
                                "legend gives both.",
            "outstanding": "Outstanding IOs: IOPS and mean response time against TC × QD, one line per thread count.",
            "cpu": "CPU use per grid point: fio's usr + sys CPU % for the section, as fio reports it.",
        })
        lines += ["IOPS (read + write):", ""] + _grid_table(result, "iops", 0)
        lines += ["", "Mean response time, ms:", ""] + _grid_table(result, "art_ms", 3)
        lines += ["", "<details><summary>fio CPU use, usr + sys %</summary>", ""] + _grid_table(result, "cpu_pct", 1)
        lines += ["", "</details>", ""]
    else:
        lines += ["The loop measured no grid point.", ""]
    lines += _points_lines(result, f"{number}.4", plots_rel)
    lines += [f"### {number}.5 Purge, preconditioning and files", ""]
    steps = _sections.steps_table(result, capacity, [("", {"purge": result.get("purge")})], KIND)
    rows = [[label, phase_summary(phase), md.DASH]
            for label, phase in (("Preconditioning", pc), ("TC × QD loop", loop))]
    rows.append(["Operating points", f"{len(result['points'])} of {len(POINTS)} rounds", md.DASH])
    steps[-2:-2] = ["| " + " | ".join(row) + " |" for row in rows]
    lines += steps
    lines += _sections.file_links(result["test"], [(p, result["round_files"][p]) for p in PHASES
                                                   if result["round_files"][p]], wipc=True)
    return lines


def summary(model: dict, block: dict, wanted: set) -> tuple[list, list]:
    """The summary page's rows, as OakGate's has them: one per test that ran, its MaxIOPS point as measured."""
    tests = model.get("tests") or {}
    rows = []
    for name, title in ((name, BY_NAME[name].short) for name in OPERATING_POINT_TESTS):
        if name not in tests:
            continue
        iops = block.get(f"{name}_max_iops") or {}
        art, nines = block.get(f"{name}_max_art_ms") or {}, block.get(f"{name}_max_p99999_ms") or {}
        point = _headline_figures.maxiops_point(model, name)
        if iops.get("value") is None:
            shown = "not measured (the MaxIOPS point did not run)"
        else:
            ios = ((tests[name].get("headline") or {}).get("max_total_ios"))
            five = _sections.figure_cell(nines.get("value"), f"{name}_max_p99999_ms") \
                if nines.get("value") is not None or not ios else \
                f"n/r ({ios:,} IOs, {_histogram.needed('99.999'):,} needed)"
            shown = (f"{md.fmt(float(iops['value']), 0)} IOPS · mean response time "
                     f"{_sections.figure_cell(art.get('value'), f'{name}_max_art_ms')} · 99.999 % {five}")
        rows.append([f"{title} MaxIOPS" + (f" ({md.text(point)})" if point else ""), shown,
                     _sections.state_cell(iops.get("state"))])
    if not rows:
        return [], []
    return rows, ["CBW and DIRTH: measured at the MaxIOPS point after its pre-write (fio's IOPS and mean response "
                  "time; the 99.999 % of all its IOs from fio's merged latency histogram); the point is chosen from "
                  "the TC × QD loop's window."]


# CBW's and DIRTH's plots take the longest of all: DIRTH draws one more surface.
def round_parts(result: dict) -> list[tuple[str, int]]:
    """Its rounds by phase: preconditioning, the TC × QD loop and the operating points."""
    if not result.get("precondition"):
        return []
    return [("preconditioning", int(result["precondition"].get("rounds_run") or 0)),
            ("TC × QD loop", int((result.get("loop") or {}).get("rounds_run") or 0)),
            ("operating points", len(result.get("points") or []))]


def _fleet_cell(drive: dict, test: str) -> str:
    """A CBW's or DIRTH's MaxIOPS point in the fleet's PTS 2.0 table (IOPS · ART ms · 99.999 % ms, its TC/QD); italic
    when the test was not steady."""
    figures, steady = drive.get("headline") or {}, drive.get("headline_steady") or {}
    unresolved = drive.get("unresolved") or {}
    if figures.get(f"{test}_max_iops") is None:
        return "not measured"
    point = (drive.get("maxiops_points") or {}).get(test)
    text = " · ".join(md.fmt(float(figures[f]), digits) if figures.get(f) is not None else
                      "n/r" if f in unresolved else "not measured" for f, digits in (
                          (f"{test}_max_iops", 0), (f"{test}_max_art_ms", 3), (f"{test}_max_p99999_ms", 3)))
    text += f" ({md.text(point)})" if point else ""
    return text if steady.get(f"{test}_max_iops") else f"*{text}*"


def _fleet_record(model: dict) -> dict:
    """Where each test's MaxIOPS was measured ("TC2/QD4"), for the fleet's table."""
    return {"maxiops_points": {name: point for name in OPERATING_POINT_TESTS
                               if (point := _headline_figures.maxiops_point(model, name))}}


_FLEET_HEADERS = {"cbw": "CBW MaxIOPS (IOPS · ART ms · 99.999 % ms)",
                  "dirth": "DIRTH MaxIOPS (IOPS · ART ms · 99.999 % ms)"}
_FLEET_NOTE = ("CBW's and DIRTH's MaxIOPS point as measured after its pre-write (IOPS, mean response time, the 99.999 % "
               "of all its IOs from fio's histogram; the point's TC/QD)")


KIND = ReportKind(name="intensity", build=_intensity.build, plots=_intensity_plots.plots, section=section,
                  plot_weights={"cbw": 10.0, "dirth": 11.0}, steady_rule=True, steady_note=PTS2_STEADY_NOTE,
                  steady_row=True, summary=summary, round_parts=round_parts, fleet_record=_fleet_record,
                  fleet_columns=tuple(FleetColumn("pts2", name, _FLEET_HEADERS[name], _fleet_cell,
                                                  note=_FLEET_NOTE if index == 0 else "")
                                      for index, name in enumerate(OPERATING_POINT_TESTS)))
