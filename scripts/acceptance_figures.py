# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The docsite's table of acceptance figures (docs/docsite/rst/acceptance.rst), generated from the one list of them
(plugins/plugin_utils/_figures/_catalogue.py) - so the table says what the rule validation accepts and nothing else.
tests/unit/plugins/plugin_utils/_figures/test__catalogue.py holds the page to it.

    python scripts/acceptance_figures.py --check    # the page's table is the one the list gives
    python scripts/acceptance_figures.py --write    # rewrite it after changing a report kind's figures
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "docsite", "rst", "acceptance.rst")


def main(argv: list[str]) -> int:
    sys.path.insert(0, os.path.join(ROOT, ".collections"))
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue  # pylint: disable=import-outside-toplevel

    with open(PAGE, encoding="utf-8") as handle:
        page = handle.read()
    start, end = page.index(_catalogue.TABLE_START), page.index(_catalogue.TABLE_END) + len(_catalogue.TABLE_END)
    wanted = page[:start] + _catalogue.rst_table() + page[end:]
    if argv[1:] == ["--write"]:
        with open(PAGE, "w", encoding="utf-8") as handle:
            handle.write(wanted)
        return 0
    if wanted != page:
        print(f"{PAGE}: its table of figures is not the catalogue's; run python scripts/acceptance_figures.py --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
