# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The validated run plan: every input checked together before any drive is touched, and per drive the tests it runs,
their segments, time and the record every round file keeps of how it was run. The tests themselves are in _tests/.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _pts_versions, _steady_state, _stop_rules, _sweeps
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail as _fail, positive as _positive
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import ioengine as valid_ioengine, queue_depth
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import seconds as _seconds, thread_count
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, drop_small
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._plan_settings import (
    measurement_variables, step_settings)
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry

# fio start-up per process and per job section, measured on the reference machine (docs/docsite/rst/performance.rst).
FIO_START_S = 0.3
JOB_SWITCH_S = 0.4
ASSUMED_WIPC_BYTES_PER_S = 500e6
ASSUMED_WSAT_BYTES_PER_S = _stop_rules.ASSUMED_WSAT_BYTES_PER_S
ESTIMATE_NOTE = (f"rounds x combinations x (seconds + {JOB_SWITCH_S} s per job); WIPC at an assumed "
                 f"{ASSUMED_WIPC_BYTES_PER_S / 1e6:.0f} MB/s; "
                 f"WSAT at an assumed {ASSUMED_WSAT_BYTES_PER_S / 1e6:.0f} MB/s")


def round_seconds(combinations: list[dict], default_s: float) -> float:
    """How long one fio process runs its stonewalled sections: each its own run time (``seconds``, else the test's)
    plus fio's floor per section - a section with a start delay (``start_s``, counted from fio's start) waits for it
    - and fio's start-up."""
    elapsed = 0.0
    for cell in combinations:
        elapsed = max(elapsed, float(cell.get("start_s") or 0.0)) + float(cell.get("seconds") or default_s) + JOB_SWITCH_S
    return elapsed + FIO_START_S


def build_plan(params: dict, devices: list[dict] | None = None) -> dict:
    """Validate every run input together and return the plan; raise PlanError naming the variable.

    ``params`` uses the role variable names as keys so that errors name what the operator typed.
    ``devices`` (optional) are identified drives with ``key``, ``size_bytes`` and ``logical_block_size``.
    """
    tests = _selected_tests(params.get("pts_run_tests"))
    profile_name = params.get("pts_run_profile", "standard")
    if profile_name not in _registry.PROFILES:
        raise _fail("pts_run_profile", profile_name, f"unknown profile; known: {', '.join(_registry.PROFILES)}")
    chosen = _pts_versions.spec("1.1" if params.get("pts_run_spec") is None else params["pts_run_spec"])

    round_seconds = _seconds("pts_run_round_seconds", _registry.common_value(params, profile_name, "round_seconds"))
    max_rounds = int(_positive("pts_run_max_rounds", _registry.common_value(params, profile_name, "max_rounds"), int))
    window = int(_positive("pts_run_window", params.get("pts_run_window"), int))
    numjobs = thread_count("pts_run_numjobs", _pts_versions.spec_value(params, chosen, "numjobs"))
    iodepth = queue_depth("pts_run_iodepth", _pts_versions.spec_value(params, chosen, "iodepth"))
    data_pct = _positive("pts_run_max_data_excursion_pct", params.get("pts_run_max_data_excursion_pct"), float)
    slope_pct = _positive("pts_run_max_slope_excursion_pct", params.get("pts_run_max_slope_excursion_pct"), float)
    for variable, value in (("pts_run_max_data_excursion_pct", data_pct), ("pts_run_max_slope_excursion_pct", slope_pct)):
        if value > 100:
            raise _fail(variable, value, "a percentage of the window average cannot exceed 100")
    try:
        _steady_state.check_limits(window, max_rounds, data_pct, slope_pct)
    except ValueError as exc:
        raise _fail("pts_run_window", window, str(exc)) from exc
    ioengine = valid_ioengine("pts_run_ioengine", params.get("pts_run_ioengine", "libaio"))
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
    every = _every_test(params, common)
    plan_tests = [every[name] for name in _registry.NAMES if name in tests]
    requested_mode = params.get("pts_run_drive_mode", "auto")
    if requested_mode not in _sweeps.DRIVE_MODES:
        raise _fail("pts_run_drive_mode", requested_mode, f"unknown drive mode; known: {', '.join(_sweeps.DRIVE_MODES)}")

    drives = [_planned_drive(device, tests, every, params, requested_mode, given_wipc_bs,
                             (max_rounds, window, wipc_multiple, timeout)) for device in devices or []]
    plan = {
        "profile": profile_name,
        "spec": chosen,
        "spec_name": _pts_versions.SPEC_NAMES[chosen],
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
        "estimate_note": ESTIMATE_NOTE,
    }
    for drive in drives:
        for test in drive["tests"]:
            test["round_settings"] = round_settings(plan, drive, test)
    return plan


def _selected_tests(tests) -> list:
    """``pts_run_tests`` checked: a non-empty list of known tests."""
    if not isinstance(tests, (list, tuple)) or not tests:
        raise _fail("pts_run_tests", tests, f"must be a non-empty list of {', '.join(_registry.NAMES)}")
    for test in tests:
        if test not in _registry.NAMES:
            raise _fail("pts_run_tests", test, f"unknown test; known: {', '.join(_registry.NAMES)}")
    return tests


def _every_test(params: dict, common: dict) -> dict:
    """Every test's inputs by name, checked whether selected or not (a typo is a mistake either way)."""
    every = {}
    for test in _registry.TESTS:
        inputs = test.inputs(params, common)
        inputs.setdefault("wipc", False)
        inputs.update(name=test.name, title=test.title)
        inputs.setdefault("round_seconds", common["round_seconds"])
        inputs.setdefault("purge", test.purge)
        inputs["spec"] = common["spec"]
        inputs.setdefault("stop", test.stop)
        every[test.name] = inputs
        common.update({key: inputs[field] for key, field in test.gives.items()})
    return every


def _planned_drive(device: dict, tests: list, every: dict, params: dict, requested_mode: str, given_wipc_bs,
                   limits: tuple) -> dict:
    """One drive's plan: its mode, the tests it runs in it, each checked against the drive; ``limits`` is
    (max_rounds, window, wipc_multiple, timeout)."""
    mode, why = _sweeps.drive_mode(requested_mode, device)
    selected = [t for t in _registry.NAMES if t in tests]
    names, skipped = _registry.drive_tests(selected, mode)
    why = _changed_tests(device, requested_mode, mode, why, selected, names)
    chosen_tests = [every[name] for name in _registry.NAMES if name in names]
    _fits(device, chosen_tests, params, given_wipc_bs)
    drive = _drive_plan(device, chosen_tests, *limits)
    # A selected test with nothing left to run on this drive stays in its plan, so its verdict is INCOMPLETE.
    skipped += [f"{t['test']} not run: {'; '.join(t['notes'])}" for t in drive["tests"] if not t["segments"]]
    for test in drive["tests"]:
        test["notes"] = test["notes"] + skipped
    drive.update(mode=mode, mode_reason=why, skipped=skipped)
    return drive


def round_settings(plan: dict, drive: dict, test: dict) -> dict:
    """What every round file of one test on one drive records about how it was run."""
    return {
        "profile": plan["profile"], "round_seconds": test["round_seconds"], "max_rounds": plan["max_rounds"],
        "window": plan["window"], "max_data_excursion_pct": plan["max_data_excursion_pct"],
        "max_slope_excursion_pct": plan["max_slope_excursion_pct"], "numjobs": test["numjobs"],
        "iodepth": test["iodepth"], "ioengine": plan["settings"]["ioengine"], "mixes": test["mixes"],
        "block_sizes": test["block_sizes"], "dv": test.get("dv"), "dvs": test.get("dvs"), "spec": plan["spec"],
        "segment_wipc": test.get("segment_wipc", False), "parameters": test.get("parameters"), "notes": test["notes"],
        "wipc": plan["wipc"] if test["wipc"] else None, "purge": test["purge"], "precondition": test.get("precondition"),
        "sweep": test.get("sweep"), "mode": drive.get("mode") or "ssd", "mode_reason": drive.get("mode_reason"),
        "wsat": _stop_rules.of(test["stop"]).round_settings(test),
    }


def _changed_tests(device: dict, requested: str, mode: str, why: str, selected: list[str], names: list[str]) -> str:
    """HDD mode changes the tests selected (iops runs as hdd_iops; SSD-only tests do not run): only when the operator
    asked for it (the drive entry's ``mode: hdd``, ``pts_drive_mode: hdd``), and then the plan line says so; drive mode
    auto does not change a selection on its own - such a drive is refused, with what to set. Returns the mode's
    reason, with the tests that run in place of others."""
    changed = [name for name in selected if name not in names]
    if mode != "hdd" or not changed:
        return why
    instead = [(name, _registry.BY_NAME[name].hdd_instead) for name in changed if _registry.BY_NAME[name].hdd_instead]
    dropped = [name for name in changed if not _registry.BY_NAME[name].hdd_instead]
    said = ", ".join(f"{name} as {other}" for name, other in instead)
    if not _sweeps.explicit_mode(requested, device):
        effect = " and ".join(part for part in (said and f"run {said}", dropped and f"not run {', '.join(dropped)}")
                              if part)
        raise _fail("pts_run_drive_mode", requested,
                    f"drive {device.get('key')} reports itself rotational, so drive mode auto would test it as a disk "
                    f"(HDD mode) and change the tests selected: it would {effect}; auto does not change a "
                    f"selection on its own: set mode: hdd on the drive's pts_devices entry (or pts_drive_mode: hdd) "
                    f"to test it as a disk, or mode: ssd to run {', '.join(selected)} as selected")
    return f"{why} (runs {said})" if said else why


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
        space = _registry.BY_NAME[test["name"]].space(test, capacity)
        if space is None:
            continue
        part, what = space
        for variable, field in _registry.BY_NAME[test["name"]].size_fields:
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


def _drive_plan(device: dict, plan_tests: list[dict], max_rounds: int, window: int, wipc_multiple: int,
                timeout: int = 0) -> dict:
    lbs = int(device.get("logical_block_size", 512))
    capacity = float(device.get("size_bytes", 0))
    per_test = []
    for test in plan_tests:
        try:
            segments, notes = _registry.BY_NAME[test["name"]].segments(test, lbs, int(capacity))
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
            segment["round_limit"] = _stop_rules.of(kind).round_limit(segment, test, max_rounds)
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
        _stop_rules.of(test["stop"]).plan_entry(entry, test, segments, wipc_s, capacity, window, max_rounds)
        per_test.append(entry)
    return {
        "key": device.get("key"),
        "tests": per_test,
        "min_s": sum(t["min_s"] for t in per_test),
        "max_s": sum(t["max_s"] for t in per_test),
    }
