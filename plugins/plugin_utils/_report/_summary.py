# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The summary page at the top of every drive report: the verdict with its rule and limits, the headline figures
with their windows' state, run time per test, and the drive's health before and after the run and per round."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._pts_versions import SPEC_NAMES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import PTS2_TESTS, PTS_TESTS
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _identity
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _acceptance_section, _history_section, _kinds, _sections, _tests
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

TITLE = "Summary"
# The health items a reader compares before and after a run; the Device information table lists them all.
HEALTH_KEYS = (("passed", "SMART overall assessment"), ("critical_warning", "Critical warning"),
               ("percentage_used", "Percentage used (%)"), ("available_spare_pct", "Available spare (%)"),
               ("media_errors", "Media errors"), ("error_log_entries", "Error log entries"),
               ("reallocated_sectors", "Reallocated sectors"), ("pending_sectors", "Pending sectors"),
               ("temperature_c", "Temperature (°C)"), ("bytes_written", "Bytes written"))


def _verdict_lines(model: dict) -> list[str]:
    judged = model.get("verdict") or {}
    if not judged:
        return ["**Verdict: not judged** (no drive record).", ""]
    lines = [f"> **Verdict: {md.text(judged.get('label') or judged.get('verdict'))}**", ">"]
    if judged.get("rule"):
        limits = [lim["text"] for lim in judged.get("limits") or []]
        lines.append(f"> Acceptance rule {md.text(judged['rule'])}: " + md.text("; ".join(limits)) + ".")
    elif judged.get("specs"):
        lines.append("> No acceptance rule of the inventory matched this drive; the specifications below apply to it.")
    elif judged.get("plan_recorded"):
        lines.append("> No acceptance rule matched this drive's model and firmware: it is judged on its tests alone "
                     "(each finished, steady where the PTS asks for it).")
    else:
        lines.append("> No plan was recorded for this host, so no acceptance rule applies: the drive is judged on "
                     "the tests on disk alone.")
    if judged.get("quick_profile"):
        lines += [">", "> Quick profile: seconds per run on a small device show that the harness works; a FAIL here "
                       "(most often: not steady within the few rounds the quick profile allows) says nothing about "
                       "the drive."]
    lines.append("")
    lines += _acceptance_section.summary_lines(judged)
    reasons = judged.get("reasons") or []
    if judged.get("verdict") != "PASS" and reasons:
        lines += ["Why:", ""] + [f"- {md.text(reason)}" for reason in reasons] + [""]
    # A limit the run could not judge (a percentile its IOs do not resolve) is said even when other reasons fail it.
    unjudged = judged.get("not_judged") or []
    if unjudged and judged.get("verdict") == "FAIL":
        lines += ["Not judged: " + "; ".join(md.text(r) for r in unjudged) + ".", ""]
    # The requirements of specifications have their own table (section Acceptance); the rule's own limits are listed.
    passed = [c for c in judged.get("checks") or []
              if c.get("passed") and (not c.get("requirement") or c.get("legacy"))]
    if passed:
        lines += ["Checks passed: " + "; ".join(md.text(c["text"]) for c in passed) + ".", ""]
    lines += ["Cohort outliers (drives of one model and firmware far from their median) are judged in the fleet "
              "summary.", ""]
    return lines


def _headline_rows(model: dict) -> tuple[list[list[str]], list[str]]:
    """The headline figures of the tests the drive ran or was to run: PTS-E 1.1's (window averages), write
    saturation's end, PTS 2.0's key figures. A test neither run nor planned has no row."""
    block = model.get("headline") or _headline_figures.block(model)
    wanted = set(model.get("tests") or {}) | set((model.get("verdict") or {}).get("planned") or [])
    rows, notes = [], []
    for figure, spec in _headline_figures.FIGURES.items():
        if spec.get("optional") or spec["test"] not in wanted:
            continue
        item = block.get(figure) or {}
        label = spec["label"] + (" *" if spec.get("note") else "")
        rows.append([label, _sections.figure_cell(item.get("value"), figure, item), _sections.state_cell(item.get("state"))])
        if spec.get("note"):
            ios = f" ({item['ios']:,} IOs)" if item.get("ios") is not None else ""
            notes.append(f"\\* p99.99: {spec['note']}{ios}; n/r: fewer than 10 / (1 − p) IOs, too few to resolve it.")
    # Each kind's own rows: those beside the window averages, then the others (PTS 2.0's key figures).
    for first in (True, False):
        for kind in _kinds.KINDS.values():
            if kind.summary and kind.summary_first == first:
                kind_rows, kind_notes = kind.summary(model, block, wanted)
                rows += kind_rows
                notes += kind_notes
        if first and rows:
            notes.append("IOPS, throughput and latency: averages over each test's measurement window (its last rounds).")
    return rows, notes


def _estimate_text(model: dict, names: list[str]) -> str:
    """The plan's estimate of these tests' wall time, made before the first write: "4.3–5.1 min"."""
    found = [(model.get("estimate") or {}).get(name) for name in names]
    if not found or None in found:
        return md.DASH
    low, high = sum(e["min_s"] for e in found), sum(e["max_s"] or e["min_s"] for e in found)
    return _headline_figures.duration(low) if abs(high - low) < 0.5 else \
        f"{_headline_figures.duration(low)} – {_headline_figures.duration(high)}"


def _tests_rows(model: dict) -> list[list[str]]:
    rows = []
    for name, result in model["tests"].items():
        rows.append([result["title"], md.text(result.get("status")), _sections.rounds_text(result, _kinds.of(name)),
                     _estimate_text(model, [name]), _headline_figures.duration(result.get("wall_s")),
                     _headline_figures.duration(result.get("fio_io_s")) if result.get("fio_io_s") else md.DASH,
                     _headline_figures.duration(result.get("fio_s"))])
    walls = [t["wall_s"] for t in model["tests"].values() if t.get("wall_s") is not None]
    if len(walls) > 1:
        rows.append(["**All tests**", "", "", _estimate_text(model, list(model["tests"])),
                     f"**{_headline_figures.duration(sum(walls))}**", "", ""])
    return rows


def _health_lines(model: dict) -> list[str]:
    before, after = model["drive"].get("health") or {}, model.get("health_after") or {}
    if not before and not after:
        if (model.get("round_health") or {}).get("read"):
            return round_health_lines(model["round_health"])
        interface = model["drive"].get("interface") or "this device"
        # Said once, here: no round file's "none" is repeated anywhere else in the report.
        return [f"Drive health: **the drive reports none** ({md.text(interface)} has no SMART or NVMe health log "
                "the collection can read). Nothing is read before or after its rounds either.", ""]
    errors = [h.get("error") for h in (before, after) if h.get("error")]
    rows = []
    for key, label in HEALTH_KEYS:
        first, last = before.get(key), after.get(key)
        if first is None and last is None:
            continue

        def shown(value, key=key):
            if value is None:
                return md.DASH
            if isinstance(value, bool):
                return "passed" if value else "**FAILED**"
            if key.startswith("bytes_"):
                return format_bytes(value)
            return f"{value:,}" if isinstance(value, int) else md.text(value)

        change = ""
        if isinstance(first, int) and isinstance(last, int) and not isinstance(first, bool) and last != first:
            change = f"{last - first:+,}" if not key.startswith("bytes_") else "+" + format_bytes(last - first)
        rows.append([label, shown(first), shown(last), change])
    tool = md.text(before.get("tool") or after.get("tool") or None)
    lines = [f"Drive health ({tool}), before and after this run:", ""]
    if rows:
        lines += md.table(["Item", "Before", "After", "Change"], rows, numeric=False)
    if errors:
        lines += ["", "Health could not be read: " + "; ".join(md.text(e) for e in errors)]
    if not after:
        lines += ["", "No snapshot after the run was recorded (the run stopped before it)."]
    return lines + [""] + round_health_lines(model.get("round_health") or {})


def round_health_lines(health: dict) -> list[str]:
    """The drive's health per round in a few lines: the hottest reading, and the rounds in which it throttled,
    passed its warning temperature or counted new errors - by name, so a reader finds them in the plots."""
    if not health.get("read"):
        return [f"Per round: not read ({md.text(health['none'])}).", ""] if health.get("none") else []
    where = health.get("max_at") or {}
    at = f"{where.get('test')} {where.get('segment') or ''} round {where.get('round')}".replace("  ", " ")
    limits = [f"{word} threshold {health[key]} °C" for key, word in (("warning_c", "warning"), ("critical_c", "critical"))
              if health.get(key) is not None]
    lines = [f"Per round ({md.text(', '.join(health.get('tools') or []) or None)}, read just before and just after "
             f"each of {health['read']:,} rounds, outside fio's measuring time): highest temperature "
             f"{md.text(health.get('max_c'))} °C ({md.text(at)})"
             + (f"; the drive's {', '.join(limits)}" if limits else "; the drive reports no temperature thresholds")
             + ".", ""]
    words = (("throttled", "**Throttled** (a thermal-management transition counter grew)"),
             ("warning", "**At or past its warning temperature**"), ("errors", "**Error counters grew**"))
    found = [(text, _health.rounds_text(health.get("marked") or [], kind)) for kind, text in words]
    found = [(text, rounds) for text, rounds in found if rounds]
    if found:
        lines += [f"- {text} in {md.text(rounds)}." for text, rounds in found] + [""]
    else:
        lines += ["No round throttled, reached the warning temperature or counted new errors.", ""]
    if not health.get("throttle_counters"):
        lines += ["The drive reports no thermal-management counters (SATA and SAS drives have none in their standard "
                  "logs): throttling cannot be seen, only temperatures.", ""]
    if health.get("errors_read"):
        lines += [f"Health could not be read in {len(health['errors_read']):,} round(s), first: "
                  f"{md.text(health['errors_read'][0])}.", ""]
    return lines


def section(model: dict, html: bool = True) -> list[str]:
    """The summary page: verdict, headline figures, run time per test, health. Unnumbered, before the contents."""
    drive = model["drive"]
    size = drive.get("size_bytes")
    named = [drive.get(k) for k in ("vendor", "model") if drive.get(k) and not _identity.placeholder(drive, k)]
    what = " ".join(named) or (f"a {drive['interface']} device (no vendor or model of its own)"
                               if drive.get("interface") else None)
    who = ", ".join(part for part in (
        md.text(what),
        f"serial {md.text(drive.get('serial') or None)}", f"firmware {md.text(drive.get('firmware') or None)}",
        format_bytes(size) if size else "") if part)
    spec = _tests.spec_of(model["tests"])
    followed = ""
    if any(name in PTS_TESTS for name in model["tests"]):
        followed = f" The SNIA tests follow {SPEC_NAMES[spec]}."
    newer = [model["tests"][name]["title"] for name in PTS2_TESTS if name in model["tests"]]
    if newer and not (followed and spec == "2.0"):
        followed += f" {', '.join(newer)}: {SPEC_NAMES['2.0']}."
    lines = [f"## {TITLE}", "", f"{md.text(model['drive_key'])} on {md.text(model['host'])}: {who}. "
                                f"Run {md.code(model['run_id'])}; report date {md.text(model.get('report_date'))}."
                                f"{followed}", ""]
    lines += _verdict_lines(model)
    if model["tests"]:
        rows, notes = _headline_rows(model)
        lines += md.table(["Headline figure", "Value", "Window"], rows, numeric=False)
        lines += [""] + [n + "" for n in notes] + ([""] if notes else [])
        lines += ["Run time per test: the plan's estimate before the first write, the wall time from the purge to the "
                  "last round, the seconds fio measured I/O in the rounds (its jobs' run times) and the seconds its "
                  "processes ran (with fio's start-up and the pause between its stonewalled runs, about 0.2–0.3 s "
                  "each):", ""]
        # A word joiner after the slash: a narrow column breaks "fio I/O" between its words, never inside "I/O".
        lines += md.table(["Test", "Result", "Rounds", "Estimated", "Wall time", "fio I/\u2060O", "fio processes"],
                          _tests_rows(model), numeric=False)
        lines.append("")
    lines += _health_lines(model)
    if model["tests"] and model.get("wear"):
        lines += wear_lines(model["wear"])
    lines += _history_section.lines(model, html)
    return lines


def wear_lines(wear: dict) -> list[str]:
    """The run's wear in one line: what the host wrote, what the drive counted, write amplification where it can
    be had, and the plan's budget verdict (the Wear section has it per test)."""
    host, drive = wear.get("host_bytes_written"), wear.get("drive_bytes_written")
    text = f"Wear: the host wrote {format_bytes(host or 0)} in this run"
    text += (f"; the drive's own counter grew by {format_bytes(drive)}" if drive is not None else
             "; the drive reports no write counter")
    if wear.get("write_amplification") is not None:
        text += f"; write amplification {wear['write_amplification']:.2f}"
    estimate = wear.get("estimate") or {}
    if estimate.get("judged"):
        text += (f"; the plan's upper bound was {format_bytes(estimate['estimated_bytes'])}, "
                 f"{md.fmt(estimate.get('use_pct'), 2)} % of the remaining rated life (budget "
                 f"{estimate.get('budget_pct') or 0:g} %)")
    return [md.text(text) + ".", ""]
