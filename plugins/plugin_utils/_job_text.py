# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""fio job files from validated values only: the collection's Jinja templates (``roles/pts_run/templates``), rendered
in a sandbox from a context the caller builds out of the plan's validated settings - never from play variables, which
an extra variable could replace - and checked as fio will read them (module_utils/_pts/_job_check.py) before they
leave the controller. The host checks them again before fio runs."""

from __future__ import annotations

import os

from jinja2 import FileSystemLoader, StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check

TEMPLATES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "roles",
                                          "pts_run", "templates"))
HEADER = "fleetqual.pts job file, written by the run for one drive: not to be edited"
# As ansible's template module renders: a block tag's own newline is dropped, the file's last newline kept.
_ENV = SandboxedEnvironment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, trim_blocks=True,
                            keep_trailing_newline=True, autoescape=False)


class JobTextError(PtsError, ValueError):
    """A job file that cannot be rendered, or that the job-file check refuses; the message says which and why."""


def _plain(value):
    """The context as plain Python data (ansible-core 2.19 hands tagged strings and dicts to actions)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def _render(name: str, context: dict, device: str) -> str:
    try:
        text = _ENV.get_template(name).render(**_plain(dict(context, header=HEADER, device=device)))
    except TemplateError as exc:
        raise JobTextError(f"the job file {name} cannot be rendered: {type(exc).__name__}: {exc}") from None
    refused = _job_check.refusals(text, device)
    if refused:
        raise JobTextError(f"the job file {name} would be refused: {'; '.join(refused)}")
    return text


def round_text(test: dict, segment: dict, round_: dict, device: str, ioengine: str, rate_iops: int,
               drive_key: str) -> str:
    """One round's job file: the plan's ``test`` and ``segment`` records, the round (``number``, ``row``, ``log``)."""
    context = {"test": test, "segment": segment, "round": dict({"row": None, "log": None}, **round_),
               "ioengine": ioengine, "rate_iops": int(rate_iops or 0), "drive_key": drive_key}
    return _render("round.fio.j2", context, device)


def wipc_text(mode: str, device: str, ioengine: str, drive_key: str, block_size: str = "128k",
              capacity_multiple: int = 2, iodepth: int = 32, seconds: float = 0.0) -> str:
    """The preconditioning job file: ``wipc`` (SNIA PTS workload-independent) or ``random`` (timed 4k writes)."""
    if mode not in ("wipc", "random"):
        raise JobTextError(f"preconditioning mode {mode!r} is not wipc or random")
    context = {"mode": mode, "ioengine": ioengine, "drive_key": drive_key, "block_size": block_size,
               "capacity_multiple": int(capacity_multiple), "iodepth": int(iodepth), "seconds": float(seconds)}
    return _render("wipc.fio.j2", context, device)
