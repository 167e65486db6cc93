# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The links into the repository from what a release ships point at that release's tag.

Galaxy and Automation Hub render README.md from the tarball, where a relative link goes nowhere, and a link to
``main`` shows another version than the one installed; the docsite's pages link the README the same way. So every
``https://github.com/fleetqual/pts/blob/<ref>/...`` (or ``tree/<ref>``) in README.md, docs/docsite/rst/*.rst and
docs/docsite/links.yml names galaxy.yml's version, the tag `make release` puts on the release it cuts
(scripts/release.sh rewrites them). Links that are not about a version stay as they are: the issue tracker,
``edit_on_github`` (editing is done on main).

    python scripts/release_links.py --check      # make lint: name every link at another ref, exit 1 if any
    python scripts/release_links.py 2.1.0        # scripts/release.sh: rewrite them to the tag 2.1.0
"""

from __future__ import annotations

import glob
import os
import re
import sys

import yaml

REPOSITORY = "https://github.com/fleetqual/pts"
LINK = re.compile(re.escape(REPOSITORY) + r"/(blob|tree)/([^/\s)>`'\"]+)")
FILES = ("README.md", "docs/docsite/links.yml", "docs/docsite/rst/*.rst")


def files(root: str) -> list[str]:
    return sorted(path for pattern in FILES for path in glob.glob(os.path.join(root, pattern)))


def wrong_refs(text: str, version: str) -> list[str]:
    """The links of ``text`` at another ref than ``version``."""
    return [match.group(0) for match in LINK.finditer(text) if match.group(2) != version]


def rewrite(text: str, version: str) -> str:
    return LINK.sub(lambda match: f"{REPOSITORY}/{match.group(1)}/{version}", text)


def galaxy_version(root: str) -> str:
    with open(os.path.join(root, "galaxy.yml"), encoding="utf-8") as handle:
        return str(yaml.safe_load(handle)["version"])


def main(argv: list[str], root: str = ".") -> int:
    check = "--check" in argv
    given = [arg for arg in argv if arg != "--check"]
    version = given[0] if given else galaxy_version(root)
    problems = []
    for path in files(root):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if check:
            problems += [f"{os.path.relpath(path, root)}: {link} (not the tag {version})"
                         for link in wrong_refs(text, version)]
        elif rewrite(text, version) != text:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(rewrite(text, version))
            print(f"release_links: {os.path.relpath(path, root)} now links the tag {version}")
    for problem in problems:
        print(f"release_links: {problem}", file=sys.stderr)
    if check and not problems:
        print(f"release_links: every link into the repository names the tag {version}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
