# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The run measures what the specifications ask: before the first write, every requirement of every specification
that applies to a drive is checked against the drive's plan - does a planned test measure its figure (the block size in
the matrix, the queue depth in the QoS table, a percentile the window can resolve)? When one does not, the plan either
adds the measurement (``pts_acceptance_measure: add``: the test, its block size or mix, a QoS queue depth or a deeper
percentile; a latency percentile the latency test cannot resolve is measured by the QoS measurement at queue depth 1
instead) or refuses the run (``refuse``), naming the specification, the requirement, the figure and why."""

from __future__ import annotations

import copy

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError, PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import needed_ios
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _applies

MODES = ("add", "refuse")
# The plan's fields that hold block sizes (written back into a variable as labels: 4k, 128k).
_SIZE_FIELDS = ("block_sizes",)


class Unmeasured(PtsError, ValueError):
    """A specification asks for a figure the run does not measure, and the plan refuses (or cannot add it)."""


def mode(value: object) -> str:
    if value in (None, ""):
        return "add"
    if value not in MODES:
        raise InputError(f"pts_acceptance_measure={value!r}: must be add (the plan adds the measurement a "
                         "specification asks for) or refuse (the run is refused before any write)")
    return value


def _who(spec: dict, requirement: dict) -> str:
    where = spec.get("file") or spec["name"]
    named = f"{spec['name']} {spec['version']}" if spec.get("inline") is None else spec["name"]
    return f"acceptance specification {named!r} ({where}) requirement {requirement['id']!r}"


def gaps(plan: dict, devices: list[dict], specs: list[dict]) -> list[dict]:
    """Every requirement of a specification that applies to a planned drive whose figure the drive's planned tests do
    not measure: {drive, spec, requirement, family, params, figure, why}."""
    by_key = {d.get("key"): d for d in devices}
    found = []
    for drive in plan.get("drives") or []:
        device = by_key.get(drive["key"]) or {}
        tests = {t["test"]: t for t in drive["tests"] if t.get("segments")}
        for spec in specs:
            if spec.get("inline") is None and not _applies.matches(spec["applies_to"], device):
                continue
            if spec.get("inline") is not None and spec is not _first_inline(specs, device):
                continue
            for requirement in spec["requirements"]:
                name = requirement.get("measured_as") or requirement["figure"]
                family, params, dummy = _catalogue.parse(name)
                if family.test is None:
                    continue  # the drive's own health and wear: read by every run
                why = family.planned(tests, params, plan)
                if why:
                    found.append({"drive": drive["key"], "spec": spec, "requirement": requirement, "family": family,
                                  "params": params, "figure": name, "why": why})
    return found


def _first_inline(specs: list[dict], device: dict) -> dict | None:
    return next((s for s in specs if s.get("inline") is not None and _applies.matches(s["applies_to"], device)), None)


def _hypothetical(tests: dict, needs: dict, plan: dict) -> dict:
    """The drive's tests as they would be with ``needs`` added (for the stand-in decision)."""
    out = copy.deepcopy(tests)
    entry = out.setdefault(needs["test"], {"round_seconds": plan.get("round_seconds"), "parameters": {},
                                           "block_sizes": [], "mixes": []})
    for field, value in list((needs.get("add") or {}).values()) + list((needs.get("only") or {}).values()):
        holder = entry if field in entry and field != "parameters" else entry.setdefault("parameters", {})
        holder[field] = list(holder.get(field) or []) + [value]
    for field, pct in (needs.get("deepest") or {}).values():
        entry.setdefault("parameters", {})["ios"] = max(int(entry["parameters"].get("ios") or 0), needed_ios(pct))
    return out


def resolve(gap: dict, plan: dict, tests: dict) -> tuple[dict | None, str | None]:
    """What the plan adds for a gap - (needs, the stand-in figure or None) - or (None, None) when nothing can."""
    family, params = gap["family"], gap["params"]
    own = family.needs(params)
    if own and family.planned(_hypothetical(tests, own, plan), params, plan) is None:
        return own, None
    stand_in = family.stand_in(params)
    if stand_in:
        other, other_params, dummy = _catalogue.parse(stand_in)
        return other.needs(other_params), stand_in
    return None, None


def _merged(current: list, value: object, field: str) -> list:
    """A list variable with ``value`` added when it is not in it yet (block sizes as labels: 4k, 128k); ``value``
    None: the list as it is, block sizes as labels."""
    def label(item):
        return block_size_label(item) if field in _SIZE_FIELDS and isinstance(item, int) else item

    known = [label(v) for v in current]
    if value is None or label(value) in known:
        return known
    return known + [label(value)]


def decide(variables: dict, devices: list[dict], specs: list[dict], chosen: str, build) -> dict:
    """The plan that measures what the specifications ask, or Unmeasured. ``build(variables, devices)`` makes a plan
    (module_utils/_pts/_plan.build_plan). Returns {"plan", "variables", "added": [{test, variable, value, for}],
    "stand_ins": {(spec name, version, id): figure}}."""
    plan = build(variables, devices)
    found = gaps(plan, devices, specs)
    result = {"plan": plan, "variables": variables, "added": [], "stand_ins": {}}
    if not found:
        return result
    if chosen == "refuse":
        raise Unmeasured("; ".join(f"{_who(g['spec'], g['requirement'])} asks for {g['figure']} on drive {g['drive']}, "
                                   f"which no selected test measures: {g['why']}" for g in found)
                         + "; set pts_acceptance_measure: add to let the plan add what they need")
    variables = copy.deepcopy(variables)
    wanted = _wanted(found, plan, result["stand_ins"])

    def note(test: str, variable: str, value: object, gap: dict, stand_in: str | None) -> None:
        entry = next((a for a in result["added"] if (a["variable"], a["value"]) == (variable, value)), None)
        if entry is None:
            entry = {"test": test, "variable": variable, "value": value, "for": []}
            result["added"].append(entry)
        if _for(gap, stand_in) not in entry["for"]:
            entry["for"].append(_for(gap, stand_in))

    # First the tests (their variables' values are then the plan's), then what each needs in them.
    selected = list(variables.get("pts_run_tests") or [])
    for gap, needs, stand_in in wanted:
        if needs["test"] not in selected:
            selected.append(needs["test"])
        if needs["test"] not in (variables.get("pts_run_tests") or []):
            note(needs["test"], "pts_run_tests", needs["test"], gap, stand_in)
    variables["pts_run_tests"] = selected
    staged = build(variables, devices)
    entries = {t["name"]: t for t in staged["tests"]}
    deepest: dict = {}
    own_values: dict = {}
    chosen_before = set(selected) - {a["value"] for a in result["added"] if a["variable"] == "pts_run_tests"}
    for gap, needs, stand_in in wanted:
        entry = entries[needs["test"]]
        # "only": a test the plan adds runs just what the specifications ask of it (the QoS measurement at their
        # queue depths), unless the operator set the variable; "add": to the test's own values.
        items = [(v, fv, False) for v, fv in (needs.get("add") or {}).items()]
        items += [(v, fv, needs["test"] not in chosen_before) for v, fv in (needs.get("only") or {}).items()]
        for variable, (field, value), fresh in items:
            if variables.get(variable) is not None and not (fresh and variable in own_values):
                start = variables[variable]
            else:
                start = own_values.setdefault(variable, []) if fresh else entry.get(field) or []
            current = _merged(list(start), None, field)
            merged = _merged(current, value, field)
            shown = merged[-1] if merged != current else _merged([], value, field)[0]
            if merged != current or any(a["variable"] == variable and a["value"] == shown for a in result["added"]):
                variables[variable] = merged
                if fresh:
                    own_values[variable] = merged
                note(needs["test"], variable, shown, gap, stand_in)
        for variable, (field, pct) in (needs.get("deepest") or {}).items():
            # A test the plan adds resolves what is asked of it; one selected keeps at least its own.
            current = variables.get(variable) if variables.get(variable) is not None else \
                (None if needs["test"] not in chosen_before else entry.get(field))
            if current is None or needed_ios(pct) > needed_ios(current):
                deepest.setdefault(variable, []).append((pct, needs["test"], gap, stand_in))
    for variable, asked in deepest.items():
        pct = max((p for p, dummy, dummy2, dummy3 in asked), key=needed_ios)
        variables[variable] = pct
        for dummy, test, gap, stand_in in asked:
            note(test, variable, pct, gap, stand_in)
    annotated = annotate(specs, result["stand_ins"])
    plan = build(variables, devices)
    left = gaps(plan, devices, annotated)
    if left:
        raise Unmeasured("; ".join(f"{_who(g['spec'], g['requirement'])} asks for {g['figure']} on drive {g['drive']},"
                                   f" which the plan cannot measure even with what it adds: {g['why']}" for g in left))
    result.update(plan=plan, variables=variables, specs=annotated)
    return result


def _wanted(found: list[dict], plan: dict, stand_ins: dict) -> list[tuple]:
    """What each gap needs - [(gap, needs, stand-in)] - or Unmeasured when no test of the collection measures it; the
    stand-ins go into ``stand_ins``."""
    wanted = []
    for gap in found:
        drive = next(d for d in plan["drives"] if d["key"] == gap["drive"])
        tests = {t["test"]: t for t in drive["tests"] if t.get("segments")}
        needs, stand_in = resolve(gap, plan, tests)
        if needs is None:
            raise Unmeasured(f"{_who(gap['spec'], gap['requirement'])} asks for {gap['figure']} on drive "
                             f"{gap['drive']}, which no selected test measures ({gap['why']}), and no test this "
                             "collection runs can measure it")
        if stand_in:
            stand_ins[(gap["spec"]["name"], gap["spec"]["version"], gap["requirement"]["id"])] = stand_in
        wanted.append((gap, needs, stand_in))
    return wanted


def _for(gap: dict, stand_in: str | None) -> str:
    spec = gap["spec"]
    named = f"{spec['name']} {spec['version']}" if spec.get("inline") is None else spec["name"]
    measured_as = f", measured as {stand_in})" if stand_in else ")"
    return f"{named}: {gap['requirement']['id']} ({gap['figure']}" + measured_as


def annotate(specs: list[dict], stand_ins: dict) -> list[dict]:
    """The specifications with each requirement the QoS measurement stands in for marked ``measured_as``."""
    out = copy.deepcopy(specs)
    for spec in out:
        for requirement in spec["requirements"]:
            figure = stand_ins.get((spec["name"], spec["version"], requirement["id"]))
            if figure:
                requirement["measured_as"] = figure
    return out


def lines(host: str, added: list[dict]) -> list[str]:
    """The plan's console lines of what it added, one per variable and value, with the requirements that need it."""
    out = []
    for entry in added:
        how = "=" if entry["variable"] == "pts_run_qos_percentile" else "+="
        by_spec: dict = {}
        for item in entry["for"]:
            spec, dummy, rest = item.partition(": ")
            by_spec.setdefault(spec, []).append(rest)
        shown = "; ".join(f"{spec}: {', '.join(ids[:4])}" + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
                          for spec, ids in by_spec.items())
        out.append(f"PTS acceptance {host}: adds {entry['variable']} {how} {entry['value']} for {shown}")
    return out
