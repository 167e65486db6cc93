# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Transitional: the old home of the drive probe and the guard, split by job into _text, _sysfs, _usage, _loop,
_aliases, _probe, _listing, _guard and _host (issue 30).

Only ``recheck`` is still importable from here, for plugins/modules/fio_job.py, which another change is rewriting at
the same time; once it imports ``_guard.recheck``, delete this file (tests/unit/plugins/test_import_graph.py names the
one importer it may have).
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import recheck

__all__ = ["recheck"]
