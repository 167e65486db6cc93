# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Hand-made run sets for the comparisons: one drive per serial, a run a day, with the figures given."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._runs import make_run

IOPS, LAT, TP_READ = "iops_4k_write", "latency_4k_write_mean_ms", "throughput_1024k_read_mb_s"


def day(number: int) -> str:
    return f"2026-11-{number:02d}T10:00:00.000+00:00"


def fleet_run(root, run, number, values: dict, firmware="1.0", model="ACME X1", settings=None, host="h1"):
    """A run of one drive per serial: values {serial: {figure: value}}."""
    return make_run(root, run, [{"host": host, "drive": f"d-{serial}", "serial": serial, "model": model,
                                 "firmware": firmware, "figures": figures} for serial, figures in values.items()],
                    when=day(number), settings=settings)
