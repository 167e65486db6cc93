# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A function run in a short-lived forked child, its result (JSON) back through a pipe: what the function allocates -
a report's figures, WeasyPrint's layout of the PDF, the heap they fragment - is the child's, and returns to the system
when it exits, so the process that asked goes back to its own size. The child shares the libraries the parent has
loaded (copy on write), so it starts in milliseconds.

Only where a fork is safe: a process with no other Python thread (a fork copies the calling thread alone; another
one's held lock would stay held in the child) - an ansible-playbook worker, not its main process. Elsewhere the
function runs in the process itself. A child that ends without its answer (killed, out of memory, a crash in a C
library) is a ChildError naming how it ended; the function's own PtsError or OSError comes back as a ChildError with
its message. Any other exception is a bug: it comes back as a RuntimeError carrying the child's traceback, so that it
stays a traceback in the parent too.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import threading
import traceback
from collections.abc import Callable

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

# Set by the tests to force one way or the other; None: decide as above.
ENABLED: bool | None = None


class ChildError(PtsError):
    """The function failed in the child (its message), or the child ended without an answer (how it ended)."""

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        self.kind = kind


def usable() -> bool:
    if ENABLED is not None:
        return ENABLED
    return hasattr(os, "fork") and threading.active_count() == 1


def read_all(fd: int) -> bytes:
    """Everything a pipe gives until its writers close it."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"its child process was killed by {name}" + (" (out of memory?)" if number == signal.SIGKILL else "")
    return f"its child process ended with status {os.waitstatus_to_exitcode(status)} and no answer"


def run(func: Callable, *args, **kwargs):
    """``func(*args, **kwargs)`` in a forked child when usable(), else here; its JSON-able result either way."""
    if not usable():
        return func(*args, **kwargs)
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process left to fork (EAGAIN, ENOMEM): the work is done here
        os.close(reader)
        os.close(writer)
        return func(*args, **kwargs)
    if pid == 0:  # the child: the work, its answer down the pipe, and out without the parent's exit handlers
        code = 0
        try:
            os.close(reader)
            # What the parent had is never garbage here: the collector leaves it alone (its pages stay shared).
            gc.freeze()
            try:
                data = json.dumps({"result": func(*args, **kwargs)}).encode("utf-8")
            except BaseException as exc:  # pylint: disable=broad-exception-caught  # said to the parent, which raises it
                said = {"error": str(exc), "kind": type(exc).__name__}
                if not isinstance(exc, (PtsError, OSError)):
                    said["traceback"] = traceback.format_exc()
                data = json.dumps(said).encode("utf-8")
                code = 1
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
        finally:
            os._exit(code)  # pylint: disable=protected-access  # a forked child must not run the parent's atexit
    os.close(writer)
    try:
        data = read_all(reader)
    finally:
        os.close(reader)
        dummy, status = os.waitpid(pid, 0)
    try:
        found = json.loads(data.decode("utf-8")) if data else None
    except ValueError:
        found = None
    if not isinstance(found, dict) or not ("result" in found or "error" in found):
        raise ChildError(_ended(status))
    if "traceback" in found:
        raise RuntimeError(f"{found.get('kind')} in a child process (a bug):\n{found['traceback']}")
    if "error" in found:
        raise ChildError(str(found["error"]), str(found.get("kind") or ""))
    return found["result"]
