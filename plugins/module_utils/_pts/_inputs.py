# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Validation of the operator's run inputs; every error names the variable and the value."""

from __future__ import annotations

import difflib
import math
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size

# fio takes runtime in whole milliseconds and the job files truncate to them: 0.0001 s became runtime=0ms, which fio
# reads as "no time limit", so every combination wrote the whole device. 10 ms is ten times that resolution, so the
# truncation costs at most 10 % of a run and can never reach 0; anything shorter measures only fio's start-up.
MIN_RUN_SECONDS = 0.01
# A run id names one directory under the results root: one path component, never "." or "..", never hidden, and
# unchanged by _results.safe_name() (plugin_utils; it strips leading and trailing "." and "_"), so every tool that
# derives the run directory from the id finds the same one. \Z, not $: "$" also matches before a trailing newline, and
# "R1\n" locked results/R1\n/ while its results went to results/R1/.
RUN_ID_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?\Z")
# A pts_devices entry as the inventory gives it (the pts_identify role's and pts_drive_info's argument spec).
DEVICE_KEYS = ("path", "name", "serial", "wwn", "backing_file", "description_file", "mode", "raid_controller")
DEVICE_MODES = ("auto", "ssd", "hdd")
# A number as -e gives it (a string), in ASCII digits only: Python's int() and float() also read other scripts' digits
# ("٤" is 4, "１" is 1) and "1_000", none of which fio or a report reads the same way.
_NUMBER_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


class PlanError(PtsError, ValueError):
    """An input that would make the run meaningless; the message names the variable and value."""

    def __init__(self, message: str, variable: str | None = None):
        super().__init__(message)
        self.variable = variable


def fail(variable: str, value: object, why: str) -> PlanError:
    return PlanError(f"{variable}={value!r}: {why}", variable)


def number_text(text: str) -> int | float | None:
    """The number a string spells in ASCII digits ("12", "2.5", "1e3", surrounding spaces allowed), else None."""
    stripped = text.strip(" \t")
    if not _NUMBER_RE.fullmatch(stripped):
        return None
    return int(stripped) if stripped.isdigit() else float(stripped)


def _not_ascii(value: object) -> str:
    """What to add to an error about a string that is not all ASCII: its digits may be another script's."""
    return " written in ASCII digits (0-9)" if isinstance(value, str) and not value.isascii() else ""


def parse_mixes(variable: str, mixes: object) -> list[int]:
    if not isinstance(mixes, (list, tuple)) or not mixes:
        raise fail(variable, mixes, "must be a non-empty list of read percentages (0-100)")
    parsed = []
    for mix in mixes:
        if isinstance(mix, bool) or not isinstance(mix, int) or not 0 <= mix <= 100:
            raise fail(variable, mix, "a R/W mix is the read percentage, an integer from 0 to 100")
        if mix in parsed:
            raise fail(variable, mix, "listed twice")
        parsed.append(mix)
    return parsed


def parse_block_sizes(variable: str, sizes: object) -> list[int]:
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise fail(variable, sizes, "must be a non-empty list of block sizes such as 4k")
    parsed = []
    for size in sizes:
        try:
            value = parse_block_size(size)
        except ValueError as exc:
            raise fail(variable, size, str(exc)) from exc
        if value in parsed:
            raise fail(variable, size, "listed twice")
        parsed.append(value)
    return parsed


def mix(variable: str, value: object) -> int:
    """One read percentage, also as ``-e`` gives it (a string of digits)."""
    if isinstance(value, str) and isinstance(number_text(value), int):
        value = number_text(value)
    return parse_mixes(variable, [value])[0]


def percentage(variable: str, value: object) -> float:
    """A percentage from 0 to below 100, also as ``-e`` gives it."""
    number = number_text(value) if isinstance(value, str) else value
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) \
            or not 0 <= number < 100:
        raise fail(variable, value, "must be a percentage from 0 to below 100")
    return float(number)


def positive(variable: str, value: object, kind: type) -> float:
    if isinstance(value, str):
        # Extra variables given as -e name=value arrive as strings.
        number = number_text(value)
        if number is None:
            raise fail(variable, value, "must be a positive number" + _not_ascii(value))
        value = number
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise fail(variable, value, "must be a positive number")
    if kind is int and int(value) != value:
        raise fail(variable, value, "must be a whole number")
    return kind(value)


def queue_depth(variable: str, value: object) -> int:
    """A queue depth per fio thread: a positive whole number fio takes (at most _job_check.MAX_IODEPTH)."""
    number = int(positive(variable, value, int))
    if number > _job_check.MAX_IODEPTH:
        raise fail(variable, value, f"must be at most {_job_check.MAX_IODEPTH} outstanding IOs per thread")
    return number


def thread_count(variable: str, value: object) -> int:
    """fio threads of one job (numjobs): a positive whole number, at most _job_check.MAX_NUMJOBS."""
    number = int(positive(variable, value, int))
    if number > _job_check.MAX_NUMJOBS:
        raise fail(variable, value, f"must be at most {_job_check.MAX_NUMJOBS} threads")
    return number


def ioengine(variable: str, value: object) -> str:
    """A fio ioengine a PTS run may use (_job_check.IOENGINES); the guard checks the host's fio loads it."""
    if not isinstance(value, str) or value not in _job_check.IOENGINES:
        raise fail(variable, value, f"must be one of {', '.join(_job_check.IOENGINES)} (an engine that writes to the "
                                    "device through the block layer)")
    return value


def positive_ints(variable: str, values: object, maximum: int | None = None) -> list[int]:
    """A non-empty list of distinct positive whole numbers (queue depths, IOPS steps), in the order given."""
    if not isinstance(values, (list, tuple)) or not values:
        raise fail(variable, values, "must be a non-empty list of positive whole numbers")
    parsed = []
    for value in values:
        number = int(positive(variable, value, int))
        if maximum is not None and number > maximum:
            raise fail(variable, value, f"must be at most {maximum}")
        if number in parsed:
            raise fail(variable, value, "listed twice")
        parsed.append(number)
    return parsed


def seconds(variable: str, value: object) -> float:
    """A duration fio runs for (a round's combination, a preconditioning): positive, finite, at least 10 ms."""
    number = positive(variable, value, float)
    if number < MIN_RUN_SECONDS:
        raise fail(variable, value, f"must be at least {MIN_RUN_SECONDS:g} s: fio counts run time in whole "
                                    "milliseconds, and a run time of 0 ms means no time limit at all")
    return number


def boolean(variable: str, value: object) -> bool:
    """A YAML boolean and nothing else: one rule for every safety switch, so "on" cannot mean yes to one step
    and no to the next."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        raise fail(variable, value, "must be a YAML boolean, not a string: write true or false without quotes (with "
                                    f"-e, as JSON: -e '{{\"{variable}\": true}}')")
    raise fail(variable, value, "must be true or false")


def run_id(variable: str, value: object) -> str:
    """A run id: the name of one directory under the results root."""
    if not isinstance(value, str) or not RUN_ID_RE.match(value):
        control = "; it contains a control character" if isinstance(value, str) and _text.has_control(value) else ""
        raise fail(variable, value, "a run id is one directory name of letters, digits, '.', '_' and '-' (at most "
                                    "128, starting and ending with a letter or digit), such as 20261123T101500Z "
                                    f"or rack12-slice1: it must not be a path{control}")
    return value


def no_control(variable: str, value: str) -> str:
    """``value``, or PlanError naming ``variable`` when it holds a control character (a newline, tab or escape) or a
    format character (U+2028, U+2029, a bidirectional override, a zero-width character: module_utils/_drive/_text):
    it would reach job files, reports and the console as it is, and show otherwise than it is."""
    if _text.has_control(value):
        raise fail(variable, value, f"contains a control character (a newline, tab or escape) or a format character "
                                    f"({', '.join(_text.hidden_characters(value))}): refused, since it would reach job "
                                    "files, reports and the console as it is and show otherwise than it is")
    return value


def devices(listed: object, variable: str = "pts_devices") -> list[dict]:
    """The inventory's drive list, each entry's keys and types checked, so a typo is named as the operator wrote it
    (not as an internal argument spec reports it)."""
    if listed in (None, ""):
        return []
    if not isinstance(listed, list):
        raise fail(variable, listed, "must be a list of drives, each a mapping with a path, serial or wwn")
    names: dict[str, int] = {}
    for index, entry in enumerate(listed):
        where = f"{variable}[{index}]"
        if not isinstance(entry, dict):
            raise fail(where, entry, "must be a mapping with a path, serial or wwn (and optionally name, backing_file, "
                                     "description_file, mode, raid_controller)")
        for key in entry:
            if key not in DEVICE_KEYS:
                close = difflib.get_close_matches(str(key), DEVICE_KEYS, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(DEVICE_KEYS)}"
                raise PlanError(f"{where}: unknown key {key!r}{hint}", where)
        for key in DEVICE_KEYS:
            value = entry.get(key)
            if value is None:
                continue
            if not isinstance(value, str):
                why = "must be a string" + (": quote it, or YAML reads it as a number and drops leading zeros"
                                            if isinstance(value, (int, float)) and not isinstance(value, bool) else "")
                raise fail(f"{where}.{key}", value, why)
            if not value.strip():
                raise fail(f"{where}.{key}", value, "is empty")
            no_control(f"{where}.{key}", value)
        if not any(entry.get(key) for key in ("path", "serial", "wwn")):
            raise fail(where, entry, "needs a path, a serial or a wwn to find the drive by")
        if entry.get("mode") is not None and entry["mode"] not in DEVICE_MODES:
            raise fail(f"{where}.mode", entry["mode"], f"must be one of {', '.join(DEVICE_MODES)}")
        for key in ("path", "backing_file", "description_file"):
            if entry.get(key) is not None and not entry[key].startswith("/"):
                raise fail(f"{where}.{key}", entry[key], "must be an absolute path")
        name = entry.get("name")
        if name is not None:
            if name in names:
                raise fail(f"{where}.name", name, f"is also {variable}[{names[name]}]'s name: each drive's results "
                                                  "directory is named after it, so names must be unique")
            names[name] = index
    return listed
