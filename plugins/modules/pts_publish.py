#!/usr/bin/python
# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_publish
short_description: Put a packed PTS run in place on a results host, into directories only root controls
version_added: 3.0.0
description:
  - Runs on a results host of C(pts_run_publish) (the C(fleetqual.pts.pts_run) role's publish step calls it), unpacks
    the run packed on the controller and puts it at O(dest)/O(run_id).
  - O(dest) and every level above it are walked from C(/) by directory file descriptors and must be directories - no
    symbolic link - owned by root or the user the module runs as, and writable by nobody else (group 0 may write; a
    sticky world-writable level such as C(/tmp) only above O(dest)). A missing level is made (0755). A level that fails
    is named with why (its owner, its mode, a link), and a level that cannot be made with mkdir's own error (a
    read-only file system, permission denied).
  - The run is unpacked into a 0700 directory of its own under O(dest), C(.<run id>.incoming.<random>), every file made
    with C(O_EXCL | O_NOFOLLOW) relative to its directory; the archive may hold directories and regular files only (a
    symbolic or hard link, a device or a FIFO is refused, naming it).
  - The copy is renamed into place by the directories' descriptors, which never follows the name replaced. An
    earlier copy of the same run (the same C(.pts-run-token)) is replaced; a copy of another attempt of the run id, or
    anything else found at O(dest)/O(run_id) (a link included), is kept as C(<run id>.superseded-<UTC time>-<pid>),
    never merged and never followed. Nothing of the incoming directory is left behind.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
attributes:
  check_mode:
    support: none
  diff_mode:
    support: none
options:
  archive:
    description:
      - The packed run on the results host (a gzipped tar of O(run_id)/), as the role's publish step copies it there - a
        regular file, in directories only root or this user can change.
    type: path
    required: true
  dest:
    description: The directory on the results host that keeps the runs; the run lands in O(dest)/O(run_id).
    type: path
    required: true
  run_id:
    description: The run (its directory name); one directory name of C([A-Za-z0-9._-]).
    type: str
    required: true
seealso:
  - module: fleetqual.pts.fleet_summary
"""

EXAMPLES = r"""
- name: Put the packed run in place on the results host
  fleetqual.pts.pts_publish:
    archive: /tmp/pts-publish.x1y2/20261126T071500Z-awx4711.tar.gz
    dest: /srv/pts-results
    run_id: 20261126T071500Z-awx4711
  delegate_to: results01
"""

RETURN = r"""
pts_published:
  description: Where the run landed.
  returned: success
  type: dict
  contains:
    path:
      description: O(dest)/O(run_id).
      type: str
    files:
      description: How many files were unpacked.
      type: int
    kept_aside:
      description: Where what was at the run's place before was kept (another attempt of the run id), or null.
      type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fleetqual.pts.plugins.module_utils import _publish
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._inputs import PlanError, run_id as valid_run_id


def main() -> None:
    module = AnsibleModule(
        argument_spec=dict(
            archive=dict(type="path", required=True),
            dest=dict(type="path", required=True),
            run_id=dict(type="str", required=True),
        ),
        supports_check_mode=False,
    )
    try:
        run_id = valid_run_id("run_id", module.params["run_id"])
    except PlanError as exc:
        module.fail_json(msg=f"pts_publish: {exc}")
    dest = module.params["dest"]
    where = f"{dest.rstrip('/')}/{run_id}"
    if not dest.startswith("/"):
        module.fail_json(msg=f"pts_publish: dest={dest!r}: must be an absolute path")
    try:
        published = _publish.publish(module.params["archive"], dest, run_id)
    except _publish.PublishError as exc:
        module.fail_json(msg=f"the run was not published to {where}: {exc}", pts_publish_failure=str(exc))
    kept = f"; kept the copy of another attempt as {published['kept_aside']}" if published["kept_aside"] else ""
    module.exit_json(changed=True, pts_published=published,
                     msg=f"published {published['files']} file(s) to {published['path']}{kept}")


if __name__ == "__main__":
    main()
