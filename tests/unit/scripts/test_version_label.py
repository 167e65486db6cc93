# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("version_label", os.path.join(ROOT, "scripts", "version_label.py"))
version_label = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(version_label)

RELEASED = ["1.0.0", "1.1.0"]
BREAKING = {"25-x.yml": {"breaking_changes": ["fio_job - ..."], "bugfixes": ["..."]}}
FEATURE = {"27-x.yml": {"minor_changes": ["report ..."]}}
FIX = {"28-x.yml": {"bugfixes": ["..."]}}


@pytest.mark.parametrize("version, fragments, wrong", [
    ("1.1.0", BREAKING, "already released"),
    ("1.2.0", BREAKING, "at least 2.0.0"),
    ("1.1.1", FEATURE, "at least 1.2.0"),
    ("1.1.0", FIX, "already released"),
    ("2.0.0", BREAKING, None),
    ("1.2.0", FEATURE, None),
    ("1.1.1", FIX, None),
    ("1.1.0", {}, None),
])
def test_the_version_must_be_the_one_the_fragments_call_for(version, fragments, wrong):
    found = version_label.problems(version, RELEASED, fragments)
    assert (wrong is None and not found) or (len(found) == 1 and wrong in found[0])


def test_a_version_added_that_will_never_be_released_is_named():
    texts = {"plugins/modules/a.py": "  x:\n    version_added: 1.2.0\n", "plugins/modules/b.py": "version_added: '1.0.0'\n",
             "roles/r/meta/argument_specs.yml": "        version_added: 2.0.0\n"}
    assert version_label.unreleased_additions("2.0.0", RELEASED, texts) == [
        "plugins/modules/a.py: version_added 1.2.0 is neither released nor galaxy.yml's version 2.0.0"]


def test_the_repository_is_labelled_honestly(tmp_path, capsys):
    assert version_label.main(ROOT) == 0, capsys.readouterr().err
    copy = tmp_path / "repo"
    shutil.copytree(os.path.join(ROOT, "changelogs"), copy / "changelogs")
    shutil.copy(os.path.join(ROOT, "galaxy.yml"), copy / "galaxy.yml")
    released = sorted(version_label.yaml.safe_load((copy / "changelogs" / "changelog.yaml").read_text())["releases"],
                      key=version_label._semver)[-1]
    galaxy = copy / "galaxy.yml"
    galaxy.write_text("\n".join(f"version: {released}" if line.startswith("version:") else line
                                for line in galaxy.read_text().splitlines()) + "\n")
    (copy / "changelogs" / "fragments").mkdir(exist_ok=True)
    (copy / "changelogs" / "fragments" / "99-break.yml").write_text("breaking_changes:\n  - x - y.\n")
    assert version_label.main(str(copy)) == 1
    assert "is already released" in capsys.readouterr().err
