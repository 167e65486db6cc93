# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The run's inputs are the options of the pts_run role's argument spec (its main entry point): pts_plan reads each
one the task sees from the task's variables, so adding an input is one entry in roles/pts_run/meta/argument_specs.yml
(and the code that uses it), not a list kept in step by hand."""

from __future__ import annotations

import functools
import os

import yaml

SPEC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "roles", "pts_run", "meta", "argument_specs.yml")


@functools.lru_cache(maxsize=None)
def names(path: str = SPEC) -> tuple[str, ...]:
    """Every option of the pts_run role's main entry point, in the order the spec lists them."""
    with open(path, encoding="utf-8") as handle:
        spec = yaml.safe_load(handle)
    return tuple((spec["argument_specs"]["main"].get("options") or {}).keys())


def collect(task_vars: dict, template, path: str = SPEC) -> dict:
    """The inputs the task sees, each rendered (role defaults refer to shorter public names such as pts_tests);
    an input that is not set is left out, and the plan takes its documented default."""
    return {name: template(task_vars[name]) for name in names(path) if name in task_vars}
