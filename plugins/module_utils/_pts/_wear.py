# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The wear budget: how many bytes a run will write to a drive, and what share of its remaining rated life that is.

Before the first write the plan estimates, per drive, an **upper bound** of the bytes the run writes, and refuses the
run when that bound exceeds ``pts_wear_budget_pct`` (default 5 %) of the drive's remaining rated life.

The estimate, per test the run has not finished yet (a resumed run's finished tests write nothing):

* **Purge**: a method that may write every user block counts its passes x capacity per purge (one purge per test, or
  per segment for throughput's block sizes and the characterisation tests purged per part): sanitize overwrite as
  pts_purge issues it - NVMe ``nvme sanitize --sanact=3`` and ATA ``hdparm --sanitize-overwrite`` without a pass
  count, where 0 means 16 passes (NVMe Sanitize OWPASS, ATA SANITIZE OVERWRITE count) - 16 capacities; SCSI
  ``sg_sanitize --overwrite`` (one pass by default), ATA SECURITY ERASE UNIT, NVMe Format with user data erase (the
  drive may implement it as an overwrite) and SCSI FORMAT UNIT one. Cryptographic erase, block erase and discard
  write no user data and count nothing. ``auto`` is the drive's strongest method, as pts_purge picks it.
* **Workload-independent preconditioning** (iops, latency): exactly ``pts_precondition_capacity_multiple`` x capacity
  (fio ``loops=`` over the whole device, SNIA PTS 1.1 WIPC: 2 x).
* **Timed preconditioning** (characterisation tests: 4k random writes for ``pts_run_sweep_precondition_seconds``):
  seconds x rate, once per test or once per purged part.
* **Rounds**: every round the stop rule can let run - ``pts_run_max_rounds`` per segment for the steady-state tests
  (steady state is not assumed to come early), every row of a sweep, every offered step of a demand ramp - each
  combination that writes at all ``round_seconds`` x rate, its reads included: a full-duplex link (PCIe, SAS)
  carries reads and writes side by side, and fio's ``rate_iops`` caps each direction on its own, so a mix's writes
  are bounded by the whole rate, not by its write share of it. Combinations that only read count nothing.
* **Write saturation**: it stops after the round in which ``capacity_multiple`` x capacity is written or its time
  limit passes, so at most the smaller of target + one round at the rate and (time limit + one round) x rate.

The rate is an upper bound of the drive's sustained write rate: the acceptance rule's ``rated_write_mb_s`` (the
model's rated sequential write, MB/s, from its data sheet) where given, else the payload bandwidth of the drive's
interface (INTERFACE_BYTES_PER_S), the fastest any drive on that link can write; a drive on an interface without a
known bound is taken at the fastest (a PCIe 5.0 x4 NVMe link). ``pts_run_rate_iops`` and a demand step's offered IOPS
cap a combination's rate further (rate_iops x numjobs x block size). The plan's time estimate uses slower, typical
rates (module_utils/_pts/_plan.py); those would make this bound a guess, not a bound.

Rated endurance comes from the matching acceptance rule: ``endurance_tbw`` (terabytes written, decimal: 10^12 bytes)
or ``dwpd`` x capacity x 365 x ``warranty_years`` (capacity as the drive reports it); given both, the smaller. The
remaining life is the rated endurance x (1 - percentage used / 100), with the percentage used from the drive's health
record at identification (NVMe Percentage Used; ATA's Percentage Used Endurance Indicator from the device statistics
log, SCSI's percentage used endurance indicator); a drive whose record has none is taken at 0 % used, and the
record says so. A drive whose rule gives no endurance (or that no rule matches) is not judged.
"""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _stop_rules
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail as _fail, positive as _positive
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size

TB = 1e12
DEFAULT_BUDGET_PCT = 5.0
BUDGET_VARIABLE = "pts_wear_budget_pct"
# The payload bandwidth of each interface pts_drive_info reports, bytes/s: no drive on that link writes faster.
# SATA 6 Gb/s with 8b/10b coding; SAS-4 24G (22.5 Gb/s, 128b/150b) on one lane; PCIe 5.0 x4 (32 GT/s, 128b/130b)
# rounded up; USB4 40 Gb/s; FireWire 800.
INTERFACE_BYTES_PER_S = {
    "SATA": 600e6,
    "SCSI/SAS": 2400e6,
    "NVMe": 16e9,
    "USB": 5e9,
    "FireWire": 100e6,
}
INTERFACE_WORDS = {
    "SATA": "the SATA 6 Gb/s link's bound",
    "SCSI/SAS": "the SAS-4 24G lane's bound",
    "NVMe": "the PCIe 5.0 x4 link's bound",
    "USB": "the USB4 40 Gb/s link's bound",
    "FireWire": "the FireWire 800 link's bound",
}
FASTEST_BYTES_PER_S = max(INTERFACE_BYTES_PER_S.values())
# Purge methods that may write every user block, and how many passes pts_purge's command makes (module docstring).
OVERWRITE_PASSES = {"nvme_sanitize_overwrite": 16, "ata_sanitize_overwrite": 16}
OVERWRITING_PURGES = frozenset((
    "nvme_sanitize_overwrite", "ata_sanitize_overwrite", "scsi_sanitize_overwrite",
    "ata_security_erase", "ata_security_erase_enhanced", "nvme_format_erase", "scsi_format_unit",
))
_WRITES = {"write": 1.0, "randwrite": 1.0, "read": 0.0, "randread": 0.0, "trim": 0.0, "randtrim": 0.0}
# The physical range of each number an acceptance rule gives the wear budget: (lowest, highest, unit). Outside it the
# value is a typo or a unit mix-up (MB/s given as TB/s, TBW as bytes), never a drive, and the estimate built on it is
# no bound of anything: a rate of 1e-9 MB/s counted the rounds as writing nothing, while fio wrote 294 MB.
# - rated_write_mb_s: no storage device is rated to write sequentially below 1 MB/s (an old USB 2 stick writes
#   several); nothing on one link writes a TB/s (PCIe 6.0 x16 carries 128 GB/s).
# - endurance_tbw: 1 MB (a test's loop device) to an exabyte (a 122 TB drive at 1 DWPD for 5 years is 0.22 EB).
# - dwpd: 0.01 (archive QLC) to 1,000 (SLC and storage-class memory are rated at 100).
# - warranty_years: a day to 100 years.
RULE_RANGES = {
    "rated_write_mb_s": (1.0, 1e6, "MB/s"),
    "endurance_tbw": (1e-6, 1e6, "TB"),
    "dwpd": (0.01, 1000.0, "drive writes per day"),
    "warranty_years": (1 / 365, 100.0, "years"),
}


def budget_pct(value: object, variable: str = "pts_run_wear_budget_pct") -> float:
    """The wear budget in % of the remaining rated life: a number above 0 and at most 100."""
    number = _positive(variable, DEFAULT_BUDGET_PCT if value in (None, "") else value, float)
    if number > 100:
        raise _fail(variable, value, "a share of the drive's remaining life cannot exceed 100 %")
    return number


def tb(size: float, unit: str = "TB") -> str:
    """Bytes in decimal terabytes as the message shows them: 672 TB, 7.68 TB, 0.0481 TB, 0.000134 TB (134,217,728
    bytes)."""
    value = size / TB
    if value >= 100:
        return f"{value:,.0f} {unit}"
    if value >= 0.01:
        return f"{value:.3g} {unit}"
    return f"{value:.3g} {unit} ({int(size):,} bytes)"


def _pct(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f} %"
    return f"{value:,.2f} %" if value == 0 or value >= 0.01 else f"{value:.2g} %"


def in_range(key: str, value: object) -> str | None:
    """Why a rule's number is not a physical value for ``key`` (RULE_RANGES), or None when it is one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        return "must be a positive number"
    low, high, unit = RULE_RANGES[key]
    if not low <= value <= high:
        return f"must be from {low:g} to {high:g} {unit}: a value outside that range is no drive's"
    return None


def _number(rule: dict, key: str) -> float | None:
    value = rule.get(key)
    if value is None:
        return None
    why = in_range(key, value)
    if why:
        raise InputError(f"{key}={value!r}: {why}")
    return float(value)


def endurance(rule: dict | None, capacity: float) -> dict | None:
    """The drive's rated endurance from its acceptance rule, {"bytes", "basis"}; None when the rule gives none."""
    rule = rule or {}
    tbw = _number(rule, "endurance_tbw")
    dwpd = _number(rule, "dwpd")
    years = _number(rule, "warranty_years")
    found = []
    if tbw is not None:
        found.append({"bytes": tbw * TB, "basis": f"endurance_tbw {tbw:g}"})
    if dwpd is not None:
        if years is None:
            raise InputError(f"dwpd={dwpd:g} needs warranty_years (drive writes per day over how many years)")
        if capacity <= 0:
            raise InputError("dwpd needs the drive's capacity, and it reports none")
        found.append({"bytes": dwpd * capacity * 365 * years,
                      "basis": f"dwpd {dwpd:g} x {tb(capacity)} x 365 x warranty_years {years:g}"})
    if not found:
        return None
    chosen = min(found, key=lambda item: item["bytes"])
    if len(found) > 1:
        chosen = dict(chosen, basis=chosen["basis"] + " (the smaller of endurance_tbw and dwpd)")
    return chosen


def drive_rate(device: dict, rule: dict | None) -> tuple[float, str]:
    """The upper bound of the drive's write rate in bytes/s, and where it comes from."""
    rated = _number(rule or {}, "rated_write_mb_s")
    if rated is not None:
        return rated * 1e6, f"{rated:,.6g} MB/s, the rule's rated_write_mb_s"
    interface = device.get("interface")
    if interface in INTERFACE_BYTES_PER_S:
        rate = INTERFACE_BYTES_PER_S[interface]
        return rate, f"{rate / 1e6:,.0f} MB/s, {INTERFACE_WORDS[interface]}"
    named = f"the {interface}" if interface else "an unnamed"
    return FASTEST_BYTES_PER_S, (f"{FASTEST_BYTES_PER_S / 1e6:,.0f} MB/s, the fastest interface's bound "
                                 f"(no bound is known for {named} interface)")


def write_fraction(combination: dict) -> float:
    """The share of a fio job's I/O that is writes."""
    rw = combination.get("rw")
    if rw in _WRITES:
        return _WRITES[rw]
    if rw in ("randrw", "rw", "readwrite"):
        return (100 - float(combination.get("mix", 0))) / 100.0
    raise ValueError(f"unknown fio rw {rw!r} in combination {combination.get('name')!r}")


def _io_size(combination: dict) -> float:
    """The largest size of a combination's IOs: its block size, or the largest of its bssplit (CBW). A bssplit's shares
    are drawn at random, so a capped IOPS rate times their mean is what a round writes on average, not at most."""
    split = (combination.get("options") or {}).get("bssplit")
    if not split:
        return float(combination["bs"])
    return float(max(parse_block_size(part.split("/")[0]) for part in str(split).split(":")))


def _combination_rate(combination: dict, numjobs: int, rate: float, rate_iops: int) -> float:
    """A combination's rate: the drive's bound, capped by fio's rate_iops (per job) where the job file sets one."""
    caps = [rate]
    own = (combination.get("options") or {}).get("rate_iops") or rate_iops
    if own:
        caps.append(float(own) * numjobs * _io_size(combination))
    return min(caps)


def _round_bytes(combinations: list[dict], seconds: float, numjobs: int, rate: float, rate_iops: int) -> float:
    """A round's bytes at most: each writing section for its own run time (else the test's) at its rate bound."""
    def bound(combination: dict) -> float:
        jobs = int((combination.get("options") or {}).get("numjobs") or numjobs)
        return float(combination.get("seconds") or seconds) * _combination_rate(combination, jobs, rate, rate_iops)

    return sum(bound(c) for c in combinations if write_fraction(c) > 0)


def purge_method(method: str | None, device: dict) -> str | None:
    """The method a purge uses: the one named, or for auto the drive's strongest (as pts_purge picks it)."""
    if method in (None, "auto"):
        supported = device.get("purge_methods") or []
        return supported[0] if supported else None
    return method


def test_bytes(test: dict, capacity: float, rate: float, run: dict, purge: str | None) -> dict:
    """The upper bound of the bytes one planned test (a drive plan's entry) writes, by part."""
    segments = test.get("segments") or []
    parts = {"purge": 0.0, "precondition": 0.0, "rounds": 0.0}
    if test.get("done") or not segments:
        return {"test": test["test"], "bytes": 0, "parts": {k: 0 for k in parts},
                "note": "finished in this run already" if test.get("done") else "nothing to run on this drive"}
    purges = {"test": 1, "segment": len(segments)}.get(test.get("purge"), 0)
    if purge in OVERWRITING_PURGES:
        parts["purge"] = purges * OVERWRITE_PASSES.get(purge, 1) * capacity
    if test.get("wipc"):
        parts["precondition"] = float(run["wipc_capacity_multiple"]) * capacity
    elif test.get("segment_wipc"):
        parts["precondition"] = float(run["wipc_capacity_multiple"]) * capacity * len(segments)
    elif test.get("precondition"):
        count = len(segments) if test.get("purge") == "segment" else 1
        parts["precondition"] = count * float(test["precondition"]["seconds"]) * rate
    numjobs = int(test.get("numjobs") or 1)
    seconds = float(test["round_seconds"])
    rate_iops = int(run.get("rate_iops") or 0)
    parts["rounds"] = _stop_rules.of(test.get("stop")).rounds_bytes(
        test, segments, lambda combinations: _round_bytes(combinations, seconds, numjobs, rate, rate_iops),
        int(run["max_rounds"]))
    return {"test": test["test"], "bytes": int(sum(parts.values())), "parts": {k: int(v) for k, v in parts.items()}}


def estimate(drive_plan: dict, device: dict, run: dict, rate: float) -> dict:
    """The upper bound of the bytes the run writes to one drive: {"bytes", "tests": [test_bytes()], "purge_method"}.

    ``run`` holds the plan's max_rounds, wipc_capacity_multiple, purge_method and rate_iops.
    """
    capacity = float(device.get("size_bytes") or 0)
    purge = purge_method(run.get("purge_method"), device)
    tests = [test_bytes(test, capacity, rate, run, purge) for test in drive_plan.get("tests") or []]
    return {"bytes": sum(t["bytes"] for t in tests), "tests": tests, "purge_method": purge}


def percentage_used(device: dict) -> tuple[float, str]:
    """The drive's percentage used (0-100) and where it comes from; 0 when the drive reports none."""
    health = device.get("health") if isinstance(device.get("health"), dict) else {}
    value = health.get("percentage_used")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        if health.get("error"):
            return 0.0, f"the health read at identification failed ({health['error']}): 0 % assumed"
        return 0.0, "the drive reports no percentage used: 0 % assumed"
    # NVMe allows values above 100 (the rated life is spent and the drive goes on): no rated life remains.
    return min(float(value), 100.0), f"{health.get('tool') or 'the health log'} at identification"


def _breakdown(tests: list[dict]) -> str:
    return ", ".join(f"{t['test']} {tb(t['bytes'])}" for t in tests if t["bytes"]) or "nothing"


def judge(device: dict, drive_plan: dict, run: dict, rule: dict | None, budget: float) -> dict:
    """The wear record of one drive: the estimate and, where its rule gives an endurance, the verdict on the budget.

    Judged: {"judged": True, "refused", "estimated_bytes", "tests", "rate_bytes_per_s", "rate_basis",
    "endurance_bytes", "endurance_basis", "percentage_used", "percentage_used_source", "remaining_bytes", "use_pct"
    (None when no rated life remains), "budget_pct", "rule", "text"}. Not judged: {"judged": False, "reason", the
    estimate, "text"}.
    """
    rate, rate_basis = drive_rate(device, rule)
    found = estimate(drive_plan, device, run, rate)
    capacity = float(device.get("size_bytes") or 0)
    record = {"estimated_bytes": found["bytes"], "tests": found["tests"], "purge_method": found["purge_method"],
              "rate_bytes_per_s": rate, "rate_basis": rate_basis, "budget_pct": budget,
              "rule": (rule or {}).get("name")}
    rated = endurance(rule, capacity)
    if rated is None:
        reason = ("no acceptance rule matches the drive" if rule is None else
                  f"its acceptance rule ({rule.get('name') or rule.get('model')}) gives no endurance_tbw or dwpd")
        return dict(record, judged=False, refused=False, reason=reason,
                    text=f"wear not judged ({reason}); the run writes up to {tb(found['bytes'])} (rates up to "
                         f"{rate_basis})")
    used, source = percentage_used(device)
    remaining = rated["bytes"] * (1 - used / 100.0)
    if remaining > 0:
        use = 100.0 * found["bytes"] / remaining
    else:
        use = 0.0 if found["bytes"] == 0 else None
    refused = use is None or use > budget
    share = "and no rated life remains" if use is None else f"{_pct(use)} of the remaining life of {tb(remaining)}"
    text = (f"the run writes up to {tb(found['bytes'])} ({_breakdown(found['tests'])}; rates up to {rate_basis}), "
            f"{share} (rated endurance {tb(rated['bytes'], 'TBW')} from {rated['basis']}; percentage used {used:g} %, "
            f"{source}); budget {budget:g} % ({BUDGET_VARIABLE})")
    return dict(record, judged=True, refused=refused, endurance_bytes=int(rated["bytes"]),
                endurance_basis=rated["basis"], percentage_used=used, percentage_used_source=source,
                remaining_bytes=int(remaining), use_pct=use, text=text)


def refusal(key: str, device: dict, wear: dict) -> str:
    """Why the plan refuses a drive, with every figure and the variable to change."""
    who = " ".join(str(v) for v in (device.get("model"), device.get("firmware") and f"firmware {device['firmware']}")
                   if v)
    hint = (", or give the rule the model's rated_write_mb_s" if "rated_write_mb_s" not in wear["rate_basis"] else "")
    return (f"the wear budget refuses drive {key}{f' ({who})' if who else ''}: {wear['text']}. Raise "
            f"{BUDGET_VARIABLE} (at most 100), run fewer tests or rounds{hint}")


# What a run did, from its results: the host's bytes (fio) and the drive's own counters.
#
# The drive's standard logs count host writes as the drive received them - NVMe SMART / Health "Data Units
# Written" (thousands of 512-byte units, rounded up), ATA attribute 241 Total_LBAs_Written, the SCSI and smartctl
# equivalents - read as ``bytes_written`` (module_utils/_drive/_drive_tools.py, _health.py). The writes to flash that a
# write-amplification figure needs are only in vendor log pages: the OCP Datacenter NVMe SSD SMART extended log (C0h)
# "Physical Media Units Written" (``nvme ocp smart-add-log``), Intel's additional SMART log (``nvme intel
# smart-log-add``: nand_bytes_written), ATA vendor attributes such as 249 NAND_Writes_1GiB. The collection reads none of
# them yet; a reading that carries ``nand_bytes_written`` gets its write amplification.
NAND_KEY = "nand_bytes_written"
NO_NAND = ("no NAND-writes counter is exposed to the collection: the drive's standard log counts host writes "
           "(NVMe Data Units Written, ATA 241 Total_LBAs_Written), not writes to flash; those are in vendor log pages "
           "(the OCP C0h log's Physical Media Units Written, nvme ocp smart-add-log; Intel's nvme intel "
           "smart-log-add nand_bytes_written), which are not read")


def _counter(reading: object, key: str) -> int | None:
    value = reading.get(key) if isinstance(reading, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def counter_delta(segments: list[list[tuple[dict | None, dict | None]]], key: str = "bytes_written") -> int | None:
    """A counter's growth over the rounds: per segment, the reading after its last round less the one before its
    first (what happens between segments - a purge, a preconditioning - is left out, as in the host's round bytes);
    None when a segment with rounds has no such counter at either end."""
    total, seen = 0, False
    for rounds in segments:
        if not rounds:
            continue
        first = next((_counter(b, key) for b, dummy in rounds if _counter(b, key) is not None), None)
        last = next((_counter(a, key) for dummy, a in reversed(rounds) if _counter(a, key) is not None), None)
        if first is None or last is None:
            return None
        total += last - first
        seen = True
    return total if seen else None


def _amplification(nand: int | None, host: int | None) -> float | None:
    return nand / host if nand is not None and host else None


def measured(tests: list[dict], before: dict | None, after: dict | None) -> dict:
    """The wear a run did, per test and in all.

    ``tests``: per test {"test", "precondition_bytes", "rounds_bytes" (fio's write io_bytes), "segments": per segment
    the rounds' (before, after) health readings}. ``before`` and ``after``: the drive's health snapshots at
    identification and after its tests. The drive's counter per test covers its rounds (compare with
    ``rounds_bytes``); for the run, the snapshots cover everything (compare with ``host_bytes_written``). Write
    amplification = the NAND-writes counter's growth / the drive's host-writes counter's growth (fio's bytes where
    the drive counts none), only where a NAND counter exists.
    """
    rows = []
    for test in tests:
        host = int(test.get("precondition_bytes") or 0) + int(test.get("rounds_bytes") or 0)
        drive = counter_delta(test.get("segments") or [])
        nand = counter_delta(test.get("segments") or [], NAND_KEY)
        rows.append({"test": test["test"], "host_bytes_written": host,
                     "precondition_bytes": int(test.get("precondition_bytes") or 0),
                     "rounds_bytes": int(test.get("rounds_bytes") or 0), "drive_bytes_written": drive,
                     "nand_bytes_written": nand,
                     "write_amplification": _amplification(nand, drive if drive else test.get("rounds_bytes"))})
    first, last = _counter(before, "bytes_written"), _counter(after, "bytes_written")
    drive = last - first if first is not None and last is not None else None
    nand_first, nand_last = _counter(before, NAND_KEY), _counter(after, NAND_KEY)
    nand = nand_last - nand_first if nand_first is not None and nand_last is not None else None
    host = sum(r["host_bytes_written"] for r in rows)
    nand_anywhere = nand is not None or any(r["nand_bytes_written"] is not None for r in rows)
    return {"host_bytes_written": host, "drive_bytes_written": drive, "nand_bytes_written": nand,
            "write_amplification": _amplification(nand, drive if drive else host),
            "counter": ((before or {}).get("tool") or (after or {}).get("tool")) if drive is not None else None,
            "nand_note": None if nand_anywhere else NO_NAND, "tests": rows}
