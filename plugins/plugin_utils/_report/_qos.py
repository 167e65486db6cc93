# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The QoS measurement (module_utils/_pts/_tests/qos.py) in the report: its preconditioning to steady state, then per
queue depth and direction one run of 4k random IOs whose latency histogram (fio json+) gives its percentiles - each
with the IOs it counts, n/r where they do not resolve it (the run's time cap ended it first)."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import qos
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts, _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import ReportKind

MS = 1e6
PHASES = ("precondition", "measure")


def cell_key(direction: str, qd: int) -> str:
    """A cell of the QoS table: "read qd32"."""
    return f"{direction} qd{int(qd)}"


def _precondition(segment: dict) -> dict:
    rounds = segment["rounds"]
    if not rounds:
        return {"status": "failed" if segment.get("failure") else "no rounds", "steady": False, "steady_round": None,
                "rounds_run": 0, "dv": None, "window_rounds": [], "round_files": [], "iops": None}
    _tests.check_consecutive(rounds)
    window, max_rounds, dummy, dummy2 = _tests.limits(_tests.settings_of(rounds))
    series = _tests.dv_series(rounds, qos.PC_DV)
    in_window = _tests.window_rounds(rounds, window)
    values = series["values"][-len(in_window):]
    return {"status": _tests.status(series["steady"], len(rounds), max_rounds, segment.get("failure")),
            "steady": series["steady"], "steady_round": series["steady_round"], "rounds_run": len(rounds),
            "dv": series, "window_rounds": [int(r["round"]) for r in in_window],
            "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
            "iops": sum(values) / len(values) if values else None,
            "live_verdict_mismatch": _tests.live_mismatch(segment, [series])}


def _cell(rnd: dict) -> dict:
    """One measured cell: its queue depth and direction (the round's row), the IOs fio counted, their percentiles
    (from the run's histogram; None where they do not resolve one), mean, maximum and IOPS."""
    row = rnd.get("row") or {}
    direction, qd = row.get("direction"), row.get("qd")
    if direction not in ("read", "write") or not qd:
        raise DataError(f"QoS round {rnd.get('round')} names no direction and queue depth")
    job = next((j for j in rnd["fio"]["jobs"] if j["name"] == qos.cell_name(direction, qd)), None)
    if job is None:
        raise DataError(f"QoS round {rnd.get('round')} has no job {qos.cell_name(direction, qd)}")
    part = job[direction]
    bins = (part.get("histogram") or {}).get("bins")
    ios = int(part.get("total_ios") or 0)
    if bins:
        found = _histogram.summary(bins, qos.PERCENTILES)
        percentiles = {p: (v / MS if v is not None else None) for p, v in found["percentiles"].items()}
        source = "histogram"
    else:
        # No histogram (an output without json+): fio's own percentiles of this one run, where its IOs resolve them.
        own = part["lat_ns"].get("percentiles") or {}
        percentiles = {p: (own[p] / MS if own.get(p) is not None and _histogram.resolved(ios, p) else None)
                       for p in qos.PERCENTILES}
        source = "fio"
    return {"key": cell_key(direction, qd), "direction": direction, "qd": int(qd), "round": int(rnd["round"]),
            "round_file": f"round-{int(rnd['round']):02d}", "ios": ios,
            "runtime_ms": job.get("runtime_ms"), "iops": part.get("iops"),
            "mean_ms": part["lat_ns"]["mean"] / MS if part["lat_ns"].get("mean") is not None else None,
            "max_ms": part["lat_ns"]["max"] / MS if part["lat_ns"].get("max") is not None else None,
            "percentiles_ms": percentiles, "source": source}


def build(test: dict) -> dict:
    segments = {p: test["segments"].get(p) or {"rounds": [], "purge": None, "failure": None} for p in PHASES}
    result = _tests.common(test, [segments[p] for p in PHASES])
    rounds_run = sum(len(s["rounds"]) for s in segments.values())
    if not rounds_run:
        return dict(result, status="failed" if result["failure"] else "no rounds", rounds_run=0, steady=False,
                    steady_round=None, cells={}, precondition=_precondition(segments["precondition"]))
    pc = _precondition(segments["precondition"])
    measure = segments["measure"]["rounds"]
    if measure:
        _tests.check_consecutive(measure)
    cells = {c["key"]: c for c in (_cell(r) for r in measure)}
    parameters = result["settings"].get("parameters") or {}
    planned = [cell_key(d, qd) for qd in parameters.get("queue_depths") or [] for d, dummy, dummy2 in qos.DIRECTIONS]
    if result["failure"]:
        status = "failed"
    elif pc["status"] not in ("steady", "not steady") or len(cells) < len(planned):
        status = "incomplete"
    else:
        status = "steady" if pc["steady"] else "not steady"
    result.update(
        status=status, steady=bool(pc["steady"]), steady_round=pc["steady_round"],
        steady_text=f"preconditioning steady at round {pc['steady_round']}, {len(cells)} QoS cells measured"
        if pc["steady"] else None,
        not_steady_text=None if pc["steady"] else
        f"not reached by the preconditioning in {pc['rounds_run']} rounds",
        rounds_run=rounds_run, precondition=pc, cells=cells, planned_cells=planned,
        queue_depths=list(parameters.get("queue_depths") or sorted({c["qd"] for c in cells.values()})),
        percentile=parameters.get("percentile"), ios_per_cell=parameters.get("ios"),
        max_seconds=parameters.get("max_seconds"),
        round_files={"precondition": pc["round_files"], "measure": [c["round_file"] for c in cells.values()]},
        live_verdict_mismatch=pc.get("live_verdict_mismatch") or [],
    )
    return result


def _panels(result: dict) -> list[tuple[str, dict]]:
    panels = []
    for direction, dummy, mix in qos.DIRECTIONS:
        series = {}
        for qd in result.get("queue_depths") or []:
            cell = (result.get("cells") or {}).get(cell_key(direction, qd))
            if cell:
                series[f"{md.mix(mix)} {direction} QD{qd}"] = [(f"p{p}", cell["percentiles_ms"].get(p))
                                                               for p in qos.PERCENTILES] + [("max", cell["max_ms"])]
        if series:
            panels.append((f"4k random {direction}", series))
    return panels


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    drawn = {}
    pc = result.get("precondition") or {}
    if pc.get("dv"):
        drawn["precondition"] = _charts.verification(
            os.path.join(plot_dir, "qos-precondition.png"),
            f"{prefix} — QoS preconditioning, 4k random write IOPS to steady state", "IOPS", pc["dv"]["values"],
            pc["dv"]["window"], subtitle=subtitle)
    panels = _panels(result)
    if panels:
        drawn["percentiles"] = _charts.percentiles(
            os.path.join(plot_dir, "qos-percentiles.png"), f"{prefix} — QoS latency percentiles per queue depth",
            panels, subtitle=subtitle)
    return drawn


def percentile_cell(cell: dict | None, pct: str) -> str:
    """A percentile of a cell: its value in ms, or n/r with the IOs it counted where they do not resolve it."""
    if not cell:
        return md.DASH
    value = cell["percentiles_ms"].get(pct)
    if value is not None:
        return md.fmt(value, 3)
    return "n/r" if cell["ios"] and not _histogram.resolved(cell["ios"], pct) else md.DASH


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    title = result.get("title") or "Quality of Service"
    lines = [f"## {number} {title}", "", *_sections.status_notes(result)]
    if not result.get("rounds_run"):
        return lines + ["No round finished; nothing was measured.", ""]
    pc = result["precondition"]
    cap = result.get("max_seconds")
    lines += ["Purge, WIPC (sequential writes of twice the capacity), then:", "", "```",
              "4k random write until steady (the IOPS test's rule)",
              "For each queue depth, 4k random read then 4k random write, one thread:",
              f"  {result.get('ios_per_cell') or 0:,} IOs (what p{result.get('percentile')} needs: ten of them beyond "
              f"it), at most {cap if cap is not None else '?'} s", "```", "",
              f"Preconditioning: {md.plural(pc['rounds_run'], 'round')}, "
              + (f"steady at round {pc['steady_round']} ({md.fmt(pc.get('iops'), 0)} IOPS in its window)."
                 if pc["steady"] else f"**{md.text(pc['status'])}**."), ""]
    percents = [p for p in qos.PERCENTILES if p != "50"]
    rows = []
    for qd in result.get("queue_depths") or []:
        for direction, dummy, dummy2 in qos.DIRECTIONS:
            cell = (result.get("cells") or {}).get(cell_key(direction, qd))
            if not cell:
                rows.append([f"QD{qd} {direction}", md.DASH, "not measured"] + [md.DASH] * (len(percents) + 1))
                continue
            rows.append([f"QD{qd} {direction}", f"[{cell['round_file']}](qos/measure/{cell['round_file']}.json)",
                         f"{cell['ios']:,}", md.fmt(cell["mean_ms"], 3)]
                        + [percentile_cell(cell, p) for p in percents] + [md.fmt(cell["max_ms"], 3)])
    lines += ["Latency (ms) of every IO of each run, from fio's histogram (p = percentile):", ""]
    lines += md.table(["Cell", "Round", "IOs", "mean"] + [f"p{p}" for p in percents] + ["max"], rows)
    lines += ["", "n/r: not resolved - fewer IOs than 10 / (1 − p) (the run's time cap ended it first); no number is "
                  "given and a requirement on it is not judged.", ""]
    for key in ("percentiles", "precondition"):
        if plots_rel.get(key):
            lines += md.image(plots_rel[key], "QoS latency percentiles per queue depth" if key == "percentiles"
                              else "QoS preconditioning: 4k random write IOPS per round, its measurement window")
    return lines


def stimulus(settings: dict) -> str:
    """The test summary's stimulus: its preconditioning (the profile's threads and queue depth) and its cells (one
    thread at each queue depth), not the generic line that would read as if every cell ran the profile's load."""
    parameters = settings.get("parameters") or {}
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    load = f"{md.plural(int(numjobs), 'thread')} × queue depth {iodepth}, " if numjobs and iodepth else ""
    seconds = f", {float(settings['round_seconds']):g} s per round" if settings.get("round_seconds") else ""
    depths = ", ".join(str(q) for q in parameters.get("queue_depths") or []) or "none"
    return (f"preconditioning: 4k random write, {load}until steady{seconds}; then 4k random read and 4k random write, "
            f"one thread at queue depth {depths}; {settings.get('ioengine') or 'libaio'}, direct I/O")


KIND = ReportKind(name="qos", build=build, plots=plots, section=section, plot_weight=2.0, steady_rule=True,
                  steady_note=" The QoS measurement judges its preconditioning this way, then runs each of its cells once.",
                  stimulus=stimulus)
