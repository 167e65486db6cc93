# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _raid

LISTED = [{"path": "/dev/disk/by-id/nvme-A", "name": "a"}, {"serial": "SB", "name": "b"},
          {"path": "/dev/disk/by-id/nvme-C"}]


def test_arrays_name_their_members_by_listed_path_or_name():
    arrays = _raid.validate_arrays([{"name": "fq0", "level": "raid1", "members": ["a", "b"]},
                                    {"name": "fq1", "level": 0, "members": ["/dev/disk/by-id/nvme-C", "x"],
                                     "chunk": "64k"}], LISTED + [{"path": "/dev/x", "name": "x"}])
    assert arrays[0] == {"name": "fq0", "level": 1, "chunk_kib": None, "members": ["a", "b"], "assume_clean": True,
                         "bitmap": "none"}
    assert arrays[1]["chunk_kib"] == 64 and arrays[1]["level"] == 0
    assert _raid.validate_arrays(None, LISTED) == []


@pytest.mark.parametrize("arrays, message", [
    ({"name": "fq0"}, "pts_raid={'name': 'fq0'}: must be a list"),
    ([{"name": "fq0", "level": 1, "members": ["a", "zz"]}], "pts_raid[0].members[1]='zz': is not a pts_devices entry"),
    ([{"name": "fq0", "level": 1, "members": ["a"]}], "pts_raid[0].members: raid1 needs at least 2 members"),
    ([{"name": "fq0", "level": 3, "members": ["a", "b"]}], "pts_raid[0].level='3'"),
    ([{"name": "fq0", "level": 1, "members": ["a", "b"], "chunk": "64k"}], "pts_raid[0].chunk='64k': raid1 has no"),
    ([{"name": "fq0", "level": 1, "members": ["a", "b"], "raid": 5}], "pts_raid[0]=['raid']: unknown keys"),
    ([{"name": "fq0", "level": 1, "members": ["a", "b"]}, {"name": "fq1", "level": 1, "members": ["b", "a"]}],
     "pts_raid[1].members[0]='b': is already a member of fq0"),
    ([{"name": "fq0", "level": 1, "members": ["a", "b"], "bitmap": "external"}], "pts_raid[0].bitmap='external'"),
    # One drive named by its path in one array and by its name in another.
    ([{"name": "fq0", "level": 1, "members": ["a", "b"]},
      {"name": "fq1", "level": 1, "members": ["/dev/disk/by-id/nvme-A", "/dev/disk/by-id/nvme-C"]}],
     "pts_raid[1].members[0]='/dev/disk/by-id/nvme-A': is already a member of fq0"),
    # An array named like a listed drive would share its results directory.
    ([{"name": "b", "level": 1, "members": ["a", "/dev/disk/by-id/nvme-C"]}],
     "pts_raid[0].name='b': is also a listed drive's name"),
])
def test_a_bad_array_is_refused_naming_the_field(arrays, message):
    with pytest.raises(PlanError) as caught:
        _raid.validate_arrays(arrays, LISTED)
    assert message in str(caught.value)


def test_members_must_have_passed_the_guard():
    arrays = _raid.validate_arrays([{"name": "fq0", "level": 1, "members": ["a", "b"]}], LISTED)
    drives = [{"key": "a", "path": "/dev/disk/by-id/nvme-A", "spec": LISTED[0]},
              {"key": "b", "path": "/dev/nvme1n1", "spec": LISTED[1]},
              {"key": "c", "path": "/dev/disk/by-id/nvme-C", "spec": LISTED[2]}]
    passed = {"/dev/disk/by-id/nvme-A": {"resolved": "/dev/nvme0n1"}, "/dev/nvme1n1": {"resolved": "/dev/nvme1n1"},
              "/dev/disk/by-id/nvme-C": {"resolved": "/dev/nvme2n1"}}
    resolved = _raid.resolve_members(arrays, drives, passed)
    assert [m["resolved"] for m in resolved["arrays"][0]["member_drives"]] == ["/dev/nvme0n1", "/dev/nvme1n1"]
    assert [d["key"] for d in resolved["remaining"]] == ["c"] and resolved["members_of"] == {"a": "fq0", "b": "fq0"}
    assert resolved["member_paths"] == ["/dev/disk/by-id/nvme-A", "/dev/nvme1n1"]
    del passed["/dev/nvme1n1"]
    with pytest.raises(ValueError, match=r"member b \(/dev/nvme1n1\) has not passed the guard in this run; the array "
                                         "is not built and nothing was written"):
        _raid.resolve_members(arrays, drives, passed)
