# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive report's health section: every round's health entry (temperature, critical warning, media errors) with
its plots (_health_plots.py).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import NAMES as TESTS, TITLES
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _sections, _summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

DASH = md.DASH


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
