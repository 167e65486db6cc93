# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Composite block size workload (PTS 2.0; PTS-E 1.1's ECW): a block size mix over LBA hot spots, to steady state over
a thread count x queue depth grid, then three operating points with latency histograms."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, mix
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test

BSSPLIT = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"
DISTRIBUTION = "zoned:50/5:30/15:20/80"
# What fio is told for a bssplit section (bs= is required; bssplit overrides it): the 4k of CBW's most common size.
NOMINAL_BLOCK_SIZE = 4096
# ASCII digits only (\d also matches other scripts' digits, which fio does not read).
_BSSPLIT_RE = re.compile(r"[0-9]+[kKmM]?/[0-9]+", re.ASCII)
# Whole percentages: fio 3.33 reads each share of a zoned distribution as a whole number (50.5/49.5 adds up to 99 and
# fails), and the PTS's zones are whole numbers.
_ZONED_RE = re.compile(r"zoned:[0-9]+/[0-9]+(?::[0-9]+/[0-9]+)*", re.ASCII)


def bssplit(value: object, variable: str) -> tuple[str, list[tuple[int, int]]]:
    """A fio bssplit (size/percent:...) whose shares add up to 100: the text fio's job file gets, written again from
    the parsed (bytes, percent) pairs, and the pairs."""
    if not isinstance(value, str) or not value.strip() or any(ch.isspace() for ch in value.strip()):
        raise fail(variable, value, "must be a fio bssplit such as 4k/50:64k/50 (size/percent of IOs), without spaces")
    pairs = []
    for part in value.strip().split(":"):
        if not _BSSPLIT_RE.fullmatch(part):
            raise fail(variable, value, f"{part!r} is not size/percent (e.g. 4k/67) in ASCII digits (0-9)")
        size, dummy, pct = part.partition("/")
        try:
            pairs.append((parse_block_size(size), int(pct)))
        except ValueError as exc:
            raise fail(variable, value, str(exc)) from exc
        if not pairs[-1][1]:
            # fio 3.33 never ends a job whose bssplit has a share of 0 %.
            raise fail(variable, value, f"{part!r} has a share of 0 %: leave the size out")
    if sum(pct for dummy, pct in pairs) != 100:
        raise fail(variable, value, f"its percentages add up to {sum(p for dummy, p in pairs)}, not 100")
    return ":".join(f"{block_size_label(size)}/{pct}" for size, pct in pairs), pairs


def distribution(value: object, variable: str) -> str:
    """A fio zoned random_distribution (zoned:IO%/LBA%:...) whose IO and LBA shares each add up to 100."""
    text = str(value).strip() if isinstance(value, str) else ""
    if not _ZONED_RE.fullmatch(text):
        raise fail(variable, value, "must be a fio zoned distribution such as zoned:50/5:30/15:20/80 (IO %/LBA %, "
                                    "whole percentages in ASCII digits)")
    zones = [[int(share) for share in part.split("/")] for part in text[len("zoned:"):].split(":")]
    for index, name in ((0, "IO"), (1, "LBA")):
        total = sum(zone[index] for zone in zones)
        if total != 100:
            raise fail(variable, value, f"its {name} shares add up to {total:g}, not 100")
    return "zoned:" + ":".join(f"{io}/{lba}" for io, lba in zones)


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    found = _intensity.inputs("cbw", get)
    text, pairs = bssplit(get("cbw_bssplit"), "pts_run_cbw_bssplit")
    chosen = mix("pts_run_cbw_mix", get("cbw_mix"))
    return dict(found, mixes=[chosen, 0], bssplit=text, bssplit_sizes=[bs for bs, dummy in pairs],
                distribution=distribution(get("cbw_distribution"), "pts_run_cbw_distribution"), mix=chosen,
                block_sizes=[NOMINAL_BLOCK_SIZE])


TEST = Test(
    name="cbw", title="Composite Block Size Workload", short="CBW", family="pts2", stop="phases", purge="test",
    report="intensity", inputs=_inputs, segments=_intensity.segments,
    profile=_intensity.profile({"standard": {"cbw_bssplit": BSSPLIT, "cbw_distribution": DISTRIBUTION, "cbw_mix": 40}}),
    raw_variables=_intensity.RAW_VARIABLES + ("cbw_bssplit", "cbw_distribution", "cbw_mix"),
    size_fields=(("pts_run_cbw_bssplit", "bssplit_sizes"),),
)
