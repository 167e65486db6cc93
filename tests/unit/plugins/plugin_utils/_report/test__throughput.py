# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Throughput: each block size's own WIPC (PTS 2.0.2), and round 1's reads of a purged drive flagged without it."""

from __future__ import annotations

import os
import re

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _plots, _throughput

from conftest import CAPACITY, SETTINGS, scaled_round, write_drive, write_segment
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._png import PNG

FIXTURES = {"1024k": "fio-3.33-throughput-1048576.json", "64k": "fio-3.33-throughput-65536.json"}
# The listed order, not the size order: PTS 2.0.2 runs 1024k, then 128k.
SETTINGS_20 = dict(SETTINGS["throughput"], spec="2.0", segment_wipc=True, block_sizes=[65536, 1048576])
STEADY = [1.0, 1.01, 0.99, 1.0, 1.02]


def _write_wipc(run_dir: str, name: str, settings: dict) -> dict:
    """A segment's WIPC as the run files it: sequential writes at the block size, after the segment's purge."""
    wipc = scaled_round(FIXTURES[name], 1.0)
    wipc["jobs"] = [j for j in wipc["jobs"] if j["mix"] == 0]
    wipc["job_text"] = "[wipc]\nrw=write\n"
    context = {"drive": "d1", "test": "throughput", "settings": settings, "segment": name, "phase": "wipc"}
    _results.file_payload(run_dir, "h1", {"pts_fio": wipc, "pts_context": context})
    return wipc["jobs"][0]


def _run(tmp_path, settings: dict, wipc: bool, factors=tuple(STEADY)) -> tuple[str, dict]:
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    jobs = {}
    for name in ("64k", "1024k"):
        context = {"drive": "d1", "test": "throughput", "settings": settings, "segment": name}
        _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                              "pts_context": context})
        if wipc:
            jobs[name] = _write_wipc(run_dir, name, settings)
        write_segment(run_dir, "h1", "d1", "throughput", factors, segment=name, fixture=FIXTURES[name], purge=False,
                      settings=settings)
    return drive_dir, jobs


def _section(written: dict) -> str:
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    return markdown[markdown.index("## 4 Throughput"):]


def test_each_block_size_shows_its_own_wipc(tmp_path):
    drive_dir, jobs = _run(tmp_path, SETTINGS_20, wipc=True)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["throughput"]
    assert [s["name"] for s in result["segments"]] == ["64k", "1024k"]  # as listed
    assert result["segment_wipc"] and result["purged_reads"] == [] and result["spec"] == "2.0"
    for seg in result["segments"]:
        job = jobs[seg["name"]]
        assert seg["wipc"]["bytes_written"] == job["write"]["io_bytes"]
        assert seg["wipc"]["block_size"] == seg["name"]
        assert seg["wipc"]["mb_per_s"] == pytest.approx(job["write"]["bw_bytes"] / 1e6)
        assert seg["purged_read"] is None
    assert result["status"] == "steady"
    assert result["steady_text"] == "steady for every block size, read and write (64k at round 5, 1024k at round 5)"
    section = _section(written)
    assert "For each block size (in this order): purge, then WIPC, then rounds of:" in section
    assert "For block size in [64k, 1024k]\n  Purge\n  WIPC (" in section
    assert "SEQ writes at that block size: 64k, then 1024k)" in section
    assert "Headline: 1024k sequential write." in section and "†" not in section
    for name in ("64k", "1024k"):
        job = jobs[name]
        row = re.search(rf"^\| WIPC \({name}\) \| ([^|]+) \| ([^|]+) \|$", section, re.M)
        assert row, name
        assert row.group(1).startswith(f"{job['write']['io_bytes']:,} bytes")
        assert f"= {round(job['write']['io_bytes'] / CAPACITY, 2):g} × user capacity written, {name} sequential" in row.group(1)
        assert f"[{name}](throughput/{name}/wipc.fio)" in section
        assert os.path.exists(os.path.join(drive_dir, "throughput", name, "wipc.fio"))
    assert section.index("| Purge (64k) |") < section.index("| WIPC (64k) |") < section.index("| Purge (1024k) |")
    with open(os.path.join(drive_dir, written["plots"]["throughput"]["convergence"]), "rb") as handle:
        assert handle.read(8) == PNG


def test_without_wipc_round_one_reads_of_a_purged_drive_are_flagged(tmp_path):
    """PTS-E 1.1 as TKperf runs it: purge, then straight to round 1, whose reads read discarded LBAs."""
    drive_dir, dummy = _run(tmp_path, SETTINGS["throughput"], wipc=False,
                            factors=[{"read": 6.0, "write": 1.0}] + [1.0] * 7)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["throughput"]
    assert result["purged_reads"] == ["1024k", "64k"] and not result["segment_wipc"]
    for seg in result["segments"]:
        assert seg["wipc"] is None
        assert seg["purged_read"] == {"round": 1, "mb_per_s": pytest.approx(seg["dvs"][0]["values"][0] / 1e6),
                                      "in_window": False}
    section = _section(written)
    assert "> **Round 1's reads are of a purged drive** (marked †)" in section
    assert "`pts_run_throughput_wipc: true`" in section
    # No final window holds round 1 (8 rounds, a window of 5), but the check after round 5 judged rounds 1-5.
    assert ("the final read windows do not hold them, but the steady-state check after round 5 judged rounds 1–5, "
            "round 1 among them") in section and "no measurement window holds them" not in section
    # round 1's read value marked in each block size's round table, not its write
    big = result["segments"][0]
    read1, write1 = (f"{dv['values'][0] / 1e6:,.2f}" for dv in big["dvs"])
    assert f"| 1 | {read1} † | — | — | {write1} | — | — | no |" in section
    assert "WIPC" not in section.split("### 4.4")[1].split("fio job files")[0]  # no WIPC rows without one
    assert "a star where a direction became steady; round 1's reads of a purged drive hollow" in section


def test_a_window_that_holds_round_one_says_so(tmp_path):
    """Steady at round 5 with a window of 5: the read window average includes the purged drive's reads."""
    drive_dir, dummy = _run(tmp_path, SETTINGS["throughput"], wipc=False)
    written = _drive_report.write_drive_report(drive_dir)
    result = written["model"]["tests"]["throughput"]
    assert all(s["purged_read"]["in_window"] for s in result["segments"])
    section = _section(written)
    assert "the 1024k and 64k read window holds round 1, so its average includes that read" in section
    assert re.search(r"^\| \*\*1024k\*\* \| read \| 1 †, 2, 3, 4, 5 \|", section, re.M)
    assert re.search(r"^\| \*\*1024k\*\* \| write \| 1, 2, 3, 4, 5 \|", section, re.M)
    assert "| steady (from round 5), holds round 1 † | steady (from round 5) |" in section
    # the summary row's figures stay plain numbers
    assert re.search(r"^\| \*\*1024k\*\* \| ([\d,.]+) \| ([\d,.]+) \|", section, re.M)


def _seg(name: str, wipc_bs: str | None, written: int = 2 * CAPACITY) -> dict:
    return {"name": name, "wipc": {"bytes_written": written, "block_size": wipc_bs} if wipc_bs else None}


@pytest.mark.parametrize("segments, capacity, line", [
    ([_seg("1024k", "1024k"), _seg("128k", "128k")], CAPACITY,
     "  WIPC (2 × user capacity, SEQ writes at that block size: 1024k, then 128k)"),
    ([_seg("1024k", "128k"), _seg("128k", "128k")], CAPACITY, "  WIPC (2 × user capacity, SEQ 128k writes)"),
    ([_seg("1024k", "1024k"), _seg("128k", "1024k")], CAPACITY, "  WIPC (2 × user capacity, SEQ 1024k writes)"),
    ([_seg("1024k", "128k"), _seg("128k", "1024k")], CAPACITY,
     "  WIPC (2 × user capacity, SEQ writes: 1024k at 128k, 128k at 1024k)"),
    # no drive size known, or block sizes that wrote different amounts: the multiple is left out, not guessed
    ([_seg("1024k", "1024k")], 0, "  WIPC (SEQ writes at that block size: 1024k)"),
    ([_seg("1024k", "128k"), _seg("128k", "128k", CAPACITY)], CAPACITY, "  WIPC (SEQ 128k writes)"),
])
def test_the_loop_names_what_each_wipc_wrote(segments, capacity, line):
    assert _throughput._wipc_step({"segments": segments}, capacity) == line


@pytest.fixture
def figures(monkeypatch):
    """Every figure a plot function finishes, looked at before it is closed: per file its axes' y limits, titles
    (left and right: the verdict stamp) and texts."""
    seen = {}
    finish = _plots.finish_figure

    def keep(fig, path, subtitle):
        seen[os.path.basename(path)] = [{"ylim": ax.get_ylim(), "left": ax.get_title("left"),
                                         "right": ax.get_title("right"), "xlabel": ax.get_xlabel(),
                                         "texts": [t.get_text() for t in ax.texts]} for ax in fig.axes]
        return finish(fig, path, subtitle)

    monkeypatch.setattr(_plots, "finish_figure", keep)
    return seen


def test_verification_a_figure_per_block_size_the_purged_read_out_of_the_scale(tmp_path, figures):
    drive_dir, dummy = _run(tmp_path, SETTINGS["throughput"], wipc=False,
                            factors=[{"read": 6.0, "write": 1.0}, 1.0, 1.5, 0.7, 1.0, 1.0, 1.0, 1.0])
    written = _drive_report.write_drive_report(drive_dir)
    drawn = written["plots"]["throughput"]
    assert {"verification-1024k", "verification-64k"} <= set(drawn) and "verification" not in drawn
    result = written["model"]["tests"]["throughput"]
    for seg in result["segments"]:
        read, write = figures[f"throughput-verification-{seg['name']}.png"][:2]
        purged = seg["purged_read"]["mb_per_s"]
        # Round 1's purged read scales nothing: the axis stops below it and the value is written on the frame.
        assert read["ylim"][1] < purged and any(t.startswith(f"{purged:,.1f} ↑") for t in read["texts"])
        assert max(seg["dvs"][0]["values"][1:]) / 1e6 < read["ylim"][1]
        # Each direction's own axis, its verdict above the frame and its figures under the round axis.
        for panel, dv in ((read, seg["dvs"][0]), (write, seg["dvs"][1])):
            assert panel["right"] == ("STEADY" if dv["window"]["steady"] else "NOT STEADY")
            assert panel["xlabel"].startswith("Round\nmax − min ") and "best fit" in panel["xlabel"]
    convergence = figures["throughput-convergence.png"]
    assert convergence[0]["left"] == "Sequential write" and convergence[0]["right"].startswith("NOT STEADY (")
    assert convergence[1]["ylim"][1] < min(s["purged_read"]["mb_per_s"] for s in result["segments"])
