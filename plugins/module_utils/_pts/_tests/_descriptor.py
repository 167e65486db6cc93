# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What one test is, as the collection reads it: the plan takes its inputs, profile values, segments, stop rule and
purge (which the round action and the wear estimate follow, segment by segment), the resume the variables that shape
its figures, the verdicts its short name and the report its report kind. One file per test in this directory holds one
``Test``; _registry.py lists them in the order they run."""

from __future__ import annotations

# Where a test comes from: the report groups its specification rows by these ("acceptance": the measurement an
# acceptance specification asks for, QoS).
FAMILIES = ("pts", "pts2", "acceptance", "characterisation", "hdd")
# How a segment ends: steady state of its DVs, bytes written (write saturation), every row of a sweep, a demand ramp
# past the drive's limit, or per segment (a PTS 2.0 test's phases, each with one of the rules and "samples"/"points").
STOPS = ("steady", "written", "sweep", "demand", "phases")


def _whole_drive(test: dict, capacity: int) -> tuple[int, str]:
    return capacity, "the drive"


class Test:
    """One test. ``inputs(params, common)`` validates its own variables (``params`` by role variable name; ``common``
    the validated numjobs, iodepth, round_seconds, profile and spec) and returns its plan entry's fields;
    ``segments(test, logical_block_size, capacity)`` returns its purge-to-stop units on one drive and notes.

    ``profile``: its own variables (without ``pts_run_``) by profile - "standard" is the test as published; an
    operator's value always wins. ``variables``: the variables whose validated value (a field of its inputs) shapes its
    figures; ``raw_variables``: those recorded as the operator or profile gives them. ``size_fields``: the block sizes
    the plan checks against the drive, by variable; ``space(test, capacity)``: the bytes fio has for one of those block
    sizes and what they are ((capacity, "the drive") unless given; None: nothing to check, its segments say why).
    ``gives``: fields of its inputs that the tests after it read from ``common``, by the key they read. ``report``: the
    report kind that draws it."""

    __slots__ = ("name", "title", "short", "family", "stop", "purge", "profile", "variables", "raw_variables",
                 "size_fields", "report", "hdd_instead", "inputs", "segments", "space", "gives")

    def __init__(self, *, name: str, title: str, family: str, stop: str, purge: str | None, report: str,
                 inputs, segments, short: str | None = None, profile: dict | None = None,
                 variables: dict | None = None, raw_variables: tuple = (), size_fields: tuple = (),
                 hdd_instead: str | None = None, space=None, gives: dict | None = None):
        if family not in FAMILIES:
            raise ValueError(f"test {name}: unknown family {family!r}")
        if stop not in STOPS:
            raise ValueError(f"test {name}: unknown stop rule {stop!r}")
        self.name = name
        self.title = title
        self.short = short or title
        self.family = family
        self.stop = stop
        self.purge = purge
        self.profile = profile or {"standard": {}}
        self.variables = variables or {}
        self.raw_variables = tuple(raw_variables)
        self.size_fields = tuple(size_fields)
        self.report = report
        self.hdd_instead = hdd_instead
        self.inputs = inputs
        self.segments = segments
        self.space = space or _whole_drive
        self.gives = dict(gives or {})

    def effective(self, params: dict, profile: str, key: str):
        """One of the test's own variables (``key`` without pts_run_): the operator's, else the profile's, else the
        standard one."""
        value = params.get("pts_run_" + key)
        if value is None:
            value = self.profile.get(profile, {}).get(key)
        return self.profile["standard"][key] if value is None else value

    def __repr__(self) -> str:
        return f"Test({self.name!r})"
