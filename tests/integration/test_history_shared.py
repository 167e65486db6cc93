# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet remembers, end to end: real runs on loop devices writing into one PostgreSQL history (a real server,
tests/integration/pg.py, started here and stopped after) - two slices of one run at once from separate results trees;
two AWX jobs through ansible-runner one after the other with no shared results volume, the second comparing with the
first; a drive racked alone judged against earlier runs of its model; the server going away in the middle of a run.
No password anywhere a run writes or prints."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import time

import psycopg
import pytest
import yaml
from conftest import BIN, ROOT, LoopDevice, assert_exit_matches_fleet, load, playbook_env, text

import history_trees as trees
from pg import PostgreSQL

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _location
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._store import open_store

MODEL, FIRMWARE = "Loop 9000", "1.0"
# Held to 500 IOPS a job: a steady window however busy the machine is (only final values join a population), and
# rounds enough to find one when a busy moment upsets the first.
TINY = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"], "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 8,
        "pts_run_window": 3, "pts_precondition_capacity_multiple": 1, "pts_run_rate_iops": 500}


@pytest.fixture(scope="module")
def server():
    if os.geteuid() != 0:
        pytest.fail("the integration tests need root (loop devices; PostgreSQL is started as another user)")
    cluster = PostgreSQL()
    try:
        yield cluster
    finally:
        cluster.close()


def database(server: PostgreSQL, name: str) -> str:
    """A database of the test's own (its URL, with the password in it)."""
    return server.new_database(name)


def described(tmp, device: LoopDevice, name: str, serial: str) -> dict:
    """A pts_devices entry for a loop device that calls itself a Loop 9000, firmware 1.0."""
    description = tmp / f"{name}.dsc"
    description.write_text(f"model: {MODEL}\nserial: {serial}\nfirmware: {FIRMWARE}\n")
    return {"path": device.path, "name": name, "backing_file": device.image, "description_file": str(description)}


def host_vars(tmp, host: str, devices: list[dict]) -> dict:
    return {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
            "pts_run_remote_dir": str(tmp / "remote" / host), "pts_devices": devices}


def playbook(tmp, name: str, inventory: dict, extra: dict, results: str, env: dict | None = None,
             args: tuple = (), background: bool = False):
    path = tmp / f"inventory-{name}.yml"
    path.write_text(yaml.safe_dump(inventory))
    environment = playbook_env(tmp, ANSIBLE_LOCAL_TEMP=str(tmp / f"local-{name}"),
                               ANSIBLE_REMOTE_TMP=str(tmp / f"remote-tmp-{name}"), PTS_RESULTS_DIR=results,
                               PTS_REPORT_FORMATS="html", **(env or {}))
    environment.pop("PTS_RUN_ID", None)
    command = [os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(path), "-e", json.dumps(extra),
               *args]
    log = open(tmp / f"{name}.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
    proc = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, text=True)
    if background:
        return proc, log
    rc = proc.wait(timeout=900)
    log.close()
    return rc, (tmp / f"{name}.log").read_text()


def controller_playbook(tmp, name: str, extra: dict, results: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """report.yml or compare.yml on the controller alone."""
    inventory = tmp / "localhost.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {"ansible_connection": "local"}}}}))
    environment = playbook_env(tmp, ANSIBLE_LOCAL_TEMP=str(tmp / "local-controller"),
                               ANSIBLE_REMOTE_TMP=str(tmp / "remote-controller"), PTS_RESULTS_DIR=results,
                               PTS_REPORT_FORMATS="html", **(env or {}))
    environment.pop("PTS_RUN_ID", None)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), f"playbooks/{name}.yml", "-i", str(inventory),
                           "-e", json.dumps(extra)], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=600, check=False)
    (tmp / f"{name}-{int(time.time() * 1000)}.log").write_text(proc.stdout + proc.stderr)
    return proc


def rows(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()


def assert_no_secret(server: PostgreSQL, *places: str) -> None:
    """Neither form of the password in any file under these directories, nor in these texts."""
    secrets = (server.password, server.quoted_password())
    for place in places:
        if os.path.isdir(place):
            for path in glob.glob(os.path.join(place, "**", "*"), recursive=True):
                if os.path.isfile(path) and not os.path.islink(path):
                    with open(path, "rb") as handle:
                        data = handle.read()
                    assert not any(s.encode() in data for s in secrets), f"the password is in {path}"
        else:
            assert not any(s in place for s in secrets), "the password is in the output"


def test_two_slices_of_one_run_write_at_once_and_both_land_whole(server, tmp_path):
    """AWX job slices on two execution nodes: one run id, each slice its own hosts and its own results tree (no
    shared volume), both writing into the history as they finish, at once."""
    url = database(server, "slices")
    devices = {host: LoopDevice(tmp_path) for host in ("s-a", "s-b")}
    try:
        started = {}
        for host, device in devices.items():
            inventory = {"all": {"hosts": {host: host_vars(tmp_path, host, [
                described(tmp_path, device, "bay0", f"SL-{host}")])}}}
            started[host] = playbook(tmp_path, f"slice-{host}", inventory,
                                     dict(TINY, pts_run_id="sliced-39", pts_fleet_fail_on=[], pts_history_url=url),
                                     str(tmp_path / f"node-{host}"), background=True)
        codes = {host: proc.wait(timeout=900) for host, (proc, dummy) in started.items()}
    finally:
        for device in devices.values():
            device.detach()
    for host, (dummy, log) in started.items():
        log.close()
        output = (tmp_path / f"slice-{host}.log").read_text()
        run_dir = str(tmp_path / f"node-{host}" / "sliced-39")
        summary = assert_exit_matches_fleet(codes[host], run_dir, output)
        assert summary["history"]["written"] is True, output[-3000:]
        fleet = text(os.path.join(run_dir, "fleet.md"))
        assert "This run was written into the history `postgresql://pts@127.0.0.1:" in fleet
        assert_no_secret(server, output, str(tmp_path / f"node-{host}"))
    # Whole: each slice's five rows, neither dropping the other's host (its tree does not hold it).
    found = rows(url, "SELECT host, COUNT(*) FROM figures WHERE run_id = 'sliced-39' GROUP BY host ORDER BY host")
    assert found == [("s-a", 5), ("s-b", 5)]
    assert rows(url, "SELECT drives FROM runs WHERE run_id = 'sliced-39'") == [(2,)]


def awx_job(tmp, name: str, devices: list[dict], extravars: dict, envvars: dict) -> dict:
    """An AWX job through ansible-runner: a project wrapping the collection's playbook, its own private data
    directory (AWX deletes it), the credential's environment; returns rc, stdout and the artifacts."""
    data = tmp / name
    for folder in ("project", "inventory", "env"):
        (data / folder).mkdir(parents=True)
    (data / "project" / "pts.yml").write_text(yaml.safe_dump([{"name": "The fleetqual.pts PTS",
                                                               "ansible.builtin.import_playbook": "fleetqual.pts.pts"}]))
    (data / "inventory" / "hosts.yml").write_text(yaml.safe_dump({"all": {"hosts": {"node": host_vars(
        tmp, "node", devices)}}}))
    (data / "env" / "extravars").write_text(yaml.safe_dump(dict(TINY, pts_fleet_fail_on=[], **extravars)))
    env = {k: v for k, v in playbook_env(tmp).items() if k.startswith(("ANSIBLE_", "MPLCONFIGDIR"))
           and k not in ("ANSIBLE_CONFIG", "ANSIBLE_NOCOLOR", "ANSIBLE_FORCE_COLOR")}
    env.update(ANSIBLE_LOCAL_TEMP=str(tmp / f"local-{name}"), PTS_REPORT_FORMATS="html", **envvars)
    (data / "env" / "envvars").write_text(yaml.safe_dump(env))
    runner_env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    for key in ("PTS_RESULTS_DIR", "PTS_RUN_ID", "ANSIBLE_CONFIG", "PGPASSWORD", "PTS_HISTORY_URL"):
        runner_env.pop(key, None)
    subprocess.run([os.path.join(BIN, "ansible-runner"), "run", str(data), "-p", "pts.yml", "--ident", "1"],
                   cwd="/", env=runner_env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, timeout=900,
                   check=False)
    artifacts = data / "artifacts" / "1"
    stats, events = {}, ""
    for path in glob.glob(str(artifacts / "job_events" / "*.json")):
        with open(path, encoding="utf-8") as handle:
            events += handle.read()
        event = load(path)
        if event.get("event") == "playbook_on_stats":
            stats = event["event_data"].get("artifact_data") or {}
    return {"rc": int((artifacts / "rc").read_text().strip()), "stdout": (artifacts / "stdout").read_text(),
            "events": events, "artifacts": stats}


def test_two_awx_jobs_without_a_shared_volume_the_second_compares_with_the_first(server, tmp_path):
    url = database(server, "awx")
    no_password = url.replace(":" + server.quoted_password(), "")
    device = LoopDevice(tmp_path)
    jobs = []
    try:
        for number in (1, 2):
            # AWX's credential injects the password into the job's environment; the URL carries none.
            jobs.append(awx_job(tmp_path, f"job{number}", [described(tmp_path, device, "bay0", "AWX-0001")],
                                {"pts_results_dir": str(tmp_path / f"volume-{number}"), "pts_history_url": no_password},
                                {"PGPASSWORD": server.password}))
    finally:
        device.detach()
    runs = []
    for number, job in enumerate(jobs, 1):
        run_id = job["artifacts"].get("pts_run_id")
        assert run_id, job["stdout"][-3000:]
        run_dir = str(tmp_path / f"volume-{number}" / run_id)
        summary = assert_exit_matches_fleet(job["rc"], run_dir, job["stdout"])
        assert summary["history"]["written"] is True
        # What AWX keeps of the job (its stdout and events) and the results; ansible-runner's own record of the
        # environment it was given (artifacts/<id>/command) is AWX's, as is the credential.
        assert_no_secret(server, job["stdout"], job["events"], str(tmp_path / f"volume-{number}"))
        runs.append((run_id, run_dir))
    (first, first_dir), (second, second_dir) = runs
    # Only a final figure (a steady window) joins a population: the first job's must be one for the second to count it.
    first_iops = load(os.path.join(first_dir, "node", "bay0", "result.json"))["tests"]["iops"]
    assert first_iops["status"] == "steady", first_iops.get("status")
    assert not os.path.exists(os.path.join(str(tmp_path / "volume-2"), first))  # nothing of job 1 on job 2's volume
    first_report = text(os.path.join(first_dir, "node", "bay0", "report.md"))
    assert re.search(r"Against the fleet's memory: no earlier (quick|full)-profile run of .* in the history `postgresql://pts@",
                     first_report), first_report
    report = text(os.path.join(second_dir, "node", "bay0", "report.md"))
    summary_page = report[:report.index("## Contents")]
    name = f"{first}-vs-{second}-Loop_9000"
    assert f"History: run `{first}` (" in summary_page and f"../../../compare/{name}/compare.html" in summary_page
    assert f"every earlier quick-profile run of {MODEL} / {FIRMWARE} in the history `{no_password}` - 1 run" in \
        summary_page and "| 4k random write (IOPS) |" in summary_page
    fleet = text(os.path.join(second_dir, "fleet.md"))
    history = fleet[fleet.index("## History"):]
    assert f"- [{name}](../compare/{name}/compare.html): " in history, history
    assert f"### {MODEL} / {FIRMWARE}, quick profile: 1 earlier run" in history
    compared = load(os.path.join(str(tmp_path / "volume-2"), "compare", name, "compare.json"))
    assert compared["baseline"]["runs"] == [first] and compared["candidate"]["runs"] == [second]
    # compare.yml from a third controller with nothing on disk but an empty results root: the history alone.
    elsewhere = tmp_path / "third"
    elsewhere.mkdir()
    proc = controller_playbook(tmp_path, "compare", {"pts_compare_baseline_run": first, "pts_compare_candidate_run":
                                                     second, "pts_compare_tolerance_pct": 1000,
                                                     "pts_history_url": no_password}, str(elsewhere),
                               {"PGPASSWORD": server.password})
    assert proc.returncode == 0 and "0 REGRESSION, 0 IMPROVEMENT, 1 SAME" in proc.stdout, proc.stdout[-3000:]
    assert_no_secret(server, proc.stdout + proc.stderr, str(elsewhere))


def test_a_drive_racked_alone_is_judged_against_earlier_runs_of_its_model(server, tmp_path):
    url = database(server, "lone")
    no_password = url.replace(":" + server.quoted_password(), "")
    # The fleet's memory: twelve earlier quick runs of the model far faster than a loop device, three full ones that
    # never count in a quick drive's population, and another firmware.
    seed = str(tmp_path / "earlier")
    made = [trees.run(seed, f"earlier-{n:02d}", trees.day(n), [{"drive": "bay0", "serial": f"E{n}", "model": MODEL,
                                                                "firmware": FIRMWARE,
                                                                "figures": {"iops_4k_write": 9.0e6 + n}}], quick=True)
            for n in range(1, 13)]
    made += [trees.run(seed, f"full-{n}", trees.day(n + 12), [{"drive": "bay0", "serial": f"F{n}", "model": MODEL,
                                                               "firmware": FIRMWARE, "figures": {"iops_4k_write": 1.0}}])
             for n in range(1, 4)]
    made.append(trees.run(seed, "fw2", trees.day(20), [{"drive": "bay0", "serial": "W", "model": MODEL, "firmware": "2.0",
                                                        "figures": {"iops_4k_write": 1.0}}], quick=True))
    assert _index.index_runs(made, _location.resolve(url))["rows"] == 16 * 5
    # The password as a vaulted variable: pts_history_password in the inventory, encrypted.
    vault_password = tmp_path / "vault-password"
    vault_password.write_text("vault-pass-39\n")
    encrypted = subprocess.run([os.path.join(BIN, "ansible-vault"), "encrypt_string", "--vault-password-file",
                                str(vault_password), server.password, "--name", "pts_history_password"],
                               capture_output=True, text=True, check=True).stdout
    group_vars = tmp_path / "group_vars"
    group_vars.mkdir()
    (group_vars / "all.yml").write_text(encrypted)
    device = LoopDevice(tmp_path)
    try:
        inventory = {"all": {"hosts": {"localhost": host_vars(tmp_path, "localhost", [
            described(tmp_path, device, "victim", "LONE-0001")])}}}
        rule = {"name": "loop 9000", "model": MODEL, "population_percentile": 5, "population_min_size": 10}
        rc, output = playbook(tmp_path, "lone", inventory,
                              dict(TINY, pts_run_id="lone-1", pts_history_url=no_password, pts_acceptance=[rule],
                                   pts_fleet_fail_on=["FAIL"]),
                              str(tmp_path / "results"), args=("--vault-password-file", str(vault_password)))
    finally:
        device.detach()
    run_dir = str(tmp_path / "results" / "lone-1")
    summary = assert_exit_matches_fleet(rc, run_dir, output)
    (drive,) = summary["drives"]
    assert drive["verdict"] == "FAIL" and rc != 0, output[-3000:]
    (check,) = [c for c in drive["checks"] if c["criterion"] == "population_percentile iops_4k_write"]
    assert not check["passed"] and check["population"] == 12 and check["limit"] == pytest.approx(9.0e6 + 1.55)
    assert "misses the fleet's 5th percentile 9,000,001." in check["text"] and "12 earlier Loop 9000 / 1.0 " \
        "measurement(s), quick profile" in check["text"]
    population = drive["population"]
    assert (population["runs"], population["from"], population["to"], population["figures"]["iops_4k_write"]["n"]) \
        == (12, trees.day(1), trees.day(12), 12)
    assert [o["against"] for o in drive["outliers"]] == ["population"]
    fleet = text(os.path.join(run_dir, "fleet.md"))
    history = fleet[fleet.index("## History"):]
    assert f"### {MODEL} / {FIRMWARE}, quick profile: 12 earlier runs, 2026-10-01 – 2026-10-12" in history
    assert "| 4k random write (IOPS) | higher | 12 | 9,000,006 | 9,000,002 – 9,000,011 |" in history
    assert "- ⚑ **localhost/victim**: 4k write IOPS" in history and "12 earlier measurements in 12 run(s)" in history
    report = text(os.path.join(run_dir, "localhost", "victim", "report.md"))
    assert f"every earlier quick-profile run of {MODEL} / {FIRMWARE} in the history `{no_password}` - 12 runs, " \
           "2026-10-01 – 2026-10-12" in report
    assert os.path.exists(os.path.join(run_dir, "fleet.html")) and "Against the fleet" in text(
        os.path.join(run_dir, "fleet.html"))
    assert_no_secret(server, output, str(tmp_path / "results"))
    assert rows(url, "SELECT verdict, verdict_source FROM figures WHERE run_id = 'lone-1' AND figure = "
                     "'iops_4k_write'") == [("FAIL", "fleet")]


def test_the_server_going_away_mid_run(server, tmp_path):
    url = database(server, "gone")
    no_password = url.replace(":" + server.quoted_password(), "")
    open_store(_location.resolve(url), None).close()  # the schema, empty
    results = str(tmp_path / "results")
    device = LoopDevice(tmp_path)
    env = {"PGPASSWORD": server.password}
    try:
        inventory = {"all": {"hosts": {"localhost": host_vars(tmp_path, "localhost", [
            described(tmp_path, device, "victim", "GONE-0001")])}}}
        proc, log = playbook(tmp_path, "gone", inventory,
                             dict(TINY, pts_run_id="gone-1", pts_history_url=no_password, pts_fleet_fail_on=[],
                                  pts_run_max_rounds=6, pts_run_window=5),
                             results, env=env, background=True)
        first_round = os.path.join(results, "gone-1", "localhost", "victim", "iops", "round-01.json")
        deadline = time.monotonic() + 600
        while not os.path.exists(first_round) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert os.path.exists(first_round), (tmp_path / "gone.log").read_text()[-3000:]
        server.stop()  # mid-run: the drive is still in its rounds
        try:
            rc = proc.wait(timeout=900)
        finally:
            log.close()
    finally:
        device.detach()
        if not server.running():
            server.start()
    output = (tmp_path / "gone.log").read_text()
    run_dir = os.path.join(results, "gone-1")
    summary = assert_exit_matches_fleet(rc, run_dir, output)
    # The results stay on disk; the summary says the history was not written, and why; the exit status follows
    # pts_fleet_fail_on ([]: the verdicts fail nothing) - the history changes none of it.
    assert summary["failed"] is False and rc == 0, output[-3000:]
    assert summary["history"]["written"] is False and "could not connect" in summary["history"]["error"]
    fleet = text(os.path.join(run_dir, "fleet.md"))
    assert f"**This run was not written into the history** `{no_password}`: {no_password}: could not connect" in fleet
    assert "the run was not written into the history" in output
    assert glob.glob(os.path.join(run_dir, "localhost", "victim", "iops", "round-0*.json"))
    assert os.path.exists(os.path.join(run_dir, "localhost", "victim", "result.json"))
    report = text(os.path.join(run_dir, "localhost", "victim", "report.md"))
    assert "could not be read**" in report
    assert rows(url, "SELECT COUNT(*) FROM figures") == [(0,)]
    # The server is back: report.yml writes the run into the history from the results on disk.
    proc = controller_playbook(tmp_path, "report", {"pts_run_id": "gone-1", "pts_history_url": no_password,
                                                    "pts_report_formats": []}, results, env)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert f"history index: {no_password}" in proc.stdout
    assert rows(url, "SELECT COUNT(*), MIN(verdict_source) FROM figures WHERE run_id = 'gone-1'") == [(5, "fleet")]
    report = text(os.path.join(run_dir, "localhost", "victim", "report.md"))
    assert "could not be read**" not in report
    assert f"no earlier quick-profile run of {MODEL} / {FIRMWARE} in the history `{no_password}`" in report
    assert_no_secret(server, output, proc.stdout + proc.stderr, results)
