# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The QoS measurement in the report, from real fio 3.33 output filed as a run files it: each cell's percentiles from
its histogram (fio's own for the percentiles it prints), n/r where its IOs do not resolve one; and a drive judged
against a specification: the Acceptance section with each requirement's round files, page 1's failed ids."""

from __future__ import annotations

import json
import os

import pytest

from conftest import FIXTURES, write_drive

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _spec_file

SETTINGS = {"profile": "quick", "round_seconds": 0.2, "max_rounds": 3, "window": 2, "max_data_excursion_pct": 20.0,
            "max_slope_excursion_pct": 10.0, "ioengine": "libaio", "notes": [], "numjobs": 2, "iodepth": 16,
            "mixes": [100, 0], "block_sizes": [4096],
            "parameters": {"queue_depths": [4], "percentile": "99", "ios": 1000, "max_seconds": 3.0}}
CELLS = {"read": "fio-3.33-qos-randread-4k-qd4.json", "write": "fio-3.33-qos-randwrite-4k-qd4.json"}


def _raw(name: str) -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def file_qos(run_dir: str, host: str = "h1", drive: str = "d1") -> str:
    path = write_drive(run_dir, host, drive)
    base = {"drive": drive, "test": "qos", "settings": SETTINGS}
    _results.file_payload(run_dir, host, {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": dict(base, segment="precondition")})
    pc = _raw("fio-3.33-qos-precondition-randwrite-4k.json")
    for number in (1, 2):
        _results.file_payload(run_dir, host, {"pts_fio": _fio.parse(pc), "pts_fio_raw": pc,
                                              "pts_context": dict(base, segment="precondition", phase="round",
                                                                  round=number)})
    for number, direction in enumerate(("read", "write"), 1):
        raw = _raw(CELLS[direction])
        row = {"label": f"4k random {direction} at QD4", "phase": "measure", "qd": 4, "direction": direction}
        _results.file_payload(run_dir, host, {"pts_fio": _fio.parse(raw), "pts_fio_raw": raw,
                                              "pts_context": dict(base, segment="measure", phase="round",
                                                                  round=number, row=row)})
    return path


def test_each_cell_gives_its_percentiles_from_its_histogram(tmp_path):
    path = file_qos(str(tmp_path / "run-1"))
    result = _drive_report.build_model(path)["tests"]["qos"]
    assert result["status"] == "steady" and result["planned_cells"] == ["read qd4", "write qd4"]
    for direction, fixture in CELLS.items():
        cell = result["cells"][f"{direction} qd4"]
        fio_own = json.loads(_raw(fixture))["jobs"][0][direction]["lat_ns"]
        assert cell["ios"] == 1000 == fio_own["N"]
        # fio computes its percentiles from the same buckets: the 99 % is fio's own.
        assert cell["percentiles_ms"]["99"] == pytest.approx(fio_own["percentile"]["99.000000"] / 1e6)
        # 1,000 IOs resolve 99 % (ten beyond it) and nothing deeper: n/r, never a number.
        assert cell["percentiles_ms"]["99.9"] is None and cell["round_file"] == f"round-0{1 if direction == 'read' else 2}"
        assert cell["mean_ms"] == pytest.approx(fio_own["mean"] / 1e6)


def test_a_drive_judged_against_a_spec_has_its_acceptance_section_and_page_1_names_the_failed(tmp_path):
    run_dir = str(tmp_path / "run-1")
    path = file_qos(run_dir)
    spec = _spec_file.validate({
        "name": "Loop QoS", "version": "3", "source": {"document": "QoS table", "section": "2"},
        "applies_to": {"model": "loop*"},
        "requirements": [{"id": "R99", "figure": "qos.read.qd4.p99", "limit": 1, "unit": "s"},
                         {"id": "W99", "figure": "qos.write.qd4.p99", "limit": 1, "unit": "us"},
                         {"id": "R999", "figure": "qos.read.qd4.p99.9", "limit": 1, "unit": "s"}]}, "/srv/q.yml")
    _results.file_payload(run_dir, "h1", {"pts_plan": {"tests": [{"name": "qos"}], "listed": [], "acceptance": [],
                                                       "acceptance_specs": [spec], "drives": []}})
    model = _drive_report.build_model(path)
    verdict = model["verdict"]
    assert {r["id"]: r["status"] for r in verdict["requirements"]} == {"R99": "PASS", "W99": "FAIL",
                                                                       "R999": "NOT JUDGED"}
    assert verdict["verdict"] == "FAIL" and verdict["failed_requirements"] == ["Loop QoS 3: W99"]
    markdown = _drive_report.render_markdown(model, {})
    summary = markdown.split("## Contents", maxsplit=1)[0]
    assert "Requirements (Loop QoS 3): 1 of 3 PASS, **1 FAIL**, 1 not judged (section Acceptance). Failed " \
           "requirements: `Loop QoS 3: W99`. Not judged: `Loop QoS 3: R999`." in summary
    section = markdown.split("Acceptance\n\n", 2)[-1]
    assert "**Loop QoS 3** — source: QoS table, 2; file `/srv/q.yml`" in section
    assert "| `W99` | — | `qos.write.qd4.p99` | ≤ 1 us (0.001 ms) |" in section
    assert "[qos/measure/round-02.json](qos/measure/round-02.json)" in section
    assert "| **not judged** (counts as INCOMPLETE): the QoS run of 4k random read at QD4 counted 1,000 IOs; " \
           "p99.9 needs at least 10,000 (10 beyond it) to be resolved |" in section
    # The linked round file is the one the figure comes from.
    assert os.path.exists(os.path.join(path, "qos", "measure", "round-02.json"))


def test_the_stimulus_names_the_preconditioning_load_and_the_cells_one_thread_at_each_queue_depth(tmp_path):
    model = _drive_report.build_model(file_qos(str(tmp_path / "run-1")))
    markdown = _drive_report.render_markdown(model, {})
    assert "| Stimulus | preconditioning: 4k random write, 2 threads × queue depth 16, until steady, 0.2 s per round; " \
           "then 4k random read and 4k random write, one thread at queue depth 4; libaio, direct I/O |" in markdown
