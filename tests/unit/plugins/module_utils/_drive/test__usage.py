# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mounts and swaps that use a device (module_utils/_drive/_usage.py)."""

from __future__ import annotations


from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _usage


def test_mountinfo_matches_by_devnum_and_partitions(tmp_path):
    (tmp_path / "self").mkdir()
    (tmp_path / "self" / "mountinfo").write_text(
        "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "40 22 7:1 / /mnt/a rw shared:2 - ext4 /dev/loop1 rw\n"
        "41 22 259:3 / /mnt/my\\040data rw shared:3 - xfs /dev/loop2p1 rw\n"
        "42 22 0:50 / /mnt/b rw shared:4 - btrfs /dev/loop2p2 rw\n"
    )
    entries = _usage.mountinfo(str(tmp_path))
    found = _usage.mounts_matching(entries, {"7:2": "loop2", "259:3": "loop2p1"}, {"loop2", "loop2p1", "loop2p2"})
    assert found == [
        {"device": "loop2p1", "mountpoint": "/mnt/my data", "fstype": "xfs"},
        {"device": "loop2p2", "mountpoint": "/mnt/b", "fstype": "btrfs"},
    ]


def test_swaps(tmp_path):
    (tmp_path / "swaps").write_text(
        "Filename\tType\tSize\tUsed\tPriority\n/dev/loop3\tpartition\t65532\t0\t-2\n/swapfile\tfile\t1\t0\t-3\n")
    assert _usage.swaps_of({"loop3"}, str(tmp_path)) == ["/dev/loop3"]
    assert _usage.swaps_of({"loop4"}, str(tmp_path)) == []
