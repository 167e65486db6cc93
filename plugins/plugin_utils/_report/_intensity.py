# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The thread count x queue depth tests of SNIA PTS 2.0: CBW (composite block size workload, PTS-E 1.1's ECW) and
DIRTH (demand intensity / response time histogram), from their round files alone.

Both run as three segments after one purge and WIPC (module_utils/_pts/_pts2.py ``_intensity``): ``precondition`` (100 %
writes at the tracking point, the highest TC x highest QD, to steady state), ``loop`` (per round a pre-write at the
tracking point, then every TC × QD point at the test's R/W mix; steady state on the tracking point's IOPS) and
``points`` (MaxIOPS, MidIOPS, MinIOPS, each chosen from the loop's measurement window when its round started: a
pre-write at the point in samples, then a measurement with fio's latency histogram). Response times are fio's total
latency (lat_ns, submission + completion); the percentiles of all IOs (read + write) are computed from fio's merged
histogram buckets the way fio computes its own (module_utils/_pts/_histogram.py), the per-direction ones are fio's.
"""

from __future__ import annotations

import math
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram, _pts2
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _sections, _sweep_plots, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import _finish, _log_y, _spans_decades, _thousands

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator
except ImportError:  # _plots.available() says so; no plot is drawn then
    pass

MS = 1e6  # ns per ms
PHASES = ("precondition", "loop", "points")
POINTS = _pts2.POINTS
POINT_WORDS = _pts2.POINT_WORDS
PERCENTILES = ("99", "99.9", "99.99", "99.999")
NINES = (("3 nines", "99.9"), ("4 nines", "99.99"), ("5 nines", "99.999"))
POINT_COLORS = {"max": "#c62828", "mid": "#ef6c00", "min": "#1565c0"}
NOT_FINISHED = ("incomplete", "no rounds", "failed")
# The float noise allowed when a point's recorded window figures are compared with the ones recomputed here.
_SAME = 1e-9


def _ms(value: float | None) -> float | None:
    return None if value is None else value / MS


def _stems(rounds: list[dict]) -> list[str]:
    return [f"round-{int(r['round']):02d}" for r in rounds]


def _point_name(tc: int, qd: int) -> str:
    return f"TC{tc}/QD{qd}"


def parameters(name: str, settings: dict) -> dict:
    """The test's own inputs as _pts2 takes them (what pts_segment gives operating_points): settings.parameters with
    the test's name and block size, the grid from high to low."""
    params = dict(settings.get("parameters") or {})
    missing = [key for key in ("thread_counts", "queue_depths", "mix", "max_art_ms") if params.get(key) is None]
    if missing:
        raise ValueError(f"{name}: the round files' settings.parameters lack {', '.join(missing)}")
    sizes = [parse_block_size(b) for b in settings.get("block_sizes") or params.get("bssplit_sizes") or []][:1]
    if not sizes:
        raise ValueError(f"{name}: the round files name no block size")
    params.update(name=name, block_sizes=sizes, mix=int(params["mix"]), max_art_ms=float(params["max_art_ms"]),
                  thread_counts=sorted((int(t) for t in params["thread_counts"]), reverse=True),
                  queue_depths=sorted((int(q) for q in params["queue_depths"]), reverse=True))
    return params


def dvs(params: dict) -> dict:
    """The DVs the run tracked (as _pts2 defines them): each phase's named section's IOPS."""
    name, bs, mix = params["name"], params["block_sizes"][0], params["mix"]
    tc, qd = params["thread_counts"][0], params["queue_depths"][0]
    what = "CBW" if name == "cbw" else block_size_label(bs)
    return {
        "precondition": {"name": f"{what} 0/100 TC{tc}/QD{qd} IOPS", "job": f"{name}-pc", "mix": 0, "bs": bs,
                         "metric": "iops"},
        "loop": {"name": f"{what} {md.mix(mix)} TC{tc}/QD{qd} IOPS", "job": _pts2.grid_name(name, tc, qd),
                 "mix": mix, "bs": bs, "metric": "iops"},
    }


def _steady_phase(segment: dict, dv: dict) -> dict:
    """A phase with a steady-state rule: its DV over the rounds, the verdicts and its window."""
    rounds = segment["rounds"]
    if not rounds:
        return {"status": "failed" if segment.get("failure") else "no rounds", "steady": False, "steady_round": None,
                "rounds_run": 0, "settings": {}, "dv": None, "window_rounds": [], "live_verdict_mismatch": [],
                "round_files": []}
    settings = _tests.settings_of(rounds)
    window, max_rounds, dummy, dummy2 = _tests.limits(settings)
    series = _tests.dv_series(rounds, dv)
    return {
        "status": _tests.status(series["steady"], len(rounds), max_rounds, segment.get("failure")),
        "steady": series["steady"], "steady_round": series["steady_round"], "rounds_run": len(rounds),
        "settings": {"window": window, "max_rounds": max_rounds}, "dv": series,
        "window_rounds": [int(r["round"]) for r in _tests.window_rounds(rounds, window)],
        "live_verdict_mismatch": _tests.live_mismatch(segment, [series]), "round_files": _stems(rounds),
        "round_end_s": _tests.round_times(rounds),
    }


def _named(jobs: list[dict], name: str) -> dict | None:
    return next((job for job in jobs if job["name"] == name), None)


def _iops(jobs: list[dict], name: str) -> float | None:
    job = _named(jobs, name)
    return float(job["total"]["iops"]) if job else None


def _loop(segment: dict, dv: dict, params: dict) -> dict:
    """The TC × QD loop: the steady-state phase, the pre-writes, the tracking thread count per QD, and the window
    averages of every grid point (IOPS, ART as _pts2.window_grid takes them, fio's CPU use)."""
    phase = _steady_phase(segment, dv)
    rounds = segment["rounds"]
    name, tcs, qds = params["name"], params["thread_counts"], params["queue_depths"]
    jobs = [r["fio"]["jobs"] for r in rounds]
    in_window = [r["fio"]["jobs"] for r in rounds if int(r["round"]) in phase["window_rounds"]]
    grid = _pts2.window_grid(in_window, params)
    cells = []
    for tc in tcs:
        for qd in qds:
            if (tc, qd) not in grid:
                continue
            cpu = [j["cpu"]["usr_pct"] + j["cpu"]["sys_pct"] for r in in_window
                   if (j := _named(r, _pts2.grid_name(name, tc, qd))) and j.get("cpu")]
            cells.append(dict(grid[(tc, qd)], tc=tc, qd=qd, oio=tc * qd,
                              cpu_pct=sum(cpu) / len(cpu) if cpu else None))
    try:
        recomputed = _pts2.operating_points(grid, params)
        recomputed["window_rounds"] = phase["window_rounds"]
        choice_error = None
    except ValueError as exc:
        recomputed, choice_error = None, str(exc).replace("TC x QD", "TC × QD")
    return dict(phase, prewrite_iops=[_iops(j, f"{name}-prewrite") for j in jobs],
                tracking={"tc": tcs[0], "qd": qds[0],
                          "iops": {str(qd): [_iops(j, _pts2.grid_name(name, tcs[0], qd)) for j in jobs] for qd in qds}},
                grid=cells, recomputed=recomputed, choice_error=choice_error)


def _direction(data: dict) -> tuple[dict, list, list[str]]:
    """One direction of a measurement: fio's own figures, its histogram's bins, and any percentile of fio's that its
    bins do not give back."""
    lat = data["lat_ns"]
    fio = lat.get("percentiles") or {}
    bins = (data.get("histogram") or {}).get("bins") or []
    differ = []
    if bins:
        ours = _histogram.percentiles(bins, list(fio))
        differ = [p for p in fio if ours.get(p) != fio[p]]
    return ({"iops": data["iops"], "total_ios": data["total_ios"], "art_ms": _ms(lat["mean"]),
             "mrt_ms": _ms(lat["max"]),
             "percentiles_ms": {p: fio[p] / MS if _histogram.resolved(data["total_ios"], p) else None
                                for p in PERCENTILES if p in fio}},
            bins, differ)


def _percentile_cell(data: dict, percent: str) -> str:
    """A percentile in a table: its value, or n/r where the IOs counted do not resolve it."""
    found = data.get("percentiles_ms") or {}
    if found.get(percent) is not None:
        return md.fmt(found[percent], 3)
    # Given as None: fio's buckets have it, the IOs are too few to resolve it; absent: no histogram at all.
    return "n/r" if percent in found and data.get("total_ios") else md.DASH


def measurement(job: dict) -> dict:
    """An operating point's measurement section: per direction fio's IOPS, ART, percentiles and max; for all IOs
    the total IOPS, the IO-weighted ART and fio's max, and percentiles from the merged histogram buckets."""
    directions, all_bins, checks, sources = {}, [], [], set()
    for name in ("read", "write"):
        data = job[name]
        if not data["total_ios"]:
            continue
        directions[name], bins, differ = _direction(data)
        if data.get("histogram"):
            sources.add(data["histogram"].get("source"))
        if not bins:
            checks.append(f"{name}: fio printed no latency histogram (json+)")
        elif differ:
            checks.append(f"{name}: fio's {', '.join(differ)} percentiles differ from its own buckets")
        all_bins.append(bins)
    merged = _histogram.merge(*all_bins)
    total = job["total"]
    counted = _histogram.total(merged)
    if merged and counted != total["total_ios"]:
        checks.append(f"the histogram counts {counted:,} IOs, fio {total['total_ios']:,}")
    return {
        "name": job["name"], "numjobs": job["numjobs"], "iodepth": job["iodepth"], "mix": job["mix"],
        "runtime_ms": job["runtime_ms"], "iops": total["iops"], "total_ios": total["total_ios"],
        "art_ms": _ms(total["lat_ns"]["mean"]), "mrt_ms": _ms(total["lat_ns"]["max"]),
        # A percentile the point's IOs do not resolve (fewer than 10 / (1 - p)) is None: flagged, not printed.
        "percentiles_ms": {p: v / MS if v is not None else None
                           for p, v in _histogram.summary(merged, PERCENTILES)["percentiles"].items()} if merged else {},
        "bins_mean_ms": _ms(_histogram.mean(merged)), "histogram_source": ", ".join(sorted(s for s in sources if s)),
        "directions": directions, "bins": merged, "checks": checks,
    }


def _point(name: str, rnd: dict) -> dict:
    row = rnd.get("row") or {}
    point = row.get("point")
    if point not in POINTS:
        raise ValueError(f"{name} points round {rnd.get('round')} names no operating point")
    jobs = rnd["fio"]["jobs"]
    prefix = f"{name}-{point}-"
    pre = sorted((j for j in jobs if j["name"].startswith(prefix + "pre-")), key=lambda j: j["name"])
    measure = _named(jobs, prefix + "measure")
    entry = {
        "point": point, "word": POINT_WORDS[point], "round": int(rnd["round"]), "tc": row.get("tc"),
        "qd": row.get("qd"), "label": row.get("label"), "chosen": row.get("chosen"),
        "prewrite": [{"sample": i + 1, "iops": j["total"]["iops"], "art_ms": _ms(j["total"]["lat_ns"]["mean"]),
                      "runtime_ms": j["runtime_ms"]} for i, j in enumerate(pre)],
        "measure": measurement(measure) if measure else None, "round_file": f"round-{int(rnd['round']):02d}",
    }
    ran = {(j["numjobs"], j["iodepth"]) for j in pre + ([measure] if measure else [])}
    entry["ran_at"] = [{"tc": t, "qd": q} for t, q in sorted(ran)]
    return entry


def _same(a: dict, b: dict) -> bool:
    return (a.get("tc"), a.get("qd")) == (b.get("tc"), b.get("qd")) and all(
        abs(float(a.get(k) or 0) - float(b.get(k) or 0)) <= _SAME * max(1.0, abs(float(b.get(k) or 0)))
        for k in ("iops", "art_ms"))


def choice_differences(points: list[dict], recomputed: dict | None, window_rounds: list[int]) -> list[str]:
    """Where what a points round recorded as its point (and ran) differs from the choice recomputed from the loop's
    window, or its fio sections ran at another TC/QD."""
    out = []
    for entry in points:
        word, chosen = entry["word"], entry.get("chosen") or {}
        own = chosen.get(entry["point"])
        if own and (own["tc"], own["qd"]) != (entry.get("tc"), entry.get("qd")):
            out.append(f"{word}: its round ran TC{entry.get('tc')}/QD{entry.get('qd')}, its recorded choice is "
                       f"{_point_name(own['tc'], own['qd'])}")
        if any((r["tc"], r["qd"]) != (entry.get("tc"), entry.get("qd")) for r in entry.get("ran_at") or []):
            ran = ", ".join(_point_name(r["tc"], r["qd"]) for r in entry["ran_at"])
            out.append(f"{word}: its round file names TC{entry.get('tc')}/QD{entry.get('qd')}, fio ran {ran}")
        if recomputed is None:
            continue
        if chosen.get("window_rounds") is not None and list(chosen["window_rounds"]) != list(window_rounds):
            out.append(f"{word}: chosen from loop rounds {chosen['window_rounds']}, the loop's window is rounds "
                       f"{window_rounds}")
        theirs = recomputed[entry["point"]]
        if own is None or not _same(own, theirs):
            shown = f"{_point_name(own['tc'], own['qd'])} ({float(own['iops']):,.0f} IOPS)" if own else "nothing"
            out.append(f"{word}: recorded as {shown} when its round started; the loop's window gives "
                       f"{_point_name(theirs['tc'], theirs['qd'])} ({theirs['iops']:,.0f} IOPS, ART "
                       f"{theirs['art_ms']:.3f} ms)")
    return out


def _phase_text(label: str, phase: dict) -> str:
    if phase["status"] == "steady":
        return f"{label} steady at round {phase['steady_round']}"
    if phase["status"] == "not steady":
        return f"{label} not steady in {phase['rounds_run']} rounds (limit {phase['settings']['max_rounds']})"
    if not phase["rounds_run"]:
        return f"{label} not run"
    return f"{label} stopped after {md.plural(phase['rounds_run'], 'round')}"


def _phase_summary(phase: dict) -> str:
    """A phase for the steps table: its rounds and how it ended."""
    ended = {"steady": f"steady at round {phase['steady_round']}", "not steady": "not steady at the round limit"}
    return f"{md.plural(phase['rounds_run'], 'round')}, {ended.get(phase['status'], phase['status'])}"


def _headline(points: dict, recomputed: dict | None, status: str) -> dict:
    """Per operating point: where it is and its window figures (the choice), and what its measurement gave."""
    out: dict = {"status": status}
    for point in POINTS:
        entry = points.get(point)
        chosen = ((entry or {}).get("chosen") or {}).get(point) or (recomputed or {}).get(point)
        tc, qd = ((entry["tc"], entry["qd"]) if entry else (chosen["tc"], chosen["qd"]) if chosen else (None, None))
        measure = (entry or {}).get("measure") or {}
        out.update({
            f"{point}_point": _point_name(tc, qd) if tc else None,
            f"{point}_iops": chosen["iops"] if chosen else None,
            f"{point}_art_ms": chosen["art_ms"] if chosen else None,
            f"{point}_measured_iops": measure.get("iops"),
            f"{point}_measured_art_ms": measure.get("art_ms"),
            f"{point}_p99999_ms": (measure.get("percentiles_ms") or {}).get("99.999"),
            f"{point}_total_ios": measure.get("total_ios"),
            f"{point}_mrt_ms": measure.get("mrt_ms"),
        })
    return out


def build(test: dict) -> dict:
    name = test["name"]
    segments = {p: test["segments"].get(p) or {"rounds": [], "purge": None, "failure": None} for p in PHASES}
    result = _tests.common(test, [segments[p] for p in PHASES])
    result["title"] = _pts2.TITLES.get(name, name)
    rounds_run = sum(len(s["rounds"]) for s in segments.values())
    if not rounds_run:
        return dict(result, status="failed" if result["failure"] else "no rounds", rounds_run=0, steady=False,
                    steady_round=None, steady_text="", not_steady_text=None, headline=None)
    for segment in segments.values():
        if segment["rounds"]:
            _tests.check_consecutive(segment["rounds"])
    params = parameters(name, result["settings"])
    tracked = dvs(params)
    pc = _steady_phase(segments["precondition"], tracked["precondition"])
    loop = _loop(segments["loop"], tracked["loop"], params)
    measured = [_point(name, r) for r in segments["points"]["rounds"]]
    by_point = {entry["point"]: entry for entry in measured}
    done = [p for p in POINTS if (by_point.get(p) or {}).get("measure")]
    if result["failure"]:
        status = "failed"
    elif pc["status"] in NOT_FINISHED or loop["status"] in NOT_FINISHED or len(done) < len(POINTS):
        status = "incomplete"
    elif pc["steady"] and loop["steady"]:
        status = "steady"
    else:
        status = "not steady"
    text = f"{_phase_text('preconditioning', pc)}, {_phase_text('TC × QD loop', loop)}"
    if len(done) < len(POINTS):
        text += f", {len(done)} of {len(POINTS)} operating points measured"
    missed = [f"the {label} in {phase['rounds_run']} rounds (limit {phase['settings']['max_rounds']})"
              for label, phase in (("preconditioning", pc), ("TC × QD loop", loop)) if phase["status"] == "not steady"]
    checks = choice_differences(measured, loop["recomputed"], loop["window_rounds"])
    checks += [f"{e['word']}: {c}" for e in measured for c in (e["measure"] or {}).get("checks") or []]
    result.update(
        status=status, steady=bool(pc["steady"] and loop["steady"]),
        steady_round=loop["steady_round"], steady_text=text,
        not_steady_text=f"not reached by {' nor by '.join(missed)}" if missed else None, rounds_run=rounds_run,
        parameters=params,
        workload=_workload(params), thread_counts=params["thread_counts"], queue_depths=params["queue_depths"],
        precondition=pc, loop=loop, points=[by_point[p] for p in POINTS if p in by_point],
        choice_checks=checks, headline=_headline(by_point, loop["recomputed"], status),
        round_files={p: _stems(segments[p]["rounds"]) for p in PHASES},
        live_verdict_mismatch=[f"{label} {r}" for label, phase in (("preconditioning", pc), ("loop", loop))
                               for r in phase["live_verdict_mismatch"]],
    )
    return result


def _phase_stamp(phase: dict) -> tuple[str, bool]:
    """A steady-state phase's verdict for its convergence plot."""
    if phase["steady"]:
        return f"DV STEADY from round {phase['steady_round']}", True
    return f"DV NOT STEADY in {phase['rounds_run']} rounds", False


def _workload(params: dict) -> dict:
    """What the test writes and reads: CBW's block size mix over LBA hot spots, or DIRTH's one block size."""
    bs = params["block_sizes"][0]
    if params.get("bssplit"):
        dummy, pairs = _pts2.bssplit(params["bssplit"], "bssplit")
        return {"label": "CBW", "bssplit": params["bssplit"], "distribution": params.get("distribution"),
                "split": [[block_size_label(size), pct] for size, pct in pairs]}
    return {"label": f"random {block_size_label(bs)}", "block_size": block_size_label(bs), "bssplit": None,
            "distribution": params.get("distribution")}


# Plots ----------------------------------------------------------------------------------------------------------------


def _ramp(index: int, count: int):
    """Thread counts from high (dark) to low (green): viridis without its pale yellow end."""
    return plt.get_cmap("viridis")(index / max(1, count - 1) * 0.78)


def _y_axis(ax, values: list, label: str) -> None:
    ax.set_ylabel(label)
    if _spans_decades(values):
        _log_y(ax, values)
    else:
        ax.set_ylim(0, max([v for v in values if v is not None] or [1]) * 1.08)
        ax.yaxis.set_major_formatter(FuncFormatter(_thousands))


def _cells(result: dict) -> dict:
    return {(c["tc"], c["qd"]): c for c in result["loop"]["grid"]}


def _chosen(result: dict) -> dict:
    """The operating points as they ran (their rounds), else as the loop's window gives them."""
    ran = {p["point"]: {"tc": p["tc"], "qd": p["qd"]} for p in result["points"]}
    return dict({p: result["loop"]["recomputed"][p] for p in POINTS} if result["loop"].get("recomputed") else {}, **ran)


def demand_variation(path: str, title: str, result: dict, subtitle: str) -> str:
    """Demand Variation: window-average IOPS against queue depth (evenly spaced, low to high), one line per thread
    count."""
    cells = _cells(result)
    fig, ax = plt.subplots(figsize=(9.5, 5.2), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    values = []
    for index, tc in enumerate(tcs):
        points = [(x, cells[(tc, qd)]["iops"]) for x, qd in enumerate(qds) if (tc, qd) in cells]
        values += [v for dummy, v in points]
        ax.plot([x for x, dummy in points], [v for dummy, v in points], marker="o", markersize=4, linewidth=1.4,
                color=_ramp(index, len(tcs)), label=f"TC{tc}")
    _y_axis(ax, values, "IOPS (read + write)")
    ax.set_xticks(range(len(qds)), [str(qd) for qd in qds])
    ax.set_xlabel("Queue depth (per thread)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Thread count", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def demand_intensity(path: str, title: str, result: dict, subtitle: str) -> str:
    """Demand Intensity: window-average ART against window-average IOPS, one line per thread count through its
    queue depths (low to high), the operating points ringed and the ART ceiling drawn."""
    cells = _cells(result)
    fig, ax = plt.subplots(figsize=(9.5, 5.6), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    arts = []
    for index, tc in enumerate(tcs):
        points = [cells[(tc, qd)] for qd in qds if (tc, qd) in cells]
        arts += [c["art_ms"] for c in points]
        ax.plot([c["iops"] for c in points], [c["art_ms"] for c in points], marker="o", markersize=4, linewidth=1.3,
                color=_ramp(index, len(tcs)), label=f"TC{tc}")
    for point, chosen in _chosen(result).items():
        cell = cells.get((chosen["tc"], chosen["qd"]))
        if cell:
            ax.plot([cell["iops"]], [cell["art_ms"]], linestyle="none", marker="o", markersize=13,
                    markerfacecolor="none", markeredgecolor=POINT_COLORS[point], markeredgewidth=2.2, zorder=5,
                    label=f"{POINT_WORDS[point]} {_point_name(chosen['tc'], chosen['qd'])}")
    ceiling = result["parameters"]["max_art_ms"]
    shown = arts + ([ceiling] if arts and ceiling <= 3 * max(arts) else [])
    _y_axis(ax, shown, "Mean response time (ms)")
    if ceiling in shown:
        ax.axhline(ceiling, color="#6a1b9a", linestyle="--", linewidth=1, label=f"ART ceiling {ceiling:g} ms")
    else:
        ax.plot([], [], color="#6a1b9a", linestyle="--", linewidth=1, label=f"ART ceiling {ceiling:g} ms (above)")
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
    ax.set_xlabel("IOPS (read + write)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Thread count, QD 1 → max", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def _oio_ticks(ax, values: list[int]) -> None:
    ax.set_xscale("log", base=2)
    top = max(values)
    ticks = [2 ** e for e in range(0, int(math.log2(top)) + 2) if 2 ** e <= top * 1.01]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, dummy: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(min(values) / 1.3, top * 1.3)


def outstanding(path: str, title: str, result: dict, subtitle: str) -> str:
    """IOPS and ART against the total outstanding IOs (TC × QD, log 2 axis), one line per thread count."""
    cells = _cells(result)
    fig, axes = plt.subplots(1, 2, figsize=(_plots.WIDTH, 4.8), layout="constrained")
    tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
    shown = {"iops": [], "art_ms": []}
    for index, tc in enumerate(tcs):
        points = [cells[(tc, qd)] for qd in qds if (tc, qd) in cells]
        for ax, key in zip(axes, ("iops", "art_ms")):
            shown[key] += [c[key] for c in points]
            ax.plot([c["oio"] for c in points], [c[key] for c in points], marker="o", markersize=4, linewidth=1.3,
                    color=_ramp(index, len(tcs)), label=f"TC{tc}")
    for ax, key, label in zip(axes, ("iops", "art_ms"), ("IOPS (read + write)", "Mean response time (ms)")):
        _y_axis(ax, shown[key], label)
        _oio_ticks(ax, [c["oio"] for c in cells.values()])
        ax.set_xlabel("Outstanding IOs: TC × QD (log 2)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title("IOPS", fontsize=10)
    axes[1].set_title("Mean response time", fontsize=10)
    axes[1].legend(title="Thread count", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8.5)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def prewrites(path: str, title: str, result: dict, subtitle: str) -> str:
    """The operating points' pre-writes: IOPS of every sample, one line per point."""
    seconds = float(result["parameters"].get("sample_seconds") or 0) or None
    longest = max(len(p["prewrite"]) for p in result["points"])
    minutes = bool(seconds) and seconds * longest >= 600
    fig, ax = plt.subplots(figsize=(9.5, 4.8), layout="constrained")
    values = []
    for entry in result["points"]:
        samples = entry["prewrite"]
        xs = [s["sample"] * seconds / (60 if minutes else 1) if seconds else s["sample"] for s in samples]
        values += [s["iops"] for s in samples]
        ax.plot(xs, [s["iops"] for s in samples], color=POINT_COLORS[entry["point"]],
                **_plots._marker(len(samples), 3.5), linewidth=1.3,
                label=f"{entry['word']} {_point_name(entry['tc'], entry['qd'])}")
    _y_axis(ax, values, "IOPS (100 % writes)")
    ax.set_xlabel(("Minutes" if minutes else "Seconds") + " of pre-write (end of each sample)" if seconds
                  else "Sample")
    ax.set_xlim(left=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="Operating point", loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def _width_text(width_ns: int) -> str:
    return f"{width_ns / MS:g} ms" if width_ns >= 100_000 else f"{width_ns / 1000:g} µs"


# The histogram plots reach this percentile; the few slower IOs are counted, not drawn (a handful of IOs that took
# seconds would otherwise squeeze every other IO into the first bin).
HISTOGRAM_LIMIT = "99.99"


def histograms(path: str, title: str, result: dict, subtitle: str) -> str:
    """Response-time histograms: per operating point the IOs (read + write) per fixed-width latency bin up to the
    99.99th percentile (the IOs beyond it counted in the legend), log y, with the ART marked and the MRT named."""
    measured = [p for p in result["points"] if (p.get("measure") or {}).get("bins")]
    fig, axes = plt.subplots(len(measured), 1, figsize=(9.5, 2.9 * len(measured) + 0.8), layout="constrained",
                             squeeze=False)
    limits = [_histogram.percentile(entry["measure"]["bins"], HISTOGRAM_LIMIT) for entry in measured]
    # One bin width for every panel (the widest any of them needs), so their bars compare IO for IO.
    width_ns = max(_histogram.bin_width(min(_histogram.normalise(entry["measure"]["bins"])[-1][0], int(limit)))
                   for entry, limit in zip(measured, limits))
    for ax, entry, limit in zip(axes[:, 0], measured, limits):
        measure = entry["measure"]
        color = POINT_COLORS[entry["point"]]
        binned = _histogram.rebin(measure["bins"], width_ns=width_ns, limit_ns=limit)
        width = binned["width_ns"]
        counts = [c for dummy, c in binned["bins"]]
        edges = [i * width / MS for i in range(len(counts) + 1)]
        ax.stairs(counts, edges, fill=True, color=color, alpha=0.55, label=f"IOs per {_width_text(width)} bin")
        ax.stairs(counts, edges, color=color, linewidth=0.8)
        ax.axvline(measure["art_ms"], color="black", linestyle="--", linewidth=1.1,
                   label=f"ART {measure['art_ms']:.3f} ms")
        beyond = binned["beyond"]
        if beyond:
            ax.add_patch(plt.Rectangle((0, 0), 0, 0, facecolor="none", edgecolor=color, hatch="///",
                                       label=f"{md.plural(beyond['ios'], 'IO')} past the 99.99 %, not drawn: from "
                                             f"{beyond['from_ns'] / MS:,.3f} ms up to the MRT"))
        else:
            ax.axvline(measure["mrt_ms"], color="#6a1b9a", linestyle=":", linewidth=1.4,
                       label=f"MRT {measure['mrt_ms']:,.3f} ms (fio's max)")
        positive = [c for c in counts if c]
        if positive and max(positive) / min(positive) >= 20:
            ax.set_yscale("log")
            ax.set_ylim(0.7, max(positive) * 2)
            ax.set_ylabel("IOs per bin (log scale)")
        else:
            ax.set_ylim(0, max(positive or [1]) * 1.1)
            ax.set_ylabel("IOs per bin")
        ax.yaxis.set_major_formatter(FuncFormatter(_thousands))
        ax.set_xlim(0, edges[-1] if beyond else max(edges[-1], measure["mrt_ms"]) * 1.02)
        ax.set_title(f"{entry['word']} {_point_name(entry['tc'], entry['qd'])}: {measure['total_ios']:,} IOs, "
                     f"MRT {measure['mrt_ms']:,.3f} ms", fontsize=10, loc="left")
        ax.set_xlabel("Response time (ms)")
        ax.yaxis.set_minor_locator(NullLocator())
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8.5, loc="upper right")
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


# The confidence-level plot's y axis: the share of IOs on a logit scale, from 1 % to beyond five nines.
_CONFIDENCE_TICKS = (0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)
_CONFIDENCE_TOP = 0.999999
_NINE_MARKERS = {"99.9": "s", "99.99": "D", "99.999": "^"}


def _percent(value, dummy) -> str:
    return f"{value * 100:.6g} %"


def confidence(path: str, title: str, result: dict, subtitle: str) -> str:
    """Confidence levels: per operating point the share of IOs (read + write) completed within each response time
    (log x, logit y), with the ART and the 3, 4 and 5 nines marked."""
    measured = [p for p in result["points"] if (p.get("measure") or {}).get("bins")]
    # A row per point (side by side they made a figure too wide to print its text readable on A4).
    fig, axes = plt.subplots(len(measured), 1, figsize=(_plots.WIDTH, 2.9 * len(measured) + 0.9),
                             layout="constrained", squeeze=False, sharey=True, sharex=True)
    lows, highs = [], []
    for ax, entry in zip(axes[:, 0], measured):
        measure = entry["measure"]
        curve = _histogram.cumulative(measure["bins"])
        xs = [ns / MS for ns, dummy in curve]
        lows.append(xs[0])
        highs.append(max(xs[-1], measure["mrt_ms"]))
        # The last bucket holds all IOs (100 %, off a logit axis): drawn to the top edge.
        ax.step(xs, [min(share, _CONFIDENCE_TOP) for dummy, share in curve], where="post",
                color=POINT_COLORS[entry["point"]], linewidth=1.6, label="IOs completed within")
        ax.axvline(measure["art_ms"], color="black", linestyle="--", linewidth=1,
                   label=f"ART {measure['art_ms']:.3f} ms")
        ax.axvline(measure["mrt_ms"], color="#6a1b9a", linestyle=":", linewidth=1.3,
                   label=f"MRT {measure['mrt_ms']:,.3f} ms (fio's max)")
        for words, key in NINES:
            value = measure["percentiles_ms"].get(key)
            if value is None:
                # Too few IOs to resolve it: named in the legend, not marked.
                ax.plot([], [], linestyle="none", marker=_NINE_MARKERS[key], markersize=7, color="white",
                        markeredgecolor="#9e9e9e", label=f"{words}: n/r ({_histogram.needed(key):,} IOs needed)")
                continue
            ax.plot([value], [float(key) / 100], linestyle="none", marker=_NINE_MARKERS[key], markersize=7,
                    color="white", markeredgecolor="black", zorder=5, label=f"{words}: {value:.3f} ms")
        ax.set_title(f"{entry['word']} {_point_name(entry['tc'], entry['qd'])}: {measure['total_ios']:,} IOs",
                     fontsize=10, loc="left")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylabel("IOs completed within\n(cumulative %, logit)", fontsize=9)
        ax.legend(fontsize=8.5, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[-1][0].set_xlabel("Response time (ms, log scale)")
    ax = axes[0][0]
    ax.set_yscale("logit")
    ax.set_ylim(_CONFIDENCE_TICKS[0], _CONFIDENCE_TOP)
    ax.yaxis.set_major_locator(FixedLocator(_CONFIDENCE_TICKS))
    ax.yaxis.set_major_formatter(FuncFormatter(_percent))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xscale("log")
    ax.set_xlim(min(lows) / 1.3, max(highs) * 1.3)
    # Ticks at 1, 2 and 5 per decade while they fit, at each decade over a wider range.
    wide = math.log10(max(highs) / min(lows)) > 2.5
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, dummy: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())
    fig.suptitle(title)
    return _finish(fig, path, subtitle)


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    test = result["test"]
    words = test.upper()
    pc, loop = result["precondition"], result["loop"]
    drawn = {}

    def at(what: str) -> str:
        return os.path.join(plot_dir, f"{test}-{what}.png")

    if pc["rounds_run"]:
        dv = pc["dv"]
        drawn["pc_convergence"] = _plots.convergence(
            at("pc-convergence"), f"{prefix} — {words} preconditioning IOPS per round", "IOPS (write)",
            {"": {dv["name"]: dv["values"]}}, highlight=dv["name"], window_rounds=pc["window_rounds"],
            legend_title="Preconditioning", subtitle=subtitle, marks=_plots.segment_marks("precondition"),
            verdicts={"": _phase_stamp(pc)}, times=pc.get("round_end_s"))
        drawn["pc_verification"] = _plots.verification(
            at("pc-verification"), f"{prefix} — {words} preconditioning verification, {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if loop["rounds_run"]:
        dv, tracking = loop["dv"], loop["tracking"]
        drawn["loop_prewrite"] = _plots.convergence(
            at("loop-prewrite"), f"{prefix} — {words} between-round pre-writes (100 % writes, "
                                 f"{_point_name(tracking['tc'], tracking['qd'])})", "IOPS (write)",
            {"": {"pre-write": loop["prewrite_iops"]}}, window_rounds=loop["window_rounds"],
            legend_title="Pre-write", subtitle=subtitle, marks=_plots.segment_marks("loop"),
            times=loop.get("round_end_s"))
        mix = result["parameters"]["mix"]
        drawn["loop_convergence"] = _plots.convergence(
            at("loop-convergence"), f"{prefix} — {words} TC{tracking['tc']} IOPS per round, every queue depth "
                                    f"({md.mix(mix)})",
            {0: "IOPS (write)", 100: "IOPS (read)"}.get(mix, "IOPS (read + write)"),
            {"": {f"QD{qd}": values for qd, values in tracking["iops"].items()}}, highlight=f"QD{tracking['qd']}",
            window_rounds=loop["window_rounds"], legend_title=f"TC{tracking['tc']}, queue depth", subtitle=subtitle,
            marks=_plots.segment_marks("loop"), verdicts={"": _phase_stamp(loop)}, times=loop.get("round_end_s"))
        drawn["loop_verification"] = _plots.verification(
            at("loop-verification"), f"{prefix} — {words} TC × QD loop verification, {dv['name']}",
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    if loop["grid"]:
        cells = _cells(result)
        tcs, qds = result["thread_counts"], sorted(result["queue_depths"])
        window = _rounds_text(loop["window_rounds"])
        drawn["demand_variation"] = demand_variation(
            at("demand-variation"), f"{prefix} — {words} Demand Variation (window average, {window})", result,
            subtitle)
        drawn["demand_intensity"] = demand_intensity(
            at("demand-intensity"), f"{prefix} — {words} Demand Intensity (window average, {window})", result,
            subtitle)
        drawn["outstanding"] = outstanding(
            at("outstanding"), f"{prefix} — {words} IOPS and response time vs outstanding IOs ({window})", result,
            subtitle)
        drawn["cpu"] = _sweep_plots.heatmaps(
            at("cpu"), f"{prefix} — {words} fio CPU use (usr + sys %), window average",
            "Queue depth (per thread)", "Thread count", [str(qd) for qd in qds], [str(tc) for tc in sorted(tcs)],
            [("usr + sys %, as fio reports it", [[(cells.get((tc, qd)) or {}).get("cpu_pct") for qd in qds]
                                                 for tc in sorted(tcs)], 1)], subtitle)
    if any(p["prewrite"] for p in result["points"]):
        drawn["point_prewrites"] = prewrites(
            at("point-prewrites"), f"{prefix} — {words} pre-write at each operating point", result, subtitle)
    if any((p.get("measure") or {}).get("bins") for p in result["points"]):
        drawn["histograms"] = histograms(
            at("histograms"), f"{prefix} — {words} response-time histograms ({md.mix(result['parameters']['mix'])}, "
                              "read + write)", result, subtitle)
        if test == "dirth":
            drawn["confidence"] = confidence(
                at("confidence"), f"{prefix} — {words} response-time confidence levels (read + write)", result,
                subtitle)
    return drawn


# Report section -------------------------------------------------------------------------------------------------------

def _rounds_text(rounds: list[int]) -> str:
    if not rounds:
        return "no rounds"
    return f"round {rounds[0]}" if len(rounds) == 1 else f"rounds {rounds[0]}–{rounds[-1]}"


def _seconds(value) -> str:
    return f"{float(value):g} s" if value is not None else md.DASH


def _procedure(result: dict) -> list[str]:
    params, workload = result["parameters"], result["workload"]
    tc, qd, mix = params["thread_counts"][0], params["queue_depths"][0], params["mix"]
    what = workload["label"]
    samples = max(1, int(round(float(params.get("point_prewrite_seconds") or 0) /
                               float(params.get("sample_seconds") or 1))))
    return ["```",
            "Preconditioning: while not steady and round < max rounds",
            f"  {what} 0/100 at TC{tc}/QD{qd} for {_seconds(params.get('precondition_seconds'))}",
            "TC × QD loop: while not steady and round < max rounds",
            f"  pre-write: {what} 0/100 at TC{tc}/QD{qd} for {_seconds(params.get('prewrite_seconds'))}",
            f"  for TC in {params['thread_counts']}",
            f"    for QD in {params['queue_depths']}",
            f"      {what} {md.mix(mix)} at TC/QD for {_seconds(params.get('point_seconds'))}",
            "Operating points, chosen from the loop's measurement window: for P in MaxIOPS, MidIOPS, MinIOPS",
            f"  pre-write: {what} 0/100 at P's TC/QD for {_seconds(params.get('point_prewrite_seconds'))} "
            f"({md.plural(samples, 'sample')})",
            f"  measurement: {what} {md.mix(mix)} at P's TC/QD for {_seconds(params.get('point_measure_seconds'))}, "
            "with fio's latency histogram (json+)",
            "```", ""]


def _workload_lines(result: dict) -> list[str]:
    workload, params = result["workload"], result["parameters"]
    if workload.get("split"):
        lines = [f"Workload: random IO in a mix of block sizes (fio `bssplit={workload['bssplit']}`), as a share of "
                 "IOs:", ""]
        lines += md.table(["Block size"] + [s for s, dummy in workload["split"]],
                          [["% of IOs"] + [str(p) for dummy, p in workload["split"]]])
        lines += [""]
    else:
        lines = [f"Workload: random {workload['block_size']} IO (one block size).", ""]
    if workload.get("distribution"):
        zones = [zone.split("/") for zone in workload["distribution"][len("zoned:"):].split(":")]
        start, parts = 0.0, []
        for io, lba in zones:
            parts.append(f"{io} % of IOs to LBAs {start:g}–{start + float(lba):g} %")
            start += float(lba)
        lines += [f"LBA hot spots (fio `random_distribution={workload['distribution']}`): {'; '.join(parts)}.", ""]
    lines += [f"R/W mix of the loop and the measurements: {md.mix(params['mix'])} (read/write %). TC is fio's "
              "numjobs (threads), QD its iodepth per thread; each grid point runs as its own stonewalled fio section "
              "with direct I/O and random data.", ""]
    return lines


def _choices(result: dict) -> list[str]:
    params = result["parameters"]
    tc, qd = params["thread_counts"][0], params["queue_depths"][0]
    window = ((result["loop"].get("settings") or {}).get("window")
              or (result["settings"] or {}).get("window"))
    lines = [
        f"- Tracking point: the highest thread count × the highest queue depth of the grid, TC{tc}/QD{qd} (PTS: "
        "TC32/QD32), for the preconditioning, the between-round pre-writes and the loop's steady-state variable.",
        f"- Preconditioning's tracking variable: the IOPS of each whole round of "
        f"{_seconds(params.get('precondition_seconds'))} (ADATA's PTS 2.0 port takes the first minute of 30-minute "
        "rounds).",
        f"- Operating points from the loop's measurement window (its last {window} rounds), by window averages: "
        f"MaxIOPS is the grid point with the most IOPS whose mean response time is below {params['max_art_ms']:g} ms; "
        "MinIOPS the lowest TC × QD; MidIOPS the point whose IOPS are closest to (MaxIOPS + MinIOPS) / 2; ties go to "
        "fewer outstanding IOs.",
        f"- The {params['max_art_ms']:g} ms ceiling is ADATA's; the specification's value is uncertain "
        "(pts_run_intensity_max_art_ms).",
        "- Response times are fio's total latency (submission + completion). Per direction the percentiles are fio's; "
        "for all IOs (read + write) they are computed from fio's merged histogram buckets the way fio computes its "
        "own (the first bucket whose running count reaches the percentage), and each bucket stands at fio's "
        "representative latency.",
    ]
    if result["test"] == "dirth":
        lines.append("- The confidence-level plot is drawn from fio's histograms; whether PTS 2.0.2 asks for it in "
                     "DIRTH is uncertain (ADATA draws it for latency and write saturation).")
    return ["Choices made where the sources differ or are uncertain:", "", *lines, ""]


def _steady_block(phase: dict, number: str, title: str, what: str) -> list[str]:
    lines = [f"### {number} {title}", ""]
    if not phase["rounds_run"]:
        return lines + [f"{what}: no round finished.", ""]
    dv = phase["dv"]
    lines += [_sections.verdict_line(phase, what), "",
              f"Dependent variable: {dv['name']}, the IOPS of section `{dv['job']}` in each round.", ""]
    lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, phase["settings"].get("max_rounds"),
                                 phase["steady_round"], phase["rounds_run"])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    lines += _sections.round_table([dv], {"iops": ("IOPS", 1.0, 1)})
    return lines + [""]


def _grid_table(result: dict, key: str, digits: int) -> list[str]:
    cells = _cells(result)
    qds = result["queue_depths"]
    return md.table(["TC ↓ / QD →"] + [str(q) for q in qds],
                    [[f"**{tc}**"] + [md.fmt((cells.get((tc, qd)) or {}).get(key), digits) for qd in qds]
                     for tc in result["thread_counts"]])


def _why(point: str, params: dict) -> str:
    return {"max": f"most IOPS with ART below {params['max_art_ms']:g} ms",
            "mid": "IOPS closest to (MaxIOPS + MinIOPS) / 2",
            "min": "lowest TC × QD"}[point]


def _points_lines(result: dict, number: str, plots_rel: dict) -> list[str]:
    loop, params = result["loop"], result["parameters"]
    recomputed = loop.get("recomputed")
    ran = {p["point"]: p for p in result["points"]}
    lines = [f"### {number} Operating points", ""]
    if recomputed is None and not ran:
        return lines + [f"No operating point: {md.text(loop.get('choice_error') or 'the loop did not run')}.", ""]
    first = next(iter(ran.values()), None)
    chosen = (first or {}).get("chosen") or recomputed
    window = chosen.get("window_rounds") or loop["window_rounds"]
    lines += [f"Chosen from the TC × QD loop's measurement window (loop {_rounds_text(window)}), by window averages; "
              f"MidIOPS aims at {chosen['mid_target_iops']:,.0f} IOPS:", ""]
    rows = []
    for point in POINTS:
        pick = chosen.get(point)
        if not pick:
            continue
        rows.append([f"**{POINT_WORDS[point]}**", _point_name(pick["tc"], pick["qd"]), str(pick["tc"] * pick["qd"]),
                     md.fmt(float(pick["iops"])), md.fmt(float(pick["art_ms"]), 3), _why(point, params)])
    lines += md.table(["Point", "TC/QD", "OIO", "IOPS (window)", "ART ms (window)", "Why"], rows, numeric=False)
    lines += [""] + [f"> Note: {md.text(note)}" for note in chosen.get("notes") or []]
    if recomputed is None:
        lines += [f"> Warning: the choice could not be recomputed: {md.text(loop.get('choice_error'))}", ""]
    elif result["choice_checks"]:
        lines += ["> **Warning**: recomputed from the loop's window rounds with the same rule (_pts2.window_grid and "
                  "operating_points), or checked against fio's own figures, these differ from what the run recorded:",
                  ""] + [f"> - {md.text(c)}" for c in result["choice_checks"]] + [""]
    else:
        lines += ["Recomputed here from the loop's window rounds with the same rule, the choice is the one the run "
                  "made, and each point ran at its TC/QD.", ""]
    measured = [p for p in result["points"] if p.get("measure")]
    if measured:
        lines += ["Measurement at each point (after its pre-write), ms; per direction fio's own figures, *all IOs* "
                  "the IO-weighted ART, the percentiles of the merged read + write histogram (computed the way fio "
                  "does) and the slowest IO:", ""]
        rows = []
        for entry in measured:
            measure = entry["measure"]
            parts = [(name, measure["directions"][name]) for name in ("read", "write") if name in measure["directions"]]
            for index, (label, data) in enumerate(parts + [("all IOs", measure)]):
                rows.append([f"**{entry['word']}** {_point_name(entry['tc'], entry['qd'])}" if not index else "",
                             label if label != "all IOs" else "*all IOs*", f"{data['total_ios']:,}",
                             md.fmt(float(data["iops"])), md.fmt(data["art_ms"], 3)]
                            + [_percentile_cell(data, p) for p in PERCENTILES]
                            + [md.fmt(data["mrt_ms"], 3)])
        lines += md.table(["Point", "Direction", "IOs", "IOPS", "ART", "99 %", "99.9 %", "99.99 %", "99.999 %", "MRT"],
                          rows)
        short = []
        for entry in measured:
            measure = entry["measure"]
            for label, data in [*measure["directions"].items(), ("all IOs", measure)]:
                missed = [f"{p} %" for p in PERCENTILES[1:] if not _histogram.resolved(data["total_ios"], p)]
                if missed:
                    short.append(f"{entry['word']} {label} ({data['total_ios']:,} IOs): {', '.join(missed)}")
        lines += ["", "A percentile is the representative latency of fio's bucket (its middle; a bucket is at most "
                      "1/64 of its latency wide), so a top percentile can read a little above the MRT, fio's exact "
                      "slowest IO."]
        if short:
            lines += ["", "n/r: not resolved - a percentile needs 10 / (1 − p) IOs, ten of them beyond it (1,000 for "
                          "99 %, 10,000 for 99.9 %, 100,000 for 99.99 %, 1,000,000 for 99.999 %); with fewer it would "
                          f"be one of the few slowest IOs, so no number is given: {'; '.join(short)}."]
        lines += [""]
    lines += _sections.images(plots_rel, {
        "point_prewrites": "Operating point pre-writes: IOPS of every pre-write sample (100 % writes at the point's "
                           "TC/QD) before its measurement.",
        "histograms": "Response-time histograms: IOs (read + write) per fixed-width latency bin at each operating "
                      "point, from fio's histogram buckets (each counted at its representative latency), up to the "
                      "99.99th percentile, the IOs slower than that counted in the legend; the ART dashed, the MRT "
                      "(fio's slowest IO) in the title, dotted where it is on the plot.",
        "confidence": "Confidence levels: the share of IOs (read + write) completed within each response time, per "
                      "operating point, with the ART and the 3, 4 and 5 nines marked (from fio's merged histogram "
                      "buckets).",
    })
    return lines


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    title = result.get("title") or _pts2.TITLES.get(result["test"], result["test"])
    if not result.get("rounds_run"):
        return [f"## {number} {title}", "", *_sections.status_notes(result), "No round finished; nothing was measured.",
                ""]
    pc, loop = result["precondition"], result["loop"]
    status = {
        "steady": f"**Steady**: {result['steady_text']}; all three operating points measured.",
        "not steady": f"**Not steady**: {result['steady_text']}; the figures below are the last rounds' and not "
                      "steady-state figures.",
        "incomplete": f"**Incomplete**: {result['steady_text']}.",
        "failed": f"**Failed**: {result['steady_text']}; the figures below are from the rounds that finished.",
    }[result["status"]]
    wipc = result["settings"].get("wipc") or {}
    wipc_text = (f" ({wipc.get('capacity_multiple')} × user capacity of {wipc.get('block_size')} sequential writes)"
                 if wipc else "")
    lines = [f"## {number} {title}", "", *_sections.status_notes(result), status, "",
             f"Purge, then workload-independent preconditioning{wipc_text}, then three phases, each with its own stop "
             "rule:", ""]
    lines += _procedure(result) + _workload_lines(result) + _choices(result)
    lines += [f"> Note: {md.text(note)}" for note in result.get("notes") or []]
    lines += _steady_block(pc, f"{number}.1", "Preconditioning", "Preconditioning")
    lines += _sections.images(plots_rel, {
        "pc_convergence": "Preconditioning: IOPS (100 % writes at the tracking point) per round, the measurement "
                          "window shaded.",
        "pc_verification": _sections.VERIFICATION_CAPTION,
    })
    lines += _steady_block(loop, f"{number}.2", "TC × QD loop", "TC × QD loop")
    lines += _sections.images(plots_rel, {
        "loop_prewrite": "Between-round pre-writes: IOPS of each round's pre-write (100 % writes at the tracking "
                         "point) before its grid.",
        "loop_convergence": f"Loop convergence: TC{loop['tracking']['tc']} IOPS per round at every queue depth, the "
                            "tracking point (the DV) in bold, the measurement window shaded.",
        "loop_verification": _sections.VERIFICATION_CAPTION,
    })
    lines += _sections.mismatch_warning(result)
    lines += [f"### {number}.3 Demand variation and demand intensity", ""]
    if loop["grid"]:
        lines += [f"Window averages over loop {_rounds_text(loop['window_rounds'])} per thread count (TC) and queue "
                  "depth per thread (QD); ART is the mean response time of each round (read and write IO-weighted), "
                  "averaged over the rounds.", ""]
        lines += _sections.images(plots_rel, {
            "demand_variation": "Demand Variation: IOPS against queue depth, one line per thread count.",
            "demand_intensity": "Demand Intensity: mean response time against IOPS, one line per thread count "
                                "through its queue depths from low to high; the operating points ringed.",
            "outstanding": "Outstanding IOs: IOPS and mean response time against TC × QD, one line per thread count.",
            "cpu": "CPU use per grid point: fio's usr + sys CPU % for the section, as fio reports it.",
        })
        lines += ["IOPS (read + write):", ""] + _grid_table(result, "iops", 0)
        lines += ["", "Mean response time, ms:", ""] + _grid_table(result, "art_ms", 3)
        lines += ["", "<details><summary>fio CPU use, usr + sys %</summary>", ""] + _grid_table(result, "cpu_pct", 1)
        lines += ["", "</details>", ""]
    else:
        lines += ["The loop measured no grid point.", ""]
    lines += _points_lines(result, f"{number}.4", plots_rel)
    lines += [f"### {number}.5 Purge, preconditioning and files", ""]
    steps = _sections.steps_table(result, capacity, [("", {"purge": result.get("purge")})])
    rows = [[label, _phase_summary(phase), md.DASH]
            for label, phase in (("Preconditioning", pc), ("TC × QD loop", loop))]
    rows.append(["Operating points", f"{len(result['points'])} of {len(POINTS)} rounds", md.DASH])
    steps[-2:-2] = ["| " + " | ".join(row) + " |" for row in rows]
    lines += steps
    lines += _sections.file_links(result["test"], [(p, result["round_files"][p]) for p in PHASES
                                                   if result["round_files"][p]], wipc=True)
    return lines
