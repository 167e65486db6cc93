# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A report's plots on two cores: the heavier half in a forked child, whose failure only costs time."""

from __future__ import annotations

import os
import threading

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _split


def _where(name: str):
    return lambda: {"name": name, "pid": os.getpid()}


def test_the_jobs_are_balanced_heaviest_first():
    jobs = [(name, weight, _where(name)) for name, weight in (("a", 7.0), ("b", 6.0), ("c", 4.0), ("d", 2.0))]
    theirs, ours = _split.balance(jobs)
    assert [j[0] for j in theirs] == ["a", "d"] and [j[0] for j in ours] == ["b", "c"]


def test_half_the_jobs_run_in_a_child(monkeypatch):
    monkeypatch.setattr(_split, "ENABLED", True)
    weights = (("iops", 4.0), ("throughput", 7.0), ("latency", 6.0))
    found = _split.run([(name, weight, _where(name)) for name, weight in weights])
    assert sorted(found) == ["iops", "latency", "throughput"]
    assert found["throughput"]["pid"] != os.getpid()  # the heaviest went to the child
    assert found["latency"]["pid"] == found["iops"]["pid"] == os.getpid()


def test_a_child_that_fails_costs_only_time(monkeypatch):
    monkeypatch.setattr(_split, "ENABLED", True)
    parent = os.getpid()

    def only_here():
        if os.getpid() != parent:
            raise RuntimeError("the child cannot draw this")
        return {"pid": os.getpid()}

    found = _split.run([("heavy", 9.0, only_here), ("light", 1.0, _where("light"))])
    assert found["heavy"] == {"pid": parent}  # run again here after the child failed


def test_an_error_in_a_job_surfaces_as_without_the_split(monkeypatch):
    monkeypatch.setattr(_split, "ENABLED", True)

    def broken():
        raise ValueError("round 3 has no 4k random write run")

    with pytest.raises(ValueError, match="round 3"):
        _split.run([("heavy", 9.0, broken), ("light", 1.0, _where("light"))])


def test_no_fork_with_another_thread_alive():
    # A fork copies the calling thread only: a lock another thread holds would stay held in the child.
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        found = _split.run([("a", 2.0, _where("a")), ("b", 1.0, _where("b"))])
    finally:
        stop.set()
        other.join()
    assert {entry["pid"] for entry in found.values()} == {os.getpid()}
