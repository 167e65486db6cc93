# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The SQLite back end of the history (_sqlite_store): a corrupt index moved aside with its journal, under a name of
its own each time, and an index a rebuild already moved aside not moved again."""

from __future__ import annotations

import datetime
import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index, _sqlite_store
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import _garbage, db_path, make_run


def test_an_index_moved_aside_by_another_rebuild_is_not_moved_again(tmp_path):
    root = str(tmp_path / "results")
    make_run(root, "run-1", [{"drive": "d1", "figures": {"iops_4k_write": 1.0}}])
    database = db_path(root)
    _index.rebuild(root)
    assert _sqlite_store.move_aside(database) is None and os.path.exists(database)
    assert _sqlite_store.move_aside(str(tmp_path / "results" / "none.sqlite")) is None
    _garbage(database)
    with open(database + "-journal", "wb") as handle:
        handle.write(b"a journal of the corrupt file")
    stamp = datetime.datetime(2026, 11, 1, 10, tzinfo=datetime.timezone.utc)
    assert _sqlite_store.move_aside(database, stamp) == database + ".corrupt-20261101T100000Z"
    assert not os.path.exists(database) and not os.path.exists(database + "-journal")
    assert os.path.exists(database + ".corrupt-20261101T100000Z-journal")
    _garbage(database)
    assert _sqlite_store.move_aside(database, stamp) == database + ".corrupt-20261101T100000Z-2"
