# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Each requirement of the specifications that apply to a drive, judged on its report model: the figure measured (or
the QoS measurement's figure the plan measured it with), PASS or FAIL against the limit, or NOT JUDGED with why (a
percentile whose IOs do not resolve it, a figure the drive does not report) - and the round files it comes from."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _applies, _inline

PASS, FAIL, NOT_JUDGED = "PASS", "FAIL", "NOT JUDGED"
STATUSES = (PASS, FAIL, NOT_JUDGED)
SIGNS = {">=": "≥", ">": ">", "<=": "≤", "<": "<"}


def number(value: float) -> str:
    """A figure or limit for people: whole numbers with thousands separators (10,000,000), others to six significant
    digits (0.0872144, 5,092.52)."""
    value = float(value)
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}"


def compare(value: float, comparison: str, limit: float) -> bool:
    return {">=": value >= limit, ">": value > limit, "<=": value <= limit, "<": value < limit}[comparison]


def specs_of_plan(run_plan: dict) -> list[dict]:
    """The specifications a host's plan recorded (files and its inline rules as anonymous ones); a plan of before
    3.0.0 has its inline rules only."""
    if run_plan.get("acceptance_specs") is not None:
        return list(run_plan["acceptance_specs"])
    return [_inline.spec(rule, index) for index, rule in enumerate(run_plan.get("acceptance") or [])]


def applicable(specs: list[dict], drive: dict) -> list[dict]:
    """The specifications that apply to a drive: every file's whose drives it is, and the first inline rule that
    matches it (first match wins, as always)."""
    found = [s for s in specs if s.get("inline") is None and _applies.matches(s["applies_to"], drive)]
    inline = next((s for s in specs if s.get("inline") is not None and _applies.matches(s["applies_to"], drive)), None)
    return ([inline] if inline else []) + found


def case_name(spec: dict, requirement: dict) -> str:
    """A requirement's JUnit case and pass-rate row name: "<spec> <version>: <id>"; an inline rule's limits of before
    3.0.0 keep their key alone ("min_iops_4k_write")."""
    if requirement.get("legacy"):
        return requirement["legacy"]
    if spec.get("inline") is not None:
        return f"{spec['name']}: {requirement['id']}"
    return f"{spec['name']} {spec['version']}: {requirement['id']}"


def source_text(spec: dict, requirement: dict) -> str:
    """Where a requirement comes from: the document, its section (the requirement's own, else the spec's)."""
    source = spec.get("source") or {}
    section = requirement.get("source") or source.get("section")
    return f"{source.get('document')}" + (f", {section}" if section else "")


def limit_text(requirement: dict) -> str:
    """A requirement's limit as the specification gave it: "≥ 90 % of rated 1,000,000 IOPS (900,000 IOPS)"."""
    given = requirement.get("given") or {}
    sign = SIGNS[requirement["comparison"]]
    own = f"{number(requirement['limit'])} {requirement['unit']}"
    if "rated" in given:
        pct = given.get("min_pct_of_rated", given.get("max_pct_of_rated"))
        return f"{sign} {pct:g} % of rated {number(given['rated'])} {given['unit']} ({own})"
    if given.get("unit") and given["unit"] != requirement["unit"]:
        return f"{sign} {number(given['limit'])} {given['unit']} ({own})"
    return f"{sign} {own}"


def judge(spec: dict, requirement: dict, model: dict) -> dict:
    """One requirement on one drive."""
    figure = requirement.get("measured_as") or requirement["figure"]
    found = _catalogue.value(model, figure)
    value = found["value"]
    status = NOT_JUDGED if value is None else (PASS if compare(value, requirement["comparison"], requirement["limit"])
                                               else FAIL)
    record = {"case": case_name(spec, requirement), "spec": spec["name"], "version": spec["version"],
              "file": spec.get("file"), "example": bool(spec.get("example")), "id": requirement["id"],
              "title": requirement.get("title"), "source": source_text(spec, requirement),
              "figure": requirement["figure"], "comparison": requirement["comparison"], "limit": requirement["limit"],
              "unit": requirement["unit"], "given": requirement.get("given"), "limit_text": limit_text(requirement),
              "measured": value,
              "status": status, "test": found.get("test"), "files": found.get("files") or [],
              "state": found.get("state"), "not_judged": requirement["not_judged"]}
    if figure != requirement["figure"]:
        record["measured_as"] = figure
    for key in ("reason", "ios", "needed"):
        if found.get(key) is not None:
            record[key] = found[key]
    if requirement.get("legacy"):
        record["legacy"] = requirement["legacy"]
    return record


def evaluate(specs: list[dict], model: dict) -> list[dict]:
    """Every requirement of the specifications (those that apply to the drive: see applicable), judged."""
    return [judge(spec, requirement, model) for spec in specs for requirement in spec["requirements"]]
