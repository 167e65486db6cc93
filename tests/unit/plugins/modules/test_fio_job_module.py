# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _remote_dir
from ansible_collections.fleetqual.pts.plugins.modules import fio_job

NOBODY = 65534


def test_a_job_file_that_runs_a_command_is_refused_before_the_guards_recheck(monkeypatch):
    monkeypatch.setattr(fio_job, "recheck", lambda resolved, expect: pytest.fail("rechecked a job file to refuse"))
    text = "[global]\nfilename=/dev/null\nexec_prerun=dd if=/dev/zero of=/dev/sdb\n[job]\nrw=randwrite\n"
    assert fio_job._device_refusal(text, "/dev/null", {}) == \
        "the job file has options a PTS round never uses: exec_prerun=dd if=/dev/zero of=/dev/sdb"


def test_a_job_directory_another_user_could_change_is_refused_and_nothing_is_written(tmp_path):
    os.chmod(tmp_path, 0o755)
    remote = tmp_path / "remote"
    remote.mkdir()
    os.chown(remote, NOBODY, NOBODY)  # made by someone else first (a remote dir under a shared /tmp)
    job = remote / "R1.aaaaaaaaaaaa" / "d.loop0" / "d" / "iops" / "round-01.fio"
    with pytest.raises(_remote_dir.RemoteDirError, match="remote belongs to uid 65534"):
        fio_job._write_job(str(job), "[job]\nfilename=/dev/loop0\n")
    assert os.listdir(remote) == []


def test_a_job_file_is_written_in_a_directory_only_its_user_can_change(tmp_path):
    os.chmod(tmp_path, 0o755)
    job = tmp_path / "remote" / "R1.aaaaaaaaaaaa" / "d.loop0" / "iops" / "round-01.fio"
    fio_job._write_job(str(job), "[job]\nfilename=/dev/loop0\n")
    assert job.read_text() == "[job]\nfilename=/dev/loop0\n" and oct(os.stat(job).st_mode & 0o777) == oct(0o600)
    assert all(oct(os.stat(level).st_mode & 0o777) == oct(0o700) for level in list(job.parents)[:4])
    os.unlink(job)
    os.symlink("/etc/hostname", job)  # never written through a link planted in its place
    with pytest.raises(OSError):
        fio_job._write_job(str(job), "x")
    assert open("/etc/hostname", encoding="utf-8").read() != "x"
