#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_guard
short_description: Refuse, before any write, drives that are not allowed, not the expected drive, or in use
version_added: 1.0.0
description:
  - Checks every listed drive and fails, naming each device and each reason, when destroying data is not
    explicitly allowed for the host, the path is not a block device, the serial, WWN or loop backing file
    differs from the one listed, the device or any of its partitions is mounted, it has holders
    (device-mapper, LVM, md, bcache), it is active swap, it is read-only, or the kernel refuses an
    exclusive open (of the disk or any partition) because something else holds it, a process has it open, or
    two listed entries are the same device, reach the same medium or share a results name.
  - A loop device over the drive, over one of its partitions or over a file on one of its filesystems (and
    anything stacked on that, recursively) is judged as a holder, although the loop driver records none.
  - Every other path to the same medium is judged as part of the drive - another disk with the same serial
    (per namespace for NVMe) or WWN (dual-path SAS or NVMe without multipath), a loop device over the same
    backing file, the device a listed loop device is over. A mount, holder, swap, open by a process, exclusive
    claim or signature on any of them, or on anything stacked on them, is a refusal naming that device and how
    it reaches the drive.
  - A path, device path or backing file path with a control character (a newline) is refused before anything
    is written with it.
  - A drive listed by O(devices[].serial) or O(devices[].wwn) alone is looked up among the host's disks;
    none or more than one match is a refusal.
  - The device, its partitions and its other paths must carry no filesystem, partition table, RAID, LVM or other
    signature (as C(wipefs) lists them) unless O(allow_signatures=true); a mount, holder or swap anywhere on the
    devices stacked on the drive (LVM volumes, md arrays) counts as the drive's own, and a drive holding
    C(/), C(/boot) or C(/usr) is named as the system disk.
  - A drive holder of another run (see M(fleetqual.pts.pts_drive_hold)) on the drive, another path to it or a device
    stacked on it is a refusal naming that run id, the holder's PID and lock file, and how to release it - resume that
    run, or C(kill PID) when it is gone (a holder left behind by a controller that died holds the drive until then).
  - A drive holder of this same O(run_id) on the listed drive itself - a resumed run whose controller died - is proved
    to be this run's (its lock file names the run and the PID, its command line is a holder's of that device and run,
    and it has the device open) and is then no refusal; the verdict names it in RV(pts_guard[].takeover), and
    M(fleetqual.pts.pts_drive_hold) replaces it with the new holder. One that cannot be proved is a refusal.
  - A hold lock file whose process has ended or is not its holder is stale. It is removed, and listed in
    RV(stale_holds) and as a warning (in check mode only listed).
  - Only reads the drives; the exclusive open is read-only and closed at once, and a listed loop device's backing file
    is read with a read-only C(LOOP_GET_STATUS64) (never on an autoclear loop device, which the close would detach).
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._devices
attributes:
  check_mode:
    support: full
    details: The guard only reads, so check mode gives the same verdict as a real run.
  diff_mode:
    support: none
options:
  allow_destroy:
    description: The operator's explicit permission to destroy data on the listed drives of this host.
    type: bool
    default: false
  allow_signatures:
    description:
      - Let the guard pass a drive that carries filesystem, partition table, RAID or LVM signatures.
      - Only for drives known to hold nothing of value; the signatures are listed in the verdict either way.
    type: bool
    default: false
  run_id:
    description:
      - The run the guard is for (C(pts_run_id)). A drive holder of this run on a listed drive is taken over instead
        of refused (see above); without it, every drive holder is refused as another run's.
    type: str
  run_token:
    description:
      - The run token of O(run_id) (C(pts_run_token), kept in the run's results directory on the controller). A holder of
        the same run id with another token belongs to another run that chose the same id (another results directory
        or controller); it is refused, never taken over.
    type: str
    default: ""
  takeover:
    description:
      - Whether a holder of this same run (O(run_id) and O(run_token)) may be taken over - a resume whose controller
        died. V(false) when another live ansible-playbook of the run is going on (job slices share a run) - a drive it
        holds is refused as in use, never taken over, whatever inventory host names it.
    type: bool
    default: true
    version_added: 2.0.0
"""

EXAMPLES = r"""
- name: Refuse drives that are not safe to write
  fleetqual.pts.pts_guard:
    devices: "{{ pts_devices }}"
    allow_destroy: "{{ pts_allow_destroy }}"
"""

RETURN = r"""
pts_guard:
  description: The verdict per listed drive.
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: The path as listed.
      type: str
    resolved:
      description: The device node it resolves to.
      type: str
    label:
      description: The entry as the user wrote it - its path, else C(pts_devices[N]) with its name, serial or WWN.
      type: str
    key:
      description: Name of the drive's results directory.
      type: str
    devnum:
      description: The device's major:minor number when the guard ran; later writes check it again.
      type: str
    loop:
      description:
        - For a loop device, what it is over when the guard ran; every later write checks all of it again, so a
          loop device detached and attached to another file in between is refused. Null for other devices.
      type: dict
      contains:
        backing_file:
          description: The backing file's path, as the kernel shows it.
          type: str
        backing_dev:
          description: The major:minor of the file system holding the backing file (its C(st_dev)).
          type: str
        backing_ino:
          description: The backing file's inode number.
          type: int
        backing_rdev:
          description: The major:minor of the backing file when it is itself a block device, else null.
          type: str
        offset:
          description: The loop device's offset into its backing file, in bytes.
          type: int
        sizelimit:
          description: The loop device's size limit in bytes; 0 means up to the end of the backing file.
          type: int
    related:
      description:
        - Every other block device that reaches the drive's medium - C(alias) another path to it, C(stacked) a
          holder or loop device over it - with how it does.
      type: list
      elements: dict
      contains:
        name:
          description: Kernel name of the device.
          type: str
        devnum:
          description: Its major:minor number.
          type: str
        relation:
          description: C(alias) or C(stacked).
          type: str
        how:
          description: How it reaches the drive, in words.
          type: str
    serial:
      description: Serial number the device reports.
      type: str
    wwn:
      description: World wide name the device reports.
      type: str
    passed:
      description: Whether the drive may be written.
      type: bool
    refusals:
      description: Every reason the drive may not be written.
      type: list
      elements: str
    signatures:
      description: Signatures found on the drive and its partitions (C(wipefs) device, offset, type).
      type: list
      elements: dict
    described:
      description: Identity fields that came from the drive's description file, not from the device.
      type: list
      elements: str
    takeover:
      description:
        - The drive holder of this O(run_id) that holds the drive and is proved to be this run's, to be replaced by
          M(fleetqual.pts.pts_drive_hold); null when there is none.
      type: dict
      contains:
        pid:
          description: The holder's PID.
          type: int
        run_id:
          description: The run it holds the drive for (this run).
          type: str
        token:
          description: The run token it holds the drive for (this run's).
          type: str
        lock:
          description: Its lock file.
          type: str
stale_holds:
  description: Hold lock files whose holder had ended or was not a holder, removed (in check mode, to be removed).
  returned: always
  type: list
  elements: dict
  contains:
    lock:
      description: The lock file.
      type: str
    devnum:
      description: The major:minor of the device it named.
      type: str
    run_id:
      description: The run it named, if it could be read.
      type: str
    pid:
      description: The PID it named, if it could be read.
      type: int
    why:
      description: Why it is stale.
      type: str
"""

from ansible.module_utils.basic import AnsibleModule

import json
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _hold
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import claim_own_hold, duplicate_refusals, guard_record, mark_concurrent, refusals
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._listing import DEVICE_SPEC, drive_key, entry_label, probe_listed
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._text import has_control, show


def signatures(module: AnsibleModule, info: dict) -> list[dict] | None:
    """What wipefs (read-only without options) finds on the device, its partitions and every other path to it
    (aliases: the same disk by serial or WWN, loop devices over the same file); None if it cannot tell."""
    if not info.get("is_block"):
        return []
    wipefs = module.get_bin_path("wipefs")
    if not wipefs:
        return None
    found = []
    nodes = [info["resolved"]] + [os.path.join("/dev", part) for part in info.get("partitions", [])]
    nodes += [os.path.join("/dev", r["name"]) for r in info.get("related", []) if r["relation"] == "alias"]
    for node in nodes:
        rc, out, dummy = module.run_command([wipefs, "--json", node])
        if rc != 0:
            return None
        try:
            found += [{k: sig.get(k) for k in ("device", "offset", "type")}
                      for sig in (json.loads(out) if out.strip() else {}).get("signatures", [])]
        except (ValueError, AttributeError):
            return None
    return found


def _node(verdict: dict) -> str:
    return f" ({show(verdict['resolved'])})" if verdict["resolved"] else ""


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type="list", elements="dict", required=True, options=DEVICE_SPEC),
            allow_destroy=dict(type="bool", default=False),
            allow_signatures=dict(type="bool", default=False),
            run_id=dict(type="str"),
            run_token=dict(type="str", default="", no_log=False),
            takeover=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    specs = module.params["devices"]
    run_id = module.params["run_id"] or None
    token = module.params["run_token"] or ""
    if module.check_mode:
        stale = [e for e in _hold.scan_locks() if not e["live"]]
    else:
        stale = _hold.remove_stale()
    for entry in stale:
        module.warn(f"pts_guard: {'would remove' if module.check_mode else 'removed'} {_hold.stale_words(entry)}")
    infos = [probe_listed(spec) for spec in specs]
    for info in infos:
        if module.params["takeover"]:
            claim_own_hold(info, run_id, token=token)
        else:
            mark_concurrent(info, run_id, token=token)
    for info in infos:
        # A path with a newline is refused before wipefs or anything else is handed it.
        info["signatures"] = [] if has_control(info.get("path")) or has_control(info.get("resolved")) else signatures(module, info)
    keys = [drive_key(spec, info) for spec, info in zip(specs, infos)]
    labels = [entry_label(index, spec) for index, spec in enumerate(specs)]
    duplicates = duplicate_refusals(infos, keys, labels)
    verdicts = []
    for spec, info, key, label, duplicate in zip(specs, infos, keys, labels, duplicates):
        reasons = refusals(info, spec, module.params["allow_destroy"], module.params["allow_signatures"],
                           run_id=run_id, token=token) + duplicate
        verdicts.append(dict(
            guard_record(info),
            path=info["path"] or spec.get("path") or spec.get("serial") or spec.get("wwn"),
            label=label,
            key=key,
            resolved=info["resolved"],
            passed=not reasons,
            refusals=reasons,
            signatures=info["signatures"] or [],
            described=info.get("described", []),
            related=[{k: r.get(k) for k in ("name", "devnum", "relation", "how")} for r in info.get("related", [])],
            takeover=info.get("takeover"),
        ))
    stale_holds = [{k: e[k] for k in ("lock", "devnum", "run_id", "pid", "why")} for e in stale]
    refused = [v for v in verdicts if not v["passed"]]
    if refused:
        lines = [f"{v['label']}{_node(v)}: {'; '.join(v['refusals'])}" for v in refused]
        module.fail_json(msg="pts_guard refused, nothing was written: " + " || ".join(lines), pts_guard=verdicts,
                         stale_holds=stale_holds)
    module.exit_json(changed=bool(stale) and not module.check_mode, pts_guard=verdicts, stale_holds=stale_holds)


if __name__ == "__main__":
    main()
