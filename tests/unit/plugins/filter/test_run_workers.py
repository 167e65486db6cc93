# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The run_workers filter on the drive workers' play line: the limit narrowed to the selected hosts plus the workers,
the concurrency said once, the controller's objects frozen. The inventory and its hosts are stand-ins."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from ansible import context
from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.filter import run_workers
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _concurrency

GROUP = "pts_drive_workers"


def plan(*keys: str, done: bool = False) -> dict:
    return {"estimate_note": "n", "drives": [
        {"key": key, "min_s": 60, "max_s": 120, "tests": [
            {"test": "iops", "combinations": 1, "min_s": 60, "max_s": 120, "done": done, "status": "complete"}]}
        for key in keys]}


class Host:
    """ansible-core's inventory Host as the filter uses it: a name, its variables, its groups."""

    def __init__(self, name: str, groups: list[str], variables: dict | None = None):
        self.name = name
        self.vars = variables or {}
        self._groups = [SimpleNamespace(name=g) for g in ["all"] + groups]

    def get_groups(self):
        return self._groups


def worker(host: str, key: str, host_plan: dict) -> Host:
    return Host(f"{host}/{key}", [GROUP, "rack12"],
                {"pts_run_host": host, "pts_run_drive_key": key, "pts_run_plan": host_plan})


class Inventory:
    """The hosts a limit selected (the real ones, and the workers it would have let through had they matched)."""

    def __init__(self, selected: list[Host], workers: list[Host]):
        self.selected = selected
        self.workers = workers
        self.subsets: list[list[str]] = []
        self.asked: list[tuple] = []
        # ansible-core has the group once a worker is added to it (add_host), not before.
        self.groups = {"all": None, "rack12": None, **({GROUP: None} if workers else {})}
        self.added: list[str] = []

    def add_group(self, name):
        self.groups[name] = None
        self.added.append(name)

    def get_hosts(self, pattern, ignore_limits=False, ignore_restrictions=False):
        self.asked.append((pattern, ignore_limits, ignore_restrictions))
        if pattern == GROUP:
            return list(self.workers) if ignore_limits else []
        return list(self.selected)

    def subset(self, pattern):
        self.subsets.append(pattern)

    def add_dynamic_host(self, host_info, result_item):
        """ansible-core's add_host, as the filter calls it."""
        self.groups.update({g: None for g in host_info["groups"]})
        self.workers.append(Host(host_info["host_name"], [g for g in host_info["groups"] if g != GROUP],
                                 host_info["host_vars"]))
        self.workers[-1]._groups.append(SimpleNamespace(name=GROUP))


@pytest.fixture
def cliargs(monkeypatch):
    def set_args(**values):
        monkeypatch.setattr(context, "CLIARGS", values)
    set_args()
    return set_args


@pytest.fixture
def display(monkeypatch):
    fake = MagicMock()
    monkeypatch.setattr(run_workers, "display", fake)
    return fake


@pytest.fixture
def frozen(monkeypatch):
    calls = []
    monkeypatch.setattr(run_workers.gc, "freeze", lambda: calls.append(True))
    return calls


@pytest.fixture
def forks(monkeypatch):
    def set_forks(count: int, origin: str = "ANSIBLE_FORKS"):
        monkeypatch.setattr(_concurrency, "forks_in_force", lambda: (count, origin))
    set_forks(50)
    return set_forks


@pytest.fixture(autouse=True)
def no_pdf(monkeypatch):
    monkeypatch.setenv("PTS_REPORT_FORMATS", "")


def fleet() -> Inventory:
    p1, p2 = plan("a", "b"), plan("c")
    return Inventory(selected=[Host("h1", ["rack12"]), Host("h2", ["rack12"])],
                     workers=[worker("h1", "a", p1), worker("h1", "b", p1), worker("h2", "c", p2)])


class HostVars:
    """hostvars (a mapping, not a dict): each host's variables by name, and the inventory behind them."""

    def __init__(self, inventory, facts: dict):
        self._inventory = inventory
        self._facts = facts

    def __getitem__(self, name):
        return self._facts.get(name, {})

    def __contains__(self, name):
        return name in self._facts


def hostvars(inventory, facts: dict | None = None) -> HostVars:
    return HostVars(inventory, facts or {})


# --- the limit --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("limit", ["h1,h2", "rack12", "~h[12]", "@retry.txt", "all:!h3"])
def test_under_a_limit_it_narrows_to_the_hosts_selected_by_name_plus_the_workers(cliargs, display, frozen, forks,
                                                                                 limit):
    cliargs(subset=limit)
    inventory = fleet()
    inventory.selected.append(worker("h1", "old", plan("old")))  # a worker the limit let through is not a host
    assert run_workers.run_workers(hostvars(inventory)) == GROUP
    assert inventory.subsets == [["h1", "h2", GROUP]]
    assert ("all", False, True) in inventory.asked  # the limit in force, not the whole inventory
    assert frozen == [True]


def test_without_a_limit_nothing_is_narrowed(cliargs, display, frozen, forks):
    inventory = fleet()
    assert run_workers.run_workers(hostvars(inventory)) == GROUP
    assert inventory.subsets == [] and frozen == [True]


def test_without_workers_the_limit_is_left_alone_and_nothing_is_said(cliargs, display, frozen, forks):
    cliargs(subset="h1")
    inventory = Inventory(selected=[Host("h1", [])], workers=[])
    assert run_workers.run_workers(hostvars(inventory)) == GROUP
    assert inventory.subsets == [] and frozen == [True]
    display.display.assert_not_called()
    display.warning.assert_not_called()
    # The group is made (empty) before it is looked up: a pattern that names nothing is ansible-core's warning.
    assert inventory.added == [GROUP] and (GROUP, True, True) in inventory.asked


def test_with_workers_the_group_is_left_as_it_is(cliargs, display, frozen, forks):
    inventory = fleet()
    run_workers.run_workers(hostvars(inventory))
    assert inventory.added == []


@pytest.mark.parametrize("limit, warned", [("h1", True), (None, False)])
def test_an_inventory_out_of_reach_is_a_warning_under_a_limit(cliargs, display, frozen, forks, limit, warned):
    cliargs(subset=limit)
    # An empty hostvars (ansible-playbook --syntax-check templates the hosts line without an inventory) says nothing.
    assert run_workers.run_workers({}) == GROUP
    assert display.warning.call_count == 0
    assert run_workers.run_workers(SimpleNamespace(_inventory=SimpleNamespace(subset=None))) == GROUP
    assert display.warning.call_count == (1 if warned else 0)
    if warned:
        assert display.warning.call_args.args[0].startswith(
            "fleetqual.pts.run_workers: the inventory cannot be reached from hostvars, so the drive workers may not "
            "pass --limit")
    assert frozen == []


# --- the workers themselves -------------------------------------------------------------------------------------------

def _prepared() -> dict:
    drives = [{"path": f"/dev/loop{n}", "key": f"bay{n}"} for n in range(3)]
    return {"h9": {"group_names": ["rack12"], "pts_run_drives": drives, "pts_run_id": "R1", "pts_run_dir": "/srv/R1",
                   "pts_guard_passed": {d["path"]: {"resolved": d["path"], "hold": {"token_id": "ab"}} for d in drives},
                   "pts_run_plan": plan("bay0", "bay1", "bay2"), "pts_run_token": "f" * 32}}


def test_the_workers_are_added_to_the_inventory_with_their_own_drive_only(cliargs, display, frozen, forks):
    inventory = Inventory(selected=[Host("h9", ["rack12"]), Host("h8", [])], workers=[])
    assert run_workers.run_workers(hostvars(inventory, _prepared())) == GROUP
    assert [w.name for w in inventory.workers] == ["h9/bay0", "h9/bay1", "h9/bay2"]  # h8 has no plan: not prepared
    second = inventory.workers[1].vars
    assert second["pts_run_drives"] == [{"path": "/dev/loop1", "key": "bay1"}]
    assert [d["key"] for d in second["pts_run_plan"]["drives"]] == ["bay1"]
    assert list(second["pts_guard_passed"]) == ["/dev/loop1"]
    assert (second["pts_run_id"], second["pts_run_dir"], second["ansible_connection"]) == ("R1", "/srv/R1", "local")
    assert "f" * 32 not in repr([w.vars for w in inventory.workers])  # the run's token stays with the host


def test_check_mode_adds_no_worker(cliargs, display, frozen, forks):
    cliargs(check=True)
    inventory = Inventory(selected=[Host("h9", ["rack12"])], workers=[])
    run_workers.run_workers(hostvars(inventory, _prepared()))
    assert inventory.workers == [] and inventory.added == [GROUP]


# --- concurrency ------------------------------------------------------------------------------------------------------

def test_fewer_forks_than_drives_is_a_warning_with_the_remedy(cliargs, display, frozen, forks):
    forks(1)
    run_workers.run_workers(hostvars(fleet()))
    display.warning.assert_called_once_with(
        "PTS plan: 3 drives on 2 hosts; forks 1 (ANSIBLE_FORKS) < 3 drives: drives run 1 at a time, in 3 batches; "
        "estimated 3.0-6.0 min instead of 1.0-2.0 min with all at once; set ANSIBLE_FORKS=3 (or -f 3, or forks = 3 "
        "under [defaults] in ansible.cfg)")
    display.display.assert_not_called()


def test_enough_forks_is_said_on_the_console_not_as_a_warning(display, forks):
    forks(50, "/srv/ansible.cfg")
    p1 = plan("a", "b")
    run_workers._say_concurrency([worker("h1", "a", p1), worker("h1", "b", p1)])
    display.warning.assert_not_called()
    display.display.assert_called_once_with(
        "PTS plan: 2 drives on 1 host; forks 50 (/srv/ansible.cfg): all 2 drives run at once; estimated 1.0-2.0 min, "
        "the slowest drive's time")


def test_drives_a_resume_already_finished_do_not_count(display, forks):
    forks(1)
    finished = plan("a", "b", done=True)
    run_workers._say_concurrency([worker("h1", "a", finished), worker("h1", "b", finished),
                                  worker("h1", "c", plan("c"))])
    display.warning.assert_not_called()
    assert display.display.call_args.args[0].startswith("PTS plan: 1 drive on 1 host; forks 1 (ANSIBLE_FORKS): the "
                                                        "drive runs;")


def test_workers_with_nothing_left_say_nothing(display, forks):
    run_workers._say_concurrency([worker("h1", "a", plan("a", done=True)), worker("h1", "x", plan("a"))])
    display.display.assert_not_called()
    display.warning.assert_not_called()


@pytest.mark.parametrize("formats, loaded", [("html,pdf", True), ("html", False), ("", False)])
def test_the_pdf_engine_is_loaded_once_before_the_workers_fork_only_when_asked_for(monkeypatch, formats, loaded):
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html

    calls = []
    monkeypatch.setattr(_html, "pdf_available", lambda: calls.append(True))
    monkeypatch.setenv("PTS_REPORT_FORMATS", formats)
    run_workers._preload_reports()
    assert calls == ([True] if loaded else [])


def test_the_filter_is_registered_under_its_name():
    assert run_workers.FilterModule().filters() == {"run_workers": run_workers.run_workers}


def test_a_run_started_past_its_first_play_is_refused(cliargs, display, frozen, forks):
    cliargs(start_at_task="Run the selected tests on this drive, then draw its report")
    refused = (r"--start-at-task 'Run the selected tests on this drive, then draw its report' is refused: a PTS run "
               r"starts at its first task")
    with pytest.raises(AnsibleFilterError, match=refused):
        run_workers.run_workers(hostvars(fleet()))
    assert frozen == []
