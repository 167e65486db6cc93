# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_run_lock
short_description: Lock one host's part of a PTS run's results for this ansible-playbook
version_added: 3.0.0
description:
  - Takes the lock of O(host) in the run's results directory (C(.pts-host-<host>.lock)) for the C(ansible-playbook)
    process running the task, so a second live run of the same run id and host refuses before anything, naming the
    first's PID and controller. Job slices that share a run id and results tree each lock their own hosts.
  - A lock whose process has ended (or whose PID now belongs to another process) is taken over with a warning; the new
    owner removes the temporary files of result writes killed in an earlier attempt of the run, and says so. The host's
    C(host-failure.json) of an earlier attempt is moved aside (C(.earlier)).
  - Refuses, before anything is written, a run directory that is a symbolic link (or not a directory), a run id that is
    not one directory name, and two hosts of the play whose inventory names make one results directory (naming both).
  - Under C(--check), judges the lock and takes none.
  - With O(state=absent), releases the lock if this C(ansible-playbook) holds it (a host whose part of the run ends
    before the judge, which releases the rest); under C(--check) it does nothing.
  - Without a run id (the role run outside a run, no C(pts_run_id)) there is nothing to lock and it does nothing.
  - Runs on the controller only.
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._attributes.ACTION
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  run_id:
    description:
      - The run id (the C(pts_run_id) variable); defaults to the C(PTS_RUN_ID) environment variable.
    type: str
  results_dir:
    description:
      - Root of the results tree (the directory of the C(pts_run_dir) fact); defaults to the C(PTS_RESULTS_DIR)
        environment variable, else C(results).
    type: path
  host:
    description:
      - The inventory name of the host whose part is locked.
      - Without it, the whole run is locked (C(.pts-run.lock)) for this C(ansible-playbook), as a run outside
        P(fleetqual.pts.pts_run#role)'s entry points may want.
    type: str
  state:
    description:
      - V(present) takes the lock, V(absent) releases it if this C(ansible-playbook) holds it (changed when it did).
    type: str
    choices: [present, absent]
    default: present
seealso:
  - module: fleetqual.pts.pts_run_start
  - module: fleetqual.pts.pts_release
"""

EXAMPLES = r"""
- name: Lock this host's part of the run's results
  fleetqual.pts.pts_run_lock:
    run_id: "{{ pts_run_id }}"
    results_dir: "{{ pts_run_dir | dirname }}"
    host: "{{ inventory_hostname }}"
  register: locked
"""

RETURN = r"""
pts_run_token:
  description:
    - The run's token, kept in the run's results directory (C(.pts-run-token)), created with it. The drive holders
      carry it beside the run id (O(fleetqual.pts.pts_drive_hold#module:run_token)), so another run that chose the
      same run id never takes over or releases this run's holds. Null under C(--check) before the run directory
      exists, and without a run id.
    - Since 3.0.0 the result is registered whole but shown censored (C(_ansible_no_log)) - no event of the job (AWX stores
      them all) carries the token.
  returned: success
  type: str
pts_run_concurrent:
  description: The other live C(ansible-playbook) processes of the run (job slices sharing it), each described.
  returned: success
  type: list
  elements: str
pts_run_lock_note:
  description: What the lock did when it was not simply taken (a stale lock taken over).
  returned: when a stale lock was found
  type: str
pts_run_leftovers_removed:
  description: The temporary files of writes killed in an earlier attempt of the run, removed.
  returned: when there were some
  type: list
  elements: str
"""
