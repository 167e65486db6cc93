# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a run says at its start (_run_steps): a test operator's or auditor's name that Ansible's key=value parsing cut
is named, with a form of -e that Ansible reads whole."""

from __future__ import annotations

from ansible.parsing.splitter import parse_kv

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _run_steps

OP = "pts_report_operator"


def test_a_cut_name_is_said_at_the_runs_start_with_a_form_that_works():
    warnings = _run_steps.cut_names({"extra_vars": ["pts_report_operator=J. Doe", "pts_report_auditor=ACME-QA"]})
    assert warnings == ["pts_report_operator was given without quotes around the name: ansible-playbook read 'J.' and "
                        "left 'Doe' out; give it as -e 'pts_report_operator=\"J. Doe\"' (or -e "
                        "'{\"pts_report_operator\": \"J. Doe\"}'); the report records 'J. Doe'"]
    # The form it gives is one Ansible reads whole.
    assert parse_kv('pts_report_operator="J. Doe"')[OP] == "J. Doe"
    assert _run_steps.cut_names({"extra_vars": ['pts_report_operator="J. Doe"']}) == []
    assert _run_steps.cut_names(None) == []
