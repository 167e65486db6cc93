# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _sections

from conftest import write_drive, write_segment


@pytest.mark.parametrize("count, shown", [(60, 60), (61, 61), (1500, 60), (241, 60)])
def test_long_round_tables_show_their_ends_and_evenly_spaced_rounds(count, shown):
    rows = list(range(1, count + 1))
    picked, note = _sections.sampled(rows)
    assert len(picked) <= shown and picked[:10] == rows[:10] and picked[-10:] == rows[-10:]
    assert picked == sorted(set(picked))
    assert bool(note) == (count > 60)


def test_a_1500_round_segment_links_its_first_and_last_job_files():
    stems = [f"round-{n:02d}" for n in range(1, 1501)]
    (text,) = [line for line in _sections.file_links("wsat", [("", stems)], wipc=False) if line]
    assert "[01](wsat/round-01.fio)" in text and "[1500](wsat/round-1500.fio)" in text
    assert "1,500 job files in `wsat/`" in text and text.count("](wsat/") == 6


def test_a_1500_round_write_saturation_report_stays_readable(tmp_path):
    run_dir = str(tmp_path)
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "wsat", [1.0 + (n % 7) / 10 for n in range(1500)])
    written = _drive_report.write_drive_report(drive_dir)
    with open(written["report"], encoding="utf-8") as handle:
        report = handle.read()
    wsat = report[report.index("Write Saturation"):]
    rows = re.findall(r"^\| (\d+) \| [\d,.]+ \| ", wsat, re.M)
    assert 50 <= len(rows) <= 60 and rows[:10] == [str(n) for n in range(1, 11)] and rows[-1] == "1500"
    assert re.search(r"\d+ of 1,500 rows: the first and last 10 and one in every \d+ between", wsat)
    assert "… (1,500 job files in `wsat/`)" in wsat
    assert len(written["model"]["tests"]["wsat"]["per_round"]) == 1500
