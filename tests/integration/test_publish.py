# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Publishing a run over one already there (the role's publish tasks, as the judge runs them, with a local results
host): a relaunch of the run id is never merged into an earlier attempt's copy, the same run replaces its copy, the
results directory keeps its mode, and nothing of the publishing is left behind on either side."""

from __future__ import annotations

import os
import subprocess

import yaml
from conftest import BIN, ROOT, playbook_env


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
