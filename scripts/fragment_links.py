# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every release-note entry of a changelog fragment ends with the issue or pull request it came from, as CONTRIBUTING
asks: ``<component> - <what changed for users> (https://github.com/fleetqual/pts/issues/N).``; ``trivial`` entries
(not in the release notes) need none.

    python scripts/fragment_links.py    # make lint: names each entry without its link
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from version_label import load_fragments  # noqa: E402  pylint: disable=wrong-import-position

# trivial: not in the release notes; "add object.*" and "add plugin.*": a new object, named by its name.
UNLINKED_SECTIONS = ("trivial",)
LINK = re.compile(r"\(https://github\.com/fleetqual/pts/(?:issues|pull)/\d+\)\.?$")


def unlinked(root: str = ".") -> list[str]:
    """``<fragment>: <section>: <entry's end>`` for each release-note entry that does not end with its link."""
    found = []
    for name, fragment in load_fragments(root).items():
        for section, entries in fragment.items():
            if section in UNLINKED_SECTIONS or section.startswith("add "):
                continue
            for entry in entries if isinstance(entries, list) else [entries]:
                if not LINK.search(str(entry).strip()):
                    found.append(f"{name}: {section}: ...{str(entry).strip()[-60:]}")
    return found


def main() -> int:
    found = unlinked()
    for line in found:
        print(f"fragment_links: no issue or pull request link at the end: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
