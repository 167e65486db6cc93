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
import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import hir
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._sections import SECTION_S
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
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
    "of bursts. A burst's IOPS are the mean of fio's iops log lines in it.",
    "- *Return to baseline*: one fio section of continuous writes (ADATA runs 5-s sections back to back, each with "
    "fio's floor between them; CloudHarmony sleeps between them, which is not continuous), its samples of "
    "pts_run_hir_baseline_sample_seconds cut from fio's iops log.",
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


def _parse_time(text: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


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


def _round_phase(rnd: dict, phase: str, state: int, start_s: float | None, prev_end_s: float | None,
                 log: dict | None = None) -> dict:
    """One wait-state round: every burst's (or baseline sample's) IOPS at its time (seconds on the test's time axis),
    its span and stats; ``start_s`` is the round's start on that axis (None without one: right after ``prev_end_s``).

    With the round's iops log (``log``: its series and its start, on fio's clock) a burst sits where fio logged its
    IO, a baseline sample at its status window's end, and the round spans its log. Without (results of earlier
    versions) a round starts at recorded_at - fio's wall time (elapsed_s); a burst sits at its scheduled start (its
    startdelay, or the plan's i x (burst + idle)); baseline sections one after another, each after the run time of
    those before it and an equal share of the time fio spent outside the sections (its floor per section)."""
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
        iops = [float(x["total"]["iops"]) for x in samples]
        runtimes = [float(x.get("runtime_ms") or 0) / 1000.0 for x in samples]
        stats = dict(_stats(iops), mean=float(jobs[0]["total"]["iops"]) if jobs else _stats(iops)["mean"])
        end_s = start_s + (samples[-1]["window"]["to_unix_ms"] - origin) / 1000.0
        return dict(stats, round=int(rnd["round"]), label=(rnd.get("row") or {}).get("label") or "",
                    start_s=start_s, end_s=end_s, fio_s=float(elapsed) if elapsed else None, seconds=sum(runtimes),
                    t_s=times, iops=iops, burst_s=burst_s, unit="status sample")
    runtimes = [float(j.get("runtime_ms") or 0) / 1000.0 for j in jobs]
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
    iops = [float(j["total"]["iops"]) for j in jobs]
    times = [round(start_s + offset, 3) for offset in offsets]
    if elapsed:
        end_s = start_s + float(elapsed)
    else:
        end_s = max((t + r for t, r in zip(times, runtimes)), default=start_s)
    return dict(_stats(iops), round=int(rnd["round"]), label=(rnd.get("row") or {}).get("label") or "",
                start_s=start_s, end_s=end_s, fio_s=float(elapsed) if elapsed else None,
                seconds=sum(runtimes), t_s=times, iops=iops,
                burst_s=burst_s, unit="burst" if phase == "bursts" else "section")


def _logged_phase(rnd: dict, phase: str, state: int, start_s: float, log: dict, burst_s: float) -> dict:
    """A wait-state round as its iops log shows it (its threads added up): every logging interval's IOPS at its time
    (the timeline fio logged), and per burst - the log's lines on the burst schedule (_interval.by_period) - or per
    baseline sample - the lines of its span of the run (_interval.log_samples) - the mean of those lines, at the start
    of the burst's first interval or at the sample's end. The round spans its log; fio's own figure per burst section
    (or the baseline's one section) is kept beside it (``section_iops``)."""
    fio = rnd.get("fio") or {}
    jobs = fio.get("jobs") or []
    elapsed = fio.get("elapsed_s")
    series, interval, origin_ms = log["series"], log["interval_ms"], log["start_unix_ms"]

    def axis(time_ms: float) -> float:
        return round(start_s + (time_ms - origin_ms) / 1000.0, 3)

    if phase == "bursts":
        period_ms = burst_s * (1 + state) * 1000.0 if burst_s else 0.0
        parts = _interval.by_period(series, interval, period_ms, series[0][0]) if period_ms else []
        times = [axis(p["from_ms"]) for p in parts]
        unit = "burst"
    else:
        samples = fio.get("samples") or []
        sample_ms = float(((rnd.get("row") or {}).get("samples") or {}).get("sample_s") or 0) * 1000.0 or \
            (float(samples[0].get("runtime_ms") or 0) if samples else 0.0) or interval
        first = (samples[0].get("window") or {}).get("from_unix_ms") if samples else None
        parts = _interval.log_samples(series, interval, sample_ms, _interval.log_origin(series, interval, first))
        times = [axis(p["to_ms"]) for p in parts]
        unit = "sample"
    iops = [float(p["mean"]) for p in parts]
    stats = _stats(iops)
    if phase == "baseline":
        # The return to baseline's mean: of every line it logged (the samples weighted by their lines).
        stats["mean"] = sum(v for dummy, v in series) / len(series)
    return dict(stats, round=int(rnd["round"]), label=(rnd.get("row") or {}).get("label") or "",
                start_s=start_s, end_s=axis(series[-1][0]), fio_s=float(elapsed) if elapsed else None,
                seconds=sum(p["lines"] for p in parts) * interval / 1000.0, t_s=times, iops=iops,
                lines=[p["lines"] for p in parts], burst_s=burst_s, unit=unit,
                section_iops=[float(j["total"]["iops"]) for j in jobs],
                log={"file": log["file"], "interval_ms": interval, "t_s": [axis(t) for t, dummy in series],
                     "iops": [float(v) for dummy, v in series]})


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
        series = _interval.ticks(_interval.parse_log(_safe_tree.read_text(path, _safe_tree.MAX_LOG_BYTES)), interval)
        latency = None
        lat_path = ((segment.get("logs") or {}).get(stem) or {}).get("lat")
        if lat_path:
            latency = _interval.parse_log(_safe_tree.read_text(lat_path, _safe_tree.MAX_LOG_BYTES))
    except (OSError, ValueError, TypeError):
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
    landed = _parse_time(rnd.get("recorded_at"))
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
        for rnd in rounds_of[state]:
            phase = _phase(rnd)
            if phase is None or entry[phase] is not None:
                continue
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
        entry["idle"] = _measured_idle(entry)
        out.append(entry)
    return out, t0.isoformat() if t0 is not None else None


def _measured_idle(entry: dict) -> dict | None:
    """A wait state's idle time as fio's iops logs show it: between its bursts (from a burst's last logged interval to
    the start of the next one's first), within its return to baseline (intervals without a completion and without IO
    in flight either, the lat log says: module_utils/_pts/_interval.idle; below a logging interval means below fio's
    logging granularity) and between the last burst and the baseline's first IO (one fio run ending, the next
    starting)."""
    logs = entry.get("logs") or {}
    if not logs:
        return None
    found: dict = {"interval_ms": max(log["interval_ms"] for log in logs.values())}
    bursts, base = logs.get("bursts"), logs.get("baseline")
    if bursts and entry.get("bursts") and entry["burst_s"]:
        period_ms = entry["burst_s"] * (1 + entry["wait_state"]) * 1000.0
        parts = _interval.by_period(bursts["series"], bursts["interval_ms"], period_ms, bursts["series"][0][0])
        gaps = [(b["from_ms"] - a["last_ms"]) / 1000.0 for a, b in zip(parts, parts[1:])]
        found.update(bursts_logged=len(parts), between_bursts=_stats(gaps) if gaps else None)
    if base:
        within = _interval.idle(base["series"], base["interval_ms"], latency=base.get("latency"))
        found.update(baseline_idle_ms=within["idle_ms"], baseline_longest_idle_ms=within["longest_idle_ms"],
                     baseline_gaps=within["gaps"], baseline_idle_periods=within["idle_periods"],
                     baseline_stall_ms=within["stall_ms"], baseline_longest_gap_ms=within["longest_gap_ms"])
    if bursts and base:
        found["before_baseline_s"] = max(0.0, (base["series"][0][0] - base["interval_ms"] - bursts["series"][-1][0])
                                         / 1000.0)
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
        headline={"pc_iops": pc["iops"], "gain": {str(s["wait_state"]): s["gain"] for s in states}},
        live_verdict_mismatch=pc["live_verdict_mismatch"],
        _series=series,
        idle={"interval_ms": max(i["interval_ms"] for i in logged),
              "baseline_ms": max((i.get("baseline_idle_ms") or 0.0) for i in logged),
              "baseline_longest_ms": max((i.get("baseline_longest_idle_ms") or 0.0) for i in logged),
              "baseline_gaps": sum(i.get("baseline_gaps") or 0 for i in logged)} if logged else None,
    )
    return result
