#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_release
short_description: Free the drives a PTS run holds on a host - its fio stopped, its holds released
version_added: 2.0.0
description:
  - For a run that will not go on - a cancelled AWX job, a controller that died, a run nobody will resume - stops,
    on the host, every process of the run that writes or may write, and nothing else - each fio server of the run
    (named by its root-only pidfile in one of the run's job directories under O(remote_dir), with the run id and
    token, and proved to be that very process by its start time and working directory) and everything in its session
    (the fio it started) - then releases the run's drive holds (see M(fleetqual.pts.pts_drive_hold)), removes their
    lock files and the guard's records of the drives. An administrator's shell in a job directory is never stopped.
  - Works from the host alone, so it frees the drives even when the run's results directory (and its run token) is
    gone - with O(run_token), only that run of the run id; without, every run of the run id on the host.
  - Holders and processes of other runs are left alone. Returns which drives it freed and what it stopped.
  - A resume of the run (the same run id) takes over its holds instead; release only what is not to be resumed.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
attributes:
  check_mode:
    support: full
    details: In check mode nothing is stopped or released; the result says what would be.
  diff_mode:
    support: none
options:
  run_id:
    description: The run to release (C(pts_run_id)); one directory name of C([A-Za-z0-9._-]).
    type: str
    required: true
  run_token:
    description:
      - The run token (C(.pts-run-token) in the run's results directory, C(pts_run_token)); releases only that run of
        the run id. Empty - every run of the run id on the host (its results directory may be gone).
    type: str
    default: ""
  remote_dir:
    description: The run's directory on the host (C(pts_run_remote_dir)).
    type: path
    default: /var/lib/fleetqual-pts
  holds:
    description:
      - V(true) releases the run's drive holds too; V(false) stops only its processes - what a resume of the run does
        before its guard, so that a fio a cancelled run left running is not taken for another user of the drive.
    type: bool
    default: true
  timeout:
    description: Seconds a process or holder has to end after SIGTERM before it is killed.
    type: float
    default: 15
seealso:
  - module: fleetqual.pts.pts_drive_hold
"""

EXAMPLES = r"""
- name: Free the drives of a cancelled run
  fleetqual.pts.pts_release:
    run_id: 20261126T071500Z-awx4711
  register: released

- name: Say which drives were freed
  ansible.builtin.debug:
    msg: "{{ released.pts_release.freed }}"
"""

RETURN = r"""
pts_release:
  description: What was stopped and released on the host.
  returned: always
  type: dict
  contains:
    freed:
      description: The drives whose holds of the run were released, each with C(device), C(devnum), C(run_id), C(pid).
      type: list
      elements: dict
    stopped:
      description: The run's processes stopped (fio and its wrappers, fio servers), each with C(pid), C(command), C(why).
      type: list
      elements: dict
    others:
      description: Holders of other runs, left alone.
      type: list
      elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _guard_record, _hold
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _run_io
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, run_id as valid_run_id


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            run_id=dict(type="str", required=True),
            run_token=dict(type="str", default="", no_log=True),
            remote_dir=dict(type="path", default="/var/lib/fleetqual-pts"),
            holds=dict(type="bool", default=True),
            timeout=dict(type="float", default=15),
        ),
        supports_check_mode=True,
    )
    try:
        run_id = valid_run_id("run_id", module.params["run_id"])
    except PlanError as exc:
        module.fail_json(msg=f"pts_release: {exc}")
    token = module.params["run_token"] or ""
    if module.params["timeout"] <= 0:
        module.fail_json(msg=f"pts_release: timeout={module.params['timeout']}: must be a positive number of seconds")
    found = _run_io.processes(_run_io.run_dirs(module.params["remote_dir"], run_id, token), run_id=run_id, token=token)

    def ours(holder: dict) -> bool:
        return holder.get("run_id") == run_id and (not token or holder.get("token") == token)

    holders = [h for h in _hold.holder_processes() if ours(h)] if module.params["holds"] else []
    others = [{k: h.get(k) for k in ("pid", "devnum", "run_id")} for h in _hold.holder_processes() if not ours(h)]
    freed = [{"device": h.get("device"), "devnum": h.get("devnum"), "run_id": h.get("run_id"), "pid": h.get("pid")}
             for h in holders]
    if module.check_mode:
        module.exit_json(changed=bool(found or holders), pts_release={"freed": freed, "stopped": found, "others": others},
                         msg=f"check mode: would stop {len(found)} process(es) and free {len(freed)} drive(s)")
    # The writers first: a drive is freed only once nothing of the run writes to it any more.
    stopped = _run_io.stop(found, timeout=module.params["timeout"])
    left = [e for e in found if e not in stopped]
    if left:
        ended_not = "; ".join(f"{e['pid']} ({e['command']})" for e in left)
        module.fail_json(msg=f"pts_release: {len(left)} process(es) of run {run_id} did not end: {ended_not}",
                         pts_release={"freed": [], "stopped": stopped, "others": others})
    try:
        for holder in holders:
            _hold.release(run_id, holder.get("devnum"), holder.get("pid"), timeout=module.params["timeout"],
                          token=holder.get("token") or "")
    except (_hold.HoldError, OSError) as exc:
        module.fail_json(msg=f"pts_release: cannot release a hold of run {run_id}: {exc}",
                         pts_release={"freed": [], "stopped": stopped, "others": others})
    if module.params["holds"]:
        _guard_record.remove_run(run_id, token)
    named = "".join(f"; {f['device']} ({f['devnum']})" for f in freed)
    module.exit_json(changed=bool(stopped or freed), pts_release={"freed": freed, "stopped": stopped, "others": others},
                     msg=f"run {run_id}: stopped {len(stopped)} process(es), freed {len(freed)} drive(s){named}")


if __name__ == "__main__":
    main()
