# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A drive report's wear section: what the tests wrote against the drive's endurance, beside the plan's estimate
made before the first write.
"""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _wear
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import NAMES as TESTS, TITLES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import format_bytes
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

DASH = md.DASH


def estimate(plan: dict | None, key: str) -> dict:
    """The plan's estimate of the drive's wall time per test (min, max seconds), as it was made before the first
    write; empty without a plan for the drive."""
    own = next((d for d in (plan or {}).get("drives") or [] if d.get("key") == key), None)
    return {t["test"]: {"min_s": t.get("min_s"), "max_s": t.get("max_s")} for t in (own or {}).get("tests") or []
            if t.get("test") and t.get("min_s") is not None}


def _written(record: dict | None) -> int:
    """fio's write bytes in one round or preconditioning record (all its jobs)."""
    jobs = ((record or {}).get("fio") or {}).get("jobs") or []
    return sum(int((job.get("write") or {}).get("io_bytes") or 0) for job in jobs)


def _readings(record: dict) -> tuple[dict | None, dict | None]:
    """The drive's health readings just before and just after one round (none for rounds of older runs)."""
    entry = (record.get("fio") or {}).get("health")
    entry = entry if isinstance(entry, dict) else {}
    return entry.get("before"), entry.get("after")


def wear_model(loaded: dict, drive: dict, plan: dict | None, key: str) -> dict:
    """What the run wrote to the drive, per test and in all - the host's bytes from fio's records, the drive's own
    counters from its health readings - and the plan's estimate of it before the first write."""
    per_test = []
    for name in TESTS:
        test = loaded["tests"].get(name)
        if not test:
            continue
        segments = test.get("segments") or {}
        # A test's preconditioning is filed with the test (wipc.json), or with each segment it runs before.
        preconditions = [test.get("wipc")] + [seg.get("wipc") for seg_name, seg in segments.items() if seg_name]
        per_test.append({
            "test": name,
            "precondition_bytes": sum(_written(p) for p in preconditions if p),
            "rounds_bytes": sum(_written(r) for seg in segments.values() for r in seg.get("rounds") or []),
            "segments": [[_readings(r) for r in seg.get("rounds") or []] for seg in segments.values()],
        })
    wear = _wear.measured(per_test, drive.get("health"), loaded.get("health_after"))
    own = next((d for d in (plan or {}).get("drives") or [] if d.get("key") == key), None)
    wear["estimate"] = (own or {}).get("wear")
    return wear


def wear_section(model: dict, number: int) -> list[str]:
    """Bytes written per test and in all, by the host and by the drive's own counter, beside the plan's estimate."""
    wear = model.get("wear") or {}

    def size(value) -> str:
        return DASH if value is None else format_bytes(value)

    lines = [f"## {number} Wear", ""]
    counter = wear.get("counter")
    lines += ["Bytes written to the drive: by the host as fio counted them (each preconditioning and round), and as "
              "the drive's own host-writes counter counted them"
              + (f" ({md.text(counter)}: over each test's rounds, and from identification to after the tests for the "
                 "run)" if counter else " (**the drive reports no write counter**)") + ".", ""]
    rows = [[md.text(TITLES.get(t["test"], t["test"])), size(t["precondition_bytes"]), size(t["rounds_bytes"]),
             size(t["drive_bytes_written"]), md.fmt(t["write_amplification"], 2)] for t in wear.get("tests") or []]
    rows.append(["**Run**", "", f"**{size(wear.get('host_bytes_written'))}** (all)",
                 f"**{size(wear.get('drive_bytes_written'))}**", md.fmt(wear.get("write_amplification"), 2)])
    lines += md.table(["Test", "Preconditioning (host)", "Rounds (host)", "Drive's counter", "Write amplification"],
                      rows, numeric=False)
    if not counter and wear.get("nand_note"):
        why = "none: the device reports no write counters."
    elif wear.get("nand_note"):
        why = md.text(wear["nand_note"]) + "."
    else:
        why = "the growth of the drive's NAND-writes counter over that of its host-writes counter."
    lines += ["", f"Write amplification: {why}"]
    estimate = wear.get("estimate")
    if estimate:
        lines += ["", f"Before the first write the plan estimated (an upper bound): {md.text(estimate.get('text'))}."]
    return lines + [""]
