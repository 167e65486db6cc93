# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Cross stimulus recovery (PTS 2.0): sequential 1024k writes, random 8k writes, sequential 1024k writes again, each
access group one continuous fio run cut into samples at fio's status dumps as it runs."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _interval
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import fail, parse_block_sizes, percentage
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import positive, seconds
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _sections
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import queue_depth

GROUPS = (("group1", "sequential"), ("group2", "random"), ("group3", "sequential"))


def group_samples(minutes: float, sample_s: float) -> int:
    """The samples (rounds) of a group of ``minutes``."""
    return max(1, int(round(minutes * 60 / sample_s)))


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    minutes = get("xsr_group_minutes")
    if not isinstance(minutes, (list, tuple)) or len(minutes) != 3:
        raise fail("pts_run_xsr_group_minutes", minutes, "must be three durations in minutes: sequential, random, "
                                                         "sequential again (PTS 2.0: [480, 360, 480])")
    minutes = [positive("pts_run_xsr_group_minutes", m, float) for m in minutes]
    sizes = {key: parse_block_sizes(f"pts_run_xsr_{key}", [get(f"xsr_{key}")])[0]
             for key in ("sequential_block_size", "random_block_size")}
    tolerance = percentage("pts_run_xsr_recovery_tolerance_pct", get("xsr_recovery_tolerance_pct"))
    sample = seconds("pts_run_xsr_sample_seconds", get("xsr_sample_seconds"))
    for minute in minutes:
        if minute * 60 < sample:
            raise fail("pts_run_xsr_group_minutes", minute, f"is shorter than one sample of {sample:g} s "
                                                            "(pts_run_xsr_sample_seconds)")
    return dict(wipc=False, precondition=None, mixes=[0],
                block_sizes=[sizes["sequential_block_size"], sizes["random_block_size"]],
                numjobs=1, iodepth=queue_depth("pts_run_xsr_iodepth", get("xsr_iodepth")),
                round_seconds=sample, group_minutes=minutes,
                sequential_block_size=sizes["sequential_block_size"],
                random_block_size=sizes["random_block_size"],
                recovery_tolerance_pct=float(tolerance))


def _segments(test: dict, logical_block_size: int, capacity: int) -> tuple[list[dict], list[str]]:
    notes = _sections.unfit_sizes(test, logical_block_size)
    if notes:
        return [], notes
    segments = []
    sample = test["round_seconds"]
    for index, (name, access) in enumerate(GROUPS):
        bs = test["sequential_block_size"] if access == "sequential" else test["random_block_size"]
        rw = "write" if access == "sequential" else "randwrite"
        samples = group_samples(test["group_minutes"][index], sample)
        # The whole group is one fio section of samples x sample seconds: a sequential group writes one stream from
        # LBA 0 (wrapping at the end of the drive), with no idle time between its samples.
        group = _sections.section(f"xsr-{name}", rw, 0, bs, round(samples * sample, 6))
        segments.append({"name": name, "stop": "samples", "samples": samples, "sample_s": float(sample),
                         "access": f"{'SEQ' if access == 'sequential' else 'RND'} {block_size_label(bs)} write",
                         "combinations": [group], "dvs": [], "log_ms": _interval.log_interval_ms(sample, sample),
                         "output_format": "json+"})
    return _sections.finish(segments)


TEST = Test(
    name="xsr", title="Cross Stimulus Recovery", short="XSR", family="pts2", stop="phases", purge="test",
    report="xsr", inputs=_inputs, segments=_segments,
    profile={
        "standard": {"xsr_group_minutes": [480, 360, 480], "xsr_sample_seconds": 60, "xsr_iodepth": 32,
                     "xsr_sequential_block_size": "1024k", "xsr_random_block_size": "8k",
                     "xsr_recovery_tolerance_pct": 5},
        "quick": {"xsr_group_minutes": [0.05, 0.05, 0.05], "xsr_sample_seconds": 0.5},
    },
    # The recovery tolerance only judges what was measured: a resume may change it.
    raw_variables=("xsr_group_minutes", "xsr_sample_seconds", "xsr_iodepth", "xsr_sequential_block_size",
                   "xsr_random_block_size"),
    size_fields=(("pts_run_xsr_sequential_block_size", "sequential_block_size"),
                 ("pts_run_xsr_random_block_size", "random_block_size")),
)
