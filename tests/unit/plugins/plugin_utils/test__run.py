# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import datetime
import re

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _run
from ansible_collections.fleetqual.pts.plugins.plugin_utils._run import run_id_candidates


@pytest.mark.parametrize("effective, extra, env, expected", [
    ("/tmp/x", "/tmp/x", None, [("pts_run_id", "/tmp/x")]),
    ("a b", None, "a b", [("PTS_RUN_ID (environment)", "a b")]),
    ("it-1", None, None, [("pts_run_id", "it-1")]),  # an inventory pts_run_id
    # The one in force first, then the environment's when it is set and another.
    ("it-1", "it-1", "../env", [("pts_run_id", "it-1"), ("PTS_RUN_ID (environment)", "../env")]),
    ("it-1", "it-1", "it-1", [("pts_run_id", "it-1")]),
    (None, None, None, []),
    ("", None, "", []),
])
def test_each_run_id_is_named_where_it_was_set(effective, extra, env, expected):
    assert run_id_candidates(effective, extra, env) == expected


# Every character a run id may hold, and those around it: a run id the check lets through names exactly the directory
# the results go to (safe_name), which is the one the plan locks.
_CHARS = [chr(c) for c in range(0x00, 0x80)] + ["\x85", "\u00a0", "\u0661", "\u2028", "\u200b", "\ufeff", "ü"]


@pytest.mark.parametrize("value", [f"R{c}1" for c in _CHARS] + [f"R1{c}" for c in _CHARS] + [f"{c}R1" for c in _CHARS])
def test_a_run_id_the_check_passes_names_the_directory_its_results_go_to(value):
    try:
        _inputs.run_id("pts_run_id", value)
    except _inputs.PlanError:
        return
    assert _results.safe_name(value) == value
    assert _run.same_directory("pts_run_id", value) == value
    assert _run.run_dir(value, "/results") == "/results/" + value


@pytest.mark.parametrize("value, named", [("R1nl\n", "R1nl"), ("_R1", "R1"), ("a b", "a_b"), ("R1.", "R1")])
def test_a_run_id_whose_results_would_go_elsewhere_is_refused_naming_both(value, named):
    with pytest.raises(ValueError) as caught:
        _run.same_directory("pts_run_id", value)
    assert str(caught.value).startswith(f"pts_run_id={value!r}: names directory {named!r} for its results, not")


def test_fleet_settings_defaults_and_bad_values():
    assert _run.fleet_settings({})["fail_on"] == ["FAIL", "INCOMPLETE"]
    assert _run.fleet_settings({"pts_fleet_fail_on": []})["fail_on"] == []
    with pytest.raises(ValueError, match=r"pts_fleet_fail_on=\['FAILED'\]"):
        _run.fleet_settings({"pts_fleet_fail_on": ["FAILED"]})
    with pytest.raises(ValueError, match="pts_fleet_outlier_robust_z=-1"):
        _run.fleet_settings({"pts_fleet_outlier_robust_z": -1})
    with pytest.raises(ValueError, match="pts_fleet_outliers_fail='no'"):
        _run.fleet_settings({"pts_fleet_outliers_fail": "no"})


@pytest.mark.parametrize("name, value", [("outlier_robust_z", float("nan")), ("outlier_min_deviation_pct", "inf"),
                                         ("outlier_min_cohort", float("nan")), ("outlier_robust_z", True)])
def test_non_finite_fleet_settings_are_refused(name, value):
    with pytest.raises(ValueError, match=f"pts_fleet_{name}="):
        _run.fleet_settings({f"pts_fleet_{name}": value})


def test_the_fleet_settings_recorded_by_several_plans_and_none_recorded(tmp_path):
    run_dir = str(tmp_path / "run-1")
    assert _run.recorded_fleet_settings([run_dir]) == _run.FLEET_DEFAULTS
    _results.file_payload(run_dir, "h1", {"pts_plan": {"fleet": {"fail_on": ["FAIL"], "outlier_robust_z": 5.0}}})
    _results.file_payload(run_dir, "h2", {"pts_plan": {"fleet": {"fail_on": [], "outlier_robust_z": 7.0,
                                                                 "outliers_fail": True}}})
    # The verdicts that fail the run: the union of every plan's; the others the first plan's that has them.
    assert _run.recorded_fleet_settings([run_dir]) == dict(_run.FLEET_DEFAULTS, fail_on=["FAIL"], outlier_robust_z=5.0,
                                                           outliers_fail=True)


NOW = datetime.datetime(2026, 11, 26, 7, 35, 48, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("awx_job_id, expected", [
    (None, r"^20261126T073548Z-[0-9a-f]{6}$"),
    ("", r"^20261126T073548Z-[0-9a-f]{6}$"),
    (4711, r"^20261126T073548Z-awx4711$"),
    ("4711", r"^20261126T073548Z-awx4711$"),
    # Not a job id AWX gives: never part of a directory name.
    ("12/../x", r"^20261126T073548Z-[0-9a-f]{6}$"),
    ("1" * 19, r"^20261126T073548Z-[0-9a-f]{6}$"),
    (-3, r"^20261126T073548Z-[0-9a-f]{6}$"),
])
def test_a_new_run_id_is_the_time_and_the_awx_job_or_a_random_suffix(awx_job_id, expected):
    assert re.match(expected, _run.new_run_id(NOW, awx_job_id))


def test_new_run_ids_of_one_second_differ_outside_awx():
    assert len({_run.new_run_id(NOW) for dummy in range(20)}) > 1


@pytest.mark.parametrize("variable, env, expected", [
    ("lab-1", "env-1", "lab-1"),
    (None, "env-1", "env-1"),
    ("", "env-1", "env-1"),
    (42, None, "42"),
    ("", "", "20261126T073548Z-awx9"),
    (None, None, "20261126T073548Z-awx9"),
])
def test_the_run_id_in_force(variable, env, expected):
    assert _run.run_id_in_force(variable, env, NOW, awx_job_id=9) == expected


@pytest.mark.parametrize("given, env, expected", [
    ("lab-1", "env-1", "lab-1"),
    (None, "env-1", "env-1"),
    ("", "env-1", "env-1"),
    (None, "", None),
    (None, None, None),
])
def test_an_action_without_a_run_id_takes_the_environments(given, env, expected):
    environ = {} if env is None else {"PTS_RUN_ID": env}
    assert _run.run_id_given(given, environ) == expected


def test_an_awx_job_id_with_a_trailing_newline_is_not_put_in_the_run_id():
    assert "\n" not in _run.new_run_id(NOW, "4711\n")


def test_a_results_root_is_made_link_free_once_and_one_another_user_controls_is_refused(tmp_path):
    import os  # pylint: disable=import-outside-toplevel

    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    assert _run.results_root(str(tmp_path / "alias" / "results")) == str(tmp_path / "real" / "results")
    (tmp_path / "theirs").mkdir()
    os.chown(tmp_path / "theirs", 65534, 65534)
    with pytest.raises(ValueError) as caught:
        _run.results_root(str(tmp_path / "theirs"), "pts_results_dir")
    assert str(caught.value).startswith(f"pts_results_dir='{tmp_path / 'theirs'}': {tmp_path / 'theirs'}: it is owned "
                                        "by uid 65534, not root")
    with pytest.raises(ValueError, match=r"contains U\+2028 LINE SEPARATOR"):
        _run.results_root(str(tmp_path / "re\u2028sults"))


@pytest.mark.parametrize("entry, said", [
    ({"host": "res\u202e01", "dest": "/srv"}, "pts_run_publish[0].host='res\\u202e01': contains U+202E"),
    ({"host": "r1", "dest": "/srv/\u2029x"}, "pts_run_publish[0].dest='/srv/\\u2029x': contains U+2029"),
    ({"host": "r1", "dest": "/srv/./x"}, "must be an absolute directory path"),
])
def test_a_publish_target_that_would_not_display_as_it_is_is_refused(entry, said):
    with pytest.raises(ValueError) as caught:
        _run.publish_targets([entry])
    assert said in str(caught.value)


def test_a_sliced_jobs_slices_share_the_default_id_of_their_workflow_and_each_launch_has_its_own():
    assert _run.new_run_id(NOW, awx_job_id=12, awx_workflow_job_id=11) == "awx-wf11"
    assert _run.new_run_id(NOW, awx_job_id=13, awx_workflow_job_id=11) == "awx-wf11"
    assert _run.new_run_id(NOW, awx_job_id=15, awx_workflow_job_id=14) == "awx-wf14"
    assert _run.new_run_id(NOW, awx_job_id=12, awx_workflow_job_id="11; rm") != "awx-wf11; rm"
    assert _run.run_id_in_force(None, None, NOW, awx_job_id=12, awx_workflow_job_id=11) == "awx-wf11"
    assert _run.run_id_in_force("mine", None, NOW, awx_job_id=12, awx_workflow_job_id=11) == "mine"
    assert _run.run_id_source(None, "env-id") == "PTS_RUN_ID" and _run.run_id_source(None, None) is None


@pytest.mark.parametrize("given, environment, expected", [
    ("/given", "/srv/env", "/given"),
    (None, "/srv/env", "/srv/env"),
    ("", "/srv/env", "/srv/env"),
    (None, "~/pts", "~/pts"),
    (None, "lab", "lab"),  # relative: from where ansible-playbook runs
    (None, "", "results"),
    (None, None, "results"),
])
def test_the_results_root_is_the_given_one_then_the_environments_then_results(tmp_path, monkeypatch, given,
                                                                              environment, expected):
    import os  # pylint: disable=import-outside-toplevel

    monkeypatch.chdir(tmp_path)
    environ = {} if environment is None else {"PTS_RESULTS_DIR": environment}
    want = os.path.join(str(tmp_path), os.path.expanduser(expected))
    assert _run.results_root(given, "pts_results_dir", environ) == want
    # The process's environment when none is passed; no setting of the pts_report callback is read.
    monkeypatch.delenv("PTS_RESULTS_DIR", raising=False)
    if environment is not None:
        monkeypatch.setenv("PTS_RESULTS_DIR", environment)
    assert _run.results_root(given, "pts_results_dir") == want


@pytest.mark.parametrize("given", [["x"], 3, {"a": 1}])
def test_a_results_root_that_is_no_path_is_refused_naming_its_source(given):
    with pytest.raises(ValueError, match=r"^pts_results_dir=.*: must be a directory path$"):
        _run.results_root(given, "pts_results_dir", {})


def test_a_bad_results_root_from_the_environment_is_named_so(tmp_path):
    with pytest.raises(ValueError, match=r"^PTS_RESULTS_DIR \(environment\)='.*re\\u2028sults': contains U\+2028"):
        _run.results_root(None, "pts_results_dir", {"PTS_RESULTS_DIR": str(tmp_path / "re\u2028sults")})
