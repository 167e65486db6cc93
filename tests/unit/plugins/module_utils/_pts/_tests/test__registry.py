# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The registry of tests (module_utils/_pts/_tests/) is the one list of them: the role's argument spec, its defaults,
the docs, the plan and the report are held to it here."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _plan
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _descriptor, _registry
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 6))
DRIVE = {"key": "d1", "size_bytes": 64 * 2 ** 30, "logical_block_size": 512}


def _read(*parts: str) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return handle.read()


def _run_options() -> dict:
    specs = yaml.safe_load(_read("roles", "pts_run", "meta", "argument_specs.yml"))["argument_specs"]
    return specs["main"]["options"]


def test_the_argument_spec_offers_every_test_in_the_order_they_run():
    assert _run_options()["pts_run_tests"]["choices"] == list(_registry.NAMES)


def test_the_default_tests_are_known_and_the_same_in_the_spec_and_the_defaults():
    default = _run_options()["pts_run_tests"]["default"]
    assert set(default) <= set(_registry.NAMES)
    assert f"default({default!r})".replace(" ", "") in _read("roles", "pts_run", "defaults", "main.yml").replace(" ", "")


def test_the_variables_page_lists_every_test_in_the_order_they_run():
    line = next(line for line in _read("docs", "docsite", "rst", "variables.rst").splitlines()
                if line.startswith("``pts_tests``"))
    default, rest = re.match(r"``pts_tests``\s+``\[([^]]*)\]``(.*)$", line).groups()
    default = [name.strip() for name in default.split(",")]
    assert default == _run_options()["pts_run_tests"]["default"]
    # The default's tests, then every other in the order they run.
    assert re.findall(r"``([a-z0-9_]+)``", rest) == [name for name in _registry.NAMES if name not in default]


@pytest.mark.parametrize("test", _registry.TESTS, ids=_registry.NAMES)
def test_every_test_is_described_on_the_tests_page_and_has_a_report(test):
    assert f"``{test.name}``" in _read("docs", "docsite", "rst", "tests.rst")
    drawn = _kinds.of(test.name)
    assert drawn is _kinds.KINDS[test.report]
    assert all(callable(getattr(drawn, part)) for part in ("build", "plots", "section"))


@pytest.mark.parametrize("test", _registry.TESTS, ids=_registry.NAMES)
def test_every_variable_a_test_names_is_an_option_of_the_role(test):
    options = _run_options()
    named = list(test.variables) + [variable for variable, dummy in test.size_fields]
    named += ["pts_run_" + key for key in test.raw_variables]
    named += ["pts_run_" + key for values in test.profile.values() for key in values]
    assert [variable for variable in named if variable not in options] == []
    # A quick value has a standard one to fall back on; raw variables all have a value in the standard profile.
    for values in test.profile.values():
        assert set(values) <= set(test.profile["standard"])
    assert set(test.raw_variables) <= set(test.profile["standard"])


@pytest.mark.parametrize("variable, key, owner", [
    ("pts_run_round_seconds", "round_seconds", None), ("pts_run_max_rounds", "max_rounds", None),
    ("pts_run_wsat_round_seconds", "wsat_round_seconds", "wsat"), ("pts_run_wsat_max_hours", "wsat_max_hours", "wsat"),
])
def test_the_argument_spec_gives_the_profiles_values_the_plan_takes(variable, key, owner):
    def value(profile):
        if owner is None:
            return _registry.COMMON_PROFILE[profile][key]
        return _registry.BY_NAME[owner].effective({}, profile, key)
    assert f"(standard {value('standard'):g}, quick {value('quick'):g})" in _run_options()[variable]["description"]
    assert "default" not in _run_options()[variable]  # unset, the plan takes the profile's


def test_tests_that_share_a_variable_give_it_the_same_profile_values():
    seen = {}
    for test in _registry.TESTS:
        for profile, values in test.profile.items():
            for key, value in values.items():
                assert seen.setdefault((profile, key), value) == value, f"{test.name}: {profile} {key}"


@pytest.mark.parametrize("spec", ("1.1", "2.0"))
@pytest.mark.parametrize("profile", _registry.PROFILES)
def test_the_plan_runs_each_test_by_its_descriptor(spec, profile):
    plan = _plan.build_plan({"pts_run_tests": list(_registry.NAMES), "pts_run_spec": spec, "pts_run_profile": profile,
                             "pts_run_window": 5, "pts_run_max_data_excursion_pct": 20,
                             "pts_run_max_slope_excursion_pct": 10}, [DRIVE])
    assert [t["name"] for t in plan["tests"]] == list(_registry.NAMES)
    for entry in plan["tests"]:
        test = _registry.BY_NAME[entry["name"]]
        assert (entry["stop"], entry["purge"], entry["title"]) == (test.stop, test.purge, test.title)
        assert test.stop in _descriptor.STOPS and test.family in _descriptor.FAMILIES
    # The round length and limit are the profile's when the operator sets none.
    assert plan["round_seconds"] == _registry.COMMON_PROFILE[profile]["round_seconds"]
    assert plan["max_rounds"] == _registry.COMMON_PROFILE[profile]["max_rounds"]
    wsat = next(t for t in plan["tests"] if t["name"] == "wsat")
    assert wsat["round_seconds"] == _registry.BY_NAME["wsat"].effective({}, profile, "wsat_round_seconds")
    # The SSD drive runs every SSD test; the HDD tests are noted as not run.
    ran = [t["test"] for t in plan["drives"][0]["tests"]]
    assert ran == [name for name in _registry.NAMES if name not in _registry.HDD]


def test_an_hdd_runs_the_hdd_form_of_a_test_that_has_one():
    names, notes = _registry.drive_tests(["iops", "throughput", "latency", "hdd_iops"], "hdd")
    assert names == ["hdd_iops", "hdd_throughput"]
    assert notes == ["latency not run: an SSD test, and the drive runs in HDD mode"]
    assert _registry.drive_tests(["iops", "hdd_throughput"], "ssd") == (
        ["iops"], ["hdd_throughput not run: an HDD test, and the drive runs in SSD mode"])


# What CONTRIBUTING's "Adding a test" says a test with an existing stop rule and report kind needs, tried on a copy of
# the collection: a throwaway test "toy" (latency's settings, latency's report kind).
_TOY_REPORT = '''
import re

from conftest import ROUND_FIXTURE, SETTINGS, write_drive, write_segment
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report


def test_the_toy_test_is_reported(tmp_path):
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "toy", [1.0, 1.01, 0.99, 1.0, 1.0], settings=SETTINGS["latency"],
                  fixture=ROUND_FIXTURE["latency"])
    markdown = _drive_report.render_markdown(_drive_report.write_drive_report(drive_dir, formats=())["model"], {})
    number = re.search(r"^## (\\d+) Toy latency$", markdown, re.M).group(1)  # its section, under its own title
    assert f"[Toy latency](#{number}-toy-latency)" in markdown and "| Toy latency | steady | 5 |" in markdown
    assert "Checks passed: Toy latency: steady at round 5." in markdown
'''


def _copy_collection(into: str) -> str:
    root = os.path.join(into, "ansible_collections", "fleetqual", "pts")
    ignore = shutil.ignore_patterns("__pycache__", ".collections")
    for part in ("plugins", "roles", os.path.join("docs", "docsite", "rst"),
                 os.path.join("tests", "unit", "plugins", "module_utils", "fixtures")):
        shutil.copytree(os.path.join(ROOT, part), os.path.join(root, part), ignore=ignore)
    for part in (("tests", "conftest.py"), ("tests", "unit", "plugins", "plugin_utils", "conftest.py"),
                 ("tests", "unit", "plugins", "module_utils", "_pts", "_tests", "test__registry.py")):
        os.makedirs(os.path.join(root, *part[:-1]), exist_ok=True)
        shutil.copy(os.path.join(ROOT, *part), os.path.join(root, *part))
    with open(os.path.join(root, "tests", "unit", "plugins", "plugin_utils", "test_toy.py"), "w",
              encoding="utf-8") as handle:
        handle.write(_TOY_REPORT)
    return root


def _edit(root: str, path: str, old: str, new: str) -> None:
    with open(os.path.join(root, path), encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, f"{path}: {old!r}"
    with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))


def _failures(root: str) -> list[str]:
    tests = ["tests/unit/plugins/module_utils/_pts/_tests/test__registry.py", "tests/unit/plugins/plugin_utils/test_toy.py"]
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-c", os.devnull, "--rootdir", root, "--deselect", f"{tests[0]}::{_THIS}", *tests],
                         cwd=root, capture_output=True, text=True, check=False)
    assert re.search(r"\d+ passed", ran.stdout), ran.stdout + ran.stderr
    return sorted(line.split("::", 1)[1].split(" - ")[0] for line in ran.stdout.splitlines()
                  if line.startswith("FAILED "))


_THIS = "test_adding_a_throwaway_test_needs_what_contributing_lists_and_no_more"


def test_adding_a_throwaway_test_needs_what_contributing_lists_and_no_more(tmp_path):
    root = _copy_collection(str(tmp_path))
    tests_dir = os.path.join("plugins", "module_utils", "_pts", "_tests")
    # 1. its descriptor; 2. its registry line.
    with open(os.path.join(root, tests_dir, "latency.py"), encoding="utf-8") as handle:
        descriptor = handle.read().replace('name="latency", title="Latency"', 'name="toy", title="Toy latency"')
    with open(os.path.join(root, tests_dir, "toy.py"), "w", encoding="utf-8") as handle:
        handle.write(descriptor)
    _edit(root, os.path.join(tests_dir, "_registry.py"), "import throughput, wsat, xsr\n",
          "import throughput, toy, wsat, xsr\n")
    _edit(root, os.path.join(tests_dir, "_registry.py"), "iops, throughput, latency, wsat,", "iops, throughput, latency, wsat, toy,")
    # Registered, planned and reported already; what is left is named by the checks that fail.
    assert _failures(root) == ["test_every_test_is_described_on_the_tests_page_and_has_a_report[toy]",
                               "test_the_argument_spec_offers_every_test_in_the_order_they_run",
                               "test_the_variables_page_lists_every_test_in_the_order_they_run"]
    # 4. its name among pts_run_tests' choices, its row on the tests page, its name on the variables page.
    _edit(root, os.path.join("roles", "pts_run", "meta", "argument_specs.yml"), "choices: [iops, throughput, latency, wsat,",
          "choices: [iops, throughput, latency, wsat, toy,")
    _edit(root, os.path.join("docs", "docsite", "rst", "tests.rst"), "\n", "\n``toy``: latency again, thrown away.\n")
    _edit(root, os.path.join("docs", "docsite", "rst", "variables.rst"), "always in PTS order, then",
          "always in PTS order with ``toy`` last, then")
    assert _failures(root) == []
