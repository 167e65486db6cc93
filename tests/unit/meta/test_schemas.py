# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The JSON Schemas of meta/schemas/: valid draft 2020-12, their version the results format's (_results.SCHEMA) and
their $id's, strict on what a pipeline reads and open to what the collection adds; and what a pipeline reads changes
only with a new version, said under breaking_changes in the changelog (the contract-<version>.json beside this file
records it). Real files of real runs are validated by tests/integration (test_try.py, test_pts2.py,
test_pts2_continuous.py, test_long_run.py: every test PTS 2.0.2 has)."""

from __future__ import annotations

import copy
import glob
import json
import os

import pytest
import yaml
from jsonschema import Draft202012Validator

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SCHEMAS = os.path.join(ROOT, "meta", "schemas")
NAMES = ("fleet", "plan", "result", "round")


def schema(name: str) -> dict:
    with open(os.path.join(SCHEMAS, f"{name}.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


def errors(name: str, document: dict) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in Draft202012Validator(schema(name)).iter_errors(document)]


def strict(node) -> object:
    """What a schema holds a reader to: every required key, with the type, const or enum it must have, all the way
    down (including $defs); descriptions and optional keys left out."""
    if isinstance(node, dict):
        kept = {k: node[k] for k in ("type", "const", "enum", "required", "$ref") if k in node}
        properties = node.get("properties") or {}
        for key in node.get("required") or []:
            if key in properties:
                kept.setdefault("properties", {})[key] = strict(properties[key])
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                kept[key] = strict(node[key])
        if node.get("$defs"):
            kept["$defs"] = {k: strict(v) for k, v in node["$defs"].items()}
        return kept
    return node


FLEET = {"schema": 1, "runs": ["r1"], "generated_at": "2026-11-27T12:00:00+00:00",
         "counts": {"PASS": 1, "FAIL": 0, "INCOMPLETE": 0}, "fail_on": ["FAIL"], "errors": [], "failed": False,
         "drives": [{"id": "h1/d1", "host": "h1", "drive": "d1", "run": "r1", "verdict": "PASS", "label": "PASS",
                     "reasons": [], "checks": [{"criterion": "iops: steady state", "passed": True, "text": "ok"}],
                     "model": "M", "serial": "S", "firmware": None, "report": "h1/d1/report.html",
                     "tests_run": ["iops"]}]}
PLAN = {"host": "h1", "command": None, "plan": {
    "profile": "quick", "spec": "1.1", "tests": [{"name": "iops", "title": "IOPS"}], "variables": {},
    "round_seconds": 0.5, "max_rounds": 6,
    "drives": [{"key": "d1", "mode": "ssd", "mode_reason": "SSD mode set by the drive entry",
                "tests": [{"test": "iops", "combinations": 56}]}]}}
RESULT = {"schema": 1, "host": "h1", "drive_key": "d1", "run_id": "r1",
          "drive": {"model": "M", "serial": "S", "firmware": "F", "size_bytes": 1 << 30},
          "tests": {"iops": {"test": "iops", "title": "IOPS", "status": "complete", "settings": {}}},
          "verdict": {"verdict": "FAIL", "label": "FAIL", "reasons": ["r"], "checks": []},
          "quick_profile": True, "headline": {}}
ROUND = {"schema": 1, "host": "h1", "drive": "d1", "test": "iops", "segment": "", "phase": "round", "round": 1,
         "settings": {}, "fio": {"fio_version": "fio-3.33", "jobs": [
             {"name": "iops-r0-4096", "read": {"iops": 0.0}, "write": {"iops": 80000.5}}]},
         "verdict": {"round": 1, "steady": False, "stop": False}, "recorded_at": "2026-11-27T12:00:00+00:00",
         "collection_version": "2.1.0"}
GOOD = {"fleet": FLEET, "plan": PLAN, "result": RESULT, "round": ROUND}


def changed(document: dict, path: tuple, value=None, drop: bool = False) -> dict:
    out = copy.deepcopy(document)
    node = out
    for key in path[:-1]:
        node = node[key]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_draft_2020_12_with_the_results_formats_version_in_its_id(name):
    found = schema(name)
    Draft202012Validator.check_schema(found)
    assert found["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert found["properties"]["schema"]["const"] == _results.SCHEMA
    assert found["$id"] == f"https://fleetqual.github.io/pts/schemas/{_results.SCHEMA}/{name}.schema.json"


def test_the_schemas_are_the_four_files_pipelines_read():
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(SCHEMAS, "*"))) == \
        sorted(f"{name}.schema.json" for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_with_what_a_pipeline_reads_and_fields_added_later_is_valid(name):
    assert errors(name, GOOD[name]) == []
    # Fields the collection adds (report v4's, a round file's new record) do not break the contract.
    grown = changed(GOOD[name], ("added_in_a_minor_release",), {"any": [1, 2]})
    assert errors(name, grown) == []


@pytest.mark.parametrize("name, path, value, drop, wrong", [
    ("fleet", ("failed",), None, True, "'failed' is a required property"),
    ("fleet", ("failed",), "no", False, "is not of type 'boolean'"),
    ("fleet", ("schema",), 2, False, "1 was expected"),
    ("fleet", ("drives", 0, "verdict"), "OK", False, "is not one of ['PASS', 'FAIL', 'INCOMPLETE']"),
    ("fleet", ("counts", "FAIL"), -1, False, "is less than the minimum of 0"),
    ("fleet", ("drives", 0, "reasons"), "r", False, "is not of type 'array'"),
    ("plan", ("plan", "drives", 0, "mode"), "auto", False, "is not one of ['ssd', 'hdd']"),
    ("plan", ("plan", "drives", 0, "mode_reason"), None, True, "'mode_reason' is a required property"),
    ("plan", ("plan", "profile"), "fast", False, "is not one of ['standard', 'quick']"),
    ("result", ("tests", "iops", "status"), None, True, "'status' is a required property"),
    ("result", ("drive", "size_bytes"), "1G", False, "is not of type 'integer', 'null'"),
    ("result", ("verdict", "verdict"), "pass", False, "is not one of ['PASS', 'FAIL', 'INCOMPLETE']"),
    ("round", ("fio", "jobs", 0, "write", "iops"), "80k", False, "is not of type 'number'"),
    ("round", ("round",), 0, False, "is less than the minimum of 1"),
    ("round", ("settings",), None, True, "'settings' is a required property"),
    ("round", ("verdict", "stop"), None, True, "'stop' is a required property"),
])
def test_a_file_that_breaks_what_a_pipeline_reads_is_refused(name, path, value, drop, wrong):
    found = errors(name, changed(GOOD[name], path, value, drop))
    assert any(wrong in line for line in found), found


def test_what_a_pipeline_reads_changes_only_with_a_new_version_said_in_the_changelog():
    path = os.path.join(os.path.dirname(__file__), f"contract-{_results.SCHEMA}.json")
    assert os.path.exists(path), (
        f"no {os.path.basename(path)}: results format {_results.SCHEMA} needs its contract recorded "
        f"(json.dump of {{name: strict(schema)}}) and a breaking_changes changelog entry naming schema {_results.SCHEMA}")
    with open(path, encoding="utf-8") as handle:
        recorded = json.load(handle)
    now = {name: strict(schema(name)) for name in NAMES}
    assert now == recorded, (
        "what the schemas hold a reader to changed under the same version: a change a reader can see (a required "
        "key, a type, an allowed value) makes _results.SCHEMA the next version, with new schemas and a "
        "breaking_changes entry; an additive change goes in as an optional property")
    if _results.SCHEMA > 1:
        with open(os.path.join(ROOT, "changelogs", "changelog.yaml"), encoding="utf-8") as handle:
            releases = (yaml.safe_load(handle) or {}).get("releases") or {}
        entries = [e for r in releases.values() for e in ((r or {}).get("changes") or {}).get("breaking_changes", [])]
        for fragment in glob.glob(os.path.join(ROOT, "changelogs", "fragments", "*.y*ml")):
            with open(fragment, encoding="utf-8") as handle:
                entries += (yaml.safe_load(handle) or {}).get("breaking_changes") or []
        assert any("schema" in e and str(_results.SCHEMA) in e for e in entries), \
            f"results format {_results.SCHEMA}: no breaking_changes entry says so"
