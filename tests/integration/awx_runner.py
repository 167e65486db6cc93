# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Jobs as AWX runs them on an execution node: ansible-runner's streaming mode, ``transmit | worker | process``.

The private data directory given to ``transmit`` is the job as AWX prepares it (a project wrapping the collection's
playbook, the inventory - a slice's part of it for a sliced job -, the extra variables, the environment); ``worker``
unpacks it into a directory of its own (what AWX deletes when the job ends) and runs ansible-playbook there;
``process`` writes what AWX keeps - ``artifacts/`` with ``job_events/``, ``stdout``, ``rc`` and ``status`` - into a
third directory. Used by tests/integration/test_awx.py and bench/event_size.py."""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import yaml

BIN = os.path.dirname(sys.executable)
# What AWX passes of the controller's environment: the test's ansible and temporary settings, no ansible.cfg, no
# callback, no results directory or run id of the machine's own.
_DROPPED = ("PTS_RESULTS_DIR", "PTS_RUN_ID", "ANSIBLE_CONFIG", "ANSIBLE_CALLBACKS_ENABLED", "ANSIBLE_STDOUT_CALLBACK")


def job_dir(base, name: str, hosts: dict, extravars: dict, env: dict, group_vars: dict | None = None) -> str:
    """A job's private data directory as AWX builds it: ``project/pts.yml`` (the wrapper), ``inventory/hosts.yml``,
    ``env/extravars`` and ``env/envvars``."""
    data = os.path.join(str(base), name)
    for sub in ("project", "inventory", "env"):
        os.makedirs(os.path.join(data, sub), exist_ok=True)
    with open(os.path.join(data, "project", "pts.yml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump([{"name": "The fleetqual.pts PTS", "ansible.builtin.import_playbook": "fleetqual.pts.pts"}], handle)
    inventory = {"all": {"hosts": hosts}}
    if group_vars:
        inventory["all"]["vars"] = group_vars
    with open(os.path.join(data, "inventory", "hosts.yml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(inventory, handle)
    with open(os.path.join(data, "env", "extravars"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(extravars, handle)
    with open(os.path.join(data, "env", "envvars"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(env, handle)
    return data


class StreamedJob:
    """One job through ``ansible-runner transmit | worker | process``, started at once; ``wait()`` for its end,
    ``cancel()`` as AWX cancels (the worker's ansible-runner gets SIGTERM and kills ansible-playbook's process group)."""

    def __init__(self, data: str, ident: str, playbook: str = "pts.yml", environ: dict | None = None):
        self.data = data
        self.ident = ident
        self.worker_dir = data + ".worker"
        self.process_dir = data + ".process"
        for folder in (self.worker_dir, self.process_dir):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
        env = dict(environ or os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
        for key in _DROPPED:
            env.pop(key, None)
        runner = os.path.join(BIN, "ansible-runner")
        self.log = open(data + ".streams.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
        self.transmit = subprocess.Popen([runner, "transmit", data, "-p", playbook, "--ident", ident], cwd="/",
                                         env=env, stdout=subprocess.PIPE, stderr=self.log)
        self.worker = subprocess.Popen([runner, "worker", "--private-data-dir", self.worker_dir], cwd="/", env=env,
                                       stdin=self.transmit.stdout, stdout=subprocess.PIPE, stderr=self.log)
        self.transmit.stdout.close()
        self.process = subprocess.Popen([runner, "process", self.process_dir], cwd="/", env=env,
                                        stdin=self.worker.stdout, stdout=self.log, stderr=self.log)
        self.worker.stdout.close()

    def wait(self, timeout: float = 900) -> "Job":
        deadline = time.monotonic() + timeout
        for proc in (self.transmit, self.worker, self.process):
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        self.log.close()
        return Job(self.process_dir)

    def events(self) -> list[dict]:
        """The events the process side has written so far."""
        return Job.read_events(os.path.join(self.process_dir, "artifacts", "job_events"))

    def cancel(self) -> None:
        self.worker.send_signal(signal.SIGTERM)


class Job:
    """What AWX keeps of a job: rc, status, stdout, every event, and the artifacts set_stats gave (the stats event)."""

    def __init__(self, process_dir: str):
        self.artifacts_dir = os.path.join(process_dir, "artifacts")
        self.rc = int(self._read("rc") or -1)
        self.status = self._read("status")
        self.stdout = self._read("stdout")
        events_dir = os.path.join(self.artifacts_dir, "job_events")
        self.events = self.read_events(events_dir)
        self.event_sizes = {path: os.path.getsize(path) for path in glob.glob(os.path.join(events_dir, "*.json"))}
        stats = [e for e in self.events if e.get("event") == "playbook_on_stats"]
        self.artifacts = (stats[-1]["event_data"].get("artifact_data") or {}) if stats else {}

    def _read(self, name: str) -> str:
        try:
            with open(os.path.join(self.artifacts_dir, name), encoding="utf-8") as handle:
                return handle.read().strip()
        except OSError:
            return ""

    @staticmethod
    def read_events(events_dir: str) -> list[dict]:
        found = []
        for path in glob.glob(os.path.join(events_dir, "*.json")):
            try:
                with open(path, encoding="utf-8") as handle:
                    found.append(json.load(handle))
            except (OSError, ValueError):
                continue  # being written
        return sorted(found, key=lambda e: e.get("counter", 0))

    def largest_event(self) -> tuple[int, str]:
        """The largest event file's size in bytes, and what it is (its event and task)."""
        if not self.event_sizes:
            return 0, "no event"
        path = max(self.event_sizes, key=self.event_sizes.get)
        with open(path, encoding="utf-8") as handle:
            event = json.load(handle)
        data = event.get("event_data") or {}
        return self.event_sizes[path], f"{event.get('event')} {data.get('task', '')}".strip()

    def task_results(self, task: str) -> list[dict]:
        """The results (``res``) of every event of the task named ``task``."""
        return [e["event_data"]["res"] for e in self.events
                if (e.get("event_data") or {}).get("task") == task and "res" in e["event_data"]]
