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
                    + (f" (samples of {sample_s:g} s cut from its iops log)" if sample_s else ""))
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


def _recovery_table(result: dict) -> list[str]:
    pc_iops = result["precondition"].get("iops")
    rows = []
    for entry in result["wait_states"]:
        bursts, base = entry.get("bursts") or {}, entry.get("baseline") or {}
        rows.append([
            entry["label"] + ("" if entry["planned"] else " (not planned)"),
            md.fmt(entry.get("idle_s"), 1) if entry.get("idle_s") is not None else md.DASH,
            str(bursts.get("count", 0)) if bursts else md.DASH,
            md.fmt(bursts.get("mean")), md.fmt(bursts.get("min")), md.fmt(bursts.get("max")),
            md.fmt(base.get("mean")) + (f" ({base['count']})" if base else ""),
            md.fmt(pc_iops), _fmt_ratio(entry.get("gain")), _fmt_ratio(entry.get("burst_over_baseline")),
        ])
    unit = next((s["baseline"].get("unit") for s in result["wait_states"] if s.get("baseline")), None) or "section"
    return md.table(["Wait state", "Idle between bursts (s)", "Bursts", "Burst IOPS mean", "Burst IOPS min",
                     "Burst IOPS max", f"Baseline IOPS mean ({unit}s)", "Preconditioning SS IOPS",
                     "Gain (burst mean ÷ PC SS)", "Burst mean ÷ baseline mean"], rows)


def _idle_table(result: dict) -> list[str]:
    """The idle time of each wait state as fio's iops logs show it, beside the plan's."""
    idle = result.get("idle")
    if not idle:
        return []
    interval = idle["interval_ms"]
    rows = []
    for entry in result["wait_states"]:
        found = entry.get("idle") or {}
        gaps = found.get("between_bursts")
        within = found.get("baseline_idle_ms")
        longest = found.get("baseline_longest_idle_ms") or 0.0
        rows.append([
            entry["label"], md.fmt(entry.get("idle_s"), 2) if entry.get("idle_s") is not None else md.DASH,
            str(found["bursts_logged"]) if found.get("bursts_logged") is not None else md.DASH,
            f"{md.fmt(gaps['mean'], 2)} ({md.fmt(gaps['min'], 2)} – {md.fmt(gaps['max'], 2)})" if gaps else md.DASH,
            md.fmt(found.get("before_baseline_s"), 2) if found.get("before_baseline_s") is not None else md.DASH,
            md.DASH if within is None else
            "none" if not within else
            f"< {interval:g} ms (longest {longest:,.0f} ms, {within:,.0f} ms in all)" if longest < interval else
            f"{within / 1000:,.2f} s (longest {longest / 1000:,.2f} s)",
        ])
    return [f"Idle time as fio's logs show it (`round-NN_iops.log`: one line per {interval:g}-ms interval in which IO "
            "completed, none for an interval without, all threads added up; `round-NN_lat.log`: the mean latency of "
            "the IOs completing, so an interval without a completion while IO was in flight is a stall of the drive, "
            "not idle time): the time between two bursts' IO, from the last logging interval of one to the start of "
            f"the first of the next (to within {interval:g} ms; a burst whose job fio sets up late starts after its "
            "place on the schedule, which lengthens the idle before it and shortens the one after); the idle time "
            "before the return to baseline (one fio "
            "run ending, the next starting); and within the return to baseline, one continuous fio run (\"< "
            f"{interval:g} ms\": below fio's logging granularity).", "",
            *md.table(["Wait state", "Planned idle between bursts (s)", "Bursts in the log",
                       "Measured idle between bursts (s): mean (min – max)", "Idle before the baseline (s)",
                       "Idle within the baseline"], rows), ""]


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
    rows += _sections.timing_rows(result)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


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
              + ("The wait states' figures are what fio logged: each wait-state round's fio run logs IOPS per "
                 f"{result['idle']['interval_ms']:g}-ms interval (`write_iops_log` with `log_avg_msec`, all threads "
                 "added up); a burst's IOPS is the mean of the lines on its schedule (burst i: the lines from "
                 "i - 1.25 to i - 0.25 periods of burst + idle after the run's first line), a baseline sample's the mean "
                 "of the lines of its span of the run (sample k: the intervals that end from (k - 1) to k sample "
                 "lengths after the run's start), the return to baseline's mean the mean of all its lines. "
                 "result.json has every line of the timeline (`wait_states[].bursts.log`, "
                 "`wait_states[].baseline.log`: `t_s`, `iops`) and fio's own IOPS per burst section "
                 "(`section_iops`). The preconditioning's IOPS per round is fio's for its section."
                 if logged else "Each section's IOPS is fio's for that section (its IOs over its run time)."), ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += sources(result)
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
    measured = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    lines += [f"### {number}.3 IOPS against time", ""]
    if measured and logged:
        lines += _sections.images(plots_rel, {
            "timeline": "IOPS vs time for all wait states with their returns to baseline, on fio's clock: fio's iops "
                        "log as it wrote it (grey line: the IOPS of every logging interval with IO, all threads added "
                        "up; nothing logged while the drive was idle), every burst (red: the mean of its log lines, at "
                        "the start of its IO in the log) and every baseline sample (blue: the mean of its log lines, "
                        "at the sample's end); wait states shaded orange and labelled, returns to "
                        "baseline shaded blue, the preconditioning's steady-state window average dashed green.",
            "detail": "The same per wait state, against the time from the wait state's own start: its bursts, then "
                      "its return to baseline.",
        })
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
    lines += [f"### {number}.4 Recovery per wait state", ""]
    if measured:
        baseline = ("the following return to baseline's IOPS (the mean of every line its one continuous fio run "
                    "logged; in brackets its samples)" if logged else
                    "the mean IOPS of the following return to baseline's sections")
        lines += [f"Per wait state: the bursts' IOPS (each burst one fio section, its IOPS "
                  f"{'the mean of its log lines' if logged else 'fio' + chr(39) + 's for the section'}), {baseline}, and the "
                  "preconditioning's steady-state window average. **Gain** = mean burst IOPS ÷ the preconditioning's "
                  "steady-state average (this report's choice: the PTS's per-wait-state comparison is not confirmed); "
                  "the last column compares the bursts with the baseline that follows them. Burst means are of the "
                  "bursts' IOPS, each burst weighted alike.", ""]
        if not pc.get("steady") and pc.get("iops") is not None:
            lines += ["> Note: the preconditioning did not reach steady state; its figure here is its last window's "
                      "average, and the gains are relative to that.", ""]
        lines += _recovery_table(result) + [""]
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
