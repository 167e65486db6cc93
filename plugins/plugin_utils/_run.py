# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""One owner for what a run is on the controller: its id, its results folder, and how the fleet is judged.

- The run id: ``-e pts_run_id`` (or an inventory ``pts_run_id``), which the pts_run role passes to its steps as
  their ``run_id`` argument, else the ``PTS_RUN_ID`` environment variable, else a new one that no other controller
  process takes: the UTC time the run was planned and AWX's job id (``YYYYMMDDTHHMMSSZ-awx<id>``), or a random suffix outside
  AWX - two job slices started in the same second never share it. One directory name, checked wherever it comes from
  (module_utils/_pts/_inputs.py run_id).
- The results root: an action's own argument (the pts_run role and the playbooks pass the ``pts_results_dir``
  variable), else the ``PTS_RESULTS_DIR`` environment variable, else ``results`` in the directory ansible-playbook runs
  in; made absolute once, when the run is fixed. The run's folder is ``<root>/<run id>``. Nothing here reads the
  pts_report callback's configuration: the callback only reads the run directory the run recorded.
- The fleet settings (``pts_fleet_*``): validated with the plan and recorded in each host's plan.json, so a summary
  written later (the callback's fallback, playbooks/fleet_summary.yml) judges as the run was told to; their defaults
  are FLEET_DEFAULTS.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import secrets

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import number_text
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _destinations, _results, _safe_tree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._acceptance import FAIL, INCOMPLETE, VERDICTS

# The environment variables a run's id and results root fall back to, and the root without either.
RUN_ID_ENV = "PTS_RUN_ID"
RESULTS_DIR_ENV = "PTS_RESULTS_DIR"
DEFAULT_RESULTS_DIR = "results"
FLEET_DEFAULTS = {"fail_on": [FAIL, INCOMPLETE], "outlier_robust_z": 3.5, "outlier_min_deviation_pct": 10.0,
                  "outlier_min_cohort": 3, "outliers_fail": False}


def results_root(given: object = None, source: str = "results_dir", environ: dict | None = None) -> str:
    """The results root, absolute and without links: ``given`` (an action's argument, named ``source`` in an error),
    else the ``PTS_RESULTS_DIR`` environment variable, else ``results``. ValueError naming where it came from when it
    is no path, or a path root would not follow (plugin_utils/_safe_tree.py)."""
    if given not in (None, ""):
        if not isinstance(given, str):
            raise InputError(f"{source}={given!r}: must be a directory path")
        return checked_root(given, source)
    environ = os.environ if environ is None else environ
    if environ.get(RESULTS_DIR_ENV):
        return checked_root(os.path.expandvars(environ[RESULTS_DIR_ENV]), f"{RESULTS_DIR_ENV} (environment)")
    return checked_root(DEFAULT_RESULTS_DIR, f"the default results directory {DEFAULT_RESULTS_DIR!r}")


def checked_root(given: str, source: str) -> str:
    """A directory an operator names for results (a results root, an output directory), absolute and without links;
    ValueError naming ``source`` for a name that is not text as it displays, or a directory root would not use
    (a link only another user could have made on the way, a level another user can change)."""
    _text.no_format_characters(source, given)
    try:
        root = _safe_tree.resolve(given)
        _safe_tree.check_root(root)
    except OSError as exc:
        raise InputError(f"{source}={given!r}: {exc}") from None
    return root


def run_dir(run_id: str, root: str | None = None) -> str:
    """The run's folder, ``<results root>/<run id>``."""
    return os.path.join(results_root(root), _results.safe_name(run_id))


def same_directory(variable: str, run_id: object) -> str:
    """The run id, refused (ValueError naming ``variable``) when the results would go to another directory than the
    one it names: the lock is taken on ``<root>/<run id>`` and every result goes to run_dir(), through safe_name()."""
    text = str(run_id)
    if _results.safe_name(text) != text:
        raise InputError(f"{variable}={run_id!r}: names directory {_results.safe_name(text)!r} for its results, not "
                         f"{text!r}: a run id must be one directory name that stays as it is")
    return text


_AWX_JOB_RE = re.compile(r"^[0-9]{1,18}$")


def new_run_id(now: datetime.datetime | None = None, awx_job_id: object = None,
               awx_workflow_job_id: object = None) -> str:
    """The run id of a run nobody named, new for every launch. Under an AWX workflow job - a sliced job's slices are
    one, each slice a job of it - ``awx-wf<workflow job id>``, which every slice shares, so that their hosts are one
    run; else the UTC time it was planned and what makes it this controller process's own - AWX's job id, else a
    random suffix."""
    workflow = str(awx_workflow_job_id) if awx_workflow_job_id not in (None, "") else ""
    if _AWX_JOB_RE.fullmatch(workflow):
        return f"awx-wf{workflow}"
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    job = str(awx_job_id) if awx_job_id not in (None, "") else ""
    return f"{stamp}-awx{job}" if _AWX_JOB_RE.fullmatch(job) else f"{stamp}-{secrets.token_hex(3)}"


def run_id_in_force(variable: object, env: object, now: datetime.datetime | None = None,
                    awx_job_id: object = None, awx_workflow_job_id: object = None) -> str:
    """The run id of this run: the pts_run_id variable (-e or the inventory, the action's run_id argument), else the
    PTS_RUN_ID environment variable, else a new one. Not yet checked (see run_id_candidates)."""
    for value in (variable, env):
        if value not in (None, ""):
            return value if isinstance(value, str) else str(value)
    return new_run_id(now, awx_job_id, awx_workflow_job_id)


def run_id_given(given: object, environ: dict | None = None) -> object:
    """The run id an action was given (its run_id argument), else the PTS_RUN_ID environment variable, else None:
    the run an action outside pts_run_start works on (pts_run_start also makes a new one)."""
    if given not in (None, ""):
        return given
    return (os.environ if environ is None else environ).get(RUN_ID_ENV) or None


def run_id_source(variable: object, env: object) -> str | None:
    """Where a run id the operator fixed came from, or None for a new one."""
    for label, value in (("pts_run_id", variable), (RUN_ID_ENV, env)):
        if value not in (None, ""):
            return label
    return None


def run_id_candidates(effective: object, extra: object, env: object) -> list[tuple[str, object]]:
    """Every run id this run could take as a path, each named as the operator set it: the one in force (from
    -e pts_run_id, the PTS_RUN_ID environment variable or an inventory pts_run_id), then the environment's when it
    differs from it. Unset sources are left out."""
    sources = (("pts_run_id", extra), (f"{RUN_ID_ENV} (environment)", env))
    candidates: list[tuple[str, object]] = []
    if effective not in (None, ""):
        name = next((label for label, value in sources if value not in (None, "") and str(value) == str(effective)),
                    "pts_run_id")
        candidates.append((name, effective))
    for label, value in sources[1:]:
        if value not in (None, "") and all(str(value) != str(seen) for dummy, seen in candidates):
            candidates.append((label, value))
    return candidates


def fleet_settings(params: dict) -> dict:
    """The fleet summary's settings (pts_fleet_*), validated with the plan before anything is written; unset ones
    take FLEET_DEFAULTS."""
    fail_on = params.get("pts_fleet_fail_on")
    fail_on = list(FLEET_DEFAULTS["fail_on"]) if fail_on is None else fail_on
    if not isinstance(fail_on, list) or any(v not in VERDICTS for v in fail_on):
        raise InputError(f"pts_fleet_fail_on={fail_on!r}: must be a list of {', '.join(VERDICTS)}")
    settings = {"fail_on": fail_on}
    for name, kind in (("outlier_robust_z", float), ("outlier_min_deviation_pct", float), ("outlier_min_cohort", int)):
        given = params.get(f"pts_fleet_{name}")
        value = FLEET_DEFAULTS[name] if given is None else given
        if isinstance(value, str):
            value = number_text(value)  # -e gives numbers as strings; ASCII digits only
        try:
            value = None if isinstance(value, bool) or value is None else kind(value)
        except (TypeError, ValueError, OverflowError):
            value = None
        if value is None or not math.isfinite(value) or value <= 0:
            raise InputError(f"pts_fleet_{name}={given!r}: must be a positive number")
        settings[name] = value
    outliers_fail = params.get("pts_fleet_outliers_fail")
    outliers_fail = FLEET_DEFAULTS["outliers_fail"] if outliers_fail is None else outliers_fail
    if not isinstance(outliers_fail, bool):
        raise InputError(f"pts_fleet_outliers_fail={outliers_fail!r}: must be true or false")
    settings["outliers_fail"] = outliers_fail
    return settings


def recorded_fleet_settings(run_dirs: list[str]) -> dict:
    """The fleet settings as the runs' plans recorded them: the verdicts that fail the run are the union over every
    host's plan; the outlier settings the first plan's that has them (one run's hosts share them); FLEET_DEFAULTS for
    what no plan recorded."""
    found = dict(FLEET_DEFAULTS, fail_on=None)
    seen = set()
    for path in run_dirs:
        for host in _safe_tree.subdirs(path):
            plan_file = os.path.join(path, host, "plan.json")
            try:
                fleet = (_results.read_json(plan_file).get("plan") or {}).get("fleet") or {}
            except (OSError, ValueError):
                continue
            if not isinstance(fleet, dict):
                continue
            if isinstance(fleet.get("fail_on"), list):
                found["fail_on"] = sorted(set(found["fail_on"] or []) | {v for v in fleet["fail_on"] if v in VERDICTS})
            for key in ("outlier_robust_z", "outlier_min_deviation_pct", "outlier_min_cohort", "outliers_fail"):
                if key not in seen and fleet.get(key) is not None:
                    found[key] = fleet[key]
                    seen.add(key)
    if found["fail_on"] is None:
        found["fail_on"] = list(FLEET_DEFAULTS["fail_on"])
    return found


def publish_targets(given: object) -> list[dict]:
    """The publish targets of pts_run_publish (pts_publish): plugin_utils/_destinations.py targets()."""
    return _destinations.targets(given)
