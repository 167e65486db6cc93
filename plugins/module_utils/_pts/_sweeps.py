# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Sweep tests as data: the Myce/OakGate characterisation tests and TKperf's HDD tests.

A sweep test has no steady state. Each segment (one purge-to-end unit) is a list of rounds, each round
one row of the sweep (a queue depth, an offered IOPS step, an LBA zone) with one fio job section per
cell. Sources: ../shared/reference/myce-oakgate-methodology.md (sections 5.1-5.4) and TKperf's HDD mode.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, parse_block_sizes, parse_mixes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import positive, positive_ints
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import seconds as run_seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import drop_small

CHARACTERISATION = ("latency_demand", "rw_sweep", "mixed_sweep", "entropy_sweep")
HDD = ("hdd_iops", "hdd_throughput")
SWEEP_TESTS = CHARACTERISATION + HDD
TITLES = {
    "latency_demand": "Latency vs Demand",
    "rw_sweep": "Reads and Writes Sweep",
    "mixed_sweep": "Mixed Reads/Writes Sweep",
    "entropy_sweep": "Entropy Sweep",
    "hdd_iops": "HDD IOPS by Zone",
    "hdd_throughput": "HDD Throughput by Zone",
}
# The SSD tests an HDD-mode drive runs instead, by the name the operator selects.
HDD_EQUIVALENT = {"iops": "hdd_iops", "throughput": "hdd_throughput"}
DRIVE_MODES = ("auto", "ssd", "hdd")
WORKLOADS = {"randread": 100, "randwrite": 0, "read": 100, "write": 0}
DEMAND_WORKLOADS = ("randread", "randwrite")
_QDS = [4, 8, 16, 32, 64, 128]

# Variable (without pts_run_) -> value per profile. "standard" is the methodology as published; "quick" is
# small enough for a loop device in CI. An operator's value always wins.
PROFILE_DEFAULTS = {
    "standard": {
        "sweep_precondition_seconds": 7200,
        "demand_workloads": list(DEMAND_WORKLOADS),
        "demand_iodepth": 32,
        "demand_start_iops": 1000,
        "demand_step_iops": 1000,
        "demand_max_iops": 120000,
        "demand_seconds": 120,
        "demand_tolerance_pct": 5,
        "demand_misses": 2,
        "sweep_seconds": 300,
        "sweep_workloads": list(WORKLOADS),
        "sweep_queue_depths": _QDS,
        "sweep_block_sizes": ["512", "1k", "2k", "4k", "8k", "16k", "32k"],
        "mixed_mixes": [100, 99, 95, 90, 70, 50, 0],
        "mixed_queue_depths": _QDS,
        "mixed_block_size": "4k",
        "entropy_percents": list(range(5, 101, 5)),
        "entropy_mixes": [0, 70],
        "entropy_queue_depths": _QDS,
        "hdd_zones": 10,
        "hdd_iops_mixes": [100, 50, 0],
        "hdd_iops_block_sizes": ["64k", "16k", "4k"],
        "hdd_throughput_block_sizes": ["1024k", "4k"],
    },
    "quick": {
        "sweep_precondition_seconds": 3,
        "demand_start_iops": 25000,
        "demand_step_iops": 25000,
        "demand_max_iops": 1000000,
        "demand_seconds": 1,
        "sweep_seconds": 0.5,
        "sweep_queue_depths": [4, 32],
        "sweep_block_sizes": ["4k", "32k"],
        "mixed_queue_depths": [4, 32],
        "entropy_percents": [5, 50, 100],
        "entropy_queue_depths": [4, 32],
        "hdd_zones": 4,
    },
}
# The preconditioning every characterisation test starts from (methodology: QD 32, 0 fill, 4k random writes).
PRECONDITION_BLOCK_SIZE = 4096
PRECONDITION_IODEPTH = 32
ZONE_ALIGN = 1 << 20


def _value(params: dict, profile: str, key: str):
    value = params.get("pts_run_" + key)
    if value is None:
        value = PROFILE_DEFAULTS.get(profile, {}).get(key, PROFILE_DEFAULTS["standard"].get(key))
        if value is None:
            value = PROFILE_DEFAULTS["standard"][key]
    return value


def effective(params: dict, profile: str, key: str):
    """The value a sweep variable (without pts_run_) takes: the operator's, else the profile's."""
    return _value(params, profile, key)


def _workloads(variable: str, values: object, known: tuple) -> list[str]:
    if not isinstance(values, (list, tuple)) or not values:
        raise fail(variable, values, f"must be a non-empty list of {', '.join(known)}")
    for value in values:
        if value not in known:
            raise fail(variable, value, f"unknown workload; known: {', '.join(known)}")
    if len(set(values)) != len(values):
        raise fail(variable, values, "a workload is listed twice")
    return list(values)


def _precondition(params: dict, profile: str) -> dict:
    seconds = run_seconds("pts_run_sweep_precondition_seconds", _value(params, profile, "sweep_precondition_seconds"))
    return {"kind": "random", "seconds": seconds, "block_size": PRECONDITION_BLOCK_SIZE,
            "iodepth": PRECONDITION_IODEPTH, "data": "zero fill"}


def inputs(name: str, params: dict, profile: str, common: dict) -> dict:
    """Validate one sweep test's own variables; ``common`` holds the validated numjobs, iodepth, round_seconds."""
    def get(key):
        return _value(params, profile, key)

    if name == "latency_demand":
        start = int(positive("pts_run_demand_start_iops", get("demand_start_iops"), int))
        step = int(positive("pts_run_demand_step_iops", get("demand_step_iops"), int))
        top = int(positive("pts_run_demand_max_iops", get("demand_max_iops"), int))
        if top < start:
            raise fail("pts_run_demand_max_iops", top, f"is below pts_run_demand_start_iops={start}")
        steps = list(range(start, top + 1, step))
        if len(steps) > 1000:
            raise fail("pts_run_demand_step_iops", step, f"makes {len(steps)} steps from {start} to {top}; at most 1000")
        tolerance = positive("pts_run_demand_tolerance_pct", get("demand_tolerance_pct"), float)
        if tolerance >= 100:
            raise fail("pts_run_demand_tolerance_pct", tolerance, "must be below 100")
        return {
            "workloads": _workloads("pts_run_demand_workloads", get("demand_workloads"), DEMAND_WORKLOADS),
            "numjobs": 1, "iodepth": int(positive("pts_run_demand_iodepth", get("demand_iodepth"), int)),
            "steps": steps, "tolerance_pct": tolerance,
            "misses": int(positive("pts_run_demand_misses", get("demand_misses"), int)),
            "round_seconds": run_seconds("pts_run_demand_seconds", get("demand_seconds")),
            "precondition": _precondition(params, profile), "purge": "segment", "stop": "demand",
            "block_sizes": [4096], "mixes": [100, 0],
        }
    if name in CHARACTERISATION:
        seconds = run_seconds("pts_run_sweep_seconds", get("sweep_seconds"))
        base = {"numjobs": 1, "round_seconds": seconds, "precondition": _precondition(params, profile),
                "stop": "sweep"}
    if name == "rw_sweep":
        qds = positive_ints("pts_run_sweep_queue_depths", get("sweep_queue_depths"))
        sizes = parse_block_sizes("pts_run_sweep_block_sizes", get("sweep_block_sizes"))
        workloads = _workloads("pts_run_sweep_workloads", get("sweep_workloads"), tuple(WORKLOADS))
        return dict(base, workloads=workloads, queue_depths=qds, block_sizes=sizes, iodepth=max(qds),
                    mixes=sorted({WORKLOADS[w] for w in workloads}, reverse=True), purge="test")
    if name == "mixed_sweep":
        mixes = parse_mixes("pts_run_mixed_mixes", get("mixed_mixes"))
        qds = positive_ints("pts_run_mixed_queue_depths", get("mixed_queue_depths"))
        size = parse_block_sizes("pts_run_mixed_block_size", [get("mixed_block_size")])
        return dict(base, mixes=mixes, queue_depths=qds, block_sizes=size, iodepth=max(qds), purge="test")
    if name == "entropy_sweep":
        percents = positive_ints("pts_run_entropy_percents", get("entropy_percents"), maximum=100)
        mixes = parse_mixes("pts_run_entropy_mixes", get("entropy_mixes"))
        if 100 in mixes:
            raise fail("pts_run_entropy_mixes", mixes, "100 % reads writes no data: entropy cannot show")
        qds = positive_ints("pts_run_entropy_queue_depths", get("entropy_queue_depths"))
        return dict(base, percents=percents, mixes=mixes, queue_depths=qds, block_sizes=[4096], iodepth=max(qds),
                    purge="segment")
    if name in HDD:
        zones = int(positive("pts_run_hdd_zones", get("hdd_zones"), int))
        if zones > 100:
            raise fail("pts_run_hdd_zones", zones, "at most 100 zones (1 % of the LBA range each)")
        if name == "hdd_iops":
            return {"zones": zones, "purge": None, "precondition": None, "stop": "sweep",
                    "mixes": parse_mixes("pts_run_hdd_iops_mixes", get("hdd_iops_mixes")),
                    "block_sizes": parse_block_sizes("pts_run_hdd_iops_block_sizes", get("hdd_iops_block_sizes")),
                    "numjobs": common["numjobs"], "iodepth": common["iodepth"],
                    "round_seconds": common["round_seconds"]}
        return {"zones": zones, "purge": None, "precondition": None, "stop": "sweep", "mixes": [100, 0],
                "block_sizes": parse_block_sizes("pts_run_hdd_throughput_block_sizes",
                                                 get("hdd_throughput_block_sizes")),
                "numjobs": 1, "iodepth": common["throughput_iodepth"], "round_seconds": common["round_seconds"]}
    raise ValueError(f"not a sweep test: {name}")


def drive_mode(requested: object, device: dict) -> tuple[str, str]:
    """ssd or hdd for one drive and why: the drive's own ``mode`` wins over pts_drive_mode; auto follows rotational."""
    own = (device.get("spec") or {}).get("mode")
    own = None if own == "auto" else own
    mode = own or requested or "auto"
    if mode not in DRIVE_MODES:
        variable = "pts_devices[].mode" if own else "pts_run_drive_mode"
        raise fail(variable, mode, f"unknown drive mode; known: {', '.join(DRIVE_MODES)}")
    if mode != "auto":
        return mode, f"{mode.upper()} mode set by {'the drive entry' if own else 'pts_drive_mode'}"
    if device.get("rotational"):
        return "hdd", "HDD mode: the drive reports itself rotational"
    return "ssd", "SSD mode: the drive reports itself non-rotational"


def drive_tests(selected: list[str], mode: str) -> tuple[list[str], list[str]]:
    """The tests one drive runs in its mode, and a note for each selected test it does not run."""
    chosen, notes = [], []
    for name in selected:
        if mode == "hdd" and name in HDD_EQUIVALENT:
            chosen.append(HDD_EQUIVALENT[name])
        elif mode == "hdd" and name not in HDD:
            notes.append(f"{name} not run: an SSD test, and the drive runs in HDD mode")
        elif mode == "ssd" and name in HDD:
            notes.append(f"{name} not run: an HDD test, and the drive runs in SSD mode")
        else:
            chosen.append(name)
    return list(dict.fromkeys(chosen)), notes


def _cell(name: str, rw: str, mix: int, bs: int, **options) -> dict:
    return {"name": name, "rw": rw, "mix": mix, "bs": bs, "options": options}


def _rw(mix: int) -> str:
    return "randread" if mix == 100 else "randwrite" if mix == 0 else "randrw"


def zones(capacity: int, count: int) -> list[dict]:
    """LBA zones from outer (LBA 0) to inner, aligned to 1 MiB; the last zone takes the remainder."""
    usable = capacity // ZONE_ALIGN * ZONE_ALIGN
    if usable < count * ZONE_ALIGN:
        raise ValueError(f"a {capacity}-byte drive is too small for {count} zones of at least 1 MiB")
    edges = [usable * i // count // ZONE_ALIGN * ZONE_ALIGN for i in range(count)] + [usable]
    return [{"zone": i + 1, "offset": edges[i], "size": edges[i + 1] - edges[i],
             "start_pct": 100.0 * edges[i] / usable, "end_pct": 100.0 * edges[i + 1] / usable}
            for i in range(count)]


def segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    """The segments of one sweep test on one drive, each with its rounds (the sweep's rows) and cells."""
    name = test["name"]
    sizes, notes = drop_small(test["block_sizes"], logical_block_size)
    if not sizes:
        return [], notes
    out = []
    if name == "latency_demand":
        for workload in test["workloads"]:
            mix = WORKLOADS[workload]
            rounds = [{"label": f"{offered:,} IOPS offered", "offered_iops": offered,
                       "combinations": [_cell(f"demand-{workload}-{offered}", workload, mix, 4096,
                                              rate_iops=offered)]}
                      for offered in test["steps"]]
            out.append({"name": workload, "rounds": rounds})
    elif name == "rw_sweep":
        for workload in test["workloads"]:
            rounds = [{"label": f"QD {qd}", "iodepth": qd,
                       "combinations": [_cell(f"{workload}-qd{qd}-{bs}", workload, WORKLOADS[workload], bs, iodepth=qd)
                                        for bs in sizes]}
                      for qd in test["queue_depths"]]
            out.append({"name": workload, "rounds": rounds})
    elif name == "mixed_sweep":
        bs = sizes[0]
        rounds = [{"label": f"QD {qd}", "iodepth": qd,
                   "combinations": [_cell(f"mixed-r{mix}-qd{qd}", _rw(mix), mix, bs, iodepth=qd)
                                    for mix in test["mixes"]]}
                  for qd in test["queue_depths"]]
        out.append({"name": "", "rounds": rounds})
    elif name == "entropy_sweep":
        for mix in test["mixes"]:
            rounds = [{"label": f"QD {qd}", "iodepth": qd,
                       "combinations": [_cell(f"entropy-r{mix}-qd{qd}-e{entropy}", _rw(mix), mix, 4096, iodepth=qd,
                                              # fio's compressibility is the complement of the entropy.
                                              buffer_compress_percentage=100 - entropy)
                                        for entropy in test["percents"]]}
                      for qd in test["queue_depths"]]
            out.append({"name": f"mix-{mix}-{100 - mix}", "rounds": rounds})
    elif name in HDD:
        rounds = []
        for zone in zones(capacity, test["zones"]):
            if name == "hdd_iops":
                cells = [_cell(f"hdd-r{mix}-{bs}-z{zone['zone']}", _rw(mix), mix, bs,
                               offset=zone["offset"], size=zone["size"])
                         for mix in test["mixes"] for bs in sizes]
            else:
                cells = [_cell(f"hdd-{rw}-{bs}-z{zone['zone']}", rw, 100 if rw == "read" else 0, bs,
                               offset=zone["offset"], size=zone["size"])
                         for bs in sizes for rw in ("read", "write")]
            rounds.append({"label": f"zone {zone['zone']} ({zone['start_pct']:.0f}–{zone['end_pct']:.0f} % of LBAs)",
                           "zone": zone, "combinations": cells})
        out.append({"name": "", "rounds": rounds})
    else:
        raise ValueError(f"not a sweep test: {name}")
    for segment in out:
        segment["dvs"] = []
        segment["combinations"] = segment["rounds"][0]["combinations"]
    return out, notes


def demand_step(offered: int, achieved: float, tolerance_pct: float) -> bool:
    """Whether the drive delivered one offered IOPS step: achieved within tolerance_pct below the offer."""
    return achieved >= offered * (1 - tolerance_pct / 100.0)


def demand_stop(misses_in_a_row: int, misses: int, steps_run: int, steps_total: int) -> tuple[bool, str]:
    """The ramp ends after ``misses`` undelivered steps in a row, or after its last step."""
    if misses_in_a_row >= misses:
        return True, f"the drive missed {misses_in_a_row} offered steps in a row: its limit is reached"
    if steps_run >= steps_total:
        return True, "last offered step run"
    return False, f"step {steps_run} of {steps_total}"


def knee(steps: list[dict]) -> dict | None:
    """The last step the drive delivered before the misses that ended the ramp: up to it the achieved IOPS follow
    the offer (an isolated miss the ramp tolerated does not end it). None when the ramp never reached the drive's
    limit (its last step was delivered) or no step was delivered."""
    if not steps or steps[-1]["delivered"]:
        return None
    delivered = [step for step in steps if step["delivered"]]
    return delivered[-1] if delivered else None
