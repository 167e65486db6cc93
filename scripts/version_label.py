# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""`make lint`'s version check: galaxy.yml's version is the one the pending changelog fragments call for (semver).

With fragments in changelogs/fragments/, the version must not be released yet and must be higher than the latest
release by at least what the fragments say: a new major version for ``breaking_changes`` or ``removed_features``, a
new minor version for ``minor_changes``, ``major_changes`` or ``deprecated_features``, a new patch version otherwise.
Without fragments it must be a released version (the release just cut) or higher. Every ``version_added`` of a module,
plugin, role or option is a released version or galaxy.yml's (antsibull-changelog lists a new one under it).
"""

from __future__ import annotations

import glob
import os
import re
import sys

import yaml

MAJOR = ("breaking_changes", "removed_features")
MINOR = ("major_changes", "minor_changes", "deprecated_features")


def _semver(text: str) -> tuple[int, int, int]:
    core = str(text).split("-", 1)[0].split("+", 1)[0]
    major, minor, patch = (int(part) for part in core.split("."))
    return major, minor, patch


def problems(version: str, released: list[str], fragments: dict[str, dict]) -> list[str]:
    """What is wrong with ``version`` given the released versions and the pending fragments (file name -> content)."""
    latest = max((_semver(r) for r in released), default=(0, 0, 0))
    if not fragments:
        return []
    if version in released:
        return [f"galaxy.yml's version {version} is already released, and {len(fragments)} changelog fragment(s) are "
                f"pending ({', '.join(sorted(fragments))}): set the next version"]
    kinds = {kind for content in fragments.values() for kind in (content or {})}
    if kinds & set(MAJOR):
        needed, why = (latest[0] + 1, 0, 0), "a breaking change or removal"
    elif kinds & set(MINOR):
        needed, why = (latest[0], latest[1] + 1, 0), "new features or deprecations"
    else:
        needed, why = (latest[0], latest[1], latest[2] + 1), "fixes"
    if _semver(version) < needed:
        holding = sorted(name for name, content in fragments.items() if set(content or {}) & set(MAJOR + MINOR))
        return [f"galaxy.yml's version {version} is too low: the pending fragments hold {why} "
                f"({', '.join(holding) or 'fixes only'}), so the next release after "
                f"{'.'.join(map(str, latest))} is at least {'.'.join(map(str, needed))}"]
    return []


VERSION_ADDED = re.compile(r"""^\s*version_added:\s*['"]?([0-9][0-9A-Za-z.+-]*)""", re.M)


def unreleased_additions(version: str, released: list[str], texts: dict[str, str]) -> list[str]:
    """``version_added`` values (file name -> its text) that are neither released nor the version being prepared."""
    known = set(released) | {version}
    return [f"{name}: version_added {found} is neither released nor galaxy.yml's version {version}"
            for name, text in sorted(texts.items()) for found in VERSION_ADDED.findall(text) if found not in known]


def load_fragments(root: str) -> dict[str, dict]:
    """The pending changelog fragments: file name -> content."""
    fragments = {}
    for path in sorted(glob.glob(os.path.join(root, "changelogs", "fragments", "*.y*ml"))):
        with open(path, encoding="utf-8") as handle:
            fragments[os.path.basename(path)] = yaml.safe_load(handle) or {}
    return fragments


def main(root: str) -> int:
    with open(os.path.join(root, "galaxy.yml"), encoding="utf-8") as handle:
        version = str(yaml.safe_load(handle)["version"])
    with open(os.path.join(root, "changelogs", "changelog.yaml"), encoding="utf-8") as handle:
        released = [str(v) for v in ((yaml.safe_load(handle) or {}).get("releases") or {})]
    fragments = load_fragments(root)
    texts = {}
    for pattern in ("plugins/**/*.py", "roles/*/meta/argument_specs.yml"):
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            with open(path, encoding="utf-8") as handle:
                texts[os.path.relpath(path, root)] = handle.read()
    found = problems(version, released, fragments) + unreleased_additions(version, released, texts)
    for line in found:
        print(f"version: {line}", file=sys.stderr)
    if not found:
        print(f"version: {version} fits {len(fragments)} pending fragment(s) after release "
              f"{max(released, key=_semver) if released else 'none'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
