# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The files a run writes against the JSON Schemas the collection ships (meta/schemas/): fleet.json, each host's
plan.json, each drive's result.json and every round file (round-NN.json, wipc.json)."""

from __future__ import annotations

import json
import os
import re

from jsonschema import Draft202012Validator

KINDS = ("fleet", "plan", "result", "round")
SCHEMAS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "meta", "schemas")


def kind(path: str) -> str | None:
    """Which schema a file of the results tree answers to, or None (fio's own output, reports, other records)."""
    name = os.path.basename(path)
    if name in ("fleet.json", "plan.json", "result.json"):
        return name[:-5]
    return "round" if re.fullmatch(r"round-\d+\.json|wipc\.json", name) else None


def validators(schema_dir: str) -> dict:
    found = {}
    for name in KINDS:
        with open(os.path.join(schema_dir, f"{name}.schema.json"), encoding="utf-8") as handle:
            schema = json.load(handle)
        Draft202012Validator.check_schema(schema)
        found[name] = Draft202012Validator(schema)
    return found


def assert_files_validate(run) -> dict[str, int]:
    """A finished run (conftest.PlaybookRun) of one drive: its fleet.json, plan.json, result.json and every round file
    validate against the repository's schemas."""
    counts = validate_run(run.run_dir, SCHEMAS)
    assert counts["fleet"] == 1 and counts["plan"] == 1 and counts["result"] == 1 and counts["round"] >= 2, counts
    return counts


def validate_run(run_dir: str, schema_dir: str) -> dict[str, int]:
    """Validate every file of a run that a schema covers; return how many of each kind, and fail naming each error."""
    checks, counts, errors = validators(schema_dir), dict.fromkeys(KINDS, 0), []
    for folder, dirs, files in os.walk(run_dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            which = kind(path)
            if which is None:
                continue
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
            counts[which] += 1
            errors += [f"{os.path.relpath(path, run_dir)} ({which}): {error.json_path}: {error.message[:300]}"
                       for error in checks[which].iter_errors(document)]
    assert not errors, "\n".join(errors[:40])
    return counts
