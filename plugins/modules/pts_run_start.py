# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_run_start
short_description: Fix a PTS run's id and results directory, once for every host
version_added: 3.0.0
description:
  - The first step of a run, once, before any host - the run's id is O(run_id) (the P(fleetqual.pts.pts_run#role) role
    passes the C(pts_run_id) variable, C(-e) or the inventory), else the C(PTS_RUN_ID) environment variable, else a new
    one no other run takes (the UTC time now and AWX's job id, C(YYYYMMDDTHHMMSSZ-awx<id>), or a
    random suffix outside AWX). A job of an AWX workflow (a sliced job's slices) takes C(awx-wf<workflow job id>),
    which its slices share and every launch renews.
  - Refuses a run id that is not one directory name - letters, digits, C(.), C(_) and C(-), at most 128, starting and
    ending with a letter or digit, no control character or trailing newline - naming where it was set.
  - The results root is O(results_dir) (the role passes the C(pts_results_dir) variable), else the C(PTS_RESULTS_DIR)
    environment variable, else C(results) in the directory C(ansible-playbook) runs in, made absolute here. Nothing
    is read from the P(fleetqual.pts.pts_report#callback) callback's configuration (since 3.0.0).
  - Refused before anything is written (since 3.0.0) - under ansible-runner (AWX), a results root inside the job's
    private data directory (deleted when the job ends) when C(pts_publish) names no results host or bucket and
    C(pts_results_ephemeral) is not V(true); a run id fixed by the operator, or the workflow's default id, whose run was
    already judged for the play's hosts (its C(fleet.json)), unless C(pts_resume) is V(true); a play whose hosts are all
    results hosts; a C(pts_publish) entry or a C(pts_after_run) file that is not what it must be, naming it.
  - Each input is an option the role passes (since 3.0.0); only what Ansible and AWX set - the AWX job ids, the play's
    hosts, C(hostvars), C(playbook_dir) - is read from the task's variables.
  - "Prints C(PTS run <id>: results in <dir>) (and where it is published) before anything is written, and writes
    nothing."
  - Runs on the controller only. The P(fleetqual.pts.pts_run#role) role's first task.
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
      - The run's id as the operator set it (the C(pts_run_id) variable); an error names it C(pts_run_id).
      - Unset or empty - the C(PTS_RUN_ID) environment variable, else a new run id.
    type: raw
  results_dir:
    description:
      - The root of the results tree as the operator set it (the C(pts_results_dir) variable); an error names it
        C(pts_results_dir). A relative path is taken from the directory C(ansible-playbook) runs in.
      - Unset or empty - the C(PTS_RESULTS_DIR) environment variable, else C(results).
    type: raw
  publish:
    description:
      - 'Where the finished run is copied after the judge (the C(pts_run_publish) variable, by default C(pts_publish)) -
        a list of C({host, dest[, connection]}) results hosts over SSH and C({s3: {bucket, prefix, endpoint_url,
        region}}) buckets. An entry that is not one is refused, naming it.'
      - Unset or empty - the run is published nowhere.
    type: raw
    version_added: 3.0.0
  results_ephemeral:
    description:
      - The C(pts_results_ephemeral) variable - V(true) runs under ansible-runner (AWX) with a results root inside the
        job's private data directory and nothing in O(publish), results that are lost when the job ends. A YAML
        boolean; a string is refused.
      - Unset - V(false).
    type: raw
    version_added: 3.0.0
  resume:
    description:
      - The C(pts_resume) variable - V(true) lets a run id fixed by the operator (or the workflow's default id) whose
        run was already judged for the play's hosts run again, resuming it. A YAML boolean; a string is refused.
      - Unset - V(false).
    type: raw
    version_added: 3.0.0
  after_run:
    description:
      - The C(pts_after_run) variable - the operator's task file run after the judge, a path relative to the
        directory of the playbook C(ansible-playbook) was given, without C(..); returned absolute as
        RV(pts_run_after_run).
      - Unset or empty - none.
    type: raw
    version_added: 3.0.0
seealso:
  - module: fleetqual.pts.pts_run_lock
  - module: fleetqual.pts.pts_plan
"""

EXAMPLES = r"""
- name: Fix this run's id and results directory
  fleetqual.pts.pts_run_start:
    run_id: "{{ pts_run_id | default(omit) }}"
    results_dir: "{{ pts_results_dir | default(omit) }}"
    publish: "{{ pts_publish | default(omit) }}"
    resume: "{{ pts_resume | default(omit) }}"
  run_once: true
  register: fixed

- name: Give every host the run's id and results directory
  ansible.builtin.set_fact:
    pts_run_id: "{{ fixed.pts_run_id }}"
    pts_run_dir: "{{ fixed.pts_run_dir }}"
"""

RETURN = r"""
pts_run_id:
  description: The run's id.
  returned: success
  type: str
  sample: 20261126T083300Z-awx4711
pts_run_dir:
  description: The run's results directory, absolute (the results root and the run id).
  returned: success
  type: str
  sample: /srv/pts-results/20261126T083300Z-awx4711
pts_results:
  description: Every place the run will be after the job - the run directory when it outlives the job, then each
    publish target's location.
  returned: success
  type: list
  elements: str
  version_added: 3.0.0
  sample: [results01:/srv/pts-results/20261126T083300Z-awx4711, s3://pts-results/fleet/20261126T083300Z-awx4711/]
pts_results_kept:
  description: Whether the run directory outlives the job (it is not inside an ansible-runner job's private data
    directory).
  returned: success
  type: bool
  version_added: 3.0.0
pts_run_publish_name:
  description: The name the run is published under - the run id, or C(<run id>-job<AWX job id>) for a job that took
    its AWX workflow's default run id.
  returned: success
  type: str
  version_added: 3.0.0
pts_run_results_hosts:
  description: The results hosts of C(pts_publish), never drive hosts of the run.
  returned: success
  type: list
  elements: str
  version_added: 3.0.0
pts_run_publish_targets:
  description: The C(pts_publish) entries, checked - each C(kind) V(ssh) (C(host), C(dest), C(connection)) or V(s3)
    (C(bucket), C(prefix), C(endpoint_url), C(region)).
  returned: success
  type: list
  elements: dict
  version_added: 3.0.0
pts_run_after_run:
  description: The C(pts_after_run) task file, absolute, or null.
  returned: success
  type: str
  version_added: 3.0.0
"""
