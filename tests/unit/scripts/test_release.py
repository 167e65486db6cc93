# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/release.sh on a copy of this tree in a repository of its own: the release is one commit, tagged (annotated)
with its version, with the README's links naming that tag; a tagged version and a dirty tree are refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
GIT = ["git", "-c", "user.name=release test", "-c", "user.email=release@test.invalid"]


def git(repo, *args: str) -> str:
    return subprocess.run(GIT + list(args), cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """This tree's files (tracked and new, not ignored) in a fresh repository at .../ansible_collections/fleetqual/pts."""
    dest = tmp_path / "ansible_collections" / "fleetqual" / "pts"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            os.makedirs(dest / os.path.dirname(name), exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q", "-b", "main")
    (dest / "changelogs" / "fragments" / "9.9.9-summary.yml").write_text(
        "---\nrelease_summary: A release cut by the test.\n")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "before the release")
    return dest


def release(repo, version: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
               ANSIBLE_COLLECTIONS_PATH=str(repo.parents[2]), GIT_AUTHOR_NAME="release test",
               GIT_AUTHOR_EMAIL="release@test.invalid", GIT_COMMITTER_NAME="release test",
               GIT_COMMITTER_EMAIL="release@test.invalid")
    return subprocess.run(["bash", "scripts/release.sh", version], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_a_release_is_one_commit_tagged_with_its_version_and_linking_its_tag(repo):
    with open(repo / "galaxy.yml", encoding="utf-8") as handle:
        version = str(yaml.safe_load(handle)["version"])
    before = git(repo, "rev-parse", "HEAD")
    proc = release(repo, version)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    head = git(repo, "rev-parse", "HEAD")
    assert git(repo, "rev-parse", "HEAD~1") == before
    assert git(repo, "log", "-1", "--format=%s").startswith(f"Release {version} ")
    # An annotated tag on the release commit, and nothing of the release left uncommitted.
    assert git(repo, "cat-file", "-t", version) == "tag"
    assert git(repo, "rev-list", "-n", "1", version) == head
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    with open(repo / "changelogs" / "changelog.yaml", encoding="utf-8") as handle:
        assert version in yaml.safe_load(handle)["releases"]
    assert not [f for f in os.listdir(repo / "changelogs" / "fragments") if f.endswith(".yml")]
    readme = (repo / "README.md").read_text(encoding="utf-8")
    assert f"https://github.com/fleetqual/pts/blob/{version}/CHANGELOG.md" in readme
    check = subprocess.run([sys.executable, "scripts/release_links.py", "--check"], cwd=repo, capture_output=True,
                           text=True, check=False)
    assert check.returncode == 0, check.stderr
    assert (repo / "build" / f"fleetqual-pts-{version}.tar.gz").exists()
    assert f"commit {head[:7]} tagged {version}" in proc.stdout
    # Cut once: the same version again is refused, and changes nothing.
    again = release(repo, version)
    assert again.returncode == 2 and f"release: {version} is tagged already" in again.stderr
    assert git(repo, "rev-parse", "HEAD") == head


def test_a_dirty_tree_is_refused_before_anything_changes(repo):
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    proc = release(repo, "9.9.9")
    assert proc.returncode == 2 and "the tree has uncommitted changes" in proc.stderr
    assert "version: 9.9.9" not in (repo / "galaxy.yml").read_text(encoding="utf-8")
    assert git(repo, "tag") == ""
