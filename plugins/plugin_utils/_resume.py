# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Resume: which tests of a drive a run already finished, judged from its results directory alone; and whether
the run being resumed is the same - the same drive under each name, the same test settings."""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _stop_rules
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._identity import describe, identity, identity_changes


class ResumeRefused(PtsError, ValueError):
    """The run being resumed recorded something else under this name or with other settings; nothing was written."""


def _stopped(directory: str) -> dict | None:
    """The stop rule's verdict after a segment's last round when it said stop and nothing failed since; else None.
    The verdict is the last round file's (steady-state.json's for results of versions that kept it there)."""
    loaded = _results.load_segment(directory)
    if loaded["failure"] or not loaded["rounds"]:
        return None
    verdict = loaded["rounds"][-1].get("verdict") or loaded["steady_state"] or {}
    if verdict.get("round", verdict.get("last_round")) not in (None, loaded["rounds"][-1].get("round")):
        return None  # the recorded verdict is of an earlier round than the last one on disk
    return verdict if verdict.get("stop") else None


def test_status(test_dir: str, planned: dict) -> str | None:
    """How a planned test (a drive plan's entry) ended, when every segment ran to its stop rule: "steady" or
    "not steady" (a steady-state phase ended at its round limit), else "time limit" or "complete"; None when a segment
    did not finish (the test starts again from its purge). Read from the stop rule's own verdicts on disk, without
    building the report (no report code, no plotting library)."""
    segments = planned.get("segments") or []
    if not segments:
        return None
    kinds = set()
    for segment in segments:
        verdict = _stopped(os.path.join(test_dir, _results.safe_name(segment["name"])) if segment.get("name")
                           else test_dir)
        if verdict is None:
            return None
        kinds.add(_stop_rules.of(segment.get("stop") or planned.get("stop")).ended(verdict))
    for status in ("not steady", "steady", "time limit"):
        if status in kinds:
            return status
    return "complete"


def finished_tests(drive_dir: str, planned: list[dict]) -> dict[str, str]:
    """Test name -> status for the planned tests that ran to their stop rule; the others start again from their
    purge."""
    if not _safe_tree.exists(os.path.join(drive_dir, "drive.json")):
        return {}
    found = {}
    for test in planned:
        status = test_status(os.path.join(drive_dir, _results.safe_name(test["test"])), test)
        if status:
            found[test["test"]] = status
    return found


def _drive_dir(results_dir: str, run_id: str, host: str, key: str) -> str:
    return _results.drive_dir(os.path.join(results_dir, _results.safe_name(run_id)), host, key)


def mark_done(plan: dict, results_dir: str, run_id: str, host: str) -> dict:
    """Flag in the plan every test this run already finished on each drive."""
    for drive in plan.get("drives") or []:
        finished = finished_tests(_drive_dir(results_dir, run_id, host, drive["key"]), drive["tests"])
        for test in drive["tests"]:
            if test["test"] in finished:
                test.update(done=True, status=finished[test["test"]])
    return plan


def previous_plan(results_dir: str, run_id: str, host: str) -> dict | None:
    """The plan the run recorded for this host (plan.json), or None for a run that has not planned this host."""
    path = os.path.join(results_dir, _results.safe_name(run_id), _results.safe_name(host), "plan.json")
    if not _safe_tree.exists(path):
        return None
    return _results.read_json(path).get("plan") or {}


def _has_results(drive_dir: str) -> bool:
    try:
        return bool(_results.load_drive(drive_dir)["tests"])
    except (OSError, PtsError):
        return True  # unreadable records are not proof that nothing was measured


def recorded_identities(results_dir: str, run_id: str, host: str, plan: dict | None) -> dict[str, dict]:
    """Per drive key with results in this run, the identity the run recorded: the plan's own record (written when the
    drive was first planned in this run, and carried on by every later attempt), else the drive's drive.json. A name
    with no results yet (refused by the guard, stopped before its purge) binds nothing: the next attempt may list
    another device under it."""
    from_plan = {key: dict(value) for key, value in ((plan or {}).get("identities") or {}).items()}
    host_dir = os.path.join(results_dir, _results.safe_name(run_id), _results.safe_name(host))
    recorded = {}
    for entry in _safe_tree.subdirs(host_dir):
        drive_dir = os.path.join(host_dir, entry)
        drive_file = os.path.join(drive_dir, "drive.json")
        if not _has_results(drive_dir):
            continue
        if entry in from_plan:
            recorded[entry] = from_plan[entry]
            continue
        try:
            drive = _results.read_json(drive_file).get("drive") or {} if _safe_tree.exists(drive_file) else {}
        except (OSError, ValueError):
            continue
        if drive.get("key"):
            recorded[drive["key"]] = identity(drive)
    return recorded


def check_identities(devices: list[dict], recorded: dict[str, dict], run_id: str, listed: list[dict]) -> dict:
    """Refuse (ResumeRefused) when a drive to test is not the one the run recorded under its name; return the
    identities to record from now on (the recorded ones, plus drives new to the run)."""
    refusals = []
    for device in devices:
        key = device.get("key")
        if key not in recorded:
            continue
        changes = identity_changes(recorded[key], device)
        if changes:
            refusals.append(
                f"{_listed_as(device, listed)}: run {run_id} recorded {describe(recorded[key])} under the name "
                f"{key!r}, but {device.get('path') or device.get('resolved')} is now {describe(device)} "
                f"({'; '.join(changes)})")
    if refusals:
        raise ResumeRefused(
            f"resuming run {run_id} with another drive under a recorded name would put one drive's results under "
            f"another's identity: {' | '.join(refusals)}. Nothing was written. List the recorded drive again, give "
            f"this drive its own name, or start a new run (another pts_run_id)")
    merged = {key: dict(value) for key, value in recorded.items()}
    for device in devices:
        if device.get("key"):
            merged.setdefault(device["key"], identity(device))
    return merged


def _listed_as(device: dict, listed: list[dict]) -> str:
    spec = device.get("spec") or {}
    for index, entry in enumerate(listed):
        if entry and all(entry.get(k) == spec.get(k) for k in ("path", "name", "serial", "wwn")):
            return f"pts_devices[{index}] (name {device.get('key')!r})"
    return f"drive {device.get('key')!r}"


def _shown(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def variable_changes(recorded: dict | None, now: dict) -> list[str]:
    """Each measurement variable whose value differs from the one the run recorded ("variable: old → new").

    Variables only one side records (a test selected on one attempt only) count only as pts_run_tests itself."""
    if not recorded:
        return []
    changes = []
    for name in sorted(set(recorded) & set(now)):
        if recorded[name] != now[name]:
            changes.append(f"{name}: {_shown(recorded[name])} → {_shown(now[name])}")
    return changes


def check_settings(previous: dict | None, plan: dict, run_id: str, allow_changes: bool) -> list[str]:
    """Refuse (ResumeRefused) a resume whose test settings differ from the ones the run recorded, unless the operator
    allows it; return the changes allowed (to record with the plan)."""
    changes = variable_changes((previous or {}).get("variables"), plan.get("variables") or {})
    if changes and not allow_changes:
        raise ResumeRefused(
            f"resuming run {run_id} with other test settings than it recorded in plan.json: {'; '.join(changes)}. "
            f"Nothing was written and plan.json is unchanged. Resume with the recorded settings, start a new run "
            f"(another pts_run_id), or set pts_allow_changed_settings: true to run the tests not yet finished with the "
            f"new settings (finished tests keep their results, measured with the settings their rounds record)")
    return changes
