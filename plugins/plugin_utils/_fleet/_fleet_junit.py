# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet summary as JUnit XML (junit.xml): a test suite per run, a test case per drive and test, and one per
requirement of each specification that applies to the drive (passed, failed, or an error when it was not judged and
counts as INCOMPLETE).
"""

from __future__ import annotations

from xml.etree import ElementTree
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet._fleet_figures import outlier_text
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _judge, _pass_rates


def _case(suite, classname: str, name: str, passed: bool | None, text: str, seconds: float | None):
    """A test case: passed (system-out), failed (failure) or not judged (error: it did not finish)."""
    case = ElementTree.SubElement(suite, "testcase", classname=classname, name=name,
                                  time=f"{seconds:.3f}" if seconds is not None else "0")
    if passed is None:
        ElementTree.SubElement(case, "error", message=text).text = text
    elif not passed:
        ElementTree.SubElement(case, "failure", message=text).text = text
    else:
        ElementTree.SubElement(case, "system-out").text = text
    return case


def _outcome(record: dict) -> bool | None:
    """A requirement as a JUnit case: passed, failed (a FAIL, or not judged where its specification fails it) or an
    error (not judged: INCOMPLETE)."""
    if record["status"] == _judge.NOT_JUDGED:
        return False if record.get("not_judged") == "fail" else None
    return record["status"] == _judge.PASS


def render_junit(summary: dict) -> str:
    """One test case per drive and criterion (each PTS test's own - steady state, write saturation - with the test's
    wall time), per cohort outlier, and the drive's verdict with its total test time; the suite's time is the sum."""
    suite = ElementTree.Element("testsuite", name="fleetqual.pts", timestamp=summary["generated_at"])
    counts = {"tests": 0, "failures": 0, "errors": 0}
    total = 0.0
    for drive in summary["drives"]:
        classname = md.plain(f"pts.{drive['host']}.{drive['drive']}")
        times = drive.get("test_times") or {}
        # XML 1.0 cannot carry control characters at all: drive strings reach junit.xml as plain text.
        cases = [(c["criterion"], c["passed"], md.plain(c["text"]), times.get(c.get("test")) if "figure" not in c
                  else None) for c in drive["checks"] if not c.get("requirement")]
        cases += [(r["case"], _outcome(r), md.plain(_pass_rates.text(r)), None) for r in drive.get("requirements") or []]
        cases += [(f"{'population' if o.get('against') == 'population' else 'cohort'} {o['figure']}",
                   not summary["outlier_settings"]["fail"], md.plain(outlier_text(o)), None)
                  for o in drive["outliers"]]
        label = drive.get("label") or drive["verdict"]
        text = md.plain(f"{label}: " + "; ".join(drive["reasons"]) if drive["reasons"] else label)
        outcome = {"PASS": True, "FAIL": False}.get(drive["verdict"])
        cases.append(("verdict", outcome, text, drive.get("time_s")))
        for name, passed, message, seconds in cases:
            case = _case(suite, classname, name, passed, message, seconds)
            counts["tests"] += 1
            counts["failures"] += passed is False
            counts["errors"] += passed is None
            if name == "verdict" and drive.get("quick_profile"):
                properties = ElementTree.SubElement(case, "properties")
                ElementTree.SubElement(properties, "property", name="profile", value="quick (not a qualification)")
        total += drive.get("time_s") or 0.0
    for error in summary.get("errors") or []:
        # A run error is no drive's: one error case per host (or results host) it concerns.
        _case(suite, md.plain(f"pts.{error['host']}"), md.plain(error.get("task") or "run"), None,
              md.plain(error["msg"]), None)
        counts["tests"] += 1
        counts["errors"] += 1
    for entry in summary.get("in_progress") or [] if summary.get("in_progress_fails") else []:
        # A summary written while the run runs: each host still running is an error case (not judged).
        _case(suite, md.plain(f"pts.{entry['host']}"), "in progress", None,
              md.plain(f"still running ({entry.get('by') or 'another process'}): not judged yet"), None)
        counts["tests"] += 1
        counts["errors"] += 1
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{total:.3f}")
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
