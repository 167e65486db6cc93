# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The report kinds (_kind.ReportKind), by name: a test's ``report`` in module_utils/_pts/_tests/ names the one that
draws it. The generic report asks these and names no test."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _characterisation, _hdd, _hir_md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _intensity_md, _iops, _latency, _qos
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _throughput, _wsat, _xsr_md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._kind import ReportKind

# In the order their steady-state notes and summary rows read.
KINDS = {kind.name: kind for kind in (
    _iops.KIND, _throughput.KIND, _latency.KIND, _wsat.KIND, _intensity_md.KIND, _xsr_md.KIND, _hir_md.KIND,
    _qos.KIND, _characterisation.KIND, _hdd.KIND)}


def of(test: str) -> ReportKind:
    """The kind that draws a test."""
    return KINDS[BY_NAME[test].report]


def present(tests) -> list[ReportKind]:
    """The kinds of these tests, each once, in KINDS' order."""
    wanted = {BY_NAME[name].report for name in tests}
    return [kind for name, kind in KINDS.items() if name in wanted]
