# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet over real SSH: three hosts (network namespaces with sshd), two racks, two drives on one host.

`-l rack12` runs two of the hosts; one of them loses its sshd mid-run. Verdicts, fleet.md, fleet.json and
junit.xml are checked against the round files, and the exit code against the verdicts.
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import subprocess
import time
from xml.etree import ElementTree

import pytest
import yaml
from conftest import BIN, LoopDevice, ROOT, assert_exit_matches_fleet, load, playbook_env
from netns import SshHost, cleanup_run_netns, make_key

TINY = {"pts_run_round_seconds": 0.5, "pts_run_max_rounds": 6, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"], "pts_run_reconnect_timeout_s": 10}
WINDOW = 5


def expected_verdict(drive_dir: str, limit: float) -> str:
    """The verdict the rule gives, computed here from fio's own output of every round."""
    raws = sorted(p for p in os.listdir(os.path.join(drive_dir, "iops")) if p.startswith("round-") and p.endswith(".raw.json"))
    dv = []
    for name in raws:
        (job,) = [j for j in load(os.path.join(drive_dir, "iops", name))["jobs"] if j["jobname"] == "iops-r0-4096"]
        dv.append(job["read"]["iops"] + job["write"]["iops"])
    window = dv[-WINDOW:]
    avg = statistics.fmean(window)
    slope = statistics.linear_regression(range(len(dv) - WINDOW + 1, len(dv) + 1), window).slope
    steady = len(dv) >= WINDOW and 100 * (max(window) - min(window)) / avg <= 20 and 100 * abs(slope) * 4 / avg <= 10
    return "PASS" if steady and avg >= limit else "FAIL"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    key, public = make_key(str(tmp))
    hosts, devices = {}, {}
    try:
        for index, name in enumerate(("stor-12-01", "stor-12-02", "stor-13-01"), 1):
            hosts[name] = SshHost(name, index, str(tmp / "hosts"), public)
        for name, count in (("stor-12-01", 2), ("stor-12-02", 1), ("stor-13-01", 1)):
            for number in range(count):
                folder = tmp / "drives" / f"{name}-{number}"
                folder.mkdir(parents=True)
                devices.setdefault(name, []).append(LoopDevice(folder, "64M"))
        yield tmp, key, hosts, devices
    finally:
        for drives in devices.values():
            for device in drives:
                device.detach()
        for host in hosts.values():
            host.teardown()
        cleanup_run_netns()


def _inventory(tmp, key, hosts, devices, limit_iops: float) -> str:
    def host_vars(name):
        return dict(hosts[name].inventory_vars(key), pts_run_remote_dir=str(tmp / "remote" / name),
                    pts_devices=[{"path": d.path, "name": f"bay{n}", "backing_file": d.image}
                                 for n, d in enumerate(devices[name])])
    inventory = {"all": {
        # The results hosts: stor-13-01 (outside the limit: reached by delegation) keeps the run; results-lost, no
        # inventory host but reached through its entry's connection variables, is stor-12-02's address, whose sshd is
        # stopped mid-run, so publishing there fails - a run error the summary names. (A results host is never a
        # drive host of the run: stor-12-02 itself stays one.)
        "vars": {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"],
                 "pts_publish": [{"host": "stor-13-01", "dest": str(tmp / "published")},
                                 {"host": "results-lost", "dest": str(tmp / "published-lost"),
                                  "connection": hosts["stor-12-02"].inventory_vars(key)}]},
        "children": {
            "rack12": {"hosts": {"stor-12-01": host_vars("stor-12-01"), "stor-12-02": host_vars("stor-12-02")},
                       "vars": {"pts_acceptance": [{"name": "lab loop", "model": "loop*",
                                                    "min_iops_4k_write": limit_iops}]}},
            "rack13": {"hosts": {"stor-13-01": host_vars("stor-13-01")}},
        }}}
    path = tmp / "hosts.yml"
    path.write_text(yaml.safe_dump(inventory))
    return str(path)


def test_a_rack_runs_at_once_a_lost_host_fails_only_its_drives(fleet):
    tmp, key, hosts, devices = fleet
    untouched = devices["stor-13-01"][0]
    before = untouched.checksum()
    limit = 1000.0
    inventory = _inventory(tmp, key, hosts, devices, limit)
    env = playbook_env(tmp, ANSIBLE_REMOTE_TMP="/tmp/.pts-it-ansible", PTS_RUN_ID="fleet-1", PTS_REPORT_FORMATS="html,pdf")
    results = tmp / "results" / "fleet-1"
    lost_round = results / "stor-12-02" / "bay0" / "iops" / "round-01.json"
    with open(tmp / "fleet.log", "w", encoding="utf-8") as log:
        run = subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", inventory,
                                "-l", "rack12", "-e", json.dumps(TINY)], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 600
        while not lost_round.exists():
            assert run.poll() is None and time.monotonic() < deadline, "stor-12-02 never finished a round"
            time.sleep(0.1)
        hosts["stor-12-02"].stop_sshd()  # unreachable from now on
        rc = run.wait(timeout=900)
    output = (tmp / "fleet.log").read_text(encoding="utf-8")

    # the exit code tells the pipeline: a lost host (and any FAIL/INCOMPLETE) fails the run
    assert rc != 0, output[-3000:]
    assert_exit_matches_fleet(rc, str(results), output)
    # -l rack12: the other rack was not touched at all
    assert not (results / "stor-13-01").exists()
    assert untouched.checksum() == before

    summary = load(results / "fleet.json")
    verdicts = {d["id"]: d for d in summary["drives"]}
    assert set(verdicts) == {"stor-12-01/bay0", "stor-12-01/bay1", "stor-12-02/bay0"}
    for drive in ("bay0", "bay1"):
        expected = expected_verdict(str(results / "stor-12-01" / drive), limit)
        assert verdicts[f"stor-12-01/{drive}"]["verdict"] == expected
    lost = verdicts["stor-12-02/bay0"]
    assert lost["verdict"] == "INCOMPLETE" and any("host lost" in r for r in lost["reasons"])
    assert summary["failed"] is True

    # both drives of stor-12-01 ran at the same time: their rounds overlap
    def span(drive):
        stamps = [load(results / "stor-12-01" / drive / "iops" / f)["recorded_at"]
                  for f in os.listdir(results / "stor-12-01" / drive / "iops") if f.startswith("round-")
                  and f.endswith(".json") and not f.endswith(".raw.json")]
        times = [datetime.datetime.fromisoformat(s) for s in stamps]
        return min(times), max(times)
    (a0, a1), (b0, b1) = span("bay0"), span("bay1")
    assert a0 < b1 and b0 < a1, "the two drives of one host ran one after the other"

    suite = ElementTree.parse(results / "junit.xml").getroot()
    cases = {(c.get("classname"), c.get("name")) for c in suite}
    for drive in ("stor-12-01.bay0", "stor-12-01.bay1", "stor-12-02.bay0"):
        assert (f"pts.{drive}", "verdict") in cases
    assert ("pts.stor-12-01.bay0", "min_iops_4k_write") in cases
    fleet_md = (results / "fleet.md").read_text(encoding="utf-8")
    for drive_id, drive in verdicts.items():
        host, bay = drive_id.split("/")
        row = next(line for line in fleet_md.splitlines() if line.startswith(f"| {host} | {bay} | "))
        label = drive.get("label") or drive["verdict"]
        assert f"| **{label}** |" in row and label.startswith(drive["verdict"])
    assert "host lost" in fleet_md
    # The fleet page links each drive's one-file report, which the callback made beside report.md.
    assert "[report](stor-12-01/bay0/report.html)" in fleet_md
    assert (results / "stor-12-01" / "bay0" / "report.html").is_file()

    # Published over SSH to the results host that answers, outside the limit: the whole run, as the judge left it
    # but for the summary the failed publishing rewrote; the lost results host is a run error with its reason.
    published = tmp / "published" / "fleet-1"
    assert load(published / "stor-12-01" / "bay0" / "result.json") == load(results / "stor-12-01" / "bay0" / "result.json")
    assert sorted(p.name for p in (published / "stor-12-01" / "bay0" / "iops").glob("round-*.json")) == \
        sorted(p.name for p in (results / "stor-12-01" / "bay0" / "iops").glob("round-*.json"))
    assert (published / "junit.xml").is_file() and (published / "fleet.md").is_file()
    assert any(e["host"] == "results-lost" and "was not published" in e["msg"] for e in summary["errors"])
    assert "## Run errors" in fleet_md and "the run was not published" in fleet_md
