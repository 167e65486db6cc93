# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What the collection's own result files must hold when it reads them back: a round file (or wipc.json) with fio's
parsed jobs, each of which completed I/O; a drive's result.json with the fields the judge reads, of their types. A
file that is not is a BadFile naming it and the field - never a figure, never a crash further on."""

from __future__ import annotations

import math

from ansible_collections.fleetqual.pts.plugins.plugin_utils._safe_tree import BadFile

_VERDICTS = ("PASS", "FAIL", "INCOMPLETE")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _expect(path: str, where: str, value: object, kinds: tuple, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        wanted = " or ".join(k.__name__ for k in kinds) + (" or null" if allow_none else "")
        raise BadFile(path, f"{where} is a {_type_name(value)}, not a {wanted}")


def check_round(record: dict, path: str) -> dict:
    """A round file as pts_segment files it: ``fio.jobs`` a non-empty list, each job's read and write with numeric
    figures, and I/O completed (a job that completed none is fio stopped or failing, not a measurement of 0)."""
    fio = record.get("fio")
    _expect(path, "fio", fio, (dict,))
    jobs = fio.get("jobs")
    _expect(path, "fio.jobs", jobs, (list,))
    if not jobs:
        raise BadFile(path, "fio.jobs is empty: no measurement")
    for index, job in enumerate(jobs):
        where = f"fio.jobs[{index}]"
        _expect(path, where, job, (dict,))
        ios = 0
        for direction in ("read", "write"):
            data = job.get(direction)
            _expect(path, f"{where}.{direction}", data, (dict,))
            for key in ("iops", "bw_bytes", "io_bytes", "total_ios"):
                if key in data and not _number(data[key]):
                    raise BadFile(path, f"{where}.{direction}.{key} is a {_type_name(data[key])}, not a number")
            ios += data.get("total_ios") or 0
        if ios <= 0:
            name = job.get("name", index)
            raise BadFile(path, f"fio job {name!r} completed no I/O (a run fio aborted or in which it wrote nothing):"
                                " a failed round, not a figure of 0")
    for key, kinds in (("round", (int,)), ("verdict", (dict,)), ("settings", (dict,)), ("row", (dict,))):
        _expect(path, key, record.get(key), kinds, allow_none=True)
    return record


def check_result(model: dict, path: str) -> dict:
    """A drive's result.json as the drive report writes it, as far as the verdict and the fleet summary read it."""
    _expect(path, "schema", model.get("schema"), (int,), allow_none=True)
    for key in ("drive", "tests", "headline"):
        _expect(path, key, model.get(key), (dict,))
    for key in ("guard", "raid", "raid_member", "health_after", "round_health", "verdict", "wear", "command",
                "failed_before_rounds"):
        _expect(path, key, model.get(key), (dict,), allow_none=True)
    _expect(path, "quick_profile", model.get("quick_profile"), (bool,), allow_none=True)
    verdict = model.get("verdict")
    if verdict is not None and verdict.get("verdict") not in _VERDICTS:
        raise BadFile(path, f"verdict.verdict is {verdict.get('verdict')!r}, not one of {', '.join(_VERDICTS)}")
    for name, test in model["tests"].items():
        _expect(path, f"tests.{name}", test, (dict,))
        _expect(path, f"tests.{name}.status", test.get("status"), (str,), allow_none=True)
        _expect(path, f"tests.{name}.failure", test.get("failure"), (dict,), allow_none=True)
        for key in ("wall_s", "rounds_run"):
            value = test.get(key)
            if value is not None and not _number(value):
                raise BadFile(path, f"tests.{name}.{key} is a {_type_name(value)}, not a number")
        for key in ("started_at", "finished_at"):
            _expect(path, f"tests.{name}.{key}", test.get(key), (str,), allow_none=True)
    for figure, entry in model["headline"].items():
        _expect(path, f"headline.{figure}", entry, (dict,), allow_none=True)
        value = (entry or {}).get("value")
        if value is not None and not _number(value):
            raise BadFile(path, f"headline.{figure}.value is a {_type_name(value)}, not a number")
    return model
