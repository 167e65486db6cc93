# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""History and comparison end to end: two real runs on loop devices finishing at once into one results tree, one
drive (serial ACME-0001) under firmware 1.0, then under 2.0 with its rate throttled; both indexed by their fleet
summaries; playbooks/compare.yml by run ids and by model and firmware, its outputs and exit status; bad input named;
playbooks/report.yml rebuilds the same index."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest
import yaml
from conftest import BIN, ROOT, LoopDevice, playbook_env

# The cheapest run that still purges, preconditions and measures: one 4k random-write combination, two short rounds.
TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 2, "pts_run_window": 2,
        "pts_precondition_capacity_multiple": 1}
# The candidate is throttled far below what a loop device does: a regression no run-to-run noise can hide.
THROTTLED = dict(TINY, pts_run_rate_iops=200)
MODEL = "Loop 9000"


def environment(tmp, name: str, results: str) -> dict:
    env = playbook_env(tmp, ANSIBLE_LOCAL_TEMP=str(tmp / f"ansible-local-{name}"),
                       ANSIBLE_REMOTE_TMP=str(tmp / f"ansible-remote-{name}"), PTS_RESULTS_DIR=results,
                       PTS_REPORT_FORMATS="html")
    env.pop("PTS_RUN_ID", None)
    return env


def start_run(tmp, results: str, device: LoopDevice, run_id: str, firmware: str, extra: dict):
    description = tmp / f"{run_id}.dsc"
    description.write_text(f"model: {MODEL}\nserial: ACME-0001\nfirmware: {firmware}\n")
    inventory = tmp / f"inventory-{run_id}.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp / f"remote-{run_id}"), "pts_fleet_fail_on": [], "pts_allow_destroy": True,
        "pts_profile": "quick", "pts_devices": [{"path": device.path, "name": "victim", "backing_file": device.image,
                                                 "description_file": str(description)}]}}}}))
    log = open(tmp / f"playbook-{run_id}.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
    proc = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory),
                             "-e", json.dumps(dict(extra, pts_run_id=run_id))], cwd=ROOT,
                            env=environment(tmp, run_id, results), stdout=log, stderr=subprocess.STDOUT, text=True)
    return proc, log


class Tree:
    def __init__(self, tmp, results: str):
        self.tmp = tmp
        self.results = results
        self.database = os.path.join(results, "pts-history.sqlite")
        self.count = 0

    def playbook(self, name: str, extra: dict) -> subprocess.CompletedProcess:
        """A controller-only playbook (compare.yml, report.yml) on this results tree."""
        self.count += 1
        inventory = self.tmp / "localhost.yml"
        inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {"ansible_connection": "local"}}}}))
        proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), f"playbooks/{name}.yml", "-i", str(inventory),
                               "-e", json.dumps(extra)], cwd=ROOT, env=environment(self.tmp, "controller", self.results),
                              capture_output=True, text=True, timeout=300, check=False)
        with open(self.tmp / f"{name}-{self.count}.log", "w", encoding="utf-8") as log:
            log.write(proc.stdout + proc.stderr)
        return proc

    def rows(self) -> list[tuple]:
        conn = sqlite3.connect(self.database)
        try:
            return conn.execute("SELECT * FROM figures ORDER BY run_id, host, drive, figure").fetchall()
        finally:
            conn.close()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.fail("the integration tests need root (loop devices, blkdiscard, mount)")
    tmp = tmp_path_factory.mktemp("compare")
    results = str(tmp / "results")
    devices = [LoopDevice(tmp), LoopDevice(tmp)]
    try:
        # Both runs at once: their fleet summaries index them into one database within moments of each other.
        started = [start_run(tmp, results, devices[0], "fw1-run", "1.0", TINY),
                   start_run(tmp, results, devices[1], "fw2-run", "2.0", THROTTLED)]
        codes = [proc.wait(timeout=900) for proc, dummy in started]
    finally:
        for device in devices:
            device.detach()
    for dummy, log in started:
        log.close()
    assert codes == [0, 0], (tmp / "playbook-fw1-run.log").read_text()[-3000:] + \
        (tmp / "playbook-fw2-run.log").read_text()[-3000:]
    return Tree(tmp, results)


def read_json(path: str) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_every_finished_run_is_indexed(tree):
    rows = tree.rows()
    assert {(r[0], r[3]) for r in rows if r[4] is not None} == {("fw1-run", "iops_4k_write"),
                                                                ("fw2-run", "iops_4k_write")}
    assert len(rows) == 10  # one drive x five headline figures per run; the unmeasured ones without a value
    conn = sqlite3.connect(tree.database)
    conn.row_factory = sqlite3.Row
    (base,) = conn.execute("SELECT * FROM figures WHERE run_id = 'fw1-run' AND figure = 'iops_4k_write'").fetchall()
    conn.close()
    assert (base["serial"], base["model"], base["firmware"], base["host"], base["drive"]) == \
        ("ACME-0001", MODEL, "1.0", "localhost", "victim")
    assert base["profile"] == "quick" and base["verdict_source"] == "fleet" and base["verdict"] in ("PASS", "FAIL")
    fleet = read_json(os.path.join(tree.results, "fw1-run", "fleet.json"))
    assert base["value"] == fleet["drives"][0]["headline"]["iops_4k_write"]


def test_two_runs_within_a_tolerance_are_the_same(tree):
    proc = tree.playbook("compare", {"pts_compare_baseline_run": "fw1-run", "pts_compare_candidate_run": "fw2-run",
                                     "pts_compare_tolerance_pct": 1000})
    assert proc.returncode == 0, proc.stdout[-3000:]
    out = os.path.join(tree.results, "compare", "fw1-run-vs-fw2-run")
    assert "0 REGRESSION, 0 IMPROVEMENT, 1 SAME, 0 not compared (run fw1-run vs run fw2-run)" in proc.stdout
    result = read_json(os.path.join(out, "compare.json"))
    (group,) = result["groups"]
    (row,) = group["figures"]
    assert (group["model"], row["figure"], row["verdict"], row["tolerance_source"]) == \
        (MODEL, "iops_4k_write", "SAME", "given")
    assert row["delta_pct"] < -50  # the throttled candidate
    with open(os.path.join(out, "compare.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Exit status: **passes** — no figure regressed." in markdown
    assert "| 4k random write (IOPS) | higher |" in markdown and "| 1000.0 % (given) | **SAME** |" in markdown
    assert "- `pts_run_rate_iops`: 0 → 200" in markdown
    assert "### Serial ACME-0001 (Loop 9000)" in markdown  # one drive, two runs: its history
    assert os.path.exists(os.path.join(out, "compare.html"))
    assert sorted(os.listdir(os.path.join(out, "plots"))) == ["figures-01.png", "history.png", "rounds-01.png"]


def test_a_firmware_regression_fails_the_play(tree):
    selection = {"pts_compare_model": MODEL, "pts_compare_baseline_firmware": "1.0",
                 "pts_compare_candidate_firmware": "2.0"}
    proc = tree.playbook("compare", selection)
    assert proc.returncode != 0
    assert "1 REGRESSION, 0 IMPROVEMENT, 0 SAME" in proc.stdout and "regressed: Loop 9000: 4k random write" in proc.stdout
    out = os.path.join(tree.results, "compare", "Loop_9000-1.0-vs-2.0")
    result = read_json(os.path.join(out, "compare.json"))
    assert result["mode"] == "firmware" and result["failed"] is True
    assert result["baseline"]["runs"] == ["fw1-run"] and result["candidate"]["runs"] == ["fw2-run"]
    (row,) = result["groups"][0]["figures"]
    assert (row["verdict"], row["tolerance_pct"], row["tolerance_source"]) == ("REGRESSION", 5.0, "minimum")
    with open(os.path.join(out, "compare.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert markdown.startswith("# Comparison — Loop 9000 firmware 1.0 vs Loop 9000 firmware 2.0\n")
    assert "Exit status: **fails** — 1 figure regressed and `pts_compare_fail_on_regression` is true." in markdown
    # The same comparison for a report only: the play passes, the regression stands.
    proc = tree.playbook("compare", dict(selection, pts_compare_fail_on_regression=False))
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert read_json(os.path.join(out, "compare.json"))["counts"]["REGRESSION"] == 1


@pytest.mark.parametrize("extra, message", [
    ({"pts_compare_baseline_run": "fw1-run", "pts_compare_candidate_run": "fw2-run", "pts_compare_tolerance_pct": -1},
     "pts_compare_tolerance_pct=-1: must be a number ≥ 0"),
    ({"pts_compare_baseline_run": "nope", "pts_compare_candidate_run": "fw2-run"},
     "pts_compare_baseline_run=['nope']: run 'nope' is not indexed"),
])
def test_bad_input_is_named(tree, extra, message):
    # Every other selection error is named the same way (tests/unit/plugins/plugin_utils/test__compare.py).
    proc = tree.playbook("compare", extra)
    assert proc.returncode != 0 and message in proc.stdout + proc.stderr, proc.stdout[-3000:]
    assert "nothing was written" in proc.stdout + proc.stderr


def test_report_playbook_rebuilds_the_same_index(tree):
    before = tree.rows()
    os.unlink(tree.database)
    proc = tree.playbook("report", {"pts_report_formats": []})
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "history index: " + tree.database in proc.stdout
    assert tree.rows() == before


def test_report_playbook_moves_a_corrupt_index_aside_and_rebuilds_every_run(tree):
    before = tree.rows()
    with open(tree.database, "wb") as handle:
        handle.write(b"not a database\n" * 512)
    proc = tree.playbook("report", {"pts_report_formats": [], "pts_run_id": "fw1-run"})
    assert proc.returncode == 0, proc.stdout[-3000:]
    kept = [name for name in os.listdir(tree.results) if name.startswith("pts-history.sqlite.corrupt-")]
    assert len(kept) == 1, os.listdir(tree.results)
    with open(os.path.join(tree.results, kept[0]), "rb") as handle:
        assert handle.read() == b"not a database\n" * 512
    said = (f"the history index {tree.database} was not a sound database (file is not a database): kept as "
            f"{os.path.join(tree.results, kept[0])}, and rebuilt from every run of the results tree")
    assert said in " ".join((proc.stdout + proc.stderr).split()), proc.stdout[-3000:]
    # Every run, not only the one asked for: the new index started empty.
    assert tree.rows() == before
    compared = tree.playbook("compare", {"pts_compare_baseline_run": "fw1-run", "pts_compare_candidate_run": "fw2-run",
                                         "pts_compare_tolerance_pct": 1000})
    assert compared.returncode == 0 and "1 SAME" in compared.stdout, compared.stdout[-3000:]
