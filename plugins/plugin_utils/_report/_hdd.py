# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The HDD tests in the report (TKperf's disk mode): IOPS and throughput per LBA zone, outer to inner.
No purge, no preconditioning, no steady state: a disk has no write history to settle."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _sweep, _sweep_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import SWEEP_STEADY_CLAUSE, ReportKind

build = _sweep.build


def _zone(row: dict) -> str:
    zone = row["row"].get("zone") or {}
    if not zone:
        return f"round {row['round']}"
    return f"{zone['zone']} ({zone['start_pct']:.0f}–{zone['end_pct']:.0f} %)"


def _series(segment: dict, key_of, pick) -> tuple[list[str], dict]:
    zones = [_zone(row) for row in segment["rows"]]
    series: dict = {}
    for index, row in enumerate(segment["rows"]):
        for item in row["cells"]:
            value = pick(item)
            if value is not None:
                series.setdefault(key_of(item), [None] * len(zones))[index] = value
    return zones, series


def _direction(item: dict) -> str:
    return "read" if item["mix"] == 100 else "write"


def plots(result: dict, plot_dir: str, prefix: str, subtitle: str) -> dict:
    segment = next((s for s in result["segments"] if s["rows"]), None)
    if segment is None:
        return {}
    path = os.path.join(plot_dir, f"{result['test']}-zones.png")
    zones = [_zone(row).split(" ")[0] for row in segment["rows"]]
    if result["test"] == "hdd_iops":
        sizes = list(dict.fromkeys(c["bs_label"] for c in segment["rows"][0]["cells"]))
        panels = []
        for size in sizes:
            dummy, series = _series(segment, lambda c: md.mix(c["mix"]),
                                    lambda c, s=size: c["iops"] if c["bs_label"] == s else None)
            panels.append((f"{size} random", "LBA zone (1 = outer)", "IOPS", series))
        return {"zones": _sweep_plots.line_panels(path, f"{prefix} — HDD IOPS by LBA zone", panels, xticks=zones,
                                                  legend_title="R/W mix", subtitle=subtitle)}
    panels = []
    for direction in ("read", "write"):
        dummy, series = _series(segment, lambda c: c["bs_label"],
                                lambda c, d=direction: c["mb_s"] if _direction(c) == d else None)
        panels.append((f"sequential {direction}", "LBA zone (1 = outer)", "MB/s", series))
    return {"zones": _sweep_plots.line_panels(path, f"{prefix} — HDD throughput by LBA zone", panels, xticks=zones,
                                              legend_title="Block size", subtitle=subtitle, share=True)}


def section(result: dict, plots_rel: dict, number: int, capacity: int) -> list[str]:
    lines = [f"## {number} {result['title']}", "", *_sections.status_notes(result), *_sweep.notes(result),
             _sweep.status_line(result), ""]
    if not result.get("rounds_run"):
        return lines
    settings = result["settings"]
    sweep = settings.get("sweep") or {}
    iops = result["test"] == "hdd_iops"
    what = (f"random I/O, R/W mixes {', '.join(md.mix(m) for m in settings.get('mixes') or [])} × block sizes "
            f"{', '.join(block_size_label(b) for b in settings.get('block_sizes') or [])}" if iops else
            f"sequential read, then write, block sizes "
            f"{', '.join(block_size_label(b) for b in settings.get('block_sizes') or [])}")
    lines += [f"{settings.get('mode_reason') or 'HDD mode'}. No purge and no preconditioning: a disk has no write "
              "history to settle, and its speed depends on where the heads are, so the LBA range is cut into "
              f"{sweep.get('zones')} zones from the outer edge (LBA 0, fastest) to the inner edge.", "", "```",
              "For zone in 1 .. " + str(sweep.get("zones")), f"  {what}, confined to the zone (fio offset/size)", "```",
              "", f"Each run: {md.fmt(settings.get('round_seconds'), 1)} s, direct I/O, random data, "
              f"{md.plural(int(settings.get('numjobs') or 1), 'thread')} × queue depth {settings.get('iodepth')}.", ""]
    lines += _sections.images(plots_rel, {"zones": "Figures per LBA zone, outer (1) to inner."})
    segment = next(s for s in result["segments"] if s["rows"])
    zones = [_zone(row) for row in segment["rows"]]
    if iops:
        dummy, series = _series(segment, lambda c: f"{c['bs_label']} {md.mix(c['mix'])}", lambda c: c["iops"])
        unit, digits = "IOPS", 0
    else:
        dummy, series = _series(segment, lambda c: f"{c['bs_label']} {_direction(c)}", lambda c: c["mb_s"])
        unit, digits = "MB/s", 1
    lines += [f"### {number}.1 {unit} per zone", ""]
    lines += md.table(["Zone (share of LBAs)"] + list(series), [
        [zone] + [md.fmt(values[i], digits) for values in series.values()] for i, zone in enumerate(zones)])
    outer, inner = segment["rows"][0], segment["rows"][-1]
    if len(segment["rows"]) > 1:
        ratios = []
        for a, b in zip(outer["cells"], inner["cells"]):
            value = "mb_s" if not iops else "iops"
            if a[value] and b[value] is not None:
                ratios.append(f"{a['bs_label']} {md.mix(a['mix']) if iops else _direction(a)}: "
                              f"{md.fmt(100.0 * b[value] / a[value], 0)} %")
        lines += ["", "Inner zone against outer zone: " + "; ".join(ratios) + "."]
    lines += ["", f"### {number}.2 Zones and files", ""]
    lines += md.table(["Zone", "First byte", "Bytes"], [
        [str((r["row"].get("zone") or {}).get("zone", r["round"])), f"{(r['row'].get('zone') or {}).get('offset', 0):,}",
         f"{(r['row'].get('zone') or {}).get('size', 0):,}"] for r in segment["rows"]], numeric=False)
    lines += ["", f"Drive capacity {capacity:,} bytes; zones are aligned to 1 MiB.", ""]
    lines += _sweep.steps_rows(result, KIND)
    lines += _sweep.files(result)
    return lines


KIND = ReportKind(name="hdd", build=build, plots=plots, section=section, steady_clause=SWEEP_STEADY_CLAUSE,
                  steady_row=True)
