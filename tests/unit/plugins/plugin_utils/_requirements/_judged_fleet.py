# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A specification (two requirements: a 4k random read rated in kIOPS and a QoS limit) and a fleet of three drives
judged on it: one passing, one failing the read, one whose QoS could not be judged."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _pass_rates, _spec_file


def model(read_iops=950000.0, p9999=0.4, ios=100000, lat_status="steady"):
    return {
        "drive": {"model": "ACME PM1 3.84TB", "firmware": "2.1", "interface": "NVMe", "size_bytes": 3_840_755_982_336},
        "guard": {"passed": True},
        "tests": {
            "iops": {"status": "steady", "rounds_run": 7, "steady_round": 7, "window_rounds": [3, 4, 5, 6, 7],
                     "tables": {"iops": {"4k": {"100": read_iops, "0": 200000.0}}}},
            "qos": {"status": lat_status, "rounds_run": 9, "steady_round": 5, "cells": {"read qd1": {
                "round_file": "round-01", "ios": ios, "iops": 12000.0, "mean_ms": 0.08, "max_ms": 3.0,
                "percentiles_ms": {"99": 0.1, "99.99": p9999}}}},
        },
    }


def spec(not_judged="incomplete", **extra):
    return _spec_file.validate(dict({
        "name": "ACME PM1", "version": "2.1", "source": {"document": "ACME PM1 product brief", "section": "4"},
        "applies_to": {"model": "ACME PM1*"}, "not_judged": not_judged,
        "requirements": [
            {"id": "RR4K", "title": "4k random read", "figure": "iops.4k.100/0", "rated": 1000, "unit": "kIOPS",
             "min_pct_of_rated": 90},
            {"id": "QOS-R1", "figure": "qos.read.qd1.p99.99", "limit": 500, "unit": "us", "source": "5.2"}]},
        **extra), "specs/acme.yml")


def _fleet() -> dict:
    drives = []
    for name, drive in (("h/a", model()), ("h/b", model(read_iops=800000.0)), ("h/c", model(p9999=None, ios=9))):
        judged = _acceptance.verdict(drive, ["iops", "qos"], None, specs=[spec()])
        drives.append(dict(judged, id=name, host="h", drive=name[2:], checks=judged["checks"], outliers=[],
                           label=judged["label"]))
    return {"drives": drives, "generated_at": "2026-11-27T12:00:00+00:00", "errors": [],
            "outlier_settings": {"fail": False}, "requirements": _pass_rates.rates(drives)}
