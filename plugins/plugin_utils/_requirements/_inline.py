# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""An inline acceptance rule (``pts_acceptance``) as the anonymous specification it is: its five limits of before
3.0.0 (each a requirement whose id is the limit's key, on the figure it always meant) and the requirements it lists in
the specification files' form. The rule's other keys - require_steady, the health limits, the rated endurance - stay
the rule's (_acceptance.py, module_utils/_pts/_wear.py)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _spec_file

# The limits of before 3.0.0 and the figures they judge.
LEGACY = {
    "min_iops_4k_write": "iops.4k.0/100",
    "min_throughput_1024k_write_mb_s": "throughput.1024k.write",
    "min_throughput_1024k_read_mb_s": "throughput.1024k.read",
    "max_latency_4k_write_mean_ms": "latency.4k.0/100.mean",
    "max_latency_4k_write_p9999_ms": "latency.4k.0/100.write.p99.99",
}
VERSION = "inline"


def requirements(rule: dict, where: str) -> list[dict]:
    """The rule's requirements: its limits of before 3.0.0, then those it lists (validated; ValueError naming them)."""
    not_judged = rule.get("not_judged") or "incomplete"
    found = []
    for key, figure in LEGACY.items():
        if rule.get(key) is not None:
            entry = _spec_file.requirement(f"{where}.{key}", {"id": key, "figure": figure, "limit": rule[key]},
                                           not_judged)
            found.append(dict(entry, legacy=key))
    listed = rule.get("requirements") or []
    if not isinstance(listed, list):
        raise _spec_file.SpecError(f"{where}.requirements: must be a list of requirements")
    for index, entry in enumerate(listed):
        requirement = _spec_file.requirement(f"{where}.requirements[{index}]", entry, not_judged)
        if any(r["id"] == requirement["id"] for r in found):
            raise _spec_file.SpecError(f"{where}.requirements[{index}]: id {requirement['id']!r} is given twice")
        found.append(requirement)
    return found


def spec(rule: dict, index: int) -> dict:
    """The anonymous specification of the inventory's rule number ``index``."""
    where = f"pts_acceptance[{index}]"
    return {"name": rule.get("name") or where, "version": VERSION,
            "source": {"document": "the inventory's acceptance rule (pts_acceptance)", "section": where, "url": None},
            "applies_to": {"model": rule["model"], "firmware": rule.get("firmware"), "interface": None,
                           "capacity": None},
            "not_judged": rule.get("not_judged") or "incomplete", "example": False, "description": None,
            "requirements": requirements(rule, where), "file": where, "inline": index, "sha256": None}
