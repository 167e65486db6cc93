# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The SNIA PTS tests as data (matrices, dependent variables, stop rules) and the validated run plan.

Sources: SNIA SSS PTS Enterprise 1.1 as TKperf and the Myce/OakGate lab run it, and PTS 2.0.2 (pts_spec: "2.0"; its
own tests are in _pts2.py); see docs/snia_mapping.md.
"""

from __future__ import annotations

import math
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts2, _steady_state, _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts2_segments
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import find_job, find_named
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import (
    boolean as _boolean, parse_block_sizes, parse_mixes)
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail as _fail, positive as _positive
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import seconds as _seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, drop_small
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._plan_settings import (
    measurement_variables, step_settings)

# PTS order (PTS 2.0's own tests after PTS-E 1.1's), then the characterisation and HDD tests: the order tests run
# in, whatever order they are listed in.
PTS_TESTS = ("iops", "throughput", "latency", "wsat")
PTS2_TESTS = _pts2.PTS2_TESTS
TESTS = PTS_TESTS + PTS2_TESTS + _sweeps.CHARACTERISATION + _sweeps.HDD
TITLES = dict({"iops": "IOPS", "throughput": "Throughput", "latency": "Latency", "wsat": "Write Saturation"},
              **_pts2.TITLES, **_sweeps.TITLES)
PROFILES = ("standard", "quick")

# IOPS: random R/W mixes x block sizes per round; DV 4k 0/100 IOPS.
IOPS_MIXES = (100, 95, 65, 50, 35, 5, 0)
IOPS_BLOCK_SIZES = ("1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512")
IOPS_DV = {"mix": 0, "bs": 4096, "metric": "iops"}
# Throughput: per block size (purged before each), sequential read then write; DVs per bs and direction. Its
# block sizes per spec are _pts2.SPEC_DEFAULTS' throughput_block_sizes.
# Latency: 1 thread x QD 1 as the PTS requires; DV 4k 0/100 mean latency.
LATENCY_MIXES = (100, 65, 0)
LATENCY_BLOCK_SIZES = ("8k", "4k", "512")
LATENCY_DV = {"mix": 0, "bs": 4096, "metric": "lat_mean_ns"}
# Write saturation: 4k random write rounds until capacity_multiple x capacity written or max_hours pass.
WSAT_BLOCK_SIZE = 4096

DV_METRICS = ("iops", "bw_bytes", "lat_mean_ns")
# fio start-up per process and per job section, measured on the reference machine (docs/performance.md).
FIO_START_S = 0.3
JOB_SWITCH_S = 0.4
ASSUMED_WIPC_BYTES_PER_S = 500e6
ASSUMED_WSAT_BYTES_PER_S = 200e6

_IOENGINE_RE = re.compile(r"[a-z0-9_]+", re.ASCII)


def dv_name(dv: dict) -> str:
    return f"{block_size_label(dv['bs'])} {dv['mix']}/{100 - dv['mix']} {dv['metric']}"


def round_seconds(combinations: list[dict], default_s: float) -> float:
    """How long one fio process runs its stonewalled sections: each its own run time (``seconds``, else the test's)
    plus fio's floor per section - a section with a start delay (``start_s``, counted from fio's start) waits for it
    - and fio's start-up."""
    elapsed = 0.0
    for cell in combinations:
        elapsed = max(elapsed, float(cell.get("start_s") or 0.0)) + float(cell.get("seconds") or default_s) + JOB_SWITCH_S
    return elapsed + FIO_START_S


def _random_combinations(test: str, mixes: list[int], sizes: list[int]) -> list[dict]:
    # PTS loop order: R/W mix outer, block size inner.
    return [{"name": f"{test}-r{mix}-{bs}", "rw": "randrw", "mix": mix, "bs": bs} for mix in mixes for bs in sizes]


def _segments(test: dict, logical_block_size: int) -> tuple[list[dict], list[str]]:
    """The purge-to-stop units of one test on one drive: one for most tests, one per block size for throughput."""
    name = test["name"]
    if name == "wsat":
        if WSAT_BLOCK_SIZE < logical_block_size:
            return [], [f"4k dropped: the drive's logical block size is {logical_block_size} bytes"]
        combos = [{"name": "wsat-4096", "rw": "randwrite", "mix": 0, "bs": WSAT_BLOCK_SIZE}]
        segment = {"name": "", "combinations": combos, "dvs": []}
        if test.get("latency_plots") or test.get("spec") == "2.0":
            # Its 99.999 % response times over several rounds are of all their IOs: the rounds' histograms merged.
            segment["output_format"] = "json+"
        return [segment], []
    sizes, notes = drop_small(test["block_sizes"], logical_block_size)
    if name == "throughput":
        segments = []
        for bs in sizes:
            combos = [{"name": f"tp-read-{bs}", "rw": "read", "mix": 100, "bs": bs},
                      {"name": f"tp-write-{bs}", "rw": "write", "mix": 0, "bs": bs}]
            dvs = [{"name": f"{block_size_label(bs)} read", "mix": 100, "bs": bs, "metric": "bw_bytes"},
                   {"name": f"{block_size_label(bs)} write", "mix": 0, "bs": bs, "metric": "bw_bytes"}]
            segment = {"name": block_size_label(bs), "combinations": combos, "dvs": dvs}
            if test.get("segment_wipc"):
                # WIPC after this block size's own purge: at the block size under test ([A]) or the one set.
                wipc_bs = bs if test["wipc_block_size"] == "segment" else test["wipc_block_size"]
                if wipc_bs < logical_block_size or wipc_bs % logical_block_size:
                    raise ValueError(f"pts_run_throughput_wipc_block_size={block_size_label(wipc_bs)}: below or not a "
                                     f"multiple of the drive's logical block size of {logical_block_size} bytes")
                segment["wipc_block_size"] = wipc_bs
            segments.append(segment)
        return segments, notes
    dvs = []
    for dv in test.get("dvs") or [test["dv"]]:
        dv = dict(dv)
        if dv["bs"] not in sizes:
            raise ValueError(f"the DV block size {block_size_label(dv['bs'])} is below the drive's "
                             f"logical block size {logical_block_size}: the {name} test cannot run")
        dv["name"] = dv_name(dv)
        dvs.append(dv)
    segment = {"name": "", "combinations": _random_combinations(name, test["mixes"], sizes), "dvs": dvs}
    if name == "latency":
        # The window's percentiles are of all its IOs: each round's latency histograms (json+), merged in the report.
        segment["output_format"] = "json+"
    return [segment], notes


def _test_inputs(name: str, params: dict, profile: dict) -> dict:
    """Validate one test's own variables; ``profile`` holds the validated common ones and the spec."""
    if name in _sweeps.SWEEP_TESTS:
        return dict(_sweeps.inputs(name, params, profile["profile"], profile), wipc=False)
    if name in PTS2_TESTS:
        return _pts2.inputs(name, params, profile["profile"], profile)
    chosen = profile["spec"]
    if name == "iops":
        mixes = parse_mixes("pts_run_iops_mixes", params.get("pts_run_iops_mixes", list(IOPS_MIXES)))
        sizes = parse_block_sizes("pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes", list(IOPS_BLOCK_SIZES)))
        if params.get("pts_run_iops_dvs") is None:
            # The spec's tracking variables: a matrix without one of them is the matrix variable's mistake.
            for dv in _pts2.SPEC_DEFAULTS[chosen]["iops_dvs"]:
                name = f"{dv['bs']} {dv['mix']}/{100 - dv['mix']}"
                what = "the IOPS DV is 4k 0/100" if chosen == "1.1" else \
                    f"PTS {chosen}'s IOPS tracking variable {name} needs it (or set pts_run_iops_dvs)"
                if dv["mix"] not in mixes:
                    raise _fail("pts_run_iops_mixes", mixes, f"must include {dv['mix']}"
                                f"{' (100 % write)' if dv['mix'] == 0 else ''}: {what}")
                if parse_block_size(dv["bs"]) not in sizes:
                    raise _fail("pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes"),
                                f"must include {dv['bs']}: {what}")
        dvs = _pts2.iops_dvs(_pts2.spec_value(params, chosen, "iops_dvs"), mixes, sizes)
        return {"mixes": mixes, "block_sizes": sizes, "dv": dict(dvs[0]), "dvs": dvs, "wipc": True,
                "numjobs": profile["numjobs"], "iodepth": profile["iodepth"]}
    if name == "throughput":
        sizes = parse_block_sizes("pts_run_throughput_block_sizes",
                                  _pts2.spec_value(params, chosen, "throughput_block_sizes"))
        return dict(_pts2.throughput_wipc(params, chosen, profile["profile"]), mixes=[100, 0], block_sizes=sizes,
                    wipc=False,
                    numjobs=int(_positive("pts_run_throughput_numjobs", params.get("pts_run_throughput_numjobs", 1), int)),
                    iodepth=int(_positive("pts_run_throughput_iodepth", params.get("pts_run_throughput_iodepth", 32), int)))
    if name == "latency":
        mixes = parse_mixes("pts_run_latency_mixes", params.get("pts_run_latency_mixes", list(LATENCY_MIXES)))
        sizes = parse_block_sizes("pts_run_latency_block_sizes",
                                  params.get("pts_run_latency_block_sizes", list(LATENCY_BLOCK_SIZES)))
        if LATENCY_DV["mix"] not in mixes:
            raise _fail("pts_run_latency_mixes", mixes, "must include 0: the latency DV is 4k 0/100 mean latency")
        if LATENCY_DV["bs"] not in sizes:
            raise _fail("pts_run_latency_block_sizes", params.get("pts_run_latency_block_sizes"),
                        "must include 4k: the latency DV is 4k 0/100 mean latency")
        # The PTS latency test runs one thread at queue depth 1; not a variable.
        return {"mixes": mixes, "block_sizes": sizes, "dv": dict(LATENCY_DV), "wipc": True, "numjobs": 1, "iodepth": 1}
    return {
        "mixes": [0], "block_sizes": [WSAT_BLOCK_SIZE], "wipc": False,
        "numjobs": profile["numjobs"], "iodepth": profile["iodepth"],
        "round_seconds": _seconds("pts_run_wsat_round_seconds", params.get("pts_run_wsat_round_seconds", 60)),
        "capacity_multiple": _positive("pts_run_wsat_capacity_multiple",
                                       params.get("pts_run_wsat_capacity_multiple", 4), float),
        "max_hours": _positive("pts_run_wsat_max_hours", params.get("pts_run_wsat_max_hours", 24), float),
        "latency_plots": _boolean("pts_run_wsat_latency_plots", _pts2.spec_value(params, chosen, "wsat_latency_plots")),
    }


def build_plan(params: dict, devices: list[dict] | None = None) -> dict:
    """Validate every run input together and return the plan; raise PlanError naming the variable.

    ``params`` uses the role variable names as keys so that errors name what the operator typed.
    ``devices`` (optional) are identified drives with ``key``, ``size_bytes`` and ``logical_block_size``.
    """
    tests = params.get("pts_run_tests")
    if not isinstance(tests, (list, tuple)) or not tests:
        raise _fail("pts_run_tests", tests, f"must be a non-empty list of {', '.join(TESTS)}")
    for test in tests:
        if test not in TESTS:
            raise _fail("pts_run_tests", test, f"unknown test; known: {', '.join(TESTS)}")
    profile_name = params.get("pts_run_profile", "standard")
    if profile_name not in PROFILES:
        raise _fail("pts_run_profile", profile_name, f"unknown profile; known: {', '.join(PROFILES)}")
    chosen = _pts2.spec("1.1" if params.get("pts_run_spec") is None else params["pts_run_spec"])

    round_seconds = _seconds("pts_run_round_seconds", params.get("pts_run_round_seconds"))
    max_rounds = int(_positive("pts_run_max_rounds", params.get("pts_run_max_rounds"), int))
    window = int(_positive("pts_run_window", params.get("pts_run_window"), int))
    numjobs = int(_positive("pts_run_numjobs", _pts2.spec_value(params, chosen, "numjobs"), int))
    iodepth = int(_positive("pts_run_iodepth", _pts2.spec_value(params, chosen, "iodepth"), int))
    data_pct = _positive("pts_run_max_data_excursion_pct", params.get("pts_run_max_data_excursion_pct"), float)
    slope_pct = _positive("pts_run_max_slope_excursion_pct", params.get("pts_run_max_slope_excursion_pct"), float)
    for variable, value in (("pts_run_max_data_excursion_pct", data_pct), ("pts_run_max_slope_excursion_pct", slope_pct)):
        if value > 100:
            raise _fail(variable, value, "a percentage of the window average cannot exceed 100")
    try:
        _steady_state.check_limits(window, max_rounds, data_pct, slope_pct)
    except ValueError as exc:
        raise _fail("pts_run_window", window, str(exc)) from exc
    ioengine = params.get("pts_run_ioengine", "libaio")
    if not isinstance(ioengine, str) or not _IOENGINE_RE.fullmatch(ioengine):
        raise _fail("pts_run_ioengine", ioengine, "must be a fio ioengine name such as libaio or io_uring")
    given_wipc_bs = params.get("pts_precondition_block_size", "128k")
    try:
        # What the preconditioning's job file gets: the parsed size, not the text as given.
        wipc_bs = block_size_label(parse_block_size(given_wipc_bs))
    except ValueError as exc:
        raise _fail("pts_precondition_block_size", given_wipc_bs, str(exc)) from exc
    wipc_multiple = int(_positive(
        "pts_precondition_capacity_multiple", params.get("pts_precondition_capacity_multiple", 2), int))
    settings = step_settings(params)
    timeout = params.get("pts_run_round_timeout_s", 0)
    timeout = int(_positive("pts_run_round_timeout_s", timeout, int)) if timeout not in (0, "0", None) else 0

    common = {"numjobs": numjobs, "iodepth": iodepth, "round_seconds": round_seconds, "profile": profile_name,
              "spec": chosen}
    every = {}
    for name in TESTS:
        # Every test's variables are checked, selected or not: a typo is a mistake either way.
        inputs = _test_inputs(name, params, common)
        inputs.update(name=name, title=TITLES[name])
        inputs.setdefault("round_seconds", round_seconds)
        inputs.setdefault("purge", "segment" if name == "throughput" else "test")
        inputs["spec"] = chosen
        inputs.setdefault("stop", "written" if name == "wsat" else "steady")
        every[name] = inputs
        if name == "throughput":
            common["throughput_iodepth"] = inputs["iodepth"]
    plan_tests = [every[name] for name in TESTS if name in tests]
    requested_mode = params.get("pts_run_drive_mode", "auto")
    if requested_mode not in _sweeps.DRIVE_MODES:
        raise _fail("pts_run_drive_mode", requested_mode, f"unknown drive mode; known: {', '.join(_sweeps.DRIVE_MODES)}")

    drives = []
    for device in devices or []:
        mode, why = _sweeps.drive_mode(requested_mode, device)
        names, skipped = _sweeps.drive_tests([t for t in TESTS if t in tests], mode)
        chosen_tests = [every[name] for name in TESTS if name in names]
        _fits(device, chosen_tests, params, given_wipc_bs)
        drive = _drive_plan(device, chosen_tests, max_rounds, window, wipc_multiple, timeout)
        # A selected test with nothing left to run on this drive stays in its plan, so its verdict is INCOMPLETE.
        skipped += [f"{t['test']} not run: {'; '.join(t['notes'])}" for t in drive["tests"] if not t["segments"]]
        for test in drive["tests"]:
            test["notes"] = test["notes"] + skipped
        drive.update(mode=mode, mode_reason=why, skipped=skipped)
        drives.append(drive)
    return {
        "profile": profile_name,
        "spec": chosen,
        "spec_name": _pts2.SPEC_NAMES[chosen],
        "variables": measurement_variables(params, [t["name"] for t in plan_tests], every, dict(
            pts_run_spec=chosen,
            pts_run_profile=profile_name, pts_run_round_seconds=round_seconds, pts_run_max_rounds=max_rounds,
            pts_run_window=window, pts_run_numjobs=numjobs, pts_run_iodepth=iodepth, pts_run_ioengine=ioengine,
            pts_run_max_data_excursion_pct=data_pct, pts_run_max_slope_excursion_pct=slope_pct,
            pts_run_rate_iops=settings["rate_iops"], pts_run_purge_method=settings["purge_method"],
            pts_run_write_cache=settings["write_cache"], pts_run_drive_mode=requested_mode,
            pts_precondition_block_size=parse_block_size(wipc_bs), pts_precondition_capacity_multiple=wipc_multiple,
            pts_precondition_iodepth=settings["wipc_iodepth"])),
        "tests": plan_tests,
        "round_seconds": round_seconds,
        "max_rounds": max_rounds,
        "window": window,
        "numjobs": numjobs,
        "iodepth": iodepth,
        "ioengine": ioengine,
        "max_data_excursion_pct": data_pct,
        "max_slope_excursion_pct": slope_pct,
        "wipc": {"block_size": wipc_bs, "capacity_multiple": wipc_multiple},
        "settings": dict(settings, ioengine=ioengine, wipc_block_size=wipc_bs, wipc_capacity_multiple=wipc_multiple),
        "drives": drives,
        "estimate_note": (
            f"rounds x combinations x (seconds + {JOB_SWITCH_S} s per job); WIPC at an assumed "
            f"{ASSUMED_WIPC_BYTES_PER_S / 1e6:.0f} MB/s; WSAT at an assumed {ASSUMED_WSAT_BYTES_PER_S / 1e6:.0f} MB/s"
        ),
    }


# Each test's block sizes (a field of its validated inputs) by the variable that sets them.
_SIZE_FIELDS = {
    "iops": (("pts_run_iops_block_sizes", "block_sizes"),),
    "throughput": (("pts_run_throughput_block_sizes", "block_sizes"),
                   ("pts_run_throughput_wipc_block_size", "wipc_block_size")),
    "latency": (("pts_run_latency_block_sizes", "block_sizes"),),
    "xsr": (("pts_run_xsr_sequential_block_size", "sequential_block_size"),
            ("pts_run_xsr_random_block_size", "random_block_size")),
    "cbw": (("pts_run_cbw_bssplit", "bssplit_sizes"),),
    "dirth": (("pts_run_dirth_block_size", "block_sizes"),),
    "rw_sweep": (("pts_run_sweep_block_sizes", "block_sizes"),),
    "mixed_sweep": (("pts_run_mixed_block_size", "block_sizes"),),
    "hdd_iops": (("pts_run_hdd_iops_block_sizes", "block_sizes"),),
    "hdd_throughput": (("pts_run_hdd_throughput_block_sizes", "block_sizes"),),
}


def _fits(device: dict, tests: list[dict], params: dict, wipc_bs: object) -> None:
    """Refuse, before any write, a block size larger than the part of the drive fio gives one job: fio refuses the job
    ("size too small, must not be less than minimum block size") only once the drive has been purged. The part is the
    whole drive, a throughput stream's slice of it, or an HDD test's smallest LBA zone. (A size below or not a multiple
    of the logical sector size is dropped from the test with a note instead, see drop_small.)"""
    capacity = int(device.get("size_bytes") or 0)
    if capacity <= 0:
        return
    checks = []  # (variable, block size, bytes fio has for it, what those are)
    if any(test["wipc"] for test in tests):
        checks.append(("pts_precondition_block_size", parse_block_size(wipc_bs), capacity, "the drive"))
    for test in tests:
        part, what = capacity, "the drive"
        if test["name"] == "throughput" and test["numjobs"] > 1:
            part, what = capacity // test["numjobs"], f"each of its {test['numjobs']} streams' slice of the drive"
        elif test["name"] in _sweeps.HDD:
            try:
                part, what = min(z["size"] for z in _sweeps.zones(capacity, test["zones"])), "the smallest LBA zone"
            except ValueError:
                continue  # a drive too small for its zones: _sweeps.segments names it
        for variable, field in _SIZE_FIELDS.get(test["name"], ()):
            value = test.get(field)
            checks += [(variable, size, part, what) for size in (value if isinstance(value, list) else [value])
                       if isinstance(size, int)]
    for variable, size, part, what in checks:
        if size > part:
            given = wipc_bs if variable == "pts_precondition_block_size" else params.get(variable)
            if isinstance(given, (list, tuple)):
                given = next((v for v in given if _size_or_none(v) == size), None)
            raise _fail(variable, block_size_label(size) if given is None else given,
                        f"its block size {block_size_label(size)} ({size:,} bytes) is larger than {what} "
                        f"({part:,} bytes, drive {device.get('key')}): fio cannot run it; give a smaller one")


def _size_or_none(value: object) -> int | None:
    try:
        return parse_block_size(value)
    except ValueError:
        return None


def _limit(kind: str, segment: dict, test: dict, max_rounds: int) -> int:
    """The most rounds a segment's stop rule can let run: the until loop's bound (the rule itself stops it)."""
    if kind == "steady":
        return max_rounds
    if kind == "samples":
        # One fio run whose status dumps cut it into its samples: about ``samples``, one more at most.
        return int(segment["samples"]) + 1
    if kind == "written":
        return int(math.ceil(float(test["max_hours"]) * 3600 / max(float(test["round_seconds"]), 0.01))) + 1
    return len(segment.get("rounds") or [])


def _drive_plan(device: dict, plan_tests: list[dict], max_rounds: int, window: int, wipc_multiple: int,
                timeout: int = 0) -> dict:
    lbs = int(device.get("logical_block_size", 512))
    capacity = float(device.get("size_bytes", 0))
    per_test = []
    for test in plan_tests:
        sweep = test["stop"] in ("sweep", "demand")
        try:
            if sweep:
                segments, notes = _sweeps.segments(test, lbs, int(capacity))
            elif test["stop"] == "phases":
                segments, notes = _pts2_segments.segments(test, lbs)
            else:
                segments, notes = _segments(test, lbs)
        except ValueError as exc:
            raise _fail("pts_devices", device.get("key"), str(exc)) from exc
        for segment in segments:
            kind = segment.get("stop") or test["stop"]
            segment["stop"] = kind
            rounds = segment.get("rounds") or [segment]
            for rnd in rounds:
                rnd["round_s"] = round_seconds(rnd["combinations"], test["round_seconds"])
            segment["round_s"] = max(r["round_s"] for r in rounds)
            segment["sweep_s"] = sum(r["round_s"] for r in rounds)
            segment["round_limit"] = _limit(kind, segment, test, max_rounds)
            # Twice the plan plus start-up, so only a hung drive reaches it, unless the operator sets one.
            segment["timeout_s"] = timeout or int(segment["round_s"] * 2 + 300)
        wipc_s = wipc_multiple * capacity / ASSUMED_WIPC_BYTES_PER_S if test["wipc"] else 0.0
        if test.get("segment_wipc"):
            wipc_s = wipc_multiple * capacity / ASSUMED_WIPC_BYTES_PER_S * len(segments)
        precondition = test.get("precondition")
        if precondition:
            wipc_s = precondition["seconds"] * (len(segments) if test["purge"] == "segment" else 1)
        entry = {
            "test": test["name"], "title": test["title"], "wipc": test["wipc"], "precondition": precondition,
            "segment_wipc": bool(test.get("segment_wipc")), "spec": test.get("spec"),
            "purge": test["purge"], "stop": test["stop"],
            "numjobs": test["numjobs"], "iodepth": test["iodepth"], "round_seconds": test["round_seconds"],
            "mixes": test["mixes"], "block_sizes": drop_small(test["block_sizes"], lbs)[0],
            "segments": segments, "notes": notes, "done": False,
            "combinations": sum(len(r["combinations"]) for s in segments for r in s.get("rounds") or [s]),
        }
        if test["name"] == "wsat":
            target = test["capacity_multiple"] * capacity
            max_seconds = test["max_hours"] * 3600
            entry.update(target_bytes=int(target), max_seconds=max_seconds, latency_plots=test["latency_plots"],
                         capacity_multiple=test["capacity_multiple"], max_hours=test["max_hours"])
            entry["min_s"] = min(target / ASSUMED_WSAT_BYTES_PER_S, max_seconds)
            entry["max_s"] = max_seconds
        elif sweep:
            entry["sweep"] = {k: test[k] for k in ("workloads", "queue_depths", "percents", "zones", "steps",
                                                   "tolerance_pct", "misses") if k in test}
            full = sum(s["sweep_s"] for s in segments)
            entry["max_s"] = wipc_s + full
            # A demand ramp may end at the drive's limit, after ``misses`` undelivered steps.
            entry["min_s"] = wipc_s + (sum(s["round_s"] * min(test["misses"], len(s["rounds"])) for s in segments)
                                       if test["stop"] == "demand" else full)
        elif test["stop"] == "phases":
            # The test's own parameters, for what is worked out while it runs (XSR's stream, the operating points).
            entry["parameters"] = {k: v for k, v in test.items() if k not in entry and k != "name"}
            entry["min_s"], entry["max_s"] = wipc_s, wipc_s
            for segment in segments:
                if segment["stop"] == "steady":
                    entry["min_s"] += window * segment["round_s"]
                    entry["max_s"] += max_rounds * segment["round_s"]
                else:
                    entry["min_s"] += segment["sweep_s"]
                    entry["max_s"] += segment["sweep_s"]
        else:
            entry["dv"] = test.get("dv")
            entry["dvs"] = segments[0]["dvs"] if segments and test.get("dvs") else None
            rounds_s = sum(s["round_s"] for s in segments)
            entry["min_s"] = wipc_s + window * rounds_s
            entry["max_s"] = wipc_s + max_rounds * rounds_s
        per_test.append(entry)
    return {
        "key": device.get("key"),
        "tests": per_test,
        "min_s": sum(t["min_s"] for t in per_test),
        "max_s": sum(t["max_s"] for t in per_test),
    }


def dv_value(jobs: list[dict], mix: int, bs: object, metric: str = "iops", job: str | None = None) -> float:
    """The dependent variable of one round, found by (mix, block size) among the round's fio jobs - or by its
    section's name (``job``) where several sections share a mix and block size."""
    if metric not in DV_METRICS:
        raise ValueError(f"unknown DV metric {metric!r}; known: {', '.join(DV_METRICS)}")
    total = (find_named(jobs, job) if job else find_job(jobs, int(mix), parse_block_size(bs)))["total"]
    value = total["lat_ns"]["mean"] if metric == "lat_mean_ns" else total[metric]
    if value is None:
        raise ValueError(f"the {block_size_label(parse_block_size(bs))} {mix}/{100 - int(mix)} run completed no IO")
    return float(value)


def written_bytes(jobs: list[dict]) -> int:
    """Bytes fio wrote in one round (all jobs)."""
    return sum(int(job["write"]["io_bytes"]) for job in jobs)


def wsat_stop(written: int, target: int, elapsed_s: float, max_seconds: float) -> tuple[bool, str]:
    """Write saturation stops once capacity_multiple x capacity is written or max_hours have passed."""
    if written >= target:
        return True, f"{written:,} bytes written, target {target:,} reached"
    if elapsed_s >= max_seconds:
        return True, f"time limit of {max_seconds / 3600:g} h reached with {written:,} of {target:,} bytes written"
    return False, f"{written:,} of {target:,} bytes written ({100.0 * written / target:.1f} %)" if target else "no target"
