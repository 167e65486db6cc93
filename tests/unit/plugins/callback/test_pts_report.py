# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pts_report callback's declaration: an optional aggregate watcher, and the place where ansible.cfg and the
environment set the results directory and the run id of every run (read by _run.callback_option, enabled or not)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
import yaml
from ansible import constants as C

from ansible_collections.fleetqual.pts.plugins.callback import pts_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run

NAME = "fleetqual.pts.pts_report"


def test_it_is_an_aggregate_callback_that_must_be_enabled():
    assert pts_report.CallbackModule.CALLBACK_TYPE == "aggregate"
    assert pts_report.CallbackModule.CALLBACK_NEEDS_ENABLED is True
    assert pts_report.CallbackModule.CALLBACK_NAME == NAME


def test_it_files_nothing_itself():
    # Filing moved to the actions (plugin_utils/_filing.py, pts_segment, pts_plan): no event but ok and the end.
    own = {name for name in vars(pts_report.CallbackModule) if name.startswith("v2_")}
    assert own == {"v2_runner_on_ok", "v2_playbook_on_stats"}


@pytest.fixture
def options(monkeypatch):
    """The callback's documented options registered as the plugin loader does; _run.callback_option finds them."""
    C.config.initialize_plugin_configuration_definitions(
        "callback", NAME, yaml.safe_load(pts_report.DOCUMENTATION)["options"])
    monkeypatch.setattr(_run.callback_loader, "get", lambda name, class_only=False: SimpleNamespace(_load_name=NAME))
    for variable in ("PTS_RESULTS_DIR", "PTS_RUN_ID"):
        monkeypatch.delenv(variable, raising=False)


def test_the_options_are_read_for_every_run_from_the_environment(options, monkeypatch):
    monkeypatch.setenv("PTS_RESULTS_DIR", "/srv/pts")
    monkeypatch.setenv("PTS_RUN_ID", "lab-7")
    assert _run.callback_option("output_dir") == "/srv/pts"
    assert _run.callback_option("run_id") == "lab-7"
    with pytest.raises(ValueError, match="has no setting 'colour'"):
        _run.callback_option("colour")


def test_without_a_setting_the_run_id_is_none_and_the_root_a_path(options):
    assert _run.callback_option("run_id") is None
    # "results", or where the ansible.cfg in force puts it (this repository's: beside that file).
    root = _run.callback_option("output_dir")
    value, origin = C.config.get_config_value_and_origin("output_dir", plugin_type="callback", plugin_name=NAME)
    assert root == value and (root == "results" if origin == "default" else os.path.isabs(root))


def test_the_results_root_is_the_actions_then_the_variables_then_the_option_and_absolute(options, monkeypatch,
                                                                                         tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PTS_RESULTS_DIR", "~/pts")
    assert _run.results_root() == os.path.join(os.path.expanduser("~"), "pts")
    assert _run.results_root(None, "lab") == os.path.join(str(tmp_path), "lab")
    assert _run.results_root("/given", "lab") == "/given"
    assert _run.results_root("", None) == os.path.join(os.path.expanduser("~"), "pts")
    with pytest.raises(ValueError, match=r"pts_results_dir=\['x'\]: must be a directory path"):
        _run.results_root(None, ["x"])


def test_a_callback_that_cannot_be_loaded_is_an_error_the_callers_turn_into_theirs(monkeypatch):
    monkeypatch.setattr(_run.callback_loader, "get", lambda name, class_only=False: None)
    with pytest.raises(ValueError, match=f"the {NAME} callback cannot be loaded"):
        _run.callback_option("output_dir")
