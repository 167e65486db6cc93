# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""One drive's verdict from the results tree: the host's plan (acceptance rules and specifications, the tests the drive's
mode runs),
a lost host or drive, and the drive's report model. The drive report's summary page and the fleet summary both
judge through here, so they cannot disagree (the fleet summary may only add its cohort outliers)."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _acceptance, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _judge


def plan(host_dir: str) -> dict | None:
    """The host's plan.json ("plan" and the command that wrote it), or None when the host has none."""
    path = os.path.join(host_dir, "plan.json")
    if not _safe_tree.exists(path):
        return None
    recorded = _results.read_json(path)
    if not isinstance(recorded.get("plan") or {}, dict):
        raise _safe_tree.BadFile(path, "plan is not a mapping")
    return recorded


def lost(path: str) -> str | None:
    """Why a host or drive was lost (lost.json), as a verdict reason."""
    record = os.path.join(path, "lost.json")
    if not _safe_tree.exists(record):
        return None
    return "host lost: " + str(_results.read_json(record).get("msg") or "unreachable")


def planned_tests(recorded: dict | None, drive_key: str, model: dict | None) -> list[str]:
    """The tests the drive's own plan runs (its mode decides: SSD or HDD); the host's tests when the drive has no
    plan of its own; the tests on disk when there is no plan at all (a tree filed without one)."""
    run_plan = (recorded or {}).get("plan") or {}
    own = next((d for d in run_plan.get("drives") or [] if d.get("key") == drive_key), None)
    if own:
        return [t["test"] for t in own["tests"]]
    if recorded is not None:
        return [t["name"] for t in run_plan.get("tests") or []]
    return list(((model or {}).get("tests") or {}).keys())


def judge(drive_dir: str, model: dict, recorded: dict | None = None) -> dict:
    """The drive's verdict as the fleet summary gives it, before cohort outliers."""
    host_dir = os.path.dirname(drive_dir)
    if recorded is None:
        recorded = plan(host_dir)
    run_plan = (recorded or {}).get("plan") or {}
    drive = model.get("drive") or {}
    rule = _acceptance.matching_rule(run_plan.get("acceptance") or [], drive.get("model"), drive.get("firmware"))
    tests = planned_tests(recorded, os.path.basename(drive_dir), model)
    why = lost(drive_dir) or lost(host_dir)
    planned = any(d.get("key") == os.path.basename(drive_dir) for d in run_plan.get("drives") or [])
    if why is None and planned and not model.get("tests") and not model.get("failed_before_rounds"):
        # Planned, guarded and held, yet nothing of its tests is on disk: no drive worker ran it.
        why = ("none of its tests started: no drive worker ran it (a host limit that left the run's workers out, or "
               "a run stopped before its drives)")
    specs = _judge.applicable(_judge.specs_of_plan(run_plan), drive)
    judged = _acceptance.verdict(model, tests, rule, lost=why, specs=specs)
    judged["planned"] = tests
    judged["plan_recorded"] = recorded is not None
    return judged
