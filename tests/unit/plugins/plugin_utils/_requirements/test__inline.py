# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An inline acceptance rule (_inline.spec) is an anonymous specification: its limits and requirements as requirements
of the rule's name, with the rule's not_judged."""

from __future__ import annotations

import re

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _acceptance
from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _inline


def test_an_inline_rule_is_an_anonymous_specification_of_its_limits_and_requirements():
    rule = {"name": "lab", "model": "ACME*", "firmware": "2.*", "min_iops_4k_write": 90000,
            "max_latency_4k_write_p9999_ms": 2.0, "not_judged": "fail",
            "requirements": [{"id": "RR", "figure": "iops.4k.100/0", "limit": 1}]}
    _acceptance.validate_rules([rule])
    spec = _inline.spec(rule, 3)
    assert (spec["name"], spec["version"], spec["inline"], spec["file"]) == ("lab", "inline", 3, "pts_acceptance[3]")
    assert [(r["id"], r["figure"], r.get("legacy"), r["not_judged"]) for r in spec["requirements"]] == [
        ("min_iops_4k_write", "iops.4k.0/100", "min_iops_4k_write", "fail"),
        ("max_latency_4k_write_p9999_ms", "latency.4k.0/100.write.p99.99", "max_latency_4k_write_p9999_ms", "fail"),
        ("RR", "iops.4k.100/0", None, "fail")]
    with pytest.raises(ValueError, match=re.escape("pts_acceptance[0].requirements[0] (RR).figure='x'")):
        _acceptance.validate_rules([dict(rule, requirements=[{"id": "RR", "figure": "x", "limit": 1}])])
    with pytest.raises(ValueError, match=re.escape("pts_acceptance[0].not_judged='no'")):
        _acceptance.validate_rules([dict(rule, not_judged="no")])
