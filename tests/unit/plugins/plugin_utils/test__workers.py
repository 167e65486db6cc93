# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.filter import drive_workers
from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import workers
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._worker_hostvars import HOSTVARS


def test_one_worker_per_guarded_planned_drive():
    found = workers(HOSTVARS, ["h1", "h2"])
    assert [w["name"] for w in found] == ["h1/A", "h1/B"]  # C: not passed by the guard; X: h2 passed nothing
    first = found[0]
    assert first["groups"] == ["pts_drive_workers", "rack12"]
    assert first["vars"]["pts_run_host"] == "h1" and first["vars"]["pts_run_drives"] == [{"path": "/dev/a", "key": "A"}]
    assert first["vars"]["pts_guard_passed"] == {"/dev/a": {"resolved": "/dev/a"}}  # only its own drive
    # Its own drive's part of the plan, and never the run's token: the worker's events stay the size of one drive.
    assert first["vars"]["pts_run_plan"] == {"drives": [{"key": "A"}]}
    assert "pts_run_token" not in first["vars"]


def test_the_drives_tested_are_the_ones_the_plan_step_published():
    # pts_run_drives' default (RAID arrays, else the identified drives) is decided once, in the role; the identity
    # and RAID facts themselves are not read again here.
    hostvars = dict(HOSTVARS, h1=dict(HOSTVARS["h1"], pts_identify_drives=[{"path": "/dev/z", "key": "Z"}],
                                      pts_raid_tested_drives=[{"path": "/dev/md/fq0", "key": "fq0"}]))
    assert [w["name"] for w in workers(hostvars, ["h1"])] == ["h1/A", "h1/B"]
    assert workers(dict(HOSTVARS, h1={k: v for k, v in HOSTVARS["h1"].items() if k != "pts_run_drives"}), ["h1"]) == []


def test_a_worker_gets_exactly_the_variables_add_host_gives_it():
    hostvars = dict(HOSTVARS, h1=dict(HOSTVARS["h1"], pts_run_token="0" * 32))
    (first, dummy) = workers(hostvars, ["h1"], python="/venv/bin/python3", run_id="r1", run_dir="/srv/results/r1")
    # Not the host's other inputs (pts_allow_destroy, the host's other drives): the plan carries what the tests need.
    assert sorted(first["vars"]) == [
        "ansible_connection", "ansible_python_interpreter", "pts_guard_passed", "pts_run_dir", "pts_run_drive_key",
        "pts_run_drives", "pts_run_host", "pts_run_id", "pts_run_plan"]
    assert (first["vars"]["ansible_connection"], first["vars"]["ansible_python_interpreter"],
            first["vars"]["pts_run_id"], first["vars"]["pts_run_dir"]) == \
        ("local", "/venv/bin/python3", "r1", "/srv/results/r1")
    # The token stays with the host's facts (worker.yml reads it there): no worker variable carries it.
    assert "0" * 32 not in repr(first)


def test_a_worker_joins_its_hosts_groups_never_a_group_named_after_its_host():
    # Whatever --limit says: the run_workers filter lets the workers through it, not a group per host.
    for found in workers(HOSTVARS, ["h1"]):
        assert found["groups"] == ["pts_drive_workers", "rack12"]


@pytest.mark.parametrize("groups, hostvars", [
    ({"all": [], "h1/A": ["x"]}, HOSTVARS),  # a group of that name
    ({"all": []}, dict(HOSTVARS, **{"h1/A": {"group_names": ["rack12"]}})),  # an inventory host of that name
])
def test_a_worker_name_that_is_already_an_inventory_host_or_group_is_refused(groups, hostvars):
    with pytest.raises(ValueError, match=r"the worker of drive A of h1 would be named 'h1/A', which is already an "
                                         r"inventory host or group"):
        workers(hostvars, ["h1"], groups=groups)
    with pytest.raises(AnsibleFilterError, match="drive_workers: the worker of drive A of h1"):
        drive_workers.drive_workers(hostvars, ["h1"], groups=groups)


def test_a_worker_an_earlier_play_of_this_process_added_is_made_again():
    # The playbook imported twice (or a second run in one process): the name is a worker's, not the inventory's.
    hostvars = dict(HOSTVARS, **{"h1/A": {"group_names": ["pts_drive_workers", "rack12"]}})
    assert [w["name"] for w in workers(hostvars, ["h1"], groups={"all": [], "pts_drive_workers": ["h1/A"]})] == \
        ["h1/A", "h1/B"]


def test_a_workers_plan_does_not_grow_with_the_drives_of_its_host():
    drives = [{"key": f"D{n}", "tests": [1] * 50} for n in range(24)]
    plan = {"settings": {"remote_dir": "/x"}, "window": 5, "drives": drives}
    hostvars = {"h": {"pts_run_drives": [{"path": f"/dev/{n}", "key": f"D{n}"} for n in range(24)],
                      "pts_guard_passed": {f"/dev/{n}": {"resolved": f"/dev/{n}"} for n in range(24)},
                      "pts_run_plan": plan, "pts_run_token": "f" * 32}}
    found = workers(hostvars, ["h"])
    assert len(found) == 24
    assert all(w["vars"]["pts_run_plan"] == dict(plan, drives=[plan["drives"][n]]) for n, w in enumerate(found))
    assert all("f" * 32 not in repr(w) for w in found)
