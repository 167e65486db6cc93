# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _remote_dir

NOBODY = 65534


def ensure(path: str, below: str | None = None) -> str:
    """Make and check ``path`` as open_dir does, and return it."""
    os.close(_remote_dir.open_dir(path, below))
    return os.path.normpath(path)


def _mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def base(tmp_path):
    os.chmod(tmp_path, 0o755)
    return tmp_path


def test_every_level_the_run_makes_is_0700(base):
    job = base / "remote" / "R1.aaaaaaaaaaaa" / "d.loop0" / "d" / "iops"
    assert ensure(str(job), below=str(base / "remote")) == str(job)
    for level in (base / "remote", job.parent.parent.parent, job.parent.parent, job.parent, job):
        assert _mode(level) == 0o700, level


def test_a_directory_another_user_made_first_is_refused(base):
    remote = base / "remote"
    (remote / "R1.aaaaaaaaaaaa").mkdir(parents=True, mode=0o700)
    os.chown(remote / "R1.aaaaaaaaaaaa", NOBODY, NOBODY)
    with pytest.raises(_remote_dir.RemoteDirError, match=r"R1.aaaaaaaaaaaa belongs to uid 65534, not to uid 0$"):
        ensure(str(remote / "R1.aaaaaaaaaaaa" / "d.loop0"), below=str(remote))
    assert not (remote / "R1.aaaaaaaaaaaa" / "d.loop0").exists()


def test_a_remote_dir_others_can_write_or_a_symbolic_link_on_the_way_is_refused(base):
    remote = base / "remote"
    remote.mkdir(mode=0o700)
    os.chmod(remote, 0o777)
    with pytest.raises(_remote_dir.RemoteDirError, match=r"remote can be written by others \(mode 0777\)"):
        ensure(str(remote / "R1.x"), below=str(remote))
    os.chmod(remote, 0o755)  # an older run's remote dir: readable, writable by root alone - kept
    assert ensure(str(remote / "R1.x"), below=str(remote))
    (base / "elsewhere").mkdir()
    os.symlink(base / "elsewhere", base / "link")
    with pytest.raises(_remote_dir.RemoteDirError, match=r"link is a symbolic link \(-> .*elsewhere\): give the real"):
        ensure(str(base / "link" / "R1.x"), below=str(base / "link"))
    assert os.listdir(base / "elsewhere") == []


def test_an_ancestor_may_be_a_sticky_directory_of_root_but_not_anyone_elses(base):
    sticky = base / "tmp"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    assert ensure(str(sticky / "fleetqual" / "R1.x"), below=str(sticky / "fleetqual"))
    other = base / "shared"
    other.mkdir()
    os.chown(other, NOBODY, NOBODY)
    with pytest.raises(_remote_dir.RemoteDirError, match="shared belongs to uid 65534, not to uid 0 or root"):
        ensure(str(other / "fleetqual" / "R1.x"), below=str(other / "fleetqual"))
    os.chown(other, 0, 0)
    os.chmod(other, 0o777)  # world-writable without the sticky bit: anyone could rename the run's directory
    with pytest.raises(_remote_dir.RemoteDirError, match=r"shared can be written by others \(mode 0777\)"):
        ensure(str(other / "fleetqual" / "R1.x"), below=str(other / "fleetqual"))
