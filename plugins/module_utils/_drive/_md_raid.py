# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Linux md RAID for the PTS "RAID mode": validate a layout, build mdadm's argv, read what mdadm and the kernel say.

Member drives that passed the guard are assembled into one md array, the array is tested as one device, and it is
torn down afterwards. Nothing here runs a command: the module runs the argv lists built here and hands the text
back. The sysfs helpers take the sysfs root so unit tests can point them at a fake tree.

Formats, as read from mdadm's and the kernel's sources:

* ``mdadm --detail --export`` (Detail.c, export branch; mdadm 3.3 and later): ``MD_LEVEL=raid1``,
  ``MD_DEVICES=<raid disks>``, ``MD_METADATA=1.2``, ``MD_UUID=`` (colon-separated), ``MD_DEVNAME=<name>`` when the
  array has a /dev/md/<name> node, ``MD_RESHAPE_ACTIVE=True|False`` (4.x), ``MD_NAME=<homehost>:<name>``
  (super1.c ``export_detail_super1``), and per member ``MD_DEVICE_<sysfs name>_ROLE=<n>|spare`` and
  ``MD_DEVICE_<sysfs name>_DEV=/dev/...``, where the sysfs name is ``dev-sdb`` with every non-alphanumeric
  character turned into ``_`` (``dev_sdb``). It has no chunk size, no state and no array size.
* ``mdadm --detail`` (human): right-aligned ``Key : value`` lines (``Raid Level``, ``Array Size`` in KiB followed
  by a human size, ``Raid Devices``, ``State``, ``Chunk Size : 512K`` for levels 0/4/5/6/10, ``Resync Status :
  38% complete``, and from super1.c ``Name``, ``UUID``, ``Events``), then a table ``Number Major Minor RaidDevice
  State`` whose rows end with the member's path; spares have ``-`` as RaidDevice.
* ``/proc/mdstat`` (drivers/md/md.c ``md_seq_show``): ``md127 : active raid1 vdc[1] vdb[0]`` (``[n]`` is the
  descriptor number, flags ``(S)`` spare, ``(F)`` faulty, ``(W)`` write-mostly, ``(J)`` journal, ``(R)``
  replacement; ``active (auto-read-only)``/``(read-only)``; ``inactive`` arrays have no level), then ``<KiB> blocks
  super 1.2 [512k chunks | level 5, 512k chunk, algorithm 2] [2/2] [UU]``, then an optional progress line
  ``[==>....]  resync = 12.6% (132224/1046528) finish=0.2min speed=66112K/sec`` (or ``recovery``, ``reshape``,
  ``check``; ``resync=DELAYED``/``resync=PENDING`` when it waits), and an optional ``bitmap:`` line.

Which ``--detail`` is read: the export form is the machine interface (stable KEY=VALUE lines, member roles keyed
by kernel name) and is trusted for level, member count, metadata, UUID, name and members in role order. The human
form is parsed too, because it is the only one that prints the chunk size, the state and the array size; the
module reads both and merges them with the export form first (``merge_details``), and falls back to sysfs for the
chunk size and the capacity.
"""

from __future__ import annotations

import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError

# Minimum member counts, as mdadm enforces them (Create.c and mdadm.c):
# * raid0, raid1: a single member needs --force ("'1' is an unusual number of drives"), which is never passed;
# * raid4, raid5: "at least 2 raid-devices needed" - mdadm's real minimum. A 2-member RAID5 is a mirror with parity
#   arithmetic; it is allowed here because mdadm allows it, but a qualification that wants striped parity uses 3+;
# * raid6: "at least 4 raid-devices needed for level 6";
# * raid10: the default near=2 layout needs as many members as copies: "that layout requires at least 2 devices".
LEVELS: dict[int, int] = {0: 2, 1: 2, 4: 2, 5: 2, 6: 4, 10: 2}
# Levels that take a chunk size (mdadm refuses one for raid1: "specifying chunk size is forbidden for this level").
CHUNK_LEVELS = frozenset((0, 4, 5, 6, 10))
# Levels with redundancy to sync: --assume-clean and --bitmap mean something only for these.
REDUNDANT_LEVELS = frozenset((1, 4, 5, 6, 10))
# The smallest chunk mdadm parses (mdadm.c: fewer than 8 sectors is "invalid chunk/rounding value"); the kernel's
# raid4/5/6/10 also need a power of two at least a page, so that is asked of every level.
MIN_CHUNK_KIB = 4
# mdadm 4.3+ (lib.c is_name_posix_compatible, config.c ident_check_name): POSIX portable filename characters, at
# most 32 (MD_NAME_MAX), no leading dot; a leading dash would read as an option.
_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$")
_CHUNK_RE = re.compile(r"^\s*(\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*$", re.IGNORECASE)
_UNIT = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2, "mib": 1024 ** 2,
         "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3}
BITMAPS = ("none", "internal")

_MDSTAT_HEAD_RE = re.compile(r"^(md[\w-]*)\s*:\s*(active|inactive)\b(.*)$")
_MDSTAT_MEMBER_RE = re.compile(r"^([^\s\[]+)\[(\d+)\]((?:\([A-Z]\))*)$")
_MDSTAT_PROGRESS_RE = re.compile(r"\b(resync|recovery|reshape|check)\s*=\s*(\d+(?:\.\d+)?)%")
_MDSTAT_WAITING_RE = re.compile(r"\b(resync|recovery|reshape|check)\s*=\s*(DELAYED|PENDING|REMOTE)\b")
_SLOTS_RE = re.compile(r"\[(\d+)/(\d+)\]")
_CHUNK_IN_MDSTAT_RE = re.compile(r"\b(\d+)[kK] chunks?\b")
_DETAIL_LINE_RE = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s+:\s?(.*)$")
_ROW_RE = re.compile(r"^\s*(-|\d+)\s+(\d+)\s+(\d+)\s+(-|\d+)\s*(.*)$")


def _field(label: str, field: str) -> str:
    return f"{label}.{field}" if label else field


def normalize_level(value, label: str = "") -> int:
    """An md RAID level from 1, "1" or "raid1" (any case); a ValueError names the field and the value."""
    where = _field(label, "level")
    if isinstance(value, bool) or value is None:
        raise InputError(f"{where}={value!r}: give an md RAID level, one of {_level_list()}")
    text = str(value).strip().lower()
    if text.startswith("raid"):
        text = text[4:]
    if not text.isdigit() or int(text) not in LEVELS:
        raise InputError(f"{where}={str(value)!r}: not a supported md RAID level (supported: {_level_list()})")
    return int(text)


def _level_list() -> str:
    return ", ".join(str(level) for level in LEVELS)


def parse_chunk(value, label: str = "") -> int | None:
    """A chunk size in KiB, from "512k", "1M", "64KiB" or a number of bytes (524288); None when not given.

    K, M and G are binary (1024) as mdadm reads them. A bare number is bytes, whether it comes as an int or a
    string, so ``chunk: 512`` is refused as 512 bytes instead of silently meaning 512 KiB.
    """
    where = _field(label, "chunk")
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(f"{where}={value!r}: give a size such as 512k")
    if isinstance(value, int):
        size = value
    else:
        match = _CHUNK_RE.match(str(value))
        if not match:
            raise InputError(f"{where}={str(value)!r}: not a size (write it as 64k, 512k or 1M, or a number of bytes)")
        size = int(match.group(1)) * _UNIT[(match.group(2) or "").lower()]
    if size < MIN_CHUNK_KIB * 1024:
        bare = isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit())
        hint = f"; a bare number is bytes, write {value}k for KiB" if bare else ""
        raise InputError(f"{where}={str(value)!r}: {size} bytes is below the smallest chunk, {MIN_CHUNK_KIB}k{hint}")
    if size % 1024 or size & (size - 1):
        raise InputError(f"{where}={str(value)!r}: a chunk must be a power of two of at least {MIN_CHUNK_KIB}k "
                         f"(4k, 8k, ... 512k, 1M)")
    return size // 1024


def validate_name(name, label: str = "") -> str:
    """An md array name mdadm 4.3+ accepts and /dev/md/<name> can carry; a ValueError names the field and value."""
    if not isinstance(name, str) or not _NAME_RE.match(name) or name.isdigit():
        raise InputError(f"{_field(label, 'name')}={name!r}: an md array name is 1 to 32 of A-Z a-z 0-9 _ . - "
                         "(not starting with . or -, and not all digits, which mdadm reads as a minor number)")
    return name


def validate_members(members, label: str = "") -> list[str]:
    """A list of distinct absolute device paths (the count per level is validate_layout's business)."""
    where = _field(label, "members")
    if not isinstance(members, (list, tuple)):
        raise InputError(f"{where}={members!r}: give a list of member device paths")
    seen: dict[str, int] = {}
    for i, member in enumerate(members):
        if not isinstance(member, str) or not member.startswith("/"):
            raise InputError(f"{where}[{i}]={member!r}: a member is an absolute device path such as /dev/nvme1n1")
        key = os.path.normpath(member)
        if key in seen:
            raise InputError(f"{where}[{i}]={member!r}: listed twice (also {where}[{seen[key]}])")
        seen[key] = i
    return list(members)


def validate_layout(name, level, members, chunk=None, label: str = "") -> dict:
    """Check one array's layout before anything is written; return it normalized or raise ValueError.

    ``label`` prefixes the field names in the messages (``pts_raid_arrays[0]`` gives
    ``pts_raid_arrays[0].level='7': ...``).
    """
    validate_name(name, label)
    number = normalize_level(level, label)
    members = validate_members(members, label)
    if len(members) < LEVELS[number]:
        raise InputError(f"{_field(label, 'members')}: raid{number} needs at least {LEVELS[number]} members, "
                         f"{len(members)} given ({', '.join(members) or 'none'})")
    chunk_kib = parse_chunk(chunk, label)
    if chunk_kib is not None and number not in CHUNK_LEVELS:
        raise InputError(f"{_field(label, 'chunk')}={str(chunk)!r}: raid{number} has no chunk size "
                         "(mdadm refuses one for this level); leave it unset")
    return {"name": name, "level": number, "level_name": f"raid{number}", "members": list(members),
            "chunk_kib": chunk_kib, "min_members": LEVELS[number]}


def md_path(name: str) -> str:
    """The array's stable node: mdadm and udev make /dev/md/<name> a link to the /dev/mdN it got."""
    return f"/dev/md/{name}"


def create_command(md_path: str, level: int, member_paths: list[str], chunk_kib: int | None = None,
                   assume_clean: bool = True, bitmap: str | None = "none", mdadm: str = "mdadm") -> list[str]:
    """argv of ``mdadm --create``, non-interactive and with every choice that changes performance spelled out.

    * ``--run``: never ask "Continue creating array?" (the guard already passed the members), and on mdadm 4.3+
      never ask whether to add a write-intent bitmap.
    * ``--metadata=1.2``: the superblock 4 KiB into each member, so data starts at a known offset on every version.
    * ``--bitmap``: mdadm before 4.3 adds an internal bitmap by itself to arrays over 100 GiB and 4.3+ asks (or,
      with --run, adds none); a bitmap costs a metadata write on the write path, so it is always stated. Only for
      levels with redundancy: mdadm rejects a bitmap on raid0.
    * ``--assume-clean``: skip the initial resync; only for levels with redundancy (raid0 has nothing to sync).
    * No ``--homehost`` and no ``--name``: the name comes from /dev/md/<name>, the homehost from the host.
    """
    if level not in LEVELS:
        raise InputError(f"level={level!r}: not a supported md RAID level (supported: {_level_list()})")
    if len(member_paths) < LEVELS[level]:
        raise InputError(f"raid{level} needs at least {LEVELS[level]} members, {len(member_paths)} given")
    if chunk_kib is not None and level not in CHUNK_LEVELS:
        raise InputError(f"raid{level} has no chunk size")
    if bitmap is not None and bitmap not in BITMAPS:
        raise InputError(f"bitmap={bitmap!r}: one of {', '.join(BITMAPS)}")
    argv = [mdadm, "--create", md_path, "--run", "--metadata=1.2", f"--level={level}",
            f"--raid-devices={len(member_paths)}"]
    if chunk_kib is not None:
        argv.append(f"--chunk={chunk_kib}K")
    if level in REDUNDANT_LEVELS:
        if bitmap is not None:
            argv.append(f"--bitmap={bitmap}")
        if assume_clean:
            argv.append("--assume-clean")
    return argv + list(member_paths)


def stop_command(md_path: str, mdadm: str = "mdadm") -> list[str]:
    return [mdadm, "--stop", md_path]


def zero_superblock_command(member_path: str, mdadm: str = "mdadm") -> list[str]:
    return [mdadm, "--zero-superblock", member_path]


def detail_export_command(md_path: str, mdadm: str = "mdadm") -> list[str]:
    return [mdadm, "--detail", "--export", md_path]


def detail_command(md_path: str, mdadm: str = "mdadm") -> list[str]:
    return [mdadm, "--detail", md_path]


def examine_command(member_path: str, mdadm: str = "mdadm") -> list[str]:
    """``mdadm --examine --export``: rc 1 and "No md superblock detected" when there is none."""
    return [mdadm, "--examine", "--export", member_path]


def _key_values(text: str) -> dict[str, str]:
    values = {}
    for line in (text or "").splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key.startswith("MD_"):
            values[key] = value.strip()
    return values


def _int(value) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _empty_detail(form: str) -> dict:
    return {"format": form, "level": None, "raid_devices": None, "chunk_kib": None, "metadata": None, "uuid": None,
            "name": None, "devname": None, "state": None, "array_size_kib": None, "members": [], "spares": [],
            "resync": None, "sync_action": None, "bitmap": None}


def parse_detail(text: str) -> dict:
    """What ``mdadm --detail --export`` or ``mdadm --detail`` printed, whichever it is (see the module docstring).

    Returns level ("raid1"), raid_devices, chunk_kib (None when the form or the level has none), metadata, uuid,
    name (the superblock's ``host:name``), devname (export only), state (human only), array_size_kib (human only),
    members (paths in role order), spares, resync / sync_action (human only, while one runs) and bitmap
    ("internal"/"none", human only).
    """
    values = _key_values(text)
    if "MD_LEVEL" in values or "MD_DEVICES" in values:
        return _parse_detail_export(values)
    return _parse_detail_human(text)


def _parse_detail_export(values: dict[str, str]) -> dict:
    result = _empty_detail("export")
    result.update(level=values.get("MD_LEVEL"), raid_devices=_int(values.get("MD_DEVICES")),
                  metadata=values.get("MD_METADATA"), uuid=values.get("MD_UUID"), name=values.get("MD_NAME"),
                  devname=values.get("MD_DEVNAME"))
    roles: dict[str, str] = {}
    paths: dict[str, str] = {}
    for key, value in values.items():
        if key.startswith("MD_DEVICE_") and key.endswith("_ROLE"):
            roles[key[len("MD_DEVICE_"):-len("_ROLE")]] = value
        elif key.startswith("MD_DEVICE_") and key.endswith("_DEV"):
            paths[key[len("MD_DEVICE_"):-len("_DEV")]] = value
    active = []
    for sysname, role in roles.items():
        # Without a _DEV line only the mangled sysfs name is left: dev_sdb -> /dev/sdb (exact for sdX, nvmeXnY).
        path = paths.get(sysname) or "/dev/" + (sysname[4:] if sysname.startswith("dev_") else sysname)
        if role.isdigit():
            active.append((int(role), path))
        else:
            result["spares"].append(path)
    result["members"] = [path for dummy, path in sorted(active)]
    return result


def _parse_detail_human(text: str) -> dict:
    result = _empty_detail("detail")
    fields: dict[str, str] = {}
    active = []
    in_table = False
    for line in (text or "").splitlines():
        if re.match(r"^\s*Number\s+Major\s+Minor\s+RaidDevice", line):
            in_table = True
            continue
        if in_table:
            row = _ROW_RE.match(line)
            if not row:
                continue
            words = row.group(5).split()
            path = words[-1] if words and words[-1].startswith("/") else None
            if path is None:
                continue  # "removed" slot: no device
            if row.group(4) == "-":
                if "spare" in words:
                    result["spares"].append(path)
            else:
                active.append((int(row.group(4)), path))
            continue
        match = _DETAIL_LINE_RE.match(line)
        if match:
            fields[match.group(1).strip()] = match.group(2).strip()
    result.update(level=fields.get("Raid Level"), raid_devices=_int(fields.get("Raid Devices")),
                  metadata=fields.get("Version"), uuid=fields.get("UUID"), state=fields.get("State"))
    if result["level"] is not None:
        # Detail.c prints "Intent Bitmap : Internal" (or a file path) only when the array has a bitmap.
        bitmap = fields.get("Intent Bitmap")
        result["bitmap"] = "none" if bitmap is None else ("internal" if bitmap.startswith("Internal") else bitmap)
    if fields.get("Name"):
        # super1.c appends "  (local to host <homehost>)" when the name carries this host's homehost.
        result["name"] = fields["Name"].split()[0]
    size = re.match(r"^(\d+)", fields.get("Array Size", ""))
    result["array_size_kib"] = int(size.group(1)) if size else None
    chunk = re.match(r"^(\d+)\s*K", fields.get("Chunk Size", ""), re.IGNORECASE)
    result["chunk_kib"] = int(chunk.group(1)) if chunk else None
    for action in ("Resync", "Rebuild", "Reshape", "Check"):
        status = re.match(r"^(\d+)%", fields.get(f"{action} Status", ""))
        if status:
            result["resync"] = float(status.group(1))
            result["sync_action"] = {"Rebuild": "recovery"}.get(action, action.lower())
    result["members"] = [path for dummy, path in sorted(active)]
    return result


def merge_details(*details: dict) -> dict:
    """One view of the array from several parse_detail() results: per key, the first that has a value."""
    merged: dict = {}
    for detail in details:
        for key, value in detail.items():
            if merged.get(key) in (None, [], "") and value not in (None, [], ""):
                merged[key] = value
            merged.setdefault(key, value)
    merged["format"] = "+".join(d.get("format", "?") for d in details)
    return merged


def parse_examine(text: str) -> dict | None:
    """The md superblock ``mdadm --examine --export`` found on a member, or None (no superblock, or only a
    partition table, which mdadm can examine but has no export form for)."""
    values = _key_values(text)
    if "MD_UUID" not in values and "MD_LEVEL" not in values:
        return None
    return {"level": values.get("MD_LEVEL"), "raid_devices": _int(values.get("MD_DEVICES")),
            "name": values.get("MD_NAME"), "uuid": values.get("MD_UUID"), "events": _int(values.get("MD_EVENTS"))}


def name_matches(superblock_name: str | None, name: str) -> bool:
    """Whether a superblock's name (``homehost:name``, or ``name`` when no homehost was stored) is this array's."""
    if not superblock_name:
        return False
    return superblock_name == name or superblock_name.rsplit(":", 1)[-1] == name


def same_uuid(found: str | None, wanted: str) -> bool:
    """Whether two md UUIDs are the same; mdadm prints them as four colon-separated words, so only the hex digits
    count."""
    def digits(text):
        return "".join(ch for ch in (text or "").lower() if ch in "0123456789abcdef")
    return bool(found) and digits(found) == digits(wanted)


def layout_mismatch(path: str, current: dict, layout: dict, current_knames: list[str], wanted_knames: list[str]) -> str:
    """Why the running array at ``path`` (``current``, as described from mdadm and sysfs) is not the one ``layout``
    asks for - other members (compared by kernel name), level or chunk - or '' when it is."""
    if sorted(current_knames) != sorted(wanted_knames):
        return (f"{path} already exists with members {', '.join(current['members'] + current['spares'])}, "
                f"not {', '.join(layout['members'])}")
    try:
        current_level = normalize_level(current["level"])
    except ValueError:
        current_level = None
    if current_level != layout["level"]:
        return f"{path} already exists as {current['level']}, not raid{layout['level']}"
    if layout["chunk_kib"] is not None and current["chunk_kib"] != layout["chunk_kib"]:
        return f"{path} already exists with a {current['chunk_kib']} KiB chunk, not {layout['chunk_kib']} KiB"
    return ""


def member_refusals(members: list[str], knames: list[str], is_block: list[bool], holders: list[list[str]]) -> list[str]:
    """Why members may not go into a new array, each naming the member: not a block device, already in an md array,
    or the same device as another member (same kernel name)."""
    refusals, seen = [], {}
    for member, kname, block, held in zip(members, knames, is_block, holders):
        if not block:
            refusals.append(f"{member}: not a block device")
        elif held:
            refusals.append(f"{member}: already a member of {', '.join('/dev/' + md for md in held)}")
    for member, kname in zip(members, knames):
        other = seen.setdefault(kname, member)
        if other != member:
            refusals.append(f"{member}: the same device as {other}")
    return refusals


def parse_mdstat(text: str) -> dict[str, dict]:
    """/proc/mdstat, per array: {"md127": {"state", "read_only", "level", "members", "spares", "faulty",
    "raid_devices", "blocks_kib", "chunk_kib", "sync_action", "resync", "sync_waiting", "bitmap"}}.

    ``members`` are /dev/<kernel name> paths in descriptor order (not necessarily role order); ``resync`` is the
    percentage of the running resync, recovery, reshape or check, or None when none runs.
    """
    arrays: dict[str, dict] = {}
    current: dict | None = None
    for line in (text or "").splitlines():
        head = _MDSTAT_HEAD_RE.match(line)
        if head:
            words = head.group(3).split()
            read_only = None
            while words and words[0].startswith("("):
                read_only = words.pop(0).strip("()")
            level = words.pop(0) if head.group(2) == "active" and words and "[" not in words[0] else None
            devices = []
            current = {"state": head.group(2), "read_only": read_only, "level": level, "members": [], "spares": [],
                       "faulty": [], "raid_devices": None, "blocks_kib": None, "chunk_kib": None,
                       "sync_action": None, "resync": None, "sync_waiting": None, "bitmap": False}
            for word in words:
                member = _MDSTAT_MEMBER_RE.match(word)
                if member:
                    devices.append((int(member.group(2)), "/dev/" + member.group(1), member.group(3)))
            for dummy, path, flags in sorted(devices):
                if "(S)" in flags:
                    current["spares"].append(path)
                elif "(J)" in flags:
                    continue
                else:
                    current["members"].append(path)
                    if "(F)" in flags:
                        current["faulty"].append(path)
            arrays[head.group(1)] = current
            continue
        if current is None or not line.strip():
            if not line.strip():
                current = None
            continue
        text_line = line.strip()
        if " blocks" in text_line and current["blocks_kib"] is None:
            current["blocks_kib"] = _int(text_line.split()[0])
            slots = _SLOTS_RE.search(text_line)
            current["raid_devices"] = int(slots.group(1)) if slots else None
            chunk = _CHUNK_IN_MDSTAT_RE.search(text_line)
            current["chunk_kib"] = int(chunk.group(1)) if chunk else None
            continue
        if text_line.startswith("bitmap:"):
            current["bitmap"] = True
            continue
        progress = _MDSTAT_PROGRESS_RE.search(text_line)
        if progress:
            current["sync_action"] = progress.group(1)
            current["resync"] = float(progress.group(2))
            continue
        waiting = _MDSTAT_WAITING_RE.search(text_line)
        if waiting:
            current["sync_action"] = waiting.group(1)
            current["sync_waiting"] = waiting.group(2)
    return arrays


def md_holders(kernel_name: str, sys_root: str = "/sys") -> list[str]:
    """The md arrays (kernel names, md127) stacked directly on a block device."""
    try:
        holders = os.listdir(os.path.join(sys_root, "class", "block", kernel_name, "holders"))
    except OSError:
        return []
    return sorted(holder for holder in holders if holder.startswith("md"))


def _read_sys(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return None


def array_facts(kernel_name: str, sys_root: str = "/sys") -> dict:
    """What sysfs says of a running array: size in bytes, chunk in KiB (None for raid1), level and array state."""
    base = os.path.join(sys_root, "class", "block", kernel_name)
    sectors = _int(_read_sys(os.path.join(base, "size")))
    chunk = _int(_read_sys(os.path.join(base, "md", "chunk_size")))
    return {"size_bytes": sectors * 512 if sectors is not None else None,
            "chunk_kib": chunk // 1024 if chunk else None,
            "level": _read_sys(os.path.join(base, "md", "level")),
            "array_state": _read_sys(os.path.join(base, "md", "array_state"))}
