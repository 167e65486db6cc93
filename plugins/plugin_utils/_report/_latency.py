# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The latency test: random mixes x block sizes at 1 thread, queue depth 1; DV the 4k 0/100 mean latency.
Latencies are fio's lat (submission + completion), reported in ms.

PTS 2.0.2 reports IOPS and the 99.999 % response time ("5 nines") per R/W mix and block size beside the average (ART)
and maximum (MRT) response times. Every percentile here is of all the IOs of the measurement window: the window
rounds' latency histograms (fio json+) merged - per direction, and for a mix both directions together - and each is
given with the IOs it counts. A percentile the window's IOs cannot resolve (fewer than 10 / (1 - p) of them, so that
fewer than ten IOs lie beyond it) is flagged, not printed (module_utils/_pts/_histogram.py). Results recorded before the
rounds ran json+ have no histograms: their percentiles are the mean of the window rounds' own, and say so."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import latency
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import PERCENTILES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _iops, _plots, _sections, _tests, _wsat
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetPanel, ReportKind

MS = 1e6  # ns per ms
FIVE_NINES = "99.999"
UNRESOLVED = "n/r"
UNRESOLVED_NOTE = ("n/r: not resolved - fewer IOs than 10 / (1 − p), so fewer than ten of them lie beyond the "
                   "percentile (99 % needs 1,000 IOs, 99.9 % 10,000, 99.99 % 100,000, 99.999 % 1,000,000); no number "
                   "is given for it.")
HEATMAP_CAPTION = ("Measurement heat maps: window-average mean latency and the maximum latency per R/W mix and block "
                   "size, each cell's value printed (in place of TKperf's 3D bars, which hide their back rows).")
HEATMAP_CAPTION_2 = ("Measurement heat maps: window-average ART, 5 nines (99.999 % of all the window's IOs, from fio's "
                     "merged histograms; blank where the IOs do not resolve it, and left out when none does) and the "
                     "MRT per R/W mix and block size, each cell's value printed (in place of TKperf's 3D bars, which "
                     "hide their back rows).")


def _ms(value):
    return None if value is None else value / MS


def _window_max(rounds: list[dict], mix: int, bs: int, pick) -> float | None:
    values = [_tests.job_or_none(r, mix, bs) for r in rounds]
    picked = [pick(job) for job in values if job]
    return max(picked) if picked and None not in picked and len(picked) == len(rounds) else None


def build(test: dict) -> dict:
    result, segment = _tests.single_segment(test)
    rounds = segment["rounds"]
    if not rounds:
        return result
    settings = result["settings"]
    window, max_rounds, dummy, dummy2 = _tests.limits(settings)
    dv = _tests.dv_series(rounds, settings.get("dv") or latency.DV)
    mixes = [int(m) for m in settings.get("mixes") or latency.MIXES]
    sizes = sorted(int(s) for s in settings.get("block_sizes") or {j["bs"] for j in rounds[-1]["fio"]["jobs"]})
    in_window = _tests.window_rounds(rounds, window)
    grid = _tests.window_grid

    def direction_mean(direction):
        return lambda j: _ms(j[direction]["lat_ns"]["mean"])

    percentiles, counts, sources = {}, {}, {}
    nines, nines_ios = {}, {}
    for bs in sizes:
        label = block_size_label(bs)
        nines[label], nines_ios[label] = {}, {}
        for mix in mixes:
            for direction in ("read", "write"):
                if (direction == "read" and mix == 0) or (direction == "write" and mix == 100):
                    continue
                key = f"{label} {md.mix(mix)} {direction}"
                percentiles[key], counts[key], sources[key] = window_percentiles(in_window, mix, bs, (direction,))
            both = window_percentiles(in_window, mix, bs, ("read", "write"), (FIVE_NINES,))
            nines[label][str(mix)], nines_ios[label][str(mix)] = both[0].get(FIVE_NINES), both[1]
    result.update(
        spec=str(settings.get("spec") or "1.1"),
        status=_tests.status(dv["steady"], len(rounds), max_rounds, result["failure"]),
        steady=dv["steady"],
        steady_round=dv["steady_round"],
        steady_text=f"steady at round {dv['steady_round']}" if dv["steady"] else None,
        rounds_run=len(rounds),
        dv=dv,
        window_rounds=[int(r["round"]) for r in in_window],
        mixes=mixes,
        block_sizes=[block_size_label(s) for s in sizes],
        live_verdict_mismatch=_tests.live_mismatch(segment, [dv]),
        convergence={
            f"R/W mix {md.mix(mix)}": {block_size_label(bs): [_ms(v) for v in _tests.per_round(
                rounds, mix, bs, lambda j: j["total"]["lat_ns"]["mean"])] for bs in sizes}
            for mix in mixes
        },
        tables={
            "mean_ms": grid(in_window, mixes, sizes, lambda j: _ms(j["total"]["lat_ns"]["mean"])),
            "read_mean_ms": grid(in_window, [m for m in mixes if m > 0], sizes, direction_mean("read")),
            "write_mean_ms": grid(in_window, [m for m in mixes if m < 100], sizes, direction_mean("write")),
            "max_ms": {block_size_label(bs): {str(m): _window_max(in_window, m, bs, lambda j: _ms(j["total"]["lat_ns"]["max"]))
                                              for m in mixes} for bs in sizes},
            "iops": grid(in_window, mixes, sizes, lambda j: j["total"]["iops"]),
            "p99999_ms": nines,
            "p99999_ios": nines_ios,
        },
        fewest_ios=min((j["total"]["total_ios"] for r in in_window for j in r["fio"]["jobs"]), default=None),
        percentiles_ms=percentiles,
        percentile_ios=counts,
        percentile_source=sources,
        per_round=_every_round(rounds, mixes, sizes),
        round_files=[f"round-{int(r['round']):02d}" for r in rounds],
        round_end_s=_tests.round_times(rounds),
    )
    return result


def window_percentiles(rounds: list[dict], mix: int, bs: int, directions: tuple[str, ...],
                       percents: tuple[str, ...] = PERCENTILES) -> tuple[dict, int, str]:
    """The percentiles (ms) of all the IOs of ``directions`` in the window's rounds of one (mix, block size), the IOs
    counted, and where they come from: "histogram" (the rounds' json+ buckets merged; a percentile the IOs do not
    resolve is None), "rounds" (no histograms: the mean of the rounds' own percentiles of one direction, None where the
    round with the fewest IOs does not resolve it) or "none"."""
    jobs = [_tests.job_or_none(r, mix, bs) for r in rounds]
    if not jobs or None in jobs:
        return dict.fromkeys(percents), 0, "none"
    parts = [job[d] for job in jobs for d in directions if job[d]["total_ios"]]
    if not parts:
        return dict.fromkeys(percents), 0, "none"
    if all((part.get("histogram") or {}).get("bins") for part in parts):
        found = _histogram.summary(_histogram.merge(*[part["histogram"]["bins"] for part in parts]), percents)
        return {p: _ms(v) for p, v in found["percentiles"].items()}, found["ios"], "histogram"
    if len(directions) > 1:
        return dict.fromkeys(percents), sum(part["total_ios"] for part in parts), "none"
    fewest = min(part["total_ios"] for part in parts)
    values = {}
    for p in percents:
        own = [part["lat_ns"]["percentiles"].get(p) for part in parts]
        values[p] = _ms(sum(own) / len(own)) if None not in own and _histogram.resolved(fewest, p) else None
    return values, sum(part["total_ios"] for part in parts), "rounds"


def percentile_cell(value_ms: float | None, ios: int, percent: str, digits: int = 3) -> str:
    """A percentile in a table: its value, or n/r where the IOs counted do not resolve it."""
    if value_ms is not None:
        return md.fmt(value_ms, digits)
    return UNRESOLVED if ios and not _histogram.resolved(ios, percent) else md.DASH


def _every_round(rounds: list[dict], mixes: list[int], sizes: list[int]) -> list[dict]:
    """OakGate's Latency Rounds Data: per round and block size, mean and max latency (ms) of every mix."""
    out = []
    for rnd in rounds:
        for bs in sorted(sizes, reverse=True):
            jobs = {m: _tests.job_or_none(rnd, m, bs) for m in mixes}
            out.append({"round": int(rnd["round"]), "block_size": block_size_label(bs),
                        "mean_ms": {str(m): _ms(j["total"]["lat_ns"]["mean"]) if j else None for m, j in jobs.items()},
                        "max_ms": {str(m): _ms(j["total"]["lat_ns"]["max"]) if j else None for m, j in jobs.items()}})
    return out


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    dv = result["dv"]
    verdict = dict(dv["window"])
    for key in ("average", "data_excursion", "slope", "intercept", "slope_excursion"):
        if verdict.get(key) is not None:
            verdict[key] = verdict[key] / MS
    verdict["values"] = [v / MS for v in verdict.get("values") or []]
    dv_panel = f"R/W mix {md.mix(dv['mix'])}"
    own = (f"DV STEADY from round {dv['steady_round']}" if dv["steady"] else
           f"DV NOT STEADY in {result['rounds_run']} rounds")
    stamped = _iops.window_stamp(result)
    return {
        "convergence": _charts.convergence(
            os.path.join(plot_dir, "latency-convergence.png"),
            f"{prefix} — latency steady-state convergence, mean latency per R/W mix",
            "mean latency (ms)", result["convergence"], highlight=dv["bs"], highlight_panel=dv_panel,
            window_rounds=result["window_rounds"], legend_title="Block size", subtitle=subtitle,
            verdicts={dv_panel: (own, dv["steady"])}, times=result.get("round_end_s")),
        "verification": _charts.verification(
            os.path.join(plot_dir, "latency-verification.png"),
            f"{prefix} — latency steady-state verification, DV {dv['bs']} {md.mix(dv['mix'])} mean latency",
            "mean latency (ms)", [v / MS for v in dv["values"]], verdict, subtitle=subtitle),
        "measurement": _charts.measurement_2d(
            os.path.join(plot_dir, "latency-measurement.png"),
            f"{prefix} — mean latency window average vs block size",
            "mean latency (ms)", result["block_sizes"], result["tables"]["mean_ms"], result["mixes"], subtitle=subtitle,
            verdict=stamped),
        "max": _charts.measurement_2d(
            os.path.join(plot_dir, "latency-max.png"),
            f"{prefix} — maximum latency in the window vs block size",
            "max latency (ms)", result["block_sizes"], result["tables"]["max_ms"], result["mixes"], subtitle=subtitle,
            verdict=stamped),
        "percentiles": _charts.percentiles(
            os.path.join(plot_dir, "latency-percentiles.png"),
            f"{prefix} — latency percentiles per block size (window)", _percentile_panels(result), subtitle=subtitle,
            verdict=_iops.window_stamp(result, short=True)),
        "heatmap": _heatmap(result, plot_dir, prefix, subtitle),
    }


def _heatmap(result: dict, plot_dir: str, prefix: str, subtitle: str) -> str:
    """Window-average and maximum latency per R/W mix and block size; under PTS 2.0.2 ART, 5 nines and MRT (the 5
    nines left out when the round files have no 99.999 % at all)."""
    tables = result["tables"]
    nines = tables.get("p99999_ms") or {}
    if result.get("spec") == "2.0":
        panels = [("ART: mean (ms)", tables["mean_ms"], 3)]
        if any(v is not None for row in nines.values() for v in row.values()):
            panels.append(("5 nines: 99.999 % (ms)", nines, 2))
        panels.append(("MRT: max (ms)", tables["max_ms"], 2))
        names = ", ".join(p[0].split(":", maxsplit=1)[0] for p in panels)
        title = f"{prefix} — response times (ms): {names}, R/W mix × block size"
    else:
        panels = [("mean latency (ms)", tables["mean_ms"], 3), ("max latency (ms)", tables["max_ms"], 2)]
        title = f"{prefix} — latency window average and maximum (ms), R/W mix × block size"
    return _iops.mix_heatmap(os.path.join(plot_dir, "latency-heatmap.png"), title, panels, result["block_sizes"],
                             result["mixes"], subtitle, verdict=_iops.window_stamp(result, short=True))


def _has_five_nines(result: dict) -> bool:
    """Whether any 99.999 % is resolved in the window."""
    return any(values.get(FIVE_NINES) is not None for values in result["percentiles_ms"].values())


def _percentile_panels(result: dict) -> list[tuple[str, dict]]:
    """Per block size: per mix and direction, the percentiles and the max over the window (ms)."""
    panels = []
    for bs in _plots.by_block_size(result["block_sizes"]):
        series = {}
        for mix in sorted(result["mixes"], reverse=True):
            for direction in ("read", "write"):
                values = result["percentiles_ms"].get(f"{bs} {md.mix(mix)} {direction}")
                if not values:
                    continue
                series[f"{md.mix(mix)} {direction}"] = (
                    [(f"p{p}", values.get(p)) for p in PERCENTILES]
                    + [("max", (result["tables"]["max_ms"].get(bs) or {}).get(str(mix)) if mix in (0, 100) else None)])
        panels.append((f"block size {bs}", series))
    return panels


def _rounds_table(result: dict) -> list[str]:
    """Every round × block size, mean and max latency per mix, in a collapsed section (OakGate's rounds data)."""
    mixes = sorted(result["mixes"], reverse=True)
    by_round: dict = {}
    for row in result.get("per_round") or []:
        by_round.setdefault(row["round"], []).append(row)
    shown, note = _sections.sampled(list(by_round.values()))
    rows = [[str(row["round"]), f"**{row['block_size']}**"] + [md.fmt(row["mean_ms"].get(str(m)), 3) for m in mixes]
            + [md.fmt(row["max_ms"].get(str(m)), 3) for m in mixes] for group in shown for row in group]
    headers = ["Round", "Block size"] + [f"mean {md.mix(m)}" for m in mixes] + [f"max {md.mix(m)}" for m in mixes]
    return (["", "<details><summary>Latency rounds data: every round's mean and maximum latency (ms) per block size "
                 "and R/W mix (OakGate)</summary>", ""] + md.table(headers, rows)
            + (["", note.replace("rows", "rounds")] if note else []) + ["", "</details>"])


def _percentile_table(result: dict) -> list[str]:
    """Per block size, mix and direction: the IOs of the measurement window and their percentiles."""
    counts, sources = result.get("percentile_ios") or {}, result.get("percentile_source") or {}
    merged = all(source == "histogram" for source in sources.values()) if sources else False
    what = ("of all the window's IOs of that direction: its rounds' fio latency histograms (json+) merged, each "
            "percentile computed from the buckets as fio computes its own" if merged else
            "the mean of the window rounds' own percentiles (these rounds were recorded without fio's histograms, "
            "so the window's percentile over all its IOs cannot be computed); n/r where the round with the fewest IOs "
            "does not resolve it")
    rows = [[key, f"{counts.get(key, 0):,}"] + [percentile_cell(values.get(p), counts.get(key, 0), p) for p in PERCENTILES]
            for key, values in result["percentiles_ms"].items()]
    lines = ["", f"Latency percentiles, ms, {what}, per direction, with the IOs counted:", ""]
    lines += md.table(["Block size, mix, direction", "IOs"] + [f"p{p}" for p in PERCENTILES], rows)
    if any(v is None for values in result["percentiles_ms"].values() for v in values.values()):
        lines += ["", f"> Note: {UNRESOLVED_NOTE}"]
    return lines


def _pts2_tables(result: dict) -> list[str]:
    """PTS 2.0.2's summary tables: IOPS, ART, 5 nines and MRT per R/W mix and block size."""
    sizes, mixes = result["block_sizes"], result["mixes"]
    window = ", ".join(str(r) for r in result["window_rounds"])
    tables = result["tables"]
    lines = [f"Average IOPS (read + write) over rounds {window}:", ""]
    lines += md.grid(tables["iops"], sizes, mixes, 1)
    lines += ["", "ART, average response time, ms (mixed: IO-weighted mean of read and write):", ""]
    lines += md.grid(tables["mean_ms"], sizes, mixes, 3)
    nines, counts = tables.get("p99999_ms") or {}, tables.get("p99999_ios") or {}
    lines += ["", "5 nines, the 99.999 % response time, ms: of all the window's IOs of each mix and block size (its "
                  "rounds' fio latency histograms merged, read and write together), with the IOs counted; n/r where "
                  "they are too few to resolve it:", ""]
    headers = ["Block size ↓ / R/W mix % →"] + [md.mix(m) for m in mixes]

    def cell(label: str, mix: int) -> str:
        ios = (counts.get(label) or {}).get(str(mix)) or 0
        return f"{percentile_cell((nines.get(label) or {}).get(str(mix)), ios, FIVE_NINES)} ({ios:,} IOs)"

    lines += md.table(headers, [[f"**{label}**"] + [cell(label, m) for m in mixes] for label in sizes])
    if any(v is None for row in nines.values() for v in row.values()):
        lines += ["", f"> Note: {UNRESOLVED_NOTE}"]
    lines += ["", "MRT, maximum response time, ms: the largest single IO latency fio saw in the window's rounds:", ""]
    lines += md.grid(tables["max_ms"], sizes, mixes, 3)
    nines = tables.get("p99999_ms") or {}
    if any((nines.get(bs) or {}).get(str(m)) is not None and (tables["max_ms"].get(bs) or {}).get(str(m)) is not None
           and nines[bs][str(m)] > tables["max_ms"][bs][str(m)] for bs in sizes for m in mixes):
        lines += ["", f"> Note: {_wsat.BIN_NOTE}"]
    return lines


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    if not result.get("rounds_run"):
        return [f"## {number} {result['title']}", "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    dv = result["dv"]
    spec2 = result.get("spec") == "2.0"
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result)]
    lines += _sections.loop_description(
        result, ["Purge", "Workload-independent preconditioning"],
        [f"For R/W mix % in [{', '.join(str(m) for m in result['mixes'])}]",
         f"  For block size in [{', '.join(reversed(result['block_sizes']))}]",
         f"    random I/O for {settings.get('round_seconds')} s"])
    lines += [f"Dependent variable: mean latency {'(ART) ' if spec2 else ''}of {dv['bs']} random write "
              f"({md.mix(dv['mix'])}). Latency is fio's "
              "total latency (submission + completion). Mixed workloads show read and write separately and their "
              "mean weighted by the IOs each direction completed."
              + (" PTS 2.0.2 adds IOPS and the 99.999 % response time (5 nines) to the average (ART) and maximum "
                 "(MRT) response times." if spec2 else ""), ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += ["", f"### {number}.1 Steady state information", "", _sections.verdict_line(result), ""]
    lines += md.validation_table(dv["window"], "ms", MS, 4, settings.get("max_rounds"), dv["steady_round"],
                                 result["rounds_run"])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    lines += _sections.round_table([dv], {"lat_mean_ns": ("ms", MS, 4)})
    lines += _sections.mismatch_warning(result)
    lines += ["", f"### {number}.2 Measurement plots", ""]
    lines += _sections.images(plots_rel, {
        "convergence": "Steady State Convergence Plot: mean latency of every block size per round, one panel per "
                       "R/W mix; the DV in bold, the measurement window shaded.",
        "verification": _sections.VERIFICATION_CAPTION,
        "measurement": "Measurement Plot: window-average mean latency against block size, one line per R/W mix.",
        "max": "Maximum latency: the largest single IO latency fio saw in the window's rounds, against block size, "
               "one line per R/W mix.",
        "percentiles": "Latency percentiles: per block size, each R/W mix and direction across p50 … "
                       f"{'p99.999' if _has_five_nines(result) else 'p99.99'} (of all the window's IOs, from fio's "
                       "merged histograms; a percentile the IOs do not resolve is left out, a thin dotted line joining "
                       "the points on either side of it) and, for pure reads or writes, the window's max.",
        "heatmap": HEATMAP_CAPTION_2 if spec2 else HEATMAP_CAPTION,
    })
    window = ", ".join(str(r) for r in result["window_rounds"])
    sizes, mixes = result["block_sizes"], result["mixes"]
    lines += [f"### {number}.3 Measurement window summary tables", ""]
    if spec2:
        lines += _pts2_tables(result)
    else:
        lines += [f"Average latency, ms, over rounds {window} (mixed: IO-weighted mean of read and write):", ""]
        lines += md.grid(result["tables"]["mean_ms"], sizes, mixes, 3)
        lines += ["", "Maximum latency, ms: the largest single IO latency fio saw in the window's rounds:", ""]
        lines += md.grid(result["tables"]["max_ms"], sizes, mixes, 3)
    lines += ["", "Average read latency, ms (mixes with reads):", ""]
    lines += md.grid(result["tables"]["read_mean_ms"], sizes, [m for m in mixes if m > 0], 3)
    lines += ["", "Average write latency, ms (mixes with writes):", ""]
    lines += md.grid(result["tables"]["write_mean_ms"], sizes, [m for m in mixes if m < 100], 3)
    lines += _percentile_table(result)
    lines += _rounds_table(result)
    lines += ["", f"### {number}.4 Purge, preconditioning and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)], KIND)
    lines += _sections.file_links("latency", [("", result["round_files"])], wipc=True)
    return lines


def fleet_series(tests: dict) -> dict:
    """The fleet plots' latency panel: the DV round by round, in ms."""
    dv = (tests.get("latency") or {}).get("dv") or {}
    if not dv.get("values"):
        return {}
    return {"latency": (list(range(1, len(dv["values"]) + 1)), [v / 1e6 for v in dv["values"]])}


KIND = ReportKind(name="latency", build=build, plots=plots, section=section, plot_weight=6.0, steady_rule=True,
                  steady_row=True, fleet_series=fleet_series,
                  fleet_panels=(FleetPanel("latency", "Latency: 4k random write mean DV", "Round", "mean latency (ms)"),))
