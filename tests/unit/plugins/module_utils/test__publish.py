# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A packed run put in place on a results host (module_utils/_publish.py), run here as root."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils import _publish
from ansible_collections.fleetqual.pts.plugins.module_utils._publish import PublishError

RUN = "R7"


def pack(tmp_path, token: str = "a" * 32, extra=None, name: str = "run.tar.gz") -> str:
    """A packed run: R7/.pts-run-token and a round file, plus ``extra`` members (TarInfo, data)."""
    path = tmp_path / "pack" / name
    path.parent.mkdir(exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for member_name, data in ((f"{RUN}", None), (f"{RUN}/.pts-run-token", token.encode()),
                                  (f"{RUN}/h1/d/iops/round-01.json", b"{}\n")):
            info = tarfile.TarInfo(member_name)
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            else:
                info.size, info.mode = len(data), 0o600 if "token" in member_name else 0o644
                archive.addfile(info, io.BytesIO(data))
        for info, data in extra or []:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return str(path)


def test_a_run_lands_a_relaunch_is_kept_aside_and_the_same_run_replaces_its_copy(tmp_path):
    dest = tmp_path / "lab" / "runs"
    first = _publish.publish(pack(tmp_path), str(dest), RUN)
    assert first == {"path": f"{dest}/{RUN}", "files": 2, "kept_aside": None}
    assert oct(os.stat(dest).st_mode & 0o777) == oct(0o755)
    assert oct(os.stat(dest / RUN / ".pts-run-token").st_mode & 0o777) == oct(0o600)
    again = _publish.publish(pack(tmp_path), str(dest), RUN)
    assert again["kept_aside"] is None and sorted(os.listdir(dest)) == [RUN]
    relaunch = _publish.publish(pack(tmp_path, "b" * 32), str(dest), RUN)
    assert relaunch["kept_aside"].startswith(f"{dest}/{RUN}.superseded-")
    assert (dest / RUN / ".pts-run-token").read_text() == "b" * 32
    assert sorted(os.listdir(dest)) == sorted([RUN, os.path.basename(relaunch["kept_aside"])])


def test_a_link_at_the_runs_place_is_moved_aside_never_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "fleet.md").write_text("the victim's own\n")
    dest = tmp_path / "lab"
    dest.mkdir()
    (dest / RUN).symlink_to(victim)
    placed = _publish.publish(pack(tmp_path), str(dest), RUN)
    assert os.listdir(victim) == ["fleet.md"] and (victim / "fleet.md").read_text() == "the victim's own\n"
    assert (dest / RUN).is_dir() and not (dest / RUN).is_symlink()
    assert os.readlink(placed["kept_aside"]) == str(victim)


@pytest.mark.parametrize("kind, why", [
    (tarfile.SYMTYPE, "is a symbolic link"), (tarfile.LNKTYPE, "is a hard link"), (tarfile.FIFOTYPE, "is a FIFO"),
    (tarfile.CHRTYPE, "is a device"),
])
def test_an_archive_member_that_is_not_a_file_or_directory_is_refused(tmp_path, kind, why):
    info = tarfile.TarInfo(f"{RUN}/h1/d/plots")
    info.type, info.linkname = kind, "/etc"
    dest = tmp_path / "lab"
    with pytest.raises(PublishError, match=f"the packed run's {RUN}/h1/d/plots {why}: refused"):
        _publish.publish(pack(tmp_path, extra=[(info, None)]), str(dest), RUN)
    assert os.listdir(dest) == []  # nothing placed, no incoming directory left


@pytest.mark.parametrize("name", ["../escape", f"{RUN}/../../escape", "/etc/cron.d/x", "other/x"])
def test_a_member_outside_the_run_is_refused(tmp_path, name):
    info = tarfile.TarInfo(name)
    info.size = 1
    with pytest.raises(PublishError, match="which is not a path below R7/: refused"):
        _publish.publish(pack(tmp_path, extra=[(info, b"x")]), str(tmp_path / "lab"), RUN)
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize("setup, level, why", [
    ("link", "lab", "is a symbolic link"),
    ("owner", "lab", "it is owned by uid 65534, not root"),
    ("mode", "lab", "every user can write it (mode 0o1777)"),
    ("group", "lab", "group 65534 can write it (mode 0o775)"),
])
def test_a_destination_another_user_controls_is_refused_naming_the_level(tmp_path, setup, level, why):
    lab = tmp_path / "lab"
    if setup == "link":
        (tmp_path / "theirs").mkdir()
        lab.symlink_to(tmp_path / "theirs")
    else:
        lab.mkdir()
        if setup == "owner":
            os.chown(lab, 65534, 65534)
        elif setup == "mode":
            os.chmod(lab, 0o1777)
        else:
            os.chown(lab, 0, 65534)
            os.chmod(lab, 0o775)
    dest = lab / "runs" if setup in ("link", "owner") else lab
    with pytest.raises(PublishError) as caught:
        _publish.publish(pack(tmp_path), str(dest), RUN)
    assert str(caught.value).startswith(f"{tmp_path / level}: {why}")
    assert not (tmp_path / "theirs" / "runs").exists()


def test_a_level_that_cannot_be_made_says_mkdirs_own_error(tmp_path):
    with pytest.raises(PublishError, match="^cannot make directory /proc/pts-43: No such file or directory$"):
        _publish.publish(pack(tmp_path), "/proc/pts-43/runs", RUN)


def test_an_archive_that_is_a_link_is_not_read(tmp_path):
    archive = pack(tmp_path)
    os.symlink(archive, tmp_path / "pack" / "link.tar.gz")
    with pytest.raises(PublishError, match="link.tar.gz: is a symbolic link, not a regular file"):
        _publish.publish(str(tmp_path / "pack" / "link.tar.gz"), str(tmp_path / "lab"), RUN)
