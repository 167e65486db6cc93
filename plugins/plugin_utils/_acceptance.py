# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's verdict - PASS, FAIL (which criterion or requirement, measured against its limit) or INCOMPLETE - and the
fleet-relative check: drives far from the median of their model and firmware cohort.

What is judged: every test planned (finished, steady where the rule asks for it), the drive's health per round (the
rule's limits) and every requirement of the specifications that apply to the drive (_requirements/: the inventory's
rule as an anonymous specification, and the files of pts_acceptance_specs), each on one figure of the catalogue
(_figures/_catalogue.py). A requirement the results cannot judge counts as its specification says: INCOMPLETE (the
default) or FAIL. A further kind of requirement - one against the fleet's own figures (a population rule, such as "no
worse than the fleet's 5th percentile") - judges the same figures by name: its records join the requirements here
with the same fields (case, figure, limit, measured, status, files), so the report, the pass rates and JUnit take them
as they are."""

from __future__ import annotations

import fnmatch
import math
import statistics

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._checks import Checks
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population_rule
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _inline, _judge, _spec_file

PASS, FAIL, INCOMPLETE = "PASS", "FAIL", "INCOMPLETE"
VERDICTS = (PASS, FAIL, INCOMPLETE)
# A quick-profile run shows the harness works on a small device; its verdict must never read as a qualification's.
QUICK_WORDING = "quick profile — not a qualification"


def label(verdict: str, quick: bool) -> str:
    """A verdict as every report, summary and JUnit message shows it: "FAIL (quick profile — not a qualification)"."""
    return f"{verdict} ({QUICK_WORDING})" if quick else verdict


# criterion -> (headline figure, direction, unit); "min" passes at or above the limit, "max" at or below.
CRITERIA = {
    "min_iops_4k_write": ("iops_4k_write", "min", "IOPS"),
    "min_throughput_1024k_write_mb_s": ("throughput_1024k_write_mb_s", "min", "MB/s"),
    "min_throughput_1024k_read_mb_s": ("throughput_1024k_read_mb_s", "min", "MB/s"),
    "max_latency_4k_write_mean_ms": ("latency_4k_write_mean_ms", "max", "ms"),
    "max_latency_4k_write_p9999_ms": ("latency_4k_write_p9999_ms", "max", "ms"),
}
HEADLINES = _headline_figures.HEADLINES
# Criteria on the drive's own health per round (read before and after every round, see _health): the highest
# temperature read, and whether a thermal-management transition counter may grow during a round.
HEALTH_CRITERIA = ("max_temperature_c", "allow_throttling")
# The model's rated endurance and write rate, for the wear budget the plan judges before the first write
# (module_utils/_pts/_wear.py): endurance_tbw (TB written, decimal) or dwpd with warranty_years, and rated_write_mb_s.
ENDURANCE_KEYS = ("endurance_tbw", "dwpd", "warranty_years", "rated_write_mb_s")
# Against the fleet's memory: no figure worse than the fleet's percentile for the model and firmware
# (_history/_population_rule.py).
RULE_KEYS = ("name", "model", "firmware", "require_steady", *CRITERIA, *HEALTH_CRITERIA, *ENDURANCE_KEYS,
             "requirements", "not_judged", *_population_rule.KEYS)
# The physical range of each criterion's limit: (lowest, highest). A limit outside it is a typo or a unit mix-up that
# would pass or fail every drive. A 4k random write at PCIe 5.0 x4's 16 GB/s is 3.9 M IOPS and the fastest links carry
# well under a TB/s, so 100 M IOPS and 1,000,000 MB/s leave room for any drive or array; a 4k write takes more than
# 1 µs (0.001 ms) and less than an hour (3,600,000 ms) on anything that still counts as working.
CRITERIA_RANGES = {
    "min_iops_4k_write": (1.0, 1e8),
    "min_throughput_1024k_write_mb_s": (1.0, 1e6),
    "min_throughput_1024k_read_mb_s": (1.0, 1e6),
    "max_latency_4k_write_mean_ms": (0.001, 3.6e6),
    "max_latency_4k_write_p9999_ms": (0.001, 3.6e6),
}


def validate_rules(rules: object) -> list[dict]:
    """Acceptance rules as the inventory gives them; raise ValueError naming the bad entry."""
    if rules in (None, ""):
        return []
    if not isinstance(rules, list):
        raise InputError(f"pts_acceptance={rules!r}: must be a list of rules")
    for index, rule in enumerate(rules):
        where = f"pts_acceptance[{index}]"
        if not isinstance(rule, dict) or not rule.get("model"):
            raise InputError(f"{where}={rule!r}: each rule needs a model (a glob such as 'SAMSUNG MZQL2*')")
        unknown = sorted(set(rule) - set(RULE_KEYS))
        if unknown:
            raise InputError(f"{where}: unknown keys {unknown}; known: {', '.join(RULE_KEYS)}")
        for key in ("name", "model", "firmware"):
            _text.no_format_characters(f"{where}.{key}", rule.get(key))
        for key in CRITERIA:
            value = rule.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise InputError(f"{where}.{key}={value!r}: must be a positive number")
            low, high = CRITERIA_RANGES[key]
            if not low <= value <= high:
                raise InputError(f"{where}.{key}={value!r}: must be from {low:g} to {high:g} {CRITERIA[key][2]}: a "
                                 "limit outside that range is no drive's")
        for key in ENDURANCE_KEYS:
            why = None if rule.get(key) is None else _wear.in_range(key, rule[key])
            if why:
                raise InputError(f"{where}.{key}={rule[key]!r}: {why}")
        for key in ("require_steady", "allow_throttling"):
            if key in rule and not isinstance(rule[key], bool):
                raise InputError(f"{where}.{key}={rule[key]!r}: must be true or false")
        value = rule.get("max_temperature_c")
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or not 0 < value < 200):
            raise InputError(f"{where}.max_temperature_c={value!r}: must be a temperature in °C above 0 and below 200")
        _population_rule.validate(rule, where)
        if rule.get("dwpd") is not None and rule.get("warranty_years") is None:
            raise InputError(f"{where}.dwpd={rule['dwpd']!r}: needs warranty_years (the rated drive writes per day "
                             "hold over the warranty period), or give endurance_tbw instead")
        if rule.get("warranty_years") is not None and rule.get("dwpd") is None and rule.get("endurance_tbw") is None:
            raise InputError(f"{where}.warranty_years={rule['warranty_years']!r}: gives no endurance without dwpd "
                             "(or give endurance_tbw)")
        if rule.get("not_judged") is not None and rule["not_judged"] not in _spec_file.NOT_JUDGED:
            raise InputError(f"{where}.not_judged={rule['not_judged']!r}: must be one of "
                             f"{', '.join(_spec_file.NOT_JUDGED)}")
        # Its requirements in the specification files' form, and its limits as requirements: checked the same way.
        _inline.requirements(rule, where)
    return rules


def inline_specs(rules: list[dict]) -> list[dict]:
    """The inventory's rules (validated) as anonymous specifications, in their order (first match wins)."""
    return [_inline.spec(rule, index) for index, rule in enumerate(rules or [])]


def test_name(name: str) -> str:
    """A test as the verdict's reasons and checks name it: the reports' words, never the internal id ("iops:") - IOPS,
    Throughput, Latency, Write saturation, HIR, XSR, CBW, DIRTH, else the test's title."""
    test = BY_NAME.get(name)
    return test.short if test else name


def _where(item: dict) -> str:
    return f"{item['test']}{' ' + item['segment'] if item.get('segment') else ''} round {item['round']}"


def health_checks(model: dict, rule: dict | None) -> tuple[list[dict], list[str]]:
    """The rule's health criteria against the drive's health per round: (checks, reasons it cannot be judged)."""
    checks: list[dict] = []
    incomplete: list[str] = []
    health = model.get("round_health") or {}
    limit = (rule or {}).get("max_temperature_c")
    if limit is not None:
        hottest = health.get("max_c")
        if hottest is None:
            incomplete.append("max_temperature_c: the drive reported no temperature in any round")
        else:
            passed = hottest <= limit
            where = _where(health.get("max_at") or {"test": "?", "round": "?"})
            checks.append({"criterion": "max_temperature_c", "passed": passed, "measured": hottest, "limit": limit,
                           "unit": "°C", "text": f"highest drive temperature {hottest} °C ({where}) "
                                                 f"{'meets' if passed else 'misses'} ≤ {limit:g} °C (max_temperature_c)"})
    if rule is not None and rule.get("allow_throttling") is False:
        throttled = [m for m in health.get("marked") or [] if "throttled" in m["kinds"]]
        if throttled:
            shown = ", ".join(_where(m) for m in throttled[:10]) + (" …" if len(throttled) > 10 else "")
            checks.append({"criterion": "allow_throttling", "passed": False, "measured": len(throttled),
                           "text": f"the drive throttled (thermal management) in {len(throttled)} round(s): {shown} "
                                   "(allow_throttling: false)"})
        elif not health.get("throttle_counters"):
            incomplete.append("allow_throttling: false: the drive reports no thermal-management counters, so "
                              "throttling cannot be judged")
        else:
            checks.append({"criterion": "allow_throttling", "passed": True, "measured": 0,
                           "text": f"no thermal throttling in {health.get('read'):,} rounds read"})
    return checks, incomplete


def matching_rule(rules: list[dict], model: str | None, firmware: str | None) -> dict | None:
    """The first rule whose model (and firmware, if it names one) glob matches the drive."""
    for rule in rules:
        if not fnmatch.fnmatchcase(model or "", rule["model"]):
            continue
        if rule.get("firmware") and not fnmatch.fnmatchcase(firmware or "", rule["firmware"]):
            continue
        return rule
    return None


def headline(model: dict) -> dict:
    """The figures verdicts and cohorts look at, from the drive's report model (window averages)."""
    return _headline_figures.values(model)


def headline_steady(model: dict) -> dict:
    """Per headline figure, whether it comes from a steady measurement window."""
    return _headline_figures.steady(model)


def _checks(name: str):
    """The verdict words of a test's report kind (None: the generic words)."""
    test = BY_NAME.get(name)
    return _catalogue.CHECKS.get(test.report) if test else None


def _not_steady_text(name: str, result: dict) -> str:
    """Which DVs missed steady state, within which limit (the test's report kind may say it its own way)."""
    limit = (result.get("settings") or {}).get("max_rounds")
    checks = _checks(name)
    if checks and checks.not_steady:
        return f"{test_name(name)}: steady state required, {checks.not_steady(result, limit)}"
    if result.get("not_steady_text"):
        return f"{test_name(name)}: steady state required, {result['not_steady_text']}"
    return f"{test_name(name)}: steady state required, not reached in {result.get('rounds_run')} rounds (limit {limit})"


def _criterion_text(figure: str, measured: float, passed: bool, sign: str, limit: float) -> str:
    spec = _headline_figures.FIGURES[figure]
    note = f" ({spec['note']})" if spec.get("note") else ""
    return (f"{spec['label']} {measured:,.{max(spec['digits'], 1)}f} {spec['unit']}{note} "
            f"{'meets' if passed else 'misses'} {sign} {limit:,} {spec['unit']} ({figure})")


def _drive_error(failure: dict) -> bool:
    """Did the drive itself fail (I/O errors), rather than the harness or the connection?"""
    text = f"{failure.get('msg') or ''} {failure.get('stderr') or ''}"
    return "io_u error" in text or "ended with error" in text or "Input/output error" in text


def verdict(model: dict | None, planned: list[str], rule: dict | None, lost: str | None = None,
            specs: list[dict] | None = None) -> dict:
    """PASS, FAIL or INCOMPLETE with every check made; FAIL wins over INCOMPLETE (evidence of a bad drive).

    ``specs``: the specifications that apply to the drive (_requirements/_judge.applicable), the rule's anonymous one
    among them; by default the rule's alone."""
    checks: list[dict] = []
    incomplete: list[str] = []
    if specs is None:
        specs = [_inline.spec(rule, 0)] if rule else []
    if model is None:
        incomplete.append(lost or "no results: the host was not reached or stopped before identifying the drive")
        return {"verdict": INCOMPLETE, "label": INCOMPLETE, "quick_profile": False, "reasons": incomplete,
                "checks": checks, "rule": rule and rule.get("name"), "limits": limits(rule),
                "specs": spec_summaries(specs), "requirements": [], "failed_requirements": []}
    guard = model.get("guard") or {}
    if guard and not guard.get("passed"):
        incomplete.append("refused by the guard: " + "; ".join(guard.get("refusals") or []))
    if not planned and not incomplete:
        incomplete.append("no selected test applies to this drive (see the plan: its mode or sector size)")
    require_steady = True if rule is None else rule.get("require_steady", True)
    _test_checks(model, planned, require_steady, lost, checks, incomplete)
    figures = headline(model)
    records = _judge.evaluate(specs, model)
    not_judged = []
    for record in records:
        check, unjudged = _requirement_check(record)
        if check:
            checks.append(check)
        # Said even when another reason fails the drive: a limit the results could not judge (an inline rule's limit
        # of before 3.0.0 only when its percentile was measured and not resolved, as before).
        if record["status"] == _judge.NOT_JUDGED and (record.get("ios") is not None or not record.get("legacy")):
            who = record["legacy"] if record.get("legacy") else f"{record['case']} ({record['figure']})"
            not_judged.append(f"{who}: {record.get('reason') or 'no figure measured'}")
        if unjudged:
            incomplete.append(unjudged)
    health, unjudged = health_checks(model, rule)
    checks += health
    incomplete += unjudged
    population, unjudged = _population_rule.checks(model, rule)
    checks += population
    incomplete += unjudged
    failed = [c["text"] for c in checks if not c["passed"]]
    if failed:
        outcome = FAIL
    elif incomplete:
        outcome = INCOMPLETE
    else:
        outcome = PASS
    quick = bool(model.get("quick_profile"))
    return {"verdict": outcome, "label": label(outcome, quick), "quick_profile": quick, "reasons": failed or incomplete,
            "not_judged": not_judged, "checks": checks, "rule": rule and rule.get("name"), "limits": limits(rule),
            "headline": figures, "headline_steady": headline_steady(model), "specs": spec_summaries(specs),
            "requirements": records,
            "failed_requirements": [r["case"] for r in records if r["status"] == _judge.FAIL
                                    or (r["status"] == _judge.NOT_JUDGED and r["not_judged"] == "fail")]}


def _test_checks(model: dict, planned: list[str], require_steady: bool, lost: str | None, checks: list[dict],
                 incomplete: list[str]) -> None:
    """Each planned test's check (steady state, write saturation's end, XSR's samples, no I/O errors) into ``checks``,
    or why it cannot be judged into ``incomplete``."""
    tests = model.get("tests") or {}
    for name in planned:
        result = tests.get(name)
        if result is None:
            failure = (model.get("failed_before_rounds") or {}).get(name)
            if failure:
                where = failure.get("phase") or "purge"
                incomplete.append(f"{test_name(name)}: the {where} failed before the first round: "
                                  f"{failure.get('msg') or 'no reason recorded'}")
            elif not incomplete:
                incomplete.append(f"{test_name(name)}: not run" + (f" ({lost})" if lost else ""))
            continue
        status = result.get("status")
        seconds = result.get("wall_s")
        if status == "failed":
            failure = result.get("failure") or {}
            if _drive_error(failure):
                checks.append({"criterion": f"{name}: no I/O errors", "passed": False, "test": name, "seconds": seconds,
                               "text": f"{test_name(name)}: the drive returned I/O errors: {failure.get('msg')}"})
            else:
                incomplete.append(f"{test_name(name)}: failed ({failure.get('msg')})")
        elif status in ("incomplete", "no rounds"):
            incomplete.append(f"{test_name(name)}: stopped after {result.get('rounds_run', 0)} round(s)"
                              + (f" ({lost})" if lost else ""))
        elif status == "not steady":
            if require_steady:
                checks.append({"criterion": f"{name}: steady state", "passed": False, "test": name, "seconds": seconds,
                               "text": _not_steady_text(name, result)})
            else:
                incomplete.append(f"{test_name(name)}: not steady (figures are not steady-state figures)")
        elif status == "steady" and require_steady:
            if result.get("steady_text"):
                at = result["steady_text"]  # a test of several phases says which were steady, and when
            elif result.get("steady_round"):
                at = f"steady at round {result['steady_round']}"
            else:
                at = "steady for every block size, read and write"
            checks.append({"criterion": f"{name}: steady state", "passed": True, "test": name, "seconds": seconds,
                           "text": f"{test_name(name)}: {at}"})
        else:
            # A test without a steady state of its own passes its end (write saturation: the capacity written).
            ended = (_checks(name) or Checks()).ended
            if ended and status in ended[1]:
                criterion, dummy, text = ended
                checks.append({"criterion": f"{name}: {criterion}", "passed": True, "test": name, "seconds": seconds,
                               "text": f"{test_name(name)}: {text(model, result)}"})


def spec_summaries(specs: list[dict]) -> list[dict]:
    """The specifications a drive was judged against, for its report and result.json."""
    return [{"name": s["name"], "version": s["version"], "source": s.get("source"), "file": s.get("file"),
             "sha256": s.get("sha256"), "example": bool(s.get("example")), "inline": s.get("inline"),
             "requirements": len(s["requirements"])} for s in specs]


def _requirement_check(record: dict) -> tuple[dict | None, str | None]:
    """A judged requirement as the verdict's check (PASS or FAIL, and a not judged one its specification fails), or
    the reason it leaves the drive INCOMPLETE. An inline rule's limits of before 3.0.0 keep their words."""
    legacy = record.get("legacy")
    base = {"criterion": record["case"], "requirement": True, "figure": record["figure"], "test": record.get("test")}
    if legacy:
        base["legacy"] = legacy
    if record["status"] == _judge.NOT_JUDGED:
        if legacy:
            why = (f"{legacy}: not judged: {record['reason']}" if record.get("ios") is not None
                   else f"{legacy}: no figure measured for it")
        else:
            why = f"{record['case']} ({record['figure']}): not judged: {record.get('reason') or 'no figure measured'}"
        if record["not_judged"] == "fail":
            return dict(base, passed=False, text=f"{why} (its specification fails a requirement it cannot judge)"), None
        return None, why
    passed = record["status"] == _judge.PASS
    sign = _judge.SIGNS[record["comparison"]]
    if legacy:
        figure = CRITERIA[legacy][0]
        limit = (record.get("given") or {}).get("limit", record["limit"])
        text = _criterion_text(figure, record["measured"], passed, sign, limit)
    else:
        shown = f"{_judge.number(record['measured'])} {record['unit']}"
        text = (f"{record['case']}: {record['figure']} {shown} {'meets' if passed else 'misses'} "
                f"{record['limit_text']}" + (f" (measured as {record['measured_as']})" if record.get("measured_as")
                                             else ""))
    return dict(base, passed=passed, measured=record["measured"], limit=record["limit"], unit=record["unit"],
                text=text), None


def limits(rule: dict | None) -> list[dict]:
    """A rule's acceptance limits in words and numbers, for the summary page and result.json."""
    out = []
    for key, (figure, direction, unit) in CRITERIA.items():
        if (rule or {}).get(key) is not None:
            spec = _headline_figures.FIGURES[figure]
            out.append({"criterion": key, "figure": figure, "limit": rule[key], "unit": unit,
                        "text": f"{spec['label']} {'≥' if direction == 'min' else '≤'} {rule[key]:,} {unit}"
                                + (f" ({spec['note']})" if spec.get("note") else "")})
    if (rule or {}).get("max_temperature_c") is not None:
        out.append({"criterion": "max_temperature_c", "limit": rule["max_temperature_c"], "unit": "°C",
                    "text": f"drive temperature ≤ {rule['max_temperature_c']:g} °C in every round"})
    if rule is not None and rule.get("allow_throttling") is False:
        out.append({"criterion": "allow_throttling", "limit": False, "text": "no thermal throttling in any round"})
    if (rule or {}).get("population_percentile") is not None:
        out.append({"criterion": "population_percentile", "limit": rule["population_percentile"],
                    "text": _population_rule.limit_text(rule)})
    if rule is not None:
        out.append({"criterion": "require_steady", "limit": rule.get("require_steady", True),
                    "text": "every test steady" if rule.get("require_steady", True) else "steady state not required"})
    return out


def cohort_outliers(drives: list[dict], threshold: float, min_deviation_pct: float, min_size: int) -> dict:
    """Per drive id, the headline figures that sit far from their model+firmware cohort's median.

    Robust statistics: modified z-score 0.6745 * (x - median) / MAD (Iglewicz and Hoaglin), flagged beyond
    ``threshold`` and only when also more than ``min_deviation_pct`` % from the median, so tight cohorts do not
    flag noise. With MAD = 0 the percentage alone decides. Each drive: {id, model, firmware, headline} and
    optionally headline_steady (figures from windows that were not steady are left out).
    """
    cohorts: dict[tuple, list[dict]] = {}
    for drive in drives:
        cohorts.setdefault((drive.get("model"), drive.get("firmware")), []).append(drive)
    flagged: dict[str, list[dict]] = {}
    for (model, firmware), members in cohorts.items():
        for figure in HEADLINES:
            # Only steady-state figures are compared: a stopped or unsteady test says nothing about the drive's level.
            values = [(d["id"], d["headline"].get(figure)) for d in members if d["headline"].get(figure) is not None
                      and (d.get("headline_steady") or {}).get(figure, True)]
            if len(values) < min_size:
                continue
            numbers = [v for dummy, v in values]
            median = statistics.median(numbers)
            mad = statistics.median([abs(v - median) for v in numbers])
            for drive_id, value in values:
                deviation_pct = 100.0 * abs(value - median) / median if median else 0.0
                z = 0.6745 * (value - median) / mad if mad else (float("inf") if value != median else 0.0)
                if abs(z) > threshold and deviation_pct > min_deviation_pct:
                    flagged.setdefault(drive_id, []).append({
                        "figure": figure, "value": value, "median": median, "robust_z": z,
                        "deviation_pct": deviation_pct, "cohort": f"{model} / {firmware}", "cohort_size": len(values),
                    })
    return flagged
