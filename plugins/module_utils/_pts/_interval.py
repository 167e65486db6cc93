# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What fio reports while one continuous stimulus runs (XSR's access groups, HIR's bursts and returns to baseline),
as numbers: its status dumps and its interval logs.

* **Status dumps** (``--status-interval`` with ``--output-format=json+``): every interval fio appends a whole JSON
  document to its output file with the counters *since the job started* - bytes and IOs done, the run time, the
  latency sum (mean x IOs), maximum and histogram buckets. A sample is the difference between two dumps: fio's own
  counters, so its throughput, IOPS, mean latency and latency buckets are exactly those of the IOs in it. fio 3.33
  writes these as the job runs, so a sample can be filed the moment it ends.
* **Interval logs** (``write_bw_log``/``write_iops_log``/``write_lat_log`` with ``log_avg_msec`` and
  ``log_unix_epoch``): one line per logging interval that had IO - ``time (Unix ms, the interval's end), value,
  direction, block size, priority`` - and no line for an interval without IO. fio 3.33 writes them only when the job
  ends (measured here: the files do not exist while it runs), so they give the fine timeline, the bursts and the idle
  periods after the fact; a logging interval is the resolution of every idle time measured from them.
"""

from __future__ import annotations

import json

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _histogram

DIRECTIONS = ("read", "write")
# Two log lines closer than this share of a logging interval are one tick (the clones of a job log at the same moment,
# a millisecond or two apart); a gap longer than GAP_SHARE intervals between two ticks had whole intervals without IO.
TICK_SHARE = 0.5
GAP_SHARE = 1.5


class IntervalError(PtsError, ValueError):
    """fio's status dumps or interval logs that cannot be cut into samples."""


def documents(text: str) -> tuple[list[str], str]:
    """Split fio's output into its complete JSON documents and the rest (a document fio is still writing, kept for the
    next read). Text outside the documents (fio's notes) is dropped. Strings are honoured, so a brace in a job name
    does not end a document."""
    found: list[str] = []
    index = 0
    while True:
        start = text.find("{", index)
        if start < 0:
            return found, ""
        depth, in_string, escaped = 0, False, False
        end = None
        for pos in range(start, len(text)):
            char = text[pos]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    end = pos + 1
                    break
        if end is None:
            return found, text[start:]
        found.append(text[start:end])
        index = end


def _bins(data: dict, where: str) -> list[list[int]]:
    found = _fio.histogram(data, where)
    return _histogram.normalise(found["bins"]) if found else []


def _direction_counters(data: dict, where: str) -> dict:
    lat = _fio.block(data, "lat_ns", where)
    bins = _bins(data, where)
    # Completed IOs: lat_ns's N (fio's total_ios also counts the IOs still in flight at the dump).
    ios = int(_fio.optional(lat, "N", where)) or _histogram.total(bins) or int(_fio.optional(data, "total_ios", where))
    return {"io_bytes": int(_fio.optional(data, "io_bytes", where)), "ios": ios,
            "runtime_ms": int(_fio.optional(data, "runtime", where)),
            "lat_sum_ns": float(_fio.optional(lat, "mean", where)) * ios,
            "lat_max_ns": float(_fio.optional(lat, "max", where)) if ios else None,
            "lat_min_ns": float(_fio.optional(lat, "min", where)) if ios else None, "bins": bins}


def counters(document: object) -> dict:
    """One status dump (a parsed document, or its text) as the counters of its one job since the job started:
    {"timestamp_ms" (Unix ms), "job_runtime_ms", "runtime_ms" (the job's run time: its busiest direction's),
    "read"/"write": {io_bytes, ios, runtime_ms, lat_sum_ns, lat_max_ns, lat_min_ns, bins}, "job": the parsed job
    (name, rw, bs...)}. IntervalError unless the document has exactly one job (a segment's stimulus is one section
    under group_reporting); FioOutputError when the job reports an error or a field is not what fio prints (both
    ValueErrors)."""
    try:
        data = json.loads(document) if isinstance(document, str) else document
    except ValueError as exc:
        raise IntervalError(f"not a fio JSON document: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise IntervalError("not a fio JSON document")
    if len(data["jobs"]) != 1:
        raise IntervalError(f"a continuous stimulus is one fio section; this document has {len(data['jobs'])}")
    raw = data["jobs"][0]
    job = _fio.parse_job(raw, data.get("global options") or {})
    found = {name: _direction_counters(_fio.block(raw, name, "a status dump"), f"a status dump's {name}")
             for name in DIRECTIONS}
    return {"timestamp_ms": int(_fio.optional(data, "timestamp_ms", "a status dump")),
            "job_runtime_ms": int(_fio.optional(raw, "job_runtime", "a status dump")),
            "runtime_ms": max(found[name]["runtime_ms"] for name in DIRECTIONS), **found,
            "job": {k: job[k] for k in ("name", "rw", "pattern", "mix", "bs", "numjobs", "iodepth", "options")},
            "fio_version": data.get("fio version")}


def _window_direction(before: dict | None, after: dict, seconds: float) -> dict:
    ios = after["ios"] - (before["ios"] if before else 0)
    io_bytes = after["io_bytes"] - (before["io_bytes"] if before else 0)
    if ios < 0 or io_bytes < 0:
        raise IntervalError("the later status dump counts fewer IOs than the earlier one: not two readings of one run")
    bins = _histogram.subtract(after["bins"], before["bins"] if before else [])
    found = {"runtime_ms": int(round(seconds * 1000)), "iops": ios / seconds if seconds else 0.0,
             "bw_bytes": io_bytes / seconds if seconds else 0.0, "io_bytes": io_bytes, "total_ios": ios,
             "lat_ns": {"mean": None, "max": None, "min": None, "percentiles": {}, "max_from": None}}
    if not ios:
        return found
    lat = found["lat_ns"]
    lat["mean"] = (after["lat_sum_ns"] - (before["lat_sum_ns"] if before else 0.0)) / ios
    # fio's maximum counts from the job's start: it is this window's own when it rose in the window; else the window's
    # slowest IO is in its slowest bucket (fio's representative value, within 1/64 of the IO's latency).
    if before is None or before["lat_max_ns"] is None or after["lat_max_ns"] > before["lat_max_ns"]:
        lat["max"], lat["max_from"] = after["lat_max_ns"], "fio"
    elif bins:
        lat["max"], lat["max_from"] = float(bins[-1][0]), "bucket"
    if before is None or before["lat_min_ns"] is None or after["lat_min_ns"] < before["lat_min_ns"]:
        lat["min"] = after["lat_min_ns"]
    elif bins:
        lat["min"] = float(bins[0][0])
    if bins:
        lat["percentiles"] = {k: float(v) for k, v in _histogram.percentiles(bins, _fio.PERCENTILES).items()}
        found["histogram"] = {"source": "lat_ns", "bins": bins}
    return found


def window(before: dict | None, after: dict) -> dict:
    """The IOs between two status dumps (``before`` None: from the job's start) as a fio job of _fio.parse: per
    direction and in total its IOPS, bytes/s, bytes, IOs, mean / max / min latency and percentiles (from the
    window's own buckets), its run time, and ``window``: where it lies (job run time and Unix ms at both ends)."""
    start_ms = before["runtime_ms"] if before else 0
    seconds = (after["runtime_ms"] - start_ms) / 1000.0
    if seconds <= 0:
        raise IntervalError(f"the status dumps are {seconds * 1000:.0f} ms apart in fio's run time: no window")
    found = dict(after["job"], **{name: _window_direction(before[name] if before else None, after[name], seconds)
                                  for name in DIRECTIONS})
    found["total"] = _fio.combined(found["read"], found["write"])
    found["runtime_ms"] = int(round(seconds * 1000))
    found["cpu"] = {"usr_pct": None, "sys_pct": None}
    begin = after["timestamp_ms"] - int(round(seconds * 1000)) if before is None else before["timestamp_ms"]
    found["window"] = {"from_ms": start_ms, "to_ms": after["runtime_ms"], "from_unix_ms": begin,
                       "to_unix_ms": after["timestamp_ms"]}
    return found


class Sampler:
    """Cuts one continuous stimulus into samples at fio's status dumps, as they come: every window between two
    consecutive dumps is a sample, the first from the job's start, the last (fio's final report) to its end.

    fio dumps every status interval counted from its own start, while the job starts a little later (its set-up): the
    first sample is shorter than the interval by that set-up, and the run's last moments after its last periodic
    dump - as long as the set-up - are a short sample of their own, unless no IO completed in them (fold_idle). Nothing
    is left out, so each sample is exactly the difference of two of fio's documents, and the samples add up to the
    whole run.
    """

    def __init__(self) -> None:
        self.number = 0
        self.before: dict | None = None

    def feed(self, dump: dict) -> list[tuple[int, dict | None, dict]]:
        """A status dump (counters()) in order; returns the sample it closes: [(number, before, after)] (none when
        fio's run time did not move since the dump before)."""
        start = self.before["runtime_ms"] if self.before else 0
        if dump["runtime_ms"] < start:
            raise IntervalError("a status dump earlier in fio's run time than the one before it: not one run in order")
        if dump["runtime_ms"] == start:
            return []
        self.number += 1
        closed = [(self.number, self.before, dump)]
        self.before = dump
        return closed

    def fold_idle(self, closed: list[tuple[int, dict | None, dict]]) -> list[tuple[int, dict | None, dict]]:
        """The samples not yet filed, the last folded into the one before it when no IO completed in it: fio's final
        report in the run's last milliseconds after its last periodic dump may count bytes of IOs still completing but
        none of the IOs (a sample without an IO is no figure, and a failed round to every reader). With nothing
        before it to fold into, it stays as it is."""
        if len(closed) < 2 or completed(closed[-1][1], closed[-1][2]):
            return closed
        number, before = closed[-2][0], closed[-2][1]
        self.number = number
        return closed[:-2] + [(number, before, closed[-1][2])]


def completed(before: dict | None, after: dict) -> int:
    """The IOs completed between two status dumps (``before`` None: from the job's start)."""
    return sum(after[name]["ios"] - (before[name]["ios"] if before else 0) for name in DIRECTIONS)


def parse_log(text: str) -> list[tuple[int, float, int, int]]:
    """An interval log's lines as (time ms, value, direction: 0 read, 1 write, 2 trim, block). fio writes each job's
    (each clone's) lines as one block when the run ends, in time order, one block after another into the same file
    (per_job_logs=0): a line earlier than the one before it starts the next block. ValueError on a line that is not
    fio's ``time, value, direction, block size[, ...]``."""
    rows = []
    block = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            row = (int(parts[0]), float(parts[1]), int(parts[2]))
        except (IndexError, ValueError) as exc:
            raise IntervalError(f"line {number} of the interval log is not fio's (time, value, direction, ...): "
                                f"{line[:80]!r}") from exc
        if rows and row[0] < rows[-1][0]:
            block += 1
        rows.append(row + (block,))
    return rows


def ticks(rows: list[tuple[int, float, int, int]], interval_ms: float,
          direction: int | None = None) -> list[list[float]]:
    """The log's lines as one series: the lines of a job's clones (numjobs) logged at the same moment - within half a
    logging interval, one line per clone (block) - added up, at the latest of their times: [[time ms, value], ...] in
    time order (for a bw or iops log, the job's total; latency logs are averages and are not added up this way).
    ``direction`` keeps one direction."""
    picked = sorted((t, v, b) for t, v, d, b in rows if direction is None or d == direction)
    out: list[list[float]] = []
    first = 0.0
    blocks: set[int] = set()
    for time_ms, value, block in picked:
        if out and time_ms - first < interval_ms * TICK_SHARE and block not in blocks:
            out[-1][0], out[-1][1] = time_ms, out[-1][1] + value
            blocks.add(block)
        else:
            out.append([time_ms, value])
            first, blocks = time_ms, {block}
    return out


def _uncovered(start: float, end: float, spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of (start, end) that none of ``spans`` covers."""
    left = [(start, end)] if end > start else []
    for low, high in spans:
        nxt = []
        for a, b in left:
            if high <= a or low >= b:
                nxt.append((a, b))
                continue
            if low > a:
                nxt.append((a, low))
            if high < b:
                nxt.append((high, b))
        left = nxt
    return left


def idle(series: list[list[float]], interval_ms: float, start_ms: float | None = None, end_ms: float | None = None,
         latency: list[tuple[int, float, int, int]] | None = None) -> dict:
    """The idle time a log series shows between ``start_ms`` and ``end_ms`` (default: its first and last tick).

    A tick says IO completed in the logging interval it ends, so the time between two ticks less the interval the
    later one covers had no completion. That is idle only where no IO was in flight either: with ``latency`` (the rows
    of fio's lat log, parse_log) each lat line at time t with a mean latency L shows IOs in flight over (t - L, t), and
    that part of a gap is a stall of the drive (IOs waiting), not idle time. Idle shorter than a logging interval
    cannot be told from the logs' own jitter: a ``longest_idle_ms`` below ``interval_ms`` means "below the logging
    granularity". {"idle_ms" (all idle periods added up), "longest_idle_ms", "gaps" (times between two ticks longer
    than GAP_SHARE intervals), "idle_periods" (those with idle left after the lat log's spans), "longest_gap_ms" (the
    longest time between two ticks), "stall_ms" (gap time the lat log shows IO in flight), "ticks", "interval_ms"}."""
    times = [t for t, dummy in series if (start_ms is None or t >= start_ms) and (end_ms is None or t <= end_ms)]
    spans = sorted((t - v / 1e6, float(t)) for t, v, dummy, dummy2 in latency or [])
    total, gaps, periods, longest, longest_idle, stall = 0.0, 0, 0, 0.0, 0.0, 0.0
    for before, after in zip(times, times[1:]):
        step = after - before
        longest = max(longest, step)
        if step <= interval_ms * GAP_SHARE:
            continue
        gaps += 1
        # No completion from the earlier tick to the start of the interval the later one covers.
        quiet = (float(before), float(after) - interval_ms)
        near = [span for span in spans if span[1] > quiet[0] and span[0] < quiet[1]]
        left = _uncovered(quiet[0], quiet[1], near)
        free = sum(b - a for a, b in left)
        stall += (quiet[1] - quiet[0]) - free
        if free > 0:
            periods += 1
            total += free
            longest_idle = max(longest_idle, max(b - a for a, b in left))
    return {"idle_ms": total, "longest_idle_ms": longest_idle, "gaps": gaps, "idle_periods": periods,
            "longest_gap_ms": longest, "stall_ms": stall, "ticks": len(times), "interval_ms": interval_ms}


def log_interval_ms(shortest_s: float, period_s: float | None = None) -> int:
    """The logging interval for a stimulus whose shortest part of interest (a sample, a burst) lasts ``shortest_s``:
    a fifth of it, from 100 ms (fio's helper thread keeps time to a few ms; finer logs grow without showing more) to
    1 s (a standard 60-s sample then has 60 lines, an 8-h group 28,800). With ``period_s`` (a sample's length) the
    longest interval up to that which divides the sample's milliseconds, so every sample holds whole intervals."""
    base = int(min(1000, max(100, round(shortest_s * 1000 / 5))))
    period = int(round(period_s * 1000)) if period_s else 0
    if period <= 0:
        return base
    return next((ms for ms in range(base, 9, -1) if period % ms == 0), base)
