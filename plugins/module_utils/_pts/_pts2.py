# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""SNIA PTS 2.0.2 Enterprise as data: what ``pts_spec`` switches, and the tests PTS-E 1.1 does not have.

* ``hir`` - host idle recovery: 4k random write to steady state, then per wait state bursts of writes with idle time
  between them, each followed by a return to baseline (continuous writes);
* ``xsr`` - cross stimulus recovery: sequential 1024k writes, random 8k writes, sequential 1024k writes, sampled;
* ``cbw`` - composite block size workload (PTS-E 1.1's ECW): a block size mix over LBA hot spots, to steady state over
  a thread count x queue depth grid, then three operating points with latency histograms;
* ``dirth`` - demand intensity / response time histogram: the same structure with one block size and R/W mix.

Each runs as segments (one purge per test), each segment with its own stop rule: ``steady`` (a preconditioning or
the TC x QD loop, tracked by a named fio section), ``sweep`` (HIR's bursts and baseline), ``samples`` (an XSR access
group: one continuous fio run, cut into samples at fio's status dumps as it runs) or ``points`` (the operating points,
chosen from the loop's measurement window when their round starts). A continuous stimulus - an XSR group, HIR's bursts
and each return to baseline - is one fio run with interval logs (``log_ms``), so no idle time the PTS does not ask for
lies between its samples or sections (module_utils/_pts/_interval.py). Where the sources differ, the choice is a
variable and docs/snia_mapping.md says which source it follows.
"""

from __future__ import annotations

import math
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import (
    boolean, fail, parse_block_sizes, parse_mixes)
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import number_text, positive, positive_ints
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import seconds as run_seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size

SPECS = ("1.1", "2.0")
SPEC_NAMES = {"1.1": "SNIA SSS PTS Enterprise 1.1 (as TKperf runs it)", "2.0": "SNIA SSS PTS 2.0.2 Enterprise"}
PTS2_TESTS = ("hir", "xsr", "cbw", "dirth")
TITLES = {
    "hir": "Host Idle Recovery",
    "xsr": "Cross Stimulus Recovery",
    "cbw": "Composite Block Size Workload",
    "dirth": "Demand Intensity / Response Time Histogram",
}
POINTS = ("max", "mid", "min")
POINT_WORDS = {"max": "MaxIOPS", "mid": "MidIOPS", "min": "MinIOPS"}

# What pts_spec sets, each overridable by its own variable (pts_run_<key>).
SPEC_DEFAULTS = {
    "1.1": {
        "numjobs": 2,
        "iodepth": 16,
        "iops_dvs": [{"bs": "4k", "mix": 0}],
        "throughput_block_sizes": ["1024k", "64k", "8k", "4k", "512"],
        "throughput_wipc": False,
        "wsat_latency_plots": False,
    },
    "2.0": {
        # PTS 2.0's recommended total outstanding IOs for Enterprise: 4 threads x QD 32.
        "numjobs": 4,
        "iodepth": 32,
        # All three must be steady for the IOPS test to stop.
        "iops_dvs": [{"bs": "4k", "mix": 0}, {"bs": "64k", "mix": 65}, {"bs": "1024k", "mix": 100}],
        "throughput_block_sizes": ["1024k", "128k"],
        "throughput_wipc": True,
        "wsat_latency_plots": True,
    },
}

# Test variables (without pts_run_) by profile; the operator's value always wins. "standard" is the test as published.
CBW_BSSPLIT = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"
CBW_DISTRIBUTION = "zoned:50/5:30/15:20/80"
_GRID = [32, 16, 8, 6, 4, 2, 1]
PROFILE_DEFAULTS = {
    "standard": {
        "hir_precondition_seconds": 1800,
        "hir_wait_states": [1, 2, 3, 5, 10],
        "hir_burst_seconds": 5,
        "hir_repetitions": 360,
        "hir_baseline_seconds": 1800,
        "hir_baseline_sample_seconds": 60,
        "xsr_group_minutes": [480, 360, 480],
        "xsr_sample_seconds": 60,
        "xsr_iodepth": 32,
        "xsr_sequential_block_size": "1024k",
        "xsr_random_block_size": "8k",
        "xsr_recovery_tolerance_pct": 5,
        "intensity_thread_counts": list(_GRID),
        "intensity_queue_depths": list(_GRID),
        "intensity_precondition_seconds": 1800,
        "intensity_prewrite_seconds": 300,
        "intensity_point_seconds": 60,
        "intensity_max_art_ms": 5,
        "intensity_point_prewrite_seconds": 3600,
        "intensity_sample_seconds": 60,
        "intensity_point_measure_seconds": 600,
        "cbw_bssplit": CBW_BSSPLIT,
        "cbw_distribution": CBW_DISTRIBUTION,
        "cbw_mix": 40,
        "dirth_block_size": "8k",
        "dirth_mix": 65,
        "throughput_wipc_block_size": "segment",
    },
    "quick": {
        "hir_precondition_seconds": 1,
        "hir_burst_seconds": 0.5,
        "hir_repetitions": 3,
        "hir_baseline_seconds": 1.5,
        "hir_baseline_sample_seconds": 0.5,
        "xsr_group_minutes": [0.05, 0.05, 0.05],
        "xsr_sample_seconds": 0.5,
        "intensity_thread_counts": [2, 1],
        "intensity_queue_depths": [4, 1],
        "intensity_precondition_seconds": 1,
        "intensity_prewrite_seconds": 0.5,
        "intensity_point_seconds": 0.5,
        "intensity_point_prewrite_seconds": 1,
        "intensity_sample_seconds": 0.5,
        "intensity_point_measure_seconds": 1,
    },
}
# The variables (without pts_run_) that shape each test's measurements, for the resume check and plan.json.
VARIABLES = {
    "hir": ("hir_precondition_seconds", "hir_wait_states", "hir_burst_seconds", "hir_repetitions",
            "hir_baseline_seconds", "hir_baseline_sample_seconds"),
    # The recovery tolerance only judges what was measured: a resume may change it.
    "xsr": ("xsr_group_minutes", "xsr_sample_seconds", "xsr_iodepth", "xsr_sequential_block_size",
            "xsr_random_block_size"),
    "cbw": ("intensity_thread_counts", "intensity_queue_depths", "intensity_precondition_seconds",
            "intensity_prewrite_seconds", "intensity_point_seconds", "intensity_max_art_ms",
            "intensity_point_prewrite_seconds", "intensity_sample_seconds", "intensity_point_measure_seconds",
            "cbw_bssplit", "cbw_distribution", "cbw_mix"),
}
VARIABLES["dirth"] = VARIABLES["cbw"][:-3] + ("dirth_block_size", "dirth_mix")
HIR_BLOCK_SIZE = 4096
# What fio is told for a bssplit section (bs= is required; bssplit overrides it): the 4k of CBW's most common size.
NOMINAL_BLOCK_SIZE = 4096
# fio's own floor per stonewalled job section (docs/performance.md): the idle time between two stonewalled sections -
# which is why HIR's bursts are not stonewalled and its returns to baseline and XSR's groups are one section each.
SECTION_S = 0.3
# fio refuses a job file whose sections' threads (numjobs clones) add up to more.
FIO_MAX_JOBS = 4096
# ASCII digits only (\d also matches other scripts' digits, which fio does not read).
_BSSPLIT_RE = re.compile(r"[0-9]+[kKmM]?/[0-9]+", re.ASCII)
# Whole percentages: fio 3.33 reads each share of a zoned distribution as a whole number (50.5/49.5 adds up to 99 and
# fails), and the PTS's zones are whole numbers.
_ZONED_RE = re.compile(r"zoned:[0-9]+/[0-9]+(?::[0-9]+/[0-9]+)*", re.ASCII)


def spec(value: object, variable: str = "pts_run_spec") -> str:
    """The PTS version a run follows: "1.1" or "2.0" (unquoted in YAML they are the numbers 1.1 and 2.0)."""
    text = f"{value:.1f}" if isinstance(value, float) else str(value).strip()
    if isinstance(value, bool) or text not in SPECS:
        raise fail(variable, value, f"unknown PTS version; known: {', '.join(SPECS)} (PTS-E 1.1 as TKperf runs it, "
                                    "or PTS 2.0.2)")
    return text


def spec_value(params: dict, chosen: str, key: str):
    """A spec-dependent variable: the operator's pts_run_<key>, else the spec's default."""
    value = params.get("pts_run_" + key)
    return SPEC_DEFAULTS[chosen][key] if value is None else value


def effective(params: dict, profile: str, key: str):
    """A PTS 2.0 test variable (without pts_run_): the operator's value, else the profile's, else the standard one."""
    value = params.get("pts_run_" + key)
    if value is None:
        value = PROFILE_DEFAULTS.get(profile, {}).get(key)
    return PROFILE_DEFAULTS["standard"][key] if value is None else value


def iops_dvs(value: object, mixes: list[int], sizes: list[int], variable: str = "pts_run_iops_dvs") -> list[dict]:
    """The IOPS test's tracking variables: each a block size and R/W mix of the matrix, IOPS, all to be steady."""
    if not isinstance(value, (list, tuple)) or not value:
        raise fail(variable, value, "must be a non-empty list of {bs, mix} entries, e.g. [{bs: 4k, mix: 0}]")
    dvs = []
    for index, entry in enumerate(value):
        where = f"{variable}[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"bs", "mix"} or "bs" not in entry or "mix" not in entry:
            raise fail(where, entry, "must be a mapping with exactly bs (a block size) and mix (the read percentage)")
        try:
            bs = parse_block_size(entry["bs"])
        except ValueError as exc:
            raise fail(f"{where}.bs", entry["bs"], str(exc)) from exc
        mix = parse_mixes(f"{where}.mix", [entry["mix"]])[0]
        if bs not in sizes:
            raise fail(f"{where}.bs", entry["bs"], "is not in pts_run_iops_block_sizes: a tracking variable must be "
                                                   "one of the matrix's combinations")
        if mix not in mixes:
            raise fail(f"{where}.mix", entry["mix"], "is not in pts_run_iops_mixes: a tracking variable must be one "
                                                     "of the matrix's combinations")
        if any(d["bs"] == bs and d["mix"] == mix for d in dvs):
            raise fail(where, entry, "listed twice")
        dvs.append({"mix": mix, "bs": bs, "metric": "iops"})
    return dvs


def bssplit(value: object, variable: str) -> tuple[str, list[tuple[int, int]]]:
    """A fio bssplit (size/percent:...) whose shares add up to 100: the text fio's job file gets, written again from
    the parsed (bytes, percent) pairs, and the pairs."""
    if not isinstance(value, str) or not value.strip() or any(ch.isspace() for ch in value.strip()):
        raise fail(variable, value, "must be a fio bssplit such as 4k/50:64k/50 (size/percent of IOs), without spaces")
    pairs = []
    for part in value.strip().split(":"):
        if not _BSSPLIT_RE.fullmatch(part):
            raise fail(variable, value, f"{part!r} is not size/percent (e.g. 4k/67) in ASCII digits (0-9)")
        size, dummy, pct = part.partition("/")
        try:
            pairs.append((parse_block_size(size), int(pct)))
        except ValueError as exc:
            raise fail(variable, value, str(exc)) from exc
        if not pairs[-1][1]:
            # fio 3.33 never ends a job whose bssplit has a share of 0 %.
            raise fail(variable, value, f"{part!r} has a share of 0 %: leave the size out")
    if sum(pct for dummy, pct in pairs) != 100:
        raise fail(variable, value, f"its percentages add up to {sum(p for dummy, p in pairs)}, not 100")
    return ":".join(f"{block_size_label(size)}/{pct}" for size, pct in pairs), pairs


def distribution(value: object, variable: str) -> str:
    """A fio zoned random_distribution (zoned:IO%/LBA%:...) whose IO and LBA shares each add up to 100."""
    text = str(value).strip() if isinstance(value, str) else ""
    if not _ZONED_RE.fullmatch(text):
        raise fail(variable, value, "must be a fio zoned distribution such as zoned:50/5:30/15:20/80 (IO %/LBA %, "
                                    "whole percentages in ASCII digits)")
    zones = [[int(share) for share in part.split("/")] for part in text[len("zoned:"):].split(":")]
    for index, name in ((0, "IO"), (1, "LBA")):
        total = sum(zone[index] for zone in zones)
        if total != 100:
            raise fail(variable, value, f"its {name} shares add up to {total:g}, not 100")
    return "zoned:" + ":".join(f"{io}/{lba}" for io, lba in zones)


def _ints(variable: str, value: object, maximum: int = 1024) -> list[int]:
    return positive_ints(variable, value, maximum=maximum)


def _mix(variable: str, value: object) -> int:
    """A read percentage, also as ``-e`` gives it (a string of digits)."""
    if isinstance(value, str) and isinstance(number_text(value), int):
        value = number_text(value)
    return parse_mixes(variable, [value])[0]


def _percentage(variable: str, value: object) -> float:
    """A percentage from 0 to below 100, also as ``-e`` gives it."""
    number = number_text(value) if isinstance(value, str) else value
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) \
            or not 0 <= number < 100:
        raise fail(variable, value, "must be a percentage from 0 to below 100")
    return float(number)


def _jobs_fit(name: str, rounds: list[tuple[str, int, str, object, str]]) -> None:
    """fio runs at most FIO_MAX_JOBS threads (every section's numjobs clones) in one job file: a round planned past
    that would fail only once the drive has been purged and preconditioned, so the plan refuses it first. ``rounds``:
    (what, threads, the variable to name, its value, what to change)."""
    for what, jobs, variable, value, change in rounds:
        if jobs > FIO_MAX_JOBS:
            raise fail(variable, value, f"makes {name}'s {what} one fio job file of {jobs:,} threads (its sections' "
                                        f"threads added up); fio runs at most {FIO_MAX_JOBS:,}: {change}")


def inputs(name: str, params: dict, profile: str, common: dict) -> dict:
    """Validate one PTS 2.0 test's own variables; ``common`` holds the validated numjobs, iodepth and round_seconds."""
    def get(key):
        return effective(params, profile, key)

    base = {"purge": "test", "stop": "phases", "wipc": False, "precondition": None}
    if name == "hir":
        found = dict(base, mixes=[0], block_sizes=[HIR_BLOCK_SIZE], numjobs=common["numjobs"],
                     iodepth=common["iodepth"],
                     wait_states=_ints("pts_run_hir_wait_states", get("hir_wait_states"), maximum=1000),
                     round_seconds=run_seconds("pts_run_hir_burst_seconds", get("hir_burst_seconds")),
                     precondition_seconds=run_seconds("pts_run_hir_precondition_seconds",
                                                      get("hir_precondition_seconds")),
                     repetitions=int(positive("pts_run_hir_repetitions", get("hir_repetitions"), int)),
                     baseline_seconds=run_seconds("pts_run_hir_baseline_seconds", get("hir_baseline_seconds")),
                     baseline_sample_seconds=run_seconds("pts_run_hir_baseline_sample_seconds",
                                                         get("hir_baseline_sample_seconds")))
        threads = f"{found['numjobs']} threads each (pts_run_numjobs)"
        _jobs_fit("hir", [
            ("bursts", found["repetitions"] * found["numjobs"], "pts_run_hir_repetitions", found["repetitions"],
             f"lower it or pts_run_numjobs ({found['repetitions']} bursts x {threads})")])
        if found["baseline_sample_seconds"] > found["baseline_seconds"]:
            raise fail("pts_run_hir_baseline_sample_seconds", found["baseline_sample_seconds"],
                       f"is longer than the return to baseline of {found['baseline_seconds']:g} s "
                       "(pts_run_hir_baseline_seconds)")
        return found
    if name == "xsr":
        minutes = get("xsr_group_minutes")
        if not isinstance(minutes, (list, tuple)) or len(minutes) != 3:
            raise fail("pts_run_xsr_group_minutes", minutes, "must be three durations in minutes: sequential, random, "
                                                             "sequential again (PTS 2.0: [480, 360, 480])")
        minutes = [positive("pts_run_xsr_group_minutes", m, float) for m in minutes]
        sizes = {key: parse_block_sizes(f"pts_run_xsr_{key}", [get(f"xsr_{key}")])[0]
                 for key in ("sequential_block_size", "random_block_size")}
        tolerance = _percentage("pts_run_xsr_recovery_tolerance_pct", get("xsr_recovery_tolerance_pct"))
        sample = run_seconds("pts_run_xsr_sample_seconds", get("xsr_sample_seconds"))
        for minute in minutes:
            if minute * 60 < sample:
                raise fail("pts_run_xsr_group_minutes", minute, f"is shorter than one sample of {sample:g} s "
                                                                "(pts_run_xsr_sample_seconds)")
        return dict(base, mixes=[0], block_sizes=[sizes["sequential_block_size"], sizes["random_block_size"]],
                    numjobs=1, iodepth=int(positive("pts_run_xsr_iodepth", get("xsr_iodepth"), int)),
                    round_seconds=sample, group_minutes=minutes,
                    sequential_block_size=sizes["sequential_block_size"],
                    random_block_size=sizes["random_block_size"],
                    recovery_tolerance_pct=float(tolerance))
    if name in ("cbw", "dirth"):
        tcs = sorted(_ints("pts_run_intensity_thread_counts", get("intensity_thread_counts"), maximum=256), reverse=True)
        qds = sorted(_ints("pts_run_intensity_queue_depths", get("intensity_queue_depths")), reverse=True)
        durations = {key: run_seconds(f"pts_run_intensity_{key}", get(f"intensity_{key}"))
                     for key in ("precondition_seconds", "prewrite_seconds", "point_seconds", "point_prewrite_seconds",
                                 "sample_seconds", "point_measure_seconds")}
        if durations["point_prewrite_seconds"] < durations["sample_seconds"]:
            raise fail("pts_run_intensity_point_prewrite_seconds", durations["point_prewrite_seconds"],
                       f"is shorter than one sample of {durations['sample_seconds']:g} s (pts_run_intensity_sample_seconds)")
        found = dict(base, wipc=True, thread_counts=tcs, queue_depths=qds, numjobs=max(tcs), iodepth=max(qds),
                     round_seconds=durations["point_seconds"],
                     max_art_ms=positive("pts_run_intensity_max_art_ms", get("intensity_max_art_ms"), float),
                     **durations)
        samples = prewrite_samples(found)
        _jobs_fit(name, [
            ("TC x QD loop round", max(tcs) + sum(tcs) * len(qds), "pts_run_intensity_thread_counts", tcs,
             f"fewer or lower thread counts ({len(qds)} queue depths each)"),
            ("operating point", (samples + 1) * max(tcs), "pts_run_intensity_sample_seconds",
             durations["sample_seconds"], f"raise it ({samples} pre-write samples, each of up to {max(tcs)} threads)")])
        if name == "cbw":
            text, pairs = bssplit(get("cbw_bssplit"), "pts_run_cbw_bssplit")
            mix = _mix("pts_run_cbw_mix", get("cbw_mix"))
            return dict(found, mixes=[mix, 0], bssplit=text, bssplit_sizes=[bs for bs, dummy in pairs],
                        distribution=distribution(get("cbw_distribution"), "pts_run_cbw_distribution"), mix=mix,
                        block_sizes=[NOMINAL_BLOCK_SIZE])
        size = parse_block_sizes("pts_run_dirth_block_size", [get("dirth_block_size")])[0]
        mix = _mix("pts_run_dirth_mix", get("dirth_mix"))
        return dict(found, mixes=[mix, 0], block_sizes=[size], bssplit=None, bssplit_sizes=[size], distribution=None,
                    mix=mix)
    raise ValueError(f"not a PTS 2.0 test: {name}")


def throughput_wipc(params: dict, chosen: str, profile: str) -> dict:
    """Whether each throughput block size is preconditioned (WIPC) after its purge, and at which block size."""
    wipc = boolean("pts_run_throughput_wipc", spec_value(params, chosen, "throughput_wipc"))
    size = effective(params, profile, "throughput_wipc_block_size")
    if size != "segment":
        try:
            size = parse_block_size(size)
        except ValueError as exc:
            raise fail("pts_run_throughput_wipc_block_size", size, f"must be 'segment' (the block size under test) or "
                                                                   f"a block size: {exc}") from exc
    return {"segment_wipc": wipc, "wipc_block_size": size}


def baseline_samples(test: dict) -> int:
    """HIR's return to baseline: how many samples of about pts_run_hir_baseline_sample_seconds its one continuous fio
    run is cut into (at fio's status dumps)."""
    return max(1, int(round(test["baseline_seconds"] / test["baseline_sample_seconds"])))


def prewrite_samples(test: dict) -> int:
    """CBW/DIRTH: the sections an operating point's pre-write is recorded in."""
    return max(1, int(round(test["point_prewrite_seconds"] / test["sample_seconds"])))


def group_samples(minutes: float, sample_s: float) -> int:
    """XSR: the samples (rounds) of a group of ``minutes``."""
    return max(1, int(round(minutes * 60 / sample_s)))
