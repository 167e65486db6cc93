# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A host for the fio client's and the fio_job action's tests: the fio_job module's answers, a shell that runs the
host's wait loop against a fio that ends at a time of a fake clock, and the clock."""

from __future__ import annotations

import os
import re

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
with open(os.path.join(FIXTURES, "fio-3.33-iops-round.json"), encoding="utf-8") as _handle:
    RAW = _handle.read()
STARTED = {"pid": 4242, "job_file": "/var/lib/pts/r1/d1/iops/round-01.fio",
           "output": "/var/lib/pts/r1/d1/iops/round-01.json", "status": "/var/lib/pts/r1/d1/iops/round-01.json.status",
           "log": "/var/lib/pts/r1/d1/iops/round-01.json.log", "command": ["fio", "--output-format=json"]}
CONTEXT = {"run_id": "r1", "host": "h1", "drive": "d1", "test": "iops", "segment": "", "phase": "round", "round": 1,
           "loop": "d1/iops/@1"}


class Clock:
    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


class Host:
    """The host: the fio_job module's answers, and a shell that runs host_wait_command against a fio that ends at
    ``finish_at`` on the fake clock with ``end`` (its exit status line and what follows it)."""

    def __init__(self, clock: Clock, finish_at: float | None, end: str | None = None, started: dict | None = None,
                 failures: list | None = None):
        self.clock = clock
        self.finish_at = finish_at
        self.end = end if end is not None else f"0 1.000000 101.400000\n{RAW}"
        self.started = dict(STARTED) if started is None else started
        self.failures = list(failures or [])  # answers that replace the next shell commands' (exceptions, dicts)
        self.modules: list[dict] = []
        self.commands: list[str] = []
        self.at: list[float] = []  # the clock at each command
        self.stdin: list[bytes | None] = []

    def execute_module(self, module_name=None, module_args=None, task_vars=None):
        self.modules.append(dict(module_args, _name=module_name))
        if isinstance(self.started, Exception):
            raise self.started
        if module_args.get("serve"):
            return {"changed": False, "pts_fio_server": {"pid": 77, "dir": os.path.dirname(module_args["job_file"]),
                                                         "idle_s": module_args["serve"]}}
        if module_args.get("detach"):
            return {"changed": True, "pts_fio_started": self.started, "pts_context": module_args.get("context") or {}}
        return {"changed": False, "msg": "check mode: fio not started", "command": ["fio"]}

    def command(self, cmd, sudoable=True, in_data=None, encoding_errors="surrogate_then_replace"):
        self.commands.append(cmd)
        self.at.append(self.clock.now)
        self.stdin.append(in_data)
        if self.failures:
            answer = self.failures.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer
        if "while :" not in cmd:  # the job file and request of a round, or the stop file
            return {"rc": 0, "stdout": "", "stderr": ""}
        count = int(re.match(r"n=(\d+);", cmd).group(1))
        step = float(re.search(r"sleep ([0-9.]+); done$", cmd).group(1))
        span = count * step if count > 1 else 0.0
        if self.finish_at is not None and self.finish_at <= self.clock.now + span:
            # The host looks every step: it sees the status within one step of fio's end.
            waited = max(0.0, self.finish_at - self.clock.now)
            self.clock.now += (int(waited / step) + (waited % step > 1e-9)) * step if span else 0.0
            return {"rc": 0, "stdout": self.end, "stderr": ""}
        self.clock.now += span
        return {"rc": 3, "stdout": "", "stderr": ""}
