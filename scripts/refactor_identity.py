# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Does a refactor keep behaviour? Two checkouts of the collection, the one before (OLD) and the one after (NEW),
asked the same questions:

``plans OLD NEW``
    ``build_plan`` over a matrix: every test alone and the default tests, under each profile and PTS version, then
    every option of the pts_run role's argument spec (NEW's and OLD's) set to each of a list of bad and edge values,
    and to each of its choices. Each case's plan, or its error's type and message, must be the same, and NEW's every
    error a PlanError (a bad value refused naming the variable, not an OverflowError).

``reports OLD NEW DRIVE_DIR...``
    Each drive's report drawn from a copy of its results by each checkout: every file the report writes must be the
    same, but dates and the collection's version; plots byte for byte; the PDF by its text, page by page
    (``pdftotext``), and its page count.

``fleets OLD NEW RUN_DIR...``
    Each run's fleet summary written from a copy of it by each checkout: fleet.md, fleet.json, junit.xml, the HTML
    and PDF, the plots, and every drive file the summary wrote again, compared as the reports are.
``rounds TREE_A TREE_B``
    Two results trees of the same playbook, one run by each checkout (the demo, a PTS 2.0 quick run): every round
    file both have (a test may be steady a round sooner in one run) must have the same job text, but the device's
    name, and the same settings, test, segment, row and phase; and every drive, test and segment of one tree must be
    in the other.

Exit status 0 when every case and file is the same, 1 when one differs (the first differences are printed).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

_WORKER = r"""
import hashlib, json, sys
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _plan
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

def plan_of(case, whole):
    try:
        text = json.dumps(_plan.build_plan(case["params"], case["devices"]), sort_keys=True, default=repr)
    except Exception as exc:  # the error is the answer compared
        return {"error": f"{type(exc).__name__}: {exc}"}
    return json.loads(text) if whole else {"sha256": hashlib.sha256(text.encode()).hexdigest()}

request = json.load(sys.stdin)
if request["kind"] == "plans":
    json.dump([plan_of(case, request["whole"]) for case in request["cases"]], sys.stdout)
elif request["kind"] == "fleets":
    _fleet_summary.summarize(request["runs"], request["out"])
    json.dump([], sys.stdout)
else:
    for drive_dir in request["drives"]:
        _drive_report.write_drive_report(drive_dir, tuple(request["formats"]))
    json.dump([], sys.stdout)
"""

DRIVES = [{"key": "ssd", "size_bytes": 64 * 2 ** 30, "logical_block_size": 512},
          {"key": "ssd4k", "size_bytes": 3_840_000_000_000, "logical_block_size": 4096}]
# Values no option should take unnoticed, and edges of the ones it may.
BAD_VALUES = [None, "", "x", "1e3", "100%", -1, 0, 1, 3.5, 1e300, float("nan"), True, False, [], {}, ["x"], {"x": 1},
              10 ** 15, "0", "-1", "4k", "1m", "1.1", "2.0", "\n", "include /etc/passwd"]
# The tests under each profile and PTS version; every option's values under the first and the last.
PROFILES = [("standard", "1.1"), ("quick", "1.1"), ("standard", "2.0"), ("quick", "2.0")]
_MASKS = [(re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d| UTC)?"), "<date>"),
          (re.compile(r"\d{8}T\d{6}Z"), "<stamp>")]


def _collection_root(checkout: str, scratch: str, name: str) -> str:
    """A directory to put on sys.path where ``ansible_collections.fleetqual.pts`` is ``checkout``."""
    root = os.path.join(scratch, name)
    os.makedirs(os.path.join(root, "ansible_collections", "fleetqual"))
    os.symlink(os.path.abspath(checkout), os.path.join(root, "ansible_collections", "fleetqual", "pts"))
    return root


def _ask(root: str, request: dict) -> list:
    env = dict(os.environ, PYTHONPATH=root, PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, "-c", _WORKER], input=json.dumps(request), capture_output=True, text=True,
                          env=env, cwd=os.path.dirname(root), check=False)
    if done.returncode:
        raise SystemExit(f"the checkout at {root} could not answer:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)


def _options(checkout: str) -> dict:
    path = os.path.join(checkout, "roles", "pts_run", "meta", "argument_specs.yml")
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)["argument_specs"]["main"]["options"]


def plan_cases(old: str, new: str) -> list[dict]:
    options = dict(_options(old), **_options(new))
    base = {name: spec["default"] for name, spec in options.items() if "default" in spec}
    tests = options["pts_run_tests"]["choices"]
    cases = []
    for profile, spec in PROFILES:
        common = dict(base, pts_run_profile=profile, pts_run_spec=spec)
        for chosen in [base["pts_run_tests"]] + [[name] for name in tests]:
            cases.append({"label": f"{profile} {spec} tests={chosen}", "params": dict(common, pts_run_tests=chosen)})
        for name, option in sorted(options.items()) if (profile, spec) in (PROFILES[0], PROFILES[-1]) else ():
            for value in BAD_VALUES + list(option.get("choices") or []):
                params = dict(common, pts_run_tests=tests)
                params[name] = value
                cases.append({"label": f"{profile} {spec} {name}={value!r}", "params": params})
    for case in cases:
        case["devices"] = DRIVES
    return cases


def compare_plans(old: str, new: str, scratch: str) -> list[str]:
    cases = plan_cases(old, new)
    # JSON has no NaN: the value goes as a string both sides read the same way.
    request = json.loads(json.dumps({"kind": "plans", "cases": cases, "whole": False}, default=repr)
                         .replace("NaN", '"nan"'))
    roots = (_collection_root(old, scratch, "old"), _collection_root(new, scratch, "new"))
    before, after = (_ask(root, request) for root in roots)
    differences = []
    for index, (case, one, other) in enumerate(zip(cases, before, after)):
        if one != other:
            # The plans themselves, for the few that differ (each whole plan of the matrix would be gigabytes).
            again = dict(request, cases=[request["cases"][index]], whole=True)
            one, other = (_ask(root, again)[0] for root in roots)
            diff = difflib.unified_diff(json.dumps(one, indent=1, sort_keys=True).splitlines(),
                                        json.dumps(other, indent=1, sort_keys=True).splitlines(), "old", "new",
                                        lineterm="", n=1)
            differences.append(case["label"] + "\n" + "\n".join(list(diff)[:30]))
    errors = sum(1 for answer in after if "error" in answer)
    print(f"plans: {len(cases)} cases ({len(cases) - errors} plans, {errors} refusals), {len(differences)} differ")
    # A bad value is refused naming the variable (a PlanError), whatever OLD did: anything else is a bug to fix.
    unnamed = [f"{case['label']}: NEW raised {answer['error'][:200]}" for case, answer in zip(cases, after)
               if "error" in answer and not answer["error"].startswith("PlanError: ")]
    return differences + unnamed


def _masked(text: str, versions: tuple[str, ...]) -> str:
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    for version in versions:
        text = text.replace(version, "<version>")
    return text


def _version(checkout: str) -> str:
    with open(os.path.join(checkout, "galaxy.yml"), encoding="utf-8") as handle:
        return str(yaml.safe_load(handle)["version"])


def _pdf_text(path: str) -> str:
    return subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True, check=True).stdout


def _files(top: str) -> dict:
    return {os.path.relpath(os.path.join(here, name), top): os.path.join(here, name)
            for here, dummy, names in os.walk(top) for name in names}


def _same(one: str, other: str, versions: tuple[str, ...]) -> bool:
    if one.endswith(".pdf"):
        return _masked(_pdf_text(one), versions) == _masked(_pdf_text(other), versions)
    if one.endswith((".md", ".html", ".json", ".csv", ".txt", ".xml")):
        with open(one, encoding="utf-8") as a, open(other, encoding="utf-8") as b:
            return _masked(a.read(), versions) == _masked(b.read(), versions)
    with open(one, "rb") as a, open(other, "rb") as b:
        return a.read() == b.read()


def _compare_copies(source: str, copies: dict, versions: tuple[str, ...], differences: list[str]) -> int:
    """The files the old and the new checkout wrote from ``source`` ({"old"|"new": {relative path: file}}), each
    difference added to ``differences``; how many files both wrote."""
    for missing in sorted(set(copies["old"]) ^ set(copies["new"])):
        differences.append(f"{source}: {missing} is written by only one of them")
    both = sorted(set(copies["old"]) & set(copies["new"]))
    for relative in both:
        if not _same(copies["old"][relative], copies["new"][relative], versions):
            differences.append(f"{source}: {relative} differs")
    return len(both)


def compare_reports(old: str, new: str, drives: list[str], scratch: str) -> list[str]:
    versions = (_version(old), _version(new))
    differences, compared = [], 0
    for index, drive in enumerate(drives):
        copies = {}
        for name, checkout in (("old", old), ("new", new)):
            # Drawn at the same path by both (a report may name where it is), then kept aside.
            copy = os.path.join(scratch, "drive", os.path.basename(os.path.normpath(drive)))
            shutil.copytree(drive, copy, symlinks=True)
            for stale in ("report.md", "report.html", "report.pdf", "result.json", "plots"):
                path = os.path.join(copy, stale)
                if os.path.isdir(path):
                    shutil.rmtree(path)
                elif os.path.exists(path):
                    os.unlink(path)
            _ask(_collection_root(checkout, scratch, f"{name}{index}"),
                 {"kind": "reports", "drives": [copy], "formats": ["md", "html", "pdf"]})
            kept = os.path.join(scratch, f"{name}-drive{index}")
            os.rename(copy, kept)
            copies[name] = _files(kept)
        compared += _compare_copies(drive, copies, versions, differences)
    print(f"reports: {len(drives)} drives, {compared} files compared, {len(differences)} differ")
    return differences


def compare_fleets(old: str, new: str, runs: list[str], scratch: str) -> list[str]:
    versions = (_version(old), _version(new))
    differences, compared = [], 0
    for index, run in enumerate(runs):
        copies = {}
        for name, checkout in (("old", old), ("new", new)):
            # Written at the same paths by both, then kept aside.
            top = os.path.join(scratch, "fleet")
            copy = os.path.join(top, "results", os.path.basename(os.path.normpath(run)))
            shutil.copytree(run, copy, symlinks=True)
            _ask(_collection_root(checkout, scratch, f"{name}-fleet{index}"),
                 {"kind": "fleets", "runs": [copy], "out": os.path.join(top, "out")})
            kept = os.path.join(scratch, f"{name}-fleet{index}-files")
            os.rename(top, kept)
            copies[name] = {path: full for path, full in _files(kept).items() if not path.endswith(".sqlite")}
        compared += _compare_copies(run, copies, versions, differences)
    print(f"fleets: {len(runs)} runs, {compared} files compared, {len(differences)} differ")
    return differences


_DEVICE = re.compile(r"/dev/[A-Za-z0-9_./-]+")
_ROUND_KEYS = ("settings", "test", "segment", "row", "phase", "round", "drive", "host")


def _drives_of(tree: str) -> dict:
    """{host/drive: that drive's directory} of a results tree (a run directory, or the results directory above)."""
    return {os.path.join(*os.path.abspath(here).split(os.sep)[-2:]): here
            for here, dummy, names in os.walk(tree) if "drive.json" in names}


def compare_rounds(one: str, other: str) -> list[str]:
    differences, compared = [], 0
    drives = (_drives_of(one), _drives_of(other))
    for missing in sorted(set(drives[0]) ^ set(drives[1])):
        differences.append(f"drive {missing} is in only one tree")
    for drive in sorted(set(drives[0]) & set(drives[1])):
        files = [{path: full for path, full in _files(top[drive]).items() if re.search(r"round-\d+\.(fio|json)$", path)}
                 for top in drives]
        units = [{os.path.dirname(path) for path in listing} for listing in files]
        for missing in sorted(units[0] ^ units[1]):
            differences.append(f"{drive}: {missing or '.'} has rounds in only one tree")
        for path in sorted(set(files[0]) & set(files[1])):
            compared += 1
            texts = []
            for listing in files:
                with open(listing[path], encoding="utf-8") as handle:
                    if path.endswith(".fio"):
                        texts.append(_DEVICE.sub("<device>", handle.read()))
                    else:
                        record = json.load(handle)
                        texts.append(json.dumps({key: record.get(key) for key in _ROUND_KEYS}, sort_keys=True))
            if texts[0] != texts[1]:
                differences.append(f"{drive}: {path} differs")
    print(f"rounds: {len(set(drives[0]) & set(drives[1]))} drives, {compared} round files compared, "
          f"{len(differences)} differ")
    return differences


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("what", choices=("plans", "reports", "rounds", "fleets"))
    parser.add_argument("old", help="the checkout before the change (rounds: the results tree it wrote)")
    parser.add_argument("new", help="the checkout after it (rounds: the results tree it wrote)")
    parser.add_argument("drives", nargs="*", help="reports: the drive directories of results trees; fleets: run "
                                                  "directories")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pts-identity-") as scratch:
        if args.what == "plans":
            differences = compare_plans(args.old, args.new, scratch)
        elif args.what == "rounds":
            differences = compare_rounds(args.old, args.new)
        elif args.what == "fleets":
            if not args.drives:
                parser.error("fleets: name at least one run directory")
            differences = compare_fleets(args.old, args.new, args.drives, scratch)
        else:
            if not args.drives:
                parser.error("reports: name at least one drive directory")
            differences = compare_reports(args.old, args.new, args.drives, scratch)
    for difference in differences[:20]:
        print(difference)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
