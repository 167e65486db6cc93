# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""HIR's bursts as fio ran them: where each burst lay in time.

* **Figures** (not here: _fio.counted). A burst is one fio section, its own reporting group: fio counts its IOs and
  bytes and the time it ran them (``total_ios``, ``io_bytes``, ``runtime`` in ms, the longest of its threads). Its
  IOPS and bytes/s are those counts over that time - what fio itself prints as ``iops`` and ``bw_bytes`` - never the
  mean of its log lines: fio does not log a job's last partial interval, and at a burst's end some threads log one
  more interval than others, so a line can hold only some of them.
* **Schedule.** fio 3.33 prints no start time per job, so a burst's place in time comes from its iops log: its first
  line ends its first logging interval. fio's helper thread logs every job at the same moments, so two bursts started
  a whole number of intervals apart have their first lines that far apart too: the difference of two first lines is
  the difference of the two starts, to within a logging interval. A burst's end is its start plus fio's run time of
  it (its last, unlogged, partial interval included), so the idle time between two bursts is the difference of their
  first lines less the first one's run time.
* **Late bursts.** Each burst has its place on the schedule: the earliest-started burst (less its place, i x
  period) plus i x (burst + idle). A burst whose first line comes later than its place by more than the tolerance
  (LATE_INTERVALS logging intervals - what the log cannot resolve - or LATE_IDLE_SHARE of the planned idle, whichever
  is longer) started late: fio set its job up late (a loaded host), lengthening the idle before it and shortening the
  one after. A wait state with a late burst did not hold its schedule (see RULE).
"""

from __future__ import annotations

# A burst is late beyond the longer of these: 1.5 logging intervals (two first lines on either side of a logging
# moment are up to one interval apart, and fio's helper thread may log a little late) or a tenth of the planned idle
# (the PTS's wait states differ by at least 1.5 x in idle, so a tenth leaves each well apart from the next).
LATE_INTERVALS = 1.5
LATE_IDLE_SHARE = 0.10
RULE = ("a burst is late when it starts more than the longer of 1.5 logging intervals and a tenth of the planned idle "
        "after its place on the schedule (the earliest-started burst plus i x (burst + idle)); a wait state with a late "
        "burst did not hold its schedule and its figures are not a result for that wait state (gain n/r): a late "
        "burst lengthens the idle before it and shortens the one after, and the drive carries what it recovered in a "
        "longer idle into the bursts after it, so no subset of the bursts measures the planned wait state - the test "
        "is to be repeated")


def place(series: list[list[float]], runtimes_ms: list[float], interval_ms: float) -> list[dict | None]:
    """Which lines of a bursts run's iops log (its threads added up, _interval.ticks) belong to which burst, bursts in
    job order with fio's run time of each. A burst's lines start at the first line not yet taken and end before that
    line plus its run time: it started at most a logging interval before its first line ended, and its last line
    ends by its end (fio's helper thread logs within an interval), while the next burst's first line ends at least a
    logging interval after the next burst starts. Bursts less than a logging interval apart are not told apart. Per
    burst {"first_ms", "last_ms", "lines"}, or None for a burst with no run time or no line left."""
    out: list[dict | None] = []
    index = 0
    for runtime in runtimes_ms:
        if not runtime or index >= len(series):
            out.append(None)
            continue
        first = series[index][0]
        end = index
        while end < len(series) and series[end][0] < first + runtime:
            end += 1
        out.append({"first_ms": float(first), "last_ms": float(series[end - 1][0]), "lines": end - index})
        index = end
    return out


def tolerance_ms(interval_ms: float, idle_ms: float) -> float:
    """How late a burst may start and still hold the schedule (see LATE_INTERVALS, LATE_IDLE_SHARE)."""
    return max(LATE_INTERVALS * interval_ms, LATE_IDLE_SHARE * idle_ms)


def schedule(placed: list[dict | None], runtimes_ms: list[float], period_ms: float, idle_ms: float,
             interval_ms: float) -> dict:
    """The bursts' schedule as fio kept it, from their first log lines (place) and fio's run times: per burst its
    start (Unix ms: the start of its first logging interval), end (start + run time) and how late it started against
    its place on the schedule; the idle time between two bursts as measured; the late bursts; whether the schedule
    held (no burst late, every burst placed). {"bursts": [{"burst", "start_ms", "end_ms", "late_ms", "late"} or
    {"burst", "measured": False}], "idle_ms": [between burst i and i + 1, None where one is not placed], "late": [burst
    numbers], "unplaced": [...], "tolerance_ms", "period_ms", "planned_idle_ms", "held"}."""
    offsets = [p["first_ms"] - i * period_ms for i, p in enumerate(placed) if p is not None]
    reference = min(offsets) if offsets else 0.0
    limit = tolerance_ms(interval_ms, idle_ms)
    bursts, late, unplaced = [], [], []
    for index, (found, runtime) in enumerate(zip(placed, runtimes_ms)):
        if found is None:
            bursts.append({"burst": index + 1, "measured": False})
            unplaced.append(index + 1)
            continue
        start = found["first_ms"] - interval_ms
        delay = found["first_ms"] - index * period_ms - reference
        is_late = delay > limit
        if is_late:
            late.append(index + 1)
        bursts.append({"burst": index + 1, "measured": True, "start_ms": start, "end_ms": start + float(runtime),
                       "late_ms": delay, "late": is_late})
    gaps = []
    for before, after in zip(bursts, bursts[1:]):
        gaps.append(after["start_ms"] - before["end_ms"] if before.get("measured") and after.get("measured") else None)
    return {"bursts": bursts, "idle_ms": gaps, "late": late, "unplaced": unplaced, "tolerance_ms": limit,
            "period_ms": period_ms, "planned_idle_ms": idle_ms, "held": not late and not unplaced and bool(bursts)}
