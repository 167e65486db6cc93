# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _concurrency


def drives(count: int, min_s: float = 1800, max_s: float = 3600, hosts: int = 1) -> list[dict]:
    return [{"host": f"h{i % hosts}", "key": f"d{i}", "min_s": min_s, "max_s": max_s} for i in range(count)]


@pytest.mark.parametrize("count, forks, hosts, expected", [
    # The case: an installed collection, no ansible.cfg, forks 5, a 40-drive fleet of 10 hosts.
    (40, 5, 10, "PTS plan: 40 drives on 10 hosts; forks 5 (ansible-core's default) < 40 drives: drives run 5 at a "
                "time, in 8 batches; estimated 4.0-8.0 h instead of 30.0-60.0 min with all at once; set "
                "ANSIBLE_FORKS=40 (or -f 40, or forks = 40 under [defaults] in ansible.cfg)"),
    (41, 5, 1, "PTS plan: 41 drives on 1 host; forks 5 (ansible-core's default) < 41 drives: drives run 5 at a time, "
               "in 9 batches; estimated 4.5-9.0 h instead of 30.0-60.0 min with all at once; set ANSIBLE_FORKS=41 "
               "(or -f 41, or forks = 41 under [defaults] in ansible.cfg)"),
    (40, 40, 10, "PTS plan: 40 drives on 10 hosts; forks 40 (ansible-core's default): all 40 drives run at once; "
                 "estimated 30.0-60.0 min, the slowest drive's time"),
    (1, 5, 1, "PTS plan: 1 drive on 1 host; forks 5 (ansible-core's default): the drive runs; estimated "
              "30.0-60.0 min, the slowest drive's time"),
])
def test_the_message_says_how_many_run_at_once_and_the_remedy(count, forks, hosts, expected):
    found = _concurrency.summary(drives(count, hosts=hosts), forks)
    assert _concurrency.message(found, "ansible-core's default") == expected


def test_no_drive_to_run_says_nothing():
    assert _concurrency.summary([], 5) is None


def test_forks_unset_is_ansible_cores_five():
    found = _concurrency.summary(drives(6), None)
    assert (found["forks"], found["at_once"], found["batches"]) == (5, 5, 2)


def test_the_estimate_queues_each_drive_on_the_first_free_fork():
    # One long drive and three short ones on two forks: the short ones share the other fork.
    mixed = [{"host": "h", "key": k, "min_s": s, "max_s": s} for k, s in (("a", 600), ("b", 100), ("c", 100), ("d", 100))]
    found = _concurrency.summary(mixed, 2)
    assert (found["min_s"], found["unlimited_max_s"], found["batches"]) == (600, 600, 2)
    found = _concurrency.summary(mixed, 1)
    assert found["max_s"] == 900
    assert "estimated 15.0-15.0 min instead of 10.0-10.0 min" in _concurrency.message(found)


def test_short_runs_are_in_seconds():
    found = _concurrency.summary(drives(2, 3, 8), 1)
    assert "estimated 6-16 s instead of 3-8 s with all at once" in _concurrency.message(found, "ANSIBLE_FORKS")


@pytest.mark.parametrize("drive, expected", [
    ({"tests": [{"min_s": 10, "max_s": 20}, {"min_s": 5, "max_s": 7}]}, (15, 27)),
    # A resumed run: the tests it finished are not run again.
    ({"tests": [{"min_s": 10, "max_s": 20, "done": True}, {"min_s": 5, "max_s": 7}]}, (5, 7)),
    ({"tests": [{"min_s": 10, "max_s": 20, "done": True}]}, None),
    ({"tests": []}, None),
])
def test_remaining_counts_the_tests_left(drive, expected):
    assert _concurrency.remaining(drive) == expected


@pytest.mark.parametrize("cli, configured, origin, words", [
    (5, 5, "default", "ansible-core's default"),
    (9, 9, "env: ANSIBLE_FORKS", "ANSIBLE_FORKS"),
    (7, 7, "/srv/lab/ansible.cfg", "/srv/lab/ansible.cfg"),
    # -f is in the command line's value only: the configuration still says what it would have been.
    (11, 9, "env: ANSIBLE_FORKS", "-f/--forks"),
    (None, 5, "default", "ansible-core's default"),
])
def test_where_forks_was_set(cli, configured, origin, words):
    assert _concurrency.forks_origin(cli, configured, origin) == words


def test_forks_in_force_is_the_command_lines_value(monkeypatch):
    monkeypatch.setattr(_concurrency.context, "CLIARGS", {"forks": 11})
    monkeypatch.setattr(_concurrency.constants.config, "get_config_value_and_origin",
                        lambda name: (9, "env: ANSIBLE_FORKS"))
    assert _concurrency.forks_in_force() == (11, "-f/--forks")
    monkeypatch.setattr(_concurrency.context, "CLIARGS", {})
    monkeypatch.setattr(_concurrency.constants.config, "get_config_value_and_origin", lambda name: (5, "default"))
    assert _concurrency.forks_in_force() == (5, "ansible-core's default")
