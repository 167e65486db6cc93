# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Every list of test names outside Python says what module_utils/_pts/_spec.py says: its TESTS (the tests and the
order they run in) and TITLES. A first step to one registry of the tests (issue 30): until the argument spec and the
docs are generated from it, this test holds them to it."""

from __future__ import annotations

import os
import re

import yaml

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _read(*parts: str) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def _run_options() -> dict:
    specs = yaml.safe_load(_read("roles", "pts_run", "meta", "argument_specs.yml"))["argument_specs"]
    return specs["main"]["options"]


def test_the_argument_spec_offers_every_test_in_the_order_they_run():
    assert _run_options()["pts_run_tests"]["choices"] == list(_spec.TESTS)


def test_the_default_tests_are_known_and_the_same_in_the_spec_and_the_defaults():
    default = _run_options()["pts_run_tests"]["default"]
    assert set(default) <= set(_spec.TESTS)
    assert f"default({default!r})".replace(" ", "") in _read("roles", "pts_run", "defaults", "main.yml").replace(" ", "")


def test_the_variables_page_lists_every_test_in_the_order_they_run():
    line = next(line for line in _read("docs", "docsite", "rst", "variables.rst").splitlines()
                if line.startswith("``pts_tests``"))
    default, rest = re.match(r"``pts_tests``\s+``\[([^]]*)\]``(.*)$", line).groups()
    default = [name.strip() for name in default.split(",")]
    assert default == _run_options()["pts_run_tests"]["default"]
    # The default's tests, then every other in the order they run.
    assert re.findall(r"``([a-z0-9_]+)``", rest) == [name for name in _spec.TESTS if name not in default]


def test_every_test_has_a_title_and_a_report():
    assert set(_spec.TITLES) == set(_spec.TESTS)
    assert set(_drive_report.TEST_MODULES) == set(_spec.TESTS)
