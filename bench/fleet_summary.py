# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The judge's part of the end phase at fleet scale: the fleet summary of 1,000 drives (100 hosts x 10) whose workers
already drew their reports (each drive's result.json up to date), as playbooks/pts.yml's judge writes it - fleet.md,
fleet.json, junit.xml, fleet.html, fleet.pdf, the plots and the history index. Synthetic result trees with the shape
of real ones (bench/report_time.py's drive)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time

from _common import machine, save, table
from report_time import fleet_tree, render, write_drive

DRIVES = int(os.environ.get("PTS_BENCH_FLEET_DRIVES", "1000"))


def main() -> dict:
    work = tempfile.mkdtemp(prefix="pts-bench-fleet-", dir="/var/tmp")
    try:
        one = write_drive(os.path.join(work, "one"), "h0", "d0", 1)
        render(one)
        rows = []
        for count in (10, 100, DRIVES):
            fleet_dir = fleet_tree(work, one, count)
            from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary  # noqa: E402
            started, cpu = time.monotonic(), time.process_time()
            summary = _fleet_summary.summarize([fleet_dir], fleet_dir, {"fail_on": ["FAIL", "INCOMPLETE"]})
            rows.append({"drives": len(summary["drives"]), "wall_s": time.monotonic() - started,
                         "cpu_s": time.process_time() - cpu})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"machine": machine(), "rows": rows}
    save("fleet_summary", result)
    print(table(["drives", "fleet summary (wall)", "CPU"],
                [[r["drives"], f"{r['wall_s']:.1f} s", f"{r['cpu_s']:.1f} s"] for r in rows]))
    return result


if __name__ == "__main__":
    main()
