# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Root follows nothing it did not make (issue 43): a local user (uid 65534, by setpriv) who can write part of a
results tree plants links, FIFOs and swaps in it, and root runs playbooks/report.yml, fleet_summary.yml and
compare.yml over it as a lab or AWX would. Nothing outside the tree is read into it or written (sha256 of every file
outside before and after); each refusal names the level and why; the run the user could not touch is still reported.
Files that are not what they claim (a sparse 300 MB round file, a nesting bomb, a FIFO, a round fio aborted in, a
result.json whose verdict is a string) fail their drive alone, naming the file."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
import yaml
from conftest import BIN, ROOT, assert_exit_matches_fleet, playbook_env

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown

NOBODY = 65534
SECRET = "SECRET-MODEL-T01"
FIXTURE = os.path.join(ROOT, "tests", "unit", "plugins", "module_utils", "fixtures", "fio-3.33-iops-round.json")
SETTINGS = {"profile": "quick", "round_seconds": 0.5, "max_rounds": 8, "window": 5, "max_data_excursion_pct": 20.0,
            "max_slope_excursion_pct": 10.0, "ioengine": "libaio", "notes": [], "numjobs": 2, "iodepth": 16,
            "mixes": [100, 65, 0], "block_sizes": [65536, 4096], "dv": {"mix": 0, "bs": 4096, "metric": "iops"}}


def as_nobody(script: str, wait: bool = True):
    """A shell script run as uid/gid 65534 with no supplementary groups: the local user of the threat model."""
    command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sh", "-c", script]
    if not wait:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run(command, check=True, capture_output=True, text=True)


def file_run(run_dir: str, host: str = "h1", drives: tuple = ("d1",), rounds: int = 5) -> None:
    """A finished run as the collection files it: a plan, and per drive its identity, purge and IOPS rounds (a real
    fio 3.33 round)."""
    with open(FIXTURE, encoding="utf-8") as handle:
        text = handle.read()
    _results.file_payload(run_dir, host, {"pts_plan": {
        "tests": [{"name": "iops"}], "listed": [{"path": f"/dev/{d}", "name": d} for d in drives],
        "acceptance": [{"name": "loop", "model": "Loop*", "min_iops_4k_write": 1}], "drives": [],
        "fleet": {"fail_on": ["FAIL"]}}})
    for drive in drives:
        _results.file_payload(run_dir, host, {"pts_drives": [{
            "key": drive, "path": f"/dev/{drive}", "resolved": f"/dev/{drive}", "size_bytes": 1 << 28,
            "logical_block_size": 512, "physical_block_size": 512, "interface": "loop", "vendor": "Linux",
            "model": "Loop 9000", "serial": f"S-{drive}", "firmware": "1.0", "spec": {"path": f"/dev/{drive}"}}],
            "pts_host": {"hostname": host}})
        context = {"drive": drive, "test": "iops", "settings": SETTINGS}
        _results.file_payload(run_dir, host, {"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                              "pts_context": context})
        for number in range(1, rounds + 1):
            fio = dict(_fio.parse(text), job_text=f"# round {number}\n")
            _results.file_payload(run_dir, host, {"pts_fio": fio, "pts_fio_raw": "{}",
                                                  "pts_context": dict(context, phase="round", round=number)})


def sha256_of_tree(top: str, skip: tuple = ()) -> dict:
    found = {}
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                found[path] = hashlib.sha256(handle.read()).hexdigest()
    return found


def holds_secret(top: str) -> list[str]:
    found = []
    for root, dummy, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) < 64 << 20:
                with open(path, "rb") as handle:
                    if SECRET.encode() in handle.read():
                        found.append(path)
    return found


class Lab:
    """/tmp/pts43-*/ (0755, so uid 65534 reaches its part): the root-only things outside every tree, a results root
    root owns with one run it alone wrote (R1) and one run directory the user was given (R2), and a second results
    root the user owns outright."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.base = tempfile.mkdtemp(prefix="pts43-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.secret = os.path.join(self.base, "secret.json")
        with open(self.secret, "w", encoding="utf-8") as handle:
            json.dump({"schema": 1, "drive": {"key": "d1", "model": SECRET, "serial": SECRET}, "host": "h1"}, handle)
        os.chmod(self.secret, 0o600)
        self.victim = os.path.join(self.base, "victim")
        os.makedirs(self.victim)
        for name in ("fleet.md", "report.md", "compare.md", "round-01.png"):
            with open(os.path.join(self.victim, name), "w", encoding="utf-8") as handle:
                handle.write(f"the victim's own {name}\n")
        os.chmod(self.victim, 0o700)
        self.results = os.path.join(self.base, "results")
        file_run(os.path.join(self.results, "R1"))
        self.theirs = os.path.join(self.base, "theirs")
        file_run(os.path.join(self.theirs, "R3"))
        self.count = 0

    def outside(self) -> dict:
        return sha256_of_tree(self.base, skip=(self.results, self.theirs))

    def playbook(self, name: str, extra: dict) -> tuple[subprocess.CompletedProcess, float]:
        self.count += 1
        inventory = self.tmp / "localhost.yml"
        inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {"ansible_connection": "local"}}}}))
        started = time.time()
        proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), f"playbooks/{name}.yml", "-i", str(inventory),
                               "-e", json.dumps(extra)], cwd=ROOT, env=playbook_env(self.tmp, PTS_REPORT_FORMATS="html"),
                              capture_output=True, text=True, timeout=300, check=False)
        with open(self.tmp / f"{name}-{self.count}.log", "w", encoding="utf-8") as log:
            log.write(proc.stdout + proc.stderr)
        return proc, started


@pytest.fixture
def lab(tmp_path):
    made = Lab(tmp_path)
    yield made
    shutil.rmtree(made.base, ignore_errors=True)


def flat(proc: subprocess.CompletedProcess) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


def test_a_planted_tree_cannot_make_root_read_or_write_outside_it(lab):
    # R2: a run directory another user was given; that user plants links to root's files and directories in it, and
    # keeps swapping its drive's plots directory for a link while root works.
    r2 = os.path.join(lab.results, "R2")
    file_run(r2)
    for root, dirs, files in os.walk(r2):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), NOBODY, NOBODY)
    os.chown(r2, NOBODY, NOBODY)
    drive = f"{r2}/h1/d1"
    as_nobody(f"rm -f {drive}/drive.json && ln -s {lab.secret} {drive}/drive.json && "
              f"ln -s {lab.victim} {drive}/plots && ln -s {lab.victim}/fleet.md {r2}/fleet.md && "
              f"mv {r2}/h1 {r2}/h1.real && ln -s {r2}/h1.real {r2}/h1 && mkfifo {r2}/h1.real/d1/iops/round-06.json")
    swapper = as_nobody(f"while :; do mv {drive}/plots {drive}/p.x; mkdir {drive}/plots; rmdir {drive}/plots; "
                        f"mv {drive}/p.x {drive}/plots; done", wait=False)
    # The second results root is the user's own: a history index and a comparison directory planted as links.
    os.chown(lab.theirs, NOBODY, NOBODY)
    as_nobody(f"ln -s {lab.victim}/index.sqlite {lab.theirs}/pts-history.sqlite && mkdir {lab.theirs}/compare && "
              f"ln -s {lab.victim} {lab.theirs}/compare/R1-vs-R3")
    before = lab.outside()
    try:
        report, dummy = lab.playbook("report", {"pts_results_dir": lab.results})
        summary, started = lab.playbook("fleet_summary", {"pts_results_dir": lab.results, "pts_run_id": "R2"})
        theirs_report, dummy = lab.playbook("report", {"pts_results_dir": lab.theirs})
        theirs_summary, theirs_started = lab.playbook("fleet_summary", {"pts_results_dir": lab.theirs,
                                                                        "pts_run_id": "R3"})
        compare, dummy = lab.playbook("compare", {"pts_results_dir": lab.theirs, "pts_compare_baseline_run": "R1",
                                                  "pts_compare_candidate_run": "R3"})
    finally:
        swapper.kill()
        swapper.wait()

    assert lab.outside() == before
    assert holds_secret(lab.results) == [] and holds_secret(lab.theirs) == []
    assert not os.path.exists(os.path.join(lab.victim, "index.sqlite"))
    # R1 (root's alone) is reported; R2 is refused at its own level, with why.
    assert report.returncode != 0
    assert os.path.isfile(os.path.join(lab.results, "R1", "h1", "d1", "report.md"))
    assert (f"{r2}: it is owned by uid 65534, not root: root reads and writes nothing that another user could swap "
            "for a link") in flat(report)
    assert summary.returncode != 0 and f"{r2}: it is owned by uid 65534, not root" in flat(summary)
    assert_exit_matches_fleet(summary.returncode, r2, summary.stdout + summary.stderr, started)
    for proc in (theirs_report, theirs_summary, compare):
        assert proc.returncode != 0
        assert f"'{lab.theirs}': {lab.theirs}: it is owned by uid 65534, not root" in flat(proc), flat(proc)[-2000:]
    assert_exit_matches_fleet(theirs_summary.returncode, os.path.join(lab.theirs, "R3"),
                              theirs_summary.stdout + theirs_summary.stderr, theirs_started)
    assert sorted(os.listdir(lab.theirs)) == ["R3", "compare", "pts-history.sqlite"]


def test_a_drive_directory_another_user_owns_fails_that_drive_alone(lab):
    r1 = os.path.join(lab.results, "R1")
    file_run(r1, drives=("d1", "d2"))
    os.chown(os.path.join(r1, "h1", "d2"), NOBODY, NOBODY)
    as_nobody(f"ln -s {lab.victim} {r1}/h1/d2/plots && rm {r1}/h1/d2/drive.json && "
              f"ln -s {lab.secret} {r1}/h1/d2/drive.json")
    before = lab.outside()
    summary, started = lab.playbook("fleet_summary", {"pts_results_dir": lab.results, "pts_run_id": "R1"})
    fleet = assert_exit_matches_fleet(summary.returncode, r1, summary.stdout + summary.stderr, started)
    assert lab.outside() == before and holds_secret(lab.results) == []
    verdicts = {d["id"]: (d["verdict"], d["reasons"]) for d in fleet["drives"]}
    assert verdicts["h1/d1"] == ("PASS", [])
    assert verdicts["h1/d2"][0] == "INCOMPLETE"
    assert verdicts["h1/d2"][1][0].startswith(f"its results cannot be read: {r1}/h1/d2: it is owned by uid 65534")
    assert summary.returncode != 0


def test_files_that_are_not_what_they_claim_fail_their_drive_alone_naming_the_file(lab):
    r1 = os.path.join(lab.results, "R1")
    kinds = ("sparse", "bomb", "fifo", "aborted", "string")
    file_run(r1, drives=("good",) + kinds)
    spoiled = {}
    for kind in kinds:
        path = os.path.join(r1, "h1", kind, "iops", "round-03.json")
        if kind == "sparse":
            with open(path, "r+b") as handle:
                handle.truncate(300 << 20)
        elif kind == "bomb":
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("[" * 100000 + "]" * 100000)
        elif kind == "fifo":
            os.unlink(path)
            os.mkfifo(path)
        elif kind == "aborted":
            # As f5a0f10 recorded a round fio aborted in: every figure 0.0.
            record = _results.read_json(path)
            for job in record["fio"]["jobs"]:
                for direction in ("read", "write"):
                    job[direction].update(iops=0.0, bw_bytes=0.0, io_bytes=0, total_ios=0)
            _results.atomic_write_json(path, record)
        else:
            path = os.path.join(r1, "h1", kind, "result.json")
        spoiled[kind] = path
    # A fresh result.json whose verdict is a string: judged from the round files again, not as it claims.
    first, started = lab.playbook("fleet_summary", {"pts_results_dir": lab.results, "pts_run_id": "R1"})
    assert_exit_matches_fleet(first.returncode, r1, first.stdout + first.stderr, started)
    model = _results.read_json(spoiled["string"])
    model["verdict"] = "PASS"
    _results.atomic_write_json(spoiled["string"], model)

    summary, started = lab.playbook("fleet_summary", {"pts_results_dir": lab.results, "pts_run_id": "R1"})
    fleet = assert_exit_matches_fleet(summary.returncode, r1, summary.stdout + summary.stderr, started)
    assert isinstance(_results.read_json(spoiled["string"])["verdict"], dict)
    report, dummy = lab.playbook("report", {"pts_results_dir": lab.results, "pts_run_id": "R1"})
    said = flat(report)
    whys = {"sparse": "314,572,800 bytes, more than the 67,108,864 bytes allowed for it: not read",
            "bomb": "JSON nested deeper than 64 levels: not read", "fifo": "is a FIFO, not a regular file: not read",
            "aborted": "fio job 'iops-r100-65536' completed no I/O (a run fio aborted or in which it wrote nothing): "
                       "a failed round, not a figure of 0"}
    verdicts = {d["drive"]: d for d in fleet["drives"]}
    for kind, why in whys.items():
        assert f"{spoiled[kind]}: {why}" in said, said[-3000:]
        assert verdicts[kind]["verdict"] == "INCOMPLETE"
        assert verdicts[kind]["reasons"] == [f"its results cannot be read: {spoiled[kind]}: {why}"]
    assert verdicts["good"]["verdict"] == "PASS" and verdicts["string"]["verdict"] == "PASS"
    assert fleet["counts"] == {"PASS": 3, "FAIL": 0, "INCOMPLETE": 4} and summary.returncode != 0  # d1 of the lab
    assert os.path.isfile(os.path.join(r1, "h1", "good", "report.html")) and report.returncode != 0
    with open(os.path.join(r1, "fleet.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    # fleet.md shows a path as text, never markup: an "_" of a temporary directory is escaped there.
    assert _markdown.text(f"its results cannot be read: {spoiled['fifo']}: is a FIFO") in markdown
