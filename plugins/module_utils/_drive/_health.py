# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The drive's own health, read before and after every round: what to run, how to read it, what a round did.

A *reading* is what one tool call says at one moment - temperature, the thermal counters, errors, wear, bytes
written - with every item the drive does not report left out (never guessed as zero). Two readings, before and after
a round, make the round's *entry* in its round file; judge() says whether the drive throttled (a thermal-management
transition counter grew), passed its warning temperature, or counted new errors during that round. Nothing here runs
a command: source() says which one to run, parse() reads its output, so the module on the host and the round action
on the controller read the same way.

Formats, as the tools' sources print them:

* nvme-cli ``smart-log -o json`` (nvme-print-json.c, json_smart_log): ``temperature`` and ``temperature_sensor_N``
  in Kelvin (N from 1, a sensor reading 0 is left out), ``critical_warning`` (an object with ``value`` under
  ``--verbose``), ``warning_temp_time`` / ``critical_comp_time`` in minutes, ``thm_temp1_trans_count``,
  ``thm_temp2_trans_count`` (host-controlled thermal management transitions to a lower power state) and
  ``thm_temp1_total_time``, ``thm_temp2_total_time`` in seconds; ``media_errors`` is the "Media and Data
  Integrity Errors" counter. ``id-ctrl -o json`` has ``wctemp`` and ``cctemp`` (warning and critical composite
  temperature thresholds, Kelvin; 0 = not reported).
* smartmontools ``smartctl -j`` (7.x): ``temperature.current`` (Celsius, every protocol), ``temperature.op_limit_max``
  (the drive's maximum operating temperature: ATA SCT / device statistics, NVMe WCTEMP in newer releases),
  ``temperature.critical_limit_max`` (NVMe CCTEMP), ``temperature.drive_trip`` (SCSI; ``scsi_temperature`` in
  older releases), ``temperature.lifetime_over_limit_minutes`` (ATA), ``ata_smart_attributes.table`` (5
  reallocated, 187 reported uncorrectable, 197 pending, 198 offline uncorrectable, 241 LBAs written, 177 / 231 /
  233 / 202 wear), ``ata_device_statistics.pages`` (page 5 temperature, page 7 "Percentage Used Endurance
  Indicator"), ``scsi_grown_defect_list``, ``scsi_percentage_used_endurance_indicator``, ``endurance_used``.
  smartctl prints no NVMe thermal-management counters in JSON; NVMe drives are read with nvme-cli.
"""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_tools import int_or_none, nvme_health, smart_health

# The interfaces read per round, and the tool each one is read with.
READ_WITH = {"NVMe": "nvme", "SATA": "smartctl", "SCSI/SAS": "smartctl"}
# What a device without a health log is, in the words the report uses once.
NONE_WORDS = {
    "loop": "a loop device (a file) has no SMART or NVMe health log",
    "zram": "a zram device (memory) has no SMART or NVMe health log",
    "virtio": "a virtio disk has no SMART or NVMe health log (the hypervisor does not pass one through)",
    "md": "an md array has no health log of its own (its members' are not read per round)",
    "device-mapper": "a device-mapper device has no health log of its own",
    "NVMe-oF": "an NVMe-oF namespace is a remote target's; its health log is not read",
    "USB": "a USB bridge passes no SMART or NVMe health log the collection reads",
}
# NVMe Critical Warning bit 1: a temperature is above an over-temperature threshold or below an under-temperature
# threshold (NVMe Base Specification, SMART / Health Information log, byte 0; the thresholds are Set Features 04h).
TEMPERATURE_WARNING_BIT = 0x02
# ATA wear attributes whose normalized value counts down from 100 (vendor attribute tables as smartmontools names
# them): the first one the drive reports is kept.
ATA_WEAR = ((231, "SSD_Life_Left"), (233, "Media_Wearout_Indicator"), (202, "Percent_Lifetime_Remain"),
            (177, "Wear_Leveling_Count"))
# smartctl's exit status is a bit mask; bits 0 and 1 mean nothing was read (bad command line, device not opened).
SMARTCTL_NOTHING_READ = 0x03
KINDS = ("throttled", "warning", "errors")


def none_reason(interface: str | None, kind: str | None = "disk") -> str:
    """Why a device has no health to read, in one sentence."""
    if kind and kind != "disk":
        return f"a {kind} has no health log of its own (the whole drive's is not read per round)"
    if interface in NONE_WORDS:
        return NONE_WORDS[interface]
    return f"{interface or 'this device'} reports no SMART or NVMe health log the collection reads"


def nvme_controller(name: str) -> str | None:
    """/dev/nvmeX for a namespace nvmeXnY (smart-log and id-ctrl address the controller)."""
    if not name.startswith("nvme") or "n" not in name[4:]:
        return None
    return "/dev/" + name[:4 + name[4:].index("n")]


def source(info: dict, which) -> dict:
    """What to run for a reading of the probed device ``info`` (probe()'s facts: name, kind, interface, resolved):
    {"tool", "format", "argv", "thresholds_argv", "device"}, or {"none": why} for a device that has no health."""
    interface = info.get("interface")
    if info.get("kind") != "disk" or interface not in READ_WITH:
        return {"none": none_reason(interface, info.get("kind"))}
    tool = which(READ_WITH[interface])
    if not tool:
        return {"none": f"{READ_WITH[interface]} is not installed on the host, so the {interface} drive's health "
                        "is not read"}
    if interface == "NVMe":
        ctrl = nvme_controller(info.get("name") or os.path.basename(info.get("resolved") or ""))
        if not ctrl:
            return {"none": f"no NVMe controller found for {info.get('name')}"}
        return {"tool": "nvme smart-log", "format": "nvme", "device": ctrl,
                "argv": [tool, "smart-log", ctrl, "-o", "json"],
                "thresholds_argv": [tool, "id-ctrl", ctrl, "-o", "json"]}
    node = info["resolved"]
    # -A: attributes (ATA) or the SCSI health pages with the temperature; -l devstat: ATA temperature and wear pages.
    argv = [tool, "-j", "-H", "-A"] + (["-l", "devstat"] if interface == "SATA" else []) + [node]
    return {"tool": "smartctl", "format": "smartctl", "device": node, "argv": argv, "thresholds_argv": None}


def _compact(reading: dict) -> dict:
    return {k: v for k, v in reading.items() if v is not None}


def _celsius(kelvin: object) -> int | None:
    value = int_or_none(kelvin)
    return value - 273 if value else None  # 0 K: "not reported" in every NVMe temperature field


def nvme_reading(smart_log: dict) -> dict:
    """A reading from ``nvme smart-log -o json``."""
    data = smart_log if isinstance(smart_log, dict) else {}
    base = nvme_health(data)
    sensors = [_celsius(data.get(f"temperature_sensor_{n}")) for n in range(1, 9)]
    counts = [int_or_none(data.get(f"thm_temp{n}_trans_count")) for n in (1, 2)]
    seconds = [int_or_none(data.get(f"thm_temp{n}_total_time")) for n in (1, 2)]
    reading = {
        "temperature_c": base["temperature_c"],
        "sensors_c": [s for s in sensors if s is not None] or None,
        "critical_warning": base["critical_warning"],
        "warning_temp_minutes": int_or_none(data.get("warning_temp_time")),
        "critical_temp_minutes": int_or_none(data.get("critical_comp_time")),
        "thermal_transitions": counts if any(c is not None for c in counts) else None,
        "thermal_seconds": seconds if any(s is not None for s in seconds) else None,
        "media_errors": base["media_errors"],
        "error_log_entries": base["error_log_entries"],
        "percentage_used": base["percentage_used"],
        "available_spare_pct": base["available_spare_pct"],
        "bytes_written": base["bytes_written"],
    }
    return _compact(reading)


def nvme_thresholds(id_ctrl: dict) -> dict:
    """Warning and critical composite temperature thresholds (°C) from ``nvme id-ctrl -o json``."""
    data = id_ctrl if isinstance(id_ctrl, dict) else {}
    return _compact({"warning_c": _celsius(data.get("wctemp")), "critical_c": _celsius(data.get("cctemp"))})


def _attribute(table: list, attr_id: int) -> dict | None:
    return next((a for a in table if isinstance(a, dict) and int_or_none(a.get("id")) == attr_id), None)


def _raw(attr: dict | None) -> int | None:
    raw = attr.get("raw") if attr else None
    return int_or_none(raw.get("value")) if isinstance(raw, dict) else None


def _attribute_temperature(table: list) -> int | None:
    """ATA 194 (Temperature_Celsius) or 190 (Airflow_Temperature_Cel): the raw value's low byte (its other bytes
    hold vendor minimum and maximum)."""
    for attr_id in (194, 190):
        raw = _raw(_attribute(table, attr_id))
        if raw is not None:
            return raw & 0xFF
    return None


def _devstat(data: dict, page: int, name: str) -> int | None:
    pages = (data.get("ata_device_statistics") or {}).get("pages") if isinstance(data, dict) else None
    for entry in pages if isinstance(pages, list) else []:
        if not isinstance(entry, dict) or int_or_none(entry.get("number")) != page:
            continue
        for row in entry.get("table") or []:
            if isinstance(row, dict) and str(row.get("name", "")).lower() == name.lower():
                return int_or_none(row.get("value"))
    return None


def _section(data: dict, key: str) -> dict:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def smartctl_reading(smartctl_json: dict) -> dict:
    """A reading from ``smartctl -j`` (ATA, SCSI or NVMe)."""
    data = smartctl_json if isinstance(smartctl_json, dict) else {}
    base = smart_health(data)
    table = _section(data, "ata_smart_attributes").get("table")
    table = table if isinstance(table, list) else []
    nvme = _section(data, "nvme_smart_health_information_log")
    temperature = _section(data, "temperature")
    wear = next(({"attribute": name, "id": attr_id, "normalized": int_or_none(attr.get("value"))}
                 for attr_id, name in ATA_WEAR if (attr := _attribute(table, attr_id)) is not None), None)
    used = base["percentage_used"]
    for candidate in (int_or_none(_section(data, "endurance_used").get("current_percent")),
                      int_or_none(data.get("scsi_percentage_used_endurance_indicator")),
                      _devstat(data, 7, "Percentage Used Endurance Indicator")):
        used = candidate if used is None else used
    over = int_or_none(temperature.get("lifetime_over_limit_minutes"))
    if over is None:
        over = _devstat(data, 5, "Time in Over-Temperature")
    reading = {
        "passed": base["passed"],
        "temperature_c": base["temperature_c"] if base["temperature_c"] is not None else _attribute_temperature(table),
        "critical_warning": int_or_none(nvme.get("critical_warning")),
        "warning_temp_minutes": int_or_none(nvme.get("warning_temp_time")) if nvme else over,
        "critical_temp_minutes": int_or_none(nvme.get("critical_comp_time")),
        "media_errors": base["media_errors"],
        "error_log_entries": int_or_none(nvme.get("num_err_log_entries")),
        "reallocated_sectors": base["reallocated_sectors"],
        "pending_sectors": base["pending_sectors"],
        "offline_uncorrectable": base["offline_uncorrectable"],
        "reported_uncorrect": _raw(_attribute(table, 187)),
        "grown_defects": int_or_none(data.get("scsi_grown_defect_list")),
        "percentage_used": used,
        "wear_attribute": wear,
        "bytes_written": base["bytes_written"],
    }
    return _compact(reading)


def smartctl_thresholds(smartctl_json: dict) -> dict:
    """The drive's own temperature limits (°C) as smartctl prints them."""
    data = smartctl_json if isinstance(smartctl_json, dict) else {}
    temperature = _section(data, "temperature")
    warning = int_or_none(temperature.get("op_limit_max"))
    if warning is None:
        warning = _devstat(data, 5, "Specified Maximum Operating Temperature")
    trip = int_or_none(temperature.get("drive_trip"))
    if trip is None:
        trip = int_or_none(_section(data, "scsi_temperature").get("drive_trip"))
    critical = int_or_none(temperature.get("critical_limit_max"))
    return _compact({"warning_c": warning or None, "critical_c": (critical if critical is not None else trip) or None})


def parse(fmt: str, rc: int, stdout: str) -> tuple[dict | None, dict, str | None]:
    """(reading, thresholds, error) from one run of source()'s command."""
    if fmt == "smartctl" and rc & SMARTCTL_NOTHING_READ:
        return None, {}, f"smartctl read nothing (exit status {rc})"
    if fmt == "nvme" and rc != 0:
        return None, {}, f"nvme smart-log failed (rc {rc}): {(stdout or '').strip()[:200]}"
    try:
        data = json.loads(stdout)
    except (TypeError, ValueError):
        return None, {}, f"{'nvme smart-log' if fmt == 'nvme' else 'smartctl'} printed no JSON (rc {rc})"
    if not isinstance(data, dict):
        return None, {}, "the health tool printed JSON that is not an object"
    if fmt == "nvme":
        return nvme_reading(data), {}, None
    return smartctl_reading(data), smartctl_thresholds(data), None


def _grew(before: dict, after: dict, key: str) -> list[tuple[int, int, int]]:
    """(index, before, after) of each counter of ``key`` (a number or a list) that is higher after than before."""
    first, last = before.get(key), after.get(key)
    if isinstance(first, int) and isinstance(last, int):
        first, last = [first], [last]
    if not isinstance(first, list) or not isinstance(last, list):
        return []
    return [(i, a, b) for i, (a, b) in enumerate(zip(first, last)) if isinstance(a, int) and isinstance(b, int) and b > a]


ERROR_COUNTERS = (("media_errors", "media and data integrity errors"), ("error_log_entries", "error log entries"),
                  ("reallocated_sectors", "reallocated sectors"), ("pending_sectors", "pending sectors"),
                  ("offline_uncorrectable", "offline uncorrectable sectors"),
                  ("reported_uncorrect", "reported uncorrectable errors"), ("grown_defects", "grown defects"))


def judge(entry: dict) -> dict:
    """What the drive did during one round, from its entry's readings before and after (either may be missing).

    ``throttled``: a thermal-management transition counter (or its total time) grew - the drive entered a lower
    power state to cool down (host-controlled thermal management, NVMe TMT1/TMT2). ``warning``: the drive was at or
    past its warning temperature - its warning (or critical) temperature time grew, Critical Warning bit 1 was set,
    or a reading reached the warning threshold. ``errors``: an error counter grew. Each comes with the evidence in
    words (``why``); ``max_c`` is the highest composite temperature read.
    """
    before, after = entry.get("before") or {}, entry.get("after") or {}
    thresholds = entry.get("thresholds") or {}
    temps = [r["temperature_c"] for r in (before, after) if isinstance(r.get("temperature_c"), int)]
    why: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for key, label in (("thermal_transitions", "transitions"), ("thermal_seconds", "seconds")):
        for index, first, last in _grew(before, after, key):
            why["throttled"].append(f"thermal management temperature {index + 1} {label} {first:,} → {last:,}")
    for key, label in (("warning_temp_minutes", "warning"), ("critical_temp_minutes", "critical")):
        for dummy, first, last in _grew(before, after, key):
            why["warning"].append(f"{label} temperature time {first:,} → {last:,} min")
    if any((int_or_none(r.get("critical_warning")) or 0) & TEMPERATURE_WARNING_BIT for r in (before, after)):
        why["warning"].append("critical warning bit 1 set (a temperature threshold passed)")
    warning_c = thresholds.get("warning_c")
    if temps and isinstance(warning_c, int) and max(temps) >= warning_c:
        why["warning"].append(f"{max(temps)} °C at or above the warning threshold {warning_c} °C")
    for key, label in ERROR_COUNTERS:
        for dummy, first, last in _grew(before, after, key):
            why["errors"].append(f"{label} {first:,} → {last:,}")
    return {"max_c": max(temps) if temps else None, "throttled": bool(why["throttled"]),
            "warning": bool(why["warning"]), "errors": bool(why["errors"]),
            "why": [text for kind in KINDS for text in why[kind]]}


def summarize(rounds: list[tuple[str, str, int, dict]]) -> dict:
    """The per-round health of a drive for its report: ``rounds`` are (test, segment, round, entry) in run order.

    Returns {"read": rounds with a reading, "none": why (when every round says none, else None), "tests":
    {test: {"series": {segment: [{round, before_c, after_c, max_c, throttled, warning, errors, why}]},
    "marks": [{round, kind, series}]}}, "marked": [{test, segment, round, kinds, why}], "max_c", "max_at",
    "warning_c", "critical_c", "tools", "errors_read"}.
    """
    out: dict = {"read": 0, "none": None, "tests": {}, "marked": [], "max_c": None, "max_at": None, "warning_c": None,
                 "critical_c": None, "tools": [], "errors_read": [], "throttle_counters": False}
    nones = []
    for test, segment, number, entry in rounds:
        if not isinstance(entry, dict):
            continue
        if entry.get("none"):
            nones.append(entry["none"])
            continue
        if entry.get("error"):
            out["errors_read"].append(f"{test}{' ' + segment if segment else ''} round {number}: {entry['error']}")
        if not entry.get("before") and not entry.get("after"):
            continue
        out["read"] += 1
        if entry.get("tool") and entry["tool"] not in out["tools"]:
            out["tools"].append(entry["tool"])
        for key in ("warning_c", "critical_c"):
            value = (entry.get("thresholds") or {}).get(key)
            out[key] = value if value is not None else out[key]
        if any(isinstance((entry.get(k) or {}).get("thermal_transitions"), list) for k in ("before", "after")):
            out["throttle_counters"] = True
        judged = judge(entry)
        before, after = entry.get("before") or {}, entry.get("after") or {}
        test_block = out["tests"].setdefault(test, {"series": {}, "marks": []})
        test_block["series"].setdefault(segment, []).append({
            "round": number, "before_c": before.get("temperature_c"), "after_c": after.get("temperature_c"),
            **judged})
        kinds = [kind for kind in KINDS if judged[kind]]
        for kind in kinds:
            if kind != "errors":
                test_block["marks"].append({"round": number, "kind": kind, "series": segment or None})
        if kinds:
            out["marked"].append({"test": test, "segment": segment, "round": number, "kinds": kinds,
                                  "why": judged["why"]})
        if judged["max_c"] is not None and (out["max_c"] is None or judged["max_c"] > out["max_c"]):
            out["max_c"] = judged["max_c"]
            out["max_at"] = {"test": test, "segment": segment, "round": number}
    if nones and not out["read"]:
        out["none"] = nones[0]
    return out


def _ranges(numbers: list[int]) -> str:
    """1, 2, 3, 5 as "1–3, 5": a write saturation hot in every round names its 1,500 rounds in a few characters."""
    spans: list[list[int]] = []
    for number in sorted(set(numbers)):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a}–{b}" for a, b in spans)


def rounds_text(marked: list[dict], kind: str) -> str:
    """The rounds of one kind as a reader scans them: "iops rounds 3, 4; throughput 1024k round 2; wsat rounds 7–90"."""
    groups: dict[tuple[str, str], list[int]] = {}
    for item in marked:
        if kind in item["kinds"]:
            groups.setdefault((item["test"], item["segment"]), []).append(item["round"])
    parts = []
    for (test, segment), numbers in groups.items():
        label = f"{test} {segment}".strip()
        parts.append(f"{label} round{'s' if len(numbers) > 1 else ''} {_ranges(numbers)}")
    return "; ".join(parts)


def entry(probe: dict, before: dict | None, after: dict | None, cost_s: float, error: str | None = None) -> dict:
    """A round's health entry for its round file, from the loop's probe and the two readings."""
    if probe.get("none"):
        return {"none": probe["none"], "cost_s": round(cost_s, 4)}
    out = {"tool": probe.get("tool"), "device": probe.get("device"), "before": before, "after": after,
           "thresholds": probe.get("thresholds") or {}, "cost_s": round(cost_s, 4)}
    if error:
        out["error"] = error
    return out
