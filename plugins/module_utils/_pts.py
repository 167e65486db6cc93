# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The SNIA PTS tests as data: matrices, dependent variables, and input validation for a run plan."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.module_utils import _steady_state
from ansible_collections.fleetqual.pts.plugins.module_utils._fio import find_job
from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import block_size_label, parse_block_size

# SNIA SSS PTS Enterprise 1.1, IOPS test: R/W mixes x block sizes per round, 4k random write IOPS as DV.
IOPS_MIXES = (100, 95, 65, 50, 35, 5, 0)
IOPS_BLOCK_SIZES = ("1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512")
IOPS_DV = {"mix": 0, "bs": 4096, "metric": "iops"}

KNOWN_TESTS = ("iops",)
PROFILES = ("standard", "quick")
# fio's per-process and per-job start-up, measured on the reference machine (docs/performance.md).
FIO_START_S = 0.3
JOB_SWITCH_S = 0.3
ASSUMED_WIPC_BYTES_PER_S = 500e6


_IOENGINE_RE = re.compile(r"^[a-z0-9_]+$")


class PlanError(ValueError):
    """An input that would make the run meaningless; the message names the variable and value."""


def _fail(variable: str, value: object, why: str) -> PlanError:
    return PlanError(f"{variable}={value!r}: {why}")


def parse_mixes(variable: str, mixes: object) -> list[int]:
    if not isinstance(mixes, (list, tuple)) or not mixes:
        raise _fail(variable, mixes, "must be a non-empty list of read percentages (0-100)")
    parsed = []
    for mix in mixes:
        if isinstance(mix, bool) or not isinstance(mix, int) or not 0 <= mix <= 100:
            raise _fail(variable, mix, "a R/W mix is the read percentage, an integer from 0 to 100")
        if mix in parsed:
            raise _fail(variable, mix, "listed twice")
        parsed.append(mix)
    return parsed


def parse_block_sizes(variable: str, sizes: object) -> list[int]:
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise _fail(variable, sizes, "must be a non-empty list of block sizes such as 4k")
    parsed = []
    for size in sizes:
        try:
            value = parse_block_size(size)
        except ValueError as exc:
            raise _fail(variable, size, str(exc)) from exc
        if value in parsed:
            raise _fail(variable, size, "listed twice")
        parsed.append(value)
    return parsed


def iops_matrix(mixes: list[int], block_sizes: list[int], logical_block_size: int = 512) -> dict:
    """The IOPS round matrix for a drive; block sizes below its logical sector size are dropped."""
    kept = [bs for bs in block_sizes if bs >= logical_block_size and bs % logical_block_size == 0]
    dropped = [bs for bs in block_sizes if bs not in kept]
    notes = [
        f"{block_size_label(bs)} dropped: the drive's logical block size is {logical_block_size} bytes"
        for bs in dropped
    ]
    return {
        "combinations": [{"mix": mix, "bs": bs} for mix in mixes for bs in kept],
        "mixes": list(mixes),
        "block_sizes": kept,
        "dropped_block_sizes": dropped,
        "notes": notes,
    }


def _positive(variable: str, value: object, kind: type) -> float:
    if isinstance(value, str):
        # Extra variables given as -e name=value arrive as strings.
        try:
            value = float(value) if "." in value else int(value)
        except ValueError as exc:
            raise _fail(variable, value, "must be a positive number") from exc
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _fail(variable, value, "must be a positive number")
    if kind is int and int(value) != value:
        raise _fail(variable, value, "must be a whole number")
    return kind(value)


def build_plan(params: dict, devices: list[dict] | None = None) -> dict:
    """Validate every run input together and return the plan; raise PlanError naming the variable.

    ``params`` uses the role variable names as keys so that errors name what the operator typed.
    ``devices`` (optional) are identified drives with ``key``, ``size_bytes`` and ``logical_block_size``.
    """
    tests = params.get("pts_run_tests")
    if not isinstance(tests, (list, tuple)) or not tests:
        raise _fail("pts_run_tests", tests, f"must be a non-empty list of {', '.join(KNOWN_TESTS)}")
    for test in tests:
        if test not in KNOWN_TESTS:
            raise _fail("pts_run_tests", test, f"unknown test; known: {', '.join(KNOWN_TESTS)}")
    profile = params.get("pts_run_profile", "standard")
    if profile not in PROFILES:
        raise _fail("pts_run_profile", profile, f"unknown profile; known: {', '.join(PROFILES)}")

    round_seconds = _positive("pts_run_round_seconds", params.get("pts_run_round_seconds"), float)
    max_rounds = int(_positive("pts_run_max_rounds", params.get("pts_run_max_rounds"), int))
    window = int(_positive("pts_run_window", params.get("pts_run_window"), int))
    numjobs = int(_positive("pts_run_numjobs", params.get("pts_run_numjobs"), int))
    iodepth = int(_positive("pts_run_iodepth", params.get("pts_run_iodepth"), int))
    data_pct = _positive(
        "pts_run_max_data_excursion_pct", params.get("pts_run_max_data_excursion_pct"), float
    )
    slope_pct = _positive(
        "pts_run_max_slope_excursion_pct", params.get("pts_run_max_slope_excursion_pct"), float
    )
    for variable, value in (("pts_run_max_data_excursion_pct", data_pct), ("pts_run_max_slope_excursion_pct", slope_pct)):
        if value > 100:
            raise _fail(variable, value, "a percentage of the window average cannot exceed 100")
    try:
        _steady_state.check_limits(window, max_rounds, data_pct, slope_pct)
    except ValueError as exc:
        raise _fail("pts_run_window", window, str(exc)) from exc

    ioengine = params.get("pts_run_ioengine", "libaio")
    if not isinstance(ioengine, str) or not _IOENGINE_RE.match(ioengine):
        raise _fail("pts_run_ioengine", ioengine, "must be a fio ioengine name such as libaio or io_uring")
    wipc_bs = params.get("pts_precondition_block_size", "128k")
    try:
        parse_block_size(wipc_bs)
    except ValueError as exc:
        raise _fail("pts_precondition_block_size", wipc_bs, str(exc)) from exc
    wipc_multiple = int(_positive(
        "pts_precondition_capacity_multiple", params.get("pts_precondition_capacity_multiple", 2), int))

    plan_tests = []
    if "iops" in tests:
        mixes = parse_mixes("pts_run_iops_mixes", params.get("pts_run_iops_mixes"))
        sizes = parse_block_sizes("pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes"))
        if IOPS_DV["mix"] not in mixes:
            raise _fail("pts_run_iops_mixes", mixes, "must include 0 (100 % write): the IOPS DV is 4k 0/100")
        if IOPS_DV["bs"] not in sizes:
            raise _fail(
                "pts_run_iops_block_sizes", params.get("pts_run_iops_block_sizes"),
                "must include 4k: the IOPS DV is 4k 0/100",
            )
        plan_tests.append({"name": "iops", "mixes": mixes, "block_sizes": sizes, "dv": dict(IOPS_DV)})

    drives = []
    for device in devices or []:
        per_test = []
        for test in plan_tests:
            matrix = iops_matrix(test["mixes"], test["block_sizes"], int(device.get("logical_block_size", 512)))
            if test["dv"]["bs"] not in matrix["block_sizes"]:
                raise _fail("pts_devices", device.get("key"),
                            f"the DV block size {block_size_label(test['dv']['bs'])} is below the drive's "
                            f"logical block size {device.get('logical_block_size')}: the {test['name']} test cannot run")
            round_s = len(matrix["combinations"]) * (round_seconds + JOB_SWITCH_S) + FIO_START_S
            wipc_s = wipc_multiple * float(device.get("size_bytes", 0)) / ASSUMED_WIPC_BYTES_PER_S
            per_test.append({
                "test": test["name"],
                "mixes": matrix["mixes"],
                "block_sizes": matrix["block_sizes"],
                "dv": test["dv"],
                "combinations": len(matrix["combinations"]),
                "notes": matrix["notes"],
                "round_s": round_s,
                "min_s": wipc_s + window * round_s,
                "max_s": wipc_s + max_rounds * round_s,
            })
        drives.append({
            "key": device.get("key"),
            "tests": per_test,
            "min_s": sum(t["min_s"] for t in per_test),
            "max_s": sum(t["max_s"] for t in per_test),
        })

    return {
        "profile": profile,
        "tests": plan_tests,
        "round_seconds": round_seconds,
        "max_rounds": max_rounds,
        "window": window,
        "numjobs": numjobs,
        "iodepth": iodepth,
        "ioengine": ioengine,
        "wipc": {"block_size": wipc_bs, "capacity_multiple": wipc_multiple},
        "max_data_excursion_pct": data_pct,
        "max_slope_excursion_pct": slope_pct,
        "drives": drives,
        "estimate_note": (
            f"rounds x combinations x ({round_seconds:g} s + {JOB_SWITCH_S} s start-up);"
            f" WIPC at an assumed {ASSUMED_WIPC_BYTES_PER_S / 1e6:.0f} MB/s"
        ),
    }


DV_METRICS = ("iops", "bw_bytes", "lat_mean_ns")


def dv_value(jobs: list[dict], mix: int, bs: object, metric: str = "iops") -> float:
    """The dependent variable of one round, found by (mix, block size) among the round's fio jobs."""
    if metric not in DV_METRICS:
        raise ValueError(f"unknown DV metric {metric!r}; known: {', '.join(DV_METRICS)}")
    total = find_job(jobs, int(mix), parse_block_size(bs))["total"]
    value = total["lat_ns"]["mean"] if metric == "lat_mean_ns" else total[metric]
    if value is None:
        raise ValueError(f"the {block_size_label(parse_block_size(bs))} {mix}/{100 - int(mix)} run completed no IO")
    return float(value)
