# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The run's console lines, one per event: a drive's plan (and what a resume keeps), each round with its dependent
variables and steady-state figures, each write saturation round, sweep row and XSR sample, and under --check each
drive's identity and the guard's verdict. Pure text from the payloads; the action that has the event prints it
through ansible-core's display, which every stdout callback (AWX's included) shows."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label

# ANSI escape sequences (CSI ... final byte, OSC ... BEL/ST, and two-byte ESC x), then any control character left.
_ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SPACE_RE = re.compile(r"[\t\n\r]+")
_UNITS = {"iops": ("IOPS", 1.0), "bw_bytes": ("MB/s", 1e6), "lat_mean_ns": ("ms", 1e6)}


def plain(value: object) -> str:
    """Text from a drive, a description file or the inventory with its terminal escapes and control characters
    taken out, for the console: a model name cannot recolour, move the cursor or clear the operator's screen; format
    characters (U+2028, U+2029, a bidirectional override: module_utils/_drive/_text) show as U+FFFD, so it cannot
    start a line or reverse what follows in a report either."""
    stripped = _CONTROL_RE.sub("\ufffd", _SPACE_RE.sub(" ", _ANSI_RE.sub("", str(value))))
    if stripped.isascii() or not _text.has_control(stripped):
        return stripped
    return "".join("\ufffd" if _text.has_control(c) else c for c in stripped)


def _pct(value) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


def _ms(value) -> str:
    return "n/a" if value is None else f"{value / 1e6:.3f} ms"


def dv_label(dv: dict) -> str:
    """A DV as the round line names it: "4k 0/100 IOPS", "1024k read", or a named section's own name."""
    if dv.get("job") and dv.get("name"):
        return str(dv["name"])  # a named section's DV (CBW's TC32/QD32, HIR's preconditioning) names itself
    bs = dv.get("bs")
    bs = block_size_label(bs) if isinstance(bs, int) else bs
    mix = dv.get("mix")
    if dv.get("metric") == "bw_bytes":
        return f"{bs} {'read' if mix == 100 else 'write'}"
    return f"{bs} {mix}/{100 - int(mix or 0)} {'mean latency' if dv.get('metric') == 'lat_mean_ns' else 'IOPS'}"


def test_label(context: dict) -> str:
    return f"{context.get('test')}{' ' + context['segment'] if context.get('segment') else ''}"


def _done(payload: dict) -> str:
    return f"{payload.get('reason')}{'; DONE' if payload.get('stop') else ''}"


def check_lines(host: str, data: dict) -> list[str]:
    """--check: each listed drive's identity, purge methods and write cache, and the guard's verdict on it."""
    lines = []
    for drive in data.get("pts_drives") or []:
        size = drive.get("size_bytes")
        if size is None:
            lines.append(f"PTS check {host} {drive['key']}: not found")
            continue
        methods = drive.get("purge_methods") or []
        cache = {True: "enabled", False: "disabled"}.get(drive.get("device_write_cache"), "not applicable")
        lines.append(
            f"PTS check {host} {drive['key']}: {drive.get('resolved')} {drive.get('vendor') or ''} "
            f"{drive.get('model') or ''}, serial {drive.get('serial')}, WWN {drive.get('wwn')}, firmware "
            f"{drive.get('firmware')}, {size:,} bytes, {drive.get('interface')}; purge methods "
            f"{', '.join(methods) or 'none'} (auto would use {methods[0] if methods else 'none: the test would fail'}); "
            f"write cache {cache}")
    for verdict in data.get("pts_guard") or []:
        state = "passes" if verdict.get("passed") else "REFUSES: " + "; ".join(verdict.get("refusals") or [])
        lines.append(f"PTS check {host} {verdict.get('key')}: the guard {state}")
    return lines


def check_settings_line(host: str, plan: dict) -> str:
    settings = plan.get("settings") or {}
    return (f"PTS check {host}: purge method {settings.get('purge_method')}, write cache "
            f"{settings.get('write_cache')}; --check wrote nothing")


def plan_lines(host: str, plan: dict, drive: dict, left: tuple[float, float] | None) -> list[str]:
    """One drive's plan: what a resume keeps, and the tests still to run with their time (``left``: the plan's
    (min, max) seconds of the tests not yet done)."""
    lines = []
    kept = [f"{t['test']} ({t['status']})" for t in drive["tests"] if t.get("done")]
    if kept:
        lines.append(f"PTS resume {host} {drive['key']}: run {plan.get('run_id')} already finished "
                     f"{', '.join(kept)}; kept, not run again")
    tests = ", ".join(f"{t['test']} {t['combinations']} runs" for t in drive["tests"] if not t.get("done"))
    mode = f"{drive['mode_reason']}; " if drive.get("mode_reason") else ""
    skipped = "".join(f"; {note}" for note in drive.get("skipped") or [])
    low, high = left or (0.0, 0.0)
    lines.append(f"PTS plan {host} {drive['key']}: {mode}{tests or 'no test'}; estimated {low / 60:.1f}-"
                 f"{high / 60:.1f} min ({plan.get('estimate_note')}){skipped}")
    return lines


def round_line(host: str, context: dict, verdict: dict) -> str:
    """A steady-state round: each DV with its data and slope excursions, the limits, steady or not."""
    figures = []
    for dv in verdict.get("dvs") or []:
        unit, scale = _UNITS.get(dv.get("metric"), ("", 1.0))
        value = dv.get("dv_value")
        shown = "n/a" if value is None else f"{value / scale:,.{2 if scale > 1 else 1}f}"
        figures.append(f"{dv_label(dv)} = {shown} {unit} (data {_pct(dv.get('data_excursion_pct'))}, "
                       f"slope {_pct(dv.get('slope_excursion_pct'))})")
    limits = next(iter(verdict.get("dvs") or []), {})
    state = "STEADY" if verdict.get("steady") else "not steady"
    return (f"PTS {host} {context.get('drive')} {test_label(context)} round {verdict.get('round')}/"
            f"{verdict.get('max_rounds')}: {'; '.join(figures)}; limits {limits.get('max_data_excursion_pct', 20):g} % / "
            f"{limits.get('max_slope_excursion_pct', 10):g} %; {state}")


def wsat_line(host: str, context: dict, progress: dict) -> str:
    return (f"PTS {host} {context.get('drive')} wsat round {progress.get('round')}: 4k random write "
            f"{progress.get('iops', 0):,.1f} IOPS, mean latency {_ms(progress.get('lat_mean_ns'))}; {_done(progress)}")


def sweep_line(host: str, context: dict, row: dict) -> str:
    """A sweep row: an offered step and what the drive delivered, a row's cells, or (HIR's bursts) hundreds of
    sections summed up."""
    cells = row.get("cells") or []
    if row.get("offered_iops"):
        figures = (f"offered {row['offered_iops']:,} IOPS, achieved {row.get('achieved_iops', 0):,.0f} "
                   f"({'delivered' if row.get('delivered') else 'NOT delivered'}), mean latency "
                   f"{_ms(cells[0].get('lat_mean_ns') if cells else None)}")
    elif len(cells) > 8:
        iops = [c["iops"] for c in cells]
        figures = (f"{row.get('label')}: {len(cells)} sections, IOPS mean {sum(iops) / len(iops):,.0f}, "
                   f"min {min(iops):,.0f}, max {max(iops):,.0f}")
    else:
        shown = [f"{c['name']} {c['iops']:,.0f} IOPS {c['mb_s']:,.1f} MB/s" for c in cells[:4]]
        figures = f"{row.get('label')}: " + "; ".join(shown) + (f"; +{len(cells) - 4} more" if len(cells) > 4 else "")
    return (f"PTS {host} {context.get('drive')} {test_label(context)} round {row.get('round')}/{row.get('rounds')}: "
            f"{figures}; {_done(row)}")


def sample_line(host: str, context: dict, sample: dict) -> str:
    """An XSR sample: throughput, IOPS, mean and maximum response time."""
    # A continuous run's samples are cut at fio's status dumps: one more than planned when its first one is short.
    number, planned = sample.get("round"), sample.get("rounds")
    count = f"{number} of {planned}" if isinstance(number, int) and isinstance(planned, int) and number <= planned \
        else f"{number} ({planned} planned)"
    return (f"PTS {host} {context.get('drive')} {test_label(context)} sample {count}: "
            f"{sample.get('mb_s', 0):,.1f} MB/s, {sample.get('iops', 0):,.0f} IOPS, mean response time "
            f"{_ms(sample.get('lat_mean_ns'))}, max {_ms(sample.get('lat_max_ns'))}; {_done(sample)}")


# The progress line of a round, by the round file's key of its stop rule's verdict (_stop_rules.PAYLOAD_KEYS).
LINES = {"pts_steady_state": round_line, "pts_wsat": wsat_line, "pts_sweep": sweep_line, "pts_sample": sample_line}
