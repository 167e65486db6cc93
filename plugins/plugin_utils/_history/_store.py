# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The history a results root reads and writes: SQLite beside its runs, or the PostgreSQL database pts_history_url
names (location.py). One interface for both (sql.SqlStore)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._location import Spec
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._pg_store import PostgresStore
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sql import SqlStore
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore


def open_store(spec: Spec, root: str | None, readonly: bool = False) -> SqlStore:
    """The history of ``spec`` (for SQLite, the file beside the runs of ``root``); HistoryError (NoHistory when nothing
    was written there yet, CorruptIndex for an SQLite file that is not a sound database) with the reason."""
    if spec.url:
        return PostgresStore(spec, readonly=readonly)
    if not root:
        raise ValueError("an SQLite history lives beside the runs: a results root is needed")
    return SqliteStore(spec.sqlite_path(root), readonly=readonly)


def where(spec: Spec, root: str | None) -> str:
    """The history as every message names it (no password)."""
    return spec.shown(root)
