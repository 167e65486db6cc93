# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The XSR (cross stimulus recovery) report section in Markdown (the model: _xsr.py; the figures: _xsr_plots.py).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._xsr import (
    FINAL_SHARE_PCT, STANDARD, TIME_NOTE, minutes_text)
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _xsr, _xsr_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetColumn, PTS2_STEADY_NOTE, ReportKind


# Rows per group in the samples table (a group of 480 samples shows its first and last ten and ten between).
GROUP_TABLE_ROWS = 30


def _log_check(result: dict) -> str:
    """fio's bw log beside the status-dump samples: the mean of each group's log lines, which is not its throughput
    (fio does not log a run's last partial interval, and a status window starts at one of fio's dumps, a logging
    interval at the job's start)."""
    parts = [f"group {g['number']} {md.fmt(g['log']['mean_mb_s'], 1)} MB/s" for g in result["groups"]
             if g.get("log") and g["log"].get("mean_mb_s") is not None]
    if not parts:
        return ""
    return (f"For comparison, the mean of each group's bw log lines: {', '.join(parts)} - not its throughput: fio "
            "does not log a run's last partial interval, and its intervals start at the job's start, the samples' "
            "at fio's status dumps.")


def _ms_text(value: float) -> str:
    return f"{value:,.0f} ms" if value < 10000 else f"{value / 1000:,.1f} s"


def _idle_lines(result: dict) -> list[str]:
    """The drive's idle time within and between the groups, as fio's logs show it."""
    idle = result.get("idle")
    if not idle:
        return []
    interval = idle["interval_ms"]
    longest = idle.get("longest_idle_ms") or 0.0
    if not idle.get("idle_periods", idle["gaps"]):
        within = (f"**none**: within each group every logging interval of {interval:g} ms had IO completing or in "
                  "flight, so the drive was never idle for a logging interval - below fio's logging granularity")
    elif longest < interval:
        within = (f"**below fio's logging granularity**: at most {_ms_text(longest)} at a time ({_ms_text(idle['within_ms'])} "
                  f"in all, {idle['idle_periods']} period(s)), less than one {interval:g}-ms logging interval")
    else:
        within = (f"**{_ms_text(idle['within_ms'])}** in {idle['idle_periods']} period(s), the longest "
                  f"{_ms_text(longest)}")
    lines = [f"Idle time between the samples of a group, measured from fio's interval logs (`round-01_bw.log`: one "
             f"line per {interval:g}-ms interval in which IO completed, none for an interval without; "
             "`round-01_lat.log`: the mean latency of the IOs completing, so an interval without a completion while "
             f"IOs were in flight is a stall of the drive, not idle time): {within}."]
    if idle.get("stall_ms"):
        lines[0] += (f" Intervals without a completion while IO was in flight (the drive stalled, the host did not "
                     f"stop): up to {_ms_text(idle['stall_ms'])} per group (longest time between two bw log lines "
                     f"{_ms_text(idle['longest_gap_ms'])}).")
    per_group = idle.get("per_group") or []
    if per_group:
        lines[0] += " Per group, idle in all: " + ", ".join(
            f"group {g['group']} {_ms_text(g['idle_ms'])}" for g in per_group) + "."
    between = "; ".join(f"group {b['from']} → {b['to']}: {b['idle_s']:.2f} s" for b in idle["between"])
    if between:
        lines[0] += (f" Between the groups ({between}) one fio run ended and the next started: from fio's final "
                     "report of one group (as its run ended) to the next group's start (its first status dump less "
                     "its run time), both on fio's clock.")
    return lines + [""]


def _counted(group: dict, continuous: bool) -> str:
    """A group's samples against its plan: "6 of 6", or for one continuous run "7 (6 planned)"."""
    return f"{group['samples']:,} ({group['planned']:,} planned)" if continuous else \
        f"{group['samples']:,} of {group['planned']:,}"


def _status_line(result: dict) -> str:
    continuous = result.get("time_base") == "status"
    done = ", ".join(f"group {g['number']} {_counted(g, continuous)}" for g in result["groups"])
    return {
        "complete": f"**Complete**: every group ran all its samples ({done}).",
        "incomplete": f"**Incomplete**: the test stopped before every group ran all its samples ({done}); the figures "
                      "below are from the samples that finished.",
        "failed": f"**Failed** after {result.get('rounds_run', 0)} finished sample(s) ({done}); the figures below are "
                  "from those samples only.",
        "no rounds": "**No sample finished**; nothing was measured.",
    }[result["status"]]


def _round_link(test: str, group: int, sample: int, text: str, linked: bool = True) -> str:
    """A sample linked to its round file; a sample cut from fio's logs has none of its own (``linked`` False)."""
    return f"[{text}]({test}/group{group}/round-{sample:02d}.json)" if linked else text


def _transition_row(test: str, title: str, transition: dict, target: str) -> list[str]:
    if transition["sample"] is not None:
        outcome = _round_link(test, transition["to"], transition["sample"], f"sample {transition['sample']:,}",
                              transition.get("linked", True))
        minutes = f"**{minutes_text(transition['minutes'])}**"
    else:
        outcome, minutes = md.text(transition["reason"]), md.DASH
    return [title, target, outcome, minutes, minutes_text(transition["stimulus_min"]), minutes_text(transition["at_min"])]


def _transitions(result: dict) -> list[str]:
    tolerance = result["tolerance_pct"]
    transitions = result["transitions"]
    settle, recovery = transitions["settle"], transitions["recovery"]

    def band(low, high):
        return md.DASH if low is None else f"{md.fmt(low, 1)} – {md.fmt(high, 1)} MB/s"

    def at_least(transition):
        return md.DASH if transition["low_mb_s"] is None else f"≥ {md.fmt(transition['low_mb_s'], 1)} MB/s"

    test = result["test"]
    rows = [_transition_row(test, "**Settle**, group 1 → 2", settle, band(settle["low_mb_s"], settle["high_mb_s"])),
            _transition_row(test, "**Recovery**, group 2 → 3", recovery, at_least(recovery))]
    if "recovery_at_mean" in transitions:
        rows.append(_transition_row(test, "Recovery, group 2 → 3, as ADATA counts it (tolerance 0)",
                                    transitions["recovery_at_mean"], at_least(transitions["recovery_at_mean"])))
    reach = f"less {tolerance:g} %" if tolerance else "itself"
    adata = "; that figure is given too." if tolerance else ", as here."
    lines = ["Minutes per transition, each counted from the start of the new group's first sample to the end of the "
             "sample named (the time axis of the plots):", "",
             f"- **Settle (group 1 → 2)**: the first group-2 sample from which every later sample's throughput stays "
             f"within ±{tolerance:g} % of group 2's final level (the mean of its last {FINAL_SHARE_PCT} % of "
             "samples). It shows how long the drive takes to reach its random-write level after the sequential fill.",
             f"- **Recovery (group 2 → 3)**: the first group-3 sample whose throughput reaches the group-1 mean "
             f"{reach} (tolerance pts_run_xsr_recovery_tolerance_pct = {tolerance:g} %). ADATA's port of PTS 2.0 "
             f"counts the first minute that reaches the group-1 mean itself (tolerance 0){adata}",
             "- The PTS 2.0.2 procedure text for XSR was not available to this collection: the settle rule is its "
             "own, the recovery rule ADATA's with a tolerance; both are stated so the figures can be compared with "
             "other reports.", ""]
    lines += md.table(["Transition", "Target", "Reached at", "Minutes into the group", "Writing (min)",
                       "Test minute"], rows)
    lines += ["", "*Writing (min)*: the group's fio run time up to and including that sample (the controller's time "
                  "between samples left out)."]
    return lines


def _summary_lines(result: dict, number: int, continuous: bool) -> list[str]:
    """Section .1: the groups' figures, and how each is counted."""
    lines = []
    lines += [f"### {number}.1 Summary", "", _status_line(result), ""]
    rows = []
    for group in result["groups"]:
        rows.append([f"**{group['number']}** {group['access']}", _counted(group, continuous),
                     minutes_text(group["duration_min"]), md.fmt(group["mean_mb_s"], 1),
                     md.fmt(group["final_mb_s"], 1) + (f" ({group['final_samples']})" if group["samples"] else ""),
                     md.fmt(group["mean_iops"], 0), md.fmt(group["mean_art_ms"], 3), md.fmt(group["peak_art_ms"], 3),
                     md.fmt(group["peak_mrt_ms"], 3)])
    lines += md.table(["Group (access)", "Samples", "Duration (min)", "Mean MB/s", "Final MB/s (samples)",
                       "Mean IOPS", "Mean ART (ms)", "Peak ART (ms)", "Peak MRT (ms)"], rows)
    if continuous:
        lines += ["", "Mean MB/s and mean IOPS: the group's bytes and IOs over its run time (fio's own figures for the "
                      "whole run; the recovery's reference); mean ART weighted by each sample's IOs. "
                      f"Final MB/s: over the samples that cover the group's last {FINAL_SHARE_PCT} % of run time (how "
                      "many in brackets). Peak ART: the highest of the samples' mean response times; peak MRT: the "
                      "slowest single IO. Duration: from the start of the group's first sample to the end of its last. "
                      + _log_check(result), ""]
    else:
        lines += ["", f"Final MB/s: the mean of the group's last {FINAL_SHARE_PCT} % of samples (at least one; how many "
                      "in brackets). Peak ART: the highest of the samples' mean response times; peak MRT: the slowest "
                      "single IO. Duration: from the start of the group's first sample to the end of its last.", ""]
    return lines


def _samples_lines(result: dict, number: int) -> list[str]:
    """Section .4: every sample's figures per group, linked to its round file."""
    lines = []
    lines += [f"### {number}.4 Samples", "", "Every sample's figures, linked to its round file; a long group shows its "
              "first and last ten samples and evenly spaced ones between.", ""]
    for group in result["groups"]:
        own = [s for s in result["samples"] if s["group"] == group["number"]]
        if not own:
            continue
        shown, note = _sections.sampled(own, GROUP_TABLE_ROWS)
        lines += [f"<details><summary>Group {group['number']} ({group['access']}): {md.plural(len(own), 'sample')}"
                  "</summary>", ""]
        lines += md.table(["Test minute", "Sample", "Seconds", "MB/s", "IOPS", "ART (ms)", "MRT (ms)"], [
            [minutes_text(s["t_min"]), _round_link(result["test"], s["group"], s["sample"], f"{s['sample']:,}"),
             md.fmt(s["runtime_s"], 3), md.fmt(s["mb_s"], 1), md.fmt(s["iops"], 0), md.fmt(s["art_ms"], 3),
             md.fmt(s["mrt_ms"], 3)] for s in shown])
        lines += (["", note] if note else []) + ["", "</details>", ""]
    return lines


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    title = result.get("title") or "Cross Stimulus Recovery"
    lines = [f"## {number} {title}", "", *_sections.status_notes(result)]
    lines += [f"> Note: {md.text(note)}" for note in result.get("notes") or []]
    if result.get("notes"):
        lines.append("")
    if not result.get("rounds_run"):
        return lines + [_status_line(result), ""]
    settings = result["settings"]
    seconds = float(settings.get("round_seconds") or 0)
    minutes = (settings.get("parameters") or {}).get("group_minutes") or STANDARD["xsr_group_minutes"]
    loop = [f"Group {g['number']}: {g['access']} for {float(m):g} min = {g['planned']:,} samples of {seconds:g} s"
            for g, m in zip(result["groups"], minutes)]
    base = result.get("time_base")
    continuous = base == "status"
    how = {"status": "  each group one continuous fio run; its samples are the windows between fio's status dumps, "
                     f"every {seconds:g} s"}.get(
        base, "  each sample one fio round; a sequential group writes on from where its last sample ended")
    figures = {
        "status": "A sample's figures are fio's own counters at the status dump that ends it less those at the one "
                  "before (the bytes, IOs and latency sum of exactly the IOs in it, over its run time): throughput "
                  "(MB/s, 10⁶ bytes/s), IOPS and mean response time (ART); its maximum response time (MRT) is fio's "
                  "maximum where it rose in the sample, else the slowest bucket of the sample's own latency histogram "
                  "(json+), so one slow IO is the MRT of one sample only. The first sample of a group is shorter by "
                  "fio's set-up, and the last - fio's run after its last status dump - is short (its length is in the "
                  "samples table). The group's interval logs give the plots' fine line and the idle time, never a "
                  "figure. ",
    }.get(base, "A sample's figures are its fio section's: throughput (MB/s, 10⁶ bytes/s), IOPS, mean response time "
                "(ART) and maximum response time (MRT). ")
    lines += ["Purge (no preconditioning), then three access groups back to back (SNIA PTS 2.0 cross stimulus "
              "recovery):", "", "```", *loop, how, "```", "",
              f"Each sample uses direct I/O, random data, {md.plural(int(settings.get('numjobs') or 1), 'thread')} × "
              f"queue depth {settings.get('iodepth')}, 100 % writes. " + figures
              + "Latency is fio's total latency (submission + completion). There is no "
              f"steady state. Time in this section is {TIME_NOTE[result.get('time_base') or 'fio']}"
              + (f"; between two samples the drive was idle for {result['mean_gap_s']:.2f} s on average (from one "
                 "sample's last IO to the next one's first: the result's way to the controller, the next round's start "
                 "and fio's start-up), idle time that lets a drive recover a little, as any does"
                 if result.get("mean_gap_s") is not None else "") + ".", ""]
    lines += _idle_lines(result)
    lines += _summary_lines(result, number, continuous)
    lines += [f"### {number}.2 Recovery per transition", ""] + _transitions(result) + [""]
    lines += [f"### {number}.3 Plots", ""]
    lines += _sections.images(plots_rel, {
        "throughput": "XSR Throughput Plot: write MB/s of every sample against time on a linear axis from zero, "
                      "one colour per group, dashed lines where a group started; the band is group 2's final level "
                      "± the tolerance, the dotted line the group-1 mean (and the dashed green line that mean less "
                      "the tolerance, over group 3); stars mark where group 2 settled and group 3 recovered.",
        "panels": "XSR Throughput and Response Time Plot: MB/s, mean response time and maximum response time of every "
                  "sample on one time axis (a panel whose values span decades is on a log scale, so random-write "
                  "throughput far below the sequential one can be read here).",
    })
    lines += _samples_lines(result, number)
    lines += [f"### {number}.5 Purge and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)], KIND)
    if continuous:
        lines += ["", "Each group ran one fio job file, `round-01.fio` in its directory; the round files are the "
                      "samples cut at fio's status dumps while it ran, each filed the moment it ended (`round-NN.json` "
                      "parsed, `round-NN.raw.json` the status dump as fio wrote it), and the group's interval logs, "
                      "kept when its run ended, are `round-01_bw.log`, `round-01_iops.log`, `round-01_lat.log` (with "
                      "`_clat`, `_slat`).", ""]
        return lines
    lines += _sections.file_links(result["test"], [(g["name"], g["round_files"]) for g in result["groups"]
                                                   if g["round_files"]], wipc=False)
    return lines


def summary(model: dict, block: dict, wanted: set) -> tuple[list, list]:
    """The summary page's row, as OakGate's has it: when group 3 recovered."""
    result = (model.get("tests") or {}).get("xsr")
    if result is None:
        return [], []
    recovery = (result.get("transitions") or {}).get("recovery") or {}
    minutes = recovery.get("minutes")
    if minutes is not None:
        shown = (f"{minutes:,.1f} min into group 3 (sample {recovery.get('sample')}): throughput back within "
                 f"{recovery.get('tolerance_pct', 0):g} % of group 1's mean")
    else:
        shown = md.text(recovery.get("reason") or "not recovered")
    return [["XSR recovery", shown, md.text(result.get("status"))]], []


def round_parts(result: dict) -> list[tuple[str, int]]:
    """Its round files per group: a group's samples as fio's status dumps cut them while it ran (the report's samples
    may be cut from its interval logs, one fewer)."""
    return [(f"group {g['number']}", len(g.get("round_files") or [])) for g in result.get("groups") or []]


def fio_time(result: dict, io_s: float, process_s: float, runs: int, rest: float) -> str | None:
    """One continuous fio run per group: its round files are windows of it, back to back."""
    if result.get("time_base") != "status":
        return None
    runs = sum(1 for g in result.get("groups") or [] if g.get("round_files"))
    return (f"{io_s:,.1f} s of I/O in {runs:,} fio runs, one per group, each sample's window following the one "
            "before it without a pause")


def _fleet_cell(drive: dict, test: str) -> str:
    """XSR's recovery in the fleet's PTS 2.0 table: minutes into group 3."""
    minutes = (drive.get("headline") or {}).get("xsr_recovery_min")
    return md.fmt(float(minutes), 1) if minutes is not None else "not recovered"


KIND = ReportKind(name="xsr", build=_xsr.build, plots=_xsr_plots.plots, section=section, plot_weight=2.0,
                  steady_note=PTS2_STEADY_NOTE, summary=summary, round_parts=round_parts, fio_time=fio_time,
                  fleet_columns=(FleetColumn("pts2", "xsr", "XSR recovery (min into group 3)", _fleet_cell,
                                             note="XSR's recovery (minutes into group 3 until its throughput is back "
                                                  "at group 1's mean less the tolerance)"),))
