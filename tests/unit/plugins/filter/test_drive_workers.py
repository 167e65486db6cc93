# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drive_workers filter (fleetqual.pts.drive_workers): hosts that are not a list refused, and its example's
add_host task setting every variable a drive's worker gets."""

from __future__ import annotations

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.fleetqual.pts.plugins.filter import drive_workers
from ansible_collections.fleetqual.pts.plugins.plugin_utils._workers import workers
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._worker_hostvars import HOSTVARS


def test_the_filter_refuses_hosts_that_are_not_a_list():
    with pytest.raises(AnsibleFilterError, match="drive_workers: hosts must be a list, not str"):
        drive_workers.drive_workers(HOSTVARS, "h1")


def test_the_filters_example_sets_every_variable_a_worker_gets():
    (task,) = yaml.safe_load(drive_workers.EXAMPLES)
    given = {key for key in task["ansible.builtin.add_host"] if key not in ("name", "groups")}
    assert given == set(workers(HOSTVARS, ["h1"])[0]["vars"])
