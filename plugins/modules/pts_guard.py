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
  - With O(hold=true) and a O(run_id), each drive that passes is held for the run (a detached holder process keeps an
    exclusive open, see M(fleetqual.pts.pts_drive_hold)) and the guard writes its record of the drive on the host,
    root-only, beside the hold's lock file (C(/run/fleetqual-pts/guard-MAJOR-MINOR.json)) - the run, the drive's key, its
    identity, the signatures it saw and the hold. Every later write (M(fleetqual.pts.pts_purge),
    M(fleetqual.pts.fio_job), M(fleetqual.pts.pts_write_cache), M(fleetqual.pts.pts_md_array)) looks that record up by
    the device it is about to write and writes only when it is this run's, for that drive, with its hold alive - no
    variable can name a device the guard did not pass. When a hold cannot be taken, the holds already taken are
    released and the guard fails.
  - With O(remote_dir), the run's directory on the host is checked (made when missing) before anything is held - every
    level from C(/) down opened without following links, owned by root, writable by nobody else (a sticky C(/tmp) of
    root's may be on the way). With O(ioengine), the host's fio must load that engine (C(fio --enghelp=ENGINE)).
    Either failing refuses every drive, before anything is written.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._devices
  - fleetqual.pts._filing
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
  hold:
    description:
      - Hold each drive that passes for O(run_id) and keep the guard's record of it on the host (see above). Needs
        O(run_id); every write of the collection needs that record.
    type: bool
    default: false
    version_added: 3.0.0
  hold_timeout:
    description: Seconds a holder may take to start or stop.
    type: float
    default: 15
    version_added: 3.0.0
  remote_dir:
    description: The run's directory on the host (C(pts_run_remote_dir)), checked and made before anything is held.
    type: path
    version_added: 3.0.0
  ioengine:
    description: The fio ioengine the run uses (C(pts_run_ioengine)); the host's fio must load it.
    type: str
    version_added: 3.0.0
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
    hold:
      description:
        - With O(hold=true), the run's hold on the drive - C(pid), C(start_time), C(run_id), C(devnum), C(lock),
          C(token_id) - and C(record), the path of the guard's record on the host. The run token stays on the host -
          since 3.0.0 no result carries it (AWX stores every event), only C(token_id), the first 16 hex digits of its
          SHA-256, which tells this run's record from another run's of the same id and authorizes nothing.
      type: dict
      version_added: 3.0.0
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

import datetime
import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold, _signatures
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import claim_own_hold, duplicate_refusals, guard_record, mark_concurrent, refusals
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._listing import DEVICE_SPEC, drive_key, entry_label, probe_listed
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._text import has_control, show
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _job_check, _remote_dir


def _node(verdict: dict) -> str:
    return f" ({show(verdict['resolved'])})" if verdict["resolved"] else ""


def host_refusal(module: AnsibleModule) -> str | None:
    """Why nothing may be written on this host whatever the drives: the run's directory or fio's ioengine."""
    remote = module.params["remote_dir"]
    if remote:
        try:
            # --check makes nothing: a directory still to be made is judged when the run makes it.
            os.close(_remote_dir.open_dir(remote, below=remote, make=not module.check_mode))
        except _remote_dir.RemoteDirError as exc:
            if not (module.check_mode and str(exc).endswith("does not exist")):
                return f"pts_run_remote_dir {remote!r} cannot hold the run's job files: {exc}"
    engine = module.params["ioengine"]
    if engine:
        if engine not in _job_check.IOENGINES:
            return (f"pts_run_ioengine {engine!r} is not an ioengine a PTS run may use "
                    f"({', '.join(_job_check.IOENGINES)})")
        fio = module.get_bin_path("fio")
        if not fio:
            return "fio is not installed on the host"
        rc, dummy, err = module.run_command([fio, f"--enghelp={engine}"])
        if rc != 0:
            return f"pts_run_ioengine {engine!r}: the host's fio cannot load it ({show(err.strip()[-200:])})"
    return None


def hold_passed(module: AnsibleModule, verdicts: list[dict], run_id: str, token: str) -> None:
    """Hold every drive that passed and write the guard's record of it; on any failure release what was taken and fail
    (nothing was written to a drive)."""
    taken = []
    since = datetime.datetime.now(datetime.timezone.utc).isoformat()
    try:
        for verdict in verdicts:
            if not verdict["passed"]:
                continue
            got = _hold.take(verdict["resolved"], verdict["devnum"], run_id, token, module.params["hold_timeout"])
            for pretender in got["ignored"]:
                module.warn(f"pts_guard {show(verdict['path'])}: process {pretender['pid']} has a drive holder's "
                            f"command line for run {show(pretender['run_id'])} but does not have the device open: it "
                            "holds nothing, ignored")
            hold = {k: got["hold"][k] for k in ("pid", "start_time", "run_id", "token", "devnum", "lock")}
            taken.append(hold)
            record = _guard_record.make(verdict, hold, run_id, token, module.params["allow_signatures"], since)
            # The token stays on the host (the hold's lock file, the guard's record): no result or event carries it.
            verdict["hold"] = dict({k: v for k, v in hold.items() if k != "token"}, token_id=_hold.token_id(token),
                                   record=_guard_record.write(record))
    except (_hold.HoldError, _guard_record.RecordError, OSError) as exc:
        for hold in taken:
            try:
                _hold.stop(hold["pid"], hold["devnum"], timeout=module.params["hold_timeout"])
            except _hold.HoldError as err:
                module.warn(f"pts_guard: {err}")
            _guard_record.remove(hold["devnum"], run_id, token)
        failed = next(v for v in verdicts if v["passed"] and "hold" not in v)
        module.fail_json(msg=f"pts_guard {show(failed['path'])}{_node(failed)}: cannot hold it for run {run_id}: {exc}; "
                             "the holds already taken were released, nothing was written", pts_guard=verdicts)


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type="list", elements="dict", required=True, options=DEVICE_SPEC),
            allow_destroy=dict(type="bool", default=False),
            allow_signatures=dict(type="bool", default=False),
            run_id=dict(type="str"),
            run_token=dict(type="str", default="", no_log=True),
            takeover=dict(type="bool", default=True),
            hold=dict(type="bool", default=False),
            hold_timeout=dict(type="float", default=15),
            remote_dir=dict(type="path"),
            ioengine=dict(type="str"),
            run_dir=dict(type="path"),  # the action plugin's: where it files the result
        ),
        supports_check_mode=True,
    )
    specs = module.params["devices"]
    run_id = module.params["run_id"] or None
    token = module.params["run_token"] or ""
    if module.params["hold"] and not run_id:
        module.fail_json(msg="pts_guard: hold=true needs the run_id the drives are held for; nothing was written")
    if module.params["hold"] and os.geteuid() != 0:
        module.fail_json(msg="pts_guard: holding drives needs root (an exclusive open, a record in /run)")
    if module.check_mode:
        stale = [e for e in _hold.scan_locks() if not e["live"]]
    else:
        stale = _hold.remove_stale()
        _guard_record.remove_stale()
    for entry in stale:
        module.warn(f"pts_guard: {'would remove' if module.check_mode else 'removed'} {_hold.stale_words(entry)}")
    refused_host = host_refusal(module)
    infos = [probe_listed(spec) for spec in specs]
    for info in infos:
        if module.params["takeover"]:
            claim_own_hold(info, run_id, token=token)
        else:
            mark_concurrent(info, run_id, token=token)
    wipefs = module.get_bin_path("wipefs")
    for info in infos:
        # A path with a newline is refused before wipefs or anything else is handed it.
        info["signatures"] = [] if has_control(info.get("path")) or has_control(info.get("resolved")) \
            else _signatures.read(info, module.run_command, wipefs)
    keys = [drive_key(spec, info) for spec, info in zip(specs, infos)]
    labels = [entry_label(index, spec) for index, spec in enumerate(specs)]
    duplicates = duplicate_refusals(infos, keys, labels)
    verdicts = []
    for spec, info, key, label, duplicate in zip(specs, infos, keys, labels, duplicates):
        reasons = refusals(info, spec, module.params["allow_destroy"], module.params["allow_signatures"],
                           run_id=run_id, token=token) + duplicate
        if refused_host:
            reasons.append(refused_host)
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
            takeover={k: v for k, v in (info.get("takeover") or {}).items() if k != "token"} or None,
        ))
    stale_holds = [{k: e[k] for k in ("lock", "devnum", "run_id", "pid", "why")} for e in stale]
    refused = [v for v in verdicts if not v["passed"]]
    if refused:
        lines = [f"{v['label']}{_node(v)}: {'; '.join(v['refusals'])}" for v in refused]
        module.fail_json(msg="pts_guard refused, nothing was written: " + " || ".join(lines), pts_guard=verdicts,
                         stale_holds=stale_holds)
    if module.params["hold"] and not module.check_mode:
        hold_passed(module, verdicts, run_id, token)
    module.exit_json(changed=(bool(stale) or module.params["hold"]) and not module.check_mode, pts_guard=verdicts,
                     stale_holds=stale_holds)


if __name__ == "__main__":
    main()
