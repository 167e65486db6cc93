# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The throughput test: per block size a purge, then rounds of sequential read and sequential write until both are
steady (OakGate judges each block size and direction; TKperf headlines 1024k write). MB/s here is always 10^6 bytes
per second.

Under PTS 2.0.2 (or pts_run_throughput_wipc: true) each block size is preconditioned after its purge (WIPC: twice the
capacity of sequential writes, filed as the segment's wipc.json). Without it round 1's reads read a drive just purged
- discarded LBAs, which many drives answer without reading their media - and the report flags those values."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, format_bytes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetPanel, ReportKind

DIRECTIONS = (("read", 100), ("write", 0))


def _segment(name: str, segment: dict) -> dict:
    rounds = segment["rounds"]
    if not rounds:
        return {"name": name, "status": "failed" if segment.get("failure") else "no rounds", "rounds_run": 0,
                "purge": segment.get("purge"), "wipc": _tests.wipc_summary(segment.get("wipc")), "purged_read": None,
                "failure": segment.get("failure"), "round_files": []}
    _tests.check_consecutive(rounds)
    settings = _tests.settings_of(rounds)
    window, max_rounds, dummy, dummy2 = _tests.limits(settings)
    bs = parse_block_size(name)
    dvs = [_tests.dv_series(rounds, {"name": f"{name} {direction}", "mix": mix, "bs": bs, "metric": "bw_bytes"})
           for direction, mix in DIRECTIONS]
    steady = all(dv["steady"] for dv in dvs)
    in_window = _tests.window_rounds(rounds, window)
    wipc = _tests.wipc_summary(segment.get("wipc"))
    return {
        "name": name,
        "status": _tests.status(steady, len(rounds), max_rounds, segment.get("failure")),
        "failure": segment.get("failure"),
        "steady": steady,
        "steady_round": both_steady_round(dvs) if steady else None,
        "rounds_run": len(rounds),
        "settings": settings,
        "dvs": dvs,
        "window_rounds": [int(r["round"]) for r in in_window],
        "mb_per_s": {direction: _tests.window_mean(in_window, mix, bs, lambda j: j["total"]["bw_bytes"] / 1e6)
                     for direction, mix in DIRECTIONS},
        "purge": segment.get("purge"),
        "wipc": wipc,
        # Round 1's reads right after the purge, with no WIPC between: of discarded LBAs, not of written ones.
        "purged_read": {"round": 1, "mb_per_s": dvs[0]["values"][0] / 1e6,
                        "in_window": 1 in [int(r["round"]) for r in in_window]}
        if segment.get("purge") and not wipc else None,
        "live_verdict_mismatch": _tests.live_mismatch(segment, dvs),
        "round_files": [f"round-{int(r['round']):02d}" for r in rounds],
        "round_end_s": _tests.round_times(rounds),
    }


def both_steady_round(dvs: list[dict]) -> int | None:
    """The first round after which every DV (read and write) was steady in the same round: the later of the two
    directions' own first steady rounds can name a round where the other had left steady state again."""
    for index in range(min(len(dv["verdicts"]) for dv in dvs)):
        if all(dv["verdicts"][index]["steady"] for dv in dvs):
            return index + 1
    return None


def build(test: dict) -> dict:
    ordered = list(test["segments"].values())
    result = _tests.common(test, ordered)
    settings = result["settings"]
    order = [block_size_label(int(b)) for b in settings.get("block_sizes") or []]
    names = [n for n in order if n in test["segments"]] + sorted(n for n in test["segments"] if n and n not in order)
    segments = [_segment(name, test["segments"][name]) for name in names]
    if not segments or all(s["status"] in ("no rounds", "failed") and not s["rounds_run"] for s in segments):
        failed = result["failure"] or any(s["status"] == "failed" for s in segments)
        return dict(result, status="failed" if failed else "no rounds", rounds_run=0, segments=segments)
    statuses = {s["status"] for s in segments}
    if statuses == {"steady"}:
        status = "steady"
    elif "failed" in statuses:
        status = "failed"
    elif "incomplete" in statuses or "no rounds" in statuses or len(segments) < len(order):
        status = "incomplete"
    else:
        status = "not steady"
    measured = [s for s in segments if s["rounds_run"]]
    steady_rounds = [f"{s['name']} at round {s['steady_round']}" for s in measured]
    headline = next((s for s in measured if s["name"] == "1024k"), max(measured, key=lambda s: parse_block_size(s["name"])))
    result.update(
        spec=str(settings.get("spec") or "1.1"),
        status=status,
        steady=status == "steady",
        steady_round=None,
        steady_text=f"steady for every block size, read and write ({', '.join(steady_rounds)})"
        if status == "steady" else None,
        segment_wipc=bool(settings.get("segment_wipc")) or any(s.get("wipc") for s in segments),
        purged_reads=[s["name"] for s in segments if s.get("purged_read")],
        rounds_run=sum(s["rounds_run"] for s in segments),
        segments=segments,
        block_sizes=[s["name"] for s in segments],
        headline={"block_size": headline["name"], "direction": "write", "dv": headline["dvs"][1],
                  "mb_per_s": headline["mb_per_s"]["write"], "status": headline["status"]},
        tables={"mb_per_s": {s["name"]: s.get("mb_per_s", {}) for s in segments}},
        live_verdict_mismatch=[f"{s['name']} {r}" for s in segments for r in s.get("live_verdict_mismatch", [])],
    )
    return result


PURGED_LABEL = "round 1: reads of a purged drive"


def _median_times(segments: list[dict]) -> list[float | None]:
    """Per round number, the median over block sizes of the time from a block size's first round to that round's
    end: every block size runs the same rounds, so one time axis serves them all."""
    longest = max((len(s.get("round_end_s") or []) for s in segments), default=0)
    out = []
    for index in range(longest):
        found = sorted(t[index] for s in segments if index < len(t := s.get("round_end_s") or [])
                       and t[index] is not None)
        out.append(found[len(found) // 2] if found else None)
    return out


def _stamps(measured: list[dict]) -> dict:
    """Per convergence panel (direction), its verdict: steady when every block size's DV of that direction is."""
    out = {}
    for index, (direction, dummy) in enumerate(DIRECTIONS):
        missed = [s["name"] for s in measured if not s["dvs"][index]["steady"]]
        out[f"Sequential {direction}"] = ((f"NOT STEADY ({', '.join(missed)})") if missed else
                                          "STEADY (every block size)", not missed)
    return out


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    measured = [s for s in result["segments"] if s["rounds_run"]]
    panels, windows, stars, hollow = {}, {}, {}, {}
    for index, (direction, dummy) in reversed(list(enumerate(DIRECTIONS))):
        panel = f"Sequential {direction}"
        panels[panel] = {s["name"]: [v / 1e6 for v in s["dvs"][index]["values"]] for s in measured}
        for seg in measured:
            if seg["dvs"][index]["steady_round"]:
                stars[(panel, seg["name"])] = seg["dvs"][index]["steady_round"]
            if direction == "read" and seg.get("purged_read"):
                hollow[(panel, seg["name"])] = seg["purged_read"]["round"]
    for seg in measured:
        windows[seg["name"]] = seg["window_rounds"]
    shared = {tuple(w) for w in windows.values()}
    bars = {direction: [result["tables"]["mb_per_s"][s["name"]].get(direction) for s in measured]
            for direction, dummy in DIRECTIONS}
    # One window for all block sizes: shaded; windows that differ: each series' own, as filled markers.
    window_args = {"window_rounds": list(next(iter(shared))) if len(shared) == 1 else None,
                   "windows": windows if len(shared) > 1 else None}
    path = os.path.join(plot_dir, "throughput-convergence.png")
    title = f"{prefix} — throughput steady-state convergence (write top, read below)"
    # Round 1's reads of a block size purged just before them (no WIPC): a hollow point off the line and off the
    # scale, so the reads that count are not flattened by it.
    convergence = _charts.convergence(path, title, "MB/s (10⁶ B/s)", panels, legend_title="Block size",
                                      subtitle=subtitle, steady_at=stars, hollow=hollow, hollow_label=PURGED_LABEL,
                                      verdicts=_stamps(measured), times=_median_times(measured),
                                      time_label="Time at the round's end since its block size's first round, median",
                                      **window_args)
    steady = result["status"] == "steady"
    drawn = {
        "convergence": convergence,
        "measurement": _charts.grouped_bars(
            os.path.join(plot_dir, "throughput-measurement.png"),
            f"{prefix} — throughput window average per block size",
            "MB/s (10⁶ B/s)", [s["name"] for s in measured], bars, subtitle=subtitle,
            verdict=("STEADY" if steady else "NOT STEADY: not every window is steady", steady)),
    }
    # A verification plot for every DV that decides a stop: read and write of each block size, a figure each (one
    # tall figure of every block size would print its text at half size on A4).
    for seg in measured:
        names = [f"{seg['name']} {direction}" for direction, dummy in DIRECTIONS]
        drawn[f"verification-{seg['name']}"] = _charts.verification_panels(
            os.path.join(plot_dir, f"throughput-verification-{seg['name']}.png"),
            f"{prefix} — throughput steady-state verification, {seg['name']} sequential read and write",
            "MB/s (10⁶ B/s)",
            [(name, [v / 1e6 for v in seg["dvs"][index]["values"]], _scaled(seg["dvs"][index]["window"], 1e6))
             for index, name in enumerate(names)], subtitle=subtitle,
            exclude={names[0]: (seg["purged_read"]["round"],)} if seg.get("purged_read") else None,
            exclude_label=PURGED_LABEL)
    return drawn


def _scaled(verdict: dict, scale: float) -> dict:
    """A verdict with its figures in display units (the percentages do not change)."""
    out = dict(verdict)
    for key in ("average", "data_excursion", "slope", "intercept", "slope_excursion"):
        if out.get(key) is not None:
            out[key] = out[key] / scale
    out["values"] = [v / scale for v in verdict.get("values") or []]
    return out


def _state(seg: dict, index: int) -> str:
    """One direction's window: steady (from which round) or not, whatever the other direction did."""
    if not seg.get("rounds_run"):
        return md.DASH
    dv = seg["dvs"][index]
    return f"steady (from round {dv['steady_round']})" if dv["steady"] else "**not steady**"


def _verdict(result: dict) -> str:
    """The test's verdict; the round limit applies to each block size on its own."""
    limit = result["settings"].get("max_rounds")
    if result["status"] == "steady":
        return "**Steady state reached for every block size, read and write.**"
    if result["status"] == "not steady":
        missed = [dv["name"] for s in result["segments"] if s["rounds_run"] for dv in s["dvs"] if not dv["steady"]]
        return (f"**Not steady**: {', '.join(missed)} did not reach steady state within the limit of {limit} rounds per "
                "block size; those figures are the last rounds' averages and are not steady-state figures.")
    if result["status"] == "incomplete":
        done = ", ".join(f"{s['name']} {s['rounds_run']}" for s in result["segments"])
        return (f"**Incomplete**: the test stopped before every block size was steady or at its limit of {limit} "
                f"rounds (rounds run per block size: {done or 'none'}).")
    return _sections.verdict_line(result)


MARK = " †"  # a window average or round value that holds round 1's reads of a purged drive


def _multiple(seg: dict, capacity: int) -> float | None:
    """How many times the user capacity a segment's WIPC wrote (fio's bytes / the drive's size)."""
    wipc = seg.get("wipc")
    return round(wipc["bytes_written"] / capacity, 2) if wipc and capacity else None


def _wipc_step(result: dict, capacity: int) -> str:
    """The loop description's WIPC line: how much, and at which block size (the one under test, or one fixed)."""
    with_wipc = [s for s in result["segments"] if s.get("wipc")]
    multiples = {_multiple(s, capacity) for s in with_wipc}
    much = f"{multiples.pop():g} × user capacity, " if len(multiples) == 1 and None not in multiples else ""
    sizes = [s["wipc"].get("block_size") for s in with_wipc]
    if all(size == s["name"] for size, s in zip(sizes, with_wipc)):
        return f"  WIPC ({much}SEQ writes at that block size: {', then '.join(sizes)})"
    if len(set(sizes)) == 1:
        return f"  WIPC ({much}SEQ {sizes[0]} writes)"
    each = ", ".join(f"{s['name']} at {size}" for size, s in zip(sizes, with_wipc))
    return f"  WIPC ({much}SEQ writes: {each})"


def _purged_note(result: dict) -> list[str]:
    """Round 1 of a block size purged and not preconditioned: its reads are of discarded LBAs. Which windows held
    them: the final one, or only the steady-state check after round ``window`` (rounds 1 to ``window``)."""
    flagged = [s for s in result["segments"] if s.get("purged_read")]
    if not flagged:
        return []
    values = ", ".join(f"{md.fmt(s['purged_read']['mb_per_s'], 2)} MB/s at {s['name']}" for s in flagged)
    in_window = [s["name"] for s in flagged if s["purged_read"]["in_window"]]
    window = int((result.get("settings") or {}).get("window") or 5)
    checked = [s["name"] for s in flagged if not s["purged_read"]["in_window"] and s["rounds_run"] >= window]
    held = []
    if in_window:
        held.append(f"the {' and '.join(in_window)} read window holds round 1, so its average includes that read")
    if checked:
        held.append(f"the final read windows{' of ' + ', '.join(checked) if len(checked) < len(flagged) else ''} do "
                    f"not hold them, but the steady-state check after round {window} judged rounds 1–{window}, round 1 "
                    "among them (its row in the round tables)")
    if not held:
        held.append("no steady-state check judged them (no block size ran a whole window)")
    return ["> **Round 1's reads are of a purged drive** (marked †): no WIPC ran between a block size's purge and "
            f"its first round, so round 1's sequential reads read LBAs the purge had just discarded, which many "
            f"drives answer without reading their media, faster than written ones ({values}). They are marked † "
            "in the tables and drawn hollow, out of the axis' scale, on the plots; " + "; ".join(held)
            + ". Setting `pts_run_throughput_wipc: true` preconditions each block size after its purge (WIPC: "
            "sequential writes of twice the capacity) and avoids it; PTS 2.0.2 runs do so by default.", ""]


def _marked_rounds(seg: dict) -> list[str]:
    """The round table with round 1's read value marked when it read a purged drive."""
    table = _sections.round_table(seg["dvs"], _sections.UNITS)
    if not seg.get("purged_read"):
        return table
    cells = table[2].split(" | ")  # "| 1 | <read MB/s> | ..." (headers, alignment, then round 1)
    cells[1] += MARK
    return table[:2] + [" | ".join(cells)] + table[3:]


def _steps(result: dict, capacity: int) -> list[str]:
    """Per block size its purge and, where one ran, its WIPC (bytes, block size, MB/s, time); then the rounds."""
    if not any(s.get("wipc") for s in result["segments"]):
        return _sections.steps_table(result, capacity, [(s["name"], s) for s in result["segments"]], KIND)
    rows = []
    for seg in result["segments"]:
        rows.append(_sections.purge_row(f"Purge ({seg['name']})", seg.get("purge")))
        wipc = seg.get("wipc")
        if not wipc:
            rows.append([f"WIPC ({seg['name']})", "not run", md.DASH])
            continue
        multiple = _multiple(seg, capacity)
        rows.append([f"WIPC ({seg['name']})",
                     f"{wipc['bytes_written']:,} bytes ({format_bytes(wipc['bytes_written'])})"
                     + (f" = {multiple:g} × user capacity" if multiple is not None else "")
                     + f" written, {wipc.get('block_size')} sequential, {md.fmt(wipc.get('mb_per_s'))} MB/s",
                     md.fmt(wipc.get("elapsed_s")) + " s" if wipc.get("elapsed_s") is not None else md.DASH])
    rows += _sections.timing_rows(result, KIND)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


def _verification_caption(index: int, seg: dict) -> str:
    first = (_sections.VERIFICATION_CAPTION + " One figure per block size, read left and write right, each on its own "
             "axis: every DV that decides when a block size stops.")
    caption = first if index == 0 else \
        f"Steady State Verification Plot, {seg['name']}: read and write against the stop rule, drawn as above."
    if seg.get("purged_read"):
        caption += " Round 1's reads of the purged drive are hollow and scale nothing (▲ on the frame: above the axis)."
    return caption


def _validation_rows(segments: list[dict]) -> list[list[str]]:
    """The Steady State Validation Table's rows: each block size's read and write window."""
    rows = []
    for seg in segments:
        if not seg["rounds_run"]:
            rows.append([f"**{seg['name']}**", "—", md.DASH, md.DASH, md.DASH, md.DASH, "not run", md.DASH])
            continue
        for dv in seg["dvs"]:
            window = dv["window"]
            # The read window that holds round 1's reads of a purged drive names that round marked.
            marked = dv is seg["dvs"][0] and (seg.get("purged_read") or {}).get("in_window")
            rows.append([
                f"**{seg['name']}**", dv["name"].split()[-1],
                ", ".join(f"{r}{MARK}" if marked and r == 1 else str(r) for r in window["rounds"]),
                md.fmt(window["average"] / 1e6 if window.get("average") is not None else None, 2),
                md.fmt(window.get("data_excursion_pct"), 2), md.fmt(window.get("slope_excursion_pct"), 2),
                f"round {dv['steady_round']}" if dv["steady"] else f"not steady after {seg['rounds_run']}",
                f"round {seg['steady_round']}" if seg.get("steady_round") else "not steady together",
            ])
    return rows


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    if not result.get("rounds_run"):
        return [f"## {number} {result['title']}", "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    wipc = any(s.get("wipc") for s in result["segments"])
    spec2 = result.get("spec") == "2.0"
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result)]
    lines += [f"For each block size{' (in this order)' if spec2 else ''}: purge, {'then WIPC, ' if wipc else ''}"
              "then rounds of:", "", "```",
              f"For block size in [{', '.join(result['block_sizes'])}]",
              "  Purge", *([_wipc_step(result, capacity)] if wipc else []),
              "  While read or write not steady and round < max rounds",
              f"    sequential read (100/0) for {settings.get('round_seconds')} s",
              f"    sequential write (0/100) for {settings.get('round_seconds')} s", "```", "",
              f"Each run uses direct I/O, random data, {md.plural(int(settings.get('numjobs') or 1), 'thread')} × queue depth "
              f"{settings.get('iodepth')}. Dependent variables: MB/s (10⁶ bytes/s) of sequential read and of sequential "
              "write per block size, each judged on its own window; a block size is done when both are steady. "
              + ("Headline: 1024k sequential write." if spec2 else "Headline (TKperf): 1024k sequential write."), ""]
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += _purged_note(result)
    headline = result["headline"]
    lines += ["", f"### {number}.1 Steady state information", "", _verdict(result), ""]
    lines += ["Steady State Validation Table per block size and direction (OakGate):", ""]
    lines += md.table(["Block size", "Direction", "Window rounds", "Avg MB/s", "Data exc. % (≤ 20)",
                       "Slope exc. % (≤ 10)", "This direction steady from", "Read and write steady at"],
                      _validation_rows(result["segments"]))
    owner = "" if spec2 else " (TKperf's DV)"
    lines += ["", f"Headline, {headline['block_size']} sequential write{owner}:", ""]
    lines += md.validation_table(_scaled(headline["dv"]["window"], 1e6), "MB/s", 1.0, 2, settings.get("max_rounds"),
                                 headline["dv"]["steady_round"], len(headline["dv"]["values"]))
    for seg in result["segments"]:
        if not seg["rounds_run"]:
            continue
        lines += ["", f"<details><summary>{seg['name']}: every round as the steady-state check saw it "
                      f"({seg['status']})</summary>", ""]
        lines += _marked_rounds(seg)
        lines += ["", "</details>"]
    lines += _sections.mismatch_warning(result)
    lines += ["", f"### {number}.2 Measurement plots", ""]
    ran = [s for s in result["segments"] if s["rounds_run"]]
    lines += _sections.images(plots_rel, {
        "convergence": "Steady State Convergence Plot: MB/s of every block size per round, sequential write on top, "
                       "sequential read below, on one zero-based (or log) axis; the measurement window shaded (or, "
                       "where block sizes' windows differ, each series' window as filled markers), a star where a "
                       "direction became steady"
                       + ("; round 1's reads of a purged drive hollow, apart from the line and out of the axis' scale "
                          "(†; a triangle on the top frame when above it)." if result.get("purged_reads") else "."),
        "measurement": "Measurement Plot: window-average MB/s of sequential read and write per block size.",
        **{f"verification-{s['name']}": _verification_caption(i, s) for i, s in enumerate(ran)},
    })
    lines += [f"### {number}.3 Measurement window summary table", "",
              "Average MB/s (10⁶ bytes/s) over each block size's measurement window:", ""]
    rows = [[f"**{seg['name']}**", md.fmt((seg.get("mb_per_s") or {}).get("read"), 2),
             md.fmt((seg.get("mb_per_s") or {}).get("write"), 2),
             _state(seg, 0) + (f", holds round 1{MARK}" if (seg.get("purged_read") or {}).get("in_window") else ""),
             _state(seg, 1),
             ", ".join(str(r) for r in seg.get("window_rounds", [])) or md.DASH, seg["status"]]
            for seg in result["segments"]]
    lines += md.table(["Block size", "Read MB/s", "Write MB/s", "Read window", "Write window", "Window rounds",
                       "Block size (read and write)"], rows)
    lines += ["", f"### {number}.4 Purges{', WIPC' if wipc else ''} and files", ""]
    lines += _steps(result, capacity)
    links = _sections.file_links("throughput", [(s["name"], s["round_files"]) for s in result["segments"]],
                                 wipc=False)
    if wipc:
        # Each block size's WIPC job file sits beside its rounds.
        jobs = ", ".join(f"[{s['name']}](throughput/{s['name']}/wipc.fio)" for s in result["segments"] if s.get("wipc"))
        links[1] = links[1].replace("fio job files: ", f"fio job files: WIPC {jobs}; ", 1)
    lines += links
    return lines


def round_parts(result: dict) -> list[tuple[str, int]]:
    """Its rounds per block size."""
    return [(s["name"], int(s.get("rounds_run") or 0)) for s in result.get("segments") or []]


def fleet_series(tests: dict) -> dict:
    """The fleet plots' throughput panels: 1024k's write and read DVs round by round, and its purged read round."""
    segment = next((s for s in (tests.get("throughput") or {}).get("segments") or [] if s["name"] == "1024k"), {})
    out: dict = {}
    for key, index in (("tp_read", 0), ("tp_write", 1)):
        dvs = segment.get("dvs") or []
        if len(dvs) > index and dvs[index].get("values"):
            values = [v / 1e6 for v in dvs[index]["values"]]
            out[key] = (list(range(1, len(values) + 1)), values)
    if "tp_read" in out and segment.get("purged_read"):
        out["hollow"] = {"tp_read": [int(segment["purged_read"]["round"])]}
    return out


KIND = ReportKind(name="throughput", build=build, plots=plots, section=section, plot_weight=7.0,
                  steady_rule=True, steady_row=True, round_parts=round_parts, parts_per="block size",
                  fleet_series=fleet_series, fleet_panels=(
                      FleetPanel("tp_write", "Throughput: 1024k sequential write DV", "Round", "MB/s (10⁶ B/s)"),
                      FleetPanel("tp_read", "Throughput: 1024k sequential read DV", "Round", "MB/s (10⁶ B/s)")))
