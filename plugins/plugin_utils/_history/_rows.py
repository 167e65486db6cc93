# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A run's rows of the history, read from its files alone (result.json, drive.json, plan.json, fleet.json): one row per
host x drive x headline figure (PTS-E 1.1's always, PTS 2.0's when the drive ran the test), with the drive's identity,
the run's profile and settings, its verdict, and health and wear where the results have them. The history holds
nothing the results tree does not: these rows can be written again at any time."""

from __future__ import annotations

import json
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import RUN_ID_RE
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _result_files, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree

# Settings that say where files went, not how the drive was tested: left out of "settings".
_NOT_SETTINGS = ("pts_run_remote_dir",)


# --- reading one run from its files -------------------------------------------------------------------------------

def _read(path: str, skipped: list | None = None) -> dict | None:
    """A record of the tree, or None when it is missing or not one (then, with ``skipped``, the file and why)."""
    try:
        return _results.read_json(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        if skipped is not None:
            skipped.append({"path": path, "why": str(exc)})
        return None


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _integer(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def _round_health(result: dict) -> dict | None:
    """The per-round health summary of the report (result.json's round_health), in brief: None when no round was
    read (a loop device, a run from before per-round health)."""
    summary = result.get("round_health")
    if not isinstance(summary, dict) or not summary.get("read"):
        return None
    marked = [m for m in summary.get("marked") or [] if isinstance(m, dict)]
    return {"read": summary.get("read"), "max_c": summary.get("max_c"), "max_at": summary.get("max_at"),
            "warning_c": summary.get("warning_c"), "critical_c": summary.get("critical_c"),
            "tools": summary.get("tools"),
            "rounds": {kind: sum(1 for m in marked if kind in (m.get("kinds") or []))
                       for kind in ("throttled", "warning", "errors")}}


def _health(drive: dict, result: dict) -> dict:
    """Health columns from what the results hold: the snapshots before (drive.json) and after (health-after.json),
    and the per-round health when the run read it. The snapshot columns prefer the one after the tests."""
    before = drive.get("health") or None
    after = result.get("health_after") or None
    rounds = _round_health(result)
    kept = {k: v for k, v in (("before", before), ("after", after), ("rounds", rounds)) if v}
    last = after or before or {}
    return {
        "health": json.dumps(kept, sort_keys=True, default=str) if kept else None,
        "temperature_c": _number(last.get("temperature_c")),
        "percentage_used": _number(last.get("percentage_used")),
        "media_errors": _integer(last.get("media_errors")),
        "critical_warning": _integer(last.get("critical_warning")),
        "max_temperature_c": _number((rounds or {}).get("max_c")),
        "throttled_rounds": (rounds or {}).get("rounds", {}).get("throttled"),
        "warning_rounds": (rounds or {}).get("rounds", {}).get("warning"),
    }


def _wear(drive: dict, result: dict) -> dict:
    """Wear columns: a result's own wear block when it has one; else the drive's bytes-written counter before and
    after the run (its delta), when the drive reports one."""
    wear = result.get("wear") if isinstance(result.get("wear"), dict) else {}
    before = (drive.get("health") or {}).get("bytes_written")
    after = (result.get("health_after") or {}).get("bytes_written")
    delta = after - before if _integer(before) is not None and _integer(after) is not None else None
    return {
        "host_bytes_written": _integer(wear.get("host_bytes_written")),
        "drive_bytes_written": _integer(wear.get("drive_bytes_written")) if wear.get("drive_bytes_written")
        is not None else delta,
        "write_amplification": _number(wear.get("write_amplification")),
    }


def _fleet_verdicts(run_dir: str, fleet_json: str | None) -> dict:
    """{(host, drive): verdict} from the fleet summary of this run (it adds cohort outliers to the drive's own)."""
    run = os.path.basename(os.path.normpath(run_dir))
    verdicts: dict = {}
    for path in (fleet_json, os.path.join(run_dir, "fleet.json")):
        summary = _read(path) if path else None
        drives = (summary or {}).get("drives")
        for record in drives if isinstance(drives, list) else []:
            if isinstance(record, dict) and record.get("run", run) == run and isinstance(record.get("verdict"), str):
                verdicts.setdefault((record.get("host"), record.get("drive")), record["verdict"])
    return verdicts


def _run_time(run_dir: str, when: str | None = None) -> str | None:
    """When the run started: the earliest plan of its hosts; else when its fleet summary was written; else ``when``
    (a summary being written)."""
    times = []
    for host in _safe_tree.subdirs(run_dir):
        recorded = ((_read(os.path.join(run_dir, host, "plan.json")) or {}).get("command") or {}).get("recorded_at")
        if recorded:
            times.append(str(recorded))
    if times:
        return min(times)
    return (_read(os.path.join(run_dir, "fleet.json")) or {}).get("generated_at") or when


def _result(path: str, skipped: list | None) -> dict | None:
    """A drive's result.json as the report writes it, or None (missing; not one: skipped, with the file and why)."""
    found = _read(path, skipped)
    if found is None:
        return None
    try:
        return _result_files.check_result(found, path)
    except ValueError as exc:
        if skipped is not None:
            skipped.append({"path": path, "why": str(exc).split(": ", 1)[-1]})
        return None


def run_rows(run_dir: str, fleet_json: str | None = None, skipped: list | None = None,
             verdicts: dict | None = None, when: str | None = None) -> list[dict]:
    """Every row of one run, from its files: per drive with a result.json, one row per headline figure. A result.json
    that is not one is left out (with ``skipped``: its path and why). The fleet's verdicts: ``verdicts`` ({(host,
    drive): verdict}, a summary being written), else ``fleet_json`` and the run's own fleet.json. ``when``: the run's
    time when its files do not say (no plan recorded one, no fleet.json yet)."""
    run = os.path.basename(os.path.normpath(run_dir))
    verdicts = dict(verdicts) if verdicts is not None else _fleet_verdicts(run_dir, fleet_json)
    run_time = _run_time(run_dir, when)
    plans: dict = {}
    rows = []
    for drive_dir in _results.drive_dirs(run_dir):
        result = _result(os.path.join(drive_dir, "result.json"), skipped)
        if not result or (result.get("raid_member") and not result.get("tests")):
            continue  # no report (yet), or a RAID member measured as part of its md array: nothing of its own
        host_dir = os.path.dirname(drive_dir)
        host, drive_name = os.path.basename(host_dir), os.path.basename(drive_dir)
        if host_dir not in plans:
            plans[host_dir] = (_read(os.path.join(host_dir, "plan.json")) or {}).get("plan") or {}
        plan = plans[host_dir]
        drive = result.get("drive") or (_read(os.path.join(drive_dir, "drive.json")) or {}).get("drive") or {}
        variables = {k: v for k, v in (plan.get("variables") or {}).items() if k not in _NOT_SETTINGS}
        headline = result.get("headline") or {}
        verdict = verdicts.get((host, drive_name))
        own = (result.get("verdict") or {}).get("verdict")
        common = {
            "run_id": run, "host": host, "drive": drive_name,
            "serial": drive.get("serial") or None, "model": drive.get("model") or None,
            "firmware": drive.get("firmware") or None, "vendor": drive.get("vendor") or None,
            "wwn": drive.get("wwn") or None, "capacity_bytes": _integer(drive.get("size_bytes")),
            "interface": drive.get("interface"), "run_time": run_time,
            "profile": plan.get("profile") or ("quick" if result.get("quick_profile") else None),
            "quick_profile": int(bool(result.get("quick_profile"))),
            "tests": json.dumps(sorted((result.get("tests") or {}).keys())),
            "settings": json.dumps(variables, sort_keys=True, default=str) if variables else None,
            "verdict": verdict or own, "verdict_source": "fleet" if verdict else ("report" if own else None),
            "drive_dir": os.path.relpath(drive_dir, os.path.dirname(os.path.normpath(run_dir))),
            **_health(drive, result), **_wear(drive, result),
        }
        ran = set((result.get("tests") or {}).keys())
        for figure, spec in _headline_figures.FIGURES.items():
            if spec.get("optional") and spec["test"] not in ran:
                continue  # a PTS 2.0 figure of a test the drive did not run: no row (the PTS-E 1.1 ones always have)
            entry = headline.get(figure) if isinstance(headline.get(figure), dict) else {}
            rows.append(dict(common, figure=figure, value=_number(entry.get("value")),
                             unit=entry.get("unit") or spec["unit"], state=entry.get("state"),
                             steady=int(bool(entry.get("steady")))))
    return rows


def hosts_of(run_dir: str) -> set[str]:
    """The hosts a run directory holds: a write replaces their rows, and keeps the rows of hosts it does not hold (a
    job slice of the same run on another controller)."""
    return set(_safe_tree.subdirs(run_dir))


def run_dirs_of(root: str) -> list[str]:
    """Every run directory of a results root: named like a run id, holding at least one host's plan.json."""
    found = []
    for entry in _safe_tree.subdirs(root):
        path = os.path.join(root, entry)
        try:
            if RUN_ID_RE.match(entry) and any(_safe_tree.isfile(os.path.join(path, host, "plan.json"))
                                              for host in _safe_tree.subdirs(path)):
                found.append(path)
        except OSError:
            continue  # a run root will not read (another user's directory): not indexed; report.yml names it
    return found
