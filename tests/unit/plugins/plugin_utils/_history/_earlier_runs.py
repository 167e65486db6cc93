# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Earlier runs of one model in a history: ten full-profile runs and two quick ones of ACME X1 firmware 1.0, one of
firmware 2.0, one of another model, a later run and this run - the population a drive is compared with."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _index
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import make_run

IOPS, LAT, XSR, HIR = "iops_4k_write", "latency_4k_write_mean_ms", "xsr_recovery_min", "hir_gain_ws1"


def _earlier(root: str) -> None:
    """Ten full runs and two quick ones of ACME X1 1.0, one of 2.0, one of another model; a later run; this run."""
    for number in range(1, 11):
        make_run(root, f"full-{number:02d}", [{"drive": "d1", "serial": f"S{number}",
                                               "figures": {IOPS: 1000.0 + number, LAT: 0.5}}],
                 when=f"2026-10-{number:02d}T10:00:00.000+00:00")
    for number in (11, 12):
        run_dir = make_run(root, f"quick-{number}", [{"drive": "d1", "serial": "Q", "figures": {IOPS: 5.0}}],
                           when=f"2026-10-{number}T10:00:00.000+00:00")
        path = os.path.join(run_dir, "h1", "d1", "result.json")
        from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results  # pylint: disable=import-outside-toplevel
        _results.atomic_write_json(path, dict(_results.read_json(path), quick_profile=True))
    make_run(root, "fw2", [{"drive": "d1", "firmware": "2.0", "figures": {IOPS: 9.0}}],
             when="2026-10-13T10:00:00.000+00:00")
    make_run(root, "other", [{"drive": "d1", "model": "OTHER", "figures": {IOPS: 9.0}}],
             when="2026-10-14T10:00:00.000+00:00")
    make_run(root, "later", [{"drive": "d1", "figures": {IOPS: 1.0}}], when="2026-12-01T10:00:00.000+00:00")
    make_run(root, "this", [{"drive": "d1", "serial": "NEW", "figures": {IOPS: 1.0}}],
             when="2026-11-01T10:00:00.000+00:00")
    _index.rebuild(root)
