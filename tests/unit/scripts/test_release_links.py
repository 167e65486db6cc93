# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/release_links.py, and the README as Galaxy and Automation Hub render it from the tarball: no relative link,
every link into the repository at the release's tag, the docsite and CONTRIBUTING linked absolutely."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("release_links", os.path.join(ROOT, "scripts", "release_links.py"))
release_links = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(release_links)

REPO = "https://github.com/fleetqual/pts"


@pytest.mark.parametrize("text, version, wrong, rewritten", [
    (f"[c]({REPO}/blob/main/CHANGELOG.md)", "2.1.0", [f"{REPO}/blob/main"], f"[c]({REPO}/blob/2.1.0/CHANGELOG.md)"),
    (f"<{REPO}/tree/1.1.0/docs>", "2.1.0", [f"{REPO}/tree/1.1.0"], f"<{REPO}/tree/2.1.0/docs>"),
    (f"`x <{REPO}/blob/2.1.0/README.md#installation>`__", "2.1.0", [], None),
    # Not about a version: the tracker, the repository itself.
    (f"<{REPO}/issues> and {REPO}", "2.1.0", [], None),
])
def test_links_at_another_ref_are_found_and_rewritten(text, version, wrong, rewritten):
    assert release_links.wrong_refs(text, version) == wrong
    assert release_links.rewrite(text, version) == (rewritten or text)


def test_readme_and_docsite_link_the_tag_of_galaxy_yml_version():
    assert release_links.main(["--check"], ROOT) == 0


def test_readme_has_no_relative_link_and_links_the_docsite_contributing_and_changelog():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets and all(t.startswith(("https://", "#")) for t in targets), \
        [t for t in targets if not t.startswith(("https://", "#"))]
    version = release_links.galaxy_version(ROOT)
    major = int(version.split(".")[0])
    # The README's requirements example stays within the major version it ships with (no breaking release across).
    for needed in (f"{REPO}/blob/{version}/CONTRIBUTING.md", f"{REPO}/blob/{version}/CHANGELOG.md",
                   "https://fleetqual.github.io/pts/", f'version: ">={major}.0.0,<{major + 1}.0.0"',
                   "ansible-playbook fleetqual.pts.try"):
        assert needed in readme, needed


def test_the_docsite_links_the_released_readme():
    with open(os.path.join(ROOT, "docs", "docsite", "links.yml"), encoding="utf-8") as handle:
        links = handle.read()
    assert f"{REPO}/blob/{release_links.galaxy_version(ROOT)}/README.md" in links
