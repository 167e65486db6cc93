# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The cross stimulus recovery test (SNIA PTS 2.0 XSR) in the report, its result from its round files (the figures:
_xsr_plots.py; the report section: _xsr_md.py): after a purge and no preconditioning, three
access groups of writes back to back - sequential (1024k), random (8k), sequential again - each a series of samples
(one fio section per round, 60 s in the standard test). The report shows throughput, mean and maximum response time
against time, a table per group, and per transition how long the drive took: to settle on the random writes (group
1 -> 2) and to recover its sequential throughput (group 2 -> 3).

The PTS 2.0 sources differ (docs/docsite/rst/snia_mapping.rst): ADATA's port counts recovery as the first group-3
minute whose throughput reaches the group-1 mean; here that mean less a tolerance
(``pts_run_xsr_recovery_tolerance_pct``, 5 % by default), and ADATA's figure (tolerance 0) beside it. No steady
state: every group runs its samples once."""

from __future__ import annotations

import datetime
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import xsr
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _tests


GROUPS = tuple(name for name, dummy in xsr.GROUPS)
ACCESS = dict(xsr.GROUPS)
STANDARD = xsr.TEST.profile["standard"]
# Group 1 and group 3 run the same stimulus; each group keeps its own colour in both plots.
GROUP_COLORS = {"group1": "#1f77b4", "group2": "#d62728", "group3": "#2ca02c"}
# A group's final level: the mean of its last tenth of samples (at least one).
FINAL_SHARE_PCT = 10
MS = 1e6
# Floating-point slack when a throughput is compared with a level it may equal exactly.
_EPS = 1e-9
TIME_NOTE = {
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
    return [xsr.group_samples(float(m), seconds) for m in minutes]


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
        raise DataError(f"{group} round {rnd['round']} has no fio section {name}")
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
        elif index >= len(own) - second["final_samples"]:
            # The final level is the mean of these very samples: they are inside its band by construction.
            out["reason"] = (f"not resolved: group 2 stays in the band only from its last {second['final_samples']} "
                             "sample(s), those its final level is the mean of, so they are in the band by construction "
                             "(too few samples to tell when it settled)")
            out["judged"] = False
            index = None
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
           settings: dict, weighted: bool) -> dict:
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
        # One continuous run: fio's own group throughput, its bytes over its run time (the samples tile the run).
        "mean_mb_s": _counted(own, "io_bytes") / 1e6 if weighted and own else _mean([s["mb_s"] for s in own], seconds),
        "final_mb_s": _mean([s["mb_s"] for s in tail], [s["runtime_s"] for s in tail] if weighted else None),
        "final_samples": len(tail),
        "mean_iops": _counted(own, "ios") if weighted and own else _mean([s["iops"] for s in own], seconds),
        "first_unix_ms": own[0].get("start_unix_ms") if own else None,
        "last_unix_ms": own[-1].get("end_unix_ms") if own else None, "mean_art_ms": _mean([s["art_ms"] for s in own], ios),
        "peak_art_ms": _max([s["art_ms"] for s in own]), "peak_mrt_ms": _max([s["mrt_ms"] for s in own]),
        "failure": segment.get("failure"),
        "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
        "log": _group_log(segment),
    }


def _counted(samples: list[dict], key: str) -> float:
    """A per-second rate over samples that tile one fio run: their ``key`` (bytes or IOs) over their run time."""
    seconds = sum(s["runtime_s"] for s in samples)
    return sum(s[key] for s in samples) / seconds if seconds else 0.0


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
    return _interval.parse_log(_safe_tree.read_text(path, _safe_tree.MAX_LOG_BYTES))


def _status_samples(ordered: list[tuple[str, dict]], spans: list[tuple[float, float]]) -> list[dict]:
    """Each sample's figures from fio's counts (its round file's section: for a group run as one fio, the IOs and
    bytes between two status dumps over the run time between them, its latency from the dumps' sums, maximum and
    buckets), at its place on the time axis."""
    samples = []
    for (name, rnd), (start, end) in zip(ordered, spans):
        job = _job(rnd, name)
        total = job["total"]
        counted = _fio.counted(job)["total"]
        window = job.get("window") or {}
        samples.append({
            "group": GROUPS.index(name) + 1, "sample": int(rnd["round"]),
            "round_file": f"{name}/round-{int(rnd['round']):02d}",
            "start_min": start / 60.0, "t_min": end / 60.0, "runtime_s": counted["runtime_ms"] / 1000.0,
            "io_bytes": counted["io_bytes"], "ios": counted["ios"],
            "mb_s": counted["bw_bytes"] / 1e6, "iops": counted["iops"],
            "art_ms": _ms(total["lat_ns"]["mean"]), "mrt_ms": _ms(total["lat_ns"]["max"]),
            "start_unix_ms": window.get("from_unix_ms"), "end_unix_ms": window.get("to_unix_ms"),
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
    # Each group run as one fio: its samples are the windows between fio's status dumps (fio's own counts), on fio's
    # clock; its interval logs give the plots' fine line and the idle time only. Else (results of earlier versions)
    # the round files' times.
    spans, base = _clock(ordered, sample_s)
    samples = _status_samples(ordered, spans)
    origin = _window(ordered[0][1], ordered[0][0])["from_unix_ms"] if base == "status" else None
    weighted = base == "status"
    groups = [_group(name, index + 1, segments[name]["rounds"], samples, planned[index], segments[name], settings,
                     weighted) for index, name in enumerate(GROUPS)]
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
    """The drive's idle time as fio measured it: within each group from its bw log (none that lasted a logging
    interval, for a group run as one fio) and between two groups from fio's clock at the end of one run and the start
    of the next (one fio ending, the next starting). None without logs."""
    logs = [g["log"] for g in groups if g.get("log") and "error" not in g["log"]]
    if not logs:
        return None
    between = []
    for first, second in zip(groups, groups[1:]):
        # From one group's end (fio's final report of its run) to the next one's start (its first status dump less
        # its run time): fio's clock at both ends, the last unlogged interval of the first group counted.
        if first.get("last_unix_ms") is not None and second.get("first_unix_ms") is not None:
            between.append({"from": first["number"], "to": second["number"],
                            "idle_s": max(0.0, (second["first_unix_ms"] - first["last_unix_ms"]) / 1000.0)})
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


def minutes_text(value) -> str:
    """Minutes for a table: two decimals below ten (a quick run's samples last seconds), one above."""
    if value is None:
        return md.DASH
    return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"
