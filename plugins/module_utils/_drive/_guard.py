# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The guard's policy: every reason not to write to a probed device, the record of the device it passed, and the
re-check right before each write that the device is still free and still the one the guard passed.

A run holds each drive it passed with a detached holder process (see _hold): another run's holder on the drive or on
anything related to it is a refusal naming that run, and recheck() with the run's own hold in its record proves the
holder and leaves it out of the drive's users.
"""

from __future__ import annotations

import os
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold, _loop, _probe, _signatures, _sysfs, _text


# Mount points that make a disk the system disk, named as such in the refusal.
SYSTEM_MOUNTS = ("/", "/boot", "/boot/efi", "/usr", "/var")


def _control_refusals(info: dict, expected: dict) -> list[str]:
    # A newline in a device path once wrote a job section of its own into fio's job file.
    listed = info.get("path") or expected.get("path")
    found = []
    for what, value in (("pts_devices[].path", listed),
                        ("device node it resolves to", info.get("resolved") if info.get("resolved") != listed else None),
                        ("pts_devices[].backing_file", expected.get("backing_file")),
                        ("loop device's backing file", (info.get("loop") or {}).get("backing_file"))):
        if _text.has_control(value):
            found.append(f"the {what} '{_text.show(value)}' contains a control character or a byte that is not UTF-8: "
                         "refused before anything is written with it; use a path without them")
    return found


def _label(name: str, related: dict[str, dict]) -> str:
    entry = related.get(name)
    return f"{name} ({entry['how']})" if entry else name


def _held_words(what: str, opener: dict, run_id: str | None, token: str = "") -> str:
    hold, pid = opener["hold"], opener["pid"]
    owner, lock = _text.show(hold["run_id"]), _text.show(hold.get("lock"))
    if run_id and _hold.same_run(hold, run_id, token) and hold.get("concurrent"):
        return (f"{what} is held by a drive holder of this run ({owner}), process {pid} (lock file {lock}), for another "
                "ansible-playbook of this run that is still going on (a job slice, or the drive listed under another "
                "host name): two processes of one run never share a drive; let that one finish, it releases the drive")
    if run_id and _hold.same_run(hold, run_id, token):
        why = hold.get("unproved") or "it holds another path to the drive or a device stacked on it, not the listed device"
        return (f"{what} is held by a drive holder of this run ({owner}), process {pid} (lock file {lock}), which cannot "
                f"be taken over: {why}; release it as root on this host with `kill {pid}`")
    if hold.get("unproved"):
        return (f"{what} is open by process {pid} ({_text.show(opener.get('command'))}), which has a drive holder's "
                f"command line for run {owner} but is not one ({_text.show(hold['unproved'])}): no run holds the drive, "
                "something else has it open")
    return (f"{what} is held for {_text.show(_hold.owner_words(hold, run_id, token))} by its drive holder, process {pid} "
            f"(lock file {lock}): that run has the drive until its tests end; {_hold.release_words(pid, owner)}")


def mark_concurrent(info: dict, run_id: str | None, token: str = "") -> None:
    """Another live ansible-playbook of this run is going on: a holder of this run on the drive is that process's, to be
    refused and never taken over (claim_own_hold is for a resume whose controller died)."""
    for opener in info.get("openers", []):
        hold = opener.get("hold")
        if hold and run_id and _hold.same_run(hold, run_id, token):
            hold["concurrent"] = True


def claim_own_hold(info: dict, run_id: str | None, lock_dir: str = _hold.LOCK_DIR, proc_root: str = "/proc",
                   token: str = "") -> dict | None:
    """A resumed run finds its own holder on the listed drive (the controller died, the holder did not).

    When that holder is proved to be this run's (lock file, command line, the device open), it is no refusal: it leaves
    the drive's openers, and its exclusive claim explains the drive's exclusive-open failure (while it holds the disk the
    kernel lets nobody else claim it or a partition). It is returned, to be taken over by pts_drive_hold. A holder of this
    run that is not proved stays an opener, with why, and is refused. A holder of the same run id with another run
    token is another run's (another results directory or controller chose the same id) and is never taken over.
    """
    if not run_id or not info.get("is_block"):
        return None
    for opener in info.get("openers", []):
        hold = opener.get("hold")
        if not hold or not _hold.same_run(hold, run_id, token) or opener.get("device") != info.get("devnum"):
            continue
        problem = _hold.holder_problem(opener["pid"], info["devnum"], run_id, lock_dir, proc_root, token=token)
        if problem:
            hold["unproved"] = problem
            continue
        info["openers"] = [o for o in info["openers"] if o is not opener]
        info["in_use"] = None
        info["takeover"] = {"pid": opener["pid"], "run_id": run_id, "token": token,
                            "lock": _hold.lock_path(info["devnum"], lock_dir)}
        return info["takeover"]
    return None


def refusals(info: dict, expected: dict, allow_destroy: bool, allow_signatures: bool = False,
             run_id: str | None = None, token: str = "") -> list[str]:
    """Every reason not to write to this device; an empty list means the guard passes. ``run_id`` and ``token`` are
    the run the guard is for: a drive holder of another run is named as that run's."""
    reasons = []
    if not allow_destroy:
        reasons.append("pts_allow_destroy is not true for this host: destroying data needs an explicit yes")
    controls = _control_refusals(info, expected)
    if controls:
        return reasons + controls
    if info.get("resolve_error"):
        reasons.append(info["resolve_error"])
        return [_text.show(r) for r in reasons]
    if not info.get("exists"):
        reasons.append(f"{info.get('resolved')} does not exist ({info.get('error', 'not found')})")
        return [_text.show(r) for r in reasons]
    if not info.get("is_block"):
        reasons.append(f"{info.get('resolved')} is not a block device")
        return [_text.show(r) for r in reasons]
    related = {r["name"]: r for r in info.get("related", [])}
    if info.get("description_error"):
        reasons.append(info["description_error"])
    for field in ("serial", "wwn", "backing_file"):
        want = expected.get(field)
        if want and not _sysfs.same_identity(field, want, info.get(field)):
            source = " (from its description file)" if field in info.get("described", []) else ""
            reasons.append(f"{field} mismatch: expected {want!r}, the device reports {info.get(field)!r}{source}")
    if info.get("signatures") is None and "signatures" in info:
        reasons.append("its signatures could not be read (wipefs failed), so it may hold data")
    elif info.get("signatures") and not allow_signatures:
        found = ", ".join(f"{sig['type']} on {_label(os.path.basename(str(sig['device'])), related)} at {sig['offset']}"
                          for sig in info["signatures"])
        reasons.append(f"it carries signatures ({found}): it may hold data; wipe it yourself or set "
                       "pts_allow_signatures: true")
    if info.get("read_only"):
        reasons.append("the device is read-only")
    stacked_names = set(info.get("stacked", []))
    for mount in info.get("mounts", []):
        device = mount["device"]
        label = _label(device, related) if device in related else (
            f"{device} (stacked on this drive)" if device in stacked_names else device)
        system = ": this is the system disk" if mount["mountpoint"] in SYSTEM_MOUNTS else ""
        reasons.append(f"{label} is mounted on {mount['mountpoint']} ({mount['fstype']}){system}")
    for name, holders in sorted(info.get("holders", {}).items()):
        reasons.append(f"{name} is held by {', '.join(holders)} (device-mapper, LVM, md or bcache)")
    for entry in related.values():
        if entry["kind"] == "holder" and entry["on"] in related and related[entry["on"]]["relation"] == "alias":
            reasons.append(f"{_label(entry['on'], related)} is held by {entry['name']} (device-mapper, LVM, md or bcache)")
        elif entry["kind"] == "loop":
            # The loop driver makes no holder link and takes no claim: judged as a holder all the same.
            reasons.append(f"{_label(entry['name'], related)}: writing this drive changes what it holds (a loop device "
                           f"shows no holder); detach it first (losetup -d /dev/{entry['name']})")
    for swap in info.get("swaps", []):
        reasons.append(f"{_label(os.path.basename(swap), related)} is active swap" if os.path.basename(swap) in related
                       else f"{swap} is active swap")
    held_related, held_here = _opener_refusals(info, related, run_id, token, reasons)
    # A holder's exclusive claim is what the exclusive open runs into: it is named above.
    if info.get("in_use") and not info.get("mounts") and not info.get("holders") and not info.get("swaps") \
            and not held_here:
        reasons.append(info["in_use"])
    # An alias the kernel will not open exclusively, when no mount, swap or holder above already says why.
    claimed = {m["device"] for m in info.get("mounts", [])} | {os.path.basename(s) for s in info.get("swaps", [])}
    claimed |= {e["on"] for e in related.values() if e["kind"] == "holder"} | held_related
    for entry in related.values():
        family = {entry["name"]} | {r["name"] for r in related.values() if r["on"] == entry["name"]}
        if entry.get("in_use") and not family & claimed:
            reasons.append(f"{_label(entry['name'], related)}: {entry['in_use']}")
    return [_text.show(r) for r in reasons]


def _opener_refusals(info: dict, related: dict, run_id: str | None, token: str,
                     reasons: list[str]) -> tuple[set, bool]:
    """A reason for each process that has the drive, a path to it or its backing file open (a drive holder named as
    its run's) into ``reasons``; returns the related devices a holder holds and whether it holds the drive itself."""
    names = {r["devnum"]: r["name"] for r in related.values()}
    held_related, held_here = set(), False
    for opener in info.get("openers", []):
        if "file" in opener:
            what = f"the backing file {opener['file']}"
        elif opener.get("device") in names:
            what = _label(names[opener["device"]], related)
        else:
            what = info.get("name") or "it"
        if opener.get("hold"):
            reasons.append(_held_words(what, opener, run_id, token))
            if opener.get("device") in names:
                held_related.add(names[opener["device"]])
            else:
                held_here = True
        else:
            reasons.append(f"{what} is open by process {opener['pid']} ({opener['command']})")
    return held_related, held_here


def guard_record(info: dict) -> dict:
    """The identity the guard passed, as every later write checks it again (see recheck())."""
    loop = info.get("loop")
    return {
        "devnum": info.get("devnum"),
        "serial": info.get("serial"),
        "wwn": info.get("wwn"),
        "loop": {k: loop.get(k) for k in _loop.LOOP_FIELDS} if loop else None,
    }


def _loop_words(loop: dict) -> str:
    return (f"a loop device over {_text.show(loop.get('backing_file'))} (device {loop.get('backing_dev')}, inode "
            f"{loop.get('backing_ino')}, offset {loop.get('offset') or 0}, size limit {loop.get('sizelimit') or 0})")


def identity_refusals(info: dict, expect: dict) -> list[str]:
    """Is the device still the one the guard recorded (device number, loop backing file and range)?"""
    reasons = []
    where = _text.show(info.get("resolved"))
    if expect.get("devnum") and info.get("devnum") != expect["devnum"]:
        reasons.append(f"{where} is now device {info.get('devnum')}, the guard passed {expect['devnum']}")
    if "loop" not in expect:
        return reasons  # a record from before loop identities were kept
    want, have = expect.get("loop"), info.get("loop")
    if want and not have:
        reasons.append(f"{where} is no longer a loop device; the guard passed {_loop_words(want)}")
    elif have and not want:
        reasons.append(f"{where} is now {_loop_words(have)}; the guard passed no loop device")
    elif want and have and any(str(want.get(k)) != str(have.get(k)) for k in _loop.LOOP_FIELDS if k in want):
        reasons.append(f"{where} is now {_loop_words(have)}; the guard passed {_loop_words(want)}: it is not the "
                       "device the guard passed")
    return reasons


def devnum_of(path: str) -> str | None:
    """The major:minor of the block device ``path`` is now, or None."""
    try:
        st = _sysfs.node_stat(os.path.realpath(path))
    except OSError:
        return None
    return _sysfs.devnum_of(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None


def host_record(path: str, expect: dict, lock_dir: str = _hold.LOCK_DIR) -> tuple[dict | None, str | None]:
    """The host's guard record (see _guard_record) of the device ``path`` is now, when it is the record of the run and
    drive ``expect`` names (its ``hold``: run id and token; its ``key``); else (None, why nothing is written)."""
    where = _text.show(path)
    hold = expect.get("hold") if isinstance(expect, dict) else None
    if not isinstance(expect, dict) or expect.get("passed") is not True or not isinstance(hold, dict) \
            or not hold.get("run_id"):
        return None, (f"{where}: the guard has not passed and held it in this run (no guard record with a hold to "
                      "check it against); nothing is written to a drive the guard did not pass")
    devnum = devnum_of(path)
    if devnum is None:
        return None, f"{where} is not a block device now; nothing is written to it"
    record, why = _guard_record.read(devnum, lock_dir)
    if record is None:
        return None, (f"{where} (device {devnum}): {why}: the guard did not pass this device in this run, whatever "
                      "the run's variables say; nothing is written to it")
    run_id, token = hold["run_id"], hold.get("token") or ""
    if "token" not in hold and hold.get("token_id") is not None:
        # What the controller knows of the run's token (no event carries the token): the record's matches it, or
        # the record is another run's.
        if record.get("run_id") == run_id and _hold.token_id(record.get("token")) == hold["token_id"]:
            token = record.get("token") or ""
    if not _guard_record.same_run(record, run_id, token):
        return None, (f"{where} (device {devnum}): the guard passed it for {_hold.owner_words(record, run_id, token)}, "
                      f"not for this run ({run_id}); nothing is written to it")
    if expect.get("key") and record.get("key") != expect["key"]:
        return None, (f"{where} (device {devnum}) is drive {record.get('key')!r} in the guard's record, not "
                      f"{expect['key']!r}: nothing is written to one drive in another's name")
    return record, None


def recheck(path: str, expect: dict, sys_root: str = "/sys", proc_root: str = "/proc", dev_root: str = "/dev",
            lock_dir: str = _hold.LOCK_DIR, signatures=None, need_hold: bool = True) -> list[str]:
    """Right before a write: did the guard pass this device in this run, is its hold alive, is the device still free,
    still the one the guard passed, and is nothing stacked on it or on another path to it?

    The truth is the host's guard record (see _guard_record), found by the device ``path`` is now: ``expect`` only says
    which run (its ``hold``'s run id and token) and which drive (``key``) the caller writes for - a record this run's
    guard never wrote cannot be named by any variable. The record's hold must still be alive, ours and holding the
    device (unless ``need_hold`` is false: the write cache set back on an md array's member once the array is down);
    the holder is then the one opener that does not count. The device must still report the identity the guard
    recorded, and ``signatures(info)`` (wipefs, see _signatures) may find none the guard did not see.
    """
    record, why = host_record(path, expect, lock_dir)
    if record is None:
        return [_text.show(why)]
    hold = record["hold"]
    lost = _hold.verify(hold, record["devnum"], lock_dir, proc_root)
    if lost and (need_hold or record.get("state") != _guard_record.IN_ARRAY):
        rid = _text.show(hold.get("run_id"))
        return [_text.show(f"{path}: this run's hold on the drive is lost - {lost}; something else may have "
                           f"claimed the drive since, so nothing more is written to it: run again with the same run id "
                           f"(pts_run_id={rid}) to guard it and hold it again")]
    if lost:
        info = _probe.probe(path, sys_root, proc_root, dev_root=dev_root, lock_dir=lock_dir)
    else:
        info = _probe.probe(path, sys_root, proc_root, dev_root=dev_root, ignore_pids=frozenset([hold["pid"]]),
                            held=True, lock_dir=lock_dir)
    # A serial the description file gave cannot be read back from the device; the devnum check covers it.
    fields = [k for k in ("serial", "wwn") if k not in record.get("described", [])]
    reasons = refusals(info, {k: v for k, v in record.items() if k in fields}, allow_destroy=True,
                       allow_signatures=True, run_id=hold.get("run_id"), token=hold.get("token") or "")
    if info.get("is_block"):
        reasons += identity_refusals(info, record)
        if signatures is not None:
            found = signatures(info)
            if found is None:
                reasons.append("its signatures could not be read again (wipefs failed), so it may hold data")
            else:
                new = _signatures.added(found, record.get("signatures") if record.get("allow_signatures") else [])
                if new:
                    what = ", ".join(_new_signature(s, dev_root) for s in new)
                    reasons.append(f"it carries signatures the guard did not pass ({what}): someone has put data on "
                                   "it since")
    return [_text.show(r) for r in reasons]


def _new_signature(signature: dict, dev_root: str = "/dev") -> str:
    """A signature the re-check found, with the bytes at its offset (what the operator or a bug report needs to tell
    someone's data from a probe that took the run's own random data for a label)."""
    where = f"{signature.get('type')} on {os.path.basename(str(signature.get('device')))} at {signature.get('offset')}"
    found = _signatures.bytes_at(signature, dev_root=dev_root)
    return f"{where}, bytes {found}" if found else where


def duplicate_refusals(infos: list[dict], keys: list[str], labels: list[str] | None = None) -> list[list[str]]:
    """Per listed drive, a refusal when two entries share a results key, resolve to one device, or reach one
    medium (one is an alias of the other, a partition of it or stacked on it)."""
    labels = labels or [_text.show(info.get("path")) for info in infos]
    reasons: list[list[str]] = [[] for dummy in infos]
    for i, (info, key) in enumerate(zip(infos, keys)):
        related = {r["devnum"]: r for r in info.get("related", []) if r.get("devnum")}
        for j, (other, other_key) in enumerate(zip(infos, keys)):
            if i == j:
                continue
            if key == other_key:
                reasons[i].append(f"results key {key!r} is also used by {labels[j]}: give each drive a unique name")
            elif info.get("devnum") and info.get("devnum") == other.get("devnum"):
                reasons[i].append(f"{labels[j]} resolves to the same device")
            elif other.get("devnum") in related:
                entry = related[other["devnum"]]
                reasons[i].append(f"{labels[j]} is listed too, and it is {entry['name']} ({entry['how']}): "
                                  "list each drive once")
    return reasons
