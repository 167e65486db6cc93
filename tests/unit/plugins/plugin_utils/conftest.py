# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A results tree written through the real filing code, from a real fio round with a known DV series."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "fio-3.33-iops-round.json")
SETTINGS = {
    "profile": "quick", "round_seconds": 0.5, "max_rounds": 8, "window": 5, "max_data_excursion_pct": 20.0,
    "max_slope_excursion_pct": 10.0, "numjobs": 2, "iodepth": 16, "ioengine": "libaio",
    "mixes": [100, 65, 0], "block_sizes": [65536, 4096], "dv": {"mix": 0, "bs": 4096, "metric": "iops"},
    "notes": [],
}


def scaled_round(factor: float) -> dict:
    """The real fixture with every figure of every job multiplied by ``factor``."""
    with open(FIXTURE, encoding="utf-8") as handle:
        raw = json.load(handle)
    for job in raw["jobs"]:
        for direction in ("read", "write"):
            for key in ("iops", "bw_bytes"):
                job[direction][key] *= factor
    return _fio.parse(json.dumps(raw))


def write_run(run_dir: str, factors: list[float], host: str = "h1", drive: str = "d1") -> str:
    """File a drive, purge, WIPC and one round per factor the way the callback does."""
    _results.file_payload(run_dir, host, {
        "pts_drives": [{"key": drive, "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": 268435456,
                        "logical_block_size": 512, "physical_block_size": 512, "interface": "loop",
                        "vendor": "Linux", "model": "loop device", "write_cache": "write back"}],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"},
    })
    context = {"drive": drive, "test": "iops", "settings": SETTINGS}
    _results.file_payload(run_dir, host, {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    wipc = scaled_round(1.0)
    wipc["job_text"] = "[wipc]\nrw=write\n"
    _results.file_payload(run_dir, host, {"pts_fio": wipc, "pts_context": dict(context, phase="wipc")})
    for number, factor in enumerate(factors, 1):
        fio = scaled_round(factor)
        fio["job_text"] = f"# round {number}\n"
        _results.file_payload(run_dir, host, {"pts_fio": fio, "pts_fio_raw": "{}",
                                              "pts_context": dict(context, phase="round", round=number)})
    return _results.drive_dir(run_dir, host, drive)


@pytest.fixture
def make_run(tmp_path):
    def make(factors, **kwargs):
        return write_run(str(tmp_path / "run-1"), factors, **kwargs)
    return make


@pytest.fixture
def base_dv() -> float:
    jobs = scaled_round(1.0)["jobs"]
    return _fio.find_job(jobs, 0, 4096)["total"]["iops"]
