# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The fio_job options: one spec that the module checks on the host and its action on the controller, before the host
is asked anything."""

from __future__ import annotations

ARGUMENT_SPEC = dict(
    job_file=dict(type="path", required=True),
    job_text=dict(type="str"),
    output=dict(type="path"),
    output_format=dict(type="str", choices=["json", "json+"], default="json"),
    timeout=dict(type="int", default=0),
    context=dict(type="dict", default={}),
    device=dict(type="path", required=True),
    expect=dict(type="dict", required=True),
    wait=dict(type="bool", default=True),
    expected_seconds=dict(type="float", default=0),
    reconnect_timeout=dict(type="float", default=300),
    detach=dict(type="bool", default=False),
    serve=dict(type="float", default=0),
    max_write_bytes=dict(type="int", default=0),
    # The action's alone (where it files the result on the controller); the module ignores it.
    run_dir=dict(type="path"),
)
