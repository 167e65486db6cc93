# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""fleet.md's Requirements section: per requirement of the specifications the drives were judged against, its limit,
the drives it applied to and its pass rate, with the drives that failed it or could not be judged on it."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

# A row names the drives that failed a requirement, up to this many.
MOST_NAMED = 8


def _named(ids: list[str]) -> str:
    shown = ", ".join(md.text(i) for i in ids[:MOST_NAMED])
    return shown + (f" and {len(ids) - MOST_NAMED} more" if len(ids) > MOST_NAMED else "")


def section(summary: dict) -> list[str]:
    rows = summary.get("requirements") or []
    if not rows:
        return []
    table = []
    for row in rows:
        rate = f"{100 * row['pass_rate']:.0f} %" if row.get("pass_rate") is not None else md.DASH
        who = []
        if row["failed_drives"]:
            who.append("FAIL: " + _named(row["failed_drives"]))
        if row["not_judged_drives"]:
            who.append("not judged: " + _named(row["not_judged_drives"]))
        table.append([md.text(f"{row['spec']} {row['version']}"), md.code(row["id"]), md.code(row["figure"]),
                      md.text(row["limit_text"]), str(row["drives"]), str(row["passed"]), str(row["failed"]),
                      str(row["not_judged"]), f"**{rate}**", "; ".join(who) or md.DASH])
    lines = ["## Requirements", "",
             "Every requirement of the acceptance specifications the drives were judged against (each drive's report "
             "has them in its Acceptance section, with the round files): the drives it applied to, how many passed, "
             "failed or could not be judged (n/r: a percentile its IOs do not resolve; a figure the drive does not "
             "report), and the pass rate - passed over the drives it applied to.", ""]
    if any(row.get("example") for row in rows):
        lines += ["> Rows of an **example** specification have placeholder limits, not any vendor's or body's "
                  "numbers.", ""]
    lines += md.table(["Specification", "Id", "Figure", "Limit", "Drives", "PASS", "FAIL", "Not judged", "Pass rate",
                       "Drives not passing"], table, numeric=False)
    return lines + [""]
