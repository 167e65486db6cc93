# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The thread count x queue depth tests of SNIA PTS 2.0: CBW (composite block size workload, PTS-E 1.1's ECW) and
DIRTH (demand intensity / response time histogram), from their round files alone.

Both run as three segments after one purge and WIPC (module_utils/_pts/_tests/_intensity.py ``segments``): ``precondition`` (100 %
writes at the tracking point, the highest TC x highest QD, to steady state), ``loop`` (per round a pre-write at the
tracking point, then every TC × QD point at the test's R/W mix; steady state on the tracking point's IOPS) and
``points`` (MaxIOPS, MidIOPS, MinIOPS, each chosen from the loop's measurement window when its round started: a
pre-write at the point in samples, then a measurement with fio's latency histogram). Response times are fio's total
latency (lat_ns, submission + completion); the percentiles of all IOs (read + write) are computed from fio's merged
histogram buckets the way fio computes its own (module_utils/_pts/_histogram.py), the per-direction ones are fio's.

This file: their result from the round files; the figures: _intensity_plots.py; the report section: _intensity_md.py.
"""

from __future__ import annotations


from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity, cbw
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _tests


MS = 1e6  # ns per ms
PHASES = ("precondition", "loop", "points")
POINTS = _intensity.POINTS
POINT_WORDS = _intensity.POINT_WORDS
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


def point_name(tc: int, qd: int) -> str:
    return f"TC{tc}/QD{qd}"


def parameters(name: str, settings: dict) -> dict:
    """The test's own inputs as _tests/_intensity.py takes them (what pts_segment gives operating_points): settings.parameters with
    the test's name and block size, the grid from high to low."""
    params = dict(settings.get("parameters") or {})
    missing = [key for key in ("thread_counts", "queue_depths", "mix", "max_art_ms") if params.get(key) is None]
    if missing:
        raise DataError(f"{name}: the round files' settings.parameters lack {', '.join(missing)}")
    sizes = [parse_block_size(b) for b in settings.get("block_sizes") or params.get("bssplit_sizes") or []][:1]
    if not sizes:
        raise DataError(f"{name}: the round files name no block size")
    params.update(name=name, block_sizes=sizes, mix=int(params["mix"]), max_art_ms=float(params["max_art_ms"]),
                  thread_counts=sorted((int(t) for t in params["thread_counts"]), reverse=True),
                  queue_depths=sorted((int(q) for q in params["queue_depths"]), reverse=True))
    return params


def dvs(params: dict) -> dict:
    """The DVs the run tracked (as _tests/_intensity.py defines them): each phase's named section's IOPS."""
    name, bs, mix = params["name"], params["block_sizes"][0], params["mix"]
    tc, qd = params["thread_counts"][0], params["queue_depths"][0]
    what = "CBW" if name == "cbw" else block_size_label(bs)
    return {
        "precondition": {"name": f"{what} 0/100 TC{tc}/QD{qd} IOPS", "job": f"{name}-pc", "mix": 0, "bs": bs,
                         "metric": "iops"},
        "loop": {"name": f"{what} {md.mix(mix)} TC{tc}/QD{qd} IOPS", "job": _intensity.grid_name(name, tc, qd),
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
    averages of every grid point (IOPS, ART as _intensity.window_grid takes them, fio's CPU use)."""
    phase = _steady_phase(segment, dv)
    rounds = segment["rounds"]
    name, tcs, qds = params["name"], params["thread_counts"], params["queue_depths"]
    jobs = [r["fio"]["jobs"] for r in rounds]
    in_window = [r["fio"]["jobs"] for r in rounds if int(r["round"]) in phase["window_rounds"]]
    grid = _intensity.window_grid(in_window, params)
    cells = []
    for tc in tcs:
        for qd in qds:
            if (tc, qd) not in grid:
                continue
            cpu = [j["cpu"]["usr_pct"] + j["cpu"]["sys_pct"] for r in in_window
                   if (j := _named(r, _intensity.grid_name(name, tc, qd))) and j.get("cpu")]
            cells.append(dict(grid[(tc, qd)], tc=tc, qd=qd, oio=tc * qd,
                              cpu_pct=sum(cpu) / len(cpu) if cpu else None))
    try:
        recomputed = _intensity.operating_points(grid, params)
        recomputed["window_rounds"] = phase["window_rounds"]
        choice_error = None
    except ValueError as exc:
        recomputed, choice_error = None, str(exc).replace("TC x QD", "TC × QD")
    return dict(phase, prewrite_iops=[_iops(j, f"{name}-prewrite") for j in jobs],
                tracking={"tc": tcs[0], "qd": qds[0],
                          "iops": {str(qd): [_iops(j, _intensity.grid_name(name, tcs[0], qd)) for j in jobs] for qd in qds}},
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


def percentile_cell(data: dict, percent: str) -> str:
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
        raise DataError(f"{name} points round {rnd.get('round')} names no operating point")
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
    # Its pre-write samples and measurement are stonewalled sections back to back: the time fio spent outside them
    # (its start-up and its floor between two sections) the drive was idle.
    sections = pre + ([measure] if measure else [])
    elapsed = (rnd.get("fio") or {}).get("elapsed_s")
    entry["sections"] = len(sections)
    entry["outside_s"] = max(0.0, float(elapsed) - sum(j["runtime_ms"] for j in sections) / 1000.0) \
        if elapsed is not None else None
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
                       f"{point_name(own['tc'], own['qd'])}")
        if any((r["tc"], r["qd"]) != (entry.get("tc"), entry.get("qd")) for r in entry.get("ran_at") or []):
            ran = ", ".join(point_name(r["tc"], r["qd"]) for r in entry["ran_at"])
            out.append(f"{word}: its round file names TC{entry.get('tc')}/QD{entry.get('qd')}, fio ran {ran}")
        if recomputed is None:
            continue
        if chosen.get("window_rounds") is not None and list(chosen["window_rounds"]) != list(window_rounds):
            out.append(f"{word}: chosen from loop rounds {chosen['window_rounds']}, the loop's window is rounds "
                       f"{window_rounds}")
        theirs = recomputed[entry["point"]]
        if own is None or not _same(own, theirs):
            shown = f"{point_name(own['tc'], own['qd'])} ({float(own['iops']):,.0f} IOPS)" if own else "nothing"
            out.append(f"{word}: recorded as {shown} when its round started; the loop's window gives "
                       f"{point_name(theirs['tc'], theirs['qd'])} ({theirs['iops']:,.0f} IOPS, ART "
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


def phase_summary(phase: dict) -> str:
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
            f"{point}_point": point_name(tc, qd) if tc else None,
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
    result["title"] = TITLES.get(name, name)
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


def grid_stamp(result: dict) -> tuple[str, bool]:
    """The state of the TC x QD loop's window its grid plots average over (Demand Variation, Demand Intensity,
    IOPS and ART against OIO, CPU use): STEADY, or NOT STEADY with the rounds (the last ones, not a steady state)."""
    loop = result["loop"]
    rounds = loop.get("window_rounds") or []
    span = f"rounds {rounds[0]}–{rounds[-1]}" if len(rounds) > 1 else f"round {rounds[0]}" if rounds else ""
    return (f"STEADY (loop window {span})", True) if loop.get("steady") else (f"NOT STEADY (loop window {span})", False)


def phase_stamp(phase: dict) -> tuple[str, bool]:
    """A steady-state phase's verdict for its convergence plot."""
    if phase["steady"]:
        return f"DV STEADY from round {phase['steady_round']}", True
    return f"DV NOT STEADY in {phase['rounds_run']} rounds", False


def _workload(params: dict) -> dict:
    """What the test writes and reads: CBW's block size mix over LBA hot spots, or DIRTH's one block size."""
    bs = params["block_sizes"][0]
    if params.get("bssplit"):
        dummy, pairs = cbw.bssplit(params["bssplit"], "bssplit")
        return {"label": "CBW", "bssplit": params["bssplit"], "distribution": params.get("distribution"),
                "split": [[block_size_label(size), pct] for size, pct in pairs]}
    return {"label": f"random {block_size_label(bs)}", "block_size": block_size_label(bs), "bssplit": None,
            "distribution": params.get("distribution")}


def grid_cells(result: dict) -> dict:
    return {(c["tc"], c["qd"]): c for c in result["loop"]["grid"]}


def chosen_points(result: dict) -> dict:
    """The operating points as they ran (their rounds), else as the loop's window gives them."""
    ran = {p["point"]: {"tc": p["tc"], "qd": p["qd"]} for p in result["points"]}
    return dict({p: result["loop"]["recomputed"][p] for p in POINTS} if result["loop"].get("recomputed") else {}, **ran)


def rounds_text(rounds: list[int]) -> str:
    if not rounds:
        return "no rounds"
    return f"round {rounds[0]}" if len(rounds) == 1 else f"rounds {rounds[0]}–{rounds[-1]}"


def seconds(value) -> str:
    return f"{float(value):g} s" if value is not None else md.DASH
