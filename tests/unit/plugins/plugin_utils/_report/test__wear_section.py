# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Wear in the drive report: the host's bytes per test from fio's records, the drive's own counter over the rounds
and over the run, write amplification only where a NAND counter exists, and the plan's estimate beside them.
Results trees are filed through the real filing code."""

from __future__ import annotations

import os

from conftest import SETTINGS, scaled_round, write_drive, write_wipc

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import wsat
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _rows
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

ROUND_BYTES = wsat.written_bytes(scaled_round("fio-3.33-iops-round.json", 1.0)["jobs"])
WIPC_BYTES = sum(j["write"]["io_bytes"] for j in scaled_round("fio-3.33-throughput-1048576.json", 1.0)["jobs"]
                 if j["mix"] == 0)
ESTIMATE = {"judged": True, "refused": False, "estimated_bytes": 48 * 10**9, "use_pct": 0.96, "budget_pct": 5.0,
            "text": "the run writes up to 0.048 TB (iops 0.048 TB; rates up to 16,000 MB/s, the PCIe 5.0 x4 link's "
                    "bound), 0.96 % of the remaining life of 5 TB"}


def file_rounds(run_dir: str, counters: list[tuple[int | None, int | None]], nand: list | None = None) -> None:
    """An IOPS purge and one round per (before, after) bytes-written counter pair, as pts_round files them."""
    context = {"drive": "d1", "test": "iops", "settings": SETTINGS["iops"]}
    _results.file_payload(run_dir, "h1", {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    write_wipc(run_dir, "h1", "d1", "iops")
    for number, (before, after) in enumerate(counters, 1):
        fio = scaled_round("fio-3.33-iops-round.json", 1.0)
        readings = [{"temperature_c": 40}, {"temperature_c": 41}]
        for reading, value in zip(readings, (before, after)):
            if value is not None:
                reading["bytes_written"] = value
        if nand:
            readings[0]["nand_bytes_written"], readings[1]["nand_bytes_written"] = nand[number - 1]
        fio.update(job_text=f"# round {number}\n", health={"tool": "nvme smart-log", "device": "/dev/nvme0",
                                                           "before": readings[0], "after": readings[1]})
        _results.file_payload(run_dir, "h1", {"pts_fio": fio, "pts_fio_raw": "{}",
                                              "pts_context": dict(context, phase="round", round=number)})


def nvme_drive(run_dir: str, before: dict, after: dict | None) -> str:
    path = write_drive(run_dir, "h1", "d1")
    info = _results.read_json(os.path.join(path, "drive.json"))
    info["drive"].update(interface="NVMe", model="ACME X1", health=dict(before, tool="nvme smart-log"))
    _results.atomic_write_json(os.path.join(path, "drive.json"), info)
    if after is not None:
        _results.file_payload(run_dir, "h1", {"pts_health": dict(after, tool="nvme smart-log"),
                                              "pts_context": {"drive": "d1", "phase": "after"}})
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "iops"}], "listed": [], "acceptance": [],
                                                       "drives": [{"key": "d1", "tests": [], "wear": ESTIMATE}]}})
    return path


def test_host_bytes_and_the_drives_counter_per_test_and_for_the_run(tmp_path):
    run_dir = str(tmp_path / "run")
    unit = 512000  # NVMe Data Units Written count thousands of 512-byte units
    path = nvme_drive(run_dir, {"bytes_written": 1000 * unit}, {"bytes_written": 9000 * unit})
    # Round 1 starts at 3,000 units (after the WIPC), round 3 ends at 7,500: 4,500 units over the rounds.
    file_rounds(run_dir, [(3000 * unit, 4000 * unit), (4000 * unit, 6000 * unit), (6000 * unit, 7500 * unit)])
    written = _drive_report.write_drive_report(path)
    wear = written["model"]["wear"]
    (iops,) = wear["tests"]
    assert iops["rounds_bytes"] == 3 * ROUND_BYTES and iops["precondition_bytes"] == WIPC_BYTES > 0
    assert iops["host_bytes_written"] == 3 * ROUND_BYTES + WIPC_BYTES
    assert iops["drive_bytes_written"] == 4500 * unit
    assert wear["host_bytes_written"] == 3 * ROUND_BYTES + WIPC_BYTES
    assert wear["drive_bytes_written"] == 8000 * unit and wear["counter"] == "nvme smart-log"
    assert wear["write_amplification"] is None and "no NAND-writes counter is exposed" in wear["nand_note"]
    assert wear["estimate"] == ESTIMATE
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    # Section 5 is the drive's health per round (the readings carry a temperature); wear comes last.
    contents = markdown[markdown.index("## Contents"):markdown.index("## 1 Device information")]
    assert "6. [Wear](#6-wear)" in contents
    section = markdown[markdown.index("## 6 Wear"):]
    assert (f"| IOPS | {format_bytes(WIPC_BYTES)} | {format_bytes(3 * ROUND_BYTES)} | {format_bytes(4500 * unit)} "
            "| — |") in section
    total = format_bytes(3 * ROUND_BYTES + WIPC_BYTES)
    assert f"| **Run** |  | **{total}** (all) | **{format_bytes(8000 * unit)}** |" in section
    assert "(the OCP C0h log's Physical Media Units Written, nvme ocp smart-add-log;" in section
    assert "Before the first write the plan estimated (an upper bound): the run writes up to 0.048 TB" in section
    summary = markdown[markdown.index("## Summary"):markdown.index("## Contents")]
    assert (f"Wear: the host wrote {format_bytes(3 * ROUND_BYTES + WIPC_BYTES)} in this run; the drive's own counter "
            f"grew by {format_bytes(8000 * unit)}; the plan's upper bound was {format_bytes(48 * 10**9)}, 0.96 % of "
            "the remaining rated life (budget 5 %).") in summary
    # The history index takes the run's figures from the report's wear block.
    row = _rows.run_rows(run_dir)[0]
    assert row["host_bytes_written"] == 3 * ROUND_BYTES + WIPC_BYTES and row["drive_bytes_written"] == 8000 * unit


def test_write_amplification_where_a_nand_counter_is_read(tmp_path):
    run_dir = str(tmp_path / "run")
    path = nvme_drive(run_dir, {"bytes_written": 0, "nand_bytes_written": 0},
                      {"bytes_written": 4 * 10**9, "nand_bytes_written": 10 * 10**9})
    file_rounds(run_dir, [(0, 10**9), (10**9, 2 * 10**9)], nand=[(0, 3 * 10**9), (3 * 10**9, 5 * 10**9)])
    wear = _drive_report.write_drive_report(path)["model"]["wear"]
    assert wear["tests"][0]["write_amplification"] == 2.5  # 5 GB to flash for 2 GB the drive counted from the host
    assert wear["write_amplification"] == 2.5 and wear["nand_note"] is None


def test_a_device_without_counters_says_so(tmp_path):
    run_dir = str(tmp_path / "run")
    path = write_drive(run_dir, "h1", "d1")
    file_rounds(run_dir, [(None, None), (None, None)])
    written = _drive_report.write_drive_report(path)
    wear = written["model"]["wear"]
    assert wear["host_bytes_written"] == 2 * ROUND_BYTES + WIPC_BYTES
    assert wear["drive_bytes_written"] is None and wear["tests"][0]["drive_bytes_written"] is None
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert "(**the drive reports no write counter**)" in markdown
    assert "Write amplification: none: the device reports no write counters." in markdown
    assert "the drive reports no write counter." in markdown[:markdown.index("## Contents")]
