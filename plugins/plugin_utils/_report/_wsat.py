# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The write saturation test: after a purge, 4k random write rounds until the capacity multiple (4) x user
capacity is written or the time limit (24 h) passes. No steady state.

PTS-E 1.1 (TKperf) plots IOPS against time and against the total gigabytes written (TGBW); PTS 2.0.2 adds IOPS
against drive fills (total bytes written / user capacity) and, optionally (settings wsat.latency_plots), the mean
(ART), 99.999 % and maximum (MRT) response times against drive fills. A write saturation may run 1,500 rounds: the
plots draw lines without per-round markers and the tables are sampled."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests.wsat import BLOCK_SIZE as WSAT_BLOCK_SIZE
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _units
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _wsat as _wsat_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._results import live_verdicts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetColumn, FleetPanel, ReportKind

GB = 1e9
MS = 1e6
FIVE_NINES = "99.999"
FILLS_LABEL = "Drive fills (bytes written / user capacity)"
# fio's stat.c gives a percentile as the middle of its latency bin (64 bins per power of two), not an IO's latency.
BIN_NOTE = ("fio gives a percentile as the middle of its latency bin (64 bins per power of two), so a 99.999 % can "
            "read up to about 0.8 % above the slowest IO, the max; the figures are as fio reported them.")


def build(test: dict) -> dict:
    result, segment = _tests.single_segment(test)
    rounds = segment["rounds"]
    if not rounds:
        return result
    plan = result["settings"].get("wsat") or {}
    multiple = float(plan.get("capacity_multiple") or 0)
    # The drive's user capacity as the plan saw it: drive fills = bytes written / capacity.
    capacity = int(plan.get("target_bytes") or 0) / multiple if multiple else 0.0
    table = []
    written = 0
    elapsed_ms = 0
    for rnd in rounds:
        job = _tests.job_or_none(rnd, 0, WSAT_BLOCK_SIZE)
        if job is None:
            raise DataError(f"round {rnd['round']} has no 4k random write run")
        written += job["write"]["io_bytes"]
        elapsed_ms += job["runtime_ms"]
        lat = job["write"]["lat_ns"]
        # fio's own 99.999 % of the round's IOs (from its buckets), unless they are too few to resolve it.
        five_nines = (lat.get("percentiles") or {}).get(FIVE_NINES)
        if not _histogram.resolved(int(job["write"]["total_ios"] or 0), FIVE_NINES):
            five_nines = None
        table.append({
            "round": int(rnd["round"]), "iops": job["write"]["iops"], "mb_per_s": job["write"]["bw_bytes"] / 1e6,
            "lat_mean_ms": lat["mean"] / MS if lat["mean"] is not None else None,
            "lat_p99999_ms": five_nines / MS if five_nines is not None else None,
            "ios": int(job["write"]["total_ios"] or 0),
            "lat_max_ms": lat["max"] / MS if lat["max"] is not None else None,
            "written_bytes": written, "elapsed_s": elapsed_ms / 1000.0,
            "fills": written / capacity if capacity else None,
        })
    # Private to the milestones table (not in result.json): each round's latency buckets, where fio gave them (json+).
    histograms = {}
    for rnd in rounds:
        job = _tests.job_or_none(rnd, 0, WSAT_BLOCK_SIZE)
        bins = ((job or {}).get("write") or {}).get("histogram") or {}
        if bins.get("bins"):
            histograms[int(rnd["round"])] = bins["bins"]
    target = int(plan.get("target_bytes") or 0)
    live = live_verdicts(segment)
    stopped = bool(live and live[-1].get("stop") and live[-1].get("round") == len(rounds))
    if target and written >= target:
        status = "complete"
    elif stopped:
        status = "time limit"
    else:
        status = "failed" if result["failure"] else "incomplete"
    result.update(
        status=status, steady=None, steady_round=None, rounds_run=len(rounds), per_round=table,
        written_bytes=written, target_bytes=target, capacity_multiple=plan.get("capacity_multiple"),
        max_hours=plan.get("max_hours"), round_files=[f"round-{int(r['round']):02d}" for r in rounds],
        spec=str(result["settings"].get("spec") or "1.1"), capacity_bytes=int(capacity) if capacity else None,
        fills=written / capacity if capacity else None, latency_plots=bool(plan.get("latency_plots")),
        _histograms=histograms,
    )
    return result


def _capacity(result: dict) -> float:
    multiple = float(result.get("capacity_multiple") or 0)
    return (result.get("target_bytes") or 0) / multiple if multiple else 0.0


def _capacity_marks(result: dict) -> tuple[list, list]:
    """Where 1 ×, 2 × … the user capacity had been written: the round that crossed it, and the GB."""
    capacity = _capacity(result)
    rows = result["per_round"]
    if not capacity or not rows:
        return [], []
    by_round, by_gb = [], []
    for multiple in range(1, int(rows[-1]["written_bytes"] // capacity) + 1):
        crossed = next(r for r in rows if r["written_bytes"] >= multiple * capacity)
        by_round.append((crossed["round"], f"{multiple} ×"))
        by_gb.append((multiple * capacity / GB, f"{multiple} ×"))
    return by_round, by_gb


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    rows = result["per_round"]
    rounds = [r["round"] for r in rows]
    gigabytes = [r["written_bytes"] / GB for r in rows]
    iops = {"4k random write IOPS": [r["iops"] for r in rows]}
    lat = {"mean": [r["lat_mean_ms"] for r in rows], "max": [r["lat_max_ms"] for r in rows]}
    marks = list(_capacity_marks(result))
    drawn = {
        "iops": _charts.xy_panels(
            os.path.join(plot_dir, "wsat-iops.png"), f"{prefix} — write saturation, 4k random write IOPS",
            [("Round", "IOPS", rounds, iops, False), ("GB written (10⁹ bytes)", "IOPS", gigabytes, iops, False)],
            subtitle=subtitle, markers=marks),
        "latency": _charts.xy_panels(
            os.path.join(plot_dir, "wsat-latency.png"), f"{prefix} — write saturation, 4k random write latency",
            [("Round", "latency (ms)", rounds, lat, True), ("GB written (10⁹ bytes)", "latency (ms)", gigabytes, lat, True)],
            subtitle=subtitle, markers=marks),
    }
    fills = [r.get("fills") for r in rows]
    if None in fills:
        return drawn
    # PTS 2.0.2: against drive fills (bytes written / user capacity), a dotted line at each whole fill; the response
    # times whenever asked for (pts_run_wsat_latency_plots, under PTS-E 1.1 too).
    whole = [[(float(n), f"{n} ×") for n in range(1, int(fills[-1]) + 1)]]
    if result.get("spec") == "2.0":
        drawn["fills"] = _charts.xy_panels(
            os.path.join(plot_dir, "wsat-fills.png"), f"{prefix}\nwrite saturation: 4k random write IOPS vs drive fills",
            [(FILLS_LABEL, "IOPS", fills, iops, False)], subtitle=subtitle, markers=whole)
    if result.get("latency_plots"):
        times = {"mean": [r["lat_mean_ms"] for r in rows], "99.999 %": [r.get("lat_p99999_ms") for r in rows],
                 "max": [r["lat_max_ms"] for r in rows]}
        # A series no round measured (99.999 % of results recorded before it was asked of fio) is left out.
        times = {k: v for k, v in times.items() if any(x is not None for x in v)}
        drawn["response"] = _charts.xy_panels(
            os.path.join(plot_dir, "wsat-response.png"),
            f"{prefix}\nwrite saturation: 4k random write response times vs drive fills",
            [(FILLS_LABEL, "response time (ms)", fills, times, True)], subtitle=subtitle, markers=whole)
    return drawn


def _nines_cell(row: dict) -> str:
    """A round's 99.999 %: fio's figure, or n/r when the round's IOs are too few to resolve it."""
    if row.get("lat_p99999_ms") is not None:
        return md.fmt(row["lat_p99999_ms"], 3)
    return "n/r" if row.get("ios") and not _histogram.resolved(row["ios"], FIVE_NINES) else md.DASH


def _rounds_label(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _milestones(result: dict, five_nines: bool = False) -> list[list[str]]:
    """Averages per quarter of the user capacity written: how the drive degrades as it fills. A round belongs to the
    quarter its last byte fell in; rounds past the target make quarters of their own (4–4.25 ×, ...), and each row
    says how much had been written from its first round's start to its last round's end."""
    rows = result["per_round"]
    capacity = _capacity(result)
    if not capacity:
        return []
    step = capacity / 4
    grouped: dict[int, list[dict]] = {}
    for row in rows:
        grouped.setdefault(int((row["written_bytes"] - 1) // step), []).append(row)
    out = []
    previous = {r["round"]: before for r, before in zip(rows, [0] + [r["written_bytes"] for r in rows[:-1]])}
    for index, bucket in sorted(grouped.items()):
        means = [r["lat_mean_ms"] for r in bucket if r["lat_mean_ms"] is not None]
        maxima = [r["lat_max_ms"] for r in bucket if r["lat_max_ms"] is not None]
        start, end = previous[bucket[0]["round"]] / capacity, bucket[-1]["written_bytes"] / capacity
        row = [f"{index / 4:g}–{(index + 1) / 4:g} ×", f"{start:.2f}–{end:.2f} ×",
               _rounds_label(bucket[0]["round"], bucket[-1]["round"]),
               md.fmt(_tests.mean([r["iops"] for r in bucket])),
               md.fmt(_tests.mean(means), 3) if means else md.DASH,
               md.fmt(max(maxima), 3) if maxima else md.DASH]
        if five_nines:
            # Of all the quarter's IOs: its rounds' histograms merged (n/r when too few; — without histograms).
            row.insert(5, _quarter_nines(result, bucket))
        out.append(row)
    return out


def _quarter_nines(result: dict, bucket: list[dict]) -> str:
    """The 99.999 % of all the IOs of a quarter's rounds, from their merged histograms (ms), or why not."""
    histograms = result.get("_histograms") or {}
    bins = [histograms.get(r["round"]) for r in bucket]
    if not bins or None in bins:
        return md.DASH
    found = _histogram.summary(_histogram.merge(*bins), (FIVE_NINES,))
    value = found["percentiles"][FIVE_NINES]
    return md.fmt(value / MS, 3) if value is not None else f"n/r ({found['ios']:,} IOs)"


def _verdict_text(result: dict) -> str:
    """The test's end in one sentence: the capacity multiple written, the time limit, stopped or failed."""
    return {
        "complete": f"**Complete**: {result['written_bytes']:,} bytes written, the target of "
                    f"{result['target_bytes']:,} bytes ({result.get('capacity_multiple'):g} × user capacity) reached.",
        "time limit": f"**Time limit reached** ({_units.hours(result.get('max_hours'))}) with {result['written_bytes']:,} of "
                      f"{result['target_bytes']:,} bytes written.",
        "incomplete": f"**Incomplete**: the test stopped with {result['written_bytes']:,} of "
                      f"{result['target_bytes']:,} bytes written.",
        "failed": f"**Failed** with {result['written_bytes']:,} of {result['target_bytes']:,} bytes written.",
    }[result["status"]]


def _summary_rows(result: dict, user: int, spec2: bool) -> list[list[str]]:
    """The summary table: rounds, bytes written against the target and the capacity, IOPS and latency ends."""
    rows = result["per_round"]
    worst = max((r["lat_max_ms"] for r in rows if r["lat_max_ms"] is not None), default=None)
    summary = [
        ["Rounds", str(result["rounds_run"])],
        ["Total written", f"{result['written_bytes']:,} bytes ({result['written_bytes'] / GB:,.2f} GB)"],
        ["Target", f"{result['target_bytes']:,} bytes ({result.get('capacity_multiple'):g} × user capacity)"],
        ["Drive fills (written / user capacity)" if spec2 else "Written, × user capacity",
         f"{result['written_bytes'] / user:.2f} ×" if user else md.DASH],
        ["IOPS, first / last round", f"{md.fmt(rows[0]['iops'])} / {md.fmt(rows[-1]['iops'])}"],
        ["IOPS, min / max round", f"{md.fmt(min(r['iops'] for r in rows))} / {md.fmt(max(r['iops'] for r in rows))}"],
        ["Mean latency, first / last round (ms)",
         f"{md.fmt(rows[0]['lat_mean_ms'], 3)} / {md.fmt(rows[-1]['lat_mean_ms'], 3)}"],
        ["Max latency, worst round (ms)", md.fmt(worst, 3)],
    ]
    if spec2:
        summary.insert(7, ["99.999 % latency, first / last round (ms)",
                           f"{_nines_cell(rows[0])} / {_nines_cell(rows[-1])}"])
    return summary


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    if not result.get("rounds_run"):
        return [f"## {number} {result['title']}", "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    spec2 = result.get("spec") == "2.0"
    # Drive fills: bytes written / the drive's user capacity (the plan's, when the report has no size).
    user = capacity or _capacity(result)
    numjobs, iodepth = int(settings.get("numjobs") or 1), settings.get("iodepth")
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result),
             "Purge, then rounds of:", "", "```",
             f"While less than {result.get('capacity_multiple'):g} × user capacity written and less than "
             f"{_units.hours(result.get('max_hours'))} passed",
             f"  4k random write (0/100) for {settings.get('round_seconds')} s", "```", ""]
    if spec2:
        lines += [f"Each round uses direct I/O, random data, {md.plural(numjobs, 'thread')} × queue depth {iodepth} = "
                  f"OIO {numjobs * int(iodepth or 1)}. There is no steady state: the test shows how the drive behaves "
                  "as it fills and its spare area is used up. PTS 2.0.2 plots IOPS against time, against the data "
                  "written and against drive fills (total bytes written / user capacity)"
                  + ("; and, as set (pts_run_wsat_latency_plots), the mean (ART), 99.999 % and maximum (MRT) response "
                     "times against drive fills" if result.get("latency_plots") else "") + ".", ""]
    else:
        lines += [f"Each round uses direct I/O, random data, {md.plural(numjobs, 'thread')} × queue depth "
                  f"{settings.get('iodepth')}. There is no steady state: the test shows how the drive behaves as it "
                  "fills and its spare area is used up.", ""]
    rows = result["per_round"]
    lines += [f"### {number}.1 Summary", "", _verdict_text(result), ""]
    lines += md.table(["Item", "Value"], numeric=False, rows=_summary_rows(result, user, spec2))
    if spec2 and any((r.get("lat_p99999_ms") or 0) > (r["lat_max_ms"] or float("inf")) for r in rows):
        lines += ["", f"> Note: {BIN_NOTE}"]
    lines += ["", f"### {number}.2 Measurement plots", ""]
    lines += _sections.images(plots_rel, {
        "iops": "Write Saturation IOPS Plot: 4k random write IOPS per round, against round (left) and against the "
                "data written so far (right); dotted purple lines mark where 1 ×, 2 × … the user capacity had been written.",
        "latency": "Write Saturation Latency Plot: mean and maximum 4k random write latency per round (log scale).",
        "fills": "Write Saturation IOPS vs drive fills (PTS 2.0.2): 4k random write IOPS per round against the drive "
                 "fills at its end (total bytes written / user capacity); beyond a hundred and fifty rounds a thin "
                 "line per round and a running mean.",
        "response": "Write Saturation response times vs drive fills (PTS 2.0.2's optional plot): per round, fio's mean (ART), 99.999 % "
                    "and maximum (MRT) 4k random write latency, against the drive fills at its end (log scale).",
    })
    milestones = _milestones(result, five_nines=spec2)
    if milestones:
        lines += [f"### {number}.3 By capacity written", "",
                  "Round averages per quarter of the user capacity written, a round counted in the quarter its last byte "
                  "fell in (max: the worst single IO"
                  + ("; 99.999 %: of all the quarter's IOs, its rounds' fio latency histograms merged - n/r where "
                     "they are too few to resolve it (fewer than 1,000,000), — where the rounds have no histograms"
                     if spec2 else "")
                  + "):", ""]
        lines += md.table(["Drive fills" if spec2 else "Quarter", "Written by its rounds", "Rounds", "IOPS",
                           "Mean latency (ms)"] + (["99.999 % (ms)"] if spec2 else []) + ["Max latency (ms)"],
                          milestones)
    shown, note = _sections.sampled(rows)
    lines += ["", f"<details><summary>{'Every round' if not note else 'Rounds'}</summary>", ""]
    if spec2:
        lines += md.table(["Round", "IOPS", "MB/s", "Mean latency (ms)", "99.999 % (ms)", "Max latency (ms)",
                           "Written (GB)", "Drive fills"], [
            [str(r["round"]), md.fmt(r["iops"]), md.fmt(r["mb_per_s"], 2), md.fmt(r["lat_mean_ms"], 3),
             _nines_cell(r), md.fmt(r["lat_max_ms"], 3), md.fmt(r["written_bytes"] / GB, 3),
             f"{r['written_bytes'] / user:.3f}" if user else md.DASH] for r in shown])
    else:
        lines += md.table(["Round", "IOPS", "MB/s", "Mean latency (ms)", "Max latency (ms)", "Written (GB)"], [
            [str(r["round"]), md.fmt(r["iops"]), md.fmt(r["mb_per_s"], 2), md.fmt(r["lat_mean_ms"], 3),
             md.fmt(r["lat_max_ms"], 3), md.fmt(r["written_bytes"] / GB, 3)] for r in shown])
    lines += (["", note] if note else []) + ["", "</details>"]
    lines += ["", f"### {number}.4 Purge and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)], KIND)
    lines += _sections.file_links("wsat", [("", result["round_files"])], wipc=False)
    return lines


def summary(model: dict, block: dict, wanted: set) -> tuple[list, list]:
    """The summary page's row: write saturation's end, which has no steady state."""
    if "wsat" not in wanted:
        return [], []
    return [["Write saturation", md.text(_wsat_figures.end_text(block.get("wsat"))),
             "no steady state (by design)" if block.get("wsat") else md.DASH]], []


# A write saturation of 1,500 rounds is drawn from at most this many points per drive (evenly spaced rounds).
FLEET_POINTS = 300


def fleet_series(tests: dict) -> dict:
    """The fleet plots' write saturation panel: IOPS against the user capacity written, from at most FLEET_POINTS
    rounds."""
    wsat = tests.get("wsat") or {}
    rows = wsat.get("per_round") or []
    multiple = wsat.get("capacity_multiple")
    capacity = (wsat.get("target_bytes") or 0) / multiple if multiple else 0
    if not rows or not capacity:
        return {}
    step = max(1, -(-len(rows) // FLEET_POINTS))
    picked = rows[::step] + ([rows[-1]] if (len(rows) - 1) % step else [])
    return {"wsat": ([r["written_bytes"] / capacity for r in picked], [r["iops"] for r in picked])}


def fleet_cell(drive: dict, test: str) -> str:
    """How a drive's write saturation ended, in the fleet's drives table."""
    wsat = drive.get("wsat")
    if not wsat:
        return md.DASH
    return md.text(f"{wsat['status']}, {wsat['capacity_written']:.2f} ×" if wsat.get("capacity_written") is not None
                   else wsat["status"])


KIND = ReportKind(name="wsat", build=build, plots=plots, section=section, plot_weight=2.0, steady_rule=True,
                  summary=summary, summary_first=True,
                  fleet_record=lambda model: {"wsat": _wsat_figures.end(model)}, fleet_series=fleet_series,
                  fleet_panels=(FleetPanel("wsat", "Write saturation: 4k random write", "User capacity written (×)",
                                           "IOPS", whole_x=False),),
                  fleet_columns=(FleetColumn("drives", "wsat", "Write saturation", fleet_cell, key="wsat",
                                             note="Write saturation: how it ended and the user capacity written "
                                                  "(× capacity). "),))
