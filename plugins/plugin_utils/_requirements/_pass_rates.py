# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Per requirement across the fleet: the drives it applied to, how many passed, failed or were not judged, and the pass
rate (passed over the drives it applied to: a drive not judged is not a pass), for fleet.md, fleet.json and junit.xml."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _judge


def text(record: dict) -> str:
    """A requirement on one drive in one line (JUnit's message): measured against the limit, or why not judged."""
    if record["status"] == _judge.NOT_JUDGED:
        counted = "FAIL" if record.get("not_judged") == "fail" else "INCOMPLETE"
        return (f"{record['case']} ({record['figure']}): not judged, counts as {counted}: "
                f"{record.get('reason') or 'no figure measured'}")
    shown = f"{_judge.number(record['measured'])} {record['unit']}"
    return (f"{record['case']} ({record['figure']}): {shown} {'meets' if record['status'] == _judge.PASS else 'misses'}"
            f" {record['limit_text']}; {record.get('source')}")


def rates(drives: list[dict]) -> list[dict]:
    """One row per requirement (specification, version, id), in the order the drives first have them."""
    rows: dict = {}
    for drive in drives:
        for record in drive.get("requirements") or []:
            key = (record["spec"], record["version"], record["id"])
            row = rows.setdefault(key, {
                "case": record["case"], "spec": record["spec"], "version": record["version"], "id": record["id"],
                "title": record.get("title"), "figure": record["figure"], "limit_text": record["limit_text"],
                "example": bool(record.get("example")), "drives": 0, "passed": 0, "failed": 0, "not_judged": 0,
                "failed_drives": [], "not_judged_drives": []})
            row["drives"] += 1
            if record["status"] == _judge.PASS:
                row["passed"] += 1
            elif record["status"] == _judge.FAIL:
                row["failed"] += 1
                row["failed_drives"].append(drive["id"])
            else:
                row["not_judged"] += 1
                row["not_judged_drives"].append(drive["id"])
    for row in rows.values():
        row["pass_rate"] = row["passed"] / row["drives"] if row["drives"] else None
    return list(rows.values())
