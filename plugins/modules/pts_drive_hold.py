#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_drive_hold
short_description: Hold a guarded drive exclusively for one PTS run, from the guard to the end of its tests
version_added: 1.0.0
description:
  - V(present) starts a small detached holder process on the host that keeps the device open with C(O_EXCL) until
    it is released. While it does, the kernel refuses every other exclusive claim on the device and its partitions -
    C(mount), C(mkfs), C(mdadm), C(swapon), another run's holder - while plain opens (fio's, nvme-cli's, smartctl's)
    still work. So a second run cannot pass the guard, and nothing can claim the drive between fio's job sections,
    when no fio has it open.
  - The holder writes a root-only lock file C(/run/fleetqual-pts/hold-<major>-<minor>.json) naming the run id, its
    PID, its start time and the device, survives the module's exit and the SSH session (double fork, C(setsid), no
    inherited file descriptors), and on C(SIGTERM) closes the device, removes its lock file and ends. C(/run) is
    emptied at boot, when holders end too.
  - The module returns only once the holder has the exclusive open and its lock file is written, and fails naming
    the reason otherwise (C(EBUSY) - something else claims the device).
  - A holder is known by what it holds, not by its command line, which any local user can give a process of their
    own - a process with a holder's command line that does not have the device open holds nothing and is ignored
    (RV(pts_drive_hold.ignored), with a warning); one that has it open is named as its run's holder only when its
    root-only lock file names it with that run id and token, and otherwise as a process that has the drive open.
  - A run is its O(run_id) and its O(run_token). A holder of another run on the device - including another run that
    chose the same run id, with another token - is a failure naming its run id and PID. A holder of the same run id
    and token - a resumed run whose controller died - is proved to be this run's (its lock file names the run and its
    PID, its command line is a holder's of this device and run, it has the device open), stopped, and replaced by a
    new one (RV(pts_drive_hold.took_over)). A lock file whose holder has ended is removed.
  - V(absent) stops this run's holders (of the device at O(path), or of each of O(records), or every one of O(run_id)
    and O(run_token) on the host without either; only the holder of O(expect)'s hold when it has one) and removes
    their lock files. Holders of other runs, and of other runs of the same run id, are left alone and listed in
    RV(pts_drive_hold.others).
  - V(present) holds only a drive the guard passed for this run - the guard's record of the device on the host (see
    M(fleetqual.pts.pts_guard) with O(fleetqual.pts.pts_guard#module:hold=true), which holds the drives it passes
    itself) must name this run id and token; the new hold goes into that record. Anything else is refused - a variable
    cannot name a device to hold.
  - V(absent) also removes the guard's record of each device whose hold it ends (and of a device of this run whose
    record is left without a hold, such as an md array's member once the array is down).
  - Every later write re-checks the hold through the guard's record (see M(fleetqual.pts.pts_guard)) - the holder
    must be alive, this run's and holding the device, and is the one opener that does not count.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
attributes:
  check_mode:
    support: full
    details: In check mode nothing is started, stopped or removed; the result says what would be.
  diff_mode:
    support: none
options:
  path:
    description:
      - The device to hold (the guard's resolved device node). Required with O(state=present).
      - With O(state=absent), the device whose holder to stop; a path that is no longer a block device is found by
        the device number in O(expect).
    type: path
  run_id:
    description: The run the hold is for (C(pts_run_id)); one directory name of C([A-Za-z0-9._-]).
    type: str
    required: true
  run_token:
    description:
      - The run token (C(pts_run_token)), a random string kept in the run's results directory on the controller, so
        that two runs which chose the same O(run_id) (two results directories or controllers) never take over or
        release each other's holders. With O(state=absent) and a hold in O(expect), the hold's own token is used.
    type: str
    default: ""
  state:
    description: V(present) to hold the device for the run, V(absent) to release the run's hold.
    type: str
    choices: [present, absent]
    default: present
  expect:
    description:
      - The guard's record of the drive (an entry of C(pts_guard_passed)). With V(present) the device must still be
        the one the guard passed (its device number); with V(absent) only the holder its C(hold) names is stopped.
    type: dict
    default: {}
  records:
    description:
      - With O(state=absent), instead of O(path) and O(expect), the guard's records of several drives (entries of
        C(pts_guard_passed)), released in one call for all the drives of a host. Each record's holder (the PID its
        C(hold) names) is stopped as with O(expect) the record and O(path) its C(resolved) - found by the record's
        device number where that node is gone.
      - A record that names no device or no holder releases nothing, and an empty list releases nothing - never every
        hold of the run on the host. Every other record is tried; the module fails after, naming each that failed.
    type: list
    elements: dict
  timeout:
    description: Seconds to wait for the holder to report that it holds the device, and for a holder to end.
    type: float
    default: 15
"""

EXAMPLES = r"""
- name: Hold the guarded drive for this run
  fleetqual.pts.pts_drive_hold:
    path: "{{ pts_guard_passed['/dev/nvme0n1'].resolved }}"
    run_id: "{{ pts_run_id }}"
    run_token: "{{ pts_run_token }}"
    expect: "{{ pts_guard_passed['/dev/nvme0n1'] }}"
  register: hold

- name: Keep the hold in the guard's record, so every later write re-checks it
  ansible.builtin.set_fact:
    pts_guard_passed: "{{ pts_guard_passed | combine({'/dev/nvme0n1': hold.pts_guard_record}) }}"

- name: Release it after the drive's tests
  fleetqual.pts.pts_drive_hold:
    path: "{{ pts_guard_passed['/dev/nvme0n1'].resolved }}"
    run_id: "{{ pts_run_id }}"
    expect: "{{ pts_guard_passed['/dev/nvme0n1'] }}"
    state: absent

- name: Release the holds the guard's records of this host name, in one call
  fleetqual.pts.pts_drive_hold:
    run_id: "{{ pts_run_id }}"
    run_token: "{{ pts_run_token }}"
    records: "{{ pts_guard_passed | dict2items | selectattr('value.hold', 'defined') | map(attribute='value') | list }}"
    state: absent

- name: Release every hold of the run on this host (after a failure)
  fleetqual.pts.pts_drive_hold:
    run_id: "{{ pts_run_id }}"
    run_token: "{{ pts_run_token }}"
    state: absent
"""

RETURN = r"""
pts_drive_hold:
  description: The hold, or what was released.
  returned: always
  type: dict
  contains:
    device:
      description: The device node, when O(path) was given (not with O(records)).
      type: str
    records:
      description:
        - With O(records), one entry per record, in the order given - its C(device) node (null where it named none),
          its C(devnum) (null where it named none), whether its hold was C(released), and C(why) not (null when it
          was).
      type: list
      elements: dict
    devnum:
      description: Its major:minor number (not with O(records)).
      type: str
    run_id:
      description: The run.
      type: str
    pid:
      description: The new holder's PID (V(present)); null in check mode.
      type: int
    start_time:
      description: The holder's start time (clock ticks since boot, field 22 of C(/proc/PID/stat)).
      type: int
    lock:
      description: The holder's lock file.
      type: str
    since:
      description: When the holder took the device (UTC, ISO 8601).
      type: str
    took_over:
      description: The holder of the same run that was stopped and replaced (V(present)), else null.
      type: dict
    stopped:
      description: The holders stopped (V(absent)), each with C(pid), C(devnum), C(run_id), C(device), C(lock).
      type: list
      elements: dict
    removed:
      description: Stale lock files removed, each with C(lock), C(devnum), C(run_id), C(pid) and C(why).
      type: list
      elements: dict
    others:
      description: Holders of other runs on the device, left alone (V(absent)).
      type: list
      elements: dict
    ignored:
      description:
        - Processes with a drive holder's command line for the device that do not have it open (V(present)), each
          with C(pid), C(devnum), C(run_id), C(device), C(lock). They hold nothing and never block a drive;
          a warning names each.
      type: list
      elements: dict
pts_guard_record:
  description:
    - O(expect) with the new hold in its C(hold) key (V(present), not in check mode), or without any C(hold) key
      (V(absent)). Put it back into C(pts_guard_passed) so that every later write re-checks the hold.
  returned: without O(records)
  type: dict
pts_guard_records:
  description:
    - With O(records), each record in the order given - without its C(hold) key where its hold was released, as given
      where it was not.
  returned: with O(records)
  type: list
  elements: dict
"""

import os
import re
import stat

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold
from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._text import show
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._usage import openers_of
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, run_id as valid_run_id


_DEVNUM_RE = re.compile(r"^[0-9]+:[0-9]+$")


def _devnum(path: str) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}" if stat.S_ISBLK(st.st_mode) else None


def _openers_words(devnum: str) -> str:
    major, minor = (int(n) for n in devnum.split(":"))
    found = openers_of({os.makedev(major, minor)})
    return "; ".join(f"process {o['pid']} ({o['command']}) has it open" for o in found)


def _untokened(entry):
    return {k: v for k, v in entry.items() if k != "token"} if isinstance(entry, dict) else entry


def _present(module: AnsibleModule, path: str, run_id: str, token: str, expect: dict) -> None:
    where = f"pts_drive_hold {show(path)}"
    devnum = _devnum(path)
    if devnum is None:
        module.fail_json(msg=f"{where}: not a block device; nothing was held or written")
    if expect.get("devnum") and expect["devnum"] != devnum:
        module.fail_json(msg=f"{where}: it is now device {devnum}, the guard passed {expect['devnum']}: it is not the "
                             "device the guard passed; nothing was held or written")
    record, why = _guard_record.read(devnum)
    if record is None or not _guard_record.same_run(record, run_id, token):
        whose = why if record is None else f"the guard passed it for {_hold.owner_words(record, run_id, token)}"
        module.fail_json(msg=f"{where}: {whose}: only a drive the guard passed for this run ({run_id}) is held; run "
                             "fleetqual.pts.pts_guard with hold=true; nothing was held or written")
    result: dict = {"device": path, "devnum": devnum, "run_id": run_id, "pid": None, "start_time": None,
                    "lock": _hold.lock_path(devnum), "since": None, "took_over": None, "removed": [], "ignored": []}
    if module.check_mode:
        result["removed"] = [e for e in _hold.scan_locks() if not e["live"] and e["devnum"] == devnum]
        module.exit_json(changed=True, pts_drive_hold=result, pts_guard_record=expect,
                         msg=f"check mode: would hold {path} for run {run_id}")
    try:
        got = _hold.take(path, devnum, run_id, token, timeout=module.params["timeout"])
        hold = {k: got["hold"][k] for k in ("pid", "start_time", "run_id", "token", "devnum", "lock")}
        _guard_record.write(dict(record, hold=hold, state=_guard_record.HELD))
        # The token stays on the host (the hold's lock file, the guard's record): no result or event carries it.
        hold["token_id"] = _hold.token_id(hold.pop("token"))
    except _hold.HoldError as exc:
        named = _openers_words(devnum)
        module.fail_json(msg=f"{where}: cannot hold it for run {run_id}: {exc}{'; ' + named if named else ''}; nothing "
                             "was written", pts_drive_hold=result)
    except (_guard_record.RecordError, OSError) as exc:
        module.fail_json(msg=f"{where}: cannot hold it for run {run_id}: {exc}; nothing was written",
                         pts_drive_hold=result)
    for pretender in got["ignored"]:
        module.warn(f"{where}: process {pretender['pid']} has a drive holder's command line for run "
                    f"{show(pretender['run_id'])} but does not have the device open: it holds nothing, ignored")
    result.update({k: v for k, v in got["hold"].items() if k != "token"}, took_over=_untokened(got["took_over"]),
                  removed=got["removed"], ignored=[_untokened(e) for e in got["ignored"]])
    module.exit_json(changed=True, pts_drive_hold=result, pts_guard_record=dict(expect, hold=hold))


class _NotReleased(PtsError):
    """A hold that could not be released, and why."""


def _device_of(path: str | None, expect: dict) -> str | None:
    """The device number of the node at ``path``, or where it is gone, the one ``expect`` (a guard's record) names."""
    hold = expect.get("hold") if isinstance(expect.get("hold"), dict) else {}
    return (_devnum(path) if path else None) or hold.get("devnum") or expect.get("devnum")


def _release(module: AnsibleModule, path: str | None, run_id: str, token: str, expect: dict,
             devnum: str | None = None) -> dict:
    """Release run ``run_id``'s hold of the device at ``path`` (or numbered ``devnum``; with neither, every one of
    the run and token on the host; only the holder ``expect``'s hold names when it has one): the module's result, or
    _NotReleased."""
    hold = expect.get("hold") if isinstance(expect.get("hold"), dict) else {}
    if hold.get("run_id") == run_id and isinstance(hold.get("token"), str):
        token = hold["token"]
    if path and devnum is None:
        devnum = _device_of(path, expect)
        if devnum is None:
            # Neither the node nor the record tells which device: nothing of this run can be picked out.
            return {"changed": False, "pts_guard_record": _without_hold(expect),
                    "pts_drive_hold": {"device": path, "devnum": None, "run_id": run_id, "stopped": [], "removed": [],
                                       "others": []},
                    "msg": f"{path} is not a block device and the record names no device: nothing to release"}
    pid = hold.get("pid") if isinstance(hold.get("pid"), int) else None
    try:
        released = _hold.release(run_id, devnum, pid, timeout=module.params["timeout"], check_mode=module.check_mode,
                                 token=token)
    except (_hold.HoldError, OSError) as exc:
        where = path or (f"device {devnum}" if devnum else "every drive")
        raise _NotReleased(f"pts_drive_hold {show(where)}: cannot release the hold of run {run_id}: {exc}") from exc
    if not module.check_mode:
        for devnum_done in {h["devnum"] for h in released["stopped"]} | ({devnum} if devnum else set()):
            try:
                _guard_record.remove(devnum_done, run_id, token)
            except OSError as exc:
                raise _NotReleased(f"pts_drive_hold {show(path or 'device ' + devnum_done)}: the hold of run {run_id} "
                                   f"ended, but its guard record could not be removed: {exc}") from exc
    result = dict(released, device=path, devnum=devnum, run_id=run_id)
    result["removed"] = [{k: e[k] for k in ("lock", "devnum", "run_id", "pid", "why")} for e in released["removed"]]
    return {"changed": bool(released["stopped"] or released["removed"]), "pts_drive_hold": result,
            "pts_guard_record": _without_hold(expect)}


def _absent(module: AnsibleModule, path: str | None, run_id: str, token: str, expect: dict) -> None:
    try:
        module.exit_json(**_release(module, path, run_id, token, expect))
    except _NotReleased as exc:
        module.fail_json(msg=str(exc))


def _each_target(record: dict) -> tuple[str | None, str | None, str | None]:
    """A record's device node, device number and, where it names no device or no holder of it, why it is left."""
    path = record.get("resolved") if isinstance(record.get("resolved"), str) and record.get("resolved") else None
    hold = record.get("hold") if isinstance(record.get("hold"), dict) else {}
    devnum = _device_of(path, record)
    if not isinstance(devnum, str) or not _DEVNUM_RE.match(devnum):
        return path, None, "the record names no device"
    if not isinstance(hold.get("pid"), int) or isinstance(hold.get("pid"), bool):
        return path, devnum, "the record names no holder"
    return path, devnum, None


def _absent_each(module: AnsibleModule, records: list, run_id: str, token: str) -> None:
    """Each record's hold released as _absent with the record as O(expect) and its C(resolved) as O(path), in one
    call for all the drives of the host. A record that names no device or no holder releases nothing (never every
    hold of the run); every other is tried, and the module fails after, naming those that failed."""
    entries, kept, failed = [], [], []
    result: dict = {"run_id": run_id, "stopped": [], "removed": [], "others": []}
    changed = False
    for record in records:
        path, devnum, why = _each_target(record)
        if why is None:
            try:
                done = _release(module, path, run_id, token, record, devnum)
            except _NotReleased as exc:
                why = str(exc)
                failed.append(why)
            else:
                changed = changed or done["changed"]
                for key in ("stopped", "removed", "others"):
                    result[key].extend(done["pts_drive_hold"][key])
                kept.append(done["pts_guard_record"])
        if why is not None:
            kept.append(record)
        entries.append({"device": path, "devnum": devnum, "released": why is None, "why": why})
    result["records"] = entries
    outcome = {"changed": changed, "pts_drive_hold": result, "pts_guard_records": kept}
    if failed:
        module.fail_json(msg="; ".join(failed), **outcome)
    module.exit_json(**outcome)


def _without_hold(expect: dict) -> dict:
    return {k: v for k, v in expect.items() if k != "hold"}


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path"),
            run_id=dict(type="str", required=True),
            run_token=dict(type="str", default="", no_log=True),
            state=dict(type="str", choices=["present", "absent"], default="present"),
            expect=dict(type="dict", default={}),
            records=dict(type="list", elements="dict"),
            timeout=dict(type="float", default=15),
        ),
        required_if=[("state", "present", ["path"])],
        mutually_exclusive=[("records", "path"), ("records", "expect")],
        supports_check_mode=True,
    )
    try:
        run_id = valid_run_id("run_id", module.params["run_id"])
    except PlanError as exc:
        module.fail_json(msg=f"pts_drive_hold: {exc}")
    if module.params["timeout"] <= 0:
        module.fail_json(msg=f"pts_drive_hold: timeout={module.params['timeout']}: must be a positive number of seconds")
    if os.geteuid() != 0:
        module.fail_json(msg="pts_drive_hold: needs root (an exclusive open of a block device, a lock file in /run)")
    records = module.params["records"]
    # The holds this call acts on carry their own token, or there are none (an empty list of records).
    holds = [r.get("hold") for r in records] if records is not None else [module.params["expect"].get("hold")]
    tokened = all(isinstance(h, dict) and h.get("token") for h in holds)
    # Under --check nothing is held or released, and a run that has not started has no token yet: nothing to warn of.
    if not module.params["run_token"] and not tokened and not module.check_mode:
        module.warn(f"pts_drive_hold: run {run_id} has no run_token, so another run that chose the same run id would "
                    "count as this one (take over or release this hold); playbooks/pts.yml passes the token "
                    "pts_run_lock keeps in the run's results directory")
    if module.params["state"] == "present":
        _present(module, module.params["path"], run_id, module.params["run_token"] or "", module.params["expect"])
    if records is not None:
        _absent_each(module, records, run_id, module.params["run_token"] or "")
    _absent(module, module.params["path"], run_id, module.params["run_token"] or "", module.params["expect"])


if __name__ == "__main__":
    main()
