# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The largest event AWX would store for a job, at 1, 8 and 24 drives on one host (PTS_BENCH_EVENT_DRIVES="1 8 24").

AWX stores every event of a job and drops an event's result past 700,000 bytes; each event here is one file of
``job_events/`` that ansible-runner's streaming mode (``transmit | worker | process``, the path AWX takes to execution
nodes) wrote in the process directory. Each drive is a 16 MiB loop device running the IOPS test at one block size and
one mix, three 0.2 s rounds: what grows with the drive count is the harness's events, not fio's output.

PTS_BENCH_ROOT runs another checkout of the collection (an earlier commit, for a before/after in one sitting); its
results are saved under the name PTS_BENCH_LABEL (default ``event_size``).
"""

from __future__ import annotations

import datetime
import os
import pathlib
import shutil
import sys
import tempfile

from _common import ROOT as HERE, LoopDevice, machine, save, table

sys.path.insert(0, os.path.join(HERE, "tests", "integration"))
from awx_runner import StreamedJob, job_dir  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.environ.get("PTS_BENCH_ROOT", HERE)
COUNTS = [int(n) for n in os.environ.get("PTS_BENCH_EVENT_DRIVES", "1 8 24").split()]
LABEL = os.environ.get("PTS_BENCH_LABEL", "event_size")
TINY = {"pts_allow_destroy": True, "pts_profile": "quick", "pts_tests": ["iops"], "pts_fleet_fail_on": [],
        "pts_run_round_seconds": 0.2, "pts_run_max_rounds": 3, "pts_run_window": 3, "pts_run_iops_mixes": [0],
        "pts_run_iops_block_sizes": ["4k"], "pts_precondition_capacity_multiple": 1}


def one(count: int) -> dict:
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"pts-bench-events-{count}-", dir="/var/tmp"))
    devices = []
    try:
        devices = [LoopDevice(_folder(work, i), "16M") for i in range(count)]
        env = {"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections"), "ANSIBLE_FORKS": str(count + 5),
               "ANSIBLE_LOCAL_TEMP": str(work / "local"), "ANSIBLE_REMOTE_TMP": str(work / "remote-tmp"),
               "MPLCONFIGDIR": str(work / "mpl"), "PTS_REPORT_FORMATS": ""}
        host = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                "pts_run_remote_dir": str(work / "remote"),
                "pts_devices": [{"path": d.path, "name": f"bay{i:02d}", "backing_file": d.image}
                                for i, d in enumerate(devices)]}
        data = job_dir(work, "job", {"jbof01": host}, dict(TINY, pts_results_dir=str(work / "results")), env)
        job = StreamedJob(data, "1").wait(timeout=1800)
        size, what = job.largest_event()
        return {"drives": count, "rc": job.rc, "status": job.status, "events": len(job.event_sizes),
                "largest_event_bytes": size, "largest_event": what,
                "all_events_bytes": sum(job.event_sizes.values())}
    finally:
        for device in devices:
            device.detach()
        shutil.rmtree(work, ignore_errors=True)


def _folder(work: pathlib.Path, index: int) -> pathlib.Path:
    folder = work / "drives" / str(index)
    folder.mkdir(parents=True)
    return folder


def run() -> dict:
    rows = [one(n) for n in COUNTS]
    result = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "root": ROOT,
              "machine": machine(), "rows": rows}
    save(LABEL, result)
    print(table(["drives", "rc", "events", "largest event (bytes)", "largest event", "all events (bytes)"],
                [[r["drives"], r["rc"], r["events"], r["largest_event_bytes"], r["largest_event"],
                  r["all_events_bytes"]] for r in rows]))
    return result


main = run

if __name__ == "__main__":
    run()
