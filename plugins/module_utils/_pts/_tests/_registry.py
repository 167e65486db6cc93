# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Every test the collection runs, in the order they run whatever order they are selected in: PTS-E 1.1's, PTS 2.0's
own, the QoS measurement an acceptance specification asks for, the Myce/OakGate characterisation tests, TKperf's HDD
tests. The plan (inputs, profile values, segments and the
stop rule of each, which the round action and the wear estimate follow), the resume (the variables that shape its
figures), the verdicts (short names), the report (report kinds) and the role's argument spec (checked by a unit test)
read this list; adding a test is its file here, its report and its row in docs/docsite/rst/tests.rst."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import cbw, dirth, entropy_sweep, hdd_iops
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import hdd_throughput, hir, iops, latency
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import latency_demand, mixed_sweep, qos, rw_sweep
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import throughput, wsat, xsr

TESTS = tuple(module.TEST for module in (
    iops, throughput, latency, wsat,
    hir, xsr, cbw, dirth,
    qos,
    latency_demand, rw_sweep, mixed_sweep, entropy_sweep,
    hdd_iops, hdd_throughput,
))
BY_NAME = {test.name: test for test in TESTS}
NAMES = tuple(BY_NAME)
TITLES = {test.name: test.title for test in TESTS}


def family(name: str) -> tuple:
    """The tests of one family (_descriptor.FAMILIES), in run order."""
    return tuple(test.name for test in TESTS if test.family == name)


PTS_TESTS = family("pts")
PTS2_TESTS = family("pts2")
CHARACTERISATION = family("characterisation")
HDD = family("hdd")
# The tests that choose operating points from a thread count x queue depth loop (CBW, DIRTH): one report kind.
OPERATING_POINT_TESTS = tuple(test.name for test in TESTS if test.report == "intensity")

# The profiles and the values every test shares (each test's own are in its file). "standard" is the PTS as written:
# 60 s per combination, at most 25 rounds; "quick" takes seconds, for demos and CI.
PROFILES = ("standard", "quick")
COMMON_PROFILE = {"standard": {"round_seconds": 60, "max_rounds": 25},
                  "quick": {"round_seconds": 0.5, "max_rounds": 6}}


def common_value(params: dict, profile: str, key: str):
    """A variable every test shares (pts_run_<key>): the operator's, else the profile's."""
    value = params.get("pts_run_" + key)
    return COMMON_PROFILE.get(profile, COMMON_PROFILE["standard"])[key] if value is None else value


def drive_tests(selected: list[str], mode: str) -> tuple[list[str], list[str]]:
    """The tests one drive runs in its mode (ssd or hdd), and a note for each selected test it does not run: an HDD
    runs a test's HDD form where it has one."""
    chosen, notes = [], []
    for name in selected:
        test = BY_NAME[name]
        if mode == "hdd" and test.hdd_instead:
            chosen.append(test.hdd_instead)
        elif mode == "hdd" and test.family != "hdd":
            notes.append(f"{name} not run: an SSD test, and the drive runs in HDD mode")
        elif mode == "ssd" and test.family == "hdd":
            notes.append(f"{name} not run: an HDD test, and the drive runs in SSD mode")
        else:
            chosen.append(name)
    return list(dict.fromkeys(chosen)), notes
