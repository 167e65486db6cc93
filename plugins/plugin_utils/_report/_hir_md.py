# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The HIR (host idle recovery) report section in Markdown (the model: _hir.py; the figures: _hir_plots.py).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._hir import PC_SEGMENT, sources
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir, _hir_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetColumn, PTS2_STEADY_NOTE, ReportKind
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._pts2 import HIR_WAIT_STATES


# Report section


def _pseudo_code(result: dict) -> list[str]:
    params = result["parameters"]
    pc = result["precondition"]
    burst = params.get("burst_seconds")
    base_s = params.get("baseline_seconds")
    sample_s = params.get("baseline_sample_seconds")
    states = ", ".join(str(s) for s in result["planned_wait_states"])
    reps = params.get("repetitions")
    # Results of earlier versions ran each burst and each baseline part as stonewalled sections.
    sections = [s["baseline"] for s in result["wait_states"] if s.get("baseline") and s["baseline"].get("unit") ==
                "section"]
    if sections:
        baseline = (f"  Round 2: return to baseline, {_secs(base_s)} s of continuous 4k random write"
                    + (f" ({sections[0]['count']} sections of {base_s / sections[0]['count']:g} s back to back)"
                       if base_s and sections[0]["count"] else ""))
        once = ";"
    else:
        baseline = (f"  Round 2: return to baseline, {_secs(base_s)} s of continuous 4k random write, one fio section"
                    + (f" (samples of {sample_s:g} s cut at fio's status dumps)" if sample_s else ""))
        once = ", one fio run;"
    return [
        "```",
        "Purge (no workload-independent preconditioning)",
        f"While not steady state and round < {pc['max_rounds']}:",
        f"  4k random write (0/100) for {_secs(pc.get('seconds'))} s "
        "(one fio section; its IOPS the round's DV)",
        f"For wait state N in [{states}]:",
        f"  Round 1: {reps} x ({burst:g} s of 4k random write, then N x {burst:g} s idle){once}"
        if burst else f"  Round 1: {reps} bursts of 4k random write with N x the burst idle between them{once}",
        f"           burst i starts at i x (N + 1) x {burst:g} s from fio's start" if burst else
        "           burst i starts at i x (N + 1) x the burst from fio's start",
        baseline,
        "```",
        "",
    ]


def _secs(value: float | None) -> str:
    return f"{float(value):g}" if value else "?"


def _oio(settings: dict) -> str:
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    if not numjobs or not iodepth:
        return ""
    return f"{md.plural(int(numjobs), 'thread')} × queue depth {iodepth} = OIO {int(numjobs) * int(iodepth)}"


def _status_line(result: dict) -> str:
    pc = result["precondition"]
    missing = []
    for entry in result["wait_states"]:
        if not entry["planned"] or entry["complete"]:
            continue
        lacks = [w for w, p in (("bursts", "bursts"), ("return to baseline", "baseline")) if not entry.get(p)]
        missing.append(f"{entry['label']} lacks its {' and '.join(lacks)}")
    text = {
        "steady": f"**Steady**: {result['steady_text']}, each with its bursts and its return to baseline.",
        "not steady": f"**Not steady**: {result['steady_text']}; the wait states ran after a preconditioning that "
                      "did not reach steady state, so the line they are compared with is not a steady-state figure.",
        "incomplete": f"**Incomplete**: {result['steady_text']}" + (f"; {'; '.join(missing)}." if missing else "."),
        "failed": f"**Failed** after {result['rounds_run']} finished round(s) ({result['steady_text']}); the figures "
                  "below are from those rounds only.",
        "no rounds": "**No round finished**; nothing was measured.",
    }[result["status"]]
    if result["status"] == "incomplete" and pc["rounds_run"] and not pc["steady"] and \
            pc["rounds_run"] < pc["max_rounds"]:
        text += " The preconditioning stopped before steady state or its round limit."
    return text


def _fmt_ratio(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else md.DASH


def _pc_head(pc: dict) -> str:
    """The preconditioning figure's column head: steady-state only when its window was steady."""
    return "Preconditioning steady-state IOPS" if pc.get("steady") else \
        "Preconditioning last-window IOPS (not steady)"


def _gain_cell(entry: dict) -> str:
    if entry.get("not_valid") and entry.get("gain") is not None:
        return f"n/r (×{entry['gain']:.2f} measured; schedule not held)"
    return _fmt_ratio(entry.get("gain"))


def _measured_idle(entry: dict) -> str:
    gaps = (entry.get("idle") or {}).get("between_bursts")
    if not gaps:
        return md.DASH
    return md.fmt(gaps["mean"], 2) if gaps["count"] == 1 or gaps["min"] == gaps["max"] else \
        f"{md.fmt(gaps['mean'], 2)} ({md.fmt(gaps['min'], 2)} – {md.fmt(gaps['max'], 2)})"


def _recovery_table(result: dict) -> list[str]:
    pc = result["precondition"]
    rows = []
    for entry in result["wait_states"]:
        bursts, base = entry.get("bursts") or {}, entry.get("baseline") or {}
        rows.append([
            entry["label"] + ("" if entry["planned"] else " (not planned)"),
            md.fmt(entry.get("idle_s"), 2) if entry.get("idle_s") is not None else md.DASH,
            _measured_idle(entry),
            str(bursts.get("count", 0)) if bursts else md.DASH,
            md.fmt(bursts.get("mean")), md.fmt(bursts.get("min")), md.fmt(bursts.get("max")),
            md.fmt(base.get("mean")) + (f" ({base['count']})" if base else ""),
            md.fmt(pc.get("iops")), _gain_cell(entry), _fmt_ratio(entry.get("burst_over_baseline")),
        ])
    unit = next((s["baseline"].get("unit") for s in result["wait_states"] if s.get("baseline")), None) or "section"
    return md.table(["Wait state", "Planned idle (s)", "Measured idle between bursts (s)", "Bursts",
                     "Burst IOPS mean", "Burst IOPS min", "Burst IOPS max", f"Baseline IOPS mean ({unit}s)",
                     _pc_head(pc), "Gain (burst mean ÷ PC)", "Burst mean ÷ baseline mean"], rows)


def _schedule_lines(result: dict) -> list[str]:
    """The bursts' schedule as measured: the rule, and every late burst named with the idle around it."""
    states = [s for s in result["wait_states"] if (s.get("bursts") or {}).get("schedule")]
    if not states:
        return []
    rule = states[0]["bursts"]["schedule"]["rule"]
    lines = [f"**Burst schedule**, measured: each burst's start from fio's iops log (its first logging interval), "
             f"its end that start plus fio's run time of it. Rule: {rule}."]
    late = []
    for entry in states:
        schedule = entry["bursts"]["schedule"]
        for found in schedule["late"]:
            around = [f"idle before it {md.fmt(found['idle_before_s'], 2)} s" if found["idle_before_s"] is not None
                      else None,
                      f"after it {md.fmt(found['idle_after_s'], 2)} s" if found["idle_after_s"] is not None else None]
            late.append(f"- **{entry['label']} burst {found['burst']}** started {found['late_s']:.2f} s late "
                        f"(tolerance {schedule['tolerance_s']:.2f} s; planned idle {schedule['planned_idle_s']:g} s"
                        + "".join(f", {a}" for a in around if a) + ").")
        if schedule["unplaced"]:
            late.append(f"- **{entry['label']}**: burst(s) {', '.join(str(n) for n in schedule['unplaced'])} not "
                        "found in fio's iops log: the schedule cannot be checked.")
    held = [s["label"] for s in states if s["bursts"]["schedule"]["held"]]
    if late:
        lines[0] += (" **Not held** by " + ", ".join(s["label"] for s in states if not s["bursts"]["schedule"]["held"])
                     + ": its figures are shown but are not a result for the wait state (gain n/r); repeat the test.")
        return lines + [""] + late + [""] + ([f"Held: {', '.join(held)}.", ""] if held else [])
    return [lines[0] + f" Held by every wait state ({', '.join(held)}).", ""]


def _idle_table(result: dict) -> list[str]:
    """The idle time of each wait state as fio measured it, beside the plan's."""
    idle = result.get("idle")
    if not idle:
        return []
    interval = idle["interval_ms"]
    rows = []
    for entry in result["wait_states"]:
        found = entry.get("idle") or {}
        within = found.get("baseline_idle_ms")
        longest = found.get("baseline_longest_idle_ms") or 0.0
        rows.append([
            entry["label"], md.fmt(entry.get("idle_s"), 2) if entry.get("idle_s") is not None else md.DASH,
            str(found["bursts_logged"]) if found.get("bursts_logged") is not None else md.DASH,
            _measured_idle(entry),
            md.fmt(found.get("before_baseline_s"), 2) if found.get("before_baseline_s") is not None else md.DASH,
            md.DASH if within is None else
            "none" if not within else
            f"< {interval:g} ms (longest {longest:,.0f} ms, {within:,.0f} ms in all)" if longest < interval else
            f"{within / 1000:,.2f} s (longest {longest / 1000:,.2f} s)",
        ])
    return ["Idle time as fio measured it. Between two bursts: from one burst's end (its start plus fio's run time of "
            "it, so its last logging interval, which fio does not log, is counted) to the next one's start; a start is "
            f"read from the burst's first line of `round-NN_iops.log` (one line per {interval:g}-ms interval with IO, "
            f"all threads added up), so each idle time is good to within a {interval:g}-ms interval. Before the "
            "return to baseline: from fio's final report of the bursts (written as the last one ended) to the "
            "baseline's start (its first status dump less its run time). Within the return to baseline, one "
            "continuous fio run: intervals without a completion in the iops log and without IO in flight in "
            "`round-NN_lat.log` (an interval without a completion while IO was in flight is a stall of the drive, "
            f"not idle time; \"< {interval:g} ms\": below fio's logging granularity).", "",
            *md.table(["Wait state", "Planned idle between bursts (s)", "Bursts in the log",
                       "Measured idle between bursts (s): mean (min – max)", "Idle before the baseline (s)",
                       "Idle within the baseline"], rows), ""]


def _bursts_tables(result: dict) -> list[str]:
    """Every burst of each wait state as fio counted it (a long wait state: its first and last ten and those
    between evenly spaced, every late one among them)."""
    lines = []
    for entry in result["wait_states"]:
        bursts = (entry.get("bursts") or {}).get("per_burst")
        if not bursts:
            continue
        shown, note = _sections.sampled(bursts, 30)
        note = note.replace("every round is in result.json and its round file", "every burst is in result.json")
        late = [b for b in bursts if b.get("late") and b not in shown]
        shown = sorted(shown + late, key=lambda b: b["burst"])
        lines += [f"<details><summary>{entry['label']}: {md.plural(len(bursts), 'burst')} as fio counted them"
                  "</summary>", ""]
        lines += md.table(["Burst", "Start (s)", "Run time (s)", "IOs", "IOPS", "MB/s", "Late (s)"], [
            [str(b["burst"]), md.fmt(b.get("start_s"), 2) if b.get("measured") else "not in the log",
             md.fmt(b["runtime_ms"] / 1000.0, 3), f"{b['ios']:,}", md.fmt(b["iops"]), md.fmt(b["mb_s"], 1),
             (f"**{b['late_s']:.2f}**" if b.get("late") else md.fmt(b.get("late_s"), 2)) if b.get("measured")
             else md.DASH] for b in shown])
        lines += (["", note] if note else []) + ["", "</details>", ""]
    return lines


def _steps(result: dict) -> list[str]:
    pc = result["precondition"]
    rows = [_sections.purge_row("Purge", result.get("purge"))]
    ended = {"steady": f"steady at round {pc['steady_round']}", "not steady": "round limit reached, not steady"}
    rows.append(["Preconditioning (4k random write)",
                 f"{md.plural(pc['rounds_run'], 'round')} of {_secs(pc.get('seconds'))}"
                 f" s — {ended.get(pc['status'], '**not finished**')}",
                 md.fmt(pc["fio_s"]) + " s" if pc.get("fio_s") is not None else md.DASH])
    for entry in result["wait_states"]:
        for phase, words in (("bursts", "bursts"), ("baseline", "return to baseline")):
            part = entry.get(phase)
            what = (f"{md.plural(part['count'], part.get('unit') or 'section')}, {md.fmt(part['seconds'], 1)} s of "
                    "writes") if part else "**not run**"
            rows.append([f"{entry['label']} {words}", what,
                         md.fmt(part["fio_s"]) + " s" if part and part.get("fio_s") is not None else md.DASH])
    rows += _sections.timing_rows(result, KIND)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


def _preconditioning_lines(result: dict, plots_rel: dict, number: int) -> list[str]:
    """Sections .1 and .2: the preconditioning's steady state, its rounds and plots."""
    pc = result["precondition"]
    lines = []
    lines += [f"### {number}.1 Preconditioning steady state information", ""]
    if pc.get("dv"):
        dv = pc["dv"]
        lines += [_sections.verdict_line({"settings": {"max_rounds": pc["max_rounds"]}, "status": pc["status"],
                                          "steady_round": pc["steady_round"], "rounds_run": pc["rounds_run"]},
                                         "Preconditioning"), ""]
        lines += [f"Dependent variable: {dv['name']}, the IOPS of the round's `hir-pc` section.", ""]
        lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, pc["max_rounds"], pc["steady_round"],
                                     pc["rounds_run"])
        lines += ["", "Every preconditioning round as the steady-state check saw it:", ""]
        lines += _sections.round_table([dv], {"iops": ("IOPS", 1.0, 1)})
        lines += _sections.mismatch_warning(result)
        lines += ["", f"### {number}.2 Preconditioning plots", ""]
        lines += _sections.images(plots_rel, {
            "convergence": "PC IOPS: the preconditioning's 4k random write IOPS per round, the measurement window "
                           "shaded.",
            "verification": _sections.VERIFICATION_CAPTION,
        })
    else:
        lines += ["No preconditioning round finished.", ""]
    return lines


def _time_lines(result: dict, plots_rel: dict, number: int, measured: list[dict]) -> list[str]:
    """Section .3: IOPS against time - fio's iops log where it was kept, else each fio section as one point."""
    logged = result.get("idle") is not None
    lines = []
    lines += [f"### {number}.3 IOPS against time", ""]
    if measured and logged:
        lines += _sections.images(plots_rel, {
            "timeline": "IOPS vs time for all wait states with their returns to baseline, on fio's clock: fio's iops "
                        "log as it wrote it (grey line: the IOPS of every logging interval with IO, all threads added "
                        "up; nothing logged while the drive was idle, nor for a burst's last partial interval), every "
                        "burst (red: fio's IOPS of the burst, at its start; a late burst ringed) and every baseline "
                        "sample (blue: fio's IOPS between two status dumps, at the sample's end); wait states shaded "
                        "orange and labelled, returns to baseline shaded blue, the preconditioning's window average "
                        "dashed green.",
            "detail": "The same per wait state, against the time from the wait state's own start: its bursts, then "
                      "its return to baseline.",
        })
        lines += _schedule_lines(result)
        lines += _idle_table(result)
    elif measured:
        lines += _sections.images(plots_rel, {
            "timeline": "IOPS vs time for all wait states with their returns to baseline: every burst (red) and "
                        "every baseline section (blue) is one fio section and one point, at its start; wait states "
                        "shaded orange and labelled, returns to baseline shaded blue, the preconditioning's "
                        "steady-state window average dashed green. Each round starts at the time its round file "
                        "landed less fio's wall time (recorded_at − elapsed_s); within a round the times are the "
                        "schedule: a burst at its start delay, baseline sections one after another (each after the "
                        "run time of those before it and an equal share of fio's time between sections).",
            "detail": "The same per wait state, against the time from the wait state's own start: its bursts, then "
                      "its return to baseline.",
        })
    else:
        lines += ["No wait-state round finished.", ""]
    return lines


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    del capacity  # nothing here depends on it
    title = f"## {number} {result['title']}"
    if not result.get("rounds_run"):
        return [title, "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    pc = result["precondition"]
    lines = [title, "", *_sections.status_notes(result), _status_line(result), ""]
    lines += ["Purge, then precondition to steady state, then per wait state a round of write bursts with idle time "
              "between them and a round of continuous writes that returns the drive to its baseline:", ""]
    lines += _pseudo_code(result)
    oio = _oio(settings)
    logged = result.get("idle") is not None
    lines += [f"Every fio section runs with direct I/O, random data{', ' + oio if oio else ''}. "
              "Every figure is fio's own count: a burst's IOPS its IOs over the time fio ran it (each burst its own "
              "fio section and reporting group), a baseline sample's the IOs between two of fio's status dumps over "
              "the run time between them, the return to baseline's mean its one section's, the preconditioning's "
              "per round its section's. "
              + ("fio's iops log (`write_iops_log` with `log_avg_msec` of "
                 f"{result['idle']['interval_ms']:g} ms, all threads added up) gives the timeline's shape and each "
                 "burst's start, never a figure; result.json has every line of it (`wait_states[].bursts.log`, "
                 "`wait_states[].baseline.log`: `t_s`, `iops`) and every burst (`wait_states[].bursts.per_burst`: "
                 "IOs, bytes, run time, start, how late)." if logged else ""), ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += sources(result)
    lines += _preconditioning_lines(result, plots_rel, number)
    measured = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    lines += _time_lines(result, plots_rel, number, measured)
    lines += [f"### {number}.4 Recovery per wait state", ""]
    if measured:
        baseline = ("the following return to baseline's IOPS (fio's for its one continuous section; in brackets its "
                    "samples)" if logged else
                    "the mean IOPS of the following return to baseline's sections")
        lines += [f"Per wait state: the idle between its bursts as planned and as measured, the bursts' IOPS (each "
                  f"burst one fio section, its IOPS fio's: its IOs over the time fio ran it), {baseline}, and the "
                  f"preconditioning's {'steady-state' if pc.get('steady') else 'last'} window average. **Gain** = "
                  "mean burst IOPS ÷ that average (this report's choice: the PTS's per-wait-state comparison is not "
                  "confirmed); the last column compares the bursts with the baseline that follows them. Burst means "
                  "are of the bursts' IOPS, each burst weighted alike. A wait state whose schedule did not hold has "
                  "no gain (n/r): the figure measured is shown in brackets.", ""]
        if not pc.get("steady") and pc.get("iops") is not None:
            lines += ["> Note: the preconditioning did not reach steady state; its figure here is its last window's "
                      "average, and the gains are relative to that.", ""]
        lines += _recovery_table(result) + [""] + _bursts_tables(result)
        lines += _sections.images(plots_rel, {
            "recovery": "Recovery per wait state: mean burst IOPS (whiskers from the slowest to the fastest burst) "
                        "with its gain over the preconditioning's steady-state average, beside the mean IOPS of the "
                        "return to baseline that followed; the preconditioning's average dashed green.",
        })
    else:
        lines += ["No wait-state round finished.", ""]
    lines += [f"### {number}.5 Purge, preconditioning and files", ""]
    lines += _steps(result)
    segments = [(PC_SEGMENT, pc["round_files"])] if pc["round_files"] else []
    segments += [(f"ws{s['wait_state']}", s["round_files"]) for s in result["wait_states"] if s["round_files"]]
    lines += _sections.file_links(result["test"], segments, wipc=False)
    return lines


def summary(model: dict, block: dict, wanted: set) -> tuple[list, list]:
    """The summary page's row, as OakGate's has it: the gain per wait state."""
    result = (model.get("tests") or {}).get("hir")
    if result is None:
        return [], []
    gains = [f"{e['label']} n/r ({e['not_valid']})" if e.get("not_valid") else f"{e['label']} ×{e['gain']:.2f}"
             for e in result.get("wait_states") or [] if e.get("gain") is not None]
    pc = (result.get("precondition") or {}).get("iops")
    shown = (" · ".join(gains) + (f" (over the preconditioning's {md.fmt(pc, 0)} IOPS)" if pc else "")) if gains \
        else "not measured"
    return [["HIR gain per wait state (mean burst IOPS ÷ preconditioning)", shown,
             _sections.state_cell(result.get("status"))]], []


def round_parts(result: dict) -> list[tuple[str, int]]:
    """Its rounds: preconditioning's, then each wait state's."""
    if not result.get("precondition"):
        return []
    return [("preconditioning", int(result["precondition"].get("rounds_run") or 0))] + [
        (entry["label"], len(entry.get("round_files") or [])) for entry in result.get("wait_states") or []]


def fio_time(result: dict, io_s: float, process_s: float, runs: int, rest: float) -> str:
    """HIR's bursts wait on purpose: the idle time between them is part of the rest."""
    return (f"{process_s:,.1f} s: {io_s:,.1f} s of I/O in {runs:,} runs, and {rest:,.1f} s without I/O: the "
            "idle time between bursts, fio's start-up and its pauses between runs")


def _fleet_cell(drive: dict, test: str) -> str:
    """HIR's gain per wait state in the fleet's PTS 2.0 table; italic when its preconditioning was not steady."""
    figures, steady = drive.get("headline") or {}, drive.get("headline_steady") or {}
    unresolved = drive.get("unresolved") or {}
    measured = [f"hir_gain_ws{state}" for state in HIR_WAIT_STATES
                if figures.get(f"hir_gain_ws{state}") is not None or f"hir_gain_ws{state}" in unresolved]
    if not measured:
        return "not measured"
    text = " · ".join(f"WS{figure[len('hir_gain_ws'):]} " + (f"×{figures[figure]:.2f}" if figures.get(figure) is not None
                                                             else "n/r (schedule not held)") for figure in measured)
    # Every wait state's gain is over the same preconditioning: steady or not together.
    return text if steady.get(measured[0]) else f"*{text}*"


KIND = ReportKind(name="hir", build=_hir.build, plots=_hir_plots.plots, section=section, plot_weight=5.0,
                  steady_rule=True, steady_note=PTS2_STEADY_NOTE, steady_row=True,
                  summary=summary, round_parts=round_parts, fio_time=fio_time,
                  fleet_columns=(FleetColumn("pts2", "hir", "HIR gain per wait state", _fleet_cell,
                                             note="HIR's gain per wait state (mean burst IOPS ÷ the preconditioning's "
                                                  "window average)"),))
