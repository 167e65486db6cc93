# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The test operator and auditor as the command line gave them: whole, whatever form of -e (a name Ansible's
key=value parsing cut, named at the run's start, is test__run_steps.py's)."""

from __future__ import annotations

import pytest
from ansible.parsing.splitter import parse_kv

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _people


@pytest.mark.parametrize("extra_vars, expected", [
    # The argument as ansible-playbook receives it (after the shell).
    pytest.param(["pts_report_operator=J. Doe"], {"operator": ("J. Doe", "J.", True)}, id="shell-took-the-quotes"),
    pytest.param(['pts_report_operator="J. Doe"'], {"operator": ("J. Doe", "J. Doe", False)}, id="quoted-inside"),
    pytest.param(["pts_report_operator='J. Doe' pts_report_auditor=ACME-QA"],
                 {"operator": ("J. Doe", "J. Doe", False), "auditor": ("ACME-QA", "ACME-QA", False)}, id="two-keys"),
    pytest.param(["pts_report_operator=J. Doe pts_report_auditor=QA Team"],
                 {"operator": ("J. Doe", "J.", True), "auditor": ("QA Team", "QA", True)}, id="two-keys-both-cut"),
    pytest.param(['{"pts_report_operator": "J. Doe"}'], {"operator": ("J. Doe", "J. Doe", False)}, id="json"),
    pytest.param(["{pts_report_auditor: ACME QA}"], {"auditor": ("ACME QA", "ACME QA", False)}, id="yaml"),
    pytest.param(["pts_report_operator=Doe", "pts_report_auditor=X"],
                 {"operator": ("Doe", "Doe", False), "auditor": ("X", "X", False)}, id="two-arguments"),
    pytest.param(["pts_demo_device=/dev/loop1 Doe"], {}, id="a-bare-word-of-another-key"),
    pytest.param(["@vars.yml"], {}, id="file-not-read"),
    pytest.param(['pts_report_operator="unterminated'], {}, id="ansible-refuses-it"),
    pytest.param([], {}, id="none"),
])
def test_people_as_given(extra_vars, expected):
    found = _people.given(extra_vars)
    assert {who: (e["name"], e["read"], e["cut"]) for who, e in found.items()} == expected
    # "read" is what Ansible itself reads from a key=value argument.
    for entry in extra_vars:
        if entry and entry[0] not in "{[@" and "unterminated" not in entry:
            ansible = parse_kv(entry)
            for who, (dummy, read, dummy2) in expected.items():
                if _people.PEOPLE[who] in ansible:
                    assert ansible[_people.PEOPLE[who]] == read
