# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The throughput report kind's acceptance figures: the window-average MB/s of each block size, read and write (PTS-E
1.1's sizes and PTS 2.0's, or any the operator gives)."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import parse_block_size
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._checks import Checks
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, round_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import window_stems
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._headline import Headlines


def _value(model: dict, params: dict) -> dict:
    result = (model.get("tests") or {}).get("throughput") or {}
    if not result.get("rounds_run"):
        return measured(None, "MB/s", "throughput", reason="the throughput test did not run")
    segment = next((s for s in result.get("segments") or [] if s.get("name") == params["bs"]), None)
    if segment is None or not segment.get("rounds_run"):
        return measured(None, "MB/s", "throughput", reason=f"the throughput test ran no round at {params['bs']}")
    files = round_files("throughput", params["bs"], window_stems(segment))
    dvs = segment.get("dvs") or []
    index = 0 if params["dir"] == "read" else 1
    state = ("steady" if dvs[index].get("steady") else "not steady") if len(dvs) > index and \
        segment.get("status") in ("steady", "not steady") else segment.get("status")
    return measured((segment.get("mb_per_s") or {}).get(params["dir"]), "MB/s", "throughput", files, state)


def _planned(tests: dict, params: dict, plan: dict) -> str | None:
    entry = tests.get("throughput")
    if entry is None:
        return "the Throughput test is not selected (pts_tests)"
    if parse_block_size(params["bs"]) not in (entry.get("block_sizes") or []):
        return f"{params['bs']} is not among the Throughput test's block sizes (pts_run_throughput_block_sizes)"
    return None


def _needs(params: dict) -> dict:
    return {"test": "throughput",
            "add": {"pts_run_throughput_block_sizes": ("block_sizes", parse_block_size(params["bs"]))}}


FIGURES = (
    Figure("throughput.<bs>.<dir>", unit="MB/s", direction="higher", test="throughput",
           what="Throughput test: the measurement window's average sequential read or write MB/s (10^6 bytes/s) of "
                "one block size", example="throughput.128k.read", value=_value, planned=_planned, needs=_needs),
)


# A block size's window verdicts that are a figure's state; any other status is its segment's.
_FINISHED = ("steady", "not steady")


def _headline_window(tests: dict, direction: str) -> tuple[dict, dict]:
    segment = next((s for s in (tests.get("throughput") or {}).get("segments") or [] if s["name"] == "1024k"), {})
    index = 0 if direction == "read" else 1
    dvs = segment.get("dvs") or []
    return segment, (dvs[index] if len(dvs) > index else {})


def _headline_values(tests: dict) -> dict:
    out = {}
    for direction in ("read", "write"):
        segment, dummy = _headline_window(tests, direction)
        out[f"throughput_1024k_{direction}_mb_s"] = (segment.get("mb_per_s") or {}).get(direction)
    return out


def _headline_state(tests: dict, figure: str) -> str:
    segment, dv = _headline_window(tests, "read" if "read" in figure else "write")
    if not segment:
        return "not run"
    if segment.get("status") not in _FINISHED:
        return segment.get("status") or "not run"
    # Each direction has its own window verdict; the block size is steady only when both are.
    return "steady" if dv.get("steady") else "not steady"


HEADLINES = (Headlines(figures={
    "throughput_1024k_read_mb_s": {"label": "1024k sequential read", "short": "1024k read MB/s", "unit": "MB/s",
                                   "digits": 1, "test": "throughput"},
    "throughput_1024k_write_mb_s": {"label": "1024k sequential write", "short": "1024k write MB/s", "unit": "MB/s",
                                    "digits": 1, "test": "throughput"},
}, values=_headline_values, state=_headline_state),)


def _not_steady(result: dict, limit: object) -> str:
    """Which block sizes' DVs missed steady state: its round limit is per block size."""
    missed = [f"{dv['name']}" for seg in result.get("segments") or [] if seg.get("rounds_run")
              for dv in seg.get("dvs") or [] if not dv.get("steady")]
    return f"not reached by {', '.join(missed) or 'every block size'} within the {limit}-round limit per block size"


CHECKS = Checks(not_steady=_not_steady)
