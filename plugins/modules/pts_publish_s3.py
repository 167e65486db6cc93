# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

DOCUMENTATION = r"""
module: pts_publish_s3
short_description: Upload a finished PTS run to an S3-compatible bucket
version_added: 3.0.0
description:
  - Uploads every file of the run directory O(run_dir) on the controller under C(<prefix>/<name>/) of O(bucket), with
    the rules of an SSH results host (M(fleetqual.pts.pts_publish)) - an earlier copy of the same run (its
    C(.pts-run-token) object is this run's token) is replaced, the objects the run no longer has removed; a copy of
    another attempt of the run id (another token, or objects without one) is moved whole to
    C(<prefix>/<name>.superseded-<UTC time>-<pid>/), never merged with this run. The token is uploaded last.
  - The run directory is read by directory fds without following a link; a link, FIFO or device in it is refused,
    naming it, before anything is uploaded.
  - Credentials come from boto3's own chain - C(AWS_ACCESS_KEY_ID) and C(AWS_SECRET_ACCESS_KEY) (and
    C(AWS_SESSION_TOKEN)) in the environment, which an AWX credential of type I(Amazon Web Services) injects, a profile,
    an instance role - and are never taken as an option, returned or printed.
  - A failure is returned as C(failed) with RV(pts_publish_s3_error), a run error for the fleet summary; the pts_run
    role's judge counts it, so the run fails naming the bucket and the reason.
  - Runs on the controller only. The P(fleetqual.pts.pts_run#role) role's judge calls it for each C(s3) entry of
    C(pts_publish).
requirements:
  - boto3 (on the controller, in the execution environment)
author:
  - fleetqual.pts contributors (@fleetqual)
extends_documentation_fragment:
  - fleetqual.pts._attributes
  - fleetqual.pts._attributes.ACTION
attributes:
  check_mode:
    support: none
  diff_mode:
    support: none
options:
  run_dir:
    description: The run directory on the controller.
    type: path
    required: true
  name:
    description: The name the run is published under (its run id), one directory name.
    type: str
    required: true
  bucket:
    description: The bucket (3 to 63 of C(a-z), C(0-9), C(.), C(-)).
    type: str
    required: true
  prefix:
    description: The key prefix the runs go under (no leading C(/), no C(.) or C(..) parts); empty for the bucket's top.
    type: str
    default: ""
  endpoint_url:
    description: The S3-compatible server (C(http://) or C(https://)); unset for AWS S3. Path-style addressing is used
      when it is set.
    type: str
  region:
    description: The region (boto3's default when unset).
    type: str
seealso:
  - module: fleetqual.pts.pts_publish
"""

EXAMPLES = r"""
- name: Upload the run to the lab's bucket
  fleetqual.pts.pts_publish_s3:
    run_dir: "{{ pts_run_dir }}"
    name: "{{ pts_run_id }}"
    bucket: pts-results
    prefix: fleet/rack12
    endpoint_url: https://s3.lab.example.com
  delegate_to: localhost
"""

RETURN = r"""
pts_publish_s3:
  description: Where the run was uploaded.
  returned: success
  type: dict
  contains:
    location:
      description: C(s3://<bucket>/<prefix>/<name>/).
      type: str
    files:
      description: The number of files uploaded.
      type: int
    bytes:
      description: Their size.
      type: int
    replaced:
      description: Whether an earlier copy of the same run was replaced.
      type: bool
    kept_aside:
      description: Where a copy of another attempt of the run id was moved (C(s3://...superseded-.../)), else null.
      type: str
pts_publish_s3_error:
  description: The run error of a failed upload - C(host) (the bucket's location), C(task) and C(msg).
  returned: failure
  type: dict
"""
