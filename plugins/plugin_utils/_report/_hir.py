# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Host Idle Recovery (SNIA PTS 2.0 HIR): its result from its round files (the figures: _hir_plots.py; the report
section: _hir_md.py).

The run (module_utils/_pts/_tests/hir.py): a purge; segment ``precondition``, 4k random write rounds of one fio
section each (``hir-pc``) to steady state; then per wait state N a segment ``wsN`` of two rounds: the bursts (row
phase "bursts": one fio run, sections ``hir-wsN-burst-NNNN`` each a burst long, its own reporting group, started on a
fixed schedule from fio's start) and the return to baseline (row phase "baseline": one fio section of continuous
writes, its samples cut from its iops log; results of earlier versions ran it as sections
``hir-wsN-base-NNNN``). Each round's fio interval logs (``round-NN_iops.log``) give the IOPS against time, the bursts
and the idle periods as fio logged them."""

from __future__ import annotations

import datetime
import json
import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _bursts, _fio, _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import hir
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._sections import SECTION_S
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _tests


PC_SEGMENT = "precondition"
# The preconditioning's tracking variable, as the segment plan names it.
PC_DV = hir.PC_DV
PHASES = ("bursts", "baseline")
_WS_RE = re.compile(r"^ws(\d+)$")
_SECTION_RE = re.compile(r"-(?:burst|base)-(\d+)$")
# fio time values: a number with an optional unit; a bare number is seconds for startdelay.
_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", re.I)
_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "usec": 1e-6, "m": 60.0,
          "min": 60.0, "h": 3600.0}
# The IOPS-against-time axis is in minutes, or in seconds when the whole span is shorter than this.
MINUTES_FROM_S = 120.0
COLORS = {"bursts": "#c62828", "baseline": "#1565c0", "pc": "#2e7d32", "ws_span": "#ffcc80", "base_span": "#90caf9"}
SOURCES = [
    "Sources: the PTS 2.0.2 procedure text of this test was not available; the test follows CloudHarmony's "
    "implementation of it for PTS-E 1.1 and ADATA's port of that to PTS 2.0, with these choices:",
    "",
    "- *Preconditioning round*: one fio section per round, and the tracking variable is that round's IOPS. "
    "CloudHarmony and ADATA run 30 one-minute runs per round and track the last minute; the spec's round layout "
    "is not confirmed.",
    "- *Bursts*: one fio run per wait state; each burst is its own fio section and reporting group, started on a fixed "
    "schedule counted from fio's start (fio `startdelay` = burst number × (burst + idle)) without waiting for the one "
    "before it, so the idle time between two bursts is the wait state's and the schedule does not drift over hundreds "
    "of bursts. A burst's IOPS are fio's own: its IOs over the time fio ran it. fio prints no start time per job, so "
    "each burst's start is read from its iops log (its first logging interval) and checked against the schedule: "
    f"{_bursts.RULE}.",
    "- *Return to baseline*: one fio section of continuous writes (ADATA runs 5-s sections back to back, each with "
    "fio's floor between them; CloudHarmony sleeps between them, which is not continuous), its samples of "
    "pts_run_hir_baseline_sample_seconds cut at fio's status dumps.",
    "- *Recovery per wait state*: how the PTS compares a wait state with the baseline is not confirmed. This report's "
    "**gain** is the mean burst IOPS divided by the preconditioning's steady-state window average; the mean burst "
    "IOPS divided by the following return to baseline's mean is shown beside it.",
    "",
]
# What results of earlier versions ran instead (each burst and each part of a baseline a stonewalled section).
SOURCES_SECTIONS = {
    "- *Bursts*": "- *Bursts*: each burst is its own fio section started on a fixed schedule counted from fio's start "
                  "(fio `startdelay` = burst number × (burst + idle)), so the schedule does not drift over hundreds of "
                  f"bursts. The idle time between two bursts is the wait state's less fio's floor of about {SECTION_S:g} "
                  "s per section.",
    "- *Return to baseline*": "- *Return to baseline*: writes as sections back to back (ADATA runs 5-s sections; "
                              "CloudHarmony sleeps between them, which is not continuous); fio's floor of about "
                              f"{SECTION_S:g} s between two sections leaves the drive idle for a moment each time.",
}


def sources(result: dict) -> list[str]:
    """The choices this test made, as its round files show it ran."""
    old = any((s.get("baseline") or {}).get("unit") == "section" for s in result.get("wait_states") or [])
    if not old:
        return list(SOURCES)
    return [next((text for key, text in SOURCES_SECTIONS.items() if line.startswith(key + ":")), line)
            for line in SOURCES]


def _fio_seconds(value: object) -> float | None:
    """A fio time option (``1000ms``, ``2.5s``, ``3``) in seconds; None when absent or not understood."""
    if value is None:
        return None
    found = _DURATION_RE.match(str(value))
    if not found or found.group(2).lower() not in _UNITS:
        return None
    return float(found.group(1)) * _UNITS[found.group(2).lower()]


def _stats(values: list[float]) -> dict:
    if not values:
        return {"count": 0, "mean": None, "min": None, "max": None}
    return {"count": len(values), "mean": _tests.mean(values), "min": min(values), "max": max(values)}


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return top / bottom if top is not None and bottom else None


def _section_number(name: str, index: int) -> int:
    found = _SECTION_RE.search(name or "")
    return int(found.group(1)) if found else index + 1


def _phase(rnd: dict) -> str | None:
    """Which of a wait state's rounds this is: its row says so (round 1 bursts, round 2 baseline without one)."""
    phase = (rnd.get("row") or {}).get("phase")
    if phase in PHASES:
        return phase
    return {1: "bursts", 2: "baseline"}.get(int(rnd.get("round") or 0))


def _precondition(segment: dict, settings: dict) -> dict:
    rounds = segment["rounds"]
    pc_settings = _tests.settings_of(rounds) or settings
    window, max_rounds, dummy, dummy2 = _tests.limits(pc_settings)
    seconds = (pc_settings.get("parameters") or {}).get("precondition_seconds")
    if not rounds:
        return {"rounds_run": 0, "status": "failed" if segment.get("failure") else "no rounds", "steady": False,
                "steady_round": None, "dv": None, "window_rounds": [], "iops": None, "window": window,
                "max_rounds": max_rounds, "seconds": seconds, "round_files": [], "fio_s": None,
                "live_verdict_mismatch": []}
    _tests.check_consecutive(rounds)
    dv = _tests.dv_series(rounds, PC_DV)
    verdict = dv["window"] or {}
    return {
        "rounds_run": len(rounds),
        "status": _tests.status(dv["steady"], len(rounds), max_rounds, segment.get("failure")),
        "steady": dv["steady"],
        "steady_round": dv["steady_round"],
        "dv": dv,
        "window_rounds": [int(r) for r in verdict.get("rounds") or []] if verdict.get("average") is not None else [],
        # The window average: the steady-state figure, or the last window's when the round limit was reached.
        "iops": verdict.get("average"),
        "window": window,
        "max_rounds": max_rounds,
        "seconds": seconds,
        "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
        "fio_s": sum(float((r.get("fio") or {}).get("elapsed_s") or 0.0) for r in rounds),
        "live_verdict_mismatch": _tests.live_mismatch(segment, [dv]),
        "round_end_s": _tests.round_times(rounds),
    }


def _burst_figures(jobs: list[dict]) -> list[dict]:
    """Each burst's figures from fio's counts (module_utils/_pts/_bursts.figures): its IOs and bytes over the time fio
    ran it."""
    return [_fio.counted(job)["total"] for job in jobs]


def _baseline_samples(samples: list[dict]) -> tuple[list[float], list[float]]:
    """A return to baseline's samples (its one fio run cut at fio's status dumps): each sample's IOPS from fio's counts
    (the IOs between two dumps over the run time between them) and its run time in seconds."""
    iops, seconds = [], []
    for sample in samples:
        found = _fio.counted(sample)["total"]
        iops.append(found["iops"])
        seconds.append(found["runtime_ms"] / 1000.0)
    return iops, seconds


def _common(rnd: dict, start_s: float, end_s: float, burst_s: float, unit: str, values: list[float],
            seconds: float, mean: float | None = None) -> dict:
    fio = rnd.get("fio") or {}
    stats = _stats(values)
    if mean is not None:
        stats["mean"] = mean
    return dict(stats, round=int(rnd["round"]), label=(rnd.get("row") or {}).get("label") or "", start_s=start_s,
                end_s=end_s, fio_s=float(fio["elapsed_s"]) if fio.get("elapsed_s") else None, seconds=seconds,
                iops=values, burst_s=burst_s, unit=unit)


def _round_phase(rnd: dict, phase: str, state: int, start_s: float | None, prev_end_s: float | None,
                 log: dict | None = None) -> dict:
    """One wait-state round: every burst's (or baseline sample's) IOPS at its time (seconds on the test's time axis),
    its span and stats; ``start_s`` is the round's start on that axis (None without one: right after ``prev_end_s``).
    Every figure is fio's count: a burst's IOs over the time fio ran it, a baseline sample's IOs between two of fio's
    status dumps over the run time between them, the baseline's mean its one section's.

    With the round's iops log (``log``: its series and its start, on fio's clock) a burst sits where fio logged its
    first IO, a baseline sample at its status window's end. Without (results of earlier versions) a round starts at
    recorded_at - fio's wall time (elapsed_s); a burst sits at its scheduled start (its startdelay, or the plan's i x
    (burst + idle)); baseline sections one after another, each after the run time of those before it and an equal
    share of the time fio spent outside the sections (its floor per section)."""
    settings = rnd.get("settings") or {}
    burst_s = float(settings.get("round_seconds") or 0.0)
    fio = rnd.get("fio") or {}
    jobs = fio.get("jobs") or []
    elapsed = fio.get("elapsed_s")
    samples = fio.get("samples") or []
    if start_s is None:
        start_s = prev_end_s or 0.0
    if log:
        return _logged_phase(rnd, phase, state, start_s, log, burst_s)
    if phase == "baseline" and samples:
        # One continuous section cut into samples at fio's status dumps: each sample a point, the mean fio's own.
        origin = samples[0]["window"]["from_unix_ms"]
        times = [round(start_s + (x["window"]["to_unix_ms"] - origin) / 1000.0, 3) for x in samples]
        iops, dummy = _baseline_samples(samples)
        whole = _fio.counted(jobs[0])["total"] if jobs else None
        end_s = start_s + (samples[-1]["window"]["to_unix_ms"] - origin) / 1000.0
        return dict(_common(rnd, start_s, end_s, burst_s, "status sample", iops,
                            whole["runtime_ms"] / 1000.0 if whole else 0.0, whole["iops"] if whole else None),
                    t_s=times)
    figures = _burst_figures(jobs)
    runtimes = [f["runtime_ms"] / 1000.0 for f in figures]
    offsets = []
    if phase == "bursts":
        period = burst_s * (1 + state)
        for index, job in enumerate(jobs):
            delay = _fio_seconds((job.get("options") or {}).get("startdelay"))
            offsets.append(delay if delay is not None else (_section_number(job.get("name"), index) - 1) * period)
    else:
        gap = SECTION_S
        if elapsed and jobs:
            gap = max(0.0, float(elapsed) - sum(runtimes)) / len(jobs)
        done = 0.0
        for runtime in runtimes:
            offsets.append(done)
            done += runtime + gap
    times = [round(start_s + offset, 3) for offset in offsets]
    if elapsed:
        end_s = start_s + float(elapsed)
    else:
        end_s = max((t + r for t, r in zip(times, runtimes)), default=start_s)
    return dict(_common(rnd, start_s, end_s, burst_s, "burst" if phase == "bursts" else "section",
                        [f["iops"] for f in figures], sum(runtimes)), t_s=times)


def _logged_phase(rnd: dict, phase: str, state: int, start_s: float, log: dict, burst_s: float) -> dict:
    """A wait-state round with its iops log (its threads added up): the log is the timeline's shape - every logging
    interval's IOPS at its time - and, for the bursts, where each one lay: its lines on the schedule
    (module_utils/_pts/_bursts.place) give its start, its end is that start plus fio's run time of it, and a burst
    that started late is named (_bursts.schedule). The figures are fio's counts: per burst its IOs over the time fio
    ran it, per baseline sample the IOs between two status dumps over the run time between them (at the sample's
    end), the baseline's mean its one section's."""
    fio = rnd.get("fio") or {}
    jobs = fio.get("jobs") or []
    series, interval, origin_ms = log["series"], log["interval_ms"], log["start_unix_ms"]

    def axis(time_ms: float) -> float:
        return round(start_s + (time_ms - origin_ms) / 1000.0, 3)

    extra: dict = {"log": {"file": log["file"], "interval_ms": interval, "t_s": [axis(t) for t, dummy in series],
                           "iops": [float(v) for dummy, v in series]}}
    if phase == "bursts":
        figures = _burst_figures(jobs)
        runtimes = [float(f["runtime_ms"]) for f in figures]
        placed = _bursts.place(series, runtimes, interval)
        plan = _bursts.schedule(placed, runtimes, burst_s * (1 + state) * 1000.0, burst_s * state * 1000.0, interval)
        per_burst = []
        for figure, found, where in zip(figures, placed, plan["bursts"]):
            entry = {"burst": where["burst"], "iops": figure["iops"], "mb_s": figure["bw_bytes"] / 1e6,
                     "ios": figure["ios"], "io_bytes": figure["io_bytes"], "runtime_ms": figure["runtime_ms"],
                     "log_lines": found["lines"] if found else 0, "measured": where["measured"]}
            if where["measured"]:
                entry.update(start_s=axis(where["start_ms"]), end_s=axis(where["end_ms"]),
                             late_s=round(where["late_ms"] / 1000.0, 3), late=where["late"])
            per_burst.append(entry)
        # A burst the log does not place sits where the schedule puts it, after the first placed one.
        anchor = next(((b["start_s"], i) for i, b in enumerate(per_burst) if b["measured"]), (start_s, 0))
        period_s = burst_s * (1 + state)
        times = [b["start_s"] if b["measured"] else round(anchor[0] + (i - anchor[1]) * period_s, 3)
                 for i, b in enumerate(per_burst)]
        extra.update(per_burst=per_burst, schedule=_schedule_entry(plan, per_burst))
        values, seconds, mean, unit = [f["iops"] for f in figures], sum(runtimes) / 1000.0, None, "burst"
        end_s = max([axis(series[-1][0])] + [b["end_s"] for b in per_burst if b["measured"]])
    else:
        samples = fio.get("samples") or []
        whole = _fio.counted(jobs[0])["total"] if jobs else None
        if samples:
            values, dummy = _baseline_samples(samples)
            times = [axis(x["window"]["to_unix_ms"]) for x in samples]
            end_s = max(times[-1], axis(series[-1][0]))
        else:
            values, times, end_s = [], [], axis(series[-1][0])
        seconds = whole["runtime_ms"] / 1000.0 if whole else 0.0
        mean, unit = (whole["iops"] if whole else None), "sample"
    return dict(_common(rnd, start_s, end_s, burst_s, unit, values, seconds, mean), t_s=times, **extra)


def _schedule_entry(plan: dict, per_burst: list[dict]) -> dict:
    """The bursts' schedule for result.json: the rule, the tolerance, each idle time between two bursts as measured,
    the late bursts with the idle before and after each, whether it held."""
    idle = [None if gap is None else round(gap / 1000.0, 3) for gap in plan["idle_ms"]]
    late = []
    for number in plan["late"]:
        index = number - 1
        late.append({"burst": number, "late_s": per_burst[index]["late_s"],
                     "idle_before_s": idle[index - 1] if index > 0 else None,
                     "idle_after_s": idle[index] if index < len(idle) else None})
    return {"held": plan["held"], "rule": _bursts.RULE, "tolerance_s": plan["tolerance_ms"] / 1000.0,
            "planned_idle_s": plan["planned_idle_ms"] / 1000.0, "idle_s": idle, "late": late,
            "unplaced": plan["unplaced"]}


def _round_log(segment: dict, rnd: dict) -> dict | None:
    """A round's iops log as one series (its threads added up, module_utils/_pts/_interval.ticks), with its logging
    interval and its start on fio's clock (Unix ms: the first line less the interval it covers, or a baseline's first
    status window's start); None without a log, or one that cannot be read (the round is then placed as before)."""
    stem = f"round-{int(rnd['round']):02d}"
    path = ((segment.get("logs") or {}).get(stem) or {}).get("iops")
    if not path:
        return None
    options = (rnd.get("fio") or {}).get("global_options") or {}
    try:
        interval = int(options.get("log_avg_msec") or 1000)
    except (TypeError, ValueError):
        return None
    try:
        series = _interval.ticks(_interval.parse_log(_safe_tree.read_text(path, _safe_tree.MAX_LOG_BYTES)), interval)
        latency = None
        lat_path = ((segment.get("logs") or {}).get(stem) or {}).get("lat")
        if lat_path:
            latency = _interval.parse_log(_safe_tree.read_text(lat_path, _safe_tree.MAX_LOG_BYTES))
    except (OSError, ValueError):
        return None
    if not series:
        return None
    start = series[0][0] - interval
    samples = (rnd.get("fio") or {}).get("samples") or []
    if samples and (samples[0].get("window") or {}).get("from_unix_ms") is not None:
        start = min(start, samples[0]["window"]["from_unix_ms"])
    return {"series": series, "interval_ms": interval, "start_unix_ms": start, "file": os.path.basename(path),
            "latency": latency}


def _round_start(rnd: dict) -> datetime.datetime | None:
    landed = _tests.parse_time(rnd.get("recorded_at"))
    elapsed = (rnd.get("fio") or {}).get("elapsed_s")
    if landed is None:
        return None
    return landed - datetime.timedelta(seconds=float(elapsed or 0.0))


def _wait_states(test: dict, planned: list[int], pc_iops: float | None, settings: dict) -> tuple[list[dict], str | None]:
    """Every wait state planned (and any other found on disk), in the plan's order, with its rounds on one time
    axis: seconds from the first wait-state round's start - on fio's clock when every round has its interval log,
    else on the round files' (recorded_at less fio's wall time)."""
    found = sorted(int(m.group(1)) for name in test["segments"] if (m := _WS_RE.match(name)))
    states = list(planned) + [s for s in found if s not in planned]
    rounds_of, logs = {}, {}
    for state in states:
        segment = test["segments"].get(f"ws{state}") or {"rounds": []}
        if segment["rounds"]:
            _tests.check_consecutive(segment["rounds"])
        rounds_of[state] = segment["rounds"]
        for rnd in segment["rounds"]:
            logs[(state, int(rnd["round"]))] = _round_log(segment, rnd)
    every = bool(logs) and all(logs.values())
    if every:
        origin = min(log["start_unix_ms"] for log in logs.values())
        t0 = datetime.datetime.fromtimestamp(origin / 1000.0, tz=datetime.timezone.utc)
    else:
        starts = [s for state in states for s in (_round_start(r) for r in rounds_of[state]) if s is not None]
        t0 = min(starts) if starts else None
    out = []
    prev_end = None
    for state in states:
        entry = {"wait_state": state, "label": f"WS{state}", "planned": state in planned,
                 "burst_s": float(settings.get("round_seconds") or 0.0) or None, "bursts": None, "baseline": None,
                 "round_files": [f"round-{int(r['round']):02d}" for r in rounds_of[state]], "logs": {}}
        bursts_end_ms = None
        for rnd in rounds_of[state]:
            phase = _phase(rnd)
            if phase is None or entry[phase] is not None:
                continue
            if phase == "bursts":
                bursts_end_ms = _run_end_ms(test["segments"].get(f"ws{state}") or {}, rnd)
            log = logs.get((state, int(rnd["round"]))) if every else None
            if log:
                start_s = (log["start_unix_ms"] - origin) / 1000.0
            else:
                begin = _round_start(rnd)
                start_s = (begin - t0).total_seconds() if begin is not None and t0 is not None else None
            entry[phase] = _round_phase(rnd, phase, state, start_s, prev_end, log)
            prev_end = entry[phase]["end_s"]
            entry["burst_s"] = entry[phase]["burst_s"] or entry["burst_s"]
            if log:
                entry["logs"][phase] = dict(log, start_s=start_s)
        entry["idle_s"] = entry["burst_s"] * state if entry["burst_s"] else None
        entry["complete"] = entry["bursts"] is not None and entry["baseline"] is not None
        burst_mean = (entry["bursts"] or {}).get("mean")
        entry["gain"] = _ratio(burst_mean, pc_iops)
        entry["burst_over_baseline"] = _ratio(burst_mean, (entry["baseline"] or {}).get("mean"))
        entry["idle"] = _measured_idle(entry, bursts_end_ms)
        schedule = (entry["bursts"] or {}).get("schedule")
        # A wait state whose bursts did not keep their schedule measured another wait state (_bursts.RULE).
        entry["schedule_held"] = None if schedule is None else schedule["held"]
        entry["not_valid"] = _not_valid_text(schedule)
        out.append(entry)
    return out, t0.isoformat() if t0 is not None else None


def _not_valid_text(schedule: dict | None) -> str | None:
    """Why a wait state's figures are no result for it (its schedule did not hold), or None."""
    if not schedule or schedule["held"]:
        return None
    parts = [f"burst {b['burst']} started {b['late_s']:.2f} s late" for b in schedule["late"]]
    if schedule["unplaced"]:
        parts.append(f"{md.plural(len(schedule['unplaced']), 'burst')} not found in fio's iops log")
    return "schedule not held: " + "; ".join(parts)


def _run_end_ms(segment: dict, rnd: dict) -> float | None:
    """When a round's fio run ended on fio's clock (Unix ms): the timestamp of its final report
    (``round-NN.raw.json``), which fio writes as its last job ends; None without it."""
    path = os.path.join(segment.get("dir") or "", f"round-{int(rnd['round']):02d}.raw.json")
    try:
        found, dummy = _interval.documents(_safe_tree.read_text(path, _safe_tree.MAX_LOG_BYTES))
        last = json.loads(found[-1]) if found else None
    except (OSError, ValueError):
        return None
    stamp = last.get("timestamp_ms") if isinstance(last, dict) else None
    return float(stamp) if isinstance(stamp, (int, float)) and stamp > 0 else None


def _measured_idle(entry: dict, bursts_end_ms: float | None = None) -> dict | None:
    """A wait state's idle time as fio measured it: between its bursts (from one burst's end - its start plus fio's
    run time of it, the unlogged last interval included - to the next one's start: module_utils/_pts/_bursts), within
    its return to baseline (intervals without a completion and without IO in flight either, the lat log says:
    module_utils/_pts/_interval.idle; below a logging interval means below fio's logging granularity) and between the
    bursts' run and the baseline's (from fio's final report of the bursts - ``bursts_end_ms``, as its last burst ended
    - or else the last burst's end, to the baseline's start at its first status window)."""
    logs = entry.get("logs") or {}
    if not logs:
        return None
    found: dict = {"interval_ms": max(log["interval_ms"] for log in logs.values())}
    bursts, base = logs.get("bursts"), logs.get("baseline")
    part = entry.get("bursts") or {}
    schedule = part.get("schedule")
    if bursts and schedule:
        gaps = [g for g in schedule["idle_s"] if g is not None]
        found.update(bursts_logged=sum(1 for b in part["per_burst"] if b["measured"]),
                     between_bursts=_stats(gaps) if gaps else None)
    if base:
        within = _interval.idle(base["series"], base["interval_ms"], latency=base.get("latency"))
        found.update(baseline_idle_ms=within["idle_ms"], baseline_longest_idle_ms=within["longest_idle_ms"],
                     baseline_gaps=within["gaps"], baseline_idle_periods=within["idle_periods"],
                     baseline_stall_ms=within["stall_ms"], baseline_longest_gap_ms=within["longest_gap_ms"])
    if bursts and base:
        placed = [b for b in part.get("per_burst") or [] if b["measured"]]
        end_s = (bursts["start_s"] + (bursts_end_ms - bursts["start_unix_ms"]) / 1000.0) if bursts_end_ms else \
            (placed[-1]["end_s"] if placed else None)
        if end_s is not None:
            found["before_baseline_s"] = max(0.0, entry["baseline"]["start_s"] - end_s)
            found["before_baseline_from"] = "fio's final report" if bursts_end_ms else "the last burst's end"
    return found


def _status(result: dict, pc: dict, states: list[dict]) -> str:
    if not result["rounds_run"]:
        return "failed" if result["failure"] else "no rounds"
    if result["failure"]:
        return "failed"
    if any(not s["complete"] for s in states if s["planned"]) or not states:
        return "incomplete"
    if not pc["steady"]:
        return "not steady" if pc["rounds_run"] >= pc["max_rounds"] else "incomplete"
    return "steady"


def _steady_text(pc: dict, states: list[dict]) -> str:
    run = sum(1 for s in states if s["complete"])
    if pc["steady"]:
        head = f"preconditioning steady at round {pc['steady_round']}"
    elif pc["rounds_run"] >= pc["max_rounds"]:
        head = f"preconditioning not steady in {pc['rounds_run']} rounds (limit {pc['max_rounds']})"
    else:
        head = f"preconditioning not steady after {pc['rounds_run']} round(s)"
    return f"{head}; {md.plural(run, 'wait state')} run"


def build(test: dict) -> dict:
    segments = test["segments"]
    pc_segment = segments.get(PC_SEGMENT) or {"rounds": [], "failure": None}
    names = [n for n in segments if _WS_RE.match(n)]
    ordered = ([segments[""]] if "" in segments else []) + [pc_segment] + [segments[n] for n in names]
    result = _tests.common(test, ordered)
    settings = result["settings"]
    parameters = settings.get("parameters") or {}
    planned = [int(s) for s in parameters.get("wait_states") or []] or \
        sorted(int(_WS_RE.match(n).group(1)) for n in names)
    pc = _precondition(pc_segment, settings)
    states, t0 = _wait_states(test, planned, pc["iops"], settings)
    # Private to plotting (not in result.json): each round's iops log as fio wrote it.
    series = {str(s["wait_state"]): s.pop("logs") for s in states}
    logged = [s["idle"] for s in states if s.get("idle")]
    result["rounds_run"] = pc["rounds_run"] + sum(len(segments.get(f"ws{s['wait_state']}", {}).get("rounds") or [])
                                                  for s in states)
    status = _status(result, pc, states)
    result.update(
        status=status,
        steady=pc["steady"],
        steady_round=pc["steady_round"],
        steady_text=_steady_text(pc, states),
        not_steady_text=None if pc["steady"] else
        f"not reached by the preconditioning in {pc['rounds_run']} rounds (limit {pc['max_rounds']})",
        precondition=pc,
        wait_states=states,
        planned_wait_states=planned,
        timeline_start=t0,
        parameters={"wait_states": planned, "burst_seconds": settings.get("round_seconds"),
                    "repetitions": parameters.get("repetitions"), "baseline_seconds": parameters.get("baseline_seconds"),
                    "baseline_sample_seconds": parameters.get("baseline_sample_seconds"),
                    "precondition_seconds": parameters.get("precondition_seconds")},
        # A wait state that did not hold its schedule has no gain to compare (n/r), its reason beside it.
        headline={"pc_iops": pc["iops"],
                  "gain": {str(s["wait_state"]): None if s["not_valid"] else s["gain"] for s in states},
                  "not_valid": {str(s["wait_state"]): s["not_valid"] for s in states if s["not_valid"]}},
        late_bursts=[dict(b, wait_state=s["wait_state"]) for s in states
                     for b in ((s.get("bursts") or {}).get("schedule") or {}).get("late") or []],
        live_verdict_mismatch=pc["live_verdict_mismatch"],
        _series=series,
        idle={"interval_ms": max(i["interval_ms"] for i in logged),
              "baseline_ms": max((i.get("baseline_idle_ms") or 0.0) for i in logged),
              "baseline_longest_ms": max((i.get("baseline_longest_idle_ms") or 0.0) for i in logged),
              "baseline_gaps": sum(i.get("baseline_gaps") or 0 for i in logged)} if logged else None,
    )
    return result
