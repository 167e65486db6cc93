# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

from unittest.mock import MagicMock

import pytest

from ansible_collections.fleetqual.pts.plugins.callback import pts_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _concurrency


def plan(*keys: str, done: bool = False) -> dict:
    return {"estimate_note": "n", "drives": [
        {"key": key, "min_s": 60, "max_s": 120, "tests": [
            {"test": "iops", "combinations": 1, "min_s": 60, "max_s": 120, "done": done, "status": "complete"}]}
        for key in keys]}


def play(*hosts: str):
    fake = MagicMock()
    fake.hosts = list(hosts)
    fake.get_variable_manager.return_value.extra_vars = {}
    return fake


@pytest.fixture
def callback(monkeypatch):
    monkeypatch.setattr(_concurrency, "forks_in_force", lambda: (1, "ANSIBLE_FORKS"))
    display = MagicMock()
    display.verbosity = 0
    return pts_report.CallbackModule(display=display)


def said(callback) -> list[str]:
    return [c.args[0] for c in callback._display.display.call_args_list]


def test_the_plan_says_the_batches_once_as_the_drive_workers_play_starts(callback):
    callback._show_plan("h1", plan("a", "b"))
    callback._show_plan("h2", plan("c"))
    callback.v2_playbook_on_play_start(play("all"))
    callback._display.warning.assert_not_called()
    callback.v2_playbook_on_play_start(play("pts_drive_workers"))
    callback.v2_playbook_on_play_start(play("pts_drive_workers"))
    callback._display.warning.assert_called_once_with(
        "PTS plan: 3 drives on 2 hosts; forks 1 (ANSIBLE_FORKS) < 3 drives: drives run 1 at a time, in 3 batches; "
        "estimated 3.0-6.0 min instead of 1.0-2.0 min with all at once; set ANSIBLE_FORKS=3 (or -f 3, or forks = 3 "
        "under [defaults] in ansible.cfg)")


def test_enough_forks_is_said_on_the_console_not_as_a_warning(callback, monkeypatch):
    monkeypatch.setattr(_concurrency, "forks_in_force", lambda: (50, "/srv/ansible.cfg"))
    callback._show_plan("h1", plan("a", "b"))
    callback.v2_playbook_on_play_start(play("pts_drive_workers"))
    callback._display.warning.assert_not_called()
    assert said(callback)[-1] == ("PTS plan: 2 drives on 1 host; forks 50 (/srv/ansible.cfg): all 2 drives run at once; "
                                  "estimated 1.0-2.0 min, the slowest drive's time")


def test_drives_a_resume_already_finished_do_not_count(callback):
    callback._show_plan("h1", plan("a", "b", done=True))
    callback._show_plan("h1", plan("c"))
    callback.v2_playbook_on_play_start(play("pts_drive_workers"))
    callback._display.warning.assert_not_called()
    assert said(callback)[-1].startswith("PTS plan: 1 drive on 1 host; forks 1 (ANSIBLE_FORKS): the drive runs;")


def test_without_a_drive_workers_play_nothing_is_said(callback):
    # The pts_run role's own entry point runs a host's drives one after another: no workers, no forks question.
    callback._show_plan("h1", plan("a", "b"))
    callback.v2_playbook_on_play_start(play("all"))
    callback._display.warning.assert_not_called()
    assert not any(line.startswith("PTS plan:") for line in said(callback))
