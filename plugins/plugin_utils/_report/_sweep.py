# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A sweep test's result (characterisation and HDD tests), computed from its round files alone: per segment,
every row (round) with every cell (fio job) as fio measured it, and for a demand ramp its knee."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._results import live_verdicts

MS = 1e6
SEGMENT_LABELS = {
    "randread": "Random read", "randwrite": "Random write", "read": "Sequential read", "write": "Sequential write",
}


def segment_label(name: str) -> str:
    if name.startswith("mix-"):
        reads, writes = name[4:].split("-")
        return "4k random write (0/100)" if reads == "0" else f"4k random {reads}/{writes} R/W"
    return SEGMENT_LABELS.get(name, name)


def _ms(value: float | None) -> float | None:
    return value / MS if value is not None else None


def cell(job: dict) -> dict:
    """One fio job of a sweep row, with the options the sweep varied."""
    options = job.get("options") or {}
    total = job["total"]

    def direction(name):
        data = job[name]
        return {"iops": data["iops"], "mb_s": data["bw_bytes"] / 1e6, "lat_mean_ms": _ms(data["lat_ns"]["mean"]),
                "lat_max_ms": _ms(data["lat_ns"]["max"])} if data.get("total_ios") else None

    return {
        "name": job["name"], "rw": job["rw"], "mix": job["mix"], "bs": job["bs"], "bs_label": block_size_label(job["bs"]),
        "iodepth": job["iodepth"], "numjobs": job["numjobs"],
        "rate_iops": int(options["rate_iops"]) if "rate_iops" in options else None,
        "entropy_pct": 100 - int(options["buffer_compress_percentage"]) if "buffer_compress_percentage" in options
        else None,
        "offset": int(options["offset"]) if str(options.get("offset", "")).isdigit() else None,
        "size": int(options["size"]) if str(options.get("size", "")).isdigit() else None,
        "iops": total["iops"], "mb_s": total["bw_bytes"] / 1e6,
        "lat_mean_ms": _ms(total["lat_ns"]["mean"]), "lat_max_ms": _ms(total["lat_ns"]["max"]),
        "read": direction("read"), "write": direction("write"),
    }


def _segment(name: str, segment: dict) -> dict:
    rounds = segment["rounds"]
    if rounds:
        _tests.check_consecutive(rounds)
    rows = [{"round": int(r["round"]), "row": r.get("row") or {}, "label": (r.get("row") or {}).get("label", ""),
             "cells": [cell(job) for job in r["fio"]["jobs"]]} for r in rounds]
    live = live_verdicts(segment)
    last = live[-1] if live else {}
    done = bool(last.get("stop")) and last.get("round") == len(rounds)
    return {"name": name, "label": segment_label(name), "rows": rows, "rounds_run": len(rounds),
            "rounds_planned": last.get("rounds"), "done": done, "stop_reason": last.get("reason") if done else None,
            "purge": segment.get("purge"), "precondition": _tests.wipc_summary(segment.get("wipc")),
            "round_files": [f"round-{int(r['round']):02d}" for r in rounds]}


def demand_ramp(segment: dict, tolerance_pct: float) -> dict:
    """The demand ramp's steps (offered, achieved, latency) and its knee, recomputed from the round files."""
    steps = []
    for row in segment["rows"]:
        if len(row["cells"]) != 1:
            raise DataError(f"round {row['round']} of the {segment['name']} ramp has {len(row['cells'])} fio jobs, "
                            "not one")
        only = row["cells"][0]
        if only["rate_iops"] is None:
            raise DataError(f"round {row['round']} of the {segment['name']} ramp has no rate_iops")
        steps.append({"round": row["round"], "offered_iops": only["rate_iops"], "achieved_iops": only["iops"],
                      "lat_mean_ms": only["lat_mean_ms"], "lat_max_ms": only["lat_max_ms"],
                      "delivered": _sweeps.demand_step(only["rate_iops"], only["iops"], tolerance_pct)})
    return {"name": segment["name"], "label": segment["label"], "steps": steps, "knee": _sweeps.knee(steps),
            "limit_reached": bool(steps) and not steps[-1]["delivered"],
            "max_achieved_iops": max((s["achieved_iops"] for s in steps), default=None),
            "tolerance_pct": tolerance_pct}


def build(test: dict) -> dict:
    """The model of any sweep test: its segments' rows and cells, a status, and a demand ramp's knees."""
    loaded = [(name, test["segments"][name]) for name in sorted(test["segments"], key=_segment_order)]
    if len(loaded) > 1:
        # A test purged once keeps its purge and preconditioning in the test directory, its parts below it.
        loaded = [(name, seg) for name, seg in loaded if name or seg["rounds"]]
    result = _tests.common(test, [s for dummy, s in loaded])
    segments = [_segment(name, seg) for name, seg in loaded]
    result["segments"] = segments
    result["rounds_run"] = sum(s["rounds_run"] for s in segments)
    if not result["rounds_run"]:
        result["status"] = "failed" if result["failure"] else "no rounds"
    elif result["failure"]:
        result["status"] = "failed"
    else:
        result["status"] = "complete" if all(s["done"] for s in segments) and len(segments) >= _parts(result) \
            else "incomplete"
    result.update(steady=None, steady_round=None)
    if result["test"] == "latency_demand":
        tolerance = float((result["settings"].get("sweep") or {}).get("tolerance_pct", 5))
        result["ramps"] = [demand_ramp(s, tolerance) for s in segments if s["rows"]]
    return result


def _parts(result: dict) -> int:
    """How many segments the plan had: one per workload or per mix for the tests that purge per part."""
    settings = result["settings"]
    if result["test"] in ("latency_demand", "rw_sweep"):
        return len((settings.get("sweep") or {}).get("workloads") or [1])
    if result["test"] == "entropy_sweep":
        return len(settings.get("mixes") or [1])
    return 1


def _segment_order(name: str) -> tuple:
    order = list(SEGMENT_LABELS)
    return (order.index(name) if name in order else len(order), name)


def grid(segment: dict, row_key, column_key, pick) -> tuple[list, list, list[list]]:
    """A segment's cells as a grid: rows and columns in the order the sweep ran them."""
    rows, columns, values = [], [], {}
    for row in segment["rows"]:
        for item in row["cells"]:
            r, c = row_key(item), column_key(item)
            if r not in rows:
                rows.append(r)
            if c not in columns:
                columns.append(c)
            values[(r, c)] = pick(item)
    return rows, columns, [[values.get((r, c)) for c in columns] for r in rows]


def metric_grids(segment: dict, row_key, column_key, metrics) -> tuple[list, list, list[tuple]]:
    """One grid per metric (label, cell key, digits) over the same rows and columns: (rows, columns, [(label, grid,
    digits)])."""
    rows, columns, grids = [], [], []
    for label, key, digits in metrics:
        rows, columns, data = grid(segment, row_key, column_key, lambda item, k=key: item[k])
        grids.append((label, data, digits))
    return rows, columns, grids


def grid_table(corner: str, row_labels: list[str], column_labels: list[str], data: list[list], digits: int) -> list[str]:
    return md.table([corner] + column_labels,
                    [[label] + [md.fmt(v, digits) if v is not None else md.DASH for v in values]
                     for label, values in zip(row_labels, data)])


def _precondition_row(label: str, pre: dict) -> list[str]:
    return [label, f"{pre['bytes_written']:,} bytes of {pre.get('block_size')} random writes at QD 32, zero fill, "
                   f"{md.fmt(pre.get('mb_per_s'))} MB/s", md.fmt(pre.get("elapsed_s")) + " s"]


def steps_rows(result: dict, kind) -> list[str]:
    """Purge, preconditioning and rows: once for the test, or per segment for the tests that purge per part."""
    segments = result["segments"]
    rows = []
    if result.get("purge") and not any(s.get("purge") for s in segments):
        rows.append(_sections.purge_row("Purge", result["purge"]))
    if result.get("wipc") and not any(s.get("precondition") for s in segments):
        rows.append(_precondition_row("Preconditioning", result["wipc"]))
    for segment in segments:
        label = f" ({segment['label']})" if len(segments) > 1 else ""
        if segment.get("purge"):
            rows.append(_sections.purge_row(f"Purge{label}", segment["purge"]))
        if segment.get("precondition"):
            rows.append(_precondition_row(f"Preconditioning{label}", segment["precondition"]))
        ended = f" — {segment['stop_reason']}" if segment.get("stop_reason") else " — **not finished**"
        rows.append([f"Rows{label}", f"{segment['rounds_run']} rounds{ended}", md.DASH])
    rows += _sections.timing_rows(result, kind)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


def files(result: dict) -> list[str]:
    return _sections.file_links(result["test"], [(s["name"], s["round_files"]) for s in result["segments"]],
                                wipc=False)


def notes(result: dict) -> list[str]:
    return [f"> Note: {note}" for note in result.get("notes") or []] + ([""] if result.get("notes") else [])


def status_line(result: dict) -> str:
    return {
        "complete": "**Complete**: every row of the sweep ran.",
        "incomplete": f"**Incomplete**: the sweep stopped after {result['rounds_run']} round(s); the rows below are "
                      "those that finished.",
        "failed": f"**Failed** after {result['rounds_run']} finished round(s); the rows below are those that finished.",
        "no rounds": "**No round finished**; nothing was measured.",
    }[result["status"]]
