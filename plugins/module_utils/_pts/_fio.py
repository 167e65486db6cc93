# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Parse ``fio --output-format=json`` (or ``json+``) into the figures the PTS records, per combination run.

Each combination is one fio job section with ``stonewall`` under ``group_reporting``, so fio reports
one entry per combination with the ``numjobs`` clones summed. The R/W mix and block size are read from
the job's own options, never inferred from its position in the file. With ``json+`` fio adds each direction's
latency histogram (its bins: latency in ns -> IOs), kept as ``histogram``.
"""

from __future__ import annotations

import json

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size

PERCENTILES = ("50", "99", "99.9", "99.99", "99.999")
_MIX_BY_RW = {"read": 100, "randread": 100, "write": 0, "randwrite": 0}
_SEQUENTIAL = ("read", "write", "rw", "readwrite")


class MissingJob(PtsError, KeyError):
    """Not exactly one fio job of the name, or of the mix and block size, asked for."""


class FioOutputError(PtsError, ValueError):
    """fio's output is not what a finished run prints, or a job reported an error."""


def extract_json(text: str) -> dict:
    """Load the JSON document from fio's output; fio may print notes ahead of it."""
    start = text.find("{")
    if start < 0:
        raise FioOutputError("no JSON document in fio output: " + _excerpt(text))
    try:
        data = json.loads(text[start:])
    except ValueError as exc:
        raise FioOutputError(f"fio output is not valid JSON ({exc}): " + _excerpt(text)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise FioOutputError("fio JSON has no 'jobs' list: " + _excerpt(text))
    return data


def _excerpt(text: str, limit: int = 300) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _percentiles(block: dict) -> dict:
    raw = block.get("percentile") or {}
    found = {}
    for key, value in raw.items():
        label = f"{float(key):g}"
        if label in PERCENTILES:
            found[label] = float(value)
    return found


def _histogram(data: dict) -> dict | None:
    """json+'s latency bins of one direction, total latency (lat_ns, with lat_percentiles=1) where fio printed it,
    else completion latency: {"source", "bins": [[ns, IOs], ...] in latency order}; None without json+."""
    for source in ("lat_ns", "clat_ns"):
        bins = (data.get(source) or {}).get("bins")
        if isinstance(bins, dict) and bins:
            try:
                pairs = sorted((int(float(ns)), int(count)) for ns, count in bins.items())
            except (TypeError, ValueError) as exc:
                raise FioOutputError(f"fio's {source} bins are not numbers: {exc}") from exc
            return {"source": source, "bins": [[ns, count] for ns, count in pairs if count]}
    return None


def _direction(data: dict) -> dict:
    # lat_ns is submission + completion; its percentiles exist only with lat_percentiles=1,
    # otherwise fall back to the completion-latency percentiles fio always prints.
    lat = data.get("lat_ns") or {}
    percentiles = _percentiles(lat) or _percentiles(data.get("clat_ns") or {})
    total_ios = int(data.get("total_ios", 0))
    histogram = _histogram(data) if total_ios else None
    found = {
        "runtime_ms": int(data.get("runtime", 0)),
        "iops": float(data.get("iops", 0.0)),
        "bw_bytes": float(data.get("bw_bytes", float(data.get("bw", 0)) * 1024)),
        "io_bytes": int(data.get("io_bytes", int(data.get("io_kbytes", 0)) * 1024)),
        "total_ios": total_ios,
        "lat_ns": {
            "min": float(lat.get("min", 0)) if total_ios else None,
            "max": float(lat.get("max", 0)) if total_ios else None,
            "mean": float(lat.get("mean", 0)) if total_ios else None,
            "percentiles": percentiles if total_ios else {},
        },
    }
    if histogram:
        found["histogram"] = histogram
    return found


SWEEP_OPTIONS = ("rate_iops", "buffer_compress_percentage", "offset", "size", "zero_buffers", "bssplit",
                 "random_distribution", "startdelay")


def _option(job: dict, glob: dict, name: str, default: str | None = None) -> str | None:
    options = job.get("job options") or {}
    if name in options:
        return options[name]
    return glob.get(name, default)


def combined(read: dict, write: dict) -> dict:
    """A job's read and write directions as one: IOPS, bytes/s and bytes added up, latency weighted by IOs."""
    ios = read["total_ios"] + write["total_ios"]
    means = [(d["lat_ns"]["mean"], d["total_ios"]) for d in (read, write) if d["total_ios"]]
    maxima = [d["lat_ns"]["max"] for d in (read, write) if d["total_ios"] and d["lat_ns"]["max"] is not None]
    minima = [d["lat_ns"]["min"] for d in (read, write) if d["total_ios"] and d["lat_ns"]["min"] is not None]
    return {
        "iops": read["iops"] + write["iops"],
        "bw_bytes": read["bw_bytes"] + write["bw_bytes"],
        "io_bytes": read["io_bytes"] + write["io_bytes"],
        "total_ios": ios,
        # IO-weighted: a 65/35 mix is weighted by the IOs fio really completed, not by 0.65/0.35.
        "lat_ns": {
            "mean": sum(m * n for m, n in means) / ios if ios else None,
            "max": max(maxima) if maxima else None,
            "min": min(minima) if minima else None,
        },
    }


def parse_job(job: dict, glob: dict) -> dict:
    name = job.get("jobname", "?")
    error = int(job.get("error", 0) or 0)
    if error:
        raise FioOutputError(f"fio job {name!r} ended with error {error}")
    rw = _option(job, glob, "rw", "read")
    mix = _MIX_BY_RW.get(rw)
    if mix is None:
        mix = int(_option(job, glob, "rwmixread", "50"))
    bs_text = _option(job, glob, "bs", "4k")
    try:
        bs = parse_block_size(bs_text)
    except ValueError as exc:
        raise FioOutputError(f"fio job {name!r}: {exc}") from exc
    read = _direction(job.get("read") or {})
    write = _direction(job.get("write") or {})
    return {
        "name": name,
        "rw": rw,
        "pattern": "sequential" if rw in _SEQUENTIAL else "random",
        "mix": mix,
        "bs": bs,
        "numjobs": int(_option(job, glob, "numjobs", "1")),
        "iodepth": int(_option(job, glob, "iodepth", "1")),
        # job_runtime sums the numjobs clones under group_reporting; a direction's runtime does not.
        "runtime_ms": max(read["runtime_ms"], write["runtime_ms"]),
        # What a sweep varies besides mix, block size and queue depth, as the job file set it.
        "options": {key: value for key in SWEEP_OPTIONS if (value := _option(job, glob, key)) is not None},
        "read": read,
        "write": write,
        "total": combined(read, write),
        # fio's CPU use of the job's threads (% of one CPU, as fio reports it under group_reporting).
        "cpu": {"usr_pct": float(job.get("usr_cpu", 0.0) or 0.0), "sys_pct": float(job.get("sys_cpu", 0.0) or 0.0)},
    }


def notes(text: str) -> list[str]:
    """What fio printed ahead of its JSON document ("fio: terminating on signal 15", an io_u error): its reason when
    a run went wrong."""
    start = text.find("{")
    head = text[:start] if start >= 0 else text
    return [line.strip() for line in head.splitlines() if line.strip()][-5:]


def parse(text: str) -> dict:
    """Parse fio's JSON output into ``{fio_version, timestamp, jobs: [...]}``. A job that completed no I/O is an
    error (fio stopped or failing, with what fio printed), never a measurement of 0."""
    data = extract_json(text)
    glob = data.get("global options") or {}
    try:
        jobs = [parse_job(job, glob) for job in data["jobs"]]
        timestamp = int(data.get("timestamp", 0))
    except FioOutputError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as exc:  # fio's output, read here: a field fio would not print
        raise FioOutputError(f"fio JSON is not fio's ({type(exc).__name__}: {exc}): " + _excerpt(text)) from exc
    if not jobs:
        raise FioOutputError("fio JSON lists no jobs")
    idle = [job["name"] for job in jobs if not job["read"]["total_ios"] + job["write"]["total_ios"]]
    if idle:
        said = notes(text)
        raise FioOutputError(f"fio completed no I/O in job {', '.join(repr(n) for n in idle)} (it aborted or wrote "
                             f"nothing): a failed round, not a figure of 0" + (f"; fio said: {' | '.join(said)}"
                                                                               if said else ""))
    return {
        "fio_version": data.get("fio version", "unknown"),
        "timestamp": timestamp,
        "global_options": dict(glob),
        "jobs": jobs,
    }


def random_rw(mix: int) -> str:
    """fio's rw for random IO at a read percentage."""
    return "randread" if mix == 100 else "randwrite" if mix == 0 else "randrw"


def find_named(jobs: list[dict], name: str) -> dict:
    """The job of one named section (what a job file with several sections of one mix and block size needs)."""
    matches = [job for job in jobs if job["name"] == name]
    if len(matches) != 1:
        raise MissingJob(f"{len(matches)} fio jobs named {name!r} (expected 1)")
    return matches[0]


def find_job(jobs: list[dict], mix: int, bs: int) -> dict:
    """The job for one (R/W mix, block size) combination; looked up by value, never by position."""
    matches = [job for job in jobs if job["mix"] == mix and job["bs"] == bs]
    if len(matches) != 1:
        raise MissingJob(f"{len(matches)} fio jobs for mix {mix}/{100 - mix} and block size {bs} (expected 1)")
    return matches[0]


def counted(job: dict) -> dict:
    """A section's figures from fio's counts (a parsed job: parse_job, or a window between two status dumps): per
    direction and in total its IOs, bytes, run time (ms), IOPS (IOs x 1000 / run time) and bytes/s (bytes x 1000 / run
    time), as fio computes its own ``iops`` and ``bw_bytes`` (the latter truncated to whole bytes/s)."""
    out: dict = {}
    total = {"ios": 0, "io_bytes": 0, "iops": 0.0, "bw_bytes": 0.0}
    for name in ("read", "write"):
        data = job.get(name) or {}
        ios, io_bytes, runtime = int(data.get("total_ios") or 0), int(data.get("io_bytes") or 0), \
            int(data.get("runtime_ms") or 0)
        found = {"ios": ios, "io_bytes": io_bytes, "runtime_ms": runtime,
                 "iops": ios * 1000.0 / runtime if runtime else 0.0,
                 "bw_bytes": io_bytes * 1000.0 / runtime if runtime else 0.0}
        out[name] = found
        for key in total:
            total[key] += found[key]
    out["total"] = dict(total, runtime_ms=max(out[name]["runtime_ms"] for name in ("read", "write")))
    return out
