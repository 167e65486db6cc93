#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_purge
short_description: Purge a drive before a PTS test with the strongest method it supports, and record it
version_added: 1.0.0
description:
  - Returns the drive to a fresh-out-of-box state as the SNIA PTS asks before preconditioning, and
    reports which method ran so the report can state it.
  - V(auto) picks the strongest method the drive reports - NVMe sanitize (crypto, block), NVMe format with
    cryptographic erase, ATA enhanced security erase, ATA security erase, sanitize overwrite, NVMe format
    with user data erase, SCSI FORMAT UNIT - and falls back to C(discard) (C(blkdiscard) over the whole
    device), which is B(not a secure purge); the result says so. Loop devices and devices without a secure
    method get C(discard).
  - The purge is verified to have finished (exit status, the sanitize log until it completes, ATA security
    disabled again); a purge that fails or cannot finish fails the task, so a test never runs unpurged.
  - Refuses unless O(allow_destroy=true), and when the device is no longer the one the guard passed. Run it
    only on drives that M(fleetqual.pts.pts_guard) passed.
  - An ATA security erase sets a new random user password for each erase, kept only in a root-only file
    (C(0600) in a C(0700) directory) under O(remote_dir)C(/ata-security/), and removed once the erase is verified.
    When the erase fails, security is disabled again if the drive allows it; otherwise the message gives the
    commands that unlock the drive with that file. The password itself is never in a message or a result.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._filing
attributes:
  check_mode:
    support: full
    details: In check mode only the chosen method is returned.
  diff_mode:
    support: none
options:
  path:
    description: The block device to purge.
    type: path
    required: true
  method:
    description:
      - The purge method. V(auto) picks the strongest the drive supports; a named method the drive does not
        support fails.
    type: str
    choices: [auto, ata_sanitize_block, ata_sanitize_crypto, ata_sanitize_overwrite, ata_security_erase,
              ata_security_erase_enhanced, discard, nvme_format_crypto, nvme_format_erase,
              nvme_sanitize_block, nvme_sanitize_crypto, nvme_sanitize_overwrite, scsi_format_unit,
              scsi_sanitize_block, scsi_sanitize_crypto, scsi_sanitize_overwrite]
    default: auto
  allow_destroy:
    description:
      - Must be V(true), a YAML boolean; purging destroys every byte on the device. A string (even V("true"),
        V("yes") or V("on")) is refused, the same rule the run's validation applies to C(pts_allow_destroy).
    type: raw
    default: false
  remote_dir:
    description: The run's directory on the host (C(pts_run_remote_dir)); ATA security erase keeps its password there.
    type: path
    default: /var/lib/fleetqual-pts
  expect:
    description:
      - The guard's record of the device in this run (an entry of C(pts_guard_passed)); without one the purge is
        refused. Its identity the device must still report right before the purge - C(devnum) (major:minor),
        C(serial), C(wwn); the purge is also refused if the device is by then mounted, held, swap or open by a process.
      - With the run's C(hold) (see M(fleetqual.pts.pts_drive_hold)), its holder must still be alive, this run's and
        holding the device; C(discard) then runs C(blkdiscard --force), since plain C(blkdiscard) opens the device
        exclusively and would fail on the run's own hold.
    type: dict
    required: true
  timeout:
    description: Seconds a sanitize may run inside the drive before the purge is failed.
    type: int
    default: 86400
  context:
    description: Labels returned unchanged as RV(pts_context); in a run the action plugin files the result under them.
    type: dict
    default: {}
requirements:
  - util-linux (blkdiscard), nvme-cli, hdparm or sg3-utils for the drive's own methods
"""

EXAMPLES = r"""
- name: Purge the drive before the IOPS test
  fleetqual.pts.pts_purge:
    path: /dev/loop0
    allow_destroy: true
"""

RETURN = r"""
pts_purge:
  description: What was done.
  returned: always
  type: dict
  contains:
    method:
      description: The method used.
      type: str
      sample: nvme_format_erase
    supported:
      description: Every purge method the drive reports, strongest first.
      type: list
      elements: str
    secure:
      description: Whether the method is a secure purge in the PTS sense.
      type: bool
    note:
      description: Text for the report.
      type: str
    elapsed_s:
      description: Wall time of the purge in seconds.
      type: float
pts_context:
  description: The O(context) given, unchanged.
  returned: always
  type: dict
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _signatures
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._guard import recheck
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._probe import probe
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_actions import (
    ata_frozen_reason,
    ata_password_file,
    ata_security_erase,
    new_ata_password,
    purge_commands,
    purge_record,
    tool_facts,
    wait_for_sanitize,
)
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, boolean
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_tools import PURGE_METHODS


def _chosen_method(method: str, facts: dict, fail) -> str:
    """The purge method asked for (``auto``: the drive's first), if the drive supports it and is not frozen."""
    supported = facts["purge_methods"]
    if method == "auto":
        if not supported:
            fail("the drive supports no purge method (no secure erase, no discard); the test must not go on")
        method = supported[0]
    elif method not in supported:
        fail(f"the drive does not support {method} (it supports: {', '.join(supported) or 'none'})")
    if method.startswith("ata_security") and ata_frozen_reason(facts):
        fail(f"refused {method}: {ata_frozen_reason(facts)}; nothing was written")
    return method


def _settle(method: str, info: dict, run, which, timeout: int) -> str | None:
    """Waits for what a purge leaves running: an NVMe sanitize to end (its error, if any), a formatted namespace's
    device node to come back."""
    error = None
    if "sanitize" in method and method.startswith("nvme"):
        error = wait_for_sanitize(info, run, which, timeout=timeout)
    if method.startswith("nvme_format"):
        # The kernel rescans the namespace after a format; wait for its node before the next write.
        deadline = time.monotonic() + 30
        while not os.path.exists(info["resolved"]) and time.monotonic() < deadline:
            time.sleep(0.5)
    return error


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            method=dict(type="str", choices=["auto"] + sorted(PURGE_METHODS), default="auto"),
            allow_destroy=dict(type="raw", default=False),
            remote_dir=dict(type="path", default="/var/lib/fleetqual-pts"),
            expect=dict(type="dict", required=True),
            timeout=dict(type="int", default=86400),
            context=dict(type="dict", default={}),
            run_dir=dict(type="path"),  # the action plugin's: where it files the result
        ),
        supports_check_mode=True,
    )
    path = module.params["path"]
    context = module.params["context"]

    def fail(msg: str, **extra) -> None:
        module.fail_json(msg=f"pts_purge {path}: {msg}", pts_context=context, **extra)

    try:
        allowed = boolean("allow_destroy (pts_allow_destroy)", module.params["allow_destroy"])
    except PlanError as exc:
        fail(f"refused, {exc}; nothing was written")
    if not allowed:
        fail("refused, allow_destroy (pts_allow_destroy) is not true; nothing was written")
    info = probe(path, check_exclusive=False)
    if not info["is_block"]:
        fail("refused, not a block device; nothing was written")
    reasons = recheck(path, module.params["expect"],
                      signatures=lambda found: _signatures.read(found, module.run_command, module.get_bin_path("wipefs")))
    if reasons:
        fail(f"refused, nothing was written: {'; '.join(reasons)}")
    # recheck() has just proved this run's holder alive and holding the device (the guard's record on the host).
    held = True

    def run(argv):
        return module.run_command(argv)

    def which(name):
        return module.get_bin_path(name)

    facts = tool_facts(info, run, which)
    supported = facts["purge_methods"]
    method = _chosen_method(module.params["method"], facts, fail)

    result = dict(purge_record(method), supported=supported, device=info["resolved"])
    if module.check_mode:
        module.exit_json(changed=False, pts_purge=result, pts_context=context)

    started = time.monotonic()
    error = None
    if method.startswith("ata_security"):
        password = new_ata_password()
        module.no_log_values.add(password)  # belt and braces: no result or log line can carry it
        error, dummy = ata_security_erase(method, info, run, which, ata_password_file(module.params["remote_dir"], info),
                                          facts.get("ata_security"), password)
    else:
        for argv in purge_commands(method, info, which, held=held):
            if None in argv:
                fail(f"{method} needs a tool that is not installed: {argv}")
            rc, stdout, stderr = module.run_command(argv)
            if rc != 0:
                fail(f"{' '.join(argv)} failed (rc {rc}): {(stderr or stdout).strip()[:500]}; the test must not go on",
                     pts_purge=result)
    error = _settle(method, info, run, which, module.params["timeout"]) or error
    result["elapsed_s"] = round(time.monotonic() - started, 3)
    if error:
        fail(f"{method} did not finish: {error}; the test must not go on", pts_purge=result)
    module.exit_json(changed=True, pts_purge=result, pts_context=context)


if __name__ == "__main__":
    main()
