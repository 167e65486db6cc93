# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pts_report callback's declaration: an optional aggregate watcher that reads where the results are from what the
run recorded (pts_run_start's pts_run_dir) and defines neither the results directory nor the run id."""

from __future__ import annotations

from types import SimpleNamespace

import yaml

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


def test_it_has_no_option_of_its_own():
    # The run's id and results directory are the run's (pts_run_id, pts_results_dir, PTS_RUN_ID, PTS_RESULTS_DIR):
    # the callback's old output_dir and run_id settings (the [callback_pts_report] section) are gone.
    assert "options" not in yaml.safe_load(pts_report.DOCUMENTATION)


def test_nothing_in_the_run_reads_the_callbacks_configuration():
    assert not hasattr(_run, "callback_option") and not hasattr(_run, "callback_loader")


def ok(payload: dict) -> SimpleNamespace:
    return SimpleNamespace(result=payload)


def test_it_takes_the_run_directory_the_run_fixed_and_nothing_else(monkeypatch, tmp_path):
    monkeypatch.setenv("PTS_RESULTS_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("PTS_RUN_ID", "not-this-one")
    callback = pts_report.CallbackModule()
    run_dir = str(tmp_path / "results" / "r1")
    for payload in ({"pts_run_id": "r1", "pts_run_dir": run_dir}, {"changed": False}, {"pts_run_dir": ""},
                    {"pts_run_dir": None}):
        callback.v2_runner_on_ok(ok(payload))
    assert callback._run_dirs == {run_dir}


def test_at_the_end_it_says_where_the_run_it_saw_is(monkeypatch, tmp_path):
    run_dir = tmp_path / "results" / "r1"
    run_dir.mkdir(parents=True)
    monkeypatch.setattr(pts_report.ansible_context, "CLIARGS", {})
    callback = pts_report.CallbackModule()
    said = []
    monkeypatch.setattr(callback._display, "display", lambda text, **kwargs: said.append(text))
    callback.v2_runner_on_ok(ok({"pts_run_dir": str(run_dir)}))
    callback.v2_playbook_on_stats(None)
    assert said == [f"PTS results: {run_dir} (no fleet summary was written)"]
