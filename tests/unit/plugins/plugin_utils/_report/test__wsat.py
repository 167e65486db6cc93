# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write saturation under PTS 2.0.2: IOPS and response times against drive fills (bytes written / capacity)."""

from __future__ import annotations

import copy
import re

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _wsat

from conftest import CAPACITY, SETTINGS, scaled_round, write_drive

PNG = b"\x89PNG\r\n\x1a\n"


def _settings(spec: str | None, latency_plots: bool) -> dict:
    settings = dict(SETTINGS["wsat"], wsat=dict(SETTINGS["wsat"]["wsat"], latency_plots=latency_plots))
    return dict(settings, spec=spec, numjobs=4, iodepth=32) if spec else settings


def _round(number: int, factor: float, five_nines: bool) -> dict:
    """A real 4k random write round, IOPS scaled by ``factor``; with ``five_nines`` a 99.999 % of 1.1 x its 99.99 % and
    the 2,000,000 IOs of a standard 60-s round that resolve it (the quick round's few thousand do not)."""
    fio = scaled_round("fio-3.33-wsat-round.json", factor)
    percentiles = fio["jobs"][0]["write"]["lat_ns"]["percentiles"]
    if five_nines:
        percentiles["99.999"] = percentiles["99.99"] * 1.1
        fio["jobs"][0]["write"]["total_ios"] = 2_000_000
    fio["job_text"] = f"# round {number}\n"
    return fio


def _run(tmp_path, spec: str | None, latency_plots: bool, factors: list[float], five_nines: bool = True) -> str:
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    context = {"drive": "d1", "test": "wsat", "settings": _settings(spec, latency_plots)}
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    for number, factor in enumerate(factors, 1):
        _results.file_payload(run_dir, "h1", {"pts_fio": _round(number, factor, five_nines),
                                              "pts_context": dict(context, phase="round", round=number)})
    return drive_dir


def _section(written: dict) -> str:
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    return markdown[markdown.index("## 4 Write Saturation"):]


def test_drive_fills_and_response_times_under_pts2(tmp_path):
    factors = [1.0] * 6 + [0.5] * 6
    drive_dir = _run(tmp_path, "2.0", True, factors)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["wsat"]
    assert result["spec"] == "2.0" and result["latency_plots"] and result["capacity_bytes"] == CAPACITY
    total = 0
    for number, row in enumerate(result["per_round"], 1):
        write = _fio.find_job(_results.read_json(f"{drive_dir}/wsat/round-{number:02d}.json")["fio"]["jobs"],
                              0, 4096)["write"]
        total += write["io_bytes"]
        assert row["fills"] == pytest.approx(total / CAPACITY)
        assert row["lat_p99999_ms"] == pytest.approx(write["lat_ns"]["percentiles"]["99.999"] / 1e6)
    assert result["fills"] == pytest.approx(result["written_bytes"] / CAPACITY)
    assert set(written["plots"]["wsat"]) == {"iops", "latency", "fills", "response"}
    section = _section(written)
    assert "4 threads × queue depth 32 = OIO 128" in section
    assert "against drive fills (total bytes written / user capacity); and, as set (pts_run_wsat_latency_plots)" in section
    assert f"| Drive fills (written / user capacity) | {result['written_bytes'] / CAPACITY:.2f} × |" in section
    assert "| 99.999 % latency, first / last round (ms) |" in section
    assert "| Round | IOPS | MB/s | Mean latency (ms) | 99.999 % (ms) | Max latency (ms) | Written (GB) | Drive fills |" \
        in section
    last = result["per_round"][-1]
    assert re.search(rf"^\| 12 \| .* \| {last['lat_p99999_ms']:,.3f} \| .* \| {last['fills']:.3f} \|$", section, re.M)
    assert "| Drive fills | Written by its rounds | Rounds | IOPS | Mean latency (ms) | 99.999 % (ms) |" in section
    assert "](plots/wsat-fills.png)" in section and "](plots/wsat-response.png)" in section


def test_the_response_time_plots_follow_the_setting(tmp_path):
    written = _drive_report.write_drive_report(_run(tmp_path, "2.0", False, [1.0] * 4))
    assert set(written["plots"]["wsat"]) == {"iops", "latency", "fills"}
    section = _section(written)
    assert "pts_run_wsat_latency_plots" not in section and "wsat-response" not in section


def test_rounds_too_short_to_resolve_five_nines_are_flagged_not_given_a_number(tmp_path):
    written = _drive_report.write_drive_report(_run(tmp_path, "2.0", True, [1.0] * 4, five_nines=False))
    result = written["model"]["tests"]["wsat"]
    assert all(r["lat_p99999_ms"] is None and r["ios"] < 1_000_000 for r in result["per_round"])
    section = _section(written)
    assert "| 99.999 % latency, first / last round (ms) | n/r / n/r |" in section
    assert "response" in written["plots"]["wsat"]  # mean and max still drawn


def test_pts11_keeps_tkperfs_plots_and_tables(tmp_path):
    written = _drive_report.write_drive_report(_run(tmp_path, None, False, [1.0] * 4))
    result = written["model"]["tests"]["wsat"]
    assert result["spec"] == "1.1"
    assert set(written["plots"]["wsat"]) == {"iops", "latency"}
    section = _section(written)
    assert "Drive fills" not in section and "99.999" not in section and "OIO" not in section
    assert "| Written, × user capacity |" in section
    assert "| Round | IOPS | MB/s | Mean latency (ms) | Max latency (ms) | Written (GB) |" in section


def test_a_1500_round_pts2_write_saturation_plots_fast_and_samples_its_tables(tmp_path):
    """Built in memory: 1,500 round records sharing one fio job, a drop after the first fill."""
    base = _round(1, 1.0, True)
    rounds = []
    for number in range(1, 1501):
        fio = copy.deepcopy(base)
        write = fio["jobs"][0]["write"]
        write["io_bytes"] = int(4.1 * CAPACITY / 1500)
        if number > 400:
            write["iops"] /= 2
            write["lat_ns"]["mean"] *= 2
        rounds.append({"round": number, "settings": _settings("2.0", True), "fio": fio,
                       "recorded_at": "2026-01-01T00:00:00+00:00"})
    test = {"name": "wsat", "segments": {"": {"rounds": rounds}}, "purge": {"method": "discard"}}
    result = _wsat.build(test)
    assert result["status"] == "complete" and result["fills"] == pytest.approx(4.1, rel=1e-3)
    drawn = _wsat.plots(result, str(tmp_path), "d1", "test")
    assert set(drawn) == {"iops", "latency", "fills", "response"}
    for path in drawn.values():
        with open(path, "rb") as handle:
            assert handle.read(8) == PNG
    lines = _wsat.section(result, {k: f"plots/{k}.png" for k in drawn}, 4, CAPACITY)
    rows = [line for line in lines if re.match(r"^\| \d+ \| ", line)]
    assert 50 <= len(rows) <= 60 and rows[-1].startswith("| 1500 |") and rows[-1].endswith(" | 4.100 |")
    assert any("of 1,500 rows: the first and last 10" in line for line in lines)


def test_response_time_plots_asked_for_under_pts11(tmp_path):
    """pts_run_wsat_latency_plots: true under PTS-E 1.1: the response-time plot, TKperf's tables."""
    written = _drive_report.write_drive_report(_run(tmp_path, None, True, [1.0] * 4))
    assert set(written["plots"]["wsat"]) == {"iops", "latency", "response"}
    section = _section(written)
    assert "](plots/wsat-response.png)" in section and "| Drive fills |" not in section
