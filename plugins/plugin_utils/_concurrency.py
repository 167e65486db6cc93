# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""How many drives of a run go at once, and what it costs when ansible-core's ``forks`` is below the drive count.

playbooks/pts.yml gives every planned drive its own worker (an inventory host, see _workers) and runs the workers with
the ``free`` strategy, so all drives would run at once - but ansible-core runs at most ``forks`` tasks at a time, and
a test's rounds are one long task per drive (pts_segment). With fewer forks than drives, the drives queue
for a fork: ``forks`` drives at a time, the run about ``ceil(drives / forks)`` times as long. The repository's
ansible.cfg sets ``forks = 50``; an installed collection has no ansible.cfg of its own, so ansible-core's default of 5
applies unless the operator sets one.
"""

from __future__ import annotations

import math

from ansible import constants, context
from ansible.errors import AnsibleError

# ansible-core's TaskQueueManager runs with 5 forks when it is given none (ansible/executor/task_queue_manager.py).
DEFAULT_FORKS = 5


def remaining(drive: dict) -> tuple[float, float] | None:
    """The plan's (min, max) seconds of one drive's tests not yet done, or None when none is left to run."""
    tests = [t for t in drive.get("tests") or [] if not t.get("done")]
    if not tests:
        return None
    return (sum(float(t.get("min_s") or 0) for t in tests), sum(float(t.get("max_s") or 0) for t in tests))


def _wall(durations: list[float], slots: int) -> float:
    """Wall time of jobs started in order on the first free of ``slots`` forks (each drive holds one while it runs)."""
    ends = [0.0] * max(1, slots)
    for duration in durations:
        first = ends.index(min(ends))
        ends[first] += duration
    return max(ends)


def forks_origin(cli_forks: int | None, config_forks: int | None, config_origin: str | None) -> str:
    """Where the forks in force were set, in the operator's words."""
    if cli_forks is not None and config_forks is not None and int(cli_forks) != int(config_forks):
        return "-f/--forks"
    origin = str(config_origin or "default")
    if origin == "default":
        return "ansible-core's default"
    if origin.startswith("env:"):
        return origin.split(":", 1)[1].strip()
    return origin  # the ansible.cfg that set it


def forks_in_force() -> tuple[int, str]:
    """The forks ansible-playbook runs with, and where it was set. The command line's value (-f, else ANSIBLE_FORKS,
    else ansible.cfg, else 5) is what the TaskQueueManager is given; constants.DEFAULT_FORKS misses -f."""
    cli = (context.CLIARGS or {}).get("forks")
    try:
        configured, origin = constants.config.get_config_value_and_origin("DEFAULT_FORKS")
    except AnsibleError:  # a bad ansible.cfg value (AnsibleOptionsError): only the message's words depend on it
        configured, origin = None, None
    return int(cli or configured or DEFAULT_FORKS), forks_origin(cli, configured, origin)


def summary(drives: list[dict], forks: int | None) -> dict | None:
    """Concurrency of a run: ``drives`` are ``{"host", "key", "min_s", "max_s"}`` of every drive with tests to run,
    in the order their workers are added; None when there is none."""
    if not drives:
        return None
    forks = int(forks or DEFAULT_FORKS)
    count = len(drives)
    at_once = min(forks, count)
    lows = [float(d.get("min_s") or 0) for d in drives]
    highs = [float(d.get("max_s") or 0) for d in drives]
    return {
        "drives": count,
        "hosts": len({d.get("host") for d in drives}),
        "forks": forks,
        "at_once": at_once,
        "batches": math.ceil(count / forks),
        "min_s": _wall(lows, at_once), "max_s": _wall(highs, at_once),
        "unlimited_min_s": max(lows), "unlimited_max_s": max(highs),
    }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _span(low: float, high: float) -> str:
    if high >= 7200:
        return f"{low / 3600:.1f}-{high / 3600:.1f} h"
    if high >= 120:
        return f"{low / 60:.1f}-{high / 60:.1f} min"
    return f"{low:.0f}-{high:.0f} s"


def message(found: dict, origin: str | None = None) -> str:
    """The plan's line on concurrency, with the remedy when forks is below the drive count."""
    drives, forks = found["drives"], found["forks"]
    where = f"{_plural(drives, 'drive')} on {_plural(found['hosts'], 'host')}"
    setting = f"forks {forks}" + (f" ({origin})" if origin else "")
    if forks >= drives:
        together = "the drive runs" if drives == 1 else f"all {drives} drives run at once"
        return (f"PTS plan: {where}; {setting}: {together}; estimated "
                f"{_span(found['min_s'], found['max_s'])}, the slowest drive's time")
    return (f"PTS plan: {where}; {setting} < {_plural(drives, 'drive')}: drives run {forks} at a time, in "
            f"{found['batches']} batches; estimated {_span(found['min_s'], found['max_s'])} instead of "
            f"{_span(found['unlimited_min_s'], found['unlimited_max_s'])} with all at once; set ANSIBLE_FORKS={drives} "
            f"(or -f {drives}, or forks = {drives} under [defaults] in ansible.cfg)")
