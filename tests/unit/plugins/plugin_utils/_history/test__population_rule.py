# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pts_acceptance against the fleet's memory: "no worse than the fleet's 5th percentile for its model and firmware"
(population_percentile) - validated with the rules, judged by the drive's verdict, never a pass when it cannot be
judged (a population too small, a history that could not be read)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population

IOPS, LAT = "iops_4k_write", "latency_4k_write_mean_ms"
RULE = {"name": "x1", "model": "ACME*", "population_percentile": 5}


def model(iops: float | None, latency: float | None = None, population: dict | None = None) -> dict:
    """A drive that ran the IOPS (and latency) test, steady, with its population block."""
    tests = {"iops": {"status": "steady", "steady_round": 5, "rounds_run": 5, "tables": {"iops": {"4k": {"0": iops}}}}}
    if latency is not None:
        tests["latency"] = {"status": "steady", "steady_round": 5, "rounds_run": 5, "tables": {"mean_ms": {"4k": {"0": latency}}},
                            "percentiles_ms": {}}
    return {"drive": {"model": "ACME X1", "firmware": "1.0"}, "tests": tests, "population": population}


def block(values: dict, mine: dict, percentile: float = 5) -> dict:
    return {"history": "/r/pts-history.sqlite", "model": "ACME X1", "firmware": "1.0", "profile": "full",
            "figures": {f: _population.compare(f, sorted(v), mine.get(f), True, percentile) for f, v in values.items()}}


FLEET = {IOPS: [1000.0 + i for i in range(40)], LAT: [0.5 + i / 1000 for i in range(40)]}


@pytest.mark.parametrize("rule, message", [
    (dict(RULE, population_percentile=0), "population_percentile=0: must be a percentage above 0 and below 50"),
    (dict(RULE, population_percentile=50), "must be a percentage above 0 and below 50"),
    (dict(RULE, population_percentile=True), "must be a percentage"),
    (dict(RULE, population_min_size=0), "population_min_size=0: must be a whole number"),
    (dict(RULE, population_min_size=2.5), "population_min_size=2.5"),
    (dict(RULE, population_figures=["iops"]), "population_figures: unknown figures ['iops']"),
    (dict(RULE, population_figures=[]), "population_figures=[]: must be a list"),
    ({"model": "ACME*", "population_min_size": 5},
     "population_min_size and population_figures need population_percentile"),
])
def test_bad_rules_are_named(rule, message):
    with pytest.raises(ValueError) as caught:
        _acceptance.validate_rules([rule])
    assert message in str(caught.value) and "pts_acceptance[0]" in str(caught.value)


def test_a_good_rule_passes_validation_and_names_its_limit():
    rule = dict(RULE, population_min_size=20, population_figures=[IOPS])
    assert _acceptance.validate_rules([rule]) == [rule]
    (limit,) = [x for x in _acceptance.limits(rule) if x["criterion"] == "population_percentile"]
    assert limit["text"] == ("no headline figure worse than the fleet's 5th percentile for the model and firmware "
                             "(earlier runs in the history, at least 20 measurements)")


def test_a_drive_below_the_fleets_5th_percentile_fails():
    judged = _acceptance.verdict(model(900.0, 0.51, block(FLEET, {IOPS: 900.0, LAT: 0.51})), ["iops", "latency"], RULE)
    assert judged["verdict"] == _acceptance.FAIL
    failed = [c for c in judged["checks"] if not c["passed"]]
    (check,) = failed
    assert (check["criterion"], check["figure"], check["population"]) == (f"population_percentile {IOPS}", IOPS, 40)
    assert check["text"] == ("4k random write 900.0 IOPS misses the fleet's 5th percentile 1,002.0 IOPS (≥; 40 earlier "
                             "ACME X1 / 1.0 measurement(s), full profile; better than 0 % of them) "
                             "(population_percentile)")
    (latency,) = [c for c in judged["checks"] if c.get("figure") == LAT]
    assert latency["passed"] and "≤" in latency["text"]


def test_a_drive_within_the_fleet_passes_and_latency_counts_from_the_worse_end():
    ok = _acceptance.verdict(model(1020.0, 0.52, block(FLEET, {IOPS: 1020.0, LAT: 0.52})), ["iops", "latency"], RULE)
    assert ok["verdict"] == _acceptance.PASS
    slow = _acceptance.verdict(model(1020.0, 0.6, block(FLEET, {IOPS: 1020.0, LAT: 0.6})), ["iops", "latency"], RULE)
    assert slow["verdict"] == _acceptance.FAIL and "4k random write mean latency 0.600 ms misses" in slow["reasons"][0]


def test_only_the_named_figures_are_judged():
    rule = dict(RULE, population_figures=[LAT])
    judged = _acceptance.verdict(model(900.0, 0.5, block(FLEET, {IOPS: 900.0, LAT: 0.5})), ["iops", "latency"], rule)
    assert judged["verdict"] == _acceptance.PASS
    assert [c["figure"] for c in judged["checks"] if c["criterion"].startswith("population")] == [LAT]


@pytest.mark.parametrize("population, reason", [
    (None, "population_percentile: not judged: the drive reported no model, so it has no population"),
    ({"history": "postgresql://pts@db/pts", "error": "could not connect"},
     "population_percentile: not judged: the history (postgresql://pts@db/pts) could not be read: could not connect"),
    ({"history": "/r/pts-history.sqlite", "none": "no run was written to it yet"},
     "population_percentile: not judged: the history (/r/pts-history.sqlite) has no earlier run"),
    ("small", "population_percentile: not judged for iops_4k_write (3): fewer than population_min_size (10) earlier "
              "ACME X1 / 1.0 measurements (full profile) in the history"),
    ("other percentile", "population_percentile: iops_4k_write: the report was drawn without this percentile; "
                         "playbooks/report.yml draws it again"),
])
def test_what_cannot_be_judged_is_incomplete_never_a_pass(population, reason):
    if population == "small":
        population = block({IOPS: [1.0, 2.0, 3.0]}, {IOPS: 100.0})
    elif population == "other percentile":
        population = block(FLEET, {IOPS: 1020.0}, percentile=10)
    judged = _acceptance.verdict(model(1020.0, None, population), ["iops"], RULE)
    assert judged["verdict"] == _acceptance.INCOMPLETE and judged["reasons"] == [reason]


def test_a_figure_named_but_not_measured_is_incomplete():
    rule = dict(RULE, population_figures=[LAT])
    judged = _acceptance.verdict(model(1020.0, None, block(FLEET, {IOPS: 1020.0})), ["iops"], rule)
    assert judged["reasons"] == ["population_percentile: latency_4k_write_mean_ms: no final figure measured to judge"]


def test_without_the_key_nothing_changes():
    plain = {"name": "x1", "model": "ACME*", "min_iops_4k_write": 100}
    judged = _acceptance.verdict(model(1020.0, None, None), ["iops"], plain)
    assert judged["verdict"] == _acceptance.PASS and not any("population" in c["criterion"] for c in judged["checks"])
