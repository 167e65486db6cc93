# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Publishing a run over one already there (the role's publish tasks, as the judge runs them, with a local results
host): a relaunch of the run id is never merged into an earlier attempt's copy, the same run replaces its copy, the
results directory keeps its mode, and nothing of the publishing is left behind on either side. And on an SSH results
host (a network namespace): a destination another user controls (a link, a directory it owns, a sticky one with its
link in it) is a failure naming the level, while that user swaps what it can for links; a read-only one says mkdir's
own error; a link where the run goes is kept aside, never followed; a whole run whose publishing was refused fails
with the run error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest
import yaml
from conftest import BIN, ROOT, assert_exit_matches_fleet, playbook_env, sh, sha256
from netns import SshHost, one_host


def _publish(tmp, run_dir, dest):
    playbook = tmp / "publish.yml"
    playbook.write_text(yaml.safe_dump([{
        "hosts": "localhost", "gather_facts": False,
        "tasks": [{"ansible.builtin.include_role": {"name": "fleetqual.pts.pts_run", "tasks_from": "publish"},
                   "vars": {"pts_run_dir": str(run_dir), "pts_run_publish": [{"host": "localhost", "dest": str(dest)}]}}],
    }]))
    env = playbook_env(tmp, TMPDIR=str(tmp / "controller-tmp"))
    os.makedirs(env["TMPDIR"], exist_ok=True)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "-e",
                           "ansible_python_interpreter=/usr/bin/python3", str(playbook)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert os.listdir(env["TMPDIR"]) == [], "the packed run is left on the controller"
    return proc


def _rounds(run):
    return sorted(p.name for p in (run / "h1" / "d" / "iops").glob("round-*.json"))


def test_a_relaunch_is_never_merged_into_an_earlier_attempts_copy(tmp_path):
    run = tmp_path / "results" / "R7"
    (run / "h1" / "d" / "iops").mkdir(parents=True)
    dest = tmp_path / "lab"
    dest.mkdir()
    os.chmod(dest, 0o2775)
    (run / ".pts-run-token").write_text("a" * 32)
    for number in range(1, 8):
        (run / "h1" / "d" / "iops" / f"round-{number:02d}.json").write_text(f'{{"attempt": 1, "round": {number}}}')
    _publish(tmp_path, run, dest)
    assert _rounds(dest / "R7") == [f"round-{n:02d}.json" for n in range(1, 8)]

    # The results tree was lost and the run id relaunched: another token, three rounds so far.
    for number in range(4, 8):
        (run / "h1" / "d" / "iops" / f"round-{number:02d}.json").unlink()
    (run / ".pts-run-token").write_text("b" * 32)
    _publish(tmp_path, run, dest)
    assert _rounds(dest / "R7") == ["round-01.json", "round-02.json", "round-03.json"]
    (aside,) = [p for p in dest.iterdir() if p.name.startswith("R7.superseded-")]
    assert _rounds(aside) == [f"round-{n:02d}.json" for n in range(1, 8)]
    assert (aside / ".pts-run-token").read_text() == "a" * 32

    # The same run published again (one round more): replaced, nothing more kept aside, no incoming left.
    (run / "h1" / "d" / "iops" / "round-04.json").write_text('{"attempt": 2, "round": 4}')
    _publish(tmp_path, run, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["R7", aside.name]
    assert _rounds(dest / "R7") == [f"round-{n:02d}.json" for n in range(1, 5)]
    assert oct(os.stat(dest).st_mode & 0o7777) == oct(0o2775)


# --- publishing into directories only root controls, on an SSH results host (issue 43) -------------------------------

NOBODY = 65534
# One network namespace of this file's own (ptsit43): other test files use 1-3.
NETNS_INDEX = 43
TINY = {"pts_tests": ["iops"], "pts_run_iops_mixes": [0], "pts_run_iops_block_sizes": ["4k"],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 2, "pts_run_window": 2,
        "pts_precondition_capacity_multiple": 1, "pts_fleet_fail_on": []}


def as_nobody(script: str, wait: bool = True):
    command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sh", "-c", script]
    if not wait:
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run(command, check=True, capture_output=True, text=True)


def sha256_of_tree(top) -> dict:
    found = {}
    for root, dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                found[path] = sha256(path)
    return found


@pytest.fixture(scope="module")
def results_host(tmp_path_factory):
    with one_host(tmp_path_factory.mktemp("results-host"), "results-43", NETNS_INDEX) as found:
        yield found


@pytest.fixture
def lab():
    """/tmp/pts43pub-*/ (0755, so uid 65534 reaches its part): a root-only victim with a 0600 file, a directory uid
    65534 owns, a sticky world-writable one."""
    base = tempfile.mkdtemp(prefix="pts43pub-", dir="/tmp")
    os.chmod(base, 0o755)
    victim = os.path.join(base, "victim")
    os.makedirs(os.path.join(victim, "R7"))
    for name, mode in (("fleet.md", 0o644), ("private.key", 0o600)):
        with open(os.path.join(victim, name), "w", encoding="utf-8") as handle:
            handle.write(f"root's own {name}\n")
        os.chmod(os.path.join(victim, name), mode)
    users = os.path.join(base, "users")
    os.makedirs(users)
    os.chown(users, NOBODY, NOBODY)
    shared = os.path.join(base, "shared")
    os.makedirs(shared)
    os.chmod(shared, 0o1777)
    yield {"base": base, "victim": victim, "users": users, "shared": shared}
    shutil.rmtree(base, ignore_errors=True)


def _publish_over_ssh(tmp, results_host, run_dir, dest) -> subprocess.CompletedProcess:
    host, key = results_host
    inventory = tmp / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {
        "localhost": {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3"},
        host.name: host.inventory_vars(key)}}}))
    playbook = tmp / "publish-ssh.yml"
    playbook.write_text(yaml.safe_dump([{
        "hosts": "localhost", "gather_facts": False,
        "tasks": [{"ansible.builtin.include_role": {"name": "fleetqual.pts.pts_run", "tasks_from": "publish"},
                   "vars": {"pts_run_dir": str(run_dir), "pts_run_publish": [{"host": host.name, "dest": str(dest)}]}}],
    }]))
    env = playbook_env(tmp, TMPDIR=str(tmp / "controller-tmp"), ANSIBLE_REMOTE_TMP="/tmp/.pts-it43-ansible")
    os.makedirs(env["TMPDIR"], exist_ok=True)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), str(playbook)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    (tmp / "publish-ssh.log").write_text(proc.stdout + proc.stderr)
    assert os.listdir(env["TMPDIR"]) == [], "the packed run is left on the controller"
    return proc


def _a_run(tmp_path, token: str = "a" * 32):
    run = tmp_path / "results" / "R7"
    (run / "h1" / "d" / "iops").mkdir(parents=True)
    (run / ".pts-run-token").write_text(token)
    (run / "h1" / "d" / "iops" / "round-01.json").write_text('{"round": 1}')
    return run


def _said(proc) -> str:
    return " ".join((proc.stdout + proc.stderr).split())


@pytest.mark.parametrize("how, level, why", [
    ("users-link", "users", "it is owned by uid 65534, not root"),  # refused at its own directory, before the link
    ("shared-link", "shared/dest", "is a symbolic link"),
    ("users-dir", "users", "it is owned by uid 65534, not root"),
])
def test_a_destination_another_user_controls_is_a_failure_naming_the_level(tmp_path, results_host, lab, how, level,
                                                                           why):
    parent = lab["users"] if how.startswith("users") else lab["shared"]
    if how.endswith("link"):
        as_nobody(f"ln -s {lab['victim']} {parent}/dest")
    dest = os.path.join(parent, "dest") if how != "users-dir" else os.path.join(parent, "runs")
    before = sha256_of_tree(lab["victim"])
    # The user also keeps swapping whatever it can in its directory for links to root's, while root publishes.
    watcher = as_nobody(f"while :; do for e in {parent}/* {parent}/.[!.]*; do [ -d \"$e\" ] && "
                        f"mv \"$e\" \"$e.x\" && ln -s {lab['victim']} \"$e\"; done 2>/dev/null; done", wait=False)
    try:
        proc = _publish_over_ssh(tmp_path, results_host, _a_run(tmp_path), dest)
    finally:
        watcher.kill()
        watcher.wait()
    assert proc.returncode != 0
    assert f"the run was not published to results-43:{dest}/R7: {lab['base']}/{level}: {why}" in _said(proc), \
        _said(proc)[-3000:]
    assert sha256_of_tree(lab["victim"]) == before and sorted(os.listdir(lab["victim"])) == [
        "R7", "fleet.md", "private.key"]
    assert os.listdir(os.path.join(lab["victim"], "R7")) == []


def _in_host_mounts(host: SshHost, *command: str) -> None:
    """A command in the results host's own mount namespace (its sshd runs under unshare -m)."""
    pids = subprocess.run(["ip", "netns", "pids", host.netns], capture_output=True, text=True, check=True).stdout
    for pid in pids.split():
        with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
            if handle.read().strip() == "sshd":
                sh("nsenter", "-t", pid, "-m", *command)
                return
    raise AssertionError(f"no sshd in {host.netns}")


def test_a_read_only_destination_says_mkdirs_own_error(tmp_path, results_host, lab):
    read_only = os.path.join(lab["base"], "ro")
    os.makedirs(read_only)
    _in_host_mounts(results_host[0], "mount", "-t", "tmpfs", "-o", "ro,mode=0755,size=1m", "tmpfs", read_only)
    try:
        proc = _publish_over_ssh(tmp_path, results_host, _a_run(tmp_path), os.path.join(read_only, "runs"))
    finally:
        _in_host_mounts(results_host[0], "umount", read_only)
    assert proc.returncode != 0
    assert (f"the run was not published to results-43:{read_only}/runs/R7: cannot make directory {read_only}/runs: "
            "Read-only file system") in _said(proc), _said(proc)[-3000:]


def test_a_link_where_the_run_goes_is_kept_aside_never_followed(tmp_path, results_host, lab):
    dest = os.path.join(lab["base"], "lab")
    os.makedirs(dest)
    os.symlink(lab["victim"], os.path.join(dest, "R7"))
    before = sha256_of_tree(lab["victim"])
    proc = _publish_over_ssh(tmp_path, results_host, _a_run(tmp_path), dest)
    assert proc.returncode == 0, _said(proc)[-3000:]
    assert sha256_of_tree(lab["victim"]) == before and os.listdir(os.path.join(lab["victim"], "R7")) == []
    assert os.path.isdir(os.path.join(dest, "R7")) and not os.path.islink(os.path.join(dest, "R7"))
    assert sorted(os.listdir(os.path.join(dest, "R7"))) == [".pts-run-token", "h1"]
    (aside,) = [name for name in os.listdir(dest) if name.startswith("R7.superseded-")]
    assert os.readlink(os.path.join(dest, aside)) == lab["victim"]
    assert sorted(os.listdir(dest)) == ["R7", aside]  # no incoming directory left


def test_a_run_published_where_another_user_can_swap_is_a_run_error_and_fails_the_run(tmp_path, results_host, lab,
                                                                                      loop_device):
    host, key = results_host
    device = loop_device("64M")
    dest = os.path.join(lab["users"], "runs")
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {
        "vars": {"pts_allow_destroy": True, "pts_profile": "quick",
                 "pts_publish": [{"host": host.name, "dest": dest}]},
        "hosts": {"localhost": {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                                "pts_run_remote_dir": str(tmp_path / "remote"),
                                "pts_devices": [{"path": device.path, "name": "bay0", "backing_file": device.image}]},
                  host.name: host.inventory_vars(key)}}}))
    env = playbook_env(tmp_path, PTS_RUN_ID="pub-43", ANSIBLE_REMOTE_TMP="/tmp/.pts-it43-ansible")
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "playbooks/pts.yml", "-i", str(inventory), "-l",
                           "localhost", "-e", json.dumps(TINY)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    (tmp_path / "pts.log").write_text(proc.stdout + proc.stderr)
    run_dir = tmp_path / "results" / "pub-43"
    summary = assert_exit_matches_fleet(proc.returncode, str(run_dir), proc.stdout + proc.stderr)
    assert proc.returncode != 0 and summary["failed"] is True
    assert summary["errors"] == [{"host": "results-43", "task": "publishing", "msg": (
        f"the run was not published to results-43:{dest}/pub-43: {lab['users']}: it is owned by uid 65534, not "
        "root: root reads and writes nothing that another user could swap for a link (make it root's and writable "
        "by nobody else)")}]
    assert os.listdir(lab["users"]) == []
