# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Latency under PTS 2.0.2: IOPS and the 99.999 % response time beside ART and MRT; PTS-E 1.1's tables unchanged."""

from __future__ import annotations

import re
import statistics

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

from conftest import SETTINGS, scaled_round, write_drive, write_segment

FACTORS = [1.0, 1.02, 0.98, 1.0, 1.01]
SETTINGS_20 = dict(SETTINGS["latency"], spec="2.0")


def _run(tmp_path, settings: dict, five_nines: bool) -> str:
    """A latency test; with ``five_nines`` every direction that did IO gets a 99.999 % (as fio prints it when
    percentile_list asks for it), 1.5 x its 99.99 % for reads and 1.25 x for writes."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    context = {"drive": "d1", "test": "latency", "settings": settings}
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    if not five_nines:
        write_segment(run_dir, "h1", "d1", "latency", FACTORS, purge=False, settings=settings)
        return drive_dir
    for number, factor in enumerate(FACTORS, 1):
        fio = scaled_round("fio-3.33-latency-round.json", factor)
        for job in fio["jobs"]:
            for direction, scale in (("read", 1.5), ("write", 1.25)):
                percentiles = job[direction]["lat_ns"]["percentiles"]
                if percentiles:
                    percentiles["99.999"] = percentiles["99.99"] * scale
        fio["job_text"] = f"# round {number}\n"
        _results.file_payload(run_dir, "h1",
                              {"pts_fio": fio, "pts_context": dict(context, phase="round", round=number)})
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


def test_pts2_tables_give_iops_and_five_nines_beside_art_and_mrt(tmp_path):
    drive_dir = _run(tmp_path, SETTINGS_20, five_nines=True)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["latency"]
    assert result["spec"] == "2.0" and result["status"] == "steady" and result["steady_text"] == "steady at round 5"
    nines = result["tables"]["p99999_ms"]
    # a pure write: the mean of the rounds' own 99.999 %
    writes = _jobs(drive_dir, 0, 4096)
    assert nines["4k"]["0"] == pytest.approx(
        statistics.fmean(j["write"]["lat_ns"]["percentiles"]["99.999"] for j in writes) / 1e6)
    # a mixed workload: per round the larger of read's and write's 99.999 %, then the mean
    mixed = _jobs(drive_dir, 65, 512)
    expected = statistics.fmean(max(j["read"]["lat_ns"]["percentiles"]["99.999"],
                                    j["write"]["lat_ns"]["percentiles"]["99.999"]) for j in mixed) / 1e6
    assert nines["512"]["65"] == pytest.approx(expected)
    assert result["percentiles_ms"]["512 65/35 read"]["99.999"] == pytest.approx(
        statistics.fmean(j["read"]["lat_ns"]["percentiles"]["99.999"] for j in mixed) / 1e6)
    assert result["fewest_ios"] == min(j["total"]["total_ios"] for n in range(1, 6) for j in
                                       _results.read_json(f"{drive_dir}/latency/round-{n:02d}.json")["fio"]["jobs"])

    section = _section(written)
    for title in ("Average IOPS (read + write) over rounds 1, 2, 3, 4, 5:", "ART, average response time, ms",
                  "5 nines, the 99.999 % response time, ms", "MRT, maximum response time, ms"):
        assert title in section
    order = [section.index(t) for t in ("Average IOPS", "ART, average", "5 nines, the", "MRT, maximum")]
    assert order == sorted(order)
    assert _grid_row(section, "5 nines, the", "4k")[2] == f"{nines['4k']['0']:,.3f}"
    assert _grid_row(section, "Average IOPS", "4k")[0] == f"{result['tables']['iops']['4k']['100']:,.1f}"
    assert "the larger of read's and write's, an upper bound of the 99.999 % over all IOs" in section
    assert "with fewer than 100,000 a run's 99.999 % is its slowest IO or next to it" in section
    assert "Dependent variable: mean latency (ART) of 4k random write (0/100)" in section
    assert "across p50 … p99.999" in section
    assert "Average latency, ms, over rounds" not in section  # 1.1's title for what is now the ART table


def test_results_without_a_five_nines_figure_show_a_dash(tmp_path):
    """Round files recorded before fio was asked for the 99.999 %: a dash, never a figure from another percentile."""
    written = _drive_report.write_drive_report(_run(tmp_path, SETTINGS_20, five_nines=False))
    result = written["model"]["tests"]["latency"]
    assert all(v is None for row in result["tables"]["p99999_ms"].values() for v in row.values())
    section = _section(written)
    assert _grid_row(section, "5 nines, the", "4k") == ["—", "—", "—"]
    assert "fio gives a percentile as the middle of its latency bin" not in section


def test_pts11_keeps_its_tables(tmp_path):
    written = _drive_report.write_drive_report(_run(tmp_path, SETTINGS["latency"], five_nines=True))
    section = _section(written)
    assert "5 nines" not in section and "ART" not in section and "Average IOPS" not in section
    assert "Average latency, ms, over rounds 1, 2, 3, 4, 5 (mixed: IO-weighted mean of read and write):" in section
    assert "Maximum latency, ms: the largest single IO latency fio saw in the window's rounds:" in section
    # The percentile plot draws every percentile the round files have, 99.999 % too: its caption says so.
    assert "across p50 … p99.999 (means" in section
    # the figures are in result.json all the same
    assert written["model"]["tests"]["latency"]["tables"]["p99999_ms"]["4k"]["0"] is not None
