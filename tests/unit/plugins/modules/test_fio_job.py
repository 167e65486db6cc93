# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# main() of fio_job with fio and the guard's check stood in for: what it refuses before anything is written, and where
# it writes. Real fio on real loop devices: tests/integration/test_one_road.py.

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio_runner
from ansible_collections.fleetqual.pts.plugins.modules import fio_job
from ansible_collections.fleetqual.pts.tests.unit.plugins.modules._module_exit import run_main, stub_exits

NOBODY = 65534
DEVICE = "/dev/loop9"
with open(os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "fio-3.33-iops-round.json"),
          encoding="utf-8") as _handle:
    RAW = _handle.read()
JOB = f"[global]\nfilename={DEVICE}\nioengine=libaio\ndirect=1\n\n[wipc]\nstonewall\nrw=write\nbs=128k\n"


@pytest.fixture
def module(monkeypatch, tmp_path):
    os.chmod(tmp_path, 0o755)
    stub_exits(monkeypatch)
    asked = {"guard": [], "runs": []}

    def refusal(device, expect, wipefs):
        def check(text):
            asked["guard"].append(device)
            return expect.get("refuse")
        return check

    def run(dirfd, request, device, refuse, fio):
        asked["runs"].append(dict(request, device=device))
        _fio_runner.write_file(dirfd, request["output"], RAW)
        return "0 1.0 2.0"

    monkeypatch.setattr(fio_job, "guard_refusal", refusal)
    monkeypatch.setattr(fio_job._fio_runner, "run_job", run)
    monkeypatch.setattr(fio_job.os.path, "realpath", lambda path: path)
    monkeypatch.setattr(fio_job.AnsibleModule, "get_bin_path", lambda self, name, required=False: f"/usr/bin/{name}")
    return asked


def main(job_file, **args):
    return run_main(fio_job, dict({"job_file": str(job_file), "job_text": JOB, "device": DEVICE,
                                   "expect": {"passed": True}}, **args))


def test_a_job_file_that_runs_a_command_is_refused_before_the_guard_is_asked(module, tmp_path):
    done = main(tmp_path / "job" / "wipc.fio", job_text=JOB + "exec_prerun=dd if=/dev/zero of=/dev/sdb\n")
    assert done.failed and "sets 'exec_prerun', which no job file of this collection sets" in done.result["msg"]
    assert done.result["msg"].startswith(f"fio_job refused {tmp_path}/job/wipc.fio, nothing was written: ")
    assert module["guard"] == [] and module["runs"] == [] and not (tmp_path / "job").exists()


def test_the_guards_refusal_fails_before_fio(module, tmp_path):
    done = main(tmp_path / "job" / "wipc.fio", expect={"refuse": "it is mounted on /srv (ext4)"})
    assert done.failed and done.result["msg"].endswith("nothing was written: it is mounted on /srv (ext4)")
    assert module["guard"] == [DEVICE] and module["runs"] == []


def test_a_job_directory_another_user_could_change_is_refused_and_nothing_is_written(module, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    os.chown(remote, NOBODY, NOBODY)  # made by someone else first (a remote dir under a shared /tmp)
    done = main(remote / "R1.aaaaaaaaaaaa" / "d.loop0" / "d" / "iops" / "round-01.fio")
    assert done.failed and "remote belongs to uid 65534" in done.result["msg"]
    assert os.listdir(remote) == [] and module["runs"] == []


def test_the_job_runs_in_a_directory_only_root_can_change(module, tmp_path):
    job = tmp_path / "remote" / "R1.aaaaaaaaaaaa" / "d.loop0" / "iops" / "round-01.fio"
    done = main(job, max_write_bytes=4096)
    assert not done.failed and done.result["pts_fio_raw"] == RAW
    (ran,) = module["runs"]
    assert ran == {"job": "round-01.fio", "output": "round-01.json", "timeout": 0, "output_format": "json",
                   "status_interval_ms": 0, "logs": "", "max_write_bytes": 4096, "job_text": JOB, "device": DEVICE}
    assert all(oct(os.stat(level).st_mode & 0o777) == oct(0o700) for level in list(job.parents)[:4])


@pytest.mark.parametrize("args, why", [
    ({"output": "/root/out.json"}, "output /root/out.json must be in the job file's directory"),
    ({"max_write_bytes": -1}, "timeout, serve and max_write_bytes must be 0 or more"),
])
def test_bad_arguments_are_refused_before_anything_is_written(module, tmp_path, args, why):
    done = main(tmp_path / "job" / "round-01.fio", **args)
    assert done.failed and why in done.result["msg"] and not (tmp_path / "job").exists()
