# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What the plan checks of the history before any drive is touched: what can be known without the server. A server
that is down is no reason to refuse a run - its results stay on disk and playbooks/report.yml writes them later."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _pg_store
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec


def before_the_run(spec: Spec) -> None:
    """ValueError naming where the history was set when a postgresql:// history cannot be used from this controller
    (its client library is missing)."""
    if spec.kind == "postgresql" and _pg_store.psycopg is None:
        raise InputError(f"{spec.source}: {_pg_store.missing_text(spec.shown())}")
