# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Fixtures are shaped after the print code: mdadm Detail.c (export and human branches), super1.c
# (export_detail_super1, detail_super1, export_examine_super1) and the kernel's drivers/md/md.c md_seq_show,
# raid0/raid1/raid5 status functions. UUIDs, times and sizes are illustrative (a QEMU guest with 1 GiB virtio
# disks), not captured from a particular host.

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _md_raid

# mdadm 4.2 `mdadm --detail /dev/md127`: RAID1 over two virtio disks, created without --assume-clean, resyncing.
DETAIL_RAID1_RESYNC = """\
/dev/md127:
           Version : 1.2
     Creation Time : Tue Mar  3 10:12:45 2026
        Raid Level : raid1
        Array Size : 1046528 (1022.00 MiB 1071.64 MB)
     Used Dev Size : 1046528 (1022.00 MiB 1071.64 MB)
      Raid Devices : 2
     Total Devices : 2
       Persistence : Superblock is persistent

       Update Time : Tue Mar  3 10:12:51 2026
             State : clean, resyncing \n\
    Active Devices : 2
   Working Devices : 2
    Failed Devices : 0
     Spare Devices : 0

Consistency Policy : resync

     Resync Status : 38% complete

              Name : guest:fq1  (local to host guest)
              UUID : 3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f
            Events : 6

    Number   Major   Minor   RaidDevice State
       0     254       16        0      active sync   /dev/vdb
       1     254       32        1      active sync   /dev/vdc
"""

# mdadm 4.2 `mdadm --detail --export /dev/md127`, same array (4.2 prints no MD_RESHAPE_ACTIVE).
EXPORT_RAID1 = """\
MD_LEVEL=raid1
MD_DEVICES=2
MD_METADATA=1.2
MD_UUID=3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f
MD_DEVNAME=fq1
MD_NAME=guest:fq1
MD_DEVICE_dev_vdc_ROLE=1
MD_DEVICE_dev_vdc_DEV=/dev/vdc
MD_DEVICE_dev_vdb_ROLE=0
MD_DEVICE_dev_vdb_DEV=/dev/vdb
"""

# mdadm 4.2 `mdadm --detail /dev/md126`: RAID0 with a 64 KiB chunk over an NVMe namespace and a virtio disk.
DETAIL_RAID0_CHUNK = """\
/dev/md126:
           Version : 1.2
     Creation Time : Tue Mar  3 10:20:02 2026
        Raid Level : raid0
        Array Size : 2093056 (2044.00 MiB 2143.29 MB)
      Raid Devices : 2
     Total Devices : 2
       Persistence : Superblock is persistent

       Update Time : Tue Mar  3 10:20:02 2026
             State : clean \n\
    Active Devices : 2
   Working Devices : 2
    Failed Devices : 0
     Spare Devices : 0

        Chunk Size : 64K

Consistency Policy : none

              Name : guest:fq0  (local to host guest)
              UUID : 9a8b7c6d:5e4f3a2b:1c0d9e8f:7a6b5c4d
            Events : 0

    Number   Major   Minor   RaidDevice State
       0     259        1        0      active sync   /dev/nvme0n1
       1     254       48        1      active sync   /dev/vdd
"""

EXPORT_RAID0 = """\
MD_LEVEL=raid0
MD_DEVICES=2
MD_METADATA=1.2
MD_UUID=9a8b7c6d:5e4f3a2b:1c0d9e8f:7a6b5c4d
MD_DEVNAME=fq0
MD_NAME=guest:fq0
MD_DEVICE_dev_nvme0n1_ROLE=0
MD_DEVICE_dev_nvme0n1_DEV=/dev/nvme0n1
MD_DEVICE_dev_vdd_ROLE=1
MD_DEVICE_dev_vdd_DEV=/dev/vdd
"""

# mdadm 4.3 `mdadm --detail /dev/md125`: RAID5 over three disks as mdadm creates it by default (degraded, the last
# member rebuilt as a spare), with an internal bitmap, and a hot spare.
DETAIL_RAID5_RECOVERY = """\
/dev/md125:
           Version : 1.2
     Creation Time : Tue Mar  3 10:31:17 2026
        Raid Level : raid5
        Array Size : 2093056 (2044.00 MiB 2143.29 MB)
     Used Dev Size : 1046528 (1022.00 MiB 1071.64 MB)
      Raid Devices : 3
     Total Devices : 4
       Persistence : Superblock is persistent

     Intent Bitmap : Internal

       Update Time : Tue Mar  3 10:31:20 2026
             State : clean, degraded, recovering \n\
    Active Devices : 2
   Working Devices : 4
    Failed Devices : 0
     Spare Devices : 2

            Layout : left-symmetric
        Chunk Size : 512K

Consistency Policy : bitmap

    Rebuild Status : 12% complete

              Name : guest:fq5  (local to host guest)
              UUID : 0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0
            Events : 3

    Number   Major   Minor   RaidDevice State
       0     254       64        0      active sync   /dev/vde
       1     254       80        1      active sync   /dev/vdf
       3     254       96        2      spare rebuilding   /dev/vdg

       4     254      112        -      spare   /dev/vdh
"""

EXPORT_RAID5 = """\
MD_LEVEL=raid5
MD_DEVICES=3
MD_METADATA=1.2
MD_UUID=0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0
MD_DEVNAME=fq5
MD_RESHAPE_ACTIVE=False
MD_NAME=guest:fq5
MD_DEVICE_dev_vde_ROLE=0
MD_DEVICE_dev_vde_DEV=/dev/vde
MD_DEVICE_dev_vdf_ROLE=1
MD_DEVICE_dev_vdf_DEV=/dev/vdf
MD_DEVICE_dev_vdg_ROLE=2
MD_DEVICE_dev_vdg_DEV=/dev/vdg
MD_DEVICE_dev_vdh_ROLE=spare
MD_DEVICE_dev_vdh_DEV=/dev/vdh
"""

# Linux 6.1 /proc/mdstat with the three arrays above, plus an inactive leftover and a degraded mirror.
MDSTAT = """\
Personalities : [raid1] [raid0] [raid6] [raid5] [raid4] \n\
md124 : inactive sdx[0](S)
      1046528 blocks super 1.2
       \n\
md123 : active (auto-read-only) raid1 sdy[0] sdz[1](F)
      1046528 blocks super 1.2 [2/1] [U_]
      \n\
md125 : active raid5 vdh[4](S) vdg[3] vdf[1] vde[0]
      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]
      [==>..................]  recovery = 12.6% (132224/1046528) finish=0.2min speed=66112K/sec
      bitmap: 1/1 pages [4KB], 65536KB chunk

md126 : active raid0 vdd[1] nvme0n1[0]
      2093056 blocks super 1.2 64k chunks
      \n\
md127 : active raid1 vdc[1] vdb[0]
      1046528 blocks super 1.2 [2/2] [UU]
      [=======>.............]  resync = 38.4% (402304/1046528) finish=0.0min speed=201152K/sec
      \n\
unused devices: <none>
"""

# A RAID10 (near=2) whose resync waits for another array on the same disks.
MDSTAT_DELAYED = """\
Personalities : [raid10] \n\
md0 : active raid10 sdd[3] sdc[2] sdb[1] sda[0]
      2093056 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]
      \tresync=DELAYED
      \n\
unused devices: <none>
"""

# mdadm 4.2 `mdadm --examine --export /dev/vdb` on a member of the RAID1 above.
EXAMINE_RAID1_MEMBER = """\
MD_LEVEL=raid1
MD_DEVICES=2
MD_NAME=guest:fq1
MD_ARRAY_SIZE=1071.64MB
MD_UUID=3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f
MD_UPDATE_TIME=1772532771
MD_DEV_UUID=11223344:55667788:99aabbcc:ddeeff00
MD_EVENTS=6
"""


@pytest.mark.parametrize(
    "text, expected",
    [
        (EXPORT_RAID1, {"format": "export", "level": "raid1", "raid_devices": 2, "chunk_kib": None, "metadata": "1.2",
                        "uuid": "3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f", "name": "guest:fq1", "devname": "fq1",
                        "state": None, "members": ["/dev/vdb", "/dev/vdc"], "spares": [], "bitmap": None}),
        (DETAIL_RAID1_RESYNC, {"format": "detail", "level": "raid1", "raid_devices": 2, "chunk_kib": None,
                               "metadata": "1.2", "uuid": "3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f", "name": "guest:fq1",
                               "state": "clean, resyncing", "array_size_kib": 1046528,
                               "members": ["/dev/vdb", "/dev/vdc"], "spares": [], "resync": 38.0,
                               "sync_action": "resync", "bitmap": "none"}),
        (EXPORT_RAID0, {"level": "raid0", "raid_devices": 2, "chunk_kib": None,
                        "members": ["/dev/nvme0n1", "/dev/vdd"]}),
        (DETAIL_RAID0_CHUNK, {"level": "raid0", "chunk_kib": 64, "state": "clean", "array_size_kib": 2093056,
                              "members": ["/dev/nvme0n1", "/dev/vdd"], "resync": None, "sync_action": None}),
        (EXPORT_RAID5, {"level": "raid5", "raid_devices": 3, "members": ["/dev/vde", "/dev/vdf", "/dev/vdg"],
                        "spares": ["/dev/vdh"], "name": "guest:fq5"}),
        (DETAIL_RAID5_RECOVERY, {"level": "raid5", "raid_devices": 3, "chunk_kib": 512, "bitmap": "internal",
                                 "state": "clean, degraded, recovering",
                                 "members": ["/dev/vde", "/dev/vdf", "/dev/vdg"], "spares": ["/dev/vdh"],
                                 "resync": 12.0, "sync_action": "recovery"}),
    ],
    ids=["export-raid1", "detail-raid1-resync", "export-raid0", "detail-raid0-chunk", "export-raid5",
         "detail-raid5-recovery"],
)
def test_parse_detail(text, expected):
    parsed = _md_raid.parse_detail(text)
    assert {key: parsed[key] for key in expected} == expected


def test_parse_detail_export_without_dev_lines_falls_back_to_the_sysfs_name():
    parsed = _md_raid.parse_detail("MD_LEVEL=raid0\nMD_DEVICES=2\nMD_DEVICE_dev_nvme1n1_ROLE=1\n"
                                   "MD_DEVICE_dev_nvme0n1_ROLE=0\n")
    assert parsed["members"] == ["/dev/nvme0n1", "/dev/nvme1n1"]


def test_parse_detail_human_skips_removed_and_faulty_slots():
    text = DETAIL_RAID1_RESYNC.split("    Number", maxsplit=1)[0] + (
        "    Number   Major   Minor   RaidDevice State\n"
        "       0     254       16        0      active sync   /dev/vdb\n"
        "       -       0        0        1      removed\n"
        "\n"
        "       1     254       32        -      faulty   /dev/vdc\n")
    parsed = _md_raid.parse_detail(text)
    assert parsed["members"] == ["/dev/vdb"]
    assert parsed["spares"] == []


@pytest.mark.parametrize("text", ["", "mdadm: cannot open /dev/md/nope: No such file or directory\n"])
def test_parse_detail_of_nothing(text):
    parsed = _md_raid.parse_detail(text)
    assert parsed["level"] is None and parsed["members"] == [] and parsed["chunk_kib"] is None


def test_merge_details_export_first_human_fills_the_rest():
    merged = _md_raid.merge_details(_md_raid.parse_detail(EXPORT_RAID0), _md_raid.parse_detail(DETAIL_RAID0_CHUNK))
    assert merged["format"] == "export+detail"
    assert merged["level"] == "raid0" and merged["devname"] == "fq0"
    assert merged["chunk_kib"] == 64 and merged["state"] == "clean" and merged["array_size_kib"] == 2093056
    assert merged["members"] == ["/dev/nvme0n1", "/dev/vdd"]


def test_parse_mdstat():
    arrays = _md_raid.parse_mdstat(MDSTAT)
    assert sorted(arrays) == ["md123", "md124", "md125", "md126", "md127"]
    assert arrays["md127"] == {
        "state": "active", "read_only": None, "level": "raid1", "members": ["/dev/vdb", "/dev/vdc"], "spares": [],
        "faulty": [], "raid_devices": 2, "blocks_kib": 1046528, "chunk_kib": None, "sync_action": "resync",
        "resync": 38.4, "sync_waiting": None, "bitmap": False}
    raid0 = arrays["md126"]
    assert (raid0["level"], raid0["members"], raid0["chunk_kib"], raid0["resync"]) == (
        "raid0", ["/dev/nvme0n1", "/dev/vdd"], 64, None)
    raid5 = arrays["md125"]
    assert raid5["members"] == ["/dev/vde", "/dev/vdf", "/dev/vdg"] and raid5["spares"] == ["/dev/vdh"]
    # The bitmap line's "65536KB chunk" is the bitmap's, not the array's.
    assert (raid5["chunk_kib"], raid5["raid_devices"], raid5["bitmap"]) == (512, 3, True)
    assert (raid5["sync_action"], raid5["resync"]) == ("recovery", 12.6)
    assert arrays["md124"]["state"] == "inactive" and arrays["md124"]["level"] is None
    assert arrays["md124"]["spares"] == ["/dev/sdx"] and arrays["md124"]["members"] == []
    degraded = arrays["md123"]
    assert degraded["read_only"] == "auto-read-only" and degraded["level"] == "raid1"
    assert degraded["members"] == ["/dev/sdy", "/dev/sdz"] and degraded["faulty"] == ["/dev/sdz"]


def test_parse_mdstat_delayed_resync_and_raid10_chunk():
    md0 = _md_raid.parse_mdstat(MDSTAT_DELAYED)["md0"]
    assert md0["level"] == "raid10" and md0["chunk_kib"] == 512 and md0["raid_devices"] == 4
    assert (md0["sync_action"], md0["resync"], md0["sync_waiting"]) == ("resync", None, "DELAYED")


@pytest.mark.parametrize("text", ["", "Personalities : \nunused devices: <none>\n"])
def test_parse_mdstat_without_arrays(text):
    assert _md_raid.parse_mdstat(text) == {}


def test_parse_examine():
    assert _md_raid.parse_examine(EXAMINE_RAID1_MEMBER) == {
        "level": "raid1", "raid_devices": 2, "name": "guest:fq1", "uuid": "3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f",
        "events": 6}
    # No md superblock (rc 1, message on stderr), or a partition table that has no export form: nothing on stdout.
    assert _md_raid.parse_examine("") is None


@pytest.mark.parametrize(
    "stored, name, matches",
    [("guest:fq1", "fq1", True), ("fq1", "fq1", True), ("guest:fq10", "fq1", False), ("", "fq1", False),
     (None, "fq1", False), ("fq1:other", "fq1", False)],
)
def test_name_matches(stored, name, matches):
    assert _md_raid.name_matches(stored, name) is matches


@pytest.mark.parametrize(
    "level, expected",
    [(0, 0), (1, 1), ("1", 1), ("raid1", 1), ("RAID5", 5), (" raid10 ", 10), ("6", 6), (4, 4)],
)
def test_normalize_level(level, expected):
    assert _md_raid.normalize_level(level) == expected


@pytest.mark.parametrize(
    "chunk, kib",
    [(None, None), ("", None), ("4k", 4), ("64K", 64), ("512k", 512), ("512KiB", 512), ("1M", 1024), ("1 MiB", 1024),
     (524288, 512), ("524288", 512), (4096, 4)],
)
def test_parse_chunk(chunk, kib):
    assert _md_raid.parse_chunk(chunk) == kib


GOOD = dict(name="fq1", level=1, members=["/dev/vdb", "/dev/vdc"], chunk=None)


def test_validate_layout_normalizes():
    assert _md_raid.validate_layout("fq0", "raid0", ("/dev/nvme0n1", "/dev/nvme1n1"), "128k") == {
        "name": "fq0", "level": 0, "level_name": "raid0", "members": ["/dev/nvme0n1", "/dev/nvme1n1"],
        "chunk_kib": 128, "min_members": 2}
    assert _md_raid.validate_layout(**GOOD)["chunk_kib"] is None


@pytest.mark.parametrize(
    "change, message",
    [
        ({"level": 7}, "pts_raid_arrays[0].level='7': not a supported md RAID level (supported: 0, 1, 4, 5, 6, 10)"),
        ({"level": "raid3"}, "pts_raid_arrays[0].level='raid3': not a supported"),
        ({"level": "linear"}, "pts_raid_arrays[0].level='linear'"),
        ({"level": True}, "pts_raid_arrays[0].level=True"),
        ({"level": None}, "pts_raid_arrays[0].level=None"),
        ({"members": ["/dev/vdb"]}, "pts_raid_arrays[0].members: raid1 needs at least 2 members, 1 given (/dev/vdb)"),
        ({"level": 6, "members": ["/dev/a", "/dev/b", "/dev/c"]}, "raid6 needs at least 4 members, 3 given"),
        ({"members": ["/dev/vdb", "/dev/vdb"]},
         "pts_raid_arrays[0].members[1]='/dev/vdb': listed twice (also pts_raid_arrays[0].members[0])"),
        ({"members": ["/dev/vdb", "/dev//vdb/"]}, "members[1]='/dev//vdb/': listed twice"),
        ({"members": "/dev/vdb /dev/vdc"}, "pts_raid_arrays[0].members='/dev/vdb /dev/vdc': give a list"),
        ({"members": ["/dev/vdb", "vdc"]}, "pts_raid_arrays[0].members[1]='vdc': a member is an absolute device path"),
        ({"chunk": "512k"}, "pts_raid_arrays[0].chunk='512k': raid1 has no chunk size"),
        ({"level": 0, "chunk": "48k"}, "pts_raid_arrays[0].chunk='48k': a chunk must be a power of two"),
        ({"level": 0, "chunk": "2k"}, "pts_raid_arrays[0].chunk='2k': 2048 bytes is below the smallest chunk, 4k"),
        ({"level": 0, "chunk": "512"}, "512 bytes is below the smallest chunk, 4k; a bare number is bytes, write 512k"),
        ({"level": 0, "chunk": 512}, "pts_raid_arrays[0].chunk='512': 512 bytes is below"),
        ({"level": 0, "chunk": "lots"}, "pts_raid_arrays[0].chunk='lots': not a size"),
        ({"level": 0, "chunk": "1.5M"}, "pts_raid_arrays[0].chunk='1.5M': not a size"),
        ({"name": "fq 1"}, "pts_raid_arrays[0].name='fq 1': an md array name is 1 to 32"),
        ({"name": "-fq"}, "pts_raid_arrays[0].name='-fq'"),
        ({"name": ".fq"}, "pts_raid_arrays[0].name='.fq'"),
        ({"name": "127"}, "not all digits"),
        ({"name": "x" * 33}, "pts_raid_arrays[0].name='xxx"),
        ({"name": ""}, "pts_raid_arrays[0].name=''"),
        ({"name": None}, "pts_raid_arrays[0].name=None"),
    ],
)
def test_validate_layout_refuses(change, message):
    with pytest.raises(ValueError) as exc:
        _md_raid.validate_layout(**dict(GOOD, **change), label="pts_raid_arrays[0]")
    assert message in str(exc.value)


def test_validate_layout_without_label_names_the_bare_field():
    with pytest.raises(ValueError, match=r"^level='7': "):
        _md_raid.validate_layout("fq1", "7", ["/dev/a", "/dev/b"])


@pytest.mark.parametrize(
    "level, members, minimum_ok",
    [(0, 2, True), (1, 2, True), (4, 2, True), (5, 2, True), (6, 4, True), (10, 2, True), (0, 1, False),
     (5, 1, False), (6, 3, False), (10, 1, False)],
)
def test_minimum_members_are_mdadms(level, members, minimum_ok):
    paths = [f"/dev/vd{chr(98 + i)}" for i in range(members)]
    if minimum_ok:
        assert _md_raid.validate_layout("fq", level, paths)["min_members"] == members
    else:
        with pytest.raises(ValueError, match=f"raid{level} needs at least"):
            _md_raid.validate_layout("fq", level, paths)


@pytest.mark.parametrize(
    "kwargs, argv",
    [
        (dict(level=1, member_paths=["/dev/vdb", "/dev/vdc"]),
         ["/sbin/mdadm", "--create", "/dev/md/fq1", "--run", "--metadata=1.2", "--level=1", "--raid-devices=2",
          "--bitmap=none", "--assume-clean", "/dev/vdb", "/dev/vdc"]),
        (dict(level=0, member_paths=["/dev/nvme0n1", "/dev/nvme1n1"], chunk_kib=64),
         ["/sbin/mdadm", "--create", "/dev/md/fq1", "--run", "--metadata=1.2", "--level=0", "--raid-devices=2",
          "--chunk=64K", "/dev/nvme0n1", "/dev/nvme1n1"]),
        (dict(level=5, member_paths=["/dev/vde", "/dev/vdf", "/dev/vdg"], chunk_kib=512, assume_clean=False,
              bitmap="internal"),
         ["/sbin/mdadm", "--create", "/dev/md/fq1", "--run", "--metadata=1.2", "--level=5", "--raid-devices=3",
          "--chunk=512K", "--bitmap=internal", "/dev/vde", "/dev/vdf", "/dev/vdg"]),
        (dict(level=10, member_paths=["/dev/a", "/dev/b"], bitmap=None),
         ["/sbin/mdadm", "--create", "/dev/md/fq1", "--run", "--metadata=1.2", "--level=10", "--raid-devices=2",
          "--assume-clean", "/dev/a", "/dev/b"]),
    ],
    ids=["raid1-default", "raid0-chunk-no-resync-flags", "raid5-resync-bitmap", "raid10-bitmap-unset"],
)
def test_create_command(kwargs, argv):
    assert _md_raid.create_command("/dev/md/fq1", mdadm="/sbin/mdadm", **kwargs) == argv


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(level=3, member_paths=["/dev/a", "/dev/b", "/dev/c"]), "level=3"),
        (dict(level=6, member_paths=["/dev/a", "/dev/b", "/dev/c"]), "raid6 needs at least 4"),
        (dict(level=1, member_paths=["/dev/a", "/dev/b"], chunk_kib=64), "raid1 has no chunk size"),
        (dict(level=1, member_paths=["/dev/a", "/dev/b"], bitmap="external"), "bitmap='external'"),
    ],
)
def test_create_command_refuses(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _md_raid.create_command("/dev/md/fq1", **kwargs)


def test_other_commands():
    assert _md_raid.md_path("fq1") == "/dev/md/fq1"
    assert _md_raid.stop_command("/dev/md/fq1", mdadm="/sbin/mdadm") == ["/sbin/mdadm", "--stop", "/dev/md/fq1"]
    assert _md_raid.zero_superblock_command("/dev/vdb") == ["mdadm", "--zero-superblock", "/dev/vdb"]
    assert _md_raid.detail_export_command("/dev/md/fq1") == ["mdadm", "--detail", "--export", "/dev/md/fq1"]
    assert _md_raid.detail_command("/dev/md/fq1") == ["mdadm", "--detail", "/dev/md/fq1"]
    assert _md_raid.examine_command("/dev/vdb") == ["mdadm", "--examine", "--export", "/dev/vdb"]


def test_sysfs_helpers(tmp_path):
    block = tmp_path / "class" / "block"
    (block / "vdb" / "holders").mkdir(parents=True)
    (block / "vdb" / "holders" / "md127").mkdir()
    (block / "vdb" / "holders" / "dm-0").mkdir()
    (block / "vdc" / "holders").mkdir(parents=True)
    (block / "md127" / "md").mkdir(parents=True)
    (block / "md127" / "size").write_text("2093056\n")
    (block / "md127" / "md" / "chunk_size").write_text("65536\n")
    (block / "md127" / "md" / "level").write_text("raid0\n")
    (block / "md127" / "md" / "array_state").write_text("clean\n")
    assert _md_raid.md_holders("vdb", str(tmp_path)) == ["md127"]
    assert _md_raid.md_holders("vdc", str(tmp_path)) == []
    assert _md_raid.md_holders("nope", str(tmp_path)) == []
    assert _md_raid.array_facts("md127", str(tmp_path)) == {
        "size_bytes": 2093056 * 512, "chunk_kib": 64, "level": "raid0", "array_state": "clean"}
    assert _md_raid.array_facts("md0", str(tmp_path)) == {
        "size_bytes": None, "chunk_kib": None, "level": None, "array_state": None}


def test_same_uuid_compares_the_hex_digits_only():
    assert _md_raid.same_uuid("3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f", "3F1C2A4E-8D7B-6C5A-4E3F-2A1B0C9D8E7F")
    assert not _md_raid.same_uuid("3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e7f", "3f1c2a4e:8d7b6c5a:4e3f2a1b:0c9d8e70")
    assert not _md_raid.same_uuid(None, "3f1c2a4e")


def test_layout_mismatch_names_members_level_or_chunk():
    layout = _md_raid.validate_layout("fq1", 0, ["/dev/vdb", "/dev/vdc"], "64k")
    current = {"members": ["/dev/vdb", "/dev/vdc"], "spares": [], "level": "raid0", "chunk_kib": 64}
    assert _md_raid.layout_mismatch("/dev/md/fq1", current, layout, ["vdb", "vdc"], ["vdc", "vdb"]) == ""
    assert "members /dev/vdb, /dev/vdc, not /dev/vdb, /dev/vdd" in _md_raid.layout_mismatch(
        "/dev/md/fq1", current, dict(layout, members=["/dev/vdb", "/dev/vdd"]), ["vdb", "vdc"], ["vdb", "vdd"])
    same = (["vdb", "vdc"], ["vdb", "vdc"])
    assert "as raid1, not raid0" in _md_raid.layout_mismatch("/dev/md/fq1", dict(current, level="raid1"), layout, *same)
    bigger = dict(current, chunk_kib=512)
    assert "a 512 KiB chunk, not 64 KiB" in _md_raid.layout_mismatch("/dev/md/fq1", bigger, layout, *same)


def test_member_refusals_name_each_member():
    members = ["/dev/vdb", "/dev/disk/by-id/virtio-b", "/dev/vdz", "/dev/vdd"]
    refusals = _md_raid.member_refusals(members, ["vdb", "vdb", "vdz", "vdd"], [True, True, False, True],
                                        [[], [], [], ["md5"]])
    assert refusals == ["/dev/vdz: not a block device", "/dev/vdd: already a member of /dev/md5",
                        "/dev/disk/by-id/virtio-b: the same device as /dev/vdb"]
    assert _md_raid.member_refusals(["/dev/vdb"], ["vdb"], [True], [[]]) == []
