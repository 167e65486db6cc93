# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive's plots drawn on two cores: the heavier half of the jobs in a forked child, the rest here, the child's
results (JSON) back through a pipe. Only where that is safe and worth it: a process with no other Python thread (a
fork copies one thread; another one's held lock would stay held in the child), two CPUs or more, two jobs or more.
A child that fails or says nothing is of no consequence: its jobs are run again here, so an error shows as it would
have without the split."""

from __future__ import annotations

import json
import os
import threading
import traceback
from collections.abc import Callable

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _child

# Set by the tests to force one way or the other; None: decide as above.
ENABLED: bool | None = None


def _usable() -> bool:
    if ENABLED is not None:
        return ENABLED
    return hasattr(os, "fork") and threading.active_count() == 1 and (os.cpu_count() or 1) >= 2


def balance(jobs: list[tuple[str, float, Callable[[], dict]]]) -> tuple[list, list]:
    """The jobs in two groups of about equal weight, heaviest first (the first group is the child's)."""
    groups: tuple[list, list] = ([], [])
    weights = [0.0, 0.0]
    for job in sorted(jobs, key=lambda j: -j[1]):
        lighter = 0 if weights[0] <= weights[1] else 1
        groups[lighter].append(job)
        weights[lighter] += job[1]
    return groups


def run(jobs: list[tuple[str, float, Callable[[], dict]]], extra_core: Callable[[], object] | None = None) -> dict:
    """Run every job (name, weight, function returning a JSON-able dict); {name: its result}. ``extra_core``: where
    the cores are shared out (report slots), what takes a second one - an object with ``release()``, or None when
    none is free, and the jobs all run here."""
    if len(jobs) < 2 or not _usable():
        return {name: func() for name, dummy, func in jobs}
    held = extra_core() if extra_core is not None else None
    if extra_core is not None and held is None:
        return {name: func() for name, dummy, func in jobs}
    try:
        return _run_split(jobs)
    finally:
        if held is not None:
            held.release()


def _run_split(jobs: list[tuple[str, float, Callable[[], dict]]]) -> dict:
    theirs, ours = balance(jobs)
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return {name: func() for name, dummy, func in jobs}
    if pid == 0:  # the child: its jobs, their results down the pipe, and out without the parent's exit handlers
        os.close(reader)
        code = 0
        try:
            payload = json.dumps({name: func() for name, dummy, func in theirs}).encode("utf-8")
        except BaseException:  # pylint: disable=broad-exception-caught  # any failure: the parent runs them again
            payload, code = json.dumps({"_error": traceback.format_exc()}).encode("utf-8"), 1
        try:
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(code)  # pylint: disable=protected-access  # a forked child must not run the parent's atexit
    os.close(writer)
    results: dict = {}
    try:
        results = {name: func() for name, dummy, func in ours}
    finally:
        data = _child.read_all(reader)
        os.close(reader)
        dummy, status = os.waitpid(pid, 0)
    try:
        found = json.loads(data.decode("utf-8")) if data else {}
    except ValueError:
        found = {}
    if status != 0 or "_error" in found or set(found) != {name for name, dummy, dummy2 in theirs}:
        found = {name: func() for name, dummy, func in theirs}
    results.update(found)
    return results
