# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Validation of the operator's run inputs; every error names the variable and the value."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._sizes import parse_block_size


class PlanError(ValueError):
    """An input that would make the run meaningless; the message names the variable and value."""


def fail(variable: str, value: object, why: str) -> PlanError:
    return PlanError(f"{variable}={value!r}: {why}")


def parse_mixes(variable: str, mixes: object) -> list[int]:
    if not isinstance(mixes, (list, tuple)) or not mixes:
        raise fail(variable, mixes, "must be a non-empty list of read percentages (0-100)")
    parsed = []
    for mix in mixes:
        if isinstance(mix, bool) or not isinstance(mix, int) or not 0 <= mix <= 100:
            raise fail(variable, mix, "a R/W mix is the read percentage, an integer from 0 to 100")
        if mix in parsed:
            raise fail(variable, mix, "listed twice")
        parsed.append(mix)
    return parsed


def parse_block_sizes(variable: str, sizes: object) -> list[int]:
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise fail(variable, sizes, "must be a non-empty list of block sizes such as 4k")
    parsed = []
    for size in sizes:
        try:
            value = parse_block_size(size)
        except ValueError as exc:
            raise fail(variable, size, str(exc)) from exc
        if value in parsed:
            raise fail(variable, size, "listed twice")
        parsed.append(value)
    return parsed


def positive(variable: str, value: object, kind: type) -> float:
    if isinstance(value, str):
        # Extra variables given as -e name=value arrive as strings.
        try:
            value = float(value) if "." in value else int(value)
        except ValueError as exc:
            raise fail(variable, value, "must be a positive number") from exc
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise fail(variable, value, "must be a positive number")
    if kind is int and int(value) != value:
        raise fail(variable, value, "must be a whole number")
    return kind(value)


def positive_ints(variable: str, values: object, maximum: int | None = None) -> list[int]:
    """A non-empty list of distinct positive whole numbers (queue depths, IOPS steps), in the order given."""
    if not isinstance(values, (list, tuple)) or not values:
        raise fail(variable, values, "must be a non-empty list of positive whole numbers")
    parsed = []
    for value in values:
        number = int(positive(variable, value, int))
        if maximum is not None and number > maximum:
            raise fail(variable, value, f"must be at most {maximum}")
        if number in parsed:
            raise fail(variable, value, "listed twice")
        parsed.append(number)
    return parsed
