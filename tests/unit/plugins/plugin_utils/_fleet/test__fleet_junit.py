# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet summary's JUnit file (_fleet_junit.render_junit): one case per requirement per drive, a failure for a
requirement failed and an error for one not judged; a requirement is not counted twice as a check."""

from __future__ import annotations

from xml.etree import ElementTree

from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_junit
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._requirements._judged_fleet import _fleet


def test_junit_has_one_case_per_requirement_per_drive():
    suite = ElementTree.fromstring(_fleet_junit.render_junit(_fleet()))
    cases = {(c.get("classname"), c.get("name")): c for c in suite}
    for drive in ("a", "b", "c"):
        for ident in ("RR4K", "QOS-R1"):
            assert (f"pts.h.{drive}", f"ACME PM1 2.1: {ident}") in cases
    assert cases[("pts.h.b", "ACME PM1 2.1: RR4K")].find("failure") is not None
    assert cases[("pts.h.a", "ACME PM1 2.1: RR4K")].find("failure") is None
    not_judged = cases[("pts.h.c", "ACME PM1 2.1: QOS-R1")].find("error")
    assert not_judged is not None and "not judged, counts as INCOMPLETE" in not_judged.get("message")
    # The requirement checks are not counted twice (once as a check, once as a requirement).
    assert sum(1 for c in suite if c.get("name").endswith("RR4K")) == 3
