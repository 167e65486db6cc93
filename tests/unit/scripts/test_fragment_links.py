# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/fragment_links.py: a release-note entry without its issue or pull request link is named; trivial ones and
the tree's own fragments pass."""

from __future__ import annotations

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location("fragment_links", ROOT / "scripts" / "fragment_links.py")
fragment_links = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(fragment_links)


def _write(root: pathlib.Path, name: str, text: str) -> None:
    (root / "changelogs" / "fragments").mkdir(parents=True, exist_ok=True)
    (root / "changelogs" / "fragments" / name).write_text(text, encoding="utf-8")


def test_an_entry_without_its_link_is_named(tmp_path):
    _write(tmp_path, "1-good.yml", "bugfixes:\n  - pts_run role - fixed (https://github.com/fleetqual/pts/issues/1).\n"
                                   "trivial:\n  - Tests - faster.\n")
    _write(tmp_path, "2-bad.yml", "minor_changes:\n  - pts_run role - a new thing.\n"
                                  "  - fleet_summary - linked (https://github.com/fleetqual/pts/pull/7).\n")
    assert fragment_links.unlinked(str(tmp_path)) == ["2-bad.yml: minor_changes: ...pts_run role - a new thing."]


def test_the_trees_fragments_all_have_their_links():
    assert fragment_links.unlinked(str(ROOT)) == []
