# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the history is (an action's history_url, which the playbooks fill from pts_history_url; PTS_HISTORY_URL;
else SQLite beside the runs), and
that its password is never shown: not in its name, its repr, a message, nor the command line a report records."""

from __future__ import annotations

import pathlib

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _location

URL = "postgresql://pts:s3cr3t-pw@db.example:5432/pts"


@pytest.mark.parametrize("given, env, url, source", [
    (None, None, None, "default"),
    ("", "", None, "default"),
    (None, URL, URL, "PTS_HISTORY_URL"),
    ("postgres://a@b/c", URL, "postgres://a@b/c", "history_url (pts_history_url)"),
])
def test_precedence_option_then_environment(given, env, url, source):
    spec = _location.resolve(given, env={} if env is None else {"PTS_HISTORY_URL": env})
    assert (spec.url, spec.source, spec.kind) == (url, source, "postgresql" if url else "sqlite")


def test_sqlite_lives_beside_the_runs():
    spec = _location.resolve(env={})
    assert spec.shown("/srv/results") == "/srv/results/pts-history.sqlite"
    assert spec.sqlite_path("/srv/results") == "/srv/results/pts-history.sqlite"


@pytest.mark.parametrize("url, shown", [
    (URL, "postgresql://pts@db.example:5432/pts"),
    ("postgresql://pts:p%40ss@h1:5432,h2:5433/pts?sslmode=require", "postgresql://pts@h1:5432,h2:5433/pts?sslmode=require"),
    ("postgresql://pts@/pts?host=/run/pg&password=hunter22&port=5433", "postgresql://pts@/pts?host=/run/pg&port=5433"),
    ("postgresql://u:p@ss@host/db", "postgresql://u@host/db"),  # an '@' in the password, not escaped
    ("postgresql:///pts?service=fleet", "postgresql:///pts?service=fleet"),
])
def test_shown_without_its_password(url, shown):
    spec = _location.resolve(url, env={})
    assert spec.shown() == shown
    assert shown in repr(spec) and "s3cr3t" not in repr(spec) and "hunter22" not in repr(spec)


def test_every_secret_is_scrubbed_from_a_message(monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "from-the-environment")
    spec = _location.resolve("postgresql://pts:p%40ss-word@h/db?password=query-pass", "vaulted-pass", env={})
    text = "a p@ss-word b p%40ss-word c query-pass d vaulted-pass e from-the-environment"
    assert spec.scrub(text) == "a ******** b ******** c ******** d ******** e ********"
    # Too short to search for without wrecking every message: left alone.
    assert _location.resolve("postgresql://u:abc@h/db", env={}).scrub("abc abc") == "abc abc"


@pytest.mark.parametrize("value, message", [
    ("mysql://u:pw12345@h/db", "history_url (pts_history_url)='mysql://u@h/db': must be a postgresql:// URL"),
    ("/srv/history.sqlite", "history_url (pts_history_url)='/srv/history.sqlite': must be a postgresql:// URL"),
    ("postgresql://u@h/db\n", None),  # a trailing newline is stripped, not refused
    ("postgresql://u@h/\x1bdb", "has control characters"),
    (["postgresql://u@h/db"], "history_url (pts_history_url): must be a postgresql:// URL, or unset"),
])
def test_a_value_that_is_not_a_history_is_refused_naming_it(value, message):
    if message is None:
        assert _location.resolve(value, env={}).url == "postgresql://u@h/db"
        return
    with pytest.raises(ValueError) as caught:
        _location.resolve(value, env={})
    assert message in str(caught.value) and "pw12345" not in str(caught.value)


def test_a_password_variable_must_be_text():
    with pytest.raises(ValueError, match=r"history_password \(pts_history_password\): must be a string"):
        _location.resolve("postgresql://u@h/db", 1234, env={})


@pytest.mark.parametrize("argv, shown", [
    (["-e", f"pts_history_url={URL}"], ["-e", "pts_history_url=postgresql://pts:********@db.example:5432/pts"]),
    ([f"--extra-vars=pts_history_url={URL}"], ["--extra-vars=pts_history_url=postgresql://pts:********@db.example:5432/pts"]),
    (["-e", '{"pts_history_url": "postgresql://u:p@ss@h/db"}'], ["-e", '{"pts_history_url": "postgresql://u:********@h/db"}']),
    (["-e", "pts_history_password=hunter22"], ["-e", _results.HIDDEN]),
    (["-e", "pts_history_url=postgresql://u@h/db"], ["-e", "pts_history_url=postgresql://u@h/db"]),
])
def test_the_command_line_a_report_records_has_no_password(argv, shown):
    recorded = _results.command_line(["ansible-playbook", "pts.yml"] + argv)
    assert recorded["argv"] == ["ansible-playbook", "pts.yml"] + shown
    assert "s3cr3t" not in str(recorded) and "hunter22" not in str(recorded) and "p@ss" not in str(recorded)


ROOT = pathlib.Path(__file__).resolve().parents[5]
HISTORY_ACTIONS = {f"fleetqual.pts.{name}" for name in ("pts_plan", "fleet_summary", "report_rebuild", "pts_compare")}


def _tasks(items):
    for task in items or []:
        if isinstance(task, dict):
            yield task
            for key in ("block", "rescue", "always", "tasks"):
                yield from _tasks(task.get(key))


def test_every_task_of_an_action_that_reads_the_history_is_given_it():
    # The actions read no play variable of their own accord: a task that forgot them would use SQLite silently.
    found = []
    for path in sorted(list((ROOT / "roles").rglob("tasks/*.yml")) + list((ROOT / "playbooks").glob("*.yml"))):
        for task in _tasks(yaml.safe_load(path.read_text(encoding="utf-8"))):
            for action in HISTORY_ACTIONS & set(task):
                found.append(f"{path.relative_to(ROOT)}:{action}")
                args = task[action]
                assert args.get("history_url") == "{{ pts_history_url | default(omit) }}", found[-1]
                assert args.get("history_password") == "{{ pts_history_password | default(omit) }}", found[-1]
    assert len(found) == 10, found
