# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the sweep tests share: the Myce/OakGate characterisation tests and TKperf's HDD tests (each in _tests/), and
which of them a drive runs in SSD or HDD mode.

A sweep test has no steady state. Each segment (one purge-to-end unit) is a list of rounds, each round
one row of the sweep (a queue depth, an offered IOPS step, an LBA zone) with one fio job section per
cell. Sources: ../shared/reference/myce-oakgate-methodology.md (sections 5.1-5.4) and TKperf's HDD mode.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, positive
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import seconds as run_seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import drop_small

DRIVE_MODES = ("auto", "ssd", "hdd")
WORKLOADS = {"randread": 100, "randwrite": 0, "read": 100, "write": 0}
DEMAND_WORKLOADS = ("randread", "randwrite")

# The variables (without pts_run_) several sweep tests share, by profile. "standard" is the methodology as published;
# "quick" is small enough for a loop device in CI. An operator's value always wins.
PROFILE = {
    "standard": {"sweep_precondition_seconds": 7200, "sweep_seconds": 300, "hdd_zones": 10},
    "quick": {"sweep_precondition_seconds": 3, "sweep_seconds": 0.5, "hdd_zones": 4},
}
QUEUE_DEPTHS = [4, 8, 16, 32, 64, 128]
# The preconditioning every characterisation test starts from (methodology: QD 32, 0 fill, 4k random writes).
PRECONDITION_BLOCK_SIZE = 4096
PRECONDITION_IODEPTH = 32
ZONE_ALIGN = 1 << 20


def workloads(variable: str, values: object, known: tuple) -> list[str]:
    if not isinstance(values, (list, tuple)) or not values:
        raise fail(variable, values, f"must be a non-empty list of {', '.join(known)}")
    for value in values:
        if value not in known:
            raise fail(variable, value, f"unknown workload; known: {', '.join(known)}")
    if len(set(values)) != len(values):
        raise fail(variable, values, "a workload is listed twice")
    return list(values)


def timed(get) -> dict:
    """What every characterisation sweep but the demand ramp shares: one job, rows of pts_run_sweep_seconds, after
    the timed preconditioning; ``get(key)`` gives a variable's value."""
    return {"numjobs": 1, "round_seconds": run_seconds("pts_run_sweep_seconds", get("sweep_seconds")),
            "precondition": precondition(get)}


def precondition(get) -> dict:
    """The timed random writes every characterisation test starts from; ``get(key)`` gives a variable's value."""
    seconds = run_seconds("pts_run_sweep_precondition_seconds", get("sweep_precondition_seconds"))
    return {"kind": "random", "seconds": seconds, "block_size": PRECONDITION_BLOCK_SIZE,
            "iodepth": PRECONDITION_IODEPTH, "data": "zero fill"}


def profile(shared: tuple, own: dict) -> dict:
    """A test's profile values: the ``shared`` keys of PROFILE with its own added."""
    return {name: dict({k: v for k, v in PROFILE[name].items() if k in shared}, **own.get(name, {}))
            for name in PROFILE}


def explicit_mode(requested: object, device: dict) -> bool:
    """Whether the drive's mode was chosen by the operator (its entry's ``mode``, or pts_drive_mode), not by auto."""
    own = (device.get("spec") or {}).get("mode")
    return own not in (None, "auto") or (requested or "auto") != "auto"


def is_loop(device: dict) -> bool:
    """A loop device: a file behind it, whose kind its rotational flag does not tell."""
    return device.get("interface") == "loop" or bool(device.get("loop"))


def drive_mode(requested: object, device: dict) -> tuple[str, str]:
    """ssd or hdd for one drive and why: the drive's own ``mode`` wins over pts_drive_mode; auto follows rotational,
    except on a loop device: the loop driver calls a device rotational when it cannot tell what backs it (a file on
    flash or in memory as often as on a disk), so its flag is no evidence of a disk."""
    own = (device.get("spec") or {}).get("mode")
    own = None if own == "auto" else own
    mode = own or requested or "auto"
    if mode not in DRIVE_MODES:
        variable = "pts_devices[].mode" if own else "pts_run_drive_mode"
        raise fail(variable, mode, f"unknown drive mode; known: {', '.join(DRIVE_MODES)}")
    if mode != "auto":
        return mode, f"{mode.upper()} mode set by {'the drive entry' if own else 'pts_drive_mode'}"
    if device.get("rotational") and is_loop(device):
        return "ssd", "SSD mode: a loop device (its rotational flag says nothing of the file behind it)"
    if device.get("rotational"):
        return "hdd", "HDD mode: the drive reports itself rotational"
    return "ssd", "SSD mode: the drive reports itself non-rotational"


def cell(name: str, rw: str, mix: int, bs: int, **options) -> dict:
    return {"name": name, "rw": rw, "mix": mix, "bs": bs, "options": options}


def zones(capacity: int, count: int) -> list[dict]:
    """LBA zones from outer (LBA 0) to inner, aligned to 1 MiB; the last zone takes the remainder."""
    usable = capacity // ZONE_ALIGN * ZONE_ALIGN
    if usable < count * ZONE_ALIGN:
        raise InputError(f"a {capacity}-byte drive is too small for {count} zones of at least 1 MiB")
    edges = [usable * i // count // ZONE_ALIGN * ZONE_ALIGN for i in range(count)] + [usable]
    return [{"zone": i + 1, "offset": edges[i], "size": edges[i + 1] - edges[i],
             "start_pct": 100.0 * edges[i] / usable, "end_pct": 100.0 * edges[i + 1] / usable}
            for i in range(count)]


def zone_space(test: dict, capacity: int) -> tuple[int, str] | None:
    """An HDD test's block sizes are checked against its smallest LBA zone; None for a drive too small for its zones
    (segments() names it)."""
    try:
        return min(z["size"] for z in zones(capacity, test["zones"])), "the smallest LBA zone"
    except ValueError:
        return None


def zone_count(get) -> int:
    """The LBA zones an HDD test divides the drive into; ``get(key)`` gives a variable's value."""
    zones = int(positive("pts_run_hdd_zones", get("hdd_zones"), int))
    if zones > 100:
        raise fail("pts_run_hdd_zones", zones, "at most 100 zones (1 % of the LBA range each)")
    return zones


def zone_segments(test: dict, capacity: int, cells) -> list[dict]:
    """An HDD test's one segment: a row per LBA zone, with the sections ``cells(zone)``."""
    rounds = [{"label": f"zone {zone['zone']} ({zone['start_pct']:.0f}–{zone['end_pct']:.0f} % of LBAs)",
               "zone": zone, "combinations": cells(zone)} for zone in zones(capacity, test["zones"])]
    return [{"name": "", "rounds": rounds}]


def segments(parts):
    """A sweep test's segments function from ``parts(test, sizes, capacity)``, its segments of rows at the block sizes
    the drive can run: the others are dropped with a note (nothing runs when none is left), a sweep tracks no DV, and
    a segment shows its first row's sections in the plan."""
    def build(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
        sizes, notes = drop_small(test["block_sizes"], logical_block_size)
        if not sizes:
            return [], notes
        found = parts(test, sizes, capacity)
        for segment in found:
            segment["dvs"] = []
            segment["combinations"] = segment["rounds"][0]["combinations"]
        return found, notes
    return build


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
