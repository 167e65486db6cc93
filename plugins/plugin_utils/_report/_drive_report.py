# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's report (report.md, plots/*.png, result.json), rebuilt from its results directory alone."""

from __future__ import annotations

import json
import os
import shlex
from types import SimpleNamespace

import yaml

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._spec import PTS2_TESTS, PTS_TESTS, TESTS, TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts2 import SPEC_NAMES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sweeps import CHARACTERISATION, HDD
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _characterisation, _hdd, _health_plots, _hir
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _identity, _judge
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html, _intensity, _iops, _latency
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _hir_md, _hir_plots, _intensity_md, _intensity_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _xsr_md, _xsr_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots, _previous, _split
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _summary, _tests, _throughput
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _wsat, _xsr
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

QUICK_BANNER = "quick profile — not a qualification"
# The PTS 2.0 tests with a steady-state phase (a preconditioning, a TC × QD loop).
STEADY_PHASES = ("hir", "cbw", "dirth")
DASH = md.DASH
# A test's report in its parts when it has more than one file: the model (build), the figures (plots), the section.
_INTENSITY = SimpleNamespace(build=_intensity.build, plots=_intensity_plots.plots, section=_intensity_md.section)
_HIR = SimpleNamespace(build=_hir.build, plots=_hir_plots.plots, section=_hir_md.section)
_XSR = SimpleNamespace(build=_xsr.build, plots=_xsr_plots.plots, section=_xsr_md.section)
TEST_MODULES = dict({"iops": _iops, "throughput": _throughput, "latency": _latency, "wsat": _wsat},
                    **{name: _characterisation for name in _characterisation.SECTIONS},
                    hdd_iops=_hdd, hdd_throughput=_hdd, hir=_HIR, xsr=_XSR, cbw=_INTENSITY, dirth=_INTENSITY)


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
    round_health = _health.summarize(health_entries(loaded["tests"]))
    quick = any((t.get("settings") or {}).get("profile") == "quick" for t in tests.values())
    recorded = _judge.plan(os.path.dirname(drive_dir))
    model = {
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
        "round_health": round_health,
        "raid": raid,
        "raid_member": loaded.get("raid_member"),
        "quick_profile": quick,
        "tests": tests,
        "failed_before_rounds": failed_before_rounds(drive_dir, loaded["tests"]),
        "command": (recorded or {}).get("command"),
        "report_date": report_date(tests, identity),
        "people": people((recorded or {}).get("command"), (recorded or {}).get("plan")),
        "estimate": estimate((recorded or {}).get("plan"), os.path.basename(drive_dir)),
    }
    model["previous"] = _previous.find(drive_dir, model)
    model["headline"] = _headline.block(model)
    model["verdict"] = _judge.judge(drive_dir, model, recorded)
    model["wear"] = wear_model(loaded, drive, (recorded or {}).get("plan"), model["drive_key"])
    return model


def report_date(tests: dict, identity: dict) -> str:
    """The report's date: when the last result it shows was recorded (its last round, else the drive's
    identification), so a report rebuilt from the same files reads the same, byte for byte."""
    found = [t["finished_at"] for t in tests.values() if t.get("finished_at")]
    if not found and identity.get("recorded_at"):
        found = [identity["recorded_at"]]
    if not found:
        return "not recorded"
    return max(found)[:16].replace("T", " ") + " UTC"


# The report's people (PTS common reporting: test operator, auditor), given on the command line that wrote the plan
# (-e pts_report_operator=... -e pts_report_auditor=...) or, should the plan record them, as plan variables.
PEOPLE = {"operator": "pts_report_operator", "auditor": "pts_report_auditor"}


def _extra_vars(entries: list) -> dict:
    """The key=value and JSON/YAML mappings of ansible-playbook's -e arguments (an @file is not read)."""
    found: dict = {}
    for entry in entries or []:
        text = str(entry).strip()
        if text.startswith("@"):
            continue
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError:
                try:
                    value = yaml.safe_load(text)
                except yaml.YAMLError:
                    value = None
            if isinstance(value, dict):
                found.update(value)
            continue
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        found.update(word.split("=", 1) for word in words if "=" in word)
    return found


def people(command: dict | None, plan: dict | None) -> dict:
    """Test operator and auditor as the run recorded them; None where it did not."""
    given = _extra_vars((command or {}).get("extra_vars") or [])
    variables = (plan or {}).get("variables") or {}
    return {who: (str(given.get(name) or variables.get(name) or "").strip() or None) for who, name in PEOPLE.items()}


def estimate(plan: dict | None, key: str) -> dict:
    """The plan's estimate of the drive's wall time per test (min, max seconds), as it was made before the first
    write; empty without a plan for the drive."""
    own = next((d for d in (plan or {}).get("drives") or [] if d.get("key") == key), None)
    return {t["test"]: {"min_s": t.get("min_s"), "max_s": t.get("max_s")} for t in (own or {}).get("tests") or []
            if t.get("test") and t.get("min_s") is not None}


def footer(model: dict) -> str:
    """The running footer of every PDF page (OakGate's): model, serial, firmware, run and date."""
    drive = model["drive"]
    return (f"{drive.get('model') or 'no model'} · serial {drive.get('serial') or '—'} · firmware "
            f"{drive.get('firmware') or '—'} · run {model['run_id']} · {model.get('report_date')}")


def _written(record: dict | None) -> int:
    """fio's write bytes in one round or preconditioning record (all its jobs)."""
    jobs = ((record or {}).get("fio") or {}).get("jobs") or []
    return sum(int((job.get("write") or {}).get("io_bytes") or 0) for job in jobs)


def _readings(record: dict) -> tuple[dict | None, dict | None]:
    """The drive's health readings just before and just after one round (none for rounds of older runs)."""
    entry = (record.get("fio") or {}).get("health")
    entry = entry if isinstance(entry, dict) else {}
    return entry.get("before"), entry.get("after")


def wear_model(loaded: dict, drive: dict, plan: dict | None, key: str) -> dict:
    """What the run wrote to the drive, per test and in all - the host's bytes from fio's records, the drive's own
    counters from its health readings - and the plan's estimate of it before the first write."""
    per_test = []
    for name in TESTS:
        test = loaded["tests"].get(name)
        if not test:
            continue
        segments = test.get("segments") or {}
        # A test's preconditioning is filed with the test (wipc.json), or with each segment it runs before.
        preconditions = [test.get("wipc")] + [seg.get("wipc") for seg_name, seg in segments.items() if seg_name]
        per_test.append({
            "test": name,
            "precondition_bytes": sum(_written(p) for p in preconditions if p),
            "rounds_bytes": sum(_written(r) for seg in segments.values() for r in seg.get("rounds") or []),
            "segments": [[_readings(r) for r in seg.get("rounds") or []] for seg in segments.values()],
        })
    wear = _wear.measured(per_test, drive.get("health"), loaded.get("health_after"))
    own = next((d for d in (plan or {}).get("drives") or [] if d.get("key") == key), None)
    wear["estimate"] = (own or {}).get("wear")
    return wear


def wear_section(model: dict, number: int) -> list[str]:
    """Bytes written per test and in all, by the host and by the drive's own counter, beside the plan's estimate."""
    wear = model.get("wear") or {}

    def size(value) -> str:
        return DASH if value is None else format_bytes(value)

    lines = [f"## {number} Wear", ""]
    counter = wear.get("counter")
    lines += ["Bytes written to the drive: by the host as fio counted them (each preconditioning and round), and as "
              "the drive's own host-writes counter counted them"
              + (f" ({md.text(counter)}: over each test's rounds, and from identification to after the tests for the "
                 "run)" if counter else " (**the drive reports no write counter**)") + ".", ""]
    rows = [[md.text(TITLES.get(t["test"], t["test"])), size(t["precondition_bytes"]), size(t["rounds_bytes"]),
             size(t["drive_bytes_written"]), md.fmt(t["write_amplification"], 2)] for t in wear.get("tests") or []]
    rows.append(["**Run**", "", f"**{size(wear.get('host_bytes_written'))}** (all)",
                 f"**{size(wear.get('drive_bytes_written'))}**", md.fmt(wear.get("write_amplification"), 2)])
    lines += md.table(["Test", "Preconditioning (host)", "Rounds (host)", "Drive's counter", "Write amplification"],
                      rows, numeric=False)
    if not counter and wear.get("nand_note"):
        why = "none: the device reports no write counters."
    elif wear.get("nand_note"):
        why = md.text(wear["nand_note"]) + "."
    else:
        why = "the growth of the drive's NAND-writes counter over that of its host-writes counter."
    lines += ["", f"Write amplification: {why}"]
    estimate = wear.get("estimate")
    if estimate:
        lines += ["", f"Before the first write the plan estimated (an upper bound): {md.text(estimate.get('text'))}."]
    return lines + [""]


def health_entries(loaded_tests: dict) -> list[tuple[str, str, int, dict]]:
    """Every round's health entry (test, segment, round, entry) in test order, as pts_segment filed it with the round
    (its fio record's ``health``); rounds of older runs have none."""
    entries = []
    for name in TESTS:
        for segment, loaded in ((loaded_tests.get(name) or {}).get("segments") or {}).items():
            for record in loaded.get("rounds") or []:
                entry = (record.get("fio") or {}).get("health")
                if isinstance(entry, dict) and record.get("round") is not None:
                    entries.append((name, segment, int(record["round"]), entry))
    return entries


def health_section(model: dict, plots: dict, number: int) -> list[str]:
    """The drive's health per round: how it was read, the rounds it throttled, ran hot or counted errors in, and
    each test's temperature plot."""
    health = model.get("round_health") or {}
    lines = [f"## {number} Drive health per round", ""]
    lines += [f"Read on the host with {md.text(', '.join(health.get('tools') or []) or None)} just before each round's "
              "fio started and just after it ended, so the reading is outside fio's measuring time: the temperature "
              "after a round is the closest to its peak. A round is marked **throttled** when a thermal-management "
              "transition counter (or its time) grew during it, **warning** when the warning or critical "
              "temperature time grew, the critical warning's temperature bit was set, or a reading reached the "
              "drive's warning threshold, and **errors** when an error counter grew.", ""]
    lines += _summary.round_health_lines(health)
    marked = health.get("marked") or []
    if marked:
        rows = [[md.text(TITLES.get(m["test"], m["test"])), md.text(m["segment"] or DASH), str(m["round"]),
                 ", ".join(m["kinds"]), md.text("; ".join(m["why"]))] for m in marked]
        shown, note = _sections.sampled(rows)
        lines += md.table(["Test", "Segment", "Round", "Marked", "Evidence (before → after the round)"], shown,
                          numeric=False) + (["", note] if note else []) + [""]
    drawn = {name: (plots.get(name) or {}).get("temperature") for name in health.get("tests") or {}}
    lines += _sections.images({k: v for k, v in drawn.items() if v}, {
        name: f"{TITLES.get(name, name)}: the drive's temperature before (hollow) and after (filled) each round, its "
              "thresholds dashed; rounds at or past the warning temperature shaded, throttled rounds crossed."
        for name in drawn})
    return lines


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


def _device_rows(model: dict) -> list[list[str]]:
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


def _command_cell(model: dict) -> str:
    command = model.get("command") or {}
    argv = command.get("argv")
    if not argv:
        return "not recorded"
    shown = [md.code(" ".join(str(a) for a in argv))]
    extra = command.get("extra_vars") or []
    if extra:
        shown.append("extra variables " + ", ".join(md.code(e) for e in extra))
    return "; ".join(shown) + f" (the command that wrote the plan, {md.text(command.get('recorded_at'))})"


def _profile_cell(model: dict, settings: dict) -> str:
    profile = settings.get("profile", DASH)
    if model["quick_profile"]:
        return f"{md.text(profile)} (**not a qualification**: seconds per run, a few rounds)"
    return md.text(profile)


def _setup_rows(model: dict) -> list[list[str]]:
    host = model["host_info"]
    memory = host.get("memory_bytes")
    who = model.get("people") or {}
    missing = "not recorded (give -e pts_report_{0}=NAME to ansible-playbook)"
    rows = [
        ["Run", md.code(model["run_id"])],
        ["Report date", md.text(model.get("report_date")) + " (when the last result shown was recorded)"],
        ["Test operator", md.text(who["operator"]) if who.get("operator") else missing.format("operator")],
        ["Auditor", md.text(who["auditor"]) if who.get("auditor") else missing.format("auditor")],
        ["Command line", _command_cell(model)],
        ["Host", _host_cell(model)],
        ["Test system (manufacturer / model)", _system_cell(host)],
        ["Operating system", f"{md.text(host.get('os') or None)}, kernel {md.text(host.get('kernel') or None)} "
                             f"({md.text(host.get('architecture') or None)})"],
        ["CPU", _cpu_cell(host)],
        ["Memory (DRAM)", format_bytes(memory) if memory else DASH],
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
        rows.append([result["title"], oio, f"{settings.get('round_seconds', DASH)} s", _sections.rounds_text(result),
                     result["status"], _headline.duration(result.get("wall_s"))])
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


def _outputs_note(outputs: dict | None) -> list[str]:
    """Which of report.html and report.pdf were made, and why one was not."""
    missing = (outputs or {}).get("not_produced") or {}
    if outputs is None:
        return []
    made = [f"[report.{kind}](report.{kind})" for kind in ("html", "pdf") if kind not in missing]
    lines = []
    if made:
        lines.append(f"This report: [report.md](report.md) · {' · '.join(made)} (self-contained: plots embedded).")
    lines += [f"> **report.{kind} was not produced**: {md.text(reason)}" for kind, reason in missing.items()]
    return lines + [""] if lines else []


def render_markdown(model: dict, plots: dict, outputs: dict | None = None) -> str:
    lines = [f"# PTS report — {md.text(model['drive_key'])} on {md.text(model['host'])}", ""]
    if model["quick_profile"]:
        lines += [f"> **{QUICK_BANNER.capitalize()}.** Seconds per combination run on a small device: the "
                  "figures show the harness works; they do not qualify a drive.", ""]
    throttled = sorted({t["fio_options"]["rate_iops"] for t in model["tests"].values()
                        if (t.get("fio_options") or {}).get("rate_iops")})
    if throttled:
        lines += [f"> **Throttled** (fio rate_iops={', '.join(throttled)} per job): a harness benchmark, not a "
                  "qualification.", ""]
    lines += _outputs_note(outputs)
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
    lines += _summary.section(model, html=outputs is not None and "html" not in (outputs.get("not_produced") or {}))
    # The steady-state rule matters to the PTS tests; a report of sweeps alone (characterisation, HDD) leaves it out.
    steady_rule = not model["tests"] or any(name in PTS_TESTS + STEADY_PHASES for name in model["tests"])
    per_round = bool((model.get("round_health") or {}).get("read"))
    sections = ["Device information", "Setup information"] + (["Steady state"] if steady_rule else []) + \
        [t["title"] for t in model["tests"].values()] + (["Drive health per round"] if per_round else []) + \
        (["Wear"] if model["tests"] and model.get("wear") else [])
    lines += ["## Contents", "", f"[{_summary.TITLE}](#{md.anchor(_summary.TITLE)}) (above), then:", ""]
    for number, title in enumerate(sections, 1):
        lines.append(f"{number}. [{title}](#{md.anchor(f'{number} {title}')})")
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
           if any(name in CHARACTERISATION + HDD for name in model["tests"]) else ".")
        + (" HIR, CBW and DIRTH judge their preconditioning this way (CBW and DIRTH also their TC × QD loop); their "
           "other phases, and XSR, run a set number of rounds."
           if any(name in PTS2_TESTS for name in model["tests"]) else ""), "",
    ]
    capacity = int(model["drive"].get("size_bytes") or 0)
    for number, (name, result) in enumerate(model["tests"].items(), 4 if steady_rule else 3):
        lines += TEST_MODULES[name].section(result, plots.get(name, {}), number, capacity)
    if per_round:
        lines += health_section(model, plots, sections.index("Drive health per round") + 1)
    if "Wear" in sections:
        lines += wear_section(model, sections.index("Wear") + 1)
    return "\n".join(lines).rstrip() + "\n"


FORMATS = ("html", "pdf")
# About how long each test's plots take to draw, relative to one another (its figures, and how busy they are): what
# _split balances between the two cores.
PLOT_WEIGHTS = {"iops": 4.0, "throughput": 7.0, "latency": 6.0, "wsat": 2.0, "hir": 5.0, "xsr": 2.0, "cbw": 10.0,
                "dirth": 11.0}


def formats_from_env() -> tuple[str, ...]:
    """PTS_REPORT_FORMATS (say "html", or "" for report.md alone) picks the extra outputs; both by default."""
    text = os.environ.get("PTS_REPORT_FORMATS")
    if text is None:
        return FORMATS
    return tuple(f for f in FORMATS if f in {part.strip().lower() for part in text.split(",")})


def _drop_stale_plots(plot_dir: str, plots: dict) -> None:
    """A plot an earlier render drew and this one does not (a 3D plot of an older version, a test since removed)
    would sit beside the report as if it belonged to it."""
    drawn = {os.path.basename(p) for names in plots.values() for p in names.values()}
    for name in os.listdir(plot_dir) if os.path.isdir(plot_dir) else []:
        if name.endswith(".png") and not name.startswith(".") and name not in drawn:
            os.unlink(os.path.join(plot_dir, name))


def write_drive_report(drive_dir: str, formats: tuple[str, ...] | None = None) -> dict:
    """Rebuild report.md, plots/*.png, result.json - and report.html and report.pdf where the controller has the
    libraries - for one drive; return their paths and, per output not made, why."""
    formats = formats_from_env() if formats is None else formats
    model = build_model(drive_dir)
    subtitle = f"{QUICK_BANNER} · run {model['run_id']}" if model["quick_profile"] else f"run {model['run_id']}"
    prefix = md.plot_label(f"{model['drive_key']} ({model['drive'].get('model') or 'drive'})")
    plot_dir = os.path.join(drive_dir, "plots")
    plots = {}
    if _plots.available():
        health = model.get("round_health") or {}

        def draw(name: str, result: dict) -> dict:
            per_test = (health.get("tests") or {}).get(name) or {}
            # Rounds the drive throttled or ran hot in are marked on the test's convergence plot.
            with _plots.round_marks(per_test.get("marks")):
                drawn = TEST_MODULES[name].plots(result, plot_dir, prefix, subtitle)
            if per_test.get("series"):
                drawn["temperature"] = _health_plots.temperature(
                    os.path.join(plot_dir, f"{name}-temperature.png"),
                    f"{prefix} — drive temperature per round, {TITLES.get(name, name)}", per_test["series"],
                    {k: health.get(k) for k in ("warning_c", "critical_c")}, subtitle)
            return {k: os.path.relpath(v, drive_dir) for k, v in drawn.items()}

        # Most of a report's time: its tests' plots, drawn on two cores where the process allows it (_split).
        jobs = [(name, PLOT_WEIGHTS.get(name, 4.0), lambda name=name, result=result: draw(name, result))
                for name, result in model["tests"].items() if result.get("rounds_run")]
        drawn_by_test = _split.run(jobs)
        plots = {name: drawn_by_test[name] for name in model["tests"] if name in drawn_by_test}
        _drop_stale_plots(plot_dir, plots)
    model["plots"] = plots
    report = os.path.join(drive_dir, "report.md")
    result_json = os.path.join(drive_dir, "result.json")
    # Say in the report itself what will not be made, and why; a failure while making it is added afterwards.
    expected = {"not_produced": _html.not_produced(formats)}
    expected["not_produced"].update({k: "not asked for (PTS_REPORT_FORMATS)" for k in FORMATS if k not in formats})
    _results.atomic_write_text(report, render_markdown(model, plots, expected))
    outputs = {"html": None, "pdf": None, "not_produced": dict(expected["not_produced"])}
    if "html" in formats and "html" not in expected["not_produced"]:
        title = f"PTS report — {model['drive_key']} on {model['host']}"
        # Page 1 holds the summary alone: the contents start page 2, and every section flows on from there.
        outputs = _html.write(report, title, pdf="pdf" in formats, footer=footer(model), page_breaks=("contents",))
        outputs["not_produced"] = dict(expected["not_produced"], **outputs["not_produced"])
        if outputs["not_produced"] != expected["not_produced"]:
            # The engine failed on this report: the Markdown says so too.
            _results.atomic_write_text(report, render_markdown(model, plots, outputs))
    model["outputs"] = {k: os.path.basename(v) if v else None for k, v in outputs.items() if k != "not_produced"}
    model["outputs"]["not_produced"] = outputs["not_produced"]
    # What a test's plots alone use (fio's interval logs as series, "_"-keys) stays in the logs, out of result.json.
    for result in model["tests"].values():
        for key in [k for k in result if k.startswith("_")]:
            del result[key]
    _results.atomic_write_json(result_json, model)
    return {"report": report, "result": result_json, "plots": plots, "model": model, "html": outputs.get("html"),
            "pdf": outputs.get("pdf"), "not_produced": outputs["not_produced"]}
