# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import yaml

from ansible_collections.fleetqual.pts.plugins.filter import drive_workers
from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import workers

HOSTVARS = {
    "h1": {"group_names": ["rack12"], "pts_allow_destroy": True,
           "pts_identify_drives": [{"path": "/dev/a", "key": "A"}, {"path": "/dev/b", "key": "B"},
                                   {"path": "/dev/c", "key": "C"}],
           "pts_guard_passed": {"/dev/a": {"resolved": "/dev/a"}, "/dev/b": {"resolved": "/dev/b"}},
           "pts_run_plan": {"drives": [{"key": "A"}, {"key": "B"}]}},
    "h2": {"group_names": ["rack12"], "pts_identify_drives": [{"path": "/dev/x", "key": "X"}],
           "pts_guard_passed": {}, "pts_run_plan": {"drives": []}},
}


def test_one_worker_per_guarded_planned_drive():
    found = workers(HOSTVARS, ["h1", "h2"])
    assert [w["name"] for w in found] == ["h1/A", "h1/B"]  # C: not passed by the guard; X: h2 passed nothing
    first = found[0]
    assert first["groups"] == ["pts_drive_workers", "rack12"]
    assert first["vars"]["pts_run_host"] == "h1" and first["vars"]["pts_run_drives"] == [{"path": "/dev/a", "key": "A"}]
    assert first["vars"]["pts_guard_passed"] == {"/dev/a": {"resolved": "/dev/a"}}  # only its own drive
    assert first["vars"]["pts_run_plan"] == HOSTVARS["h1"]["pts_run_plan"]


def test_a_limit_naming_the_host_keeps_its_workers():
    (first, second) = workers(HOSTVARS, ["h1"], limit="h1,h9")
    assert "h1" in first["groups"] and "h1" in second["groups"]
    assert "h1" not in workers(HOSTVARS, ["h1"], limit="rack12")[0]["groups"]
    assert "h1" not in workers(HOSTVARS, ["h1"], limit="~h[0-9]")[0]["groups"]


def test_a_worker_gets_exactly_the_variables_add_host_gives_it():
    (first, dummy) = workers(HOSTVARS, ["h1"], python="/venv/bin/python3", run_id="r1")
    # Not the host's other inputs (pts_allow_destroy, pts_identify_drives): the plan carries what the tests need.
    assert sorted(first["vars"]) == ["ansible_connection", "ansible_python_interpreter", "pts_guard_passed",
                                     "pts_run_drive_key", "pts_run_drives", "pts_run_host", "pts_run_id", "pts_run_plan"]
    assert (first["vars"]["ansible_connection"], first["vars"]["ansible_python_interpreter"],
            first["vars"]["pts_run_id"]) == ("local", "/venv/bin/python3", "r1")


def test_the_filters_example_sets_every_variable_a_worker_gets():
    (task,) = yaml.safe_load(drive_workers.EXAMPLES)
    given = {key for key in task["ansible.builtin.add_host"] if key not in ("name", "groups")}
    assert given == set(workers(HOSTVARS, ["h1"])[0]["vars"])
