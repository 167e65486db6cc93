# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Quality of service (latency percentiles, the measurement a datacenter SSD specification's QoS table asks for):
after the purge and the workload-independent preconditioning (WIPC), 4k random writes to steady state, then at every
queue depth of the table 4k random reads and 4k random writes, each one fio run of exactly the IOs the deepest
percentile asked for needs to be resolved (ten of them beyond it), capped in time. Each run's latency histogram (fio
json+) gives its percentiles. It is the measurement the plan adds when an acceptance specification asks for a queue
depth or a percentile no selected test measures (docs/docsite/rst/acceptance.rst)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, positive_ints, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _sections
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

BLOCK_SIZE = 4096
DIRECTIONS = (("read", "randread", 100), ("write", "randwrite", 0))
# The percentiles a QoS table gives (99 % to six nines) and the median; the deepest asked for sets the IO count (six
# nines: ten million IOs per cell).
PERCENTILES = ("50", "90", "95", "99", "99.9", "99.99", "99.999", "99.9999")
MAX_QD = 1024
# The preconditioning's tracking variable: the drive at steady state under 4k random writes before any cell runs.
PC_DV = {"name": "4k 0/100 IOPS", "job": "qos-pc", "mix": 0, "bs": BLOCK_SIZE, "metric": "iops"}


def percentile(variable: str, value: object) -> str:
    """The deepest percentile to resolve, as one of PERCENTILES ("99.99"); a number or its text."""
    text = None
    if isinstance(value, str):
        text = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        text = repr(float(value))
    if text is not None:
        text = text.strip()
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    if text not in PERCENTILES:
        raise fail(variable, value, f"must be one of {', '.join(PERCENTILES)} (the percentile, in %)")
    return text


def ios(pct: str) -> int:
    """The IOs one cell runs: the fewest that resolve the percentile."""
    return _histogram.needed(pct)


def cell_name(direction: str, qd: int) -> str:
    return f"qos-{direction}-qd{qd}"


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    qds = sorted(positive_ints("pts_run_qos_queue_depths", get("qos_queue_depths"), maximum=MAX_QD))
    deepest = percentile("pts_run_qos_percentile", get("qos_percentile"))
    return dict(wipc=True, precondition=None, mixes=[100, 0], block_sizes=[BLOCK_SIZE], numjobs=common["numjobs"],
                iodepth=common["iodepth"], queue_depths=qds, percentile=deepest, ios=ios(deepest),
                round_seconds=seconds("pts_run_qos_precondition_seconds", get("qos_precondition_seconds")),
                max_seconds=seconds("pts_run_qos_max_seconds", get("qos_max_seconds")))


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    notes = _sections.unfit_sizes(test, logical_block_size)
    if notes:
        return [], notes
    cell = _sections.section
    pc = cell("qos-pc", "randwrite", 0, BLOCK_SIZE, test["round_seconds"])
    segments = [{"name": "precondition", "stop": "steady", "combinations": [pc], "dvs": [dict(PC_DV)]}]
    rows = []
    for qd in test["queue_depths"]:
        for direction, rw, mix in DIRECTIONS:
            # Exactly the IOs the percentile needs (io_size, not time based), within the cap (runtime): one thread
            # at the table's queue depth.
            section = cell(cell_name(direction, qd), rw, mix, BLOCK_SIZE, test["max_seconds"], numjobs=1, iodepth=qd,
                           time_based=0, io_size=test["ios"] * BLOCK_SIZE)
            rows.append({"label": f"4k random {direction} at QD{qd}: {test['ios']:,} IOs (p{test['percentile']}), "
                                  f"at most {test['max_seconds']:g} s", "phase": "measure", "qd": qd,
                         "direction": direction, "combinations": [section]})
    segments.append({"name": "measure", "stop": "sweep", "rounds": rows, "dvs": [], "output_format": "json+"})
    return _sections.finish(segments)


TEST = Test(
    name="qos", title="Quality of Service", short="QoS", family="acceptance", stop="phases", purge="test",
    report="qos", inputs=_inputs, segments=_segments,
    profile={
        "standard": {"qos_queue_depths": [1, 32], "qos_percentile": "99.99", "qos_precondition_seconds": 60,
                     "qos_max_seconds": 1800},
        "quick": {"qos_precondition_seconds": 0.5, "qos_max_seconds": 5},
    },
    raw_variables=("qos_queue_depths", "qos_percentile", "qos_precondition_seconds", "qos_max_seconds"),
)
