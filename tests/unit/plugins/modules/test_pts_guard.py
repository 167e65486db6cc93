# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# What refuses every drive of a host before anything is held: the run's remote directory and fio's ioengine (the
# guard's host_refusal). Real directories; a stand-in for the module's run_command and get_bin_path.

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from ansible_collections.fleetqual.pts.plugins.modules import pts_guard


def module(remote_dir=None, ioengine=None, check=False, loads=True):
    ran = []

    def run_command(argv):
        ran.append(argv)
        return (0, "", "") if loads else (1, "", "fio: engine io_uring not loadable\n")

    found = SimpleNamespace(params={"remote_dir": remote_dir, "ioengine": ioengine}, check_mode=check,
                            run_command=run_command, get_bin_path=lambda name: f"/usr/bin/{name}")
    found.ran = ran
    return found


def test_a_remote_dir_only_root_can_change_is_made_and_passes(tmp_path):
    os.chmod(tmp_path, 0o755)
    assert pts_guard.host_refusal(module(str(tmp_path / "remote"))) is None
    assert oct(os.stat(tmp_path / "remote").st_mode & 0o777) == "0o700"


def test_under_check_a_missing_remote_dir_is_not_made(tmp_path):
    os.chmod(tmp_path, 0o755)
    assert pts_guard.host_refusal(module(str(tmp_path / "remote"), check=True)) is None
    assert not (tmp_path / "remote").exists()


def test_a_remote_dir_under_another_users_directory_is_refused(tmp_path):
    os.chmod(tmp_path, 0o755)
    (tmp_path / "shared").mkdir()
    os.chown(tmp_path / "shared", 65534, 65534)
    why = pts_guard.host_refusal(module(str(tmp_path / "shared" / "remote")))
    assert why.startswith(f"pts_run_remote_dir '{tmp_path}/shared/remote' cannot hold the run's job files: ")
    assert why.endswith("shared belongs to uid 65534, not to uid 0 or root")
    assert not (tmp_path / "shared" / "remote").exists()


@pytest.mark.parametrize("engine, loads, why", [
    ("libaio", True, None),
    ("io_uring", False, "pts_run_ioengine 'io_uring': the host's fio cannot load it (fio: engine io_uring not "
                        "loadable)"),
    ("exec", True, "pts_run_ioengine 'exec' is not an ioengine a PTS run may use"),
])
def test_the_hosts_fio_must_load_the_runs_ioengine(engine, loads, why):
    found = module(ioengine=engine, loads=loads)
    said = pts_guard.host_refusal(found)
    assert said == why if why is None else said.startswith(why)
    assert found.ran == ([] if engine == "exec" else [["/usr/bin/fio", f"--enghelp={engine}"]])
