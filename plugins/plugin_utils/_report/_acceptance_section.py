# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The drive report's Acceptance section: per specification that applies to the drive (its name, version, source and
file), every requirement - its id, where it comes from, its limit, the figure measured with links to the round files it
comes from, and PASS, FAIL or NOT JUDGED with why - and the summary page's line of the requirements that failed."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _judge

# A figure of a window of many rounds links its first files and says how many more there are.
MOST_LINKS = 6


def measured_text(record: dict) -> str:
    """The figure as measured: its value and unit (and the window's state when it was not steady), or n/r with the
    IOs counted and needed, or why there is none."""
    if record.get("measured") is None:
        if record.get("ios") is not None and record.get("needed"):
            return f"n/r: {record['ios']:,} IOs, {record['needed']:,} needed"
        return "not measured"
    text = f"{_judge.number(record['measured'])} {record['unit']}"
    if record.get("ios") is not None and record.get("needed"):
        text += f" ({record['ios']:,} IOs)"
    if record.get("state") not in (None, "steady", "read", "complete"):
        text += f" ({record['state']})"
    return text


def files_text(files: list[str]) -> str:
    """Links to the round files a figure comes from (relative to the report, which sits in the drive's directory)."""
    if not files:
        return md.DASH
    links = [f"[{md.text(path)}]({path})" for path in files[:MOST_LINKS]]
    more = len(files) - MOST_LINKS
    return ", ".join(links) + (f" and {more} more" if more > 0 else "")


def result_text(record: dict) -> str:
    if record["status"] == _judge.NOT_JUDGED:
        counted = "FAIL" if record.get("not_judged") == "fail" else "INCOMPLETE"
        return f"**not judged** (counts as {counted})"
    return f"**{record['status']}**"


def _spec_lines(spec: dict, records: list[dict]) -> list[str]:
    source = spec.get("source") or {}
    where = md.text(source.get("document"))
    if source.get("section"):
        where += f", {md.text(source['section'])}"
    if source.get("url"):
        where += f" ({md.code(source['url'])})"
    counts = {s: sum(1 for r in records if r["status"] == s) for s in _judge.STATUSES}
    title = f"{spec['name']} {spec['version']}" if spec.get("inline") is None else spec["name"]
    lines = [f"**{md.text(title)}** — source: {where}"
             + (f"; file {md.code(spec['file'])}" if spec.get("file") and spec.get("inline") is None else "")
             + (f" (SHA-256 {md.code(spec['sha256'][:16])}…)" if spec.get("sha256") else "")
             + f". {counts[_judge.PASS]} PASS, {counts[_judge.FAIL]} FAIL, {counts[_judge.NOT_JUDGED]} not judged "
               f"of {md.plural(len(records), 'requirement')}.", ""]
    if spec.get("example"):
        lines += ["> **Example specification**: its limits are placeholders, not any vendor's or body's numbers; its "
                  "verdicts show how a specification is judged, nothing about the drive.", ""]
    rows = []
    for record in records:
        what = md.text(record.get("title")) if record.get("title") else md.DASH
        if record.get("source") and record["source"] != _judge.source_text(spec, {}):
            what += f" ({md.text(record['source'].split(', ', 1)[-1])})"
        figure = md.code(record["figure"]) + (f" as {md.code(record['measured_as'])}" if record.get("measured_as")
                                              else "")
        result = result_text(record)
        if record["status"] == _judge.NOT_JUDGED and record.get("reason"):
            result += f": {md.text(record['reason'])}"
        rows.append([md.code(record["id"]), what, figure, md.text(record["limit_text"]), md.text(measured_text(record)),
                     result, files_text(record.get("files") or [])])
    lines += md.table(["Id", "Requirement", "Figure", "Limit", "Measured", "Result", "Round files"], rows,
                      numeric=False)
    return lines + [""]


def section(model: dict, number: int) -> list[str]:
    """The Acceptance section: every requirement of every specification that applies to the drive."""
    judged = model.get("verdict") or {}
    records = judged.get("requirements") or []
    drive = model.get("drive") or {}
    lines = [f"## {number} Acceptance", "",
             f"The drive ({md.text(drive.get('model') or None)}, firmware {md.text(drive.get('firmware') or None)}) "
             "against every specification that applies to it: each requirement's limit, the figure measured (a "
             "window average, or the percentile of all the window's IOs with the IOs it counts) and the round files it "
             "comes from. A figure the results cannot give (n/r: too few IOs to resolve a percentile; a figure the "
             "drive does not report) is not judged, and counts as its specification says: INCOMPLETE, or FAIL.", ""]
    for spec in judged.get("specs") or []:
        own = [r for r in records if r["spec"] == spec["name"] and r["version"] == spec["version"]]
        if own:
            lines += _spec_lines(spec, own)
    return lines


def summary_lines(judged: dict) -> list[str]:
    """Page 1: the specifications judged and the requirements that failed, by id (or were not judged)."""
    records = judged.get("requirements") or []
    if not records:
        return []
    names = ", ".join(md.text(f"{s['name']} {s['version']}" if s.get("inline") is None else s["name"])
                      for s in judged.get("specs") or [] if s.get("requirements"))
    failed = [r for r in records if r["status"] == _judge.FAIL]
    unjudged = [r for r in records if r["status"] == _judge.NOT_JUDGED]
    passed = len(records) - len(failed) - len(unjudged)
    lines = [f"Requirements ({names}): {passed} of {len(records)} PASS"
             + (f", **{len(failed)} FAIL**" if failed else "") + (f", {len(unjudged)} not judged" if unjudged else "")
             + " (section Acceptance)."]
    if failed:
        lines.append("Failed requirements: " + ", ".join(md.code(r["case"]) for r in failed) + ".")
    if unjudged:
        lines.append("Not judged: " + ", ".join(md.code(r["case"]) for r in unjudged) + ".")
    return [" ".join(lines), ""]
