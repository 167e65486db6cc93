# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared pieces of the benchmarks: the machine they ran on, tables, and the integration tests' fixtures."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(ROOT, ".collections"))

# Re-exported for the benchmarks: the integration tests' loop devices and playbook runner.
from conftest import LoopDevice, run_playbook  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import


def machine() -> dict:
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        models = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
    with open("/proc/meminfo", encoding="utf-8") as handle:
        mem_kib = int(next(line.split()[1] for line in handle if line.startswith("MemTotal:")))
    fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return {"cpu": models[0] if models else "?", "cores": os.cpu_count(), "memory_gib": round(mem_kib / 1048576, 1),
            "kernel": platform.release(), "python": platform.python_version(), "fio": fio}


def _host_side(pid: int) -> bool:
    """A module's process (AnsiballZ, the shell that started it, what it started: fio): on a real fleet it runs on
    the drive's host over SSH, not on the controller; here the host is the controller."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"AnsiballZ_" in handle.read()
    except OSError:
        return False


def tree_memory_kib(root_pid: int) -> dict:
    """RSS and PSS (kiB) of a process and all its descendants. Forked Ansible workers share most of their pages
    with the controller, so summed RSS counts those pages once per worker; PSS splits each shared page among
    the processes that map it, so the sum is what the tree really costs. ``host_pss``: the part of the PSS that
    modules' processes and theirs take (_host_side), which a fleet's hosts carry, not its controller."""
    parents = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                parents[int(pid)] = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    total = {"rss": 0, "pss": 0, "host_pss": 0, "processes": 0}
    host_side: dict[int, bool] = {}  # each process's command line read once, though it is many processes' ancestor
    for pid in parents:
        node, chain = pid, []
        while node and node != root_pid:
            chain.append(node)
            node = parents.get(node, 0)
        if node != root_pid:
            continue
        host = any(host_side[n] if n in host_side else host_side.setdefault(n, _host_side(n)) for n in chain)
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as handle:
                for line in handle:
                    key = line.split(":", 1)[0]
                    if key in ("Rss", "Pss"):
                        kib = int(line.split()[1])
                        total[key.lower()] += kib
                        if key == "Pss" and host:
                            total["host_pss"] += kib
        except (OSError, IndexError, ValueError):
            continue
        total["processes"] += 1
    return total


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) + " |" for row in cells]
    return "\n".join(out)


def save(name: str, data: dict) -> str:
    path = os.path.join(ROOT, "bench", "results", f"{name}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
    return path
