# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the host's check right before every fio costs (module_utils/_pts/_fio_runner.py): the guard's record looked up
and its hold proved, the device probed again (mounts, holders, openers, identity), its signatures read again with
wipefs, and the job file checked as fio reads it - on a real loop device held as a run holds it. Each part alone and
the whole, REPEAT times; the median and the largest."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import ROOT, machine, save, table

sys.path.insert(0, os.path.join(ROOT, ".collections"))

# pylint: disable=wrong-import-position
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard, _guard_record, _hold, _probe  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _signatures  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check, _plan  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.modules.fio_job import _tool  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _job_text  # noqa: E402

REPEAT = int(os.environ.get("PTS_BENCH_REPEAT", "50"))


def iops_round(device: str) -> str:
    """The IOPS test's round 1 job file as the run writes it (PTS-E 1.1, standard profile: 56 sections)."""
    params = {"pts_run_tests": ["iops"], "pts_run_window": 5, "pts_run_max_data_excursion_pct": 20,
              "pts_run_max_slope_excursion_pct": 10}
    plan = _plan.build_plan(params, [{"key": "d1", "size_bytes": 2 ** 30, "logical_block_size": 512}])
    test = plan["drives"][0]["tests"][0]
    return _job_text.round_text(test, test["segments"][0], {"number": 1}, device, plan["ioengine"], 0, "d1")


def timed(call) -> dict:
    times = []
    for dummy in range(REPEAT):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return {"median_ms": statistics.median(times) * 1000, "max_ms": max(times) * 1000}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "drive.img")
        subprocess.run(["truncate", "-s", "256M", image], check=True)
        device = subprocess.run(["losetup", "--show", "-f", image], capture_output=True, text=True,
                                check=True).stdout.strip()
        st = os.stat(device)
        devnum = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
        try:
            hold = _hold.start(device, devnum, "bench-guard", token="b" * 32)
            held = {k: hold[k] for k in ("pid", "start_time", "run_id", "token", "devnum", "lock")}
            verdict = dict(_guard.guard_record(_probe.probe(device)), path=device, resolved=device, key="d1",
                           passed=True, signatures=[])
            _guard_record.write(_guard_record.make(verdict, held, "bench-guard", "b" * 32, False, "now"))
            expect = dict(verdict, hold=held)
            wipefs = subprocess.run(["sh", "-c", "command -v wipefs"], capture_output=True, text=True, check=False).stdout.strip()
            job = iops_round(device)
            parts = {
                "guard record read": lambda: _guard.host_record(device, expect),
                "probe (2.0.0's whole check)": lambda: _guard.recheck(device, expect),
                "probe and wipefs (3.0.0)": lambda: _guard.recheck(
                    device, expect, signatures=lambda info: _signatures.read(info, _tool, wipefs)),
                "job file, 56 sections": lambda: _job_check.refusals(job, device),
            }
            found = {name: timed(call) for name, call in parts.items()}
        finally:
            _hold.release("bench-guard", devnum, token="b" * 32)
            _guard_record.remove(devnum)
            subprocess.run(["losetup", "-d", device], check=False)
    load = os.getloadavg()[0]
    print(table(["check", "median ms", "max ms"],
                [[n, f"{v['median_ms']:.1f}", f"{v['max_ms']:.1f}"] for n, v in found.items()]))
    print(f"load average during the run: {load:.2f}")
    print(f"saved {save('guard_check', {'machine': machine(), 'repeat': REPEAT, 'load': load, 'parts': found})}")


if __name__ == "__main__":
    main()
