# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._callback_options import run_id_candidates

CFG = "run_id of the [callback_pts_report] section of ansible.cfg"


@pytest.mark.parametrize("effective, extra, env, configured, expected", [
    ("/tmp/x", "/tmp/x", None, None, [("pts_run_id", "/tmp/x")]),
    ("a b", None, "a b", "a b", [("PTS_RUN_ID (environment)", "a b")]),
    ("../x", None, None, "../x", [(CFG, "../x")]),
    ("it-1", None, None, None, [("pts_run_id", "it-1")]),  # an inventory pts_run_id
    # The one in force first, then every other source that is set, each once.
    ("it-1", "it-1", "../env", "../env", [("pts_run_id", "it-1"), ("PTS_RUN_ID (environment)", "../env")]),
    ("it-1", "it-1", None, "../cfg", [("pts_run_id", "it-1"), (CFG, "../cfg")]),
    (None, None, None, None, []),
    ("", None, "", None, []),
])
def test_each_run_id_is_named_where_it_was_set(effective, extra, env, configured, expected):
    assert run_id_candidates(effective, extra, env, configured) == expected
