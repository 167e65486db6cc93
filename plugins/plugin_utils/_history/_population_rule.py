# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The acceptance criterion against the fleet's memory (a pts_acceptance rule's ``population_percentile``): "no worse
than the fleet's 5th percentile for its model and firmware" - each headline figure the drive measured (or the rule's
``population_figures``) at least as good as the value ``population_percentile`` % of its population is worse than
(population.py), in a population of at least ``population_min_size`` earlier measurements. A population too small, or
a history that could not be read, leaves the criterion unjudged: INCOMPLETE, with the reason - never a pass."""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population

KEYS = ("population_percentile", "population_min_size", "population_figures")
DEFAULT_MIN_SIZE = 10


def validate(rule: dict, where: str) -> None:
    """The rule's population keys; ValueError naming the key and the value."""
    percent = rule.get("population_percentile")
    if percent is not None and (isinstance(percent, bool) or not isinstance(percent, (int, float))
                                or not math.isfinite(percent) or not 0 < percent < 50):
        raise InputError(f"{where}.population_percentile={percent!r}: must be a percentage above 0 and below 50 (5: no "
                         "worse than the fleet's 5th percentile for the model and firmware)")
    size = rule.get("population_min_size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise InputError(f"{where}.population_min_size={size!r}: must be a whole number of earlier measurements, 1 or "
                         "more")
    figures = rule.get("population_figures")
    if figures is not None:
        if not isinstance(figures, list) or not figures or not all(isinstance(f, str) for f in figures):
            raise InputError(f"{where}.population_figures={figures!r}: must be a list of headline figures")
        unknown = [f for f in figures if f not in _headline_figures.FIGURES]
        if unknown:
            raise InputError(f"{where}.population_figures: unknown figures {unknown}; known: "
                             f"{', '.join(_headline_figures.FIGURES)}")
    if percent is None and (size is not None or figures is not None):
        raise InputError(f"{where}: population_min_size and population_figures need population_percentile")


def limit_text(rule: dict) -> str:
    size = rule.get("population_min_size") or DEFAULT_MIN_SIZE
    return (f"no headline figure worse than the fleet's {rule['population_percentile']:g}th percentile for the model "
            f"and firmware (earlier runs in the history, at least {size} measurements)")


def _cohort_text(block: dict, entry: dict) -> str:
    return (f"{entry.get('n', 0):,} earlier {block.get('model')} / {block.get('firmware') or '—'} measurement(s), "
            f"{block.get('profile') or 'full'} profile")


def checks(model: dict, rule: dict | None) -> tuple[list[dict], list[str]]:
    """The rule's population criterion on the drive's report model (its ``population`` block, drawn with the rule's
    percentile): (checks, reasons it cannot be judged)."""
    percent = (rule or {}).get("population_percentile")
    if percent is None:
        return [], []
    block = model.get("population")
    if not isinstance(block, dict):
        return [], ["population_percentile: not judged: the drive reported no model, so it has no population"]
    if block.get("error") or block.get("none"):
        return [], [f"population_percentile: not judged: the history ({block.get('history')}) "
                    f"{'could not be read: ' + str(block['error']) if block.get('error') else 'has no earlier run'}"]
    figures = _headline_figures.values(model)
    final = _headline_figures.steady(model)
    named = rule.get("population_figures")
    wanted = named or [f for f in _headline_figures.HEADLINES if figures.get(f) is not None and final.get(f)]
    size = rule.get("population_min_size") or DEFAULT_MIN_SIZE
    found, incomplete, small = [], [], []
    for figure in wanted:
        spec = _headline_figures.FIGURES[figure]
        entry = (block.get("figures") or {}).get(figure) or {}
        value = figures.get(figure)
        if value is None or not final.get(figure):
            incomplete.append(f"population_percentile: {figure}: no final figure measured to judge")
            continue
        if (entry.get("n") or 0) < size:
            small.append(f"{figure} ({entry.get('n') or 0})")
            continue
        if entry.get("percentile") != percent or not isinstance(entry.get("limit"), (int, float)):
            incomplete.append(f"population_percentile: {figure}: the report was drawn without this percentile; "
                              "playbooks/report.yml draws it again")
            continue
        direction = _population.better(figure)
        passed = value >= entry["limit"] if direction == "higher" else value <= entry["limit"]
        digits = max(spec["digits"], 1)
        found.append({
            "criterion": f"population_percentile {figure}", "passed": passed, "measured": value, "limit": entry["limit"],
            "unit": spec["unit"], "figure": figure, "test": spec["test"], "population": entry.get("n"),
            "text": (f"{spec['label']} {value:,.{digits}f} {spec['unit']} {'meets' if passed else 'misses'} the "
                     f"fleet's {percent:g}th percentile {entry['limit']:,.{digits}f} {spec['unit']} "
                     f"({'≥' if direction == 'higher' else '≤'}; {_cohort_text(block, entry)}; better than "
                     f"{entry.get('better_than_pct') or 0:.0f} % of them) (population_percentile)")})
    if small:
        incomplete.append(f"population_percentile: not judged for {', '.join(small)}: fewer than population_min_size "
                          f"({size}) earlier {block.get('model')} / {block.get('firmware') or '—'} measurements "
                          f"({block.get('profile') or 'full'} profile) in the history")
    return found, incomplete
