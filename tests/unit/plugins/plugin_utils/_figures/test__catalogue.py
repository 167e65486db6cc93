# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one list of acceptance figures (plugin_utils/_figures/_catalogue.py): every report kind declares its figures,
and the rule validation, pts_plan's documentation (its argument spec) and the docsite's table of figures are held to
it here; each figure is read from a report model as the report shows it."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.modules import pts_plan
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue, _units
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _spec_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))


def _read(*parts: str) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def test_every_report_kind_declares_its_figures_and_only_its_own_tests_measure_them():
    assert set(_catalogue.KINDS) == set(_kinds.KINDS)
    for kind, figures in _catalogue.KINDS.items():
        tests = {t.name for t in _registry.TESTS if t.report == kind}
        assert {f.test for f in figures} <= tests, kind
    # The kinds a lab accepts drives on declare some; the catalogue is not empty by accident.
    assert all(_catalogue.KINDS[kind] for kind in ("iops", "throughput", "latency", "wsat", "hir", "xsr", "intensity",
                                                   "qos"))
    assert len({f.pattern for f in _catalogue.ALL}) == len(_catalogue.ALL)


@pytest.mark.parametrize("figure", _catalogue.ALL, ids=lambda f: f.pattern)
def test_each_figure_parses_its_example_and_validates_as_a_requirement(figure):
    family, params, name = _catalogue.parse(figure.example)
    assert family is figure and name == figure.example
    limit = max(_units.RANGES[figure.unit][0], 1.0)
    given = {"id": "R1", "figure": figure.example, "limit": limit}
    found = _spec_file.requirement("spec.yml: requirements[0]", given, "incomplete")
    assert found["unit"] == figure.unit and found["comparison"] == (">=" if figure.direction == "higher" else "<=")


@pytest.mark.parametrize("figure", _catalogue.ALL, ids=lambda f: f.pattern)
def test_the_docs_table_and_pts_plans_argument_spec_list_every_figure(figure):
    options = yaml.safe_load(pts_plan.DOCUMENTATION)["options"]
    assert f"C({figure.pattern})" in " ".join(options["acceptance_specs"]["description"])
    assert f"``{figure.pattern}``" in _read("docs", "docsite", "rst", "acceptance.rst")


def test_the_docs_table_is_the_one_the_catalogue_generates():
    page = _read("docs", "docsite", "rst", "acceptance.rst")
    start = page.index(_catalogue.TABLE_START)
    end = page.index(_catalogue.TABLE_END) + len(_catalogue.TABLE_END)
    assert page[start:end] == _catalogue.rst_table(), "run python scripts/acceptance_figures.py --write"
    # And nothing in pts_plan's list of figures that the catalogue does not have.
    described = yaml.safe_load(pts_plan.DOCUMENTATION)["options"]["acceptance_specs"]["description"][2:]
    listed = re.findall(r"C\(([a-z0-9_.<>]+)\)", " ".join(described))
    assert sorted({name for name in listed if not name.startswith("<")}) == sorted(f.pattern for f in _catalogue.ALL)


@pytest.mark.parametrize("name, canonical", [
    ("iops.4K.100/0", "iops.4k.100/0"),
    ("throughput.1m.read", "throughput.1024k.read"),
    ("latency.4096.0/100.write.p99.990", "latency.4k.0/100.write.p99.99"),
    ("qos.read.qd32.p99.9999", "qos.read.qd32.p99.9999"),
    ("cbw.max.p99.999", "cbw.max.p99.999"),
    ("hir.ws5.gain", "hir.ws5.gain"),
])
def test_figure_names_are_read_in_their_canonical_form(name, canonical):
    assert _catalogue.parse(name)[2] == canonical


@pytest.mark.parametrize("name, why", [
    ("iops.4k", "unknown figure 'iops.4k'"),
    ("iops.4k.60/30", "does not add up to 100 %"),
    ("iops.100.100/0", "is not a positive multiple of 512 bytes"),
    ("iops.4kk.100/0", "unknown figure 'iops.4kk.100/0'"),
    ("latency.4k.0/100.read.mean", "has no reads"),
    ("latency.4k.100/0.write.p99", "has no writes"),
    ("latency.4k.65/35.p99.99", "99.99 is not one this figure takes: 99.999"),
    ("qos.read.qd0.p99", "the queue depth 0 is not from 1"),
    ("qos.write.qd1.p99.99999", "99.99999 is not one this figure takes"),
    ("", "must be a figure's name"),
])
def test_a_name_that_is_no_figure_is_refused_with_why(name, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        _catalogue.parse(name)


MODEL = {
    "drive": {"model": "ACME", "health": {"percentage_used": 3}},
    "health_after": {"percentage_used": 4},
    "round_health": {"read": 10, "max_c": 61, "max_at": {"test": "iops", "segment": "", "round": 4},
                     "throttle_counters": True,
                     "marked": [{"test": "throughput", "segment": "1024k", "round": 2, "kinds": ["throttled"]}]},
    "wear": {"write_amplification": 1.25},
    "tests": {
        "iops": {"status": "steady", "rounds_run": 6, "window_rounds": [2, 3, 4, 5, 6],
                 "tables": {"iops": {"4k": {"100": 91000.0, "0": 42000.0}}}},
        "throughput": {"status": "steady", "rounds_run": 10, "segments": [
            {"name": "128k", "status": "steady", "rounds_run": 5, "window_rounds": [1, 2, 3, 4, 5],
             "mb_per_s": {"read": 3100.0, "write": 1900.0}, "dvs": [{"steady": True}, {"steady": True}]}]},
        "latency": {"status": "not steady", "rounds_run": 6, "window_rounds": [2, 3, 4, 5, 6],
                    "tables": {"mean_ms": {"4k": {"0": 0.02}}, "read_mean_ms": {"4k": {"100": 0.08}}},
                    "percentiles_ms": {"4k 0/100 write": {"99.99": None, "99": 0.05}},
                    "percentile_ios": {"4k 0/100 write": 2815}, "percentile_source": {"4k 0/100 write": "histogram"}},
        "qos": {"status": "steady", "rounds_run": 9, "cells": {"read qd32": {
            "round_file": "round-01", "ios": 100000, "iops": 50000.0, "mean_ms": 0.6, "max_ms": 9.0,
            "percentiles_ms": {"99": 1.1, "99.99": 4.0, "99.999": None}}}},
    },
}


@pytest.mark.parametrize("name, value, files, extra", [
    ("iops.4k.100/0", 91000.0, ["iops/round-02.json", "iops/round-03.json", "iops/round-04.json",
                                "iops/round-05.json", "iops/round-06.json"], {"state": "steady"}),
    ("throughput.128k.write", 1900.0, ["throughput/128k/round-01.json", "throughput/128k/round-02.json",
                                       "throughput/128k/round-03.json", "throughput/128k/round-04.json",
                                       "throughput/128k/round-05.json"], {}),
    ("latency.4k.100/0.read.mean", 0.08, None, {"state": "not steady"}),
    ("latency.4k.0/100.write.p99", 0.05, None, {"ios": 2815, "needed": 1000}),
    ("qos.read.qd32.p99.99", 4.0, ["qos/measure/round-01.json"], {"ios": 100000, "needed": 100000}),
    ("qos.read.qd32.iops", 50000.0, None, {}),
    ("health.max_temperature", 61.0, ["iops/round-04.json"], {}),
    ("health.throttled_rounds", 1.0, ["throughput/1024k/round-02.json"], {}),
    ("wear.write_amplification", 1.25, [], {}),
    ("wear.percentage_used_added", 1.0, ["drive.json", "health-after.json"], {}),
])
def test_each_figure_is_read_from_the_report_model_with_its_round_files(name, value, files, extra):
    found = _catalogue.value(MODEL, name)
    assert found["value"] == pytest.approx(value)
    if files is not None:
        assert found["files"] == files
    for key, wanted in extra.items():
        assert found[key] == wanted


@pytest.mark.parametrize("name, why", [
    # The n/r rule: too few IOs in the window for the percentile - not judged, with the counts.
    ("latency.4k.0/100.write.p99.99", "holds 2,815 4k random write IOs; p99.99 needs at least 100,000"),
    ("qos.read.qd32.p99.999", "counted 100,000 IOs; p99.999 needs at least 1,000,000"),
    ("qos.write.qd1.p99", "ran no 4k random write at QD1"),
    ("iops.64k.65/35", "64k 65/35 is not in the IOPS test's matrix"),
    ("xsr.recovery", "the XSR test did not run"),
    ("hir.ws5.gain", "the HIR test did not run"),
])
def test_a_figure_the_results_cannot_give_is_none_with_why(name, why):
    found = _catalogue.value(MODEL, name)
    assert found["value"] is None and why in found["reason"]


def test_throttling_cannot_be_counted_on_a_drive_without_its_counters():
    model = dict(MODEL, round_health=dict(MODEL["round_health"], throttle_counters=False))
    found = _catalogue.value(model, "health.throttled_rounds")
    assert found["value"] is None and "no thermal-management counters" in found["reason"]


@pytest.mark.parametrize("name, entry, why", [
    ("iops.4k.100/0", {}, "4k is not among the IOPS test's block sizes"),
    ("iops.4k.100/0", {"block_sizes": [4096]}, "100/0 is not among the IOPS test's R/W mixes"),
    ("throughput.128k.read", {}, "128k is not among the Throughput test's block sizes"),
    ("qos.read.qd8.p99", {}, "QD8 is not among the QoS measurement's queue depths"),
])
def test_a_planned_test_without_the_parameter_lists_says_why_it_does_not_measure_the_figure(name, entry, why):
    family, params, dummy = _catalogue.parse(name)
    assert why in family.planned({family.test: entry}, params, {})
