# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection as a Galaxy user gets it: the built tarball, installed into an empty collections path, run by FQCN.

`ansible-galaxy collection build` into a temporary directory, the tarball's contents checked against galaxy.yml's
build_ignore (no development or output paths; everything the playbook needs), `ansible-galaxy collection install
--offline -p` into an empty collections path, then `ansible-playbook fleetqual.pts.pts --check` from an unrelated
directory: no ANSIBLE_CONFIG (the repository's ansible.cfg with its collections_path, callbacks, forks and stdout
callback is not there), the report callback enabled through ANSIBLE_CALLBACKS_ENABLED alone. The run must succeed,
print the plan, and leave the drive's bytes as they were.
"""

from __future__ import annotations

import fnmatch
import json
import os
import tarfile

import galaxy
import pytest
import yaml
from conftest import BIN, ROOT, sh

with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as _galaxy:
    GALAXY = yaml.safe_load(_galaxy)

# Development-only and output paths that must never ship (galaxy.yml's build_ignore keeps them out).
DEV_ONLY = [
    ".venv/*", ".collections/*", ".ansible/*", ".pytest_cache/*", ".ci/*", ".git/*", ".gitignore",
    "build/*", "results/*", "bench/*", "tests", "tests/*", "extensions/*", "scripts/*", "Makefile", "ansible.cfg",
    "pytest.ini", "requirements-dev.txt", ".ansible-lint", ".yamllint", "CONTRIBUTING.md",
    # From a clone only: the demo inventory needs scripts/demo.sh's loop device, docs/testing.md describes the suites.
    "inventories/demo", "inventories/demo/*", "docs/testing.md",
    "*__pycache__*", "*.pyc", "*.tar.gz", "*.plugin-cache.yaml",
]
# What a user of the installed collection needs, besides every file under these folders of the repository.
SHIPPED_TREES = ["meta", "plugins", "roles", "playbooks", "inventories/example", "docs/docsite",
                 "docs/execution-environment", "changelogs"]
SHIPPED_FILES = ["MANIFEST.json", "FILES.json", "README.md", "CHANGELOG.md", "LICENSE", "LICENSES/GPL-3.0-or-later.txt",
                 "REUSE.toml", "requirements.txt", "bindep.txt", "changelogs/changelog.yaml", "docs/docsite/links.yml"]


def _repo_files(tree: str) -> set[str]:
    found = set()
    for folder, dirs, files in os.walk(os.path.join(ROOT, tree)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), ROOT)
            if not name.endswith(".pyc") and not fnmatch.fnmatch(path, "*.plugin-cache.yaml"):
                found.add(path)
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Build the tarball and install it into an empty collections path."""
    return galaxy.install(tmp_path_factory.mktemp("galaxy"))


def test_tarball_ships_the_collection_and_no_development_files(installed):
    tarball = installed["tarball"]
    assert tarball.name == f"fleetqual-pts-{GALAXY['version']}.tar.gz"
    with tarfile.open(tarball) as archive:
        entries = {m.name.rstrip("/") for m in archive.getmembers()}
        members = {m.name for m in archive.getmembers() if m.isfile()}
        manifest = json.load(archive.extractfile("MANIFEST.json"))
    dev = sorted(m for m in entries if any(fnmatch.fnmatch(m, pattern) for pattern in DEV_ONLY))
    assert not dev, f"development-only files in {tarball.name}: {dev}"
    expected = set(SHIPPED_FILES).union(*(_repo_files(tree) for tree in SHIPPED_TREES)) - {"galaxy.yml"}
    assert not expected - members, f"missing from {tarball.name}: {sorted(expected - members)}"
    info = manifest["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == ("fleetqual", "pts", GALAXY["version"])
    assert info["license"] == ["GPL-3.0-or-later"] and "storage" in info["tags"]
    print(f"{tarball.name}: {len(members)} files, {tarball.stat().st_size} bytes; top level:",
          sorted({m.split("/")[0] for m in members}))


def test_installed_collection_is_the_only_fleetqual_pts(installed):
    collections, env = installed["collections"], installed["env"]
    proc = galaxy.run([os.path.join(BIN, "ansible-galaxy"), "collection", "list", "--format", "json"], env,
                      str(collections))
    found = json.loads(proc.stdout)
    with_pts = {path: names["fleetqual.pts"]["version"] for path, names in found.items() if "fleetqual.pts" in names}
    assert with_pts == {str(collections / "ansible_collections"): GALAXY["version"]}, found
    # Whatever else is visible comes from python's site-packages (the `ansible` package's bundled collections).
    assert all("site-packages" in path for path in found if path != str(collections / "ansible_collections")), found


def test_playbook_by_fqcn_checks_a_drive_from_an_unrelated_directory(installed, loop_device, tmp_path):
    env = installed["env"]
    device = loop_device("64M")
    # Known non-zero content, so a purge (which zeroes a loop device) or any write would change the checksum.
    sh("dd", "if=/dev/urandom", f"of={device.path}", "bs=1M", "count=4", "oflag=direct", "status=none")
    before = device.checksum()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    inventory = elsewhere / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"localhost": {
        "ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
        "pts_run_remote_dir": str(tmp_path / "remote"),
        "pts_devices": [{"path": device.path, "name": "galaxy-loop", "backing_file": device.image}],
        "pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"]}}}}))
    run_env = dict(env, ANSIBLE_CALLBACKS_ENABLED="fleetqual.pts.pts_report")
    proc = galaxy.run([os.path.join(BIN, "ansible-playbook"), "fleetqual.pts.pts", "-i", "hosts.yml", "--check"],
                      run_env, str(elsewhere), timeout=900)
    plan = [line for line in proc.stdout.splitlines() if "PTS plan" in line]
    print("\n".join(plan))
    assert any("PTS plan localhost galaxy-loop:" in line for line in plan), proc.stdout[-4000:]
    # --check plans and stops: no warning of the collection's own making (the drive workers' play matches no host).
    assert "[WARNING]" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-4000:]
    # The roles, plugins and templates came from the installed copy, never from the repository.
    assert ROOT not in proc.stdout + proc.stderr
    assert device.checksum() == before
    # --check writes nothing to the results tree either (the callback's default output_dir is ./results).
    assert sorted(os.listdir(elsewhere)) == ["hosts.yml"]


def test_readme_lists_all_included_content():
    """The README's "Included content" names every playbook, role, module and plugin the tarball ships."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    section = readme.split("\n## Included content\n", 1)[1].split("\n## ", 1)[0]
    names = {f"`{name[:-3]}`" for kind in ("modules", "action", "callback", "filter")
             for name in os.listdir(os.path.join(ROOT, "plugins", kind)) if name.endswith(".py") and name[0] != "_"}
    names |= {f"`{name}`" for name in os.listdir(os.path.join(ROOT, "roles"))}
    names |= {f"`{name[:-4]}`" for name in os.listdir(os.path.join(ROOT, "playbooks")) if name.endswith(".yml")}
    missing = sorted(name for name in names if name not in section)
    assert not missing, f"README.md's Included content does not list {missing}"
