# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The report kinds: every test's kind answers, and a kind the generic report has never heard of is drawn by it - its
section, its steady-state note, its rows on the summary page, its test summary and its plots' weight - without a line
of the report changing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _registry
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _kinds, _sections, _test_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import ReportKind
from conftest import write_drive, write_segment


@pytest.mark.parametrize("test", _registry.TESTS, ids=_registry.NAMES)
def test_every_test_has_a_kind_that_answers(test):
    kind = _kinds.of(test.name)
    assert isinstance(kind, ReportKind) and kind.name == test.report
    assert all(callable(part) for part in (kind.build, kind.plots, kind.section))
    assert kind.weight(test.name) > 0
    assert isinstance(kind.steady_rule, bool) and isinstance(kind.steady_row, bool)
    assert kind.stimulus is None or callable(kind.stimulus)


def test_every_kind_draws_a_test_and_present_keeps_the_kinds_order():
    assert set(_kinds.KINDS) == {test.report for test in _registry.TESTS}
    assert [k.name for k in _kinds.present(["qos", "iops", "dirth", "cbw"])] == ["iops", "intensity", "qos"]


@pytest.fixture
def toy(monkeypatch):
    """A test "toy" drawn by a kind "toy", registered for one test only."""
    kind = ReportKind(
        name="toy", build=dict, plots=lambda *args: {},
        section=lambda result, plots_rel, number, capacity: [f"## {number} {result['title']}", "", "toy figures", ""],
        plot_weight=2.5, steady_rule=True, steady_note=" The toy test judges its warm-up this way.", steady_row=True,
        stimulus=lambda settings: f"toy load of {settings['numjobs']}",
        summary=lambda model, block, wanted: ([["Toy speed", "fast", "steady"]], ["Toy: as fast as it goes."])
        if "toy" in wanted else ([], []))
    monkeypatch.setitem(_kinds.KINDS, "toy", kind)
    monkeypatch.setitem(_registry.BY_NAME, "toy", SimpleNamespace(name="toy", report="toy"))
    return kind


def test_the_generic_report_draws_a_kind_it_never_named(toy, tmp_path):
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    model = _drive_report.write_drive_report(drive_dir, formats=())["model"]
    settings = dict(model["tests"]["latency"]["settings"], numjobs=3)
    model["tests"]["toy"] = dict(title="Toy", rounds_run=1, status="steady", settings=settings)
    markdown = _drive_report.render_markdown(model, {})
    assert "time limit. The toy test judges its warm-up this way." in markdown
    summary = markdown[:markdown.index("## Contents")]
    assert "| Toy speed | fast | steady |" in summary and "Toy: as fast as it goes." in summary
    section = markdown[markdown.index("## 5 Toy"):]
    assert "**Toy — test summary**" in section and "| Stimulus | toy load of 3 |" in section
    assert "| Steady state | window 5 rounds" in section and "\ntoy figures\n\n## 6 Wear" in section
    assert _drive_report.test_anchors(model)[-1] == "5-toy"
    assert _test_summary.rows(model, "toy", model["tests"]["toy"])[3] == ["Stimulus", "toy load of 3"]
    assert _kinds.of("toy").weight("toy") == 2.5


def test_a_report_of_a_kind_without_a_steady_state_has_no_steady_state_section(toy):
    toy.steady_rule = False
    assert not _drive_report.has_steady_rule({"tests": {"toy": {}}})
    assert _drive_report.has_steady_rule({"tests": {"toy": {}, "latency": {}}})


def test_a_kinds_parts_and_fio_time_reach_every_table_that_counts_rounds(toy, tmp_path):
    toy.round_parts = lambda result: [("warm-up", 2), ("run", 3)]
    toy.fio_time = lambda result, io_s, process_s, runs, rest: f"{io_s:.0f} s of toy I/O, {rest:.0f} s of waiting"
    toy.section = lambda result, plots_rel, number, capacity: [f"## {number} Toy", ""] + md.table(
        ["Step", "What", "Time"], _sections.timing_rows(result, toy), numeric=False)
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    model = _drive_report.write_drive_report(drive_dir, formats=())["model"]
    model["tests"]["toy"] = dict(title="Toy", rounds_run=5, status="steady", fio_io_s=40.0, fio_s=52.0,
                                 fio_sections=5, settings=model["tests"]["latency"]["settings"])
    markdown = _drive_report.render_markdown(model, {})
    assert "| Rounds (fio run time) | 5 (warm-up: 2 + run: 3) rounds | 40 s of toy I/O, 12 s of waiting |" in markdown
    assert markdown.count("5 (warm-up: 2 + run: 3)") == 3  # the summary's and the setup's test tables too
    toy.parts_per = "stage"
    toy.round_parts = lambda result: [("a", 2), ("b", 2)]
    assert _sections.rounds_text(dict(rounds_run=4), toy) == "4 (2 per stage × 2)"
    toy.fio_time = lambda *args: None  # the generic words
    assert _sections.fio_time_text(model["tests"]["toy"], toy) == (
        "52.0 s: 40.0 s of I/O in 5 runs, and 12.0 s of fio's start-up and pauses between runs, 2.40 s per run")
