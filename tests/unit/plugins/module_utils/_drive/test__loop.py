# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a loop device is over (module_utils/_drive/_loop.py)."""

from __future__ import annotations

import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _loop
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._drive._fake_host import FakeHost, related_of


@pytest.fixture
def host(tmp_path, monkeypatch):
    return FakeHost(tmp_path, monkeypatch)


def test_a_loop_over_a_deleted_file_is_identified_by_the_kernels_answer(host):
    host.disk("loop4", "7:4", loop={"backing_file": "/gone/a.img (deleted)"})
    host.disk("loop5", "7:5", loop={"backing_file": "/gone/a.img (deleted)"})
    host.disk("loop6", "7:6", loop={"backing_file": "/other/b.img (deleted)", "autoclear": 1})
    answer = {"backing_dev": "254:0", "backing_ino": 77, "backing_rdev": None, "offset": 0, "sizelimit": 0}
    host.kernel.update({str(host.dev / "loop4"): answer, str(host.dev / "loop6"): answer})
    info = host.probe("loop4")
    assert info["loop"]["backing_ino"] == 77
    # loop5: same path as sysfs shows it; loop6: autoclear, so never opened (its close would detach it) -> unknown.
    assert related_of(info) == {"loop5": ("alias", "another path to this drive: a loop device over the same file as loop4 "
                                                   "(/gone/a.img (deleted))")}


def test_a_loop_device_status_from_the_kernel_is_decoded():
    raw = _loop._LOOP_INFO64.pack(os.makedev(254, 0), 123, os.makedev(8, 16), 1048576, 67108864, 0, 0, 0, 0,
                                  b"", b"", b"", 0, 0)
    assert _loop._LOOP_INFO64.size == 232  # sizeof(struct loop_info64)
    fields = _loop._LOOP_INFO64.unpack(raw)[:5]
    assert fields == (os.makedev(254, 0), 123, os.makedev(8, 16), 1048576, 67108864)
