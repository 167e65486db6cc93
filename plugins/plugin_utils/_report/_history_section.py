# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The summary page's History: the run that tested this model and firmware last before this one (a link to the
comparison of the two runs' drives), and every headline figure against every earlier run of the model and firmware in
the history - the population's size and dates, median, 5th to 95th percentiles, spread, and where this drive falls
(plugin_utils/_history/_population.py)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

OUTLIER_MARK = "⚑"


def previous_lines(model: dict, html: bool) -> list[str]:
    """This drive's model and firmware in the run that tested them last before this one."""
    previous = model.get("previous")
    if not previous:
        return []
    when = (previous.get("run_time") or "")[:16].replace("T", " ")
    link = previous["link"] if html else previous["link_md"]
    return [f"History: run {md.code(previous['run_id'])}" + (f" ({md.text(when)} UTC)" if when else "")
            + " tested this model and firmware last before this run "
            + f"({md.plural(int(previous.get('drives') or 0), 'drive')}): "
            f"[comparison of the two runs' drives of this model]({link}) (written with the fleet summary, which "
            "writes this run into the history).", ""]


def _where(entry: dict) -> str:
    if entry.get("value") is None or entry.get("better_than_pct") is None:
        return md.DASH
    text = f"better than {entry['better_than_pct']:.0f} %"
    if entry.get("outlier"):
        text = f"**{text} {OUTLIER_MARK}**"
    return text if entry.get("steady") else f"*{text}*"


def population_lines(model: dict) -> list[str]:
    """Every headline figure of the drive beside its population; or why there is none."""
    block = model.get("population")
    if not isinstance(block, dict):
        return []
    where = md.code(block.get("history"))
    if block.get("error"):
        return [f"Against the fleet's memory: **the history {where} could not be read** — "
                f"{md.text(block['error'])}. This report stands without it; `playbooks/report.yml` draws it again.",
                ""]
    if block.get("none"):
        return [f"Against the fleet's memory: the history {where} has no earlier run ({md.text(block['none'])}).", ""]
    cohort = f"{md.text(block.get('model'))} / {md.text(block.get('firmware') or None)}"
    profile = block.get("profile") or "full"
    figures = {f: e for f, e in (block.get("figures") or {}).items() if f in _headline_figures.FIGURES}
    counted = [e for e in figures.values() if e.get("n")]
    other = "full-profile runs never count in a quick one's" if profile == "quick" else \
        "quick-profile runs never count in it"
    if not counted:
        return [f"Against the fleet's memory: no earlier {profile}-profile run of {cohort} in the history {where} "
                f"({other}).", ""]
    span = f"{md.day(block.get('from'))} – {md.day(block.get('to'))}"
    lines = [f"Against the fleet's memory: each headline figure beside every earlier {profile}-profile run of {cohort} "
             f"in the history {where} - {md.plural(int(block.get('runs') or 0), 'run')}, {span} ({other}; each "
             "drive of each earlier run counts once, final values only):", ""]
    rows = []
    for figure, entry in figures.items():
        spec = _headline_figures.FIGURES[figure]
        digits = spec["digits"]
        if not entry.get("n"):
            rows.append([md.text(f"{spec['label']} ({spec['unit']})"), _value(entry, digits), "0", md.DASH, md.DASH,
                         md.DASH, md.DASH])
            continue
        rows.append([md.text(f"{spec['label']} ({spec['unit']})"), _value(entry, digits), f"{entry['n']:,}",
                     md.fmt(float(entry["median"]), digits),
                     f"{md.fmt(float(entry['p5']), digits)} – {md.fmt(float(entry['p95']), digits)}",
                     md.DASH if entry.get("spread_pct") is None else f"{entry['spread_pct']:.1f} %", _where(entry)])
    lines += md.table(["Headline figure", "This drive", "Population", "Median", "5th – 95th percentile", "Spread",
                       "Where this drive falls"], rows, numeric=False)
    settings = block.get("outlier_settings") or {}
    lines += ["", f"Population: earlier measurements with a final value. Spread: (95th − 5th percentile) / median. "
              f"Where this drive falls: the share of the population it is better than (higher is better for IOPS, "
              f"MB/s and gains, lower for times). {OUTLIER_MARK}: an outlier against its population (robust z-score "
              f"beyond {settings.get('outlier_robust_z', 3.5):g} and more than "
              f"{settings.get('outlier_min_deviation_pct', 10.0):g} % from the median, in a population of at least "
              f"{settings.get('outlier_min_cohort', 3)}). *Italic*: this drive's figure is not from a steady window.",
              ""]
    return lines


def _value(entry: dict, digits: int) -> str:
    if entry.get("value") is None:
        return md.DASH
    text = md.fmt(float(entry["value"]), digits)
    return text if entry.get("steady") else f"*{text}*"


def lines(model: dict, html: bool) -> list[str]:
    """The History of the summary page."""
    return previous_lines(model, html) + population_lines(model)
