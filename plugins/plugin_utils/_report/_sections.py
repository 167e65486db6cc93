# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Report pieces every test section uses: verdict line, loop description, round table, steps and files."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

VERIFICATION_CAPTION = (
    "Steady State Verification Plot: the DV in every round and in the window, with the rule drawn as it is: the "
    "green band is as wide as the allowed max − min (20 % of the window average) and centred between the window's "
    "max and min (dotted), so the data excursion holds when every window value lies inside it; the dashed red line "
    "is the least-squares best fit, and the two thin red lines the steepest fits allowed (a change of 10 % of the "
    "average across the window)."
)
UNITS = {"iops": ("IOPS", 1.0, 1), "bw_bytes": ("MB/s", 1e6, 2), "lat_mean_ns": ("ms", 1e6, 3)}
# What a DV measures, for column headers: "4k 0/100 IOPS", "4k 0/100 mean latency (ms)", "1024k write MB/s".
METRIC_WORDS = {"iops": "IOPS", "bw_bytes": "MB/s", "lat_mean_ns": "mean latency (ms)"}


def dv_header(dv: dict) -> str:
    """A DV as a column header, in words and its unit."""
    if dv["metric"] == "bw_bytes":
        return f"{dv['name']} MB/s"
    if dv.get("job") and dv.get("name"):
        # A named section's DV (CBW's and DIRTH's mixed block sizes, a point of the TC × QD grid): its own name
        # ("CBW 40/60 TC2/QD4 IOPS"), not the first block size of its mix.
        return dv["name"]
    return f"{dv['bs']} {md.mix(dv['mix'])} {METRIC_WORDS.get(dv['metric'], dv['metric'])}"


def rounds_text(result: dict, kind) -> str:
    """A test's rounds in all and how they add up (its report kind's ``round_parts``): throughput's "30 (6 per block
    size × 5)", a phased test's "7 (preconditioning 2 + TC × QD loop 2 + operating points 3)"; a one-part test's count
    alone."""
    total = int(result.get("rounds_run") or 0)
    parts = kind.parts(result)
    if len(parts) < 2:
        return f"{total:,}"
    counts = {n for dummy, n in parts}
    if kind.parts_per:
        if len(counts) == 1:
            return f"{total:,} ({counts.pop():,} per {kind.parts_per} × {len(parts)})"
        return f"{total:,} ({' + '.join(f'{n:,} at {label}' for label, n in parts)})"
    return f"{total:,} ({' + '.join(f'{label}: {n:,}' for label, n in parts)})"


# A round table longer than this (a write saturation runs hundreds of rounds) shows its first and last rounds and
# evenly spaced ones between; every round stays in the round files and result.json.
TABLE_ROWS = 60
_EDGE_ROWS = 10
# More job files than this in one segment are linked by their first and last ones.
LINKED_FILES = 12


def sampled(rows: list, limit: int = TABLE_ROWS) -> tuple[list, str]:
    """At most about ``limit`` of ``rows`` - the first and last ten and evenly spaced ones between - and a note
    saying which; all of them and no note when they fit."""
    if len(rows) <= limit:
        return rows, ""
    middle = len(rows) - 2 * _EDGE_ROWS
    step = -(-middle // (limit - 2 * _EDGE_ROWS))
    picked = rows[:_EDGE_ROWS] + rows[_EDGE_ROWS + step - 1:len(rows) - _EDGE_ROWS:step] + rows[-_EDGE_ROWS:]
    return picked, (f"{len(picked)} of {len(rows):,} rows: the first and last {_EDGE_ROWS} and one in every {step} "
                    "between; every round is in result.json and its round file.")


def verdict_line(result: dict, what: str = "") -> str:
    settings = result["settings"]
    prefix = f"{what}: " if what else ""
    return prefix + {
        "steady": f"**Steady state reached at round {result.get('steady_round')}.**",
        "not steady": f"**Not steady**: the round limit ({settings.get('max_rounds')}) was reached without a steady "
                      "window; the figures below are the last rounds' averages and are not steady-state figures.",
        "incomplete": f"**Incomplete**: the test stopped after {result.get('rounds_run')} of at most "
                      f"{settings.get('max_rounds')} rounds without reaching steady state.",
        "no rounds": "**No round finished**; nothing was measured.",
        "failed": f"**Failed** after {result.get('rounds_run', 0)} finished round(s); the figures below are from "
                  "those rounds only and are not steady-state figures.",
    }[result["status"]]


def status_notes(result: dict) -> list[str]:
    """A failure with its evidence, and earlier attempts this result does not use."""
    lines = []
    failure = result.get("failure")
    if failure and result.get("status") == "failed":
        where = failure.get("phase") or "step"
        if failure.get("round"):
            where += f" {failure['round']}"
        lines += [f"> **Failed** in {where}: {md.text(failure.get('msg'))}", ""]
        if failure.get("stderr"):
            lines += md.code_block(failure["stderr"].strip().splitlines()[-12:]) + [""]
    for path in result.get("superseded") or []:
        lines += [f"> Note: this test started again from its purge after an interrupted attempt; the earlier "
                  f"attempt is kept in `{path}` and not used here.", ""]
    return lines


def loop_description(result: dict, steps: list[str], loop: list[str]) -> list[str]:
    """The test loop as TKperf prints it, from what the round files say was run."""
    settings = result["settings"]
    wipc = settings.get("wipc") or {}
    described = []
    for step in steps:
        if step == "Workload-independent preconditioning" and wipc:
            step += f" ({wipc.get('capacity_multiple')} × user capacity, {wipc.get('block_size')} sequential writes)"
        described.append(step)
    numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
    oio = f"{md.plural(numjobs, 'thread')} × queue depth {iodepth} = OIO {numjobs * iodepth}" if numjobs and iodepth else ""
    return [", then ".join(described) + (", then rounds of:" if described else "Rounds of:"), "", "```",
            "While not steady state and round < max rounds", *[f"  {line}" for line in loop], "```", "",
            f"Each combination runs with direct I/O, random data, {oio}.", ""]


def round_table(dvs: list[dict], units: dict, all_steady: str = "read and write") -> list[str]:
    """Every round as the stop rule saw it: each DV's value, and the window figures once there is a window. With
    several DVs a round is steady only when all of them are, which the last column's header says (``all_steady``)."""
    headers = ["Round"]
    for dv in dvs:
        headers += [dv_header(dv), "Data exc. %", "Slope exc. %"]
    headers.append(f"Steady ({all_steady})" if len(dvs) > 1 else "Steady")
    rows = []
    for index in range(len(dvs[0]["values"])):
        row = [str(index + 1)]
        steady = True
        for dv in dvs:
            unit, scale, digits = units[dv["metric"]]
            verdict = dv["verdicts"][index]
            row += [md.fmt(dv["values"][index] / scale, digits), md.fmt(verdict.get("data_excursion_pct"), 2),
                    md.fmt(verdict.get("slope_excursion_pct"), 2)]
            steady = steady and verdict["steady"]
        row.append("**yes**" if steady else "no")
        rows.append(row)
    shown, note = sampled(rows)
    return md.table(headers, shown) + (["", note] if note else [])


def mismatch_warning(result: dict) -> list[str]:
    if not result.get("live_verdict_mismatch"):
        return []
    return ["", f"> Warning: the live verdicts of rounds {result['live_verdict_mismatch']} differ from the ones "
                "recomputed from the round files."]


def images(plots_rel: dict, captions: dict) -> list[str]:
    if not plots_rel:
        return ["Plots were not drawn: matplotlib is not installed on the controller.", ""]
    lines = []
    for key, caption in captions.items():
        if key in plots_rel:
            lines += md.image(plots_rel[key], caption)
    return lines


def purge_row(label: str, purge: dict | None) -> list[str]:
    purge = purge or {}
    return [label, f"{purge.get('method', 'not run')}" + (f" ({purge.get('note')})" if purge.get("note") else ""),
            md.fmt(purge.get("elapsed_s"), 3) + " s" if purge.get("elapsed_s") is not None else md.DASH]


def fio_time_text(result: dict, kind) -> str:
    """fio's time in the rounds, explained: the seconds it measured I/O (its jobs' run times) and the seconds its
    processes ran, the difference being fio's start-up and the pause between its stonewalled sections (or what the
    test's report kind says it is: ``fio_time``)."""
    io_s, process_s, sections = result.get("fio_io_s"), result.get("fio_s"), result.get("fio_sections")
    if not io_s or process_s is None:
        return md.fmt(process_s) + " s" if process_s is not None else md.DASH
    rest = max(0.0, process_s - io_s)
    said = kind.fio_time(result, io_s, process_s, sections, rest) if kind.fio_time else None
    if said:
        return said
    each = f", {rest / sections:.2f} s per run" if sections else ""
    return (f"{process_s:,.1f} s: {io_s:,.1f} s of I/O in {sections:,} runs, and {rest:,.1f} s of fio's start-up and "
            f"pauses between runs{each}")


def timing_rows(result: dict, kind) -> list[list[str]]:
    """The fio run time of all rounds and the test's wall time, the last rows of every steps table."""
    return [["Rounds (fio run time)", f"{rounds_text(result, kind)} rounds", fio_time_text(result, kind)],
            ["Whole test (wall time)", f"{result.get('started_at')} – {result.get('finished_at')}",
             md.fmt(result.get("wall_s")) + " s" if result.get("wall_s") is not None else md.DASH]]


def steps_table(result: dict, capacity: int, segments: list[tuple[str, dict]], kind) -> list[str]:
    """Purge(s), preconditioning and rounds with their times (``kind``: the test's report kind)."""
    rows = [purge_row(f"Purge{f' ({name})' if name else ''}", seg.get("purge")) for name, seg in segments]
    wipc = result.get("wipc")
    if (result["settings"].get("wipc") or wipc) and wipc is not None:
        wanted = int((result["settings"].get("wipc") or {}).get("capacity_multiple", 2)) * capacity
        text = (f"{wipc['bytes_written']:,} bytes ({format_bytes(wipc['bytes_written'])}) written, "
                f"{wipc.get('block_size')} sequential, {md.fmt(wipc.get('mb_per_s'))} MB/s")
        if capacity and wipc["bytes_written"] < wanted:
            text += f" — **short of the {wanted:,} bytes asked for**"
        rows.append(["Workload-independent preconditioning", text,
                     md.fmt(wipc.get("elapsed_s")) + " s" if wipc.get("elapsed_s") is not None else md.DASH])
    rows += timing_rows(result, kind)
    return md.table(["Step", "What", "Time"], rows, numeric=False)


def file_links(test: str, segments: list[tuple[str, list[str]]], wipc: bool) -> list[str]:
    parts = [f"[WIPC]({test}/wipc.fio)"] if wipc else []
    for name, stems in segments:
        base = f"{test}/{name}/" if name else f"{test}/"
        linked = stems if len(stems) <= LINKED_FILES else stems[:3] + stems[-3:]
        links = [f"[{stem.split('-', 1)[1]}]({base}{stem}.fio)" for stem in linked]
        if len(linked) < len(stems):
            links = links[:3] + [f"… ({len(stems):,} job files in `{base}`)"] + links[3:]
        parts.append(f"{name + ' ' if name else ''}rounds {', '.join(links)}")
    return ["", f"fio job files: {'; '.join(parts)}. Each round's parsed results are in `round-NN.json` next to its job "
                "file, fio's own output in `round-NN.raw.json`.", ""]


def figure_cell(value, figure: str, item: dict | None = None) -> str:
    """A headline figure in the summary's table: its value and unit, or why it has none."""
    spec = _headline_figures.FIGURES[figure]
    if value is None and (item or {}).get("unresolved"):
        found = item["unresolved"]
        return f"n/r: {found['ios']:,} IOs, {found['needed']:,} needed" if "ios" in found else f"n/r: {found['reason']}"
    return f"{md.fmt(float(value), spec['digits'])} {spec['unit']}" if value is not None else "not measured"


def state_cell(state: str | None) -> str:
    """The state of the window a summary row's figures come from."""
    return "**steady**" if state == "steady" else md.text(state or "not run")
