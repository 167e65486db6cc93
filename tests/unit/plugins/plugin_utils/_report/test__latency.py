# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Latency under PTS 2.0.2: IOPS and the 99.999 % response time beside ART and MRT; PTS-E 1.1's tables unchanged."""

from __future__ import annotations

import re
import statistics

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _histogram
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _latency

from conftest import SETTINGS, figure_with, write_drive, write_segment

FACTORS = [1.0, 1.02, 0.98, 1.0, 1.01]
SETTINGS_20 = dict(SETTINGS["latency"], spec="2.0")


def _run(tmp_path, settings: dict, jsonplus: bool) -> str:
    """A latency test of five rounds: with ``jsonplus`` a real fio 3.33 round run with json+ (its latency histograms;
    fixtures/fio-3.33-latency-round-jsonplus), else one recorded before the rounds ran json+ (fio's own percentiles up
    to 99.99 %, no histograms)."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "latency", FACTORS, settings=settings,
                  fixture="fio-3.33-latency-round-jsonplus.json" if jsonplus else None)
    return drive_dir


def _jobs(drive_dir: str, mix: int, bs: int) -> list[dict]:
    return [_fio.find_job(_results.read_json(f"{drive_dir}/latency/round-{n:02d}.json")["fio"]["jobs"], mix, bs)
            for n in range(1, 6)]


def _section(written: dict) -> str:
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    return markdown[markdown.index("## 4 Latency"):]


def _grid_row(section: str, title: str, label: str) -> list[str]:
    table = section[section.index(title):]
    return re.search(rf"^\| \*\*{label}\*\* \| (.+) \|$", table, re.M).group(1).split(" | ")


def _merged(drive_dir: str, mix: int, bs: int, directions: tuple[str, ...]) -> list[list[int]]:
    return _histogram.merge(*[job[d]["histogram"]["bins"] for job in _jobs(drive_dir, mix, bs) for d in directions
                              if job[d]["total_ios"]])


def test_every_percentile_is_of_all_the_windows_ios_from_the_merged_histograms(tmp_path):
    drive_dir = _run(tmp_path, SETTINGS_20, jsonplus=True)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["latency"]
    assert result["spec"] == "2.0" and result["status"] == "steady" and result["steady_text"] == "steady at round 5"
    # 4k random writes: five rounds of 563 IOs, 2,815 in the window - enough for p50 and p99, not for p99.9 and up.
    bins = _merged(drive_dir, 0, 4096, ("write",))
    assert result["percentile_ios"]["4k 0/100 write"] == _histogram.total(bins) == 5 * 563
    assert result["percentile_source"]["4k 0/100 write"] == "histogram"
    percentiles = result["percentiles_ms"]["4k 0/100 write"]
    assert percentiles["99"] == pytest.approx(_histogram.percentile(bins, "99") / 1e6)
    assert percentiles["50"] == pytest.approx(_histogram.percentile(bins, "50") / 1e6)
    assert (percentiles["99.9"], percentiles["99.99"], percentiles["99.999"]) == (None, None, None)
    # A mix's 5 nines are of its reads and writes together: here too few to resolve, flagged with the IOs counted.
    nines, counts = result["tables"]["p99999_ms"], result["tables"]["p99999_ios"]
    assert nines["512"]["65"] is None and counts["512"]["65"] == _histogram.total(_merged(drive_dir, 65, 512,
                                                                                          ("read", "write")))
    section = _section(written)
    for title in ("Average IOPS (read + write) over rounds 1, 2, 3, 4, 5:", "ART, average response time, ms",
                  "5 nines, the 99.999 % response time, ms", "MRT, maximum response time, ms"):
        assert title in section
    order = [section.index(t) for t in ("Average IOPS", "ART, average", "5 nines, the", "MRT, maximum")]
    assert order == sorted(order)
    assert _grid_row(section, "5 nines, the", "4k")[2] == f"n/r ({5 * 563:,} IOs)"
    assert "n/r: not resolved - fewer IOs than 10 / (1 − p)" in section
    row = re.search(r"^\| 4k 0/100 write \| (.+) \|$", section, re.M).group(1).split(" | ")
    assert row == [f"{5 * 563:,}", f"{percentiles['50']:,.3f}", f"{percentiles['99']:,.3f}", "n/r", "n/r", "n/r"]
    assert "rounds' fio latency histograms (json+) merged" in section
    assert "Dependent variable: mean latency (ART) of 4k random write (0/100)" in section
    assert "Average latency, ms, over rounds" not in section  # 1.1's title for what is now the ART table


def test_a_window_whose_ios_resolve_a_percentile_gives_fios_own_figure(tmp_path):
    """Merged, the buckets give what fio gives for the same IOs: one round's window is fio's own percentile."""
    drive_dir = _run(tmp_path, SETTINGS_20, jsonplus=True)
    rnd = _results.read_json(f"{drive_dir}/latency/round-01.json")
    found, ios, source = _latency.window_percentiles([rnd], 100, 512, ("read",))
    job = _fio.find_job(rnd["fio"]["jobs"], 100, 512)
    assert (ios, source) == (890, "histogram")
    assert found["50"] == pytest.approx(job["read"]["lat_ns"]["percentiles"]["50"] / 1e6) and found["99"] is None


def test_results_recorded_without_histograms_give_the_rounds_mean_where_their_ios_resolve_it(tmp_path):
    """Round files recorded before the rounds ran json+: the mean of the rounds' own percentiles, n/r where the round
    with the fewest IOs does not resolve one - never a figure from another percentile."""
    drive_dir = _run(tmp_path, SETTINGS_20, jsonplus=False)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["latency"]
    writes = _jobs(drive_dir, 0, 4096)
    assert result["percentile_source"]["4k 0/100 write"] == "rounds"
    assert result["percentiles_ms"]["4k 0/100 write"]["50"] == pytest.approx(
        statistics.fmean(j["write"]["lat_ns"]["percentiles"]["50"] for j in writes) / 1e6)
    # 381 IOs a round: not enough for p99.
    assert result["percentiles_ms"]["4k 0/100 write"]["99"] is None
    assert all(v is None for row in result["tables"]["p99999_ms"].values() for v in row.values())
    section = _section(written)
    assert _grid_row(section, "5 nines, the", "4k")[2].startswith("n/r (")
    assert "the mean of the window rounds' own percentiles (these rounds were recorded without fio's histograms" in \
        section


def test_pts11_keeps_its_tables(tmp_path):
    written = _drive_report.write_drive_report(_run(tmp_path, SETTINGS["latency"], jsonplus=True))
    section = _section(written)
    assert "5 nines" not in section and "ART" not in section and "Average IOPS" not in section
    assert "Average latency, ms, over rounds 1, 2, 3, 4, 5 (mixed: IO-weighted mean of read and write):" in section
    assert "Maximum latency, ms: the largest single IO latency fio saw in the window's rounds:" in section
    assert "Latency percentiles, ms, of all the window's IOs of that direction" in section


@pytest.mark.parametrize("factors, stamp", [
    pytest.param(FACTORS, "STEADY (window rounds 1–5)", id="steady"),
    pytest.param([1.0, 3.0, 0.5, 2.0, 1.0], "NOT STEADY (window rounds 1–5)", id="not-steady"),
])
def test_every_window_plot_says_whether_its_window_was_steady(tmp_path, figures, factors, stamp):
    """The percentile plot and the heat map are window averages too: a window that was not steady says so there as
    on the measurement plots."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "latency", factors, settings=dict(SETTINGS_20, max_rounds=5),
                  fixture="fio-3.33-latency-round-jsonplus.json")
    _drive_report.write_drive_report(drive_dir)
    for words in ("latency percentiles per block size", "R/W mix × block size"):
        shown = figure_with(figures, words)
        assert stamp in shown["texts"] and not shown["stamps"], words  # under the title, not over a narrow panel
    assert figure_with(figures, "mean latency window average vs block size")["stamps"][0].startswith(stamp.split(" (")[0])
