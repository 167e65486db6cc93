# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive report's device and setup sections: the identity rows, SMART health table, purge methods, write cache, md
RAID members, host, command line, profile and the tests that ran (assembled by _drive_report.py).
"""

from __future__ import annotations

import os
import shlex

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts_versions import SPEC_NAMES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import CHARACTERISATION, HDD, PTS2_TESTS, PTS_TESTS
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _identity
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds, _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

DASH = md.DASH


def raid_model(drive_dir: str, raid: dict | None) -> dict | None:
    """An md array's record with its members' identities, read from their own drive directories."""
    if not raid:
        return None
    members = []
    for key in raid.get("members") or []:
        path = os.path.join(os.path.dirname(drive_dir), key, "drive.json")
        identity = (_results.read_json(path).get("drive") or {}) if _safe_tree.exists(path) else {}
        members.append({"key": key, **{k: identity.get(k) for k in ("resolved", "vendor", "model", "serial", "firmware")}})
    return dict(raid, member_drives=members)


def _purge_methods(model: dict) -> str:
    methods = set()
    for result in model["tests"].values():
        purges = [result.get("purge")] + [s.get("purge") for s in result.get("segments") or []]
        for purge in filter(None, purges):
            note = (purge.get("note") or "").replace(": not a secure purge", "")
            label = f"`{purge['method']}`" + (f" ({note})" if note else "")
            methods.add(label + ("" if purge.get("secure") else " — **not a secure purge**"))
    return ", ".join(sorted(methods)) or "not run"


def _member_caches(events: list[dict]) -> str:
    """RAID mode: each member's cache as set before the array was built and restored after it was taken down."""
    parts = []
    for member in dict.fromkeys(e["member"] for e in events):
        own = [e for e in events if e["member"] == member]
        text = f"{md.text(member)}: {md.text(own[0].get('note') or None)}"
        restored = [e for e in own if e.get("phase") == "restore"]
        if restored:
            text += "; restored after the array was taken down" + (
                " **failed**: " + md.text(restored[-1].get("msg")) if restored[-1].get("failed") else "")
        parts.append(text)
    return "; ".join(parts)


def _write_cache(model: dict) -> str:
    drive = model["drive"]
    events = (model.get("write_cache") or {}).get("events") or []
    members = [e for e in events if e.get("member")]
    if members:
        return _member_caches(members)
    kernel = f"kernel queue mode: {md.text(drive.get('write_cache') or 'not reported')}"
    if not events:
        state = {True: "enabled", False: "disabled"}.get(drive.get("device_write_cache"), "not read")
        return f"{state} before the run, not set by it ({kernel})"
    text = md.text(events[0].get("note") or None)
    restored = [e for e in events if e.get("phase") == "restore"]
    if restored:
        text += "; restored after the tests" + (" **failed**: " + md.text(restored[-1].get("msg"))
                                                if restored[-1].get("failed") else "")
    text = text if "kernel queue mode" in text else f"{text} ({kernel})"
    if model.get("raid"):
        text += "; **the members' own volatile write caches were not set in this run**"
    return text


HEALTH_ROWS = (("passed", "SMART overall assessment"), ("critical_warning", "Critical warning"),
               ("temperature_c", "Temperature (°C)"), ("percentage_used", "Percentage used (%)"),
               ("available_spare_pct", "Available spare (%)"), ("media_errors", "Media errors"),
               ("error_log_entries", "Error log entries"), ("reallocated_sectors", "Reallocated sectors"),
               ("pending_sectors", "Pending sectors"), ("offline_uncorrectable", "Offline uncorrectable"),
               ("power_on_hours", "Power-on hours"), ("unsafe_shutdowns", "Unsafe shutdowns"),
               ("bytes_written", "Bytes written"), ("bytes_read", "Bytes read"))


def health_table(model: dict) -> list[str]:
    before, after = model["drive"].get("health") or {}, model.get("health_after") or {}
    if not before and not after:
        return []

    def shown(key: str, value) -> str:
        if value is None:
            return DASH
        if key.startswith("bytes_"):
            return f"{value:,} ({format_bytes(value)})"
        if isinstance(value, bool):
            return "passed" if value else "**FAILED**"
        return f"{value:,}" if isinstance(value, int) else md.text(value)

    rows = [[label, shown(key, before.get(key)), shown(key, after.get(key))] for key, label in HEALTH_ROWS
            if before.get(key) is not None or after.get(key) is not None]
    tool = md.text(before.get("tool") or after.get("tool") or None)
    lines = ["", f"Drive health as the drive reports it ({tool}), before and after this run:", ""]
    return lines + md.table(["Item", "Before", "After"], rows, numeric=False)


def _identity_cell(drive: dict, key: str) -> str:
    value = drive.get(key)
    if _identity.placeholder(drive, key):
        return f"{md.text(value)} (a placeholder: a {md.text(drive.get('interface') or 'virtual')} device has none)"
    return md.text(value or None)


def _device_path(drive: dict) -> str:
    path, resolved = drive.get("path"), drive.get("resolved")
    if not resolved or resolved == path:
        return md.code(path or resolved or DASH)
    return f"{md.code(path or DASH)} → {md.code(resolved)}"


def _media(drive: dict) -> str:
    """Media type as far as the drive and kernel tell it (PTS common reporting: media type, e.g. MLC NAND)."""
    if drive.get("media_type"):
        return md.text(drive["media_type"])
    if drive.get("interface") in ("loop", "zram"):
        return f"not a drive (a {md.text(drive['interface'])} device over {'a file' if drive.get('backing_file') else 'memory'})"
    kind = "rotating (HDD)" if drive.get("rotational") else "solid state"
    return f"{kind}, as the kernel's rotational flag says; NAND type not reported by the drive"


def device_rows(model: dict) -> list[list[str]]:
    drive = model["drive"]
    size = drive.get("size_bytes")
    interface = md.text(drive.get("interface") or None)
    if drive.get("backing_file"):
        interface += f" (backing file {md.code(drive['backing_file'])}, direct I/O {'on' if drive.get('direct_io') else 'off'})"
    controller = drive.get("controller") or {}
    rows = [
        ["Vendor", _identity_cell(drive, "vendor")],
        ["Model", _identity_cell(drive, "model")],
        ["Serial number", md.text(drive.get("serial") or None)],
        ["WWN", md.text(drive.get("wwn") or None)],
        ["Firmware", md.text(drive.get("firmware") or None)],
        ["User capacity", f"{size:,} bytes ({format_bytes(size)})" if size else DASH],
        ["Interface", interface],
        ["Link speed", md.text(drive.get("link_speed") or "not reported by the drive")],
        ["Form factor", md.text(drive.get("form_factor") or "not reported by the drive")],
        ["Media type", _media(drive)],
        ["Host bus adapter", ", ".join(f"{md.text(k)} {md.text(v)}" for k, v in controller.items() if v) or "not visible"],
        ["Device", _device_path(drive)],
        ["Logical / physical sector", f"{md.text(drive.get('logical_block_size', DASH))} / "
                                      f"{md.text(drive.get('physical_block_size', DASH))} bytes"],
        ["Rotational (as the kernel reports it)", "yes" if drive.get("rotational") else "no"],
        ["Volatile write cache", _write_cache(model)],
        ["Purge method", _purge_methods(model)],
        ["Purge methods the drive supports", ", ".join(f"`{m}`" for m in drive.get("purge_methods") or []) or DASH],
    ]
    if drive.get("described"):
        rows.append(["From the description file", ", ".join(md.text(f) for f in drive["described"])])
    if drive.get("notes"):
        rows.append(["Notes (description file)", md.text(drive["notes"])])
    return rows + _raid_rows(model)


def _data_pattern(options: dict) -> str:
    """The data pattern as the job files set it (PTS: random data, reported)."""
    shaping = [f"{k}={options[k]}" for k in ("buffer_pattern", "buffer_compress_percentage", "zero_buffers")
               if options.get(k)]
    if shaping:
        return "non-random: " + ", ".join(shaping)
    flags = [f"{k}={options[k]}" for k in ("refill_buffers", "randrepeat", "norandommap") if k in options]
    return "random (fio's default buffers)" + (", " + ", ".join(flags) if flags else "")


def _active_range(options: dict) -> str:
    if not options.get("offset") and not options.get("size"):
        return "0–100 % of the LBA space"
    return f"offset={options.get('offset', '0')}, size={options.get('size', 'rest of the device')}"


def _versions(model: dict) -> str:
    recorded = sorted({t["collection_version"] for t in model["tests"].values() if t.get("collection_version")})
    shown = ", ".join(recorded) or "unknown"
    if recorded != [_results.collection_version()]:
        shown += f" (report rendered by {_results.collection_version()})"
    return shown


def _specifications(tests: dict) -> str:
    spec = _tests.spec_of(tests)
    pts = ((SPEC_NAMES["2.0"], PTS_TESTS + PTS2_TESTS),) if spec == "2.0" else \
        ((SPEC_NAMES["1.1"], PTS_TESTS), (SPEC_NAMES["2.0"], PTS2_TESTS))
    groups = pts + (("Myce/OakGate characterisation", CHARACTERISATION), ("TKperf HDD mode", HDD))
    parts = []
    for label, names in groups:
        titles = [t["title"] for name, t in tests.items() if name in names]
        if titles:
            parts.append(f"{label} ({', '.join(titles)})")
    return "; ".join(parts)


def _raid_rows(model: dict) -> list[list[str]]:
    """An md array's layout as mdadm reported it, or the operator's description of a hardware RAID volume."""
    drive = model["drive"]
    record = model.get("raid") or {}
    raid = record.get("array") or {}
    rows = []
    if raid:
        chunk = f", chunk {raid['chunk_kib']} KiB" if raid.get("chunk_kib") else ""
        rows.append(["RAID layout", f"Linux md {md.code(raid.get('path'))} ({md.text(raid.get('resolved'))}): "
                                    f"{md.text(raid.get('level'))}, {md.text(raid.get('raid_devices'))} members{chunk}, "
                                    f"metadata {md.text(raid.get('metadata'))}, "
                                    f"bitmap {md.text(raid.get('bitmap') or 'none')}, built with "
                                    f"{'--assume-clean (no initial resync)' if raid.get('assume_clean') else 'a resync'}"])
        for index, member in enumerate(record.get("member_drives") or [], 1):
            rows.append([f"RAID member {index}", f"{md.text(member['key'])}: {md.code(member.get('resolved'))} "
                                                 f"{md.text(member.get('vendor') or '')} {md.text(member.get('model') or '')}, "
                                                 f"serial {md.text(member.get('serial') or None)}, "
                                                 f"firmware {md.text(member.get('firmware') or None)}"])
        teardown = record.get("teardown")
        if not teardown:
            done = "not recorded (the run stopped before it)"
        elif teardown.get("failed"):
            done = f"failed: {md.text(teardown.get('msg'))}"
        else:
            done = (f"stopped {', '.join(md.text(a) for a in teardown.get('stopped') or []) or 'nothing'}; superblocks "
                    f"zeroed on {', '.join(md.text(m) for m in teardown.get('zeroed') or []) or 'no member'}"
                    + "".join(f"; skipped {md.text(s)}" for s in teardown.get("skipped") or [])
                    + f" ({md.text(teardown.get('recorded_at'))})")
        rows.append(["RAID teardown", done])
    controller = (drive.get("spec") or {}).get("raid_controller")
    if controller:
        rows.append(["Hardware RAID (as the operator describes it)", md.text(controller)])
    return rows


def _host_cell(model: dict) -> str:
    hostname = model["host_info"].get("hostname")
    if not hostname or hostname == model["host"]:
        return md.text(model["host"])
    return f"{md.text(model['host'])} (inventory name); hostname {md.text(hostname)}"


def _cpu_cell(host: dict) -> str:
    count = host.get("cpu_count")
    return md.text(host.get("cpu_model") or None) + (f", {md.plural(int(count), 'logical CPU')}" if count else "")


def _system_cell(host: dict) -> str:
    """Test system manufacturer and model (PTS common reporting), from DMI where the host records it."""
    parts = [host.get(k) for k in ("system_vendor", "system_model") if host.get(k)]
    if parts:
        return md.text(" ".join(parts))
    if "dmi" not in host:
        return "not recorded (results from a version that did not read DMI)"
    return "not reported (the host's DMI names none)" if host["dmi"] else "not reported (the host has no DMI tables)"


def _board_cell(host: dict) -> str:
    """The motherboard's maker and name (OakGate's platform line), from DMI where the host records it."""
    parts = [host.get(k) for k in ("board_vendor", "board_name") if host.get(k)]
    if parts:
        return md.text(" ".join(parts))
    if "board_name" not in host:
        return "not recorded (results from a version that did not read it)"
    return "not reported (the host's DMI names none)" if host.get("dmi") else "not reported (the host has no DMI tables)"


def _memory_cell(host: dict, memory: int | None) -> str:
    """The host's memory: its size (the kernel's), and the DRAM type, modules and speed where the firmware's SMBIOS
    table tells them (OakGate)."""
    size = format_bytes(memory) if memory else DASH
    modules = host.get("memory_modules")
    if modules:
        speed = modules.get("configured_mts") or modules.get("speed_mts")
        return md.text(f"{size}; {modules['type']}, {md.plural(modules['modules'], 'module')}"
                       + (f" at {speed:,} MT/s" if speed else "") + " (the firmware's SMBIOS table)")
    if "memory_modules" not in host:
        return f"{size}; DRAM type not recorded (results from a version that did not read it)"
    return f"{size}; DRAM type not reported (no SMBIOS memory device readable on the host)"


def _command_cell(model: dict) -> str:
    command = model.get("command") or {}
    argv = command.get("argv")
    if not argv:
        return "not recorded"
    # Quoted as a shell takes it back: pasted, it gives ansible-playbook the same arguments.
    shown = [md.code(shlex.join(str(a) for a in argv))]
    extra = command.get("extra_vars") or []
    if extra:
        shown.append("extra variables " + ", ".join(md.code("-e " + shlex.quote(str(e))) for e in extra))
    return "; ".join(shown) + f" (the command that wrote the plan, {md.text(command.get('recorded_at'))})"


def _person(model: dict, who: str, missing: str) -> str:
    """A person's name as given, whole; where Ansible's key=value parsing cut it, how to give it next time."""
    name = (model.get("people") or {}).get(who)
    if not name:
        return missing.format(who)
    note = (model.get("people_notes") or {}).get(who)
    return md.text(name) + (f" ({md.text(note)})" if note else "")


def _profile_cell(model: dict, settings: dict) -> str:
    profile = settings.get("profile", DASH)
    if model["quick_profile"]:
        return f"{md.text(profile)} (**not a qualification**: seconds per run, a few rounds)"
    return md.text(profile)


def setup_rows(model: dict) -> list[list[str]]:
    host = model["host_info"]
    memory = host.get("memory_bytes")
    missing = "not recorded (give -e 'pts_report_{0}=\"NAME\"' to ansible-playbook)"
    rows = [
        ["Run", md.code(model["run_id"])],
        ["Report date", md.text(model.get("report_date")) + " (when the last result shown was recorded)"],
        ["Test operator", _person(model, "operator", missing)],
        ["Auditor", _person(model, "auditor", missing)],
        ["Command line", _command_cell(model)],
        ["Host", _host_cell(model)],
        ["Test system (manufacturer / model)", _system_cell(host)],
        ["Motherboard", _board_cell(host)],
        ["Operating system", f"{md.text(host.get('os') or None)}, kernel {md.text(host.get('kernel') or None)} "
                             f"({md.text(host.get('architecture') or None)})"],
        ["CPU", _cpu_cell(host)],
        ["Memory (DRAM)", _memory_cell(host, memory)],
    ]
    tests = model["tests"]
    if not tests:
        return rows + [["fio", md.text(host.get("fio_version") or None)]]
    fio = next((t.get("fio_version") for t in tests.values() if t.get("fio_version")), None)
    options = next((t.get("fio_options") for t in tests.values() if t.get("fio_options")), {}) or {}
    settings = next((t.get("settings") for t in tests.values() if t.get("settings")), {}) or {}
    started = [t["started_at"] for t in tests.values() if t.get("started_at")]
    finished = [t["finished_at"] for t in tests.values() if t.get("finished_at")]
    return rows + [
        ["Test software", f"fleetqual.pts {md.text(_versions(model))}, {md.text(fio or host.get('fio_version') or 'fio')}"],
        ["Test specification", _specifications(tests)],
        ["Test mode", next((t["settings"]["mode_reason"] for t in tests.values()
                            if (t.get("settings") or {}).get("mode_reason")), "SSD")],
        ["Test dates (UTC)", f"{min(started) if started else DASH} – {max(finished) if finished else DASH}"],
        ["I/O engine", f"{options.get('ioengine', DASH)}, direct={options.get('direct', '0')}"],
        ["Data pattern", _data_pattern(options)],
        ["Active range", _active_range(options)],
        ["Profile", _profile_cell(model, settings)],
    ]


def tests_table(model: dict) -> list[str]:
    """Per test: OIO, time per run, verdict and how long it took (PTS: report OIO per test)."""
    rows = []
    for name, result in model["tests"].items():
        settings = result.get("settings") or {}
        numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
        depths = (settings.get("sweep") or {}).get("queue_depths")
        oio = f"{numjobs} × {iodepth} = {numjobs * iodepth}" if numjobs and iodepth else DASH
        if depths:
            oio = f"{numjobs} × {min(depths)}–{max(depths)} (swept)"
        rows.append([result["title"], oio, f"{settings.get('round_seconds', DASH)} s",
                     _sections.rounds_text(result, _kinds.of(name)), result["status"], _headline_figures.duration(result.get("wall_s"))])
    return md.table(["Test", "Threads × QD = OIO", "Per run", "Rounds", "Result", "Wall time"], rows, numeric=False)
