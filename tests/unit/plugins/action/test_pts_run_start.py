# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""The run's first step before its plan: fleetqual.pts.pts_run_start (its id and results directory, once; the lock of
one host's part, fleetqual.pts.pts_run_lock, is test_pts_run_lock.py's); and pts_plan's deprecated options that run
them."""

from __future__ import annotations

import os
import re
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail

from ansible_collections.fleetqual.pts.plugins.action import pts_plan, pts_run_start
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_steps
from ansible_collections.fleetqual.pts.tests.unit.plugins.action._run_actions import fail_message, run


def start(task_vars=None, check=False, **args):
    return run(args, task_vars, check, action=pts_run_start)


@pytest.fixture
def said(monkeypatch):
    """The lines pts_run_start says through ansible-core's display."""
    display = MagicMock()
    monkeypatch.setattr(_run_steps, "display", display)
    return lambda: [c.args[0] for c in display.display.call_args_list]


# --- fixing the run: its id and directory, once per run ---------------------------------------------------------------

RUN_ID_RE = r"^\d{8}T\d{6}Z-"


@pytest.mark.parametrize("task_vars, expected", [
    ({}, RUN_ID_RE + r"[0-9a-f]{6}$"),
    ({"awx_job_id": 4711}, RUN_ID_RE + r"awx4711$"),
    ({"awx_job_id": "4711"}, RUN_ID_RE + r"awx4711$"),
    # Not a job id AWX gives: a random suffix, never a name made from it.
    ({"awx_job_id": "../x"}, RUN_ID_RE + r"[0-9a-f]{6}$"),
    # The variables the task happens to see are no input: the role passes pts_run_id as the run_id argument.
    ({"pts_run_id": "lab-7", "awx_job_id": 4711}, RUN_ID_RE + r"awx4711$"),
])
def test_start_names_a_run_nobody_named_after_the_time_and_the_awx_job(settings, tmp_path, task_vars, expected):
    result = start(task_vars)
    assert re.match(expected, result["pts_run_id"]), result["pts_run_id"]
    assert result["pts_run_dir"] == os.path.join(str(tmp_path / "results"), result["pts_run_id"])
    assert result["changed"] is False and not os.path.exists(tmp_path / "results")  # nothing written yet


def test_two_runs_nobody_named_in_the_same_second_get_two_ids(settings):
    assert start()["pts_run_id"] != start()["pts_run_id"]


@pytest.mark.parametrize("source, expected", [("argument", "from-arg"), ("environment", "from-env"),
                                              ("variable", None)])
def test_start_takes_the_run_id_in_force(settings, monkeypatch, source, expected):
    if source == "argument":
        args = {"run_id": "from-arg"}
        monkeypatch.setenv("PTS_RUN_ID", "from-env")
    elif source == "environment":
        args = {}
        monkeypatch.setenv("PTS_RUN_ID", "from-env")
    else:
        args = {}
    # A pts_run_id the task sees but is not given (and no [callback_pts_report] run_id) names no run: a new one.
    run_id = start({"pts_run_id": "from-var"}, **args)["pts_run_id"]
    assert run_id == expected if expected else re.match(RUN_ID_RE, run_id), run_id


def test_the_environment_names_the_run_id_refused_from_it(settings, monkeypatch):
    monkeypatch.setenv("PTS_RUN_ID", "a b")
    assert fail_message({}, action=pts_run_start).startswith("pts_run_start: PTS_RUN_ID (environment)='a b': a run id")


def test_start_makes_the_results_root_absolute(settings, tmp_path, monkeypatch, said):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PTS_RESULTS_DIR", "results")  # make demo's, relative to where ansible-playbook runs
    result = start(run_id="r1")
    assert result["pts_run_dir"] == os.path.join(str(tmp_path), "results", "r1")
    assert said() == [f"PTS run r1: results in {tmp_path}/results/r1"]
    # The results_dir argument (the role passes pts_results_dir) wins over the environment.
    result = start(check=True, run_id="r1", results_dir="lab/out")
    assert result["pts_run_dir"] == os.path.join(str(tmp_path), "lab", "out", "r1")
    assert said()[-1] == f"PTS run r1: results in {tmp_path}/lab/out/r1 (--check writes nothing)"


@pytest.mark.parametrize("environment, expected", [("~/pts", os.path.join(os.path.expanduser("~"), "pts")),
                                                   ("", "results"), (None, "results")])
def test_without_results_dir_the_environment_then_results(settings, tmp_path, monkeypatch, environment, expected):
    monkeypatch.chdir(tmp_path)
    if environment is None:
        monkeypatch.delenv("PTS_RESULTS_DIR")
    else:
        monkeypatch.setenv("PTS_RESULTS_DIR", environment)
    # A pts_results_dir the task sees but is not given is no input (the role passes it as results_dir).
    result = start({"pts_results_dir": "/var/not-this"}, check=True, run_id="r1")
    assert result["pts_run_dir"] == os.path.join(str(tmp_path), expected, "r1")


def test_a_results_dir_that_is_no_path_is_refused(settings):
    message = fail_message({"results_dir": ["a", "b"]}, action=pts_run_start)
    assert message == "pts_run_start: pts_results_dir=['a', 'b']: must be a directory path; nothing was written"


def test_the_publish_targets_are_the_publish_argument_not_the_tasks_variables(settings):
    seen = {"pts_run_publish": [{"host": "other", "dest": "/srv/other"}]}
    result = start(seen, check=True, run_id="r1", publish=[{"host": "r1", "dest": "/srv/pts"}])
    assert result["pts_run_results_hosts"] == ["r1"]
    assert [(t["host"], t["dest"]) for t in result["pts_run_publish_targets"]] == [("r1", "/srv/pts")]
    assert start(seen, check=True, run_id="r1")["pts_run_publish_targets"] == []


@pytest.mark.parametrize("args, named", [
    ({"publish": [{"host": "r1"}]}, "pts_run_publish[0]={'host': 'r1'}: must have host and dest"),
    ({"results_ephemeral": "true"}, "pts_results_ephemeral='true': must be true or false"),
    ({"resume": "yes"}, "pts_resume='yes'"),
    ({"after_run": "../after.yml"}, "pts_after_run='../after.yml': must be a task file of the project"),
])
def test_a_bad_input_argument_is_refused_naming_its_variable(settings, tmp_path, args, named):
    message = fail_message(dict(args, run_id="r1"), action=pts_run_start)
    assert message.startswith(f"pts_run_start: {named}"), message
    assert message.endswith("nothing was written") and not os.path.exists(tmp_path / "results")


def test_the_after_run_file_is_the_argument_under_the_playbooks_directory(settings, tmp_path):
    (tmp_path / "after.yml").write_text("---\n[]\n", encoding="utf-8")
    play = {"playbook_dir": str(tmp_path), "pts_after_run": "elsewhere.yml"}
    assert start(play, check=True, run_id="r1", after_run="after.yml")["pts_run_after_run"] == str(tmp_path / "after.yml")
    # Set for the play but not given: no file (the role passes pts_after_run as after_run).
    assert start(play, check=True, run_id="r1")["pts_run_after_run"] is None


@pytest.mark.parametrize("value", ["/tmp/x", "R1nl\n", "a b"])
def test_lock_and_start_refuse_a_run_id_that_is_not_one_directory_name(settings, tmp_path, value):
    message = fail_message({"run_id": value, "host": "h1"})
    assert message.startswith(f"pts_run_lock: run_id={value!r}: a run id is one directory name") or \
        message.startswith(f"pts_run_lock: pts_run_id={value!r}: a run id is one directory name"), message
    assert fail_message({"run_id": value}, action=pts_run_start).startswith(f"pts_run_start: pts_run_id={value!r}")
    assert not os.path.exists(tmp_path / "results")


# --- pts_plan's removed options --------------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["fix_run", "lock"])
def test_pts_plans_removed_options_are_refused(settings, option):
    with pytest.raises(AnsibleActionFail, match=f"Unsupported parameters .*: {option}"):
        run({option: True, "variables": {}}, action=pts_plan)


# --- extra variables that would replace the run's own state -----------------------------------------------------------

@pytest.mark.parametrize("given, refused", [
    ({"pts_guard_passed": {}}, "pts_guard_passed"),
    ({"__pts_run_steps": {}, "pts_run_plan": {}}, "__pts_run_steps, pts_run_plan"),
    ({"pts_precondition_ioengine": "libaio"}, "pts_precondition_ioengine"),
    ({"pts_raid_passed": {}, "pts_identify_devices": []}, "pts_identify_devices, pts_raid_passed"),
])
def test_the_run_refuses_extra_variables_that_would_replace_its_own_state(settings, monkeypatch, tmp_path, given,
                                                                          refused):
    monkeypatch.setattr(_run_steps, "load_extra_vars", lambda loader: dict(given, pts_run_id="it-9"))
    message = fail_message({"run_id": "it-9"}, action=pts_run_start)
    plural = "s" if "," in refused else ""
    assert message.startswith(f"pts_run_start: the extra variable{plural} {refused} would replace what the run "
                              "decides itself"), message
    assert message.endswith("nothing was written") and not os.path.exists(tmp_path / "results")


def test_documented_inputs_are_no_internal_state(settings, monkeypatch):
    given = {"pts_purge_method": "discard", "pts_precondition_block_size": "1m", "pts_run_ioengine": "io_uring",
             "pts_devices": [], "pts_run_id": "it-9"}
    monkeypatch.setattr(_run_steps, "load_extra_vars", lambda loader: given)
    assert run({"run_id": "it-9"}, action=pts_run_start)["pts_run_id"] == "it-9"
