# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""What an acceptance figure is: a family of named figures (``iops.<bs>.<mix>``: every block size and R/W mix of the
IOPS matrix), its unit and direction, the test and round files it comes from, how its value is read from a drive's
report model, whether a run's plan measures it and what the plan adds to measure it. Each report kind declares its
families (one file each beside this one); _catalogue.py puts them together into the one list that the rule validation,
the plan, the docs' table of figures and pts_plan's documentation are held to."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._units import UNITS

# The parameters a figure's name may hold, as its pattern writes them (``<bs>``) and as its name spells them.
PLACEHOLDERS = {
    "bs": r"(?P<bs>[0-9]{1,7}[kKmM]?)",
    "mix": r"(?P<mix>[0-9]{1,3}/[0-9]{1,3})",
    "dir": r"(?P<dir>read|write)",
    "pct": r"(?P<pct>[0-9]{1,2}(?:\.[0-9]{1,7})?)",
    "qd": r"(?P<qd>[0-9]{1,4})",
    "point": r"(?P<point>max|mid|min)",
    "ws": r"(?P<ws>[0-9]{1,4})",
}
DIRECTIONS = ("higher", "lower")
MAX_QD = 1024
_TOKEN = re.compile(r"<([a-z]+)>")


def mix_words(read_pct: int, direction: str | None = None) -> str:
    """An R/W mix in a figure's words: "random read", "random write", "random 65/35 read"."""
    if read_pct == 100:
        return "random read"
    if read_pct == 0:
        return "random write"
    return f"random {read_pct}/{100 - read_pct}" + (f" {direction}" if direction else "")


def percent_text(value: float) -> str:
    """A percentile as a figure's name writes it: 99.99, 99, 50 (no trailing zeros)."""
    return f"{value:.7f}".rstrip("0").rstrip(".")


def _parameter(name: str, text: str) -> object:
    """A parameter of a figure's name, checked and in its canonical form; ValueError saying why."""
    if name == "bs":
        return block_size_label(parse_block_size(text))
    if name == "mix":
        read, write = (int(part) for part in text.split("/"))
        if read + write != 100:
            raise InputError(f"the R/W mix {text} does not add up to 100 %")
        return read
    if name == "pct":
        value = float(text)
        if not 0 < value < 100:
            raise InputError(f"the percentile {text} is not above 0 and below 100")
        return percent_text(value)
    if name in ("qd", "ws"):
        value = int(text)
        if not 1 <= value <= (MAX_QD if name == "qd" else 1000):
            raise InputError(f"the {'queue depth' if name == 'qd' else 'wait state'} {value} is not from 1 to "
                             f"{MAX_QD if name == 'qd' else 1000}")
        return value
    return text


def _spelled(name: str, value: object) -> str:
    return f"{value}/{100 - int(value)}" if name == "mix" else str(value)


def measured(value, unit: str, test: str | None, files: list[str] | None = None, state: str | None = None,
             reason: str | None = None, ios: int | None = None, needed: int | None = None) -> dict:
    """A figure as a drive's results give it: its value (None: not measured or not resolved, ``reason`` says which),
    the round files it comes from (relative to the drive's results directory), the state of the window it comes from
    and, for a percentile, the IOs counted and the IOs it needs."""
    out = {"value": None if value is None else float(value), "unit": unit, "test": test, "files": list(files or []),
           "state": state}
    if reason:
        out["reason"] = reason
    if ios is not None:
        out["ios"] = int(ios)
    if needed is not None:
        out["needed"] = int(needed)
    return out


def round_files(test: str, segment: str, stems: list[str]) -> list[str]:
    """Round files' paths relative to the drive's results directory: ``iops/round-03.json``."""
    where = f"{test}/{segment}/" if segment else f"{test}/"
    return [f"{where}{stem}.json" for stem in stems]


def window_stems(result: dict) -> list[str]:
    """The round files of a test's measurement window (window_rounds), as stems."""
    return [f"round-{int(r):02d}" for r in result.get("window_rounds") or []]


class Figure:
    """One family of acceptance figures.

    ``pattern``: its name with placeholders (``latency.<bs>.<mix>.<dir>.p<pct>``); ``unit`` and ``direction``
    ("higher" or "lower" is better); ``test``: the test that measures it (None: the drive's own health and wear);
    ``what``: what it is, in words; ``example``: one name of it.

    ``value(model, params)``: the figure from the drive's report model (``measured()``). ``planned(tests, params,
    plan)``: None when the drive's planned tests (by name, their plan entries) measure it, else why not. ``needs(params)``:
    what the plan adds to measure it - ``{"test": name, "add": {variable: (plan field, value)}, "only": {...},
    "deepest": {variable: (plan field, percentile)}}`` ("only": a test the plan adds gets just the values asked for,
    "add": they join its own) - or None when nothing can be added. ``allowed``: per parameter
    the values it may take (a percentile the test computes); ``check(params)`` raises ValueError for parameters that do
    not go together (the reads of a 0/100 mix). ``stand_in(params)``: the name of a figure of the QoS measurement that
    measures the same IOs when this test cannot resolve it (None: none)."""

    __slots__ = ("pattern", "unit", "direction", "test", "what", "example", "value", "planned", "needs", "allowed",
                 "stand_in", "check", "regex", "parameters")

    def __init__(self, pattern: str, *, unit: str, direction: str, test: str | None, what: str, example: str,
                 value, planned=None, needs=None, allowed: dict | None = None, stand_in=None, check=None):
        if unit not in UNITS:
            raise ValueError(f"figure {pattern}: unknown unit {unit!r}")
        if direction not in DIRECTIONS:
            raise ValueError(f"figure {pattern}: direction {direction!r} is not higher or lower")
        self.pattern = pattern
        self.unit = unit
        self.direction = direction
        self.test = test
        self.what = what
        self.example = example
        self.value = value
        self.planned = planned or (lambda tests, params, plan: None)
        self.needs = needs or (lambda params: None)
        self.allowed = allowed or {}
        self.stand_in = stand_in or (lambda params: None)
        self.check = check or (lambda params: None)
        self.parameters = tuple(_TOKEN.findall(pattern))
        parts = _TOKEN.split(pattern)
        # Literal text at even indexes, placeholder names at odd ones.
        self.regex = re.compile("".join(PLACEHOLDERS[part] if index % 2 else re.escape(part)
                                        for index, part in enumerate(parts)))

    def match(self, name: str) -> dict | None:
        """The figure's parameters, checked and canonical, when ``name`` is one of this family; None when it is not
        this family's; ValueError when it is, with a parameter it cannot take."""
        found = self.regex.fullmatch(name)
        if not found:
            return None
        params = {}
        for key in self.parameters:
            params[key] = _parameter(key, found.group(key))
            allowed = self.allowed.get(key)
            if allowed is not None and params[key] not in allowed:
                raise InputError(f"{_spelled(key, params[key])} is not one this figure takes: "
                                 f"{', '.join(_spelled(key, a) for a in allowed)}")
        self.check(params)
        return params

    def name(self, params: dict) -> str:
        """The figure's canonical name for ``params``."""
        return _TOKEN.sub(lambda m: _spelled(m.group(1), params[m.group(1)]), self.pattern)

    def __repr__(self) -> str:
        return f"Figure({self.pattern!r})"


def needed_ios(pct: str) -> int:
    """The IOs a percentile needs to be resolved (module_utils/_pts/_histogram.py: ten of them beyond it)."""
    return _histogram.needed(pct)
