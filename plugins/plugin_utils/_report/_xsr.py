# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The cross stimulus recovery test (SNIA PTS 2.0 XSR) in the report: after a purge and no preconditioning, three
access groups of writes back to back - sequential (1024k), random (8k), sequential again - each a series of samples
(one fio section per round, 60 s in the standard test). The report shows throughput, mean and maximum response time
against time, a table per group, and per transition how long the drive took: to settle on the random writes (group
1 -> 2) and to recover its sequential throughput (group 2 -> 3).

The PTS 2.0 sources differ (docs/snia_mapping.md): ADATA's port counts recovery as the first group-3
minute whose throughput reaches the group-1 mean; here that mean less a tolerance
(``pts_run_xsr_recovery_tolerance_pct``, 5 % by default), and ADATA's figure (tolerance 0) beside it. No steady
state: every group runs its samples once."""

from __future__ import annotations

import datetime
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval, _pts2
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import MARKERS_UP_TO, WIDTH, _finish
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import _scale, _zero_y

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError:  # _plots.available() says so; plots() is not called then
    pass

GROUPS = tuple(name for name, dummy in _pts2.XSR_GROUPS)
ACCESS = dict(_pts2.XSR_GROUPS)
STANDARD = _pts2.PROFILE_DEFAULTS["standard"]
# Group 1 and group 3 run the same stimulus; each group keeps its own colour in both plots.
GROUP_COLORS = {"group1": "#1f77b4", "group2": "#d62728", "group3": "#2ca02c"}
# A group's final level: the mean of its last tenth of samples (at least one).
FINAL_SHARE_PCT = 10
MS = 1e6
# Floating-point slack when a throughput is compared with a level it may equal exactly.
_EPS = 1e-9
TIME_NOTE = {
    "log": "fio's own clock: minutes from the start of the test's first group (its first logging interval's start), "
           "each sample the run's own stretch of its group's fio interval logs (sample k: the logging intervals "
           "that end from (k - 1) x the sample length to k x the sample length after the group's start); a group's "
           "samples follow each other without a gap, as its one fio run did",
    "status": "fio's own clock: minutes from the start of the test's first sample, each sample the window between "
              "two of fio's status dumps (their timestamps); a group's samples follow each other without a gap, as "
              "its one fio run did",
    "recorded": "real time: minutes from the start of the test's first sample (its round file's recorded_at less "
                "fio's elapsed time) to the end of each sample (its recorded_at)",
    "fio": "fio time: the round files carry no usable recorded_at, so samples are laid end to end by fio's elapsed "
           "time (the controller's time between samples is left out)",
}


def final_count(samples: int) -> int:
    """How many of a group's last samples make its final level: a tenth, rounded up, at least one."""
    return max(1, -(-samples * FINAL_SHARE_PCT // 100)) if samples else 0


def planned_samples(settings: dict) -> list[int]:
    """Each group's number of samples as the run planned them (pts_run_xsr_group_minutes / sample seconds)."""
    minutes = (settings.get("parameters") or {}).get("group_minutes") or STANDARD["xsr_group_minutes"]
    seconds = float(settings.get("round_seconds") or STANDARD["xsr_sample_seconds"])
    return [_pts2.group_samples(float(m), seconds) for m in minutes]


def tolerance_pct(settings: dict) -> float:
    value = (settings.get("parameters") or {}).get("recovery_tolerance_pct")
    return float(STANDARD["xsr_recovery_tolerance_pct"] if value is None else value)


def _job(rnd: dict, group: str) -> dict:
    """A sample's fio section, xsr-groupN-NNNN (or the round's only section)."""
    jobs = (rnd.get("fio") or {}).get("jobs") or []
    name = f"xsr-{group}-{int(rnd['round']):04d}"
    job = next((j for j in jobs if j.get("name") == name), None)
    if job is None and len(jobs) == 1:
        job = jobs[0]
    if job is None:
        raise ValueError(f"{group} round {rnd['round']} has no fio section {name}")
    return job


def _parse_time(text: object) -> datetime.datetime | None:
    try:
        parsed = datetime.datetime.fromisoformat(str(text)) if text else None
    except ValueError:
        return None
    if parsed is not None and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed


def _window(rnd: dict, group: str) -> dict | None:
    """A sample's window of its group's fio run (Unix ms at both ends), when it was cut from one (status dumps)."""
    window = _job(rnd, group).get("window")
    return window if isinstance(window, dict) and window.get("to_unix_ms") is not None else None


def _clock(ordered: list[tuple[str, dict]], round_seconds: float) -> tuple[list[tuple[float, float]], str]:
    """Each sample's (start, end) in seconds from the test's first sample, and which time base gave them: fio's own
    timestamps at the status dumps that bound each sample (a group run as one continuous fio), else real time from
    the round files (recorded_at is when a round landed, fio.elapsed_s how long its fio ran), else fio's times laid
    end to end."""
    windows = [_window(rnd, group) for group, rnd in ordered]
    if ordered and all(windows):
        origin = windows[0]["from_unix_ms"]
        return [((w["from_unix_ms"] - origin) / 1000.0, (w["to_unix_ms"] - origin) / 1000.0) for w in windows], \
            "status"
    ends = [_parse_time(rnd.get("recorded_at")) for dummy, rnd in ordered]
    elapsed = [(rnd.get("fio") or {}).get("elapsed_s") for dummy, rnd in ordered]
    if ordered and all(ends) and all(isinstance(e, (int, float)) for e in elapsed):
        spans = [(end.timestamp() - float(e), end.timestamp()) for end, e in zip(ends, elapsed)]
        origin = spans[0][0]
        return [(start - origin, end - origin) for start, end in spans], "recorded"
    spans, clock = [], 0.0
    for (group, rnd), e in zip(ordered, elapsed):
        length = float(e) if isinstance(e, (int, float)) else (_job(rnd, group).get("runtime_ms") or 0) / 1000.0
        length = length or round_seconds
        spans.append((clock, clock + length))
        clock += length
    return spans, "fio"


def _mean(values: list, weights: list | None = None) -> float | None:
    """The mean of the values present; with ``weights`` (the samples' seconds) weighted by them."""
    pairs = [(v, 1.0 if weights is None else float(w)) for v, w in zip(values, weights or [None] * len(values))
             if v is not None]
    total = sum(w for dummy, w in pairs)
    return sum(v * w for v, w in pairs) / total if pairs and total else None


def _max(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _ms(value) -> float | None:
    return None if value is None else float(value) / MS


def _access(group: str, job: dict | None, settings: dict) -> str:
    """What a group ran, from its fio section when it has one: "SEQ 1024k write", "RND 8k write"."""
    if job is not None:
        kind = "RND" if str(job.get("rw", "")).startswith("rand") else "SEQ"
        return f"{kind} {block_size_label(int(job['bs']))} write"
    params = settings.get("parameters") or {}
    if ACCESS[group] == "sequential":
        return f"SEQ {block_size_label(int(params.get('sequential_block_size') or 1048576))} write"
    return f"RND {block_size_label(int(params.get('random_block_size') or 8192))} write"


def settle_index(values: list[float], level: float, tolerance: float) -> int | None:
    """The first sample (0-based) from which every sample, itself included, stays within ``tolerance`` % of
    ``level``; None when the last one does not."""
    band = abs(level) * tolerance / 100.0 + _EPS * max(1.0, abs(level))
    found = None
    for index, value in enumerate(values):
        if abs(value - level) <= band:
            found = index if found is None else found
        else:
            found = None
    return found


def recovery_index(values: list[float], reference: float, tolerance: float) -> int | None:
    """The first sample (0-based) whose throughput reaches ``reference`` less ``tolerance`` %; None when none does."""
    target = reference * (1 - tolerance / 100.0) - _EPS * max(1.0, abs(reference))
    return next((index for index, value in enumerate(values) if value >= target), None)


def _transition(kind: str, groups: list[dict], samples: list[dict], tolerance: float) -> dict:
    """Group 1 -> 2 (``settle``) or group 2 -> 3 (``recovery``): the sample it happened in and the minutes from the
    start of the group's first sample to the end of that one, or why there is none."""
    first, second = (groups[0], groups[1]) if kind == "settle" else (groups[1], groups[2])
    own = [s for s in samples if s["group"] == second["number"]]
    out = {"kind": kind, "from": first["number"], "to": second["number"], "tolerance_pct": tolerance,
           "sample": None, "minutes": None, "at_min": None, "stimulus_min": None, "reference_mb_s": None,
           "low_mb_s": None, "high_mb_s": None, "judged": False, "reason": ""}
    if kind == "settle":
        if not second["complete"]:
            out["reason"] = (f"group 2 ran {second['samples']} of {second['planned']} samples: its final level is "
                             "not known")
            return out
        level = second["final_mb_s"]
        out.update(reference_mb_s=level, low_mb_s=level * (1 - tolerance / 100.0),
                   high_mb_s=level * (1 + tolerance / 100.0), judged=True)
        index = settle_index([s["mb_s"] for s in own], level, tolerance)
        if index is None:
            out["reason"] = "not settled within group 2: its last sample is outside the band"
    else:
        if not groups[0]["samples"]:
            out["reason"] = "group 1 did not run"
            return out
        if not groups[0]["complete"]:
            out["reason"] = (f"group 1 ran {groups[0]['samples']} of {groups[0]['planned']} samples: its mean is not "
                             "the group's")
            return out
        if not own:
            out["reason"] = "group 3 did not run"
            return out
        reference = groups[0]["mean_mb_s"]
        out.update(reference_mb_s=reference, low_mb_s=reference * (1 - tolerance / 100.0), judged=True)
        index = recovery_index([s["mb_s"] for s in own], reference, tolerance)
        if index is None:
            out["reason"] = ("not recovered within group 3" if second["complete"] else
                             f"not recovered within the {len(own)} of {second['planned']} group-3 samples run")
    if index is not None:
        hit = own[index]
        out.update(sample=hit["sample"], minutes=hit["t_min"] - second["start_min"], at_min=hit["t_min"],
                   stimulus_min=sum(s["runtime_s"] for s in own[:index + 1]) / 60.0,
                   linked=hit.get("round_file") is not None)
    return out


def _tail(own: list[dict], weighted: bool) -> list[dict]:
    """A group's last samples that make its final level: its last tenth of samples (at least one), or - samples of
    one continuous run, the last of which is short - those that cover its last tenth of run time."""
    if not own:
        return []
    if not weighted:
        return own[-final_count(len(own)):]
    goal = sum(s["runtime_s"] for s in own) * FINAL_SHARE_PCT / 100.0
    picked, covered = [], 0.0
    for sample in reversed(own):
        picked.insert(0, sample)
        covered += sample["runtime_s"]
        if covered >= goal:
            break
    return picked


def _group(name: str, number: int, rounds: list[dict], samples: list[dict], planned: int, segment: dict,
           settings: dict, weighted: bool, log: dict | None = None) -> dict:
    own = [s for s in samples if s["group"] == number]
    seconds = [s["runtime_s"] for s in own] if weighted else None
    tail = _tail(own, weighted)
    first_job = _job(rounds[0], name) if rounds else None
    # One continuous run is complete when fio ended it (its last sample's verdict says stop), whatever the count.
    ended = bool(rounds) and bool((rounds[-1].get("verdict") or {}).get("stop")) and weighted
    ios = [s["ios"] for s in own] if weighted else None
    return {
        "name": name, "number": number, "access": _access(name, first_job, settings), "planned": planned,
        "samples": len(own), "complete": len(own) >= planned or ended,
        "start_min": own[0]["start_min"] if own else None, "end_min": own[-1]["t_min"] if own else None,
        "duration_min": own[-1]["t_min"] - own[0]["start_min"] if own else None,
        "stimulus_min": sum(s["runtime_s"] for s in own) / 60.0,
        "mean_mb_s": _mean([s["mb_s"] for s in own], seconds),
        "final_mb_s": _mean([s["mb_s"] for s in tail], [s["runtime_s"] for s in tail] if weighted else None),
        "final_samples": len(tail),
        "mean_iops": _mean([s["iops"] for s in own], seconds), "mean_art_ms": _mean([s["art_ms"] for s in own], ios),
        "peak_art_ms": _max([s["art_ms"] for s in own]), "peak_mrt_ms": _max([s["mrt_ms"] for s in own]),
        "failure": segment.get("failure"),
        "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
        "log": log if log is not None else _group_log(segment),
    }


def _group_log(segment: dict) -> dict | None:
    """What fio's bw log of a group's run shows: its idle time (module_utils/_pts/_interval.idle: none that lasted a
    logging interval means idle below it), the first and last line (Unix ms) and the group's throughput over its
    lines. None without a log."""
    path = ((segment.get("logs") or {}).get("round-01") or {}).get("bw")
    rounds = segment.get("rounds") or []
    if not path or not rounds:
        return None
    interval = _log_interval(rounds[0])
    try:
        series = _interval.ticks(_read_rows(path), interval)
        latency = _read_rows(((segment.get("logs") or {}).get("round-01") or {}).get("lat"))
    except (OSError, ValueError) as exc:
        return {"error": f"{os.path.basename(path)}: {exc}"}
    if not series:
        return {"error": f"{os.path.basename(path)} has no line"}
    found = _interval.idle(series, interval, latency=latency)
    return dict(found, file=os.path.basename(path), first_unix_ms=series[0][0], last_unix_ms=series[-1][0],
                mean_mb_s=sum(v for dummy, v in series) / len(series) * 1024 / 1e6,
                series=[[t, v * 1024 / 1e6] for t, v in series])


def _log_interval(rnd: dict) -> int:
    """The logging interval (ms) of the fio run a round belongs to: its log_avg_msec."""
    options = (rnd.get("fio") or {}).get("global_options") or {}
    try:
        return int(options.get("log_avg_msec") or 0) or 1000
    except (TypeError, ValueError):
        return 1000


def _read_rows(path: str | None) -> list | None:
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return _interval.parse_log(handle.read())


def _log_samples(name: str, number: int, segment: dict, rounds: list[dict], sample_s: float) -> dict | None:
    """A group's samples as fio's interval logs of its one run show them (module_utils/_pts/_interval.log_samples):
    per sample the mean of the bw log's lines (MB/s) and of the iops log's (IOPS) that fall in it, the mean of its
    lat log's lines (ART) and the slowest IO of the status-dump samples (round files) that overlap it (MRT: the logs
    hold averages only). {"samples", "log"} - "log" with the idle time the logs show - or None without the logs;
    {"log": {"error"}} when they cannot be read."""
    files = (segment.get("logs") or {}).get("round-01") or {}
    if not rounds or not files.get("bw") or not files.get("iops"):
        return None
    interval = _log_interval(rounds[0])
    try:
        bw_rows, iops_rows, lat_rows = (_read_rows(files.get(kind)) for kind in ("bw", "iops", "lat"))
    except (OSError, ValueError) as exc:
        return {"log": {"error": f"{os.path.basename(files['bw'])}: {exc}"}}
    bw, iops = _interval.ticks(bw_rows, interval), _interval.ticks(iops_rows, interval)
    if not bw or not iops:
        return {"log": {"error": f"{os.path.basename(files['bw'])} has no line"}}
    windows = [w for w in (_window(rnd, name) for rnd in rounds) if w]
    origin = _interval.log_origin(bw, interval, windows[0]["from_unix_ms"] if windows else None)
    sample_ms = float(sample_s) * 1000.0
    latency = [[t, v] for t, v, dummy, dummy2 in lat_rows or []]
    per_iops = {s["sample"]: s for s in _interval.log_samples(iops, interval, sample_ms, origin)}
    samples = []
    for found in _interval.log_samples(bw, interval, sample_ms, origin, latency):
        overlapping = [(rnd, w) for rnd, w in ((r, _window(r, name)) for r in rounds)
                       if w and w["from_unix_ms"] < found["to_ms"] and w["to_unix_ms"] > found["from_ms"]]
        maxima = [_job(rnd, name)["total"]["lat_ns"]["max"] for rnd, dummy in overlapping]
        maxima = [m for m in maxima if m is not None]
        seconds = found["lines"] * interval / 1000.0
        rate = per_iops.get(found["sample"], {}).get("mean")
        samples.append({
            "group": number, "sample": found["sample"], "round_file": None,
            "start_unix_ms": found["from_ms"], "end_unix_ms": found["to_ms"], "runtime_s": seconds,
            "log_lines": found["lines"], "first_line_unix_ms": found["first_ms"], "last_line_unix_ms": found["last_ms"],
            # bw log values are KiB/s (fio's kb_base 1024): MB/s in 10^6 bytes.
            "mb_s": found["mean"] * 1024 / 1e6, "iops": rate, "ios": (rate or 0.0) * seconds,
            "art_ms": _ms(found.get("lat_mean")), "lat_lines": found.get("lat_lines"),
            "mrt_ms": _ms(max(maxima)) if maxima else None,
            "mrt_rounds": [int(rnd["round"]) for rnd, dummy in overlapping],
        })
    idle = _interval.idle(bw, interval, latency=lat_rows)
    log = dict(idle, file=os.path.basename(files["bw"]), first_unix_ms=bw[0][0], last_unix_ms=bw[-1][0],
               origin_unix_ms=origin, lines=len(bw), mean_mb_s=sum(v for dummy, v in bw) / len(bw) * 1024 / 1e6,
               series=[[t, v * 1024 / 1e6] for t, v in bw])
    return {"samples": samples, "log": log}


def _status_samples(ordered: list[tuple[str, dict]], spans: list[tuple[float, float]]) -> list[dict]:
    samples = []
    for (name, rnd), (start, end) in zip(ordered, spans):
        job = _job(rnd, name)
        total = job["total"]
        samples.append({
            "group": GROUPS.index(name) + 1, "sample": int(rnd["round"]),
            "round_file": f"{name}/round-{int(rnd['round']):02d}",
            "start_min": start / 60.0, "t_min": end / 60.0, "runtime_s": (job.get("runtime_ms") or 0) / 1000.0,
            "mb_s": float(total["bw_bytes"]) / 1e6, "iops": float(total["iops"]), "ios": int(total["total_ios"]),
            "art_ms": _ms(total["lat_ns"]["mean"]), "mrt_ms": _ms(total["lat_ns"]["max"]),
        })
    return samples


def build(test: dict) -> dict:
    found = test.get("segments") or {}
    segments = {name: found.get(name) or {"rounds": []} for name in GROUPS}
    listed = ([found[""]] if "" in found else []) + [segments[n] for n in GROUPS]
    result = _tests.common(test, listed)
    settings = result["settings"]
    tolerance = tolerance_pct(settings)
    planned = planned_samples(settings)
    sample_s = float(settings.get("round_seconds") or STANDARD["xsr_sample_seconds"])
    result.update(steady=False, steady_round=None, steady_text=None, tolerance_pct=tolerance,
                  round_seconds=settings.get("round_seconds"), final_share_pct=FINAL_SHARE_PCT)
    ordered = []
    for name in GROUPS:
        rounds = segments[name]["rounds"]
        if rounds:
            _tests.check_consecutive(rounds)
        ordered += [(name, rnd) for rnd in rounds]
    # Each group run as one fio with interval logs: its samples are what the logs show (the figures fio logged);
    # else (results of earlier versions, a group whose logs were not kept) its round files.
    logged = {name: _log_samples(name, index + 1, segments[name], segments[name]["rounds"], sample_s)
              for index, name in enumerate(GROUPS) if segments[name]["rounds"]}
    if logged and all(entry and "samples" in entry for entry in logged.values()):
        base = "log"
        samples = [s for name in GROUPS if name in logged for s in logged[name]["samples"]]
        origin = samples[0]["start_unix_ms"] if samples else None
        for sample in samples:
            sample["start_min"] = (sample["start_unix_ms"] - origin) / 60000.0
            sample["t_min"] = (sample["end_unix_ms"] - origin) / 60000.0
    else:
        spans, base = _clock(ordered, sample_s)
        samples = _status_samples(ordered, spans)
        origin = _window(ordered[0][1], ordered[0][0])["from_unix_ms"] if base == "status" else None
    weighted = base in ("status", "log")
    groups = [_group(name, index + 1, segments[name]["rounds"], samples, planned[index], segments[name], settings,
                     weighted, (logged.get(name) or {}).get("log")) for index, name in enumerate(GROUPS)]
    # Private to plotting (not in result.json): each group's bw log as fio wrote it.
    series = {g["name"]: g["log"].pop("series") for g in groups if g["log"] and "series" in g["log"]}
    if not samples:
        status = "failed" if result["failure"] else "no rounds"
    elif all(g["complete"] for g in groups):
        status = "complete"
    else:
        status = "failed" if result["failure"] else "incomplete"
    transitions = {"settle": _transition("settle", groups, samples, tolerance),
                   "recovery": _transition("recovery", groups, samples, tolerance)}
    if tolerance:
        transitions["recovery_at_mean"] = _transition("recovery", groups, samples, 0.0)
    # The drive's idle time between two samples: from one sample's end to the next one's first IO (its end less its
    # run time): the result's way to the controller, the next round's start, fio's start-up.
    gaps = [(b["t_min"] - a["t_min"]) * 60.0 - b["runtime_s"] for a, b in zip(samples, samples[1:])
            if a["group"] == b["group"]]
    result.update(
        status=status, rounds_run=len(ordered), samples=samples, groups=groups, transitions=transitions,
        time_base=base, mean_gap_s=max(0.0, _mean(gaps)) if gaps and base == "recorded" else None,
        idle=_idle(groups), _series=series, origin_unix_ms=origin,
        headline={"recovery_min": transitions["recovery"]["minutes"], "settle_min": transitions["settle"]["minutes"],
                  "group_means_mb_s": [g["mean_mb_s"] for g in groups]},
    )
    return result


def _idle(groups: list[dict]) -> dict | None:
    """The drive's idle time measured from fio's bw logs: within each group (none that lasted a logging interval, for
    a group run as one fio) and between two groups (from the last line of one to the first of the next, less the one
    logging interval that line covers: one fio ending, the next starting). None without logs."""
    logs = [g["log"] for g in groups if g.get("log") and "error" not in g["log"]]
    if not logs:
        return None
    between = []
    for first, second in zip(groups, groups[1:]):
        a, b = first.get("log") or {}, second.get("log") or {}
        if "last_unix_ms" in a and "first_unix_ms" in b:
            between.append({"from": first["number"], "to": second["number"],
                            "idle_s": max(0.0, (b["first_unix_ms"] - b["interval_ms"] - a["last_unix_ms"]) / 1000.0)})
    return {"interval_ms": max(log["interval_ms"] for log in logs),
            "within_ms": max(log["idle_ms"] for log in logs), "gaps": sum(log["gaps"] for log in logs),
            "idle_periods": sum(log.get("idle_periods") or 0 for log in logs),
            "longest_idle_ms": max(log.get("longest_idle_ms") or 0.0 for log in logs),
            "stall_ms": max(log.get("stall_ms") or 0.0 for log in logs),
            "per_group": [{"group": g["number"], "idle_ms": g["log"]["idle_ms"],
                           "longest_idle_ms": g["log"].get("longest_idle_ms"), "gaps": g["log"]["gaps"],
                           "longest_gap_ms": g["log"]["longest_gap_ms"], "stall_ms": g["log"].get("stall_ms")}
                          for g in groups if g.get("log") and "error" not in g["log"]],
            "longest_gap_ms": max(log["longest_gap_ms"] for log in logs), "between": between,
            "groups": len(logs)}


# Rows per group in the samples table (a group of 480 samples shows its first and last ten and ten between).
GROUP_TABLE_ROWS = 30


def _series(result: dict, key: str) -> list[tuple[dict, list[float], list[float]]]:
    """Per group that ran: the group, its samples' times and their ``key`` values (None left out)."""
    out = []
    for group in result["groups"]:
        points = [(s["t_min"], s[key]) for s in result["samples"]
                  if s["group"] == group["number"] and s[key] is not None]
        if points:
            out.append((group, [t for t, dummy in points], [v for dummy, v in points]))
    return out


def _draw_groups(ax, series: list, many: bool) -> None:
    for group, times, values in series:
        style = {"marker": None, "linewidth": 0.7} if many else {"marker": "o", "markersize": 3, "linewidth": 1.2}
        ax.plot(times, values, color=GROUP_COLORS[group["name"]], label=f"group {group['number']}: {group['access']}",
                zorder=3, **style)


def _draw_log(ax, result: dict) -> None:
    """Each group's bw log as fio wrote it (MB/s per logging interval), thin and pale behind the samples."""
    logs = result.get("_series") or {}
    origin = result.get("origin_unix_ms")
    if not logs or origin is None:
        return
    labelled = False
    for group in result["groups"]:
        points = logs.get(group["name"])
        if not points:
            continue
        ax.plot([(t - origin) / 60000.0 for t, dummy in points], [v for dummy, v in points],
                color=GROUP_COLORS[group["name"]], alpha=0.35, linewidth=0.6, zorder=2,
                label=None if labelled else f"fio's bw log ({group['log']['interval_ms']:g} ms lines)")
        labelled = True


def _boundaries(ax, result: dict, label: bool) -> None:
    """A dashed line where each group's first sample started (the stimulus changed); with ``label``, each group
    named above the frame at the middle of its span, in its colour (inside the frame a label would hide samples)."""
    shown = [g for g in result["groups"] if g["start_min"] is not None]
    for group in shown[1:]:
        ax.axvline(group["start_min"], color="#424242", linestyle="--", linewidth=0.9, zorder=2)
    if not label or not shown:
        return
    top = ax.secondary_xaxis("top")
    top.set_xticks([(g["start_min"] + g["end_min"]) / 2 for g in shown],
                   labels=[f"group {g['number']}: {g['access']}" for g in shown])
    top.tick_params(length=0, labelsize=8.5)
    for text, group in zip(top.get_xticklabels(), shown):
        text.set_color(GROUP_COLORS[group["name"]])
        text.set_fontweight("bold")


def _span(result: dict, number: int) -> tuple[float, float] | None:
    group = result["groups"][number - 1]
    return None if group["start_min"] is None else (group["start_min"], group["end_min"])


def _time_axis(ax, result: dict) -> None:
    end = max((g["end_min"] for g in result["groups"] if g["end_min"] is not None), default=1.0)
    ax.set_xlim(0, end * 1.01)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=12))
    ax.grid(True, which="both", alpha=0.3)


def _recovery_marks(ax, result: dict) -> list[float]:
    """Group 2's final level with its band, the group-1 mean and the recovery threshold over group 3, and a star
    where group 2 settled and where group 3 recovered; returns the levels drawn (for the y scale)."""
    drawn = []
    tolerance = result["tolerance_pct"]
    settle, recovery = result["transitions"]["settle"], result["transitions"]["recovery"]
    span2, span1, span3 = _span(result, 2), _span(result, 1), _span(result, 3)
    if settle["judged"] and span2:
        ax.fill_between(span2, settle["low_mb_s"], settle["high_mb_s"], color=GROUP_COLORS["group2"], alpha=0.18,
                        linewidth=0, zorder=1, label=f"group 2 final level ± {tolerance:g} %")
        drawn += [settle["high_mb_s"]]
    if result["groups"][0]["complete"]:
        mean = result["groups"][0]["mean_mb_s"]
        for span in (span1, span3):
            if span:
                ax.plot(span, [mean, mean], color="#0d47a1", linestyle=":", linewidth=1.4, zorder=4,
                        label="group 1 mean" if span is span1 else None)
        drawn += [mean]
    if recovery["judged"] and tolerance and span3:
        ax.plot(span3, [recovery["low_mb_s"]] * 2, color="#2e7d32", linestyle="--", linewidth=1.2, zorder=4,
                label=f"group 1 mean − {tolerance:g} %: recovery level")
    for transition, number, word in ((settle, 2, "settled"), (recovery, 3, "recovered")):
        if transition["sample"] is None:
            if transition["judged"]:
                # Nothing to point at: the legend says so.
                ax.plot([], [], linestyle="none", marker="*", markersize=15, color="white", markeredgecolor="black",
                        label=f"group {number}: {transition['reason']}")
            continue
        hit = next(s for s in result["samples"] if s["group"] == number and s["sample"] == transition["sample"])
        ax.plot([hit["t_min"]], [hit["mb_s"]], linestyle="none", marker="*", markersize=15,
                color=GROUP_COLORS[f"group{number}"], markeredgecolor="black", zorder=6,
                label=f"{word}: {_minutes(transition['minutes'])} min into group {number}")
    return drawn


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    if not result.get("samples"):
        return {}
    # Up to MARKERS_UP_TO samples a series gets markers; a full run (1,320 samples) gets thin lines.
    many = len(result["samples"]) > MARKERS_UP_TO
    time_label = "Minutes from the test's first sample" + {
        "recorded": "", "status": " (fio's clock)", "log": " (fio's clock)"}.get(result.get("time_base"), " (fio time)")
    drawn = {}

    # Throughput of all three groups, with what the recovery figures are judged against.
    fig, ax = plt.subplots(figsize=(WIDTH, 5.4), layout="constrained")
    series = _series(result, "mb_s")
    _draw_log(ax, result)
    _draw_groups(ax, series, many)
    levels = _recovery_marks(ax, result)
    _boundaries(ax, result, label=True)
    _zero_y(ax, [v for dummy, dummy2, values in series for v in values] + levels)
    ax.set_ylabel("MB/s (10⁶ B/s)")
    ax.set_xlabel(time_label)
    _time_axis(ax, result)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    ax.set_title(f"{prefix} — cross stimulus recovery: write throughput per sample", loc="left")
    drawn["throughput"] = _finish(fig, os.path.join(plot_dir, "xsr-throughput.png"), subtitle)

    # Throughput, mean and maximum response time on one time axis.
    panels = (("Throughput", "MB/s (10⁶ B/s)", "mb_s"), ("Mean response time (ART)", "ms", "art_ms"),
              ("Maximum response time (MRT)", "ms", "mrt_ms"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(WIDTH, 10), layout="constrained", sharex=True)
    for index, (ax, (title, unit, key)) in enumerate(zip(axes, panels)):
        series = _series(result, key)
        _draw_groups(ax, series, many)
        _boundaries(ax, result, label=index == 0)
        _scale([ax], [v for dummy, dummy2, values in series for v in values], unit)
        ax.set_title(title, fontsize=10, loc="left")
        _time_axis(ax, result)
    axes[-1].set_xlabel(time_label)
    axes[0].legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(f"{prefix} — cross stimulus recovery: throughput, mean and maximum response time")
    drawn["panels"] = _finish(fig, os.path.join(plot_dir, "xsr-panels.png"), subtitle)
    return drawn


def _log_check(result: dict) -> str:
    """fio's bw log beside status-dump samples: the mean of each group's log lines (a status window starts at one of
    fio's dumps, a logging interval at the job's start, so a short sample is not the mean of the lines inside it)."""
    parts = [f"group {g['number']} {md.fmt(g['log']['mean_mb_s'], 1)} MB/s" for g in result["groups"]
             if g.get("log") and g["log"].get("mean_mb_s") is not None]
    if not parts:
        return ""
    return (f"fio's bw log over each group, the mean of its lines: {', '.join(parts)} (its intervals start at the "
            "job's start, the samples' at fio's status dumps, so a short sample is not the mean of the lines inside "
            "it).")


def _interval_text(result: dict) -> str:
    idle = result.get("idle") or {}
    return f"{idle['interval_ms']:g}-ms interval" if idle.get("interval_ms") else "logging interval"


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
        lines[0] += (f" Between the groups ({between}) one fio run ended and the next started: from the last log line "
                     "of one group to the first of the next, less the interval that line covers.")
    return lines + [""]


def _minutes(value) -> str:
    """Minutes for a table: two decimals below ten (a quick run's samples last seconds), one above."""
    if value is None:
        return md.DASH
    return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"


def _counted(group: dict, continuous: bool) -> str:
    """A group's samples against its plan: "6 of 6", or for one continuous run "7 (6 planned)"."""
    return f"{group['samples']:,} ({group['planned']:,} planned)" if continuous else \
        f"{group['samples']:,} of {group['planned']:,}"


def _status_line(result: dict) -> str:
    continuous = result.get("time_base") in ("status", "log")
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
        minutes = f"**{_minutes(transition['minutes'])}**"
    else:
        outcome, minutes = md.text(transition["reason"]), md.DASH
    return [title, target, outcome, minutes, _minutes(transition["stimulus_min"]), _minutes(transition["at_min"])]


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
    continuous = base in ("status", "log")
    how = {"log": "  each group one continuous fio run (no idle between its samples); its samples are cut from the "
                  f"run's interval logs, {seconds:g} s each",
           "status": "  each group one continuous fio run; its samples are the windows between fio's status dumps, "
                     f"every {seconds:g} s"}.get(
        base, "  each sample one fio round; a sequential group writes on from where its last sample ended")
    figures = {
        "log": "A sample's figures are what fio logged for it: its group's fio run logs one line per "
               f"{_interval_text(result)} "
               "(`write_bw_log`, `write_iops_log`, `write_lat_log` with `log_avg_msec`), and sample k holds the "
               "logging intervals that end from (k - 1) to k sample lengths after the run's start. Throughput (MB/s, "
               "10⁶ bytes/s) is the mean of its bw log lines (KiB/s × 1,024), IOPS the mean of its iops log lines, "
               "the mean response time (ART) the mean of its lat log lines; the maximum response time (MRT) is the "
               "slowest IO of the status-dump samples (fio's `--status-interval` json+ dumps, the round files filed "
               "while the group ran) that overlap it, since the logs hold averages only. A sample whose last logging "
               "interval fio did not log (the run's end) has fewer lines: its seconds are its lines × the interval. ",
        "status": "A sample's figures are fio's own counters at the status dump that ends it less those at the one "
                  "before (the bytes, IOs and latency sum of exactly the IOs in it, over its run time): throughput "
                  "(MB/s, 10⁶ bytes/s), IOPS and mean response time (ART); its maximum response time (MRT) is fio's "
                  "maximum where it rose in the sample, else the slowest bucket of the sample's own latency histogram "
                  "(json+). The first sample of a group is shorter by fio's set-up, and the last - fio's run after its "
                  "last status dump - is short (its length is in the samples table). ",
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
    lines += [f"### {number}.1 Summary", "", _status_line(result), ""]
    rows = []
    for group in result["groups"]:
        rows.append([f"**{group['number']}** {group['access']}", _counted(group, continuous),
                     _minutes(group["duration_min"]), md.fmt(group["mean_mb_s"], 1),
                     md.fmt(group["final_mb_s"], 1) + (f" ({group['final_samples']})" if group["samples"] else ""),
                     md.fmt(group["mean_iops"], 0), md.fmt(group["mean_art_ms"], 3), md.fmt(group["peak_art_ms"], 3),
                     md.fmt(group["peak_mrt_ms"], 3)])
    lines += md.table(["Group (access)", "Samples", "Duration (min)", "Mean MB/s", "Final MB/s (samples)",
                       "Mean IOPS", "Mean ART (ms)", "Peak ART (ms)", "Peak MRT (ms)"], rows)
    if continuous:
        mean = ("the mean of all the group's log lines" if base == "log" else
                "the group's bytes over its run time")
        lines += ["", f"Means weighted by each sample's seconds (ART by its IOs): {mean}. "
                      f"Final MB/s: over the samples that cover the group's last {FINAL_SHARE_PCT} % of run time (how "
                      "many in brackets). Peak ART: the highest of the samples' mean response times; peak MRT: the "
                      "slowest single IO. Duration: from the start of the group's first sample to the end of its last. "
                      + (_log_check(result) if base == "status" else ""), ""]
    else:
        lines += ["", f"Final MB/s: the mean of the group's last {FINAL_SHARE_PCT} % of samples (at least one; how many "
                      "in brackets). Peak ART: the highest of the samples' mean response times; peak MRT: the slowest "
                      "single IO. Duration: from the start of the group's first sample to the end of its last.", ""]
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
    lines += [f"### {number}.4 Samples", "", ("Every sample's figures as fio's interval logs give them (Lines: its bw "
                                              "log lines; MRT from the status-dump round files named)" if base == "log"
                                              else "Every sample's figures, linked to its round file")
              + "; a long group shows its first and last ten samples and evenly spaced ones between.", ""]
    for group in result["groups"]:
        own = [s for s in result["samples"] if s["group"] == group["number"]]
        if not own:
            continue
        shown, note = _sections.sampled(own, GROUP_TABLE_ROWS)
        lines += [f"<details><summary>Group {group['number']} ({group['access']}): {md.plural(len(own), 'sample')}"
                  "</summary>", ""]
        if base == "log":
            lines += md.table(["Test minute", "Sample", "Lines", "Seconds", "MB/s", "IOPS", "ART (ms)", "MRT (ms)",
                               "MRT from rounds"], [
                [_minutes(s["t_min"]), f"{s['sample']:,}", f"{s['log_lines']:,}", md.fmt(s["runtime_s"], 3),
                 md.fmt(s["mb_s"], 1), md.fmt(s["iops"], 0), md.fmt(s["art_ms"], 3), md.fmt(s["mrt_ms"], 3),
                 ", ".join(_round_link(result["test"], s["group"], n, f"{n:02d}") for n in s["mrt_rounds"]) or md.DASH]
                for s in shown])
        else:
            lines += md.table(["Test minute", "Sample", "Seconds", "MB/s", "IOPS", "ART (ms)", "MRT (ms)"], [
                [_minutes(s["t_min"]), _round_link(result["test"], s["group"], s["sample"], f"{s['sample']:,}"),
                 md.fmt(s["runtime_s"], 3), md.fmt(s["mb_s"], 1), md.fmt(s["iops"], 0), md.fmt(s["art_ms"], 3),
                 md.fmt(s["mrt_ms"], 3)] for s in shown])
        lines += (["", note] if note else []) + ["", "</details>", ""]
    lines += [f"### {number}.5 Purge and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)])
    if continuous:
        lines += ["", "Each group ran one fio job file, `round-01.fio` in its directory; the round files are the "
                      "samples cut at fio's status dumps while it ran, each filed the moment it ended (`round-NN.json` "
                      "parsed, `round-NN.raw.json` the status dump as fio wrote it), and the group's interval logs, "
                      "kept when its run ended, are `round-01_bw.log`, `round-01_iops.log`, `round-01_lat.log` (with "
                      "`_clat`, `_slat`)" + (": the samples above are cut from them." if base == "log" else "."), ""]
        return lines
    lines += _sections.file_links(result["test"], [(g["name"], g["round_files"]) for g in result["groups"]
                                                   if g["round_files"]], wipc=False)
    return lines
