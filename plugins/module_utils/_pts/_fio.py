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


def block(data: dict, key: str, where: str) -> dict:
    """A member of fio's output that is an object (absent or empty: {}); FioOutputError naming it otherwise."""
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise FioOutputError(f"{where}: {key!r} is not an object but {_short(value)}")
    return value


def number(data: dict, key: str, where: str, default: float = 0) -> float:
    """A member of fio's output that is a number (absent: ``default``); FioOutputError naming it otherwise."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FioOutputError(f"{where}: {key!r} is not a number but {_short(value)}")
    return value


def optional(data: dict, key: str, where: str) -> float:
    """A number fio may leave out or print as null (a job's error, its CPU use): 0 then."""
    return number(data, key, where) if data.get(key) is not None else 0


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "..."


def _percentiles(data: dict, where: str) -> dict:
    raw = block(data, "percentile", where)
    found = {}
    for key in raw:
        try:
            label = f"{float(key):g}"
        except ValueError:
            raise FioOutputError(f"{where}: percentile {_short(key)} is not a number") from None
        if label in PERCENTILES:
            found[label] = float(number(raw, key, where))
    return found


def histogram(data: dict, where: str) -> dict | None:
    """json+'s latency bins of one direction, total latency (lat_ns, with lat_percentiles=1) where fio printed it,
    else completion latency: {"source", "bins": [[ns, IOs], ...] in latency order}; None without json+."""
    for source in ("lat_ns", "clat_ns"):
        bins = block(data, source, where).get("bins")
        if isinstance(bins, dict) and bins:
            try:
                pairs = sorted((int(float(ns)), int(count)) for ns, count in bins.items())
            except (TypeError, ValueError) as exc:
                raise FioOutputError(f"fio's {source} bins are not numbers: {exc}") from exc
            return {"source": source, "bins": [[ns, count] for ns, count in pairs if count]}
    return None


def _direction(data: dict, where: str) -> dict:
    # lat_ns is submission + completion; its percentiles exist only with lat_percentiles=1,
    # otherwise fall back to the completion-latency percentiles fio always prints.
    lat = block(data, "lat_ns", where)
    percentiles = _percentiles(lat, where) or _percentiles(block(data, "clat_ns", where), where)
    total_ios = int(number(data, "total_ios", where))
    bins = histogram(data, where) if total_ios else None
    found = {
        "runtime_ms": int(number(data, "runtime", where)),
        "iops": float(number(data, "iops", where)),
        "bw_bytes": float(number(data, "bw_bytes", where, float(number(data, "bw", where)) * 1024)),
        "io_bytes": int(number(data, "io_bytes", where, int(number(data, "io_kbytes", where)) * 1024)),
        "total_ios": total_ios,
        "lat_ns": {
            "min": float(number(lat, "min", where)) if total_ios else None,
            "max": float(number(lat, "max", where)) if total_ios else None,
            "mean": float(number(lat, "mean", where)) if total_ios else None,
            "percentiles": percentiles if total_ios else {},
        },
    }
    if bins:
        found["histogram"] = bins
    return found


SWEEP_OPTIONS = ("rate_iops", "buffer_compress_percentage", "offset", "size", "zero_buffers", "bssplit",
                 "random_distribution", "startdelay")


def _option(job: dict, glob: dict, name: str, default: str | None = None) -> str | None:
    options = job.get("job options") or {}
    if name in options:
        return options[name]
    return glob.get(name, default)


def _whole(job: dict, glob: dict, name: str, default: str, where: str) -> int:
    """A job option that is a whole number (rwmixread, numjobs, iodepth), as fio printed it."""
    text = _option(job, glob, name, default)
    try:
        return int(text)
    except (TypeError, ValueError):
        raise FioOutputError(f"{where}: option {name}={_short(text)} is not a whole number") from None


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


def parse_job(job: object, glob: dict) -> dict:
    """One job of fio's JSON output (``glob``: its "global options") as the figures the PTS records; FioOutputError
    for a job that reports an error, or one whose fields are not what fio prints."""
    if not isinstance(job, dict):
        raise FioOutputError(f"a fio job is not an object but {_short(job)}")
    if not isinstance(glob, dict):
        raise FioOutputError(f"fio's global options are not an object but {_short(glob)}")
    name = job.get("jobname", "?")
    where = f"fio job {_short(name)}"
    block(job, "job options", where)
    error = int(optional(job, "error", where))
    if error:
        raise FioOutputError(f"fio job {name!r} ended with error {error}")
    rw = _option(job, glob, "rw", "read")
    mix = _MIX_BY_RW.get(rw) if isinstance(rw, str) else None
    if mix is None:
        mix = _whole(job, glob, "rwmixread", "50", where)
    bs_text = _option(job, glob, "bs", "4k")
    try:
        bs = parse_block_size(bs_text)
    except ValueError as exc:
        raise FioOutputError(f"fio job {name!r}: {exc}") from exc
    read = _direction(block(job, "read", where), f"{where} read")
    write = _direction(block(job, "write", where), f"{where} write")
    return {
        "name": name,
        "rw": rw,
        "pattern": "sequential" if rw in _SEQUENTIAL else "random",
        "mix": mix,
        "bs": bs,
        "numjobs": _whole(job, glob, "numjobs", "1", where),
        "iodepth": _whole(job, glob, "iodepth", "1", where),
        # job_runtime sums the numjobs clones under group_reporting; a direction's runtime does not.
        "runtime_ms": max(read["runtime_ms"], write["runtime_ms"]),
        # What a sweep varies besides mix, block size and queue depth, as the job file set it.
        "options": {key: value for key in SWEEP_OPTIONS if (value := _option(job, glob, key)) is not None},
        "read": read,
        "write": write,
        "total": combined(read, write),
        # fio's CPU use of the job's threads (% of one CPU, as fio reports it under group_reporting).
        "cpu": {"usr_pct": float(optional(job, "usr_cpu", where)), "sys_pct": float(optional(job, "sys_cpu", where))},
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
    glob = block(data, "global options", "fio JSON")
    jobs = [parse_job(job, glob) for job in data["jobs"]]
    timestamp = int(number(data, "timestamp", "fio JSON"))
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
