# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's report (report.md, plots/*.png, result.json), rebuilt from its results directory alone."""

from __future__ import annotations

import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import PTS_TESTS, TESTS, TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._sweeps import CHARACTERISATION, HDD
from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _characterisation, _hdd, _iops, _latency, _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _identity, _results, _throughput, _wsat
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _markdown as md

QUICK_BANNER = "quick profile — not a qualification"
DASH = md.DASH
TEST_MODULES = dict({"iops": _iops, "throughput": _throughput, "latency": _latency, "wsat": _wsat},
                    **{name: _characterisation for name in _characterisation.SECTIONS},
                    hdd_iops=_hdd, hdd_throughput=_hdd)


def build_model(drive_dir: str) -> dict:
    """Everything the report shows, computed from the files on disk."""
    loaded = _results.load_drive(drive_dir)
    identity = loaded["identity"]
    raid = _raid_model(drive_dir, loaded.get("raid"))
    drive = identity.get("drive") or {}
    if raid and not drive.get("model"):
        # An md array has no model of its own: name it by its layout, so the fleet summary groups like arrays.
        array = raid.get("array") or {}
        models = sorted({m.get("model") or "?" for m in raid["member_drives"]})
        drive = dict(drive, vendor="Linux md", model=f"{array.get('level')} of {len(raid['member_drives'])} × "
                                                     f"{', '.join(models)}")
    tests = {name: TEST_MODULES[name].build(loaded["tests"][name]) for name in TESTS if name in loaded["tests"]}
    quick = any((t.get("settings") or {}).get("profile") == "quick" for t in tests.values())
    return {
        "schema": _results.SCHEMA,
        "host": identity.get("host") or os.path.basename(os.path.dirname(drive_dir)),
        "drive_key": os.path.basename(drive_dir),
        "run_id": os.path.basename(os.path.dirname(os.path.dirname(drive_dir))),
        "drive": drive,
        "host_info": identity.get("host_info") or {},
        "guard": loaded["guard"],
        "guard_refused": loaded.get("guard_refused"),
        "drive_refused": loaded.get("drive_refused"),
        "write_cache": loaded.get("write_cache"),
        "health_after": loaded.get("health_after"),
        "raid": raid,
        "raid_member": loaded.get("raid_member"),
        "quick_profile": quick,
        "tests": tests,
        "failed_before_rounds": failed_before_rounds(drive_dir, loaded["tests"]),
    }


def _raid_model(drive_dir: str, raid: dict | None) -> dict | None:
    """An md array's record with its members' identities, read from their own drive directories."""
    if not raid:
        return None
    members = []
    for key in raid.get("members") or []:
        path = os.path.join(os.path.dirname(drive_dir), key, "drive.json")
        identity = (_results.read_json(path).get("drive") or {}) if os.path.exists(path) else {}
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


def _health_table(model: dict) -> list[str]:
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


def _device_rows(model: dict) -> list[list[str]]:
    drive = model["drive"]
    size = drive.get("size_bytes")
    interface = md.text(drive.get("interface") or None)
    if drive.get("backing_file"):
        interface += f" (backing file {md.code(drive['backing_file'])}, direct I/O {'on' if drive.get('direct_io') else 'off'})"
    controller = drive.get("controller") or {}
    rows = [
        ["Vendor", md.text(drive.get("vendor") or None)],
        ["Model", md.text(drive.get("model") or None)],
        ["Serial number", md.text(drive.get("serial") or None)],
        ["WWN", md.text(drive.get("wwn") or None)],
        ["Firmware", md.text(drive.get("firmware") or None)],
        ["User capacity", f"{size:,} bytes ({format_bytes(size)})" if size else DASH],
        ["Interface", interface],
        ["Host bus adapter", ", ".join(f"{md.text(k)} {md.text(v)}" for k, v in controller.items() if v) or "not visible"],
        ["Device", f"{md.code(drive.get('path', DASH))} → {md.code(drive.get('resolved', DASH))}"],
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
    groups = (("SNIA SSS PTS Enterprise 1.1", PTS_TESTS), ("Myce/OakGate characterisation", CHARACTERISATION),
              ("TKperf HDD mode", HDD))
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


def _setup_rows(model: dict) -> list[list[str]]:
    host = model["host_info"]
    memory = host.get("memory_bytes")
    rows = [
        ["Run", md.code(model["run_id"])],
        ["Host", f"{md.text(model['host'])} ({md.text(host.get('hostname') or None)})"],
        ["Operating system", f"{md.text(host.get('os') or None)}, kernel {md.text(host.get('kernel') or None)} "
                             f"({md.text(host.get('architecture') or None)})"],
        ["CPU", f"{md.text(host.get('cpu_model') or None)} × {md.text(host.get('cpu_count') or None)}"],
        ["Memory", format_bytes(memory) if memory else DASH],
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
        ["Profile", f"{settings.get('profile', DASH)}" + (f" — **{QUICK_BANNER}**" if model["quick_profile"] else "")],
    ]


def _tests_table(model: dict) -> list[str]:
    """Per test: OIO, time per run, verdict and how long it took (PTS: report OIO per test)."""
    rows = []
    for result in model["tests"].values():
        settings = result.get("settings") or {}
        numjobs, iodepth = settings.get("numjobs"), settings.get("iodepth")
        depths = (settings.get("sweep") or {}).get("queue_depths")
        oio = f"{numjobs} × {iodepth} = {numjobs * iodepth}" if numjobs and iodepth else DASH
        if depths:
            oio = f"{numjobs} × {min(depths)}–{max(depths)} (swept)"
        wall = result.get("wall_s")
        rows.append([result["title"], oio, f"{settings.get('round_seconds', DASH)} s", str(result.get("rounds_run", 0)),
                     result["status"], f"{wall / 60:,.1f} min" if wall is not None else DASH])
    return md.table(["Test", "Threads × QD = OIO", "Per run", "Rounds", "Result", "Wall time"], rows, numeric=False)


def failed_step_text(test: str, failure: dict) -> str:
    """A test that failed before its first round (its purge, as a rule), in words; the caller escapes it."""
    where = failure.get("phase") or "purge"
    segment = f" {failure['segment']}" if failure.get("segment") else ""
    return f"{test}{segment}: the {where} failed before the first round: {failure.get('msg') or 'no reason recorded'}"


def _failed_step(test: str, failure: dict) -> str:
    return md.text(failed_step_text(TITLES.get(test, test), failure)) + (
        f" ({md.text(failure['recorded_at'])})" if failure.get("recorded_at") else "")


def failed_before_rounds(drive_dir: str, loaded: dict) -> dict:
    """Per test, the failure recorded in a test (or segment) directory that holds nothing else: a purge that was
    refused or failed leaves only failure.json, which the results loader does not count as a test."""
    found = {}
    for name in TESTS:
        if name in loaded:
            continue
        test_dir = os.path.join(drive_dir, name)
        if not os.path.isdir(test_dir):
            continue
        candidates = [("", test_dir)] + [(entry, os.path.join(test_dir, entry)) for entry in sorted(os.listdir(test_dir))
                                         if os.path.isdir(os.path.join(test_dir, entry))]
        for segment, path in candidates:
            failure_file = os.path.join(path, "failure.json")
            if os.path.exists(failure_file):
                found[name] = dict(_results.read_json(failure_file), segment=segment or None)
                break
    return found


def _verdict_summary(result: dict) -> str:
    text = f"{result['title']}: **{result['status']}**"
    if result.get("steady_round"):
        text += f" (round {result['steady_round']})"
    return text


def render_markdown(model: dict, plots: dict) -> str:
    lines = [f"# PTS report — {md.text(model['drive_key'])} on {md.text(model['host'])}", ""]
    if model["quick_profile"]:
        lines += [f"> **{QUICK_BANNER.capitalize()}.** Seconds per combination run on a small device: the "
                  "figures show the harness works; they do not qualify a drive.", ""]
    throttled = sorted({t["fio_options"]["rate_iops"] for t in model["tests"].values()
                        if (t.get("fio_options") or {}).get("rate_iops")})
    if throttled:
        lines += [f"> **Throttled** (fio rate_iops={', '.join(throttled)} per job): a harness benchmark, not a "
                  "qualification.", ""]
    lines += [f"Run {md.code(model['run_id'])}" + "".join(" · " + _verdict_summary(r) for r in model["tests"].values()), ""]
    guard = model.get("guard") or {}
    member = model.get("raid_member")
    if member and not model["tests"]:
        lines += [f"> **Tested as a member of the md array {md.code(member['array'])}** (RAID mode): see "
                  f"[its report](../{_results.safe_name(member['array'])}/report.md).", ""]
    elif guard and not guard.get("passed"):
        lines += ["> **Refused by the guard — nothing was written to this drive:**", ">"]
        lines += [f"> - {md.text(reason)}" for reason in guard.get("refusals") or []]
        lines.append("")
    elif not model["tests"] and model.get("failed_before_rounds"):
        lines += ["> **No test ran on this drive:** a step before the first round failed, so no figure was measured:",
                  ">"]
        lines += [f"> - {_failed_step(name, failure)}" for name, failure in model["failed_before_rounds"].items()]
        lines.append("")
    elif not model["tests"]:
        lines += ["> **No test ran on this drive.** " + (
            "The guard passed it, but the run stopped before its tests (another drive of the host was refused, or "
            "an earlier step failed: see the playbook output)." if guard else
            "The guard did not run for it in this run."), ""]
    later = model.get("guard_refused")
    if later:
        lines += [f"> **A later attempt of this run was refused by the guard** ({md.text(later.get('recorded_at'))}); "
                  "nothing was written then, and the results below are from the attempt the guard passed:", ">"]
        lines += [f"> - {md.text(reason)}" for reason in later.get("refusals") or []]
        lines.append("")
    other = model.get("drive_refused")
    if other:
        lines += [f"> **Another drive was listed under this name in a later attempt** "
                  f"({md.text(_identity.describe(other.get('drive') or {}))}); the run refused it before any write, "
                  "and the results below are this drive's.", ""]
    if model["tests"] and model.get("failed_before_rounds"):
        lines += ["> **Tests that did not start:**", ">"]
        lines += [f"> - {_failed_step(name, failure)}" for name, failure in model["failed_before_rounds"].items()]
        lines.append("")
    # The steady-state rule matters to the PTS tests; a report of sweeps alone (characterisation, HDD) leaves it out.
    steady_rule = not model["tests"] or any(name in PTS_TESTS for name in model["tests"])
    sections = ["Device information", "Setup information"] + (["Steady state"] if steady_rule else []) + \
        [t["title"] for t in model["tests"].values()]
    lines += ["## Contents", ""]
    for number, title in enumerate(sections, 1):
        # GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
        anchor = re.sub(r"[^a-z0-9 -]", "", f"{number} {title}".lower()).replace(" ", "-")
        lines.append(f"{number}. [{title}](#{anchor})")
    lines += ["", "## 1 Device information", ""]
    lines += md.table(["Item", "Value"], _device_rows(model), numeric=False)
    lines += _health_table(model)
    lines += ["", "## 2 Setup information", ""]
    lines += md.table(["Item", "Value"], _setup_rows(model), numeric=False)
    if model["tests"]:
        lines += ["", "Tests run, in order:", ""]
        lines += _tests_table(model)
    settings = next((t.get("settings") for t in model["tests"].values() if t.get("settings")), {}) or {}
    window = settings.get("window", 5)
    lines += [] if not steady_rule else [
        "", "## 3 Steady state", "",
        "A test runs in rounds; each round yields its dependent variables (DV). Steady state is judged over the "
        f"measurement window, the last {window} rounds (SNIA PTS definition 2.1.18), and holds when both:", "",
        f"- the data excursion, max − min of the DV in the window, is at most "
        f"{settings.get('max_data_excursion_pct', 20):g} % of the window average, and",
        f"- the slope excursion, the change of the least-squares best-fit line across the window "
        f"(|slope| × {window - 1} rounds), is at most {settings.get('max_slope_excursion_pct', 10):g} % of the window "
        "average.", "",
        f"Measurement window: **{window} rounds**. Maximum rounds: **{settings.get('max_rounds', DASH)}**. Rounds are "
        "numbered from 1. When the limit is reached without a steady window, the last rounds are reported and "
        "marked *not steady*. Write saturation has no steady state: it runs until its capacity or time limit"
        + ("; the characterisation and HDD tests have none either: each runs its sweep once."
           if any(name not in PTS_TESTS for name in model["tests"]) else "."), "",
    ]
    capacity = int(model["drive"].get("size_bytes") or 0)
    for number, (name, result) in enumerate(model["tests"].items(), 4 if steady_rule else 3):
        lines += TEST_MODULES[name].section(result, plots.get(name, {}), number, capacity)
    return "\n".join(lines).rstrip() + "\n"


def write_drive_report(drive_dir: str) -> dict:
    """Rebuild report.md, plots/*.png and result.json for one drive; return their paths."""
    model = build_model(drive_dir)
    subtitle = f"{QUICK_BANNER} · run {model['run_id']}" if model["quick_profile"] else f"run {model['run_id']}"
    prefix = md.plot_label(f"{model['drive_key']} ({model['drive'].get('model') or 'drive'})")
    plot_dir = os.path.join(drive_dir, "plots")
    plots = {}
    if _plots.available():
        for name, result in model["tests"].items():
            if result.get("rounds_run"):
                drawn = TEST_MODULES[name].plots(result, plot_dir, prefix, subtitle)
                plots[name] = {k: os.path.relpath(v, drive_dir) for k, v in drawn.items()}
    model["plots"] = plots
    report = os.path.join(drive_dir, "report.md")
    result_json = os.path.join(drive_dir, "result.json")
    _results.atomic_write_text(report, render_markdown(model, plots))
    _results.atomic_write_json(result_json, model)
    return {"report": report, "result": result_json, "plots": plots, "model": model}
