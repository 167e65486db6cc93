# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Results trees written through the real filing code, from real fio rounds (fixtures) with known DV series; and a
history index of hand-made run sets (index), for the comparisons."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
CAPACITY = 268435456
COMMON = {"profile": "quick", "round_seconds": 0.5, "max_rounds": 8, "window": 5, "max_data_excursion_pct": 20.0,
          "max_slope_excursion_pct": 10.0, "ioengine": "libaio", "notes": []}
SETTINGS = {
    "iops": dict(COMMON, numjobs=2, iodepth=16, mixes=[100, 65, 0], block_sizes=[65536, 4096],
                 dv={"mix": 0, "bs": 4096, "metric": "iops"}, wipc={"block_size": "128k", "capacity_multiple": 2}),
    "throughput": dict(COMMON, numjobs=1, iodepth=32, mixes=[100, 0], block_sizes=[1048576, 65536]),
    "latency": dict(COMMON, numjobs=1, iodepth=1, mixes=[100, 65, 0], block_sizes=[8192, 4096, 512],
                    dv={"mix": 0, "bs": 4096, "metric": "lat_mean_ns"}, wipc={"block_size": "128k", "capacity_multiple": 2}),
    "wsat": dict(COMMON, numjobs=2, iodepth=16, mixes=[0], block_sizes=[4096],
                 wsat={"target_bytes": 4 * CAPACITY, "capacity_multiple": 4, "max_hours": 0.05}),
}
ROUND_FIXTURE = {"iops": "fio-3.33-iops-round.json", "latency": "fio-3.33-latency-round.json",
                 "wsat": "fio-3.33-wsat-round.json"}


def scaled_round(fixture: str, factor: float, by_direction: dict | None = None) -> dict:
    """A real fio output with every job's rate multiplied and its latencies divided by ``factor`` (or, per job
    direction, by ``by_direction["read"|"write"]``: throughput's sequential read and write jobs apart)."""
    with open(os.path.join(FIXTURES, fixture), encoding="utf-8") as handle:
        raw = json.load(handle)
    for job in raw["jobs"]:
        if by_direction:
            factor = by_direction["read" if job["job options"].get("rw", raw["global options"].get("rw")) in
                                  ("read", "randread") else "write"]
        for direction in ("read", "write"):
            data = job[direction]
            for key in ("iops", "bw_bytes"):
                data[key] *= factor
            for key in ("mean", "max", "min"):
                data["lat_ns"][key] /= factor
            for key in list(data["lat_ns"].get("percentile", {})):
                data["lat_ns"]["percentile"][key] /= factor
    return _fio.parse(json.dumps(raw))


def write_drive(run_dir: str, host: str, drive: str, **identity) -> str:
    """A drive's identity filed as pts_drive_info files it (``identity`` adds or replaces fields: serial, firmware)."""
    _results.file_payload(run_dir, host, {
        "pts_drives": [dict({"key": drive, "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": CAPACITY,
                             "logical_block_size": 512, "physical_block_size": 512, "interface": "loop",
                             "vendor": "Linux", "model": "loop device", "write_cache": "write back"}, **identity)],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"},
    })
    return _results.drive_dir(run_dir, host, drive)


def write_segment(run_dir: str, host: str, drive: str, test: str, factors: list, segment: str = "",
                  fixture: str | None = None, purge: bool = True, settings: dict | None = None) -> None:
    """File a purge and one round per factor of one test (segment) the way a run's steps do; a factor may be a
    {"read": f, "write": f} pair (throughput's two directions apart)."""
    context = {"drive": drive, "test": test, "settings": settings or SETTINGS[test], "segment": segment}
    if purge:
        _results.file_payload(run_dir, host, {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                              "pts_context": context})
    for number, factor in enumerate(factors, 1):
        fio = scaled_round(fixture or ROUND_FIXTURE[test], 1.0, factor) if isinstance(factor, dict) else \
            scaled_round(fixture or ROUND_FIXTURE[test], factor)
        fio["job_text"] = f"# {test} {segment} round {number}\n"
        _results.file_payload(run_dir, host, {"pts_fio": fio, "pts_fio_raw": "{}",
                                              "pts_context": dict(context, phase="round", round=number)})


def write_wipc(run_dir: str, host: str, drive: str, test: str) -> None:
    wipc = scaled_round("fio-3.33-throughput-1048576.json", 1.0)
    wipc["jobs"] = [j for j in wipc["jobs"] if j["mix"] == 0]
    wipc["job_text"] = "[wipc]\nrw=write\n"
    context = {"drive": drive, "test": test, "settings": SETTINGS[test], "phase": "wipc"}
    _results.file_payload(run_dir, host, {"pts_fio": wipc, "pts_context": context})


def write_run(run_dir: str, factors: list[float], host: str = "h1", drive: str = "d1") -> str:
    """A drive with an IOPS test: purge, WIPC, one round per factor."""
    path = write_drive(run_dir, host, drive)
    context = {"drive": drive, "test": "iops", "settings": SETTINGS["iops"]}
    _results.file_payload(run_dir, host, {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                          "pts_context": context})
    write_wipc(run_dir, host, drive, "iops")
    write_segment(run_dir, host, drive, "iops", factors, purge=False)
    return path


@pytest.fixture(autouse=True)
def _html_only(monkeypatch):
    """Reports here make report.html but no PDF (WeasyPrint takes seconds a report); test__html.py asks for both."""
    monkeypatch.setenv("PTS_REPORT_FORMATS", "html")


@pytest.fixture
def make_run(tmp_path):
    def make(factors, **kwargs):
        return write_run(str(tmp_path / "run-1"), factors, **kwargs)
    return make


@pytest.fixture
def base_dv() -> float:
    jobs = scaled_round("fio-3.33-iops-round.json", 1.0)["jobs"]
    return _fio.find_job(jobs, 0, 4096)["total"]["iops"]


@pytest.fixture
def figures(monkeypatch):
    """Every plot drawn while the test runs (each figure is closed once written), as what it shows: {"texts": every
    text of it, "stamps": its panels' right-hand titles (a window's STEADY / NOT STEADY), "markers": (marker, x
    values) of each series drawn as points alone}. Plots are drawn in this
    process (no split onto a second core), so none is missed."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _split

    monkeypatch.setattr(_split, "ENABLED", False)
    seen: list[dict] = []
    close = plt.close

    def record(fig=None):
        if fig is not None and hasattr(fig, "findobj"):
            seen.append({"texts": [t.get_text() for t in fig.findobj(Text) if t.get_text()],
                         "stamps": [ax.get_title("right") for ax in fig.axes if ax.get_title("right")],
                         "markers": [(line.get_marker(), [float(x) for x in line.get_xdata()])
                                     for ax in fig.axes for line in ax.get_lines() if line.get_linestyle() == "None"]})
        return close(fig) if fig is not None else close()

    monkeypatch.setattr(plt, "close", record)
    return seen


def figure_with(seen: list[dict], words: str) -> dict:
    """The one figure drawn whose texts hold ``words`` (a piece of its title)."""
    found = [f for f in seen if any(words in text for text in f["texts"])]
    if len(found) != 1:
        raise AssertionError(f"{len(found)} figures show {words!r}")
    return found[0]


@pytest.fixture
def index(tmp_path):
    # Imported here: test__registry.py's copy of the collection takes this file without the helpers of the fleet's tests.
    from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._fleet._compare_runs import fleet_run

    root = str(tmp_path / "results")

    def build(runs: list[tuple]) -> object:
        for number, (run, values, kwargs) in enumerate(runs, 1):
            fleet_run(root, run, number, values, **kwargs)
        _index.rebuild(root)
        return SqliteStore(os.path.join(root, "pts-history.sqlite"), readonly=True)

    build.root = root
    return build
