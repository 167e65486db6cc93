# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Demand intensity / response time histogram (PTS 2.0): CBW's structure with one block size and R/W mix."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import mix, parse_block_sizes
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import _intensity
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._descriptor import Test


def _inputs(params: dict, common: dict) -> dict:
    def get(key):
        return TEST.effective(params, common["profile"], key)

    found = _intensity.inputs("dirth", get)
    size = parse_block_sizes("pts_run_dirth_block_size", [get("dirth_block_size")])[0]
    chosen = mix("pts_run_dirth_mix", get("dirth_mix"))
    return dict(found, mixes=[chosen, 0], block_sizes=[size], bssplit=None, bssplit_sizes=[size], distribution=None,
                mix=chosen)


TEST = Test(
    name="dirth", title="Demand Intensity / Response Time Histogram", short="DIRTH", family="pts2", stop="phases",
    purge="test", report="intensity", inputs=_inputs, segments=_intensity.segments,
    profile=_intensity.profile({"standard": {"dirth_block_size": "8k", "dirth_mix": 65}}),
    raw_variables=_intensity.RAW_VARIABLES + ("dirth_block_size", "dirth_mix"),
    size_fields=(("pts_run_dirth_block_size", "block_sizes"),),
)
