# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The QoS measurement as the plan builds it: preconditioning to steady state, then per queue depth a 4k random read
and a 4k random write of exactly the IOs the deepest percentile needs, capped in time; and its job file as fio and the
job-file check read it."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs, _job_check, _plan

BASE = {"pts_run_tests": ["qos"], "pts_run_profile": "standard", "pts_run_window": 5,
        "pts_run_max_data_excursion_pct": 20, "pts_run_max_slope_excursion_pct": 10}
DRIVE = {"key": "d1", "size_bytes": 64 << 20, "logical_block_size": 512}
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")


def entry(**params):
    found = _plan.build_plan(dict(BASE, **params), [DRIVE])
    return next(t for t in found["drives"][0]["tests"] if t["test"] == "qos")


def test_the_standard_qos_measurement():
    found = entry()
    pc, measure = found["segments"]
    assert (pc["name"], pc["stop"], pc["dvs"][0]["name"]) == ("precondition", "steady", "4k 0/100 IOPS")
    assert (found["wipc"], found["purge"], found["stop"]) == (True, "test", "phases")
    assert (measure["name"], measure["stop"], measure["output_format"]) == ("measure", "sweep", "json+")
    assert [(r["qd"], r["direction"]) for r in measure["rounds"]] == [
        (1, "read"), (1, "write"), (32, "read"), (32, "write")]
    (cell,) = measure["rounds"][2]["combinations"]
    assert (cell["name"], cell["rw"], cell["bs"], cell["seconds"]) == ("qos-read-qd32", "randread", 4096, 1800.0)
    assert cell["options"] == {"numjobs": 1, "iodepth": 32, "time_based": 0, "io_size": 100_000 * 4096}
    assert found["parameters"]["ios"] == 100_000 and found["parameters"]["percentile"] == "99.99"


@pytest.mark.parametrize("given, chosen, ios", [("99.9999", "99.9999", 10_000_000), (99.9, "99.9", 10_000),
                                                ("99.990", "99.99", 100_000), (99, "99", 1000)])
def test_the_percentile_sets_the_ios_of_every_cell(given, chosen, ios):
    found = entry(pts_run_qos_percentile=given, pts_run_qos_queue_depths=[8, 2])
    assert found["parameters"]["percentile"] == chosen and found["parameters"]["ios"] == ios
    assert found["parameters"]["queue_depths"] == [2, 8]


@pytest.mark.parametrize("variable, value, why", [
    ("pts_run_qos_percentile", "99.99999", "must be one of 50, 90, 95, 99"),
    ("pts_run_qos_percentile", True, "must be one of"),
    ("pts_run_qos_queue_depths", [0], "must be a positive number"),
    ("pts_run_qos_queue_depths", [2048], "must be at most 1024"),
    ("pts_run_qos_queue_depths", [4, 4], "listed twice"),
    ("pts_run_qos_max_seconds", 0.001, "must be at least 0.01 s"),
])
def test_a_bad_qos_variable_is_refused_naming_it(variable, value, why):
    with pytest.raises(_inputs.PlanError, match=f"{variable}=.*{why}"):
        entry(**{variable: value})


def test_a_qos_job_file_passes_the_check_and_its_run_counted_its_ios():
    with open(os.path.join(FIXTURES, "fio-3.33-qos-randread-4k-qd4.fio"), encoding="utf-8") as handle:
        text = handle.read()
    assert _job_check.refusals(text, "/dev/loop10") == []
    assert "time_based=0\nio_size=4096000\n" in text
    # What fio did with it (fio 3.33): exactly the IOs asked for, not the cap's time.
    with open(os.path.join(FIXTURES, "fio-3.33-qos-randread-4k-qd4.json"), encoding="utf-8") as handle:
        (job,) = json.load(handle)["jobs"]
    assert job["read"]["total_ios"] == 1000 and job["job_runtime"] < 3000
