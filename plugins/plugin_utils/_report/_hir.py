# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Host Idle Recovery (SNIA PTS 2.0 HIR): result from its round files, plots, report section.

The run (module_utils/_pts/_pts2.py ``_hir``): a purge; segment ``precondition``, 4k random write rounds of one fio
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
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts2 import HIR_BLOCK_SIZE, SECTION_S
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import _finish, _thousands, _zero_y

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:  # _plots.available() says so; plots() is not called then
    pass

PC_SEGMENT = "precondition"
# The preconditioning's tracking variable, as the segment plan names it (_pts2._hir).
PC_DV = {"name": "4k 0/100 IOPS", "job": "hir-pc", "mix": 0, "bs": HIR_BLOCK_SIZE, "metric": "iops"}
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
        with open(path, encoding="utf-8") as handle:
            series = _interval.ticks(_interval.parse_log(handle.read()), interval)
        latency = None
        lat_path = ((segment.get("logs") or {}).get(stem) or {}).get("lat")
        if lat_path:
            with open(lat_path, encoding="utf-8") as handle:
                latency = _interval.parse_log(handle.read())
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


# Plots


def _unit(span_s: float) -> tuple[float, str]:
    return (60.0, "minutes") if span_s >= MINUTES_FROM_S else (1.0, "seconds")


def _point_style(points: int) -> dict:
    return {"linestyle": "none", "marker": "o", "markersize": 2.2 if points > 400 else 3.5 if points > 60 else 5,
            "alpha": 0.8 if points > 400 else 1.0}


def _pc_line(ax, pc: dict, label: bool = True) -> None:
    if pc.get("iops") is None:
        return
    state = "steady-state" if pc.get("steady") else "last window (not steady)"
    ax.axhline(pc["iops"], color=COLORS["pc"], linestyle="--", linewidth=1.4, zorder=3,
               label=f"preconditioning {state} average {pc['iops']:,.0f} IOPS" if label else None)


def _log_line(ax, log: dict | None, scale: float, offset_s: float, label: str | None) -> list[float]:
    """A round's iops log as fio wrote it (its threads added up): one thin line, a point per logging interval."""
    if not log:
        return []
    xs, ys, last = [], [], None
    for time_ms, value in log["series"]:
        if last is not None and time_ms - last > log["interval_ms"] * _interval.GAP_SHARE:
            # No line over an idle period: fio logged nothing there.
            xs.append(float("nan"))
            ys.append(float("nan"))
        xs.append((log["start_s"] + (time_ms - log["start_unix_ms"]) / 1000.0 - offset_s) / scale)
        ys.append(value)
        last = time_ms
    ax.plot(xs, ys, color="#424242", linewidth=0.6, alpha=0.55, zorder=3, label=label)
    return [v for dummy, v in log["series"]]


def _spans_and_points(ax, states: list[dict], scale: float, offset_s: float, labels: bool,
                      series: dict | None = None) -> list[float]:
    """Each wait state's bursts and baseline: shaded spans, fio's iops log as a line and one point per burst (fio's
    section) or baseline sample; returns the values."""
    values = []
    legend = set()
    logged = False
    for entry in states:
        for phase in ("bursts", "baseline"):
            log = ((series or {}).get(str(entry["wait_state"])) or {}).get(phase)
            if log and entry.get(phase):
                label = None if logged else f"fio's iops log ({log['interval_ms']:g} ms lines)"
                values += _log_line(ax, log, scale, offset_s, label)
                logged = True
    for entry in states:
        for phase, shade in (("bursts", "ws_span"), ("baseline", "base_span")):
            part = entry.get(phase)
            if not part:
                continue
            first = phase not in legend
            legend.add(phase)
            left, right = (part["start_s"] - offset_s) / scale, (part["end_s"] - offset_s) / scale
            ax.axvspan(left, right, color=COLORS[shade], alpha=0.35 if phase == "bursts" else 0.3, zorder=0, lw=0,
                       label=("wait state (bursts and idle)" if phase == "bursts" else "return to baseline")
                       if first and labels else None)
            if phase == "bursts" and labels:
                ax.text((left + right) / 2, 0.985, entry["label"], transform=ax.get_xaxis_transform(), ha="center",
                        va="top", fontsize=9, fontweight="bold", color="#6d4c00")
            xs = [(t - offset_s) / scale for t in part["t_s"]]
            unit = part.get("unit") or ("burst" if phase == "bursts" else "section")
            ax.plot(xs, part["iops"], color=COLORS[phase], zorder=4, **_point_style(len(xs)),
                    label=(("burst: mean of its log lines" if part.get("log") else "burst (one fio section)")
                           if phase == "bursts" else
                           "baseline sample: mean of its log lines" if part.get("log") else
                           "baseline sample (continuous write)" if unit == "status sample" else
                           "baseline section (continuous write)") if first else None)
            values += part["iops"]
    return values


def timeline(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """IOPS against time: every burst and baseline section as a point, wait states and baselines shaded."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    end = max(p["end_s"] for s in states for p in (s.get("bursts"), s.get("baseline")) if p)
    scale, unit = _unit(end)
    fig, ax = plt.subplots(figsize=(_plots.WIDTH, 5.4), layout="constrained")
    values = _spans_and_points(ax, states, scale, 0.0, labels=True, series=result.get("_series"))
    _pc_line(ax, result["precondition"])
    _zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.08)  # room for the WS labels above the points
    ax.set_xlim(min(0.0, ax.get_xlim()[0]), end / scale * 1.02)
    ax.set_xlabel(f"Time from the first wait state's start ({unit})")
    ax.set_ylabel("IOPS (4k random write)")
    ax.grid(True, alpha=0.3)
    # Points before their spans: burst, wait state, baseline section, return to baseline, the preconditioning line.
    order = ("fio's iops log", "burst", "wait state", "baseline s", "return to baseline", "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    ax.legend([h for h, dummy in pairs], [label for dummy, label in pairs], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def detail(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """One panel per wait state: its bursts and its return to baseline against time from its own start."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    spans = [max(p["end_s"] for p in (s.get("bursts"), s.get("baseline")) if p) -
             min(p["start_s"] for p in (s.get("bursts"), s.get("baseline")) if p) for s in states]
    scale, unit = _unit(max(spans))
    fig, axes = plt.subplots(len(states), 1, figsize=(_plots.WIDTH, 1.0 + 2.1 * len(states)), layout="constrained",
                             sharey=True, squeeze=False)
    values = []
    for ax, entry in zip(axes[:, 0], states):
        start = min(p["start_s"] for p in (entry.get("bursts"), entry.get("baseline")) if p)
        values += _spans_and_points(ax, [entry], scale, start, labels=False, series=result.get("_series"))
        _pc_line(ax, result["precondition"], label=False)
        words = f"{entry['label']}: {entry['bursts']['count']} bursts, {entry['idle_s']:g} s idle between" \
            if entry.get("bursts") and entry.get("idle_s") is not None else entry["label"]
        if entry.get("baseline"):
            words += f"; return to baseline, {md.plural(entry['baseline']['count'], entry['baseline'].get('unit') or 'section')}"
        ax.set_title(words, fontsize=9.5, loc="left")
        ax.grid(True, alpha=0.3)
        ax.set_ylabel("IOPS")
    for ax in axes[:, 0]:
        _zero_y(ax, values + [result["precondition"].get("iops") or 0.0])
    axes[-1, 0].set_xlabel(f"Time from the wait state's start ({unit})")
    handles = [plt.Line2D([], [], color=COLORS["bursts"], **_point_style(0)),
               plt.Line2D([], [], color=COLORS["baseline"], **_point_style(0)),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["ws_span"], alpha=0.5),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["base_span"], alpha=0.45)]
    unit = next((s["baseline"].get("unit") for s in states if s.get("baseline")), "section") or "section"
    labels = ["burst", f"baseline {unit}", "wait state", "return to baseline"]
    if any((s.get("bursts") or {}).get("log") for s in states):
        labels[:2] = ["burst: mean of its log lines", "baseline sample: mean of its log lines"]
    if result.get("_series"):
        handles.insert(0, plt.Line2D([], [], color="#424242", linewidth=0.6, alpha=0.55))
        labels.insert(0, "fio's iops log")
    if result["precondition"].get("iops") is not None:
        handles.append(plt.Line2D([], [], color=COLORS["pc"], linestyle="--"))
        labels.append("preconditioning window average")
    axes[0, 0].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def recovery(path: str, title: str, result: dict, subtitle: str | None = None) -> str:
    """Per wait state: mean burst IOPS (whisker min-max) beside the following baseline's mean, the
    preconditioning's window average as a line, and each gain printed above its bursts."""
    states = [s for s in result["wait_states"] if s.get("bursts") or s.get("baseline")]
    fig, ax = plt.subplots(figsize=(min(_plots.WIDTH, max(8.0, 1.6 * len(states) + 3.0)), 5.6), layout="constrained")
    width = 0.38
    xs = list(range(len(states)))
    burst = [(s.get("bursts") or {}) for s in states]
    base = [(s.get("baseline") or {}) for s in states]
    heights = [b.get("mean") or 0.0 for b in burst]
    low = [max(0.0, h - b["min"]) if b.get("min") is not None else 0.0 for h, b in zip(heights, burst)]
    high = [max(0.0, b["max"] - h) if b.get("max") is not None else 0.0 for h, b in zip(heights, burst)]
    ax.bar([x - width / 2 for x in xs], heights, width, color=COLORS["bursts"], yerr=[low, high], capsize=4,
           error_kw={"ecolor": "#424242", "elinewidth": 1}, label="bursts: mean IOPS (whisker: min – max)")
    ax.bar([x + width / 2 for x in xs], [b.get("mean") or 0.0 for b in base], width, color=COLORS["baseline"],
           label="return to baseline: mean IOPS")
    _pc_line(ax, result["precondition"])
    tops = [b.get("max") or 0.0 for b in burst] + [b.get("mean") or 0.0 for b in base]
    _zero_y(ax, [t * 1.1 for t in tops] + [result["precondition"].get("iops") or 0.0])
    floor = 0.25 * ax.get_ylim()[1]
    for x, entry, b, a in zip(xs, states, burst, base):
        # Each bar's mean up its foot (whiskers and the average line cross the bars' tops), the gain above the bursts.
        for centre, figures in ((x - width / 2, b), (x + width / 2, a)):
            if figures.get("mean") is None:
                continue
            inside = figures["mean"] >= floor
            ax.annotate(f"{figures['mean']:,.0f}", (centre, 0 if inside else figures["mean"]), xytext=(0, 5),
                        textcoords="offset points", ha="center", va="bottom", rotation=90, fontsize=8.5,
                        color="white" if inside else "black", fontweight="bold" if inside else "normal", zorder=5)
        if entry.get("bursts") and a.get("mean") is None:
            ax.annotate("no return to baseline", (x + width / 2, 0), xytext=(0, 5), textcoords="offset points",
                        ha="center", va="bottom", rotation=90, fontsize=8.5, color="#616161")
        if entry.get("gain") is not None:
            ax.annotate(f"gain ×{entry['gain']:.2f}", (x - width / 2, b.get("max") or b["mean"]), xytext=(0, 4),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8.5, zorder=6,
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    ax.set_xticks(xs, [f"{s['label']}\n{s['idle_s']:g} s idle" if s.get("idle_s") is not None else s["label"]
                       for s in states])
    ax.set_xlabel("Wait state (idle time between bursts)")
    ax.set_ylabel("IOPS (4k random write)")
    ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    order = ("bursts", "return to baseline", "preconditioning")
    pairs = sorted(zip(*ax.get_legend_handles_labels()),
                   key=lambda pair: next(i for i, word in enumerate(order + ("",)) if pair[1].startswith(word)))
    handles = [h for h, dummy in pairs] + [plt.Line2D([], [], linestyle="none")]
    labels = [label for dummy, label in pairs] + ["gain = mean burst IOPS ÷ preconditioning average"]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    drawn = {}
    pc = result["precondition"]

    def path(key):
        return os.path.join(plot_dir, f"hir-{key}.png")

    if pc.get("dv"):
        dv = pc["dv"]
        drawn["convergence"] = _plots.convergence(
            path("pc-convergence"), f"{prefix} — HIR preconditioning convergence, 4k random write (0/100)",
            "IOPS (write)", {"": {"4k": dv["values"]}}, highlight="4k", window_rounds=pc["window_rounds"],
            legend_title="Block size", subtitle=subtitle, marks=_plots.segment_marks(PC_SEGMENT),
            verdicts={"": ((f"DV STEADY from round {pc['steady_round']}", True) if pc["steady"] else
                           (f"DV NOT STEADY in {pc['rounds_run']} rounds", False))}, times=pc.get("round_end_s"))
        drawn["verification"] = _plots.verification(
            path("pc-verification"), f"{prefix} — HIR preconditioning steady-state verification, DV {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if any(s.get("bursts") or s.get("baseline") for s in result["wait_states"]):
        drawn["timeline"] = timeline(path("timeline"), f"{prefix} — HIR IOPS against time, all wait states with "
                                                       "their returns to baseline", result, subtitle)
        drawn["detail"] = detail(path("wait-states"), f"{prefix} — HIR per wait state: bursts, then the return to "
                                                      "baseline", result, subtitle)
        drawn["recovery"] = recovery(path("recovery"), f"{prefix} — HIR recovery per wait state", result, subtitle)
    return drawn


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
        count = max(1, int(round(base_s / burst))) if burst and base_s else None
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
