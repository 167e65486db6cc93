# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A comparison's outputs (_compare_report.write): compare.md with its counts, tables, settings changed and drive
history, compare.json, compare.html and the plots, the exit line as pts_compare_fail_on_regression says; never written
through a comparison directory planted as a symbolic link."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _compare, _compare_report
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fleet._compare_runs import IOPS


def test_outputs_markdown_json_and_exit_line(index, tmp_path):
    conn = index([("base", {"S1": {IOPS: 1000.0}, "S2": {IOPS: 1000.0}}, {"model": "ACME | *X1*"}),
                  ("cand", {"S1": {IOPS: 500.0}, "S2": {IOPS: 520.0}},
                   {"model": "ACME | *X1*", "settings": {"pts_run_rate_iops": 200}})])
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None))
    conn.close()
    out = str(tmp_path / "out")
    written = _compare_report.write(result, out, fail_on_regression=True, root=index.root)
    assert written["failed"] is True
    with open(os.path.join(out, "compare.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert markdown.startswith("# Comparison — run base vs run cand\n")
    assert ("**1 REGRESSION · 0 IMPROVEMENT · 0 SAME** of 1 figure compared. Exit status: **fails** — 1 figure "
            "regressed and `pts_compare_fail_on_regression` is true.") in markdown
    assert "## Model ACME \\| \\*X1\\*" in markdown  # escaped: no table cell break, no emphasis
    assert ("| 4k random write (IOPS) | higher | 1,000 | 1,000 – 1,000 (0.0 %, 2 drives) | 510 | 500 – 520 (3.9 %, "
            "2 drives) | -49.0 % | 5.0 % (min.) | **REGRESSION** |") in markdown
    assert "- `pts_run_rate_iops`: 0 → 200" in markdown
    assert _compare.SPREAD_TEXT in markdown and _compare.RUN_SPREAD_TEXT in markdown
    assert "### Serial S1 (ACME \\| \\*X1\\*)" in markdown
    saved = json.loads(open(os.path.join(out, "compare.json"), encoding="utf-8").read())
    assert saved["counts"]["REGRESSION"] == 1 and saved["failed"] is True
    assert saved["definitions"]["spread_over_drives"] == _compare.SPREAD_TEXT
    assert os.path.exists(os.path.join(out, "compare.html"))
    assert sorted(os.listdir(os.path.join(out, "plots"))) == ["figures-01.png", "history.png"]  # no rounds: no DVs
    written = _compare_report.write(result, out, fail_on_regression=False, html=False)
    assert written["failed"] is False
    with open(os.path.join(out, "compare.md"), encoding="utf-8") as handle:
        assert "Exit status: **passes** — `pts_compare_fail_on_regression` is false (1 figure regressed)." in handle.read()


def test_a_comparison_directory_planted_as_a_link_is_never_written_through(index, tmp_path):
    conn = index([("base", {"S1": {IOPS: 1000.0}}, {}), ("cand", {"S1": {IOPS: 1000.0}}, {})])
    result = _compare.build(conn, _compare.select(conn, ["base"], ["cand"], None, None, None))
    conn.close()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "compare.md").write_text("the victim's own\n")
    os.makedirs(os.path.join(index.root, "compare"))
    out = os.path.join(index.root, "compare", "base-vs-cand")
    os.symlink(victim, out)
    with pytest.raises(OSError, match="base-vs-cand: is a symbolic link"):
        _compare_report.write(result, out, fail_on_regression=True, root=index.root)
    assert os.listdir(victim) == ["compare.md"] and (victim / "compare.md").read_text() == "the victim's own\n"
