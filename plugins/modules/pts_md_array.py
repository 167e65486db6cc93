#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

# Over 500 lines with a reason: nearly half of it is DOCUMENTATION, EXAMPLES and RETURN (validate-modules checks them
# against the argument spec here); the code is one module's create and tear-down of an array, the parsing in
# module_utils/_drive/_md_raid.py.
DOCUMENTATION = r"""
module: pts_md_array
short_description: Assemble guarded drives into a Linux md RAID array for a PTS run, and tear it down afterwards
version_added: 1.0.0
description:
  - For the PTS "RAID mode" - member drives that already passed M(fleetqual.pts.pts_guard) are assembled into one
    md array (C(/dev/md/<name>)), which is then purged, preconditioned and tested as one device, and torn down
    afterwards.
  - V(present) creates the array with C(mdadm --create --run --metadata=1.2), spelling out every choice that
    changes the measurements (level, chunk, write-intent bitmap, initial resync), then returns what mdadm and the
    kernel report about it. An array of that name with the same members is left as it is (C(changed=false)); one
    with other members, another level or another chunk fails the task.
  - V(absent) stops the array and erases the md superblock of each member (C(mdadm --zero-superblock)). When the
    array is no longer running, members that still carry this array's superblock are cleaned all the same, so a
    half torn-down array does not stay behind. A member carrying another array's superblock is refused.
  - Before creating, each member must be a block device not already in an md array, and each member is checked
    again against its guard record in O(expect) (same device, not mounted, held, swap or open); any refusal fails the
    task before mdadm runs.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._filing
attributes:
  check_mode:
    support: full
    details: In check mode the members are checked and the commands that would run are returned; nothing is written.
  diff_mode:
    support: none
options:
  name:
    description:
      - The array's name; the array is C(/dev/md/<name>). 1 to 32 of C(A-Z a-z 0-9 _ . -), not starting with C(.)
        or C(-), not all digits (mdadm 4.3 and later refuse other names).
    type: str
    required: true
  state:
    description: V(present) to create the array, V(absent) to stop it and erase its members' md superblocks.
    type: str
    choices: [present, absent]
    default: present
  level:
    description:
      - The md RAID level, as V(1), C("1") or V(raid1); one of 0, 1, 4, 5, 6, 10. Required when O(state=present).
      - Fewest members, as mdadm enforces them - raid0, raid1, raid4, raid5 and raid10 (near=2 layout) 2, raid6 4.
        A 2-member raid5 is accepted because mdadm accepts it, but it is a mirror with parity arithmetic.
    type: raw
  members:
    description:
      - The member block devices, in role order. With O(state=absent), the devices whose md superblock is erased;
        paths that are not block devices (any more) are skipped.
    type: list
    elements: str
    required: true
  chunk:
    description:
      - Chunk size for levels 0, 4, 5, 6 and 10, such as V(64k), V(512k) or V(1M) (binary units, as mdadm reads
        them); a bare number is bytes. A power of two of at least 4 KiB. Unset leaves mdadm's default (512 KiB).
      - Not allowed for raid1, which has no chunk.
    type: str
  assume_clean:
    description:
      - Create the array with C(--assume-clean), skipping the initial resync.
      - The members were just guarded and are about to be purged and overwritten by the preconditioning, so nothing
        on them needs to agree; a resync would only compete with the first measurements for the drives and skew
        them. Set V(false) to measure an array as a user would get it, resync included.
      - Has no effect on raid0, which has nothing to sync.
    type: bool
    default: true
  bitmap:
    description:
      - Write-intent bitmap for levels with redundancy. V(none) (the default) keeps the bitmap's metadata writes out
        of the measurements; V(internal) measures the array as most distributions would create it.
      - Always passed because mdadm before 4.3 adds an internal bitmap by itself to arrays over 100 GiB and 4.3 and
        later ask; the result would otherwise depend on the mdadm version and the drives' size.
    type: str
    choices: [none, internal]
    default: none
  expect:
    description:
      - The members' guard records, one per member in the order of O(members) (as
        M(fleetqual.pts.pts_purge)'s O(fleetqual.pts.pts_purge#module:expect) - C(devnum), C(serial), C(wwn)).
      - Required with O(state=present). Every member is checked again right before the array is created; a member
        that is no longer the device the guard passed, or is mounted, held, swap or open, fails the task without
        running mdadm.
      - A member whose record carries the run's C(hold) (see M(fleetqual.pts.pts_drive_hold)) is released right
        before mdadm runs, which opens every member exclusively; md's own claim holds them from then on. Not in check
        mode.
    type: list
    elements: dict
  uuid:
    description:
      - With O(state=absent), the UUID the array was created with (RV(pts_md_array.uuid)). The array at
        C(/dev/md/<name>) is stopped, and a member's superblock zeroed, only when they carry this UUID; anything
        else fails the task without changing anything.
      - Without it, the array name alone decides, and an array holding a device that is not in O(members) is
        refused either way.
    type: str
  context:
    description: Labels returned unchanged as RV(pts_context); in a run the action plugin files the result under them.
    type: dict
    default: {}
requirements:
  - mdadm
  - udevadm (optional; used to wait for the /dev/md/<name> link)
notes:
  - The md driver and the RAID personality (C(raid0), C(raid1), C(raid456), C(raid10)) must be available in the
    kernel; mdadm loads them on demand.
"""

EXAMPLES = r"""
- name: Assemble the guarded drives into a RAID0 for the PTS run
  fleetqual.pts.pts_md_array:
    name: pts0
    level: 0
    chunk: 128k
    members:
      - /dev/nvme1n1
      - /dev/nvme2n1
    # The guard's records of these drives, one per member in the same order.
    expect: "{{ __pts_guard_result.pts_guard }}"
  register: __pts_md_result

- name: Create a RAID5 without skipping the initial resync
  fleetqual.pts.pts_md_array:
    name: pts5
    level: raid5
    members: [/dev/sdb, /dev/sdc, /dev/sdd]
    assume_clean: false

- name: Tear the array down after the tests
  fleetqual.pts.pts_md_array:
    name: pts0
    state: absent
    members:
      - /dev/nvme1n1
      - /dev/nvme2n1
"""

RETURN = r"""
pts_md_array:
  description: The array as mdadm and the kernel report it (O(state=present)), or what was torn down (O(state=absent)).
  returned: always
  type: dict
  contains:
    name:
      description: The array's name.
      type: str
      sample: pts0
    path:
      description: The array's stable path, C(/dev/md/<name>).
      type: str
      sample: /dev/md/pts0
    state:
      description: V(present) or V(absent), as asked.
      type: str
    resolved:
      description: The md device the link points to; null in check mode before creation and with O(state=absent).
      type: str
      sample: /dev/md127
    level:
      description: The RAID level as mdadm names it.
      type: str
      sample: raid0
    raid_devices:
      description: Number of member slots.
      type: int
    chunk_kib:
      description: Chunk size in KiB; null for raid1.
      type: int
      sample: 512
    metadata:
      description: Superblock version.
      type: str
      sample: "1.2"
    uuid:
      description: The array's UUID as mdadm prints it.
      type: str
    md_name:
      description: The name stored in the superblock (C(homehost:name)).
      type: str
    members:
      description: Member device paths in role order, as mdadm reports them (the requested paths in check mode).
      type: list
      elements: str
    spares:
      description: Spare devices (none are created by this module; reported for an existing array).
      type: list
      elements: str
    assume_clean:
      description: Whether the initial resync was skipped; null for an array that already existed.
      type: bool
    bitmap:
      description: V(none) or V(internal) write-intent bitmap, as mdadm reports it.
      type: str
    size_bytes:
      description: Capacity of the array in bytes (from sysfs).
      type: int
    array_state:
      description: mdadm's C(State) line, such as C(clean) or C(clean, resyncing).
      type: str
    resync:
      description: Percent done of a running resync, recovery, reshape or check (from /proc/mdstat), or null.
      type: float
    sync_action:
      description: Which of resync, recovery, reshape or check is running, or null.
      type: str
    stopped:
      description: With O(state=absent), the md devices stopped (or that would be).
      type: list
      elements: str
    zeroed:
      description: With O(state=absent), the members whose md superblock was erased (or would be).
      type: list
      elements: str
    skipped:
      description: With O(state=absent), members left alone and why.
      type: list
      elements: str
    released_holds:
      description:
        - With O(state=present), the run's member holders stopped right before mdadm ran, each with C(member),
          C(pid) and C(run_id).
      type: list
      elements: dict
cmd:
  description: The C(mdadm --create) argv that ran, or would run in check mode.
  returned: when the array is created
  type: list
  elements: str
  sample: [/usr/sbin/mdadm, --create, /dev/md/pts0, --run, --metadata=1.2, --level=0, --raid-devices=2,
           --chunk=128K, /dev/nvme1n1, /dev/nvme2n1]
commands:
  description: Every command that changed something (or would in check mode), in order.
  returned: always
  type: list
  elements: list
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

import os
import stat
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold, _signatures
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import host_record, recheck
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._md_raid import (
    CHUNK_LEVELS,
    REDUNDANT_LEVELS,
    array_facts,
    create_command,
    detail_command,
    detail_export_command,
    examine_command,
    layout_mismatch,
    md_holders,
    member_refusals,
    merge_details,
    name_matches,
    parse_detail,
    parse_examine,
    parse_mdstat,
    same_uuid,
    stop_command,
    validate_layout,
    validate_members,
    validate_name,
    zero_superblock_command,
)

# Roots and timings, module-level so unit tests can point them at a fake tree.
_DEV_MD = "/dev/md"
_SYS_ROOT = "/sys"
_PROC_ROOT = "/proc"
_LOCK_DIR = _hold.LOCK_DIR
# How long to wait for udev (or mdadm itself) to make /dev/md/<name> after the array started.
_LINK_WAIT_S = 10.0


def _is_block(path: str) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def _kname(path: str) -> str:
    """Kernel name of a device path (/dev/disk/by-id/nvme-X -> nvme0n1), to compare members however named."""
    return os.path.basename(os.path.realpath(path))


def _mdstat() -> dict:
    try:
        with open(os.path.join(_PROC_ROOT, "mdstat"), encoding="utf-8") as handle:
            return parse_mdstat(handle.read())
    except OSError:
        return {}


class _Runner:
    """module.run_command with the failure message every step shares, and the record of what changed."""

    def __init__(self, module: AnsibleModule, context: dict):
        self.module = module
        self.context = context
        self.commands: list[list[str]] = []

    def fail(self, msg: str, **extra) -> None:
        self.module.fail_json(msg=f"pts_md_array {self.module.params['name']}: {msg}", commands=self.commands,
                              pts_context=self.context, **extra)

    def read(self, argv: list[str], ok_rcs=(0,)) -> tuple[int, str, str]:
        rc, out, err = self.module.run_command(argv)
        if rc not in ok_rcs:
            self.fail(f"{' '.join(argv)} failed (rc {rc}): {(err or out).strip()[:500]}")
        return rc, out, err

    def change(self, argv: list[str], **extra) -> None:
        self.commands.append(argv)
        rc, out, err = self.module.run_command(argv)
        if rc != 0:
            self.fail(f"{' '.join(argv)} failed (rc {rc}): {(err or out).strip()[:500]}", **extra)

    def settle(self) -> None:
        udevadm = self.module.get_bin_path("udevadm")
        if udevadm:
            # A slow udev is not an error here: the caller waits for the node it needs.
            self.module.run_command([udevadm, "settle", "--timeout=30"])


def _describe(runner: _Runner, mdadm: str, path: str) -> dict:
    """The running array behind path: mdadm --detail (export form first, human form for what only it prints),
    sysfs for size and chunk, /proc/mdstat for a running resync."""
    dummy, export, dummy_err = runner.read(detail_export_command(path, mdadm))
    dummy, human, dummy_err = runner.read(detail_command(path, mdadm))
    detail = merge_details(parse_detail(export), parse_detail(human))
    resolved = os.path.realpath(path)
    kname = os.path.basename(resolved)
    sysfs = array_facts(kname, _SYS_ROOT)
    mdstat = _mdstat().get(kname, {})
    return {
        "resolved": "/dev/" + kname,
        "level": detail["level"] or sysfs["level"],
        "raid_devices": detail["raid_devices"],
        "chunk_kib": detail["chunk_kib"] or sysfs["chunk_kib"],
        "metadata": detail["metadata"],
        "uuid": detail["uuid"],
        "md_name": detail["name"],
        "members": detail["members"],
        "spares": detail["spares"],
        "bitmap": detail["bitmap"] or ("internal" if mdstat.get("bitmap") else None),
        "size_bytes": sysfs["size_bytes"],
        "array_state": detail["state"] or sysfs["array_state"],
        "resync": mdstat.get("resync", detail["resync"]),
        "sync_action": mdstat.get("sync_action", detail["sync_action"]),
    }


def _present(module: AnsibleModule, runner: _Runner, mdadm: str, path: str) -> None:
    params = module.params
    name, context = params["name"], params["context"]
    try:
        layout = validate_layout(name, params["level"], params["members"], params["chunk"])
    except ValueError as exc:
        runner.fail(str(exc))
    level, members = layout["level"], layout["members"]
    record = dict(name=name, path=path, state="present", assume_clean=None)

    if os.path.exists(path):
        current = _describe(runner, mdadm, path)
        record.update(current)
        mismatch = layout_mismatch(path, current, layout, [_kname(m) for m in current["members"] + current["spares"]],
                                   [_kname(m) for m in members])
        if mismatch:
            runner.fail(f"{mismatch}: tear it down first (state=absent)", pts_md_array=record)
        module.exit_json(changed=False, pts_md_array=record, commands=[], pts_context=context)

    knames = [_kname(m) for m in members]
    blocks = [_is_block(m) for m in members]
    refusals = member_refusals(members, knames, blocks,
                               [md_holders(k, _SYS_ROOT) if block else [] for k, block in zip(knames, blocks)])
    if refusals:
        runner.fail(f"refused, nothing was written: {'; '.join(refusals)}")
    expect = params["expect"]
    if len(expect) != len(members):
        runner.fail(f"expect has {len(expect)} guard records for {len(members)} members: give one per member, "
                    "in the same order")
    for member, record_expected in zip(members, expect):
        reasons = recheck(member, record_expected or {},
                          signatures=lambda found: _signatures.read(found, module.run_command, module.get_bin_path("wipefs")))
        if reasons:
            refusals.append(f"{member}: {', '.join(reasons)}")
    if refusals:
        runner.fail(f"refused, nothing was written: {'; '.join(refusals)}")

    argv = create_command(path, level, members, layout["chunk_kib"], assume_clean=params["assume_clean"],
                          bitmap=params["bitmap"], mdadm=mdadm)
    record.update(resolved=None, level=layout["level_name"], raid_devices=len(members), chunk_kib=layout["chunk_kib"],
                  metadata="1.2", uuid=None, md_name=None, members=members, spares=[],
                  assume_clean=params["assume_clean"] and level in REDUNDANT_LEVELS,
                  bitmap=params["bitmap"] if level in REDUNDANT_LEVELS else "none", size_bytes=None,
                  array_state=None, resync=None, sync_action=None)
    if module.check_mode:
        module.exit_json(changed=True, pts_md_array=record, cmd=argv, commands=[argv], pts_context=context)

    record["released_holds"] = _release_member_holds(runner, members, expect)
    runner.change(argv, cmd=argv)
    runner.settle()
    deadline = time.monotonic() + _LINK_WAIT_S
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not os.path.exists(path):
        running = ", ".join(f"{md} ({info.get('level')})" for md, info in sorted(_mdstat().items())) or "none"
        runner.fail(f"mdadm created the array but {path} did not appear within {_LINK_WAIT_S:.0f} s "
                    f"(md arrays running: {running})", cmd=argv)
    created = _describe(runner, mdadm, path)
    record.update(created, assume_clean=record["assume_clean"])
    if level not in CHUNK_LEVELS:
        record["chunk_kib"] = None
    module.exit_json(changed=True, pts_md_array=record, cmd=argv, commands=runner.commands, pts_context=context)


def _release_member_holds(runner: _Runner, members: list[str], expect: list[dict]) -> list[dict]:
    """Stop the run's holder of each member whose record has one: mdadm --create opens every member O_EXCL."""
    released = []
    for member, record_expected in zip(members, expect):
        hold = (record_expected or {}).get("hold")
        if not isinstance(hold, dict) or not hold.get("run_id"):
            continue
        devnum = hold.get("devnum") or (record_expected or {}).get("devnum")
        # The run's token from the host's own guard record of the member (the controller's carries its token id only).
        on_host = host_record(member, record_expected, _LOCK_DIR)[0] or {}
        token = hold.get("token") or on_host.get("token") or ""
        try:
            done = _hold.release(hold["run_id"], devnum, hold.get("pid"), _LOCK_DIR, _PROC_ROOT, token=token)
        except (_hold.HoldError, OSError) as exc:
            runner.fail(f"refused, nothing was written: cannot release the run's hold on member {member} before "
                        f"mdadm opens it: {exc}")
        released += [{"member": member, "pid": h["pid"], "run_id": h["run_id"]} for h in done["stopped"]]
        # md's own claim holds the member from here; its guard record stays, for its write cache once the array is down.
        _guard_record.mark(devnum, _guard_record.IN_ARRAY, hold["run_id"], token, _LOCK_DIR)
    return released


def _absent(module: AnsibleModule, runner: _Runner, mdadm: str, path: str) -> None:
    params = module.params
    name, context = params["name"], params["context"]
    try:
        validate_name(name)
        members = validate_members(params["members"])
    except ValueError as exc:
        runner.fail(str(exc))
    record = dict(name=name, path=path, state="absent", resolved=None, members=members, stopped=[], zeroed=[],
                  skipped=[])
    uuid = params["uuid"]
    ours: set[str] = set()
    if os.path.exists(path):
        current = _describe(runner, mdadm, path)
        if uuid and not same_uuid(current["uuid"], uuid):
            runner.fail(f"refused, nothing was written: {path} is the array with UUID {current['uuid']}, not the one "
                        f"with UUID {uuid}")
        listed = {_kname(m) for m in members}
        foreign = [m for m in current["members"] + current["spares"] if _kname(m) not in listed]
        if foreign:
            runner.fail(f"refused, nothing was written: {path} also holds {', '.join(foreign)}, which are not in "
                        "members: it is not the array these members make")
        ours.add(_kname(path))
        record["stopped"].append(path)

    for member in members:
        if not _is_block(member):
            record["skipped"].append(f"{member}: not a block device")
            continue
        rc, out, err = runner.read(examine_command(member, mdadm), ok_rcs=(0, 1))
        if rc != 0 and "no md superblock" not in (err + out).lower():
            runner.fail(f"{' '.join(examine_command(member, mdadm))} failed (rc {rc}): {(err or out).strip()[:500]}")
        superblock = parse_examine(out) if rc == 0 else None
        if superblock is None:
            record["skipped"].append(f"{member}: no md superblock")
            continue
        if not name_matches(superblock["name"], name) or (uuid and not same_uuid(superblock["uuid"], uuid)):
            wanted = f" (UUID {uuid})" if uuid else ""
            runner.fail(f"refused, nothing was written: {member} carries the md superblock of array "
                        f"{superblock['name']!r} (UUID {superblock['uuid']}), not {name!r}{wanted}")
        for md in md_holders(_kname(member), _SYS_ROOT):
            if md not in ours:
                # The member's superblock names this array, so the md holding it is this array under another node
                # (its /dev/md/<name> link is gone); it must stop before the superblock can be erased.
                ours.add(md)
                record["stopped"].append("/dev/" + md)
        record["zeroed"].append(member)

    planned = [stop_command(md, mdadm) for md in record["stopped"]]
    planned += [zero_superblock_command(member, mdadm) for member in record["zeroed"]]
    if module.check_mode or not planned:
        module.exit_json(changed=bool(planned), pts_md_array=record, commands=planned, pts_context=context)
    for md in record["stopped"]:
        runner.change(stop_command(md, mdadm), pts_md_array=record)
    if record["stopped"]:
        runner.settle()
    for member in record["zeroed"]:
        runner.change(zero_superblock_command(member, mdadm), pts_md_array=record)
    module.exit_json(changed=True, pts_md_array=record, commands=runner.commands, pts_context=context)


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type="str", required=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            level=dict(type="raw"),
            members=dict(type="list", elements="str", required=True),
            chunk=dict(type="str"),
            assume_clean=dict(type="bool", default=True),
            bitmap=dict(type="str", choices=["none", "internal"], default="none"),
            expect=dict(type="list", elements="dict"),
            uuid=dict(type="str"),
            context=dict(type="dict", default={}),
            run_dir=dict(type="path"),  # the action plugin's: where it files the result
        ),
        required_if=[("state", "present", ("level", "expect"))],
        supports_check_mode=True,
    )
    runner = _Runner(module, module.params["context"])
    try:
        validate_name(module.params["name"])
    except ValueError as exc:
        runner.fail(str(exc))
    mdadm = module.get_bin_path("mdadm", required=True)
    path = os.path.join(_DEV_MD, module.params["name"])
    if module.params["state"] == "present":
        _present(module, runner, mdadm, path)
    else:
        _absent(module, runner, mdadm, path)


if __name__ == "__main__":
    main()
