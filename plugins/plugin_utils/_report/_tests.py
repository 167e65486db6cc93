# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What every PTS test's result is made of, computed from round files alone: DV series and their verdicts,
measurement windows and window averages per (block size, R/W mix)."""

from __future__ import annotations

import datetime

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _dv, _steady_state
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import MissingJob, find_job
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._results import live_verdicts


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def check_consecutive(rounds: list[dict]) -> None:
    numbers = [int(r["round"]) for r in rounds]
    if numbers != list(range(1, len(rounds) + 1)):
        raise DataError(f"round files are not consecutive from 1: {numbers}")


def settings_of(rounds: list[dict]) -> dict:
    return (rounds[-1].get("settings") if rounds else None) or {}


def limits(settings: dict) -> tuple[int, int, float, float]:
    return (
        int(settings.get("window", _steady_state.DEFAULT_WINDOW)),
        int(settings.get("max_rounds", _steady_state.DEFAULT_MAX_ROUNDS)),
        float(settings.get("max_data_excursion_pct", _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT)),
        float(settings.get("max_slope_excursion_pct", _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT)),
    )


def job_or_none(rnd: dict, mix: int, bs: int) -> dict | None:
    try:
        return find_job(rnd["fio"]["jobs"], mix, bs)
    except MissingJob:
        return None


def dv_series(rounds: list[dict], dv: dict) -> dict:
    """One DV over all rounds with the verdict after each round, as the stop rule saw it."""
    window, max_rounds, data_pct, slope_pct = limits(settings_of(rounds))
    bs = parse_block_size(dv["bs"])
    values = [_dv.dv_value(r["fio"]["jobs"], dv["mix"], bs, dv.get("metric", "iops"), dv.get("job")) for r in rounds]
    verdicts = _steady_state.history(values, window, data_pct, slope_pct)
    return {
        "name": dv.get("name") or _dv.dv_name(dict(dv, bs=bs)),
        "mix": int(dv["mix"]), "bs": block_size_label(bs), "metric": dv.get("metric", "iops"), "job": dv.get("job"),
        "values": values,
        "verdicts": [dict(v.as_dict(), round=i + 1) for i, v in enumerate(verdicts)],
        "window": verdicts[-1].as_dict() if verdicts else None,
        "steady": bool(verdicts) and verdicts[-1].steady,
        "steady_round": _steady_state.first_steady_round(verdicts),
    }


def status(steady: bool, rounds_run: int, max_rounds: int, failure: dict | None = None) -> str:
    if steady:
        return "steady"
    if rounds_run >= max_rounds:
        return "not steady"
    return "failed" if failure else "incomplete"


FINISHED = ("steady", "not steady", "complete", "time limit")


def window_rounds(rounds: list[dict], window: int) -> list[dict]:
    return rounds[-window:] if len(rounds) >= window else rounds


def window_mean(rounds: list[dict], mix: int, bs: int, pick) -> float | None:
    """Average of ``pick(job)`` over the rounds; None unless every round measured it."""
    values = []
    for rnd in rounds:
        job = job_or_none(rnd, mix, bs)
        value = pick(job) if job else None
        if value is None:
            return None
        values.append(value)
    return mean(values) if values else None


def window_grid(rounds: list[dict], mixes: list[int], sizes: list[int], pick) -> dict:
    """Window average per block size (label) and mix (as a string key)."""
    return {block_size_label(bs): {str(m): window_mean(rounds, m, bs, pick) for m in mixes} for bs in sizes}


def per_round(rounds: list[dict], mix: int, bs: int, pick) -> list[float | None]:
    """``pick(job)`` of one combination in every round (None where a round lacks it)."""
    out = []
    for rnd in rounds:
        job = job_or_none(rnd, mix, bs)
        out.append(pick(job) if job else None)
    return out


def live_mismatch(segment: dict, dv_results: list[dict]) -> list[int]:
    """Rounds whose verdict as the run saw it (steady-state.json) differs from the one the files give."""
    live = live_verdicts(segment)
    computed = {}
    for dv in dv_results:
        for verdict in dv["verdicts"]:
            computed[verdict["round"]] = computed.get(verdict["round"], True) and verdict["steady"]
    return [v["round"] for v in live if v.get("round") in computed and bool(v.get("steady")) != computed[v["round"]]]


def parse_time(text: str | None) -> datetime.datetime | None:
    """An ISO time as recorded in a result file (recorded_at), None when absent or not a time."""
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def round_times(rounds: list[dict]) -> list[float | None]:
    """Seconds from the start of the first round (its recorded_at less fio's run time) to the end of each round (its
    recorded_at): the round files' own clocks, for the plots' time axes. Empty when the first round has no time."""
    ends = [parse_time(r.get("recorded_at")) for r in rounds]
    if not ends or ends[0] is None:
        return []
    origin = ends[0] - datetime.timedelta(seconds=float((rounds[0].get("fio") or {}).get("elapsed_s") or 0.0))
    return [(end - origin).total_seconds() if end is not None else None for end in ends]


def io_seconds(rounds: list[dict]) -> float:
    """The seconds fio measured I/O in the rounds: every job's own run time (fio's job_runtime), summed."""
    return sum(float(job.get("runtime_ms") or 0) for r in rounds for job in (r.get("fio") or {}).get("jobs") or []) / 1e3


def timing(segments: list[dict]) -> dict:
    """When a test started (its first purge, else first round) and ended (its last round), and how long it took."""
    starts, ends, fio_s = [], [], 0.0
    for segment in segments:
        rounds = segment["rounds"]
        start = (segment.get("purge") or {}).get("recorded_at") or (rounds[0]["recorded_at"] if rounds else None)
        if start:
            starts.append(start)
        if rounds:
            ends.append(rounds[-1]["recorded_at"])
        fio_s += sum(r.get("fio", {}).get("elapsed_s") or 0.0 for r in rounds)
    started, finished = (min(starts) if starts else None), (max(ends) if ends else None)
    begin, end = parse_time(started), parse_time(finished)
    sections = sum(len((r.get("fio") or {}).get("jobs") or []) for s in segments for r in s["rounds"])
    return {"started_at": started, "finished_at": finished, "fio_s": fio_s,
            "fio_io_s": sum(io_seconds(s["rounds"]) for s in segments), "fio_sections": sections,
            "wall_s": (end - begin).total_seconds() if begin and end else None}


def wipc_summary(wipc: dict | None) -> dict | None:
    if not wipc:
        return None
    jobs = wipc.get("fio", {}).get("jobs") or []
    return {
        "bytes_written": sum(j["write"]["io_bytes"] for j in jobs),
        "elapsed_s": wipc.get("fio", {}).get("elapsed_s"),
        "mb_per_s": sum(j["write"]["bw_bytes"] for j in jobs) / 1e6,
        "block_size": block_size_label(jobs[0]["bs"]) if jobs else None,
        "recorded_at": wipc.get("recorded_at"),
    }


def single_segment(test: dict) -> tuple[dict, dict]:
    """A one-segment test's result fields every test has and its segment. Without rounds the result is final (its
    status failed or no rounds); with them the rounds are checked consecutive."""
    segment = test["segments"].get("") or {"rounds": []}
    result = common(test, [segment])
    if not segment["rounds"]:
        return dict(result, status="failed" if result["failure"] else "no rounds", rounds_run=0), segment
    check_consecutive(segment["rounds"])
    return result, segment


def common(test: dict, segments: list[dict]) -> dict:
    """The parts of every test's result that do not depend on the test."""
    rounds = [r for s in segments for r in s["rounds"]]
    last = rounds[-1] if rounds else {}
    return {
        "test": test["name"],
        "title": TITLES.get(test["name"], test["name"]),
        "settings": settings_of(rounds),
        "notes": settings_of(rounds).get("notes") or [],
        "fio_version": (rounds[0].get("fio") or {}).get("fio_version") if rounds else None,
        "fio_options": (last.get("fio") or {}).get("global_options") or {},
        "collection_version": last.get("collection_version"),
        "purge": test.get("purge") or (segments[0].get("purge") if segments else None),
        "wipc": wipc_summary(test.get("wipc")),
        "failure": test.get("failure") or next((s["failure"] for s in segments if s.get("failure")), None),
        "superseded": test.get("superseded") or [],
        **timing(segments),
    }


def spec_of(results: dict) -> str:
    """The PTS version a drive's tests followed (pts_spec), from their results' settings; "1.1" for results recorded
    before there was a choice."""
    found = {str((t.get("settings") or {}).get("spec") or "1.1") for t in results.values() if t.get("settings")}
    return "2.0" if "2.0" in found else "1.1"
