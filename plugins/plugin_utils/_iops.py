# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The IOPS test's result, computed from its round files alone (SNIA PTS Enterprise 1.1, IOPS test)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils import _pts, _steady_state
from ansible_collections.fleetqual.pts.plugins.module_utils._fio import find_job
from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import block_size_label


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def window_table(rounds: list[dict], mixes: list[int], sizes: list[int], pick) -> dict:
    """Window average of ``pick(job)`` per block size (label) and mix; None where a round lacks it."""
    table: dict = {}
    for bs in sizes:
        row = {}
        for mix in mixes:
            values = []
            for rnd in rounds:
                try:
                    value = pick(find_job(rnd["fio"]["jobs"], mix, bs))
                except KeyError:
                    value = None
                if value is not None:
                    values.append(value)
            row[str(mix)] = _mean(values) if len(values) == len(rounds) and values else None
        table[block_size_label(bs)] = row
    return table


def build(test: dict) -> dict:
    """result.json content for the IOPS test from ``_results.load_test`` output."""
    rounds = test["rounds"]
    if not rounds:
        return {"test": "iops", "status": "no rounds", "rounds": []}
    settings = rounds[-1].get("settings") or {}
    window = int(settings.get("window", _steady_state.DEFAULT_WINDOW))
    max_rounds = int(settings.get("max_rounds", _steady_state.DEFAULT_MAX_ROUNDS))
    data_pct = float(settings.get("max_data_excursion_pct", _steady_state.DEFAULT_MAX_DATA_EXCURSION_PCT))
    slope_pct = float(settings.get("max_slope_excursion_pct", _steady_state.DEFAULT_MAX_SLOPE_EXCURSION_PCT))
    dv = settings.get("dv") or _pts.IOPS_DV

    numbers = [int(r["round"]) for r in rounds]
    if numbers != list(range(1, len(rounds) + 1)):
        raise ValueError(f"round files are not consecutive from 1: {numbers}")
    dv_values = [_pts.dv_value(r["fio"]["jobs"], dv["mix"], dv["bs"], dv.get("metric", "iops")) for r in rounds]
    verdicts = _steady_state.history(dv_values, window, data_pct, slope_pct)
    final = verdicts[-1]
    steady_round = _steady_state.first_steady_round(verdicts)
    if final.steady:
        status = "steady"
    elif len(rounds) >= max_rounds:
        status = "not steady"
    else:
        status = "incomplete"

    window_rounds = rounds[-window:] if len(rounds) >= window else rounds
    mixes = [int(m) for m in settings.get("mixes") or sorted({j["mix"] for j in rounds[-1]["fio"]["jobs"]}, reverse=True)]
    sizes = [int(s) for s in settings.get("block_sizes") or sorted({j["bs"] for j in rounds[-1]["fio"]["jobs"]})]
    sizes_ascending = sorted(sizes)

    live = (test.get("steady_state") or {}).get("verdicts") or []
    live_mismatch = [
        v["round"] for v in live
        if v.get("round") and v["round"] <= len(verdicts) and bool(v.get("steady")) != verdicts[v["round"] - 1].steady
    ]
    first = rounds[0].get("fio", {})
    return {
        "test": "iops",
        "title": "IOPS",
        "status": status,
        "steady": final.steady,
        "steady_round": steady_round,
        "rounds_run": len(rounds),
        "settings": settings,
        "dv": {"mix": dv["mix"], "bs": block_size_label(_pts.parse_block_size(dv["bs"])), "metric": dv.get("metric", "iops"),
               "values": dv_values},
        "verdicts": [dict(v.as_dict(), round=i + 1) for i, v in enumerate(verdicts)],
        "window": final.as_dict(),
        "window_rounds": [int(r["round"]) for r in window_rounds],
        "mixes": mixes,
        "block_sizes": [block_size_label(s) for s in sizes_ascending],
        "notes": settings.get("notes") or [],
        "live_verdict_mismatch": live_mismatch,
        "convergence": {
            block_size_label(bs): [
                _maybe(lambda r, bs=bs: find_job(r["fio"]["jobs"], dv["mix"], bs)["total"]["iops"], rnd)
                for rnd in rounds
            ]
            for bs in sizes_ascending
        },
        "tables": {
            "iops": window_table(window_rounds, mixes, sizes_ascending, lambda j: j["total"]["iops"]),
            "mb_per_s": window_table(window_rounds, mixes, sizes_ascending, lambda j: j["total"]["bw_bytes"] / 1e6),
            "mean_latency_ms": window_table(
                window_rounds, mixes, sizes_ascending,
                lambda j: j["total"]["lat_ns"]["mean"] / 1e6 if j["total"]["lat_ns"]["mean"] is not None else None,
            ),
        },
        "fio_version": first.get("fio_version"),
        "fio_options": rounds[-1].get("fio", {}).get("global_options") or {},
        "round_files": [f"round-{int(r['round']):02d}.json" for r in rounds],
        "round_elapsed_s": [r.get("fio", {}).get("elapsed_s") for r in rounds],
        "collection_version": rounds[-1].get("collection_version"),
        "started_at": (test.get("purge") or {}).get("recorded_at") or rounds[0].get("recorded_at"),
        "finished_at": rounds[-1].get("recorded_at"),
        "purge": test.get("purge"),
        "wipc": _wipc_summary(test.get("wipc")),
    }


def _maybe(pick, rnd):
    try:
        return pick(rnd)
    except KeyError:
        return None


def _wipc_summary(wipc: dict | None) -> dict | None:
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
