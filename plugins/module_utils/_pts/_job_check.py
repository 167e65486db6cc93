# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""A fio job file is checked as fio reads it, and only what the collection's own templates write passes.

fio (init.c ``__parse_jobs_ini``) reads a job file line by line, breaking lines at ``\\n`` only and at 8,191 bytes; it
skips blank lines and lines whose first non-blank is ``#`` or ``;``; it takes ``include`` followed by any one character
as "read this other file"; it substitutes ``$VAR``, ``${VAR}`` and ``$(...)`` before it parses an option; and an option
is everything before the first ``=`` (trailing blanks stripped), compared case-sensitively with its option table.

So the check splits lines at ``\\n`` only and refuses, anywhere in the text: every other control character, every
Unicode line or paragraph separator and format character, ``$``, a line of over 1,024 bytes, and ``include`` in any
spelling. Every other line is a section ``[name]``, a comment starting in column 1, or an option from ALLOWED whose
value passes that option's own check, written ``name=value`` without blanks around ``=`` (or a bare flag). Every
``filename=`` is the guarded device, and the ``[global]`` section names it, so no section writes anywhere else.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LINE_BYTES = 1024
MAX_NUMJOBS = 256
MAX_IODEPTH = 4096
# The ioengines a PTS run may use: each writes to the device through the kernel's block layer with direct=1. Engines
# that run programs, touch other files or do no I/O at all (exec, external, filecreate, null, ...) are not here.
IOENGINES = ("libaio", "io_uring", "psync", "pvsync", "pvsync2", "sync", "vsync", "posixaio")
RW_MODES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim")

_SECTION_RE = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9._-]{0,127})\]")
_OPTION_RE = re.compile(r"([a-z][a-z0-9_]*)(?:=(.*))?")
_INT_RE = re.compile(r"[0-9]{1,18}")
_SIZE_RE = re.compile(r"[0-9]{1,18}[kKmMgGtT]?")
_PCT_OR_SIZE_RE = re.compile(r"[0-9]{1,18}(?:[kKmMgGtT]|%)?")
_MS_RE = re.compile(r"[0-9]{1,18}(?:ms|s)?")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_BSSPLIT_RE = re.compile(r"[0-9]{1,9}[kKmM]?/[0-9]{1,3}(?::[0-9]{1,9}[kKmM]?/[0-9]{1,3}){0,63}")
_PERCENTILES_RE = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,6})?(?::[0-9]{1,3}(?:\.[0-9]{1,6})?){0,19}")
_DISTRIBUTION_RE = re.compile(r"random|(?:zipf|pareto|normal):[0-9]{1,4}(?:\.[0-9]{1,6})?"
                              r"|zoned:[0-9]{1,3}/[0-9]{1,3}(?::[0-9]{1,3}/[0-9]{1,3}){0,63}")


def _ranged(low: int, high: int):
    def check(value: str) -> str | None:
        if not _INT_RE.fullmatch(value) or not low <= int(value) <= high:
            return f"must be a whole number from {low} to {high}"
        return None
    return check


def _one_of(*choices: str):
    def check(value: str) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}"
    return check


def _matching(pattern: re.Pattern, what: str):
    def check(value: str) -> str | None:
        return None if pattern.fullmatch(value) else f"must be {what}"
    return check


_FLAG = _one_of("0", "1")
# Every option a job file of this collection sets, with the check of its value; ``None``: a bare flag.
ALLOWED = {
    "filename": None,  # checked against the guarded device itself
    "ioengine": _one_of(*IOENGINES),
    "direct": _one_of("1"),
    "numjobs": _ranged(1, MAX_NUMJOBS),
    "iodepth": _ranged(1, MAX_IODEPTH),
    "group_reporting": _one_of("1"),
    # 0: a QoS cell runs its IO count (io_size), capped by its runtime; every other section is time based.
    "time_based": _FLAG,
    "runtime": _matching(_MS_RE, "a duration in ms or s"),
    "startdelay": _matching(_MS_RE, "a duration in ms or s"),
    "norandommap": _FLAG,
    "randrepeat": _FLAG,
    "refill_buffers": _FLAG,
    "zero_buffers": _FLAG,
    "lat_percentiles": _FLAG,
    "percentile_list": _matching(_PERCENTILES_RE, "percentiles separated by ':'"),
    "rate_iops": _ranged(1, 10 ** 9),
    "size": _matching(_PCT_OR_SIZE_RE, "a size or a percentage"),
    "offset": _matching(_PCT_OR_SIZE_RE, "a size or a percentage"),
    "offset_increment": _matching(_PCT_OR_SIZE_RE, "a size or a percentage"),
    "loops": _ranged(1, 1000),
    "io_size": _matching(_SIZE_RE, "a size"),
    "rw": _one_of(*RW_MODES),
    "rwmixread": _ranged(0, 100),
    "bs": _matching(_SIZE_RE, "a block size"),
    "bssplit": _matching(_BSSPLIT_RE, "block size/percentage pairs separated by ':'"),
    "buffer_compress_percentage": _ranged(0, 100),
    "random_distribution": _matching(_DISTRIBUTION_RE, "random, zipf:N, pareto:N, normal:N or zoned:A/B:..."),
    "write_bw_log": _matching(_NAME_RE, "a bare file name prefix (the logs stay in the job's directory)"),
    "write_iops_log": _matching(_NAME_RE, "a bare file name prefix (the logs stay in the job's directory)"),
    "write_lat_log": _matching(_NAME_RE, "a bare file name prefix (the logs stay in the job's directory)"),
    "log_avg_msec": _ranged(1, 3_600_000),
    "log_unix_epoch": _FLAG,
    "per_job_logs": _FLAG,
    "stonewall": None,
    "new_group": None,
}
FLAGS = ("stonewall", "new_group")
_DEVICE_RE = re.compile(r"/dev/[A-Za-z0-9][A-Za-z0-9._/-]*")


def _bad_character(char: str) -> bool:
    if char == "\n":
        return False
    if char == "$":
        return True
    # Cc: control characters (C0, DEL, C1 with U+0085); Cf: format characters (bidirectional overrides, zero-width);
    # Zl/Zp: U+2028 and U+2029; Cs/Co/Cn: surrogates, private use and unassigned code points.
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _show(char: str) -> str:
    return f"U+{ord(char):04X}" + (f" ({unicodedata.name(char)})" if unicodedata.name(char, "") else "")


def device_refusal(device: str) -> str | None:
    """Why ``device`` cannot be a job file's ``filename=`` (fio splits filenames at ':'; a job file line at blanks,
    '=' and ';'), or None."""
    if not isinstance(device, str) or not _DEVICE_RE.fullmatch(device) or "/../" in device or device.endswith("/.."):
        return f"the device {device!r} is not a plain /dev path (letters, digits, '.', '_', '-', '/')"
    return None


def refusals(text: str, device: str) -> list[str]:
    """Every reason fio must not run ``text`` against ``device`` (the guard's resolved node); [] when it may."""
    problem = device_refusal(device)
    if problem:
        return [problem]
    if not isinstance(text, str):
        return ["the job file is not text"]
    found = []
    bad = sorted({char for char in text if _bad_character(char)})
    if bad:
        shown = ", ".join("'$'" if char == "$" else _show(char) for char in bad)
        found.append(f"it contains {shown}: fio would read these as line breaks, substitutions or hidden text; a job "
                     "file of this collection has none")
    section = None
    global_device = False
    sections = 0
    for number, line in enumerate(text.split("\n"), 1):
        where = f"line {number}"
        if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            found.append(f"{where} is longer than {MAX_LINE_BYTES} bytes (fio splits long lines into options)")
            continue
        if line.lstrip(" \t\r\f\v").lower().startswith("include"):
            found.append(f"{where} includes another file: {line[:80]!r}")
            continue
        if not line or line[0] in "#;":
            continue
        if line != line.strip():
            found.append(f"{where} has blanks around it: {line[:80]!r}")
            continue
        if not line.isascii():
            found.append(f"{where} is not ASCII: {line[:80]!r}")
            continue
        header = _SECTION_RE.fullmatch(line)
        if header:
            section = header.group(1)
            sections += 1
            continue
        if line.startswith("["):
            found.append(f"{where} is not a section header this collection writes: {line[:80]!r}")
            continue
        if section is None:
            found.append(f"{where} is an option outside any section: {line[:80]!r}")
            continue
        option = _OPTION_RE.fullmatch(line)
        name = option.group(1) if option else None
        if name not in ALLOWED:
            found.append(f"{where} sets {line.partition('=')[0][:40]!r}, which no job file of this collection sets")
            continue
        value = option.group(2)
        if name in FLAGS:
            if value is not None:
                found.append(f"{where}: {name} takes no value")
            continue
        if value is None:
            found.append(f"{where}: {name} needs a value")
            continue
        if name == "filename":
            if value != device:
                found.append(f"{where} writes to {value!r}, not to the guarded device {device}")
            elif section == "global":
                global_device = True
            continue
        why = ALLOWED[name](value)
        if why:
            found.append(f"{where}: {name}={value[:40]!r} {why}")
    if not sections:
        found.append("the job file has no job section")
    elif not global_device:
        found.append(f"the [global] section does not name the guarded device (filename={device}): a job without one "
                     "writes a file of its own")
    return found


def _bytes(text: str) -> int:
    digits = text.rstrip("kKmMgGtT")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[text[len(digits):].lower()]
    return int(digits) * scale


def most_in_flight(text: str) -> int:
    """The most bytes of writes fio can have in flight at once for a job file that passed refusals(): per writing
    section, threads x queue depth x its largest block size (a section's own options over [global]'s), the largest of
    the sections. Stonewalled sections run one after the other; a HIR burst's sections do not overlap either."""
    options: dict[str, dict[str, str]] = {}
    section = None
    for line in text.split("\n"):
        header = _SECTION_RE.fullmatch(line)
        if header:
            section = header.group(1)
            options.setdefault(section, {})
        elif section is not None and line and line[0] not in "#;":
            name, dummy, value = line.partition("=")
            options[section][name] = value
    shared = options.pop("global", {})
    most = 0
    for own in options.values():
        merged = dict(shared, **own)
        if merged.get("rw", "read") in ("read", "randread", "trim", "randtrim"):
            continue
        sizes = [_bytes(part.split("/")[0]) for part in merged["bssplit"].split(":")] if "bssplit" in merged \
            else [_bytes(merged.get("bs", "4k"))]
        most = max(most, int(merged.get("numjobs", "1")) * int(merged.get("iodepth", "1")) * max(sizes))
    return most
