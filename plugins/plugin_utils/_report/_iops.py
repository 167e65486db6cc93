# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The IOPS test: result from its round files, plots, report section.

PTS-E 1.1 tracks one dependent variable (4k 0/100 IOPS); PTS 2.0.2 three (4k 0/100, 64k 65/35, 1024k 100/0), and the
test stops only when all of them are steady in the same round. The round files' settings list them ("dvs"; "dv"
alone in results recorded before there was a choice)."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import iops
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _sections, _sweep_plots, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _charts
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import FleetPanel, ReportKind


def dv_definitions(settings: dict) -> list[dict]:
    """The tracking variables the run judged: settings "dvs" (PTS 2.0 and later runs), else its one "dv"."""
    return list(settings.get("dvs") or [settings.get("dv") or iops.DV])


def all_steady_round(dvs: list[dict]) -> int | None:
    """The first round after which every DV was steady in the same round (one DV: its own first steady round)."""
    for index in range(min(len(dv["verdicts"]) for dv in dvs)):
        if all(dv["verdicts"][index]["steady"] for dv in dvs):
            return index + 1
    return None


def dv_words(dv: dict) -> str:
    """A DV in words for the text: "4k 0/100" (block size and R/W mix)."""
    return f"{dv['bs']} {md.mix(dv['mix'])}"


_KIND = {100: "random read", 0: "random write"}


def _dv_kind(dv: dict) -> str:
    """4k random write (0/100), 64k random mixed (65/35), 1024k random read (100/0)."""
    return f"{dv['bs']} {_KIND.get(dv['mix'], 'random mixed')} ({md.mix(dv['mix'])})"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def build(test: dict) -> dict:
    result, segment = _tests.single_segment(test)
    rounds = segment["rounds"]
    if not rounds:
        return result
    settings = result["settings"]
    window, max_rounds, dummy, dummy2 = _tests.limits(settings)
    dvs = [_tests.dv_series(rounds, dv) for dv in dv_definitions(settings)]
    dv = dvs[0]
    steady = all(d["steady"] for d in dvs)
    steady_round = all_steady_round(dvs) if steady else None
    mixes = [int(m) for m in settings.get("mixes") or sorted({j["mix"] for j in rounds[-1]["fio"]["jobs"]}, reverse=True)]
    sizes = sorted(int(s) for s in settings.get("block_sizes") or {j["bs"] for j in rounds[-1]["fio"]["jobs"]})
    in_window = _tests.window_rounds(rounds, window)

    def at_mix(mix: int) -> dict:
        return {block_size_label(bs): _tests.per_round(rounds, mix, bs, lambda j: j["total"]["iops"]) for bs in sizes}

    names = [f"{dv_words(d)} IOPS" for d in dvs]
    missed = [f"{dv_words(d)} IOPS" for d in dvs if not d["steady"]]
    result.update(
        spec=str(settings.get("spec") or "1.1"),
        status=_tests.status(steady, len(rounds), max_rounds, result["failure"]),
        steady=steady,
        steady_round=steady_round,
        steady_text=(f"steady at round {steady_round}" if len(dvs) == 1 else
                     f"steady at round {steady_round} (all {len(dvs)} DVs: {_and(names)})") if steady else None,
        not_steady_text=(f"not reached in {len(rounds)} rounds (limit {max_rounds})" if len(dvs) == 1 else
                         f"not reached by {_and(missed)} in {len(rounds)} rounds (limit {max_rounds}; all "
                         f"{len(dvs)} DVs must be steady)") if not steady else None,
        rounds_run=len(rounds),
        dv=dv,
        dvs=dvs,
        window_rounds=[int(r["round"]) for r in in_window],
        mixes=mixes,
        block_sizes=[block_size_label(s) for s in sizes],
        live_verdict_mismatch=_tests.live_mismatch(segment, dvs),
        # The first DV's mix (TKperf's plot), and every DV's mix: IOPS of every block size per round.
        convergence=at_mix(dv["mix"]),
        convergence_by_mix={str(m): at_mix(m) for m in dict.fromkeys(d["mix"] for d in dvs)},
        tables={
            "iops": _tests.window_grid(in_window, mixes, sizes, lambda j: j["total"]["iops"]),
            "mb_per_s": _tests.window_grid(in_window, mixes, sizes, lambda j: j["total"]["bw_bytes"] / 1e6),
            "mean_latency_ms": _tests.window_grid(
                in_window, mixes, sizes,
                lambda j: j["total"]["lat_ns"]["mean"] / 1e6 if j["total"]["lat_ns"]["mean"] is not None else None),
        },
        round_files=[f"round-{int(r['round']):02d}" for r in rounds],
        round_end_s=_tests.round_times(rounds),
    )
    return result


def iops_label(mix: int) -> str:
    """What a plot's IOPS are at one R/W mix: a write-only plot's are writes."""
    return {0: "IOPS (write)", 100: "IOPS (read)"}.get(int(mix), "IOPS (read + write)")


def window_stamp(result: dict, short: bool = False) -> tuple[str, bool]:
    """The verdict of a test's window for its plots: STEADY at round N, or NOT STEADY with the rounds shown;
    ``short`` for a panel beside others (its window only)."""
    rounds = result.get("window_rounds") or []
    span = f"rounds {rounds[0]}–{rounds[-1]}" if len(rounds) > 1 else f"round {rounds[0]}" if rounds else ""
    if result.get("status") == "steady":
        return (f"STEADY (window {span})" if short else
                f"STEADY from round {result.get('steady_round')} (window {span})"), True
    return (f"NOT STEADY (window {span})" if short else
            f"NOT STEADY (window {span}: the last rounds, not a steady state)"), False


def plot_keys(dv: dict, index: int) -> dict:
    """A DV's convergence and verification plots (key: file name); the first DV's keep the names a one-DV report
    always had."""
    if index == 0:
        return {"convergence": "iops-convergence.png", "verification": "iops-verification.png"}
    suffix = f"{dv['bs']}-{dv['mix']}"
    return {f"convergence-{suffix}": f"iops-convergence-{suffix}.png",
            f"verification-{suffix}": f"iops-verification-{suffix}.png"}


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    dvs = result.get("dvs") or [result["dv"]]
    drawn = {}
    for index, dv in enumerate(dvs):
        mix = md.mix(dv["mix"])
        (convergence, convergence_png), (verification, verification_png) = plot_keys(dv, index).items()
        if len(dvs) == 1:
            title = f"{prefix} — IOPS steady-state convergence, {_KIND.get(dv['mix'], 'random mixed')} ({mix})"
        else:
            title = f"{prefix} — IOPS steady-state convergence, R/W mix {mix}, DV {dv['bs']}"
        # Every block size at the DV's R/W mix, the DV bold; then the DV against its stop rule.
        own = ("STEADY" if dv["steady"] else "NOT STEADY") + (f" from round {dv['steady_round']}" if dv["steady"]
                                                              else f" in {result['rounds_run']} rounds")
        drawn[convergence] = _charts.convergence(
            os.path.join(plot_dir, convergence_png), title, iops_label(dv["mix"]),
            {"": result["convergence_by_mix"][str(dv["mix"])] if "convergence_by_mix" in result else
             result["convergence"]}, highlight=dv["bs"], window_rounds=result["window_rounds"],
            legend_title="Block size", subtitle=subtitle, verdicts={"": (f"DV {own}", dv["steady"])},
            times=result.get("round_end_s"))
        drawn[verification] = _charts.verification(
            os.path.join(plot_dir, verification_png),
            f"{prefix} — IOPS steady-state verification, DV {dv['bs']} {mix}"
            + (f" ({index + 1} of {len(dvs)})" if len(dvs) > 1 else ""),
            "IOPS", dv["values"], dv["window"], subtitle=subtitle)
    drawn["measurement"] = _charts.measurement_2d(
        os.path.join(plot_dir, "iops-measurement.png"),
        f"{prefix} — IOPS window average vs block size",
        "IOPS (read + write)", result["block_sizes"], result["tables"]["iops"], result["mixes"], subtitle=subtitle,
        verdict=window_stamp(result))
    drawn["heatmap"] = mix_heatmap(
        os.path.join(plot_dir, "iops-heatmap.png"), f"{prefix} — IOPS window average, R/W mix × block size",
        [("IOPS (read + write)", result["tables"]["iops"], 0)], result["block_sizes"], result["mixes"], subtitle,
        verdict=window_stamp(result, short=True))
    return drawn


def mix_heatmap(path: str, title: str, panels: list[tuple[str, dict, int]], block_sizes: list[str], mixes: list[int],
                subtitle: str, verdict: tuple[str, bool] | None = None) -> str:
    """A window-average table as a heat map, R/W mix down (all reads on top) and block size across (largest first),
    every cell's value printed: what the 3D bar plots showed, without hiding their back rows; ``verdict`` the
    window's state stamped on it."""
    sizes = _plots.by_block_size(block_sizes)
    order = sorted(mixes)  # the image's origin is at the bottom: 0/100 there, 100/0 on top
    grids = [(label, [[(table.get(bs) or {}).get(str(m)) for bs in sizes] for m in order], digits)
             for label, table, digits in panels]
    return _sweep_plots.heatmaps(path, title, "Block size", "R/W mix % (read/write)", sizes,
                                 [md.mix(m) for m in order], grids, subtitle, verdict=verdict)


def _dv_lines(result: dict, dvs: list[dict]) -> list[str]:
    if len(dvs) == 1:
        return [f"Dependent variable: IOPS of {_dv_kind(dvs[0])}, found by mix and block size in each round.", ""]
    spec = "PTS 2.0.2's three tracking variables" if result.get("spec") == "2.0" and len(dvs) == 3 else \
        f"{len(dvs)} tracking variables"
    return [f"Dependent variables ({spec}): IOPS of {_and([_dv_kind(dv) for dv in dvs])}, each found by mix and "
            f"block size in each round and judged over the same window of rounds. The test stops only when all "
            f"{len(dvs)} are steady in the same round; {dv_words(dvs[0])} is the headline figure.", ""]


def _steady_lines(result: dict, dvs: list[dict]) -> list[str]:
    """Each DV's own window verdict, in one sentence under the test's."""
    parts = [f"{dv_words(dv)} " + (f"steady from round {dv['steady_round']}" if dv["steady"] else
                                   "**not steady**" + (f" (steady at round {dv['steady_round']}, not since)"
                                                       if dv["steady_round"] else ""))
             for dv in dvs]
    return [f"Per DV, over rounds {', '.join(str(r) for r in result['window_rounds'])}: {'; '.join(parts)}.", ""]


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    if not result.get("rounds_run"):
        return [f"## {number} {result['title']}", "", *_sections.status_notes(result), "No round finished; nothing was measured.", ""]
    settings = result["settings"]
    dv = result["dv"]
    dvs = result.get("dvs") or [dv]
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result)]
    lines += _sections.loop_description(
        result, ["Purge", "Workload-independent preconditioning"],
        [f"For R/W mix % in [{', '.join(str(m) for m in result['mixes'])}]",
         f"  For block size in [{', '.join(reversed(result['block_sizes']))}]",
         f"    random I/O for {settings.get('round_seconds')} s"])
    if len(dvs) > 1:
        # loop_description says "not steady state": with several DVs the loop runs until all of them are steady.
        lines = [line.replace("While not steady state and", f"While not all {len(dvs)} DVs steady and")
                 for line in lines]
    lines += _dv_lines(result, dvs)
    lines += [f"> Note: {note}" for note in result.get("notes") or []]
    lines += ["", f"### {number}.1 Steady state information", "", _sections.verdict_line(result), ""]
    if len(dvs) == 1:
        lines += md.validation_table(dv["window"], "IOPS", 1.0, 1, settings.get("max_rounds"), dv["steady_round"],
                                     result["rounds_run"])
    else:
        lines += _steady_lines(result, dvs)
        for index, one in enumerate(dvs, 1):
            lines += ([""] if index > 1 else []) + [
                f"Steady State Validation Table, DV {index} of {len(dvs)}: {_dv_kind(one)} IOPS", ""]
            lines += md.validation_table(one["window"], "IOPS", 1.0, 1, settings.get("max_rounds"),
                                         one["steady_round"], result["rounds_run"])
    lines += ["", "Every round as the steady-state check saw it:", ""]
    lines += _sections.round_table(dvs, {"iops": ("IOPS", 1.0, 1)}, all_steady="all DVs")
    lines += _sections.mismatch_warning(result)
    lines += ["", f"### {number}.2 Measurement plots", ""]
    if len(dvs) == 1:
        at = "100 % random write" if dv["mix"] == 0 else f"R/W mix {md.mix(dv['mix'])}"
        captions = {"convergence": f"Steady State Convergence Plot: IOPS of every block size at {at}, "
                                   "per round; the DV in bold, the measurement window shaded; one shared log or "
                                   "zero-based axis.",
                    "verification": _sections.VERIFICATION_CAPTION}
    else:
        captions = {}
        for index, one in enumerate(dvs):
            convergence, verification = plot_keys(one, index)
            captions[convergence] = (
                f"Steady State Convergence Plot, DV {index + 1} of {len(dvs)} ({dv_words(one)}): IOPS of every block "
                f"size at R/W mix {md.mix(one['mix'])} per round; the DV in bold, the measurement window shaded; one "
                "log or zero-based axis.")
            # The rule's drawing is explained once, under the first DV's plot.
            captions[verification] = (
                f"Steady State Verification Plot, DV {index + 1} of {len(dvs)} ({dv_words(one)})"
                + (_sections.VERIFICATION_CAPTION[len("Steady State Verification Plot"):] if index == 0 else
                   ": this DV against the stop rule, drawn as for DV 1.")
                + (" The test stops when all DVs are steady in the same round." if index == len(dvs) - 1 else ""))
    captions.update({
        "measurement": "Measurement Plot: window-average IOPS against block size, one line per R/W mix.",
        "heatmap": "Measurement heat map: window-average IOPS per R/W mix and block size, each cell's value printed "
                   "(in place of TKperf's 3D bars, which hide their back rows).",
    })
    lines += _sections.images(plots_rel, captions)
    window = ", ".join(str(r) for r in result["window_rounds"])
    lines += [f"### {number}.3 Measurement window summary tables", "",
              f"Average IOPS (read + write) over rounds {window}:", ""]
    lines += md.grid(result["tables"]["iops"], result["block_sizes"], result["mixes"], 1)
    lines += ["", "Average throughput, MB/s (10⁶ bytes/s), read + write:", ""]
    lines += md.grid(result["tables"]["mb_per_s"], result["block_sizes"], result["mixes"], 2)
    lines += ["", "Average latency, ms (IO-weighted mean of read and write):", ""]
    lines += md.grid(result["tables"]["mean_latency_ms"], result["block_sizes"], result["mixes"], 3)
    lines += ["", f"### {number}.4 Purge, preconditioning and files", ""]
    lines += _sections.steps_table(result, capacity, [("", result)], KIND)
    lines += _sections.file_links("iops", [("", result["round_files"])], wipc=True)
    return lines


def fleet_series(tests: dict) -> dict:
    """The fleet plots' IOPS panel: the DV round by round."""
    dv = (tests.get("iops") or {}).get("dv") or {}
    return {"iops": (list(range(1, len(dv["values"]) + 1)), dv["values"])} if dv.get("values") else {}


KIND = ReportKind(name="iops", build=build, plots=plots, section=section, steady_rule=True, steady_row=True,
                  fleet_series=fleet_series, fleet_panels=(FleetPanel("iops", "IOPS: 4k random write DV", "Round", "IOPS"),))
