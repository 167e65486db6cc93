# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The CBW and DIRTH section (_intensity_md.section): the choices stated - the thread counts and queue depths run,
the response time ceiling, the operating points - and every table, with the percentiles too few IOs resolve named."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _intensity, _intensity_md
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._report._intensity_runs import RUN


def test_the_cbw_section_states_the_choices_and_shows_every_table():
    result = _intensity.build(_results.load_test(os.path.join(RUN, "cbw")))
    lines = _intensity_md.section(result, {"histograms": "plots/cbw-histograms.png"}, 7, 64 * 2 ** 20)
    text = "\n".join(lines)
    assert lines[0] == "## 7 Composite Block Size Workload"
    for heading in ("### 7.1 Preconditioning", "### 7.2 TC × QD loop", "### 7.3 Demand variation and demand intensity",
                    "### 7.4 Operating points", "### 7.5 Purge, preconditioning and files"):
        assert heading in lines
    assert "| Block size | 512 | 1k | 1536 | 2k | 2560 | 3k | 3584 | 4k | 8k | 16k | 32k | 64k |" in lines
    assert "TC2/QD4 (PTS: TC32/QD32)" in text and "The 5 ms ceiling is ADATA's" in text
    assert "the first minute of 30-minute rounds" in text
    assert "| **MaxIOPS** | TC2/QD4 | 8 | 33,922.2 | 0.233 | most IOPS with ART below 5 ms |" in lines
    assert "| **MaxIOPS** TC2/QD4 | read | 14,136 | 14,121.9 | 0.183 | 0.453 | 2.408 | n/r | n/r | 4.187 |" in lines
    assert "|  | *all IOs* | 35,229 | 35,193.8 | 0.221 | 0.709 | 3.457 | n/r | n/r | 4.773 |" in lines
    assert "n/r: not resolved - a percentile needs 10 / (1 − p) IOs" in text
    assert "| **2** | 33,922 | 15,304 |" in lines
    assert "the choice is the one the run made" in text
    assert "![Response-time histograms](plots/cbw-histograms.png)" in lines
    assert ("so no number is given: MaxIOPS read (14,136 IOs): 99.99 %, 99.999 %; MaxIOPS write (21,093 IOs): "
            "99.99 %, 99.999 %; MaxIOPS all IOs (35,229 IOs): 99.99 %, 99.999 %; MidIOPS read (8,741 IOs): 99.9 %, "
            "99.99 %, 99.999 %;") in text
    assert "| Preconditioning | 2 rounds, steady at round 2 | — |" in lines
    assert "[02](cbw/points/round-02.fio)" in text
