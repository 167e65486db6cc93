# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the collection's own result files must hold when read back (plugin_utils/_result_files.py)."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _result_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._safe_tree import BadFile

JOB = {"name": "iops-r0-4096", "read": {"iops": 0.0, "total_ios": 0}, "write": {"iops": 10.0, "total_ios": 10}}
ROUND = {"round": 3, "fio": {"jobs": [JOB]}, "verdict": {"steady": False}, "settings": {}, "row": None, "loop": "tc"}
RESULT = {"schema": 1, "drive": {}, "tests": {"iops": {"status": "steady", "wall_s": 12.5, "failure": None}},
          "headline": {"iops_4k_write": {"value": 10.0}, "wsat_iops": None}, "verdict": {"verdict": "PASS"},
          "quick_profile": False}


def _with(record: dict, path: tuple, value) -> dict:
    changed = copy.deepcopy(record)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


def test_what_the_collection_writes_passes():
    assert _result_files.check_round(ROUND, "r") is ROUND
    assert _result_files.check_result(RESULT, "x") is RESULT


@pytest.mark.parametrize("path, value, why", [
    (("fio",), "jobs", "fio is a str, not a dict"),
    (("fio", "jobs"), [], "fio.jobs is empty: no measurement"),
    (("fio", "jobs", 0, "write", "total_ios"), 0, "fio job 'iops-r0-4096' completed no I/O"),
    (("fio", "jobs", 0, "write", "iops"), True, "fio.jobs[0].write.iops is a bool, not a number"),
    (("fio", "jobs", 0, "read"), None, "fio.jobs[0].read is a null, not a dict"),
    (("round",), "3", "round is a str, not a int or null"),
    (("verdict",), "PASS", "verdict is a str, not a dict or null"),
])
def test_a_round_file_that_is_not_one(path, value, why):
    with pytest.raises(BadFile) as caught:
        _result_files.check_round(_with(ROUND, path, value), "/r/round-03.json")
    assert str(caught.value).startswith(f"/r/round-03.json: {why}")


@pytest.mark.parametrize("path, value, why", [
    (("verdict",), "PASS", "verdict is a str, not a dict or null"),
    (("verdict", "verdict"), "MAYBE", "verdict.verdict is 'MAYBE', not one of PASS, FAIL, INCOMPLETE"),
    (("tests",), [], "tests is a list, not a dict"),
    (("tests", "iops", "wall_s"), "12", "tests.iops.wall_s is a str, not a number"),
    (("tests", "iops", "status"), 1, "tests.iops.status is a int, not a str or null"),
    (("headline", "iops_4k_write", "value"), float("nan"), "headline.iops_4k_write.value is a float, not a number"),
    (("quick_profile",), "no", "quick_profile is a str, not a bool or null"),
])
def test_a_result_json_that_is_not_one(path, value, why):
    with pytest.raises(BadFile) as caught:
        _result_files.check_result(_with(RESULT, path, value), "/d/result.json")
    assert str(caught.value) == f"/d/result.json: {why}"
