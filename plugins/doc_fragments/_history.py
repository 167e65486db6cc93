# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this doc fragment is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

from __future__ import annotations


class ModuleDocFragment:
    # The options of the actions that read or write the history of runs.
    DOCUMENTATION = r"""
options:
  history_url:
    description:
      - Where the history is. Unset, the C(PTS_HISTORY_URL) environment variable, else SQLite beside the runs
        (C(pts-history.sqlite) in each run's results root). The collection's roles and playbooks pass the
        C(pts_history_url) variable.
      - A C(postgresql://) URL is one PostgreSQL database every controller, job slice and AWX job shares (libpq's URL;
        the C(psycopg) Python package on the controller). It is never printed with its password. See
        R(History and comparison,ansible_collections.fleetqual.pts.docsite.compare).
    type: str
  history_password:
    description:
      - The PostgreSQL history's password, when it is not in O(history_url) (vault it). Else libpq finds it itself
        (C(PGPASSWORD), C(~/.pgpass), a service file). It is never printed nor written into a result file or report.
      - The collection's roles and playbooks pass the C(pts_history_password) variable.
    type: str
    version_added: 3.0.0
"""
