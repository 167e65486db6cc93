# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""README.md's "Tested with" table is generated from tests/versions.yml, the list scripts/test_versions.sh runs."""

from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("tested_with", os.path.join(ROOT, "scripts", "tested_with.py"))
tested_with = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tested_with)


def test_the_table_is_ansible_core_by_python_with_what_runs_marked():
    pairs = [{"ansible_core": "2.21.5", "python": "3.12"}, {"ansible_core": "2.19.0", "python": "3.11"},
             {"ansible_core": "2.20.1", "python": "3.12"}]
    assert tested_with.table(pairs).splitlines() == [
        "| ansible-core | Python 3.11 | Python 3.12 |",
        "|---|---|---|",
        "| 2.19.0 | tested | - |",
        "| 2.20.1 | - | tested |",
        "| 2.21.5 | - | tested |",
    ]


@pytest.mark.parametrize("content, wrong", [
    ("[]\n", "non-empty list"),
    ("- {ansible_core: 2.19, python: '3.11'}\n", "needs ansible_core: X.Y.Z"),
    ("- {ansible_core: 2.19.0, python: 3}\n", "needs ansible_core: X.Y.Z"),
    ("- {ansible_core: 2.19.0, python: '3.11'}\n- {ansible_core: 2.19.0, python: '3.12'}\n", "listed twice"),
])
def test_a_malformed_list_is_refused(tmp_path, content, wrong):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "versions.yml").write_text(content)
    with pytest.raises(ValueError, match=wrong):
        tested_with.load(str(tmp_path))


def test_the_readme_shows_what_test_versions_runs():
    assert tested_with.main(["--check"], ROOT) == 0
    # scripts/test_versions.sh takes its versions and Pythons from the same list.
    with open(os.path.join(ROOT, "scripts", "test_versions.sh"), encoding="utf-8") as handle:
        script = handle.read()
    assert "scripts/tested_with.py --pairs" in script and "PYTHON_OF" in script


def test_a_table_out_of_step_is_found(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "versions.yml").write_text("- {ansible_core: 2.19.0, python: '3.11'}\n")
    pairs = [{"ansible_core": "2.19.0", "python": "3.12"}]
    (tmp_path / "README.md").write_text(f"# x\n\n{tested_with.block(pairs)}\n")
    assert tested_with.main(["--check"], str(tmp_path)) == 1
    assert tested_with.main(["--write"], str(tmp_path)) == 0
    assert tested_with.main(["--check"], str(tmp_path)) == 0
