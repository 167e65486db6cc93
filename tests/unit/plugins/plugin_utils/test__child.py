# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The heavy part of a report in a short-lived child: its memory is returned, its answer and errors come back."""

from __future__ import annotations

import os
import re
import signal
import threading

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _child
from ansible_collections.fleetqual.pts.plugins.plugin_utils._safe_tree import BadFile


@pytest.fixture(name="forking")
def fixture_forking(monkeypatch):
    monkeypatch.setattr(_child, "ENABLED", True)


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="utf-8") as handle:
        return int(next(line.split()[1] for line in handle if line.startswith("VmRSS:")))


def test_the_function_runs_in_a_child_and_its_answer_comes_back(forking):
    found = _child.run(lambda a, b=0: {"pid": os.getpid(), "sum": a + b}, 2, b=3)
    assert found["sum"] == 5 and found["pid"] != os.getpid()


def test_a_large_answer_comes_back_whole(forking):
    assert _child.run(lambda: "x" * (3 << 20)) == "x" * (3 << 20)


def test_the_childs_memory_is_returned(forking):
    before = _rss_kib()

    def allocate():
        blob = bytearray(200 << 20)
        blob[::4096] = b"x" * len(blob[::4096])
        return len(blob)
    assert _child.run(allocate) == 200 << 20
    assert _rss_kib() - before < 50 << 10  # the 200 MiB stayed in the child


@pytest.mark.parametrize("error", [BadFile("/r/drive.json", "is not valid JSON"), PermissionError(13, "denied")])
def test_the_functions_own_error_comes_back_with_its_message(forking, error):
    def fails():
        raise error
    with pytest.raises(_child.ChildError, match=re.escape(str(error))) as caught:
        _child.run(fails)
    assert caught.value.kind == type(error).__name__


def test_a_bug_in_the_child_comes_back_as_a_traceback_not_a_message(forking):
    def fails():
        return {}["no such key"]
    with pytest.raises(RuntimeError) as caught:
        _child.run(fails)
    assert not isinstance(caught.value, _child.ChildError)
    text = str(caught.value)
    assert text.startswith("KeyError in a child process (a bug):\nTraceback (most recent call last):")
    assert "in fails" in text and "KeyError: 'no such key'" in text


@pytest.mark.parametrize("how, said", [
    (lambda: os.kill(os.getpid(), signal.SIGKILL), "killed by SIGKILL (out of memory?)"),
    (lambda: os.kill(os.getpid(), signal.SIGTERM), "killed by SIGTERM"),
    (lambda: os._exit(3), "ended with status 3 and no answer"),
])
def test_a_child_that_ends_without_an_answer_says_how(forking, how, said):
    with pytest.raises(_child.ChildError, match=re.escape(said)):
        _child.run(how)


def test_an_answer_that_is_not_json_is_a_bug(forking):
    with pytest.raises(RuntimeError, match="TypeError in a child process(.|\n)*not JSON serializable"):
        _child.run(lambda: {1, 2})


def test_without_a_fork_the_function_runs_here(monkeypatch):
    monkeypatch.setattr(_child, "ENABLED", False)
    assert _child.run(os.getpid) == os.getpid()


def test_no_fork_while_another_thread_runs(monkeypatch):
    monkeypatch.setattr(_child, "ENABLED", None)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not _child.usable()
        assert _child.run(os.getpid) == os.getpid()
    finally:
        stop.set()
        thread.join()


def test_when_no_process_can_be_forked_the_function_runs_here(forking, monkeypatch):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    monkeypatch.setattr(os, "fork", no_fork)
    assert _child.run(os.getpid) == os.getpid()
