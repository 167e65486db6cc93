# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Paths walked by directory fds without following a link (module_utils/_safe_path.py). As root (these tests run as
root): a level another user owns or can write is refused."""

from __future__ import annotations

import hashlib
import os
import time

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.module_utils._safe_path import TooLarge, UnsafePath

NOBODY = 65534


@pytest.fixture(autouse=True)
def _root():
    if os.geteuid() != 0:
        pytest.fail("these tests judge what root may follow: run them as root")


def digest(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture
def outside(tmp_path):
    """A root-only file and directory beside the tree: what a planted link would make root read or overwrite."""
    secret = tmp_path / "secret"
    secret.write_text("SECRET-MODEL-T01\n")
    os.chmod(secret, 0o600)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "fleet.md").write_text("the victim's own\n")
    return secret, victim


@pytest.mark.parametrize("level", ["run", "host", "drive"])
def test_a_link_at_any_level_is_refused_naming_it(tmp_path, outside, level):
    secret, victim = outside
    tree = tmp_path / "results" / "run" / "host" / "drive"
    tree.mkdir(parents=True)
    planted = {"run": tmp_path / "results" / "run", "host": tmp_path / "results" / "run" / "host", "drive": tree}[level]
    os.rename(planted, tmp_path / "moved")
    planted.symlink_to(victim)
    target = tree / "fleet.md"
    with pytest.raises(UnsafePath) as caught:
        _safe_path.write_atomic(str(target), b"written by root\n")
    assert caught.value.path == str(planted) and "symbolic link" in caught.value.why
    with pytest.raises(UnsafePath):
        _safe_path.read_bytes(str(tree / "x"), 100)
    assert (victim / "fleet.md").read_text() == "the victim's own\n" and os.listdir(victim) == ["fleet.md"]


def test_a_file_that_is_a_link_is_not_read_and_a_write_replaces_the_link_not_its_target(tmp_path, outside):
    secret, victim = outside
    before = digest(secret)
    (tmp_path / "d").mkdir()
    link = tmp_path / "d" / "drive.json"
    link.symlink_to(secret)
    with pytest.raises(UnsafePath, match="is a symbolic link, not a regular file"):
        _safe_path.read_bytes(str(link), 1 << 20)
    _safe_path.write_atomic(str(link), b"{}\n")
    assert not link.is_symlink() and link.read_text() == "{}\n"
    assert digest(secret) == before and secret.read_text() == "SECRET-MODEL-T01\n"


def test_a_fifo_is_refused_without_blocking_and_a_device_without_being_opened(tmp_path):
    fifo = tmp_path / "round-01.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(UnsafePath, match="is a FIFO, not a regular file"):
        _safe_path.read_bytes(str(fifo), 1 << 20)
    assert time.monotonic() - started < 2
    with pytest.raises(UnsafePath, match="is a character device"):
        _safe_path.read_bytes("/dev/null", 1 << 20)


def test_a_file_swapped_for_a_fifo_after_its_check_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "round-01.json"
    path.write_text("{}")
    real_open = os.open

    def swap_then_open(name, flags, *args, **kwargs):
        if name == "round-01.json":
            os.unlink(path)
            os.mkfifo(path)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swap_then_open)
    with pytest.raises(UnsafePath, match="was replaced while it was opened"):
        _safe_path.read_bytes(str(path), 100)


def test_a_sparse_file_over_the_limit_is_not_read(tmp_path):
    huge = tmp_path / "round-01.json"
    with open(huge, "wb") as handle:
        handle.truncate(300 << 20)
    with pytest.raises(TooLarge, match=r"314,572,800 bytes, more than the 65,536 bytes allowed"):
        _safe_path.read_bytes(str(huge), 1 << 16)


@pytest.mark.parametrize("owner, mode, why", [
    (NOBODY, 0o755, "it is owned by uid 65534, not root"),
    (0, 0o777, "every user can write it"),
    (0, 0o775, None),  # group 0 may write
])
def test_as_root_a_level_another_user_can_change_is_refused(tmp_path, owner, mode, why):
    level = tmp_path / "results"
    level.mkdir()
    os.chown(level, owner, 0)
    os.chmod(level, mode)
    if why is None:
        _safe_path.write_atomic(str(level / "run" / "fleet.json"), b"{}")
        assert (level / "run" / "fleet.json").read_text() == "{}"
        return
    with pytest.raises(UnsafePath) as caught:
        _safe_path.write_atomic(str(level / "run" / "fleet.json"), b"{}")
    assert caught.value.path == str(level) and caught.value.why.startswith(why)
    assert os.listdir(level) == []
    # Not strict (a process that is not root): its own rights decide.
    _safe_path.write_atomic(str(level / "run" / "fleet.json"), b"{}", strict=False)


def test_a_group_that_is_not_root_may_not_write_a_level(tmp_path):
    level = tmp_path / "results"
    level.mkdir()
    os.chown(level, 0, NOBODY)
    os.chmod(level, 0o775)
    with pytest.raises(UnsafePath, match="group 65534 can write it"):
        _safe_path.walk(str(level))


def test_a_sticky_level_is_passed_only_to_entries_root_owns(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "ours").mkdir()
    os.close(_safe_path.walk(str(shared / "ours")))
    (shared / "theirs").mkdir()
    os.chown(shared / "theirs", NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="owned by uid 65534"):
        _safe_path.walk(str(shared / "theirs"))
    (shared / "file").write_text("x")
    os.chown(shared / "file", NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="owned by uid 65534 in a directory other users can write"):
        _safe_path.read_bytes(str(shared / "file"), 10)
    with pytest.raises(UnsafePath, match="every user can write it"):
        _safe_path.check_private(str(shared), os.stat(shared))


def test_the_atomic_writer_never_reuses_a_planted_temporary_name_nor_leaves_one(tmp_path, monkeypatch):
    target = tmp_path / "d" / "report.md"
    target.parent.mkdir()
    names = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(_safe_path.secrets, "token_hex", lambda n: next(names))
    (target.parent / ".report.md.aaaaaaaa").symlink_to(tmp_path / "elsewhere")
    _safe_path.write_atomic(str(target), b"report\n")
    assert target.read_text() == "report\n" and not (tmp_path / "elsewhere").exists()
    assert sorted(os.listdir(target.parent)) == [".report.md.aaaaaaaa", "report.md"]
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o666 & ~_safe_path.umask())


def test_files_written_together_are_fsynced_before_any_is_renamed_and_in_order(tmp_path, monkeypatch):
    directory = tmp_path / "seg"
    directory.mkdir()
    (directory / "round-01.json").symlink_to(tmp_path / "elsewhere")  # replaced, never written through
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(_safe_path.os, "fsync", lambda fd: events.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(_safe_path.os, "replace", lambda a, b, **kw: events.append(b) or real_replace(a, b, **kw))
    _safe_path.write_all(str(directory), [("round-01.raw.json", b"raw\n"), ("round-01.json", b"{}\n"),
                                          ("steady-state.json", b"{}\n")])
    # Every file's data on disk before the first rename; the renames in order; the directory fsynced once at the end.
    assert events == ["fsync"] * 3 + ["round-01.raw.json", "round-01.json", "steady-state.json", "fsync"]
    assert sorted(os.listdir(directory)) == ["round-01.json", "round-01.raw.json", "steady-state.json"]
    assert (directory / "round-01.json").read_bytes() == b"{}\n" and not (tmp_path / "elsewhere").exists()
    assert oct(os.stat(directory / "round-01.raw.json").st_mode & 0o777) == oct(0o666 & ~_safe_path.umask())


def test_files_written_together_leave_no_temporary_file_when_one_cannot_be_written(tmp_path, monkeypatch):
    directory = tmp_path / "seg"
    directory.mkdir()
    (directory / "keep.json").write_text("old\n")
    real_replace = os.replace

    def replace(a, b, **kw):
        if b == "round-01.json":
            raise OSError(28, "No space left on device")
        return real_replace(a, b, **kw)

    monkeypatch.setattr(_safe_path.os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        _safe_path.write_all(str(directory), [("keep.json", b"new\n"), ("round-01.json", b"{}\n")])
    # What was renamed before the failure is whole; nothing else is left, no temporary file either.
    assert sorted(os.listdir(directory)) == ["keep.json"] and (directory / "keep.json").read_text() == "new\n"


def test_a_level_that_cannot_be_made_is_named_with_mkdirs_own_error(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(UnsafePath, match="a-file: is a regular file, not a directory"):
        _safe_path.walk(str(tmp_path / "a-file" / "x"), create=True)
    with pytest.raises(OSError, match=r"cannot make directory /proc/pts-43: No such file or directory"):
        _safe_path.walk("/proc/pts-43", create=True)


def test_dotdot_and_relative_paths_are_refused():
    with pytest.raises(UnsafePath, match="'..' level"):
        _safe_path.walk("/tmp/../etc")
    with pytest.raises(UnsafePath, match="not an absolute path"):
        _safe_path.walk("results")


def test_resolve_follows_a_link_only_root_could_have_made(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    assert _safe_path.resolve(str(tmp_path / "alias" / "later")) == str(real / "later")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    (shared / "theirs").symlink_to("/etc")
    os.lchown(shared / "theirs", NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="symbolic link owned by uid 65534"):
        _safe_path.resolve(str(shared / "theirs" / "results"))
    users = tmp_path / "users"
    users.mkdir()
    (users / "link").symlink_to("/etc")
    os.chown(users, NOBODY, NOBODY)
    with pytest.raises(UnsafePath, match="which another user can change"):
        _safe_path.resolve(str(users / "link"))


def _swap_for_link(tree, victim) -> None:
    os.rename(tree / "plots", tree / "plots.real")
    os.symlink(victim, tree / "plots")


def test_a_level_swapped_for_a_link_just_before_it_is_opened_is_refused(tmp_path, outside, monkeypatch):
    secret, victim = outside
    tree = tmp_path / "tree"
    (tree / "plots").mkdir(parents=True)
    real_open = os.open

    def swap_then_open(name, flags, *args, **kwargs):
        if name == "plots":
            _swap_for_link(tree, victim)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swap_then_open)
    with pytest.raises(UnsafePath, match="plots: is a symbolic link"):
        _safe_path.write_atomic(str(tree / "plots" / "fleet.md"), b"root's\n")
    assert os.listdir(victim) == ["fleet.md"] and (victim / "fleet.md").read_text() == "the victim's own\n"


def test_a_level_swapped_for_a_link_after_it_was_opened_takes_the_write_with_it(tmp_path, outside, monkeypatch):
    """The directory is held by its fd: the file lands in the directory that was opened, wherever it went."""
    secret, victim = outside
    tree = tmp_path / "tree"
    (tree / "plots").mkdir(parents=True)
    real_replace = os.replace

    def swap_then_replace(src, dst, **kwargs):
        _swap_for_link(tree, victim)
        return real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", swap_then_replace)
    _safe_path.write_atomic(str(tree / "plots" / "fleet.md"), b"root's\n")
    assert (tree / "plots.real" / "fleet.md").read_text() == "root's\n"
    assert (victim / "fleet.md").read_text() == "the victim's own\n"
