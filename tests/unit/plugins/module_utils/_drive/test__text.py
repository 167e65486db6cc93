# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Names that display as they are (module_utils/_drive/_text.py)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text


@pytest.mark.parametrize("text, hidden, shown", [
    ("stor-12-01", False, "stor-12-01"),
    ("Laufwerk ä 日本", False, "Laufwerk ä 日本"),
    ("a\nb", True, "a\\nb"),
    ("bay\u20281", True, "bay\\u20281"),
    ("bay\u20291", True, "bay\\u20291"),
    ("host\u202e10-rots", True, "host\\u202e10-rots"),
    ("x\u2067y", True, "x\\u2067y"),
    ("x\ufeffy", True, "x\\ufeffy"),
    ("x\u00ady", True, "x\\xady"),
    ("x\x85y", True, "x\\x85y"),
])
def test_control_and_format_characters_are_found_and_shown_escaped(text, hidden, shown):
    assert _text.has_control(text) is hidden
    assert _text.show(text) == shown


def test_every_string_of_a_value_is_checked_and_the_variable_named():
    target = {"host": "r1", "dest": "/srv"}
    assert _text.no_format_characters("pts_run_publish[0]", target) is target
    with pytest.raises(ValueError) as caught:
        _text.no_format_characters("pts_acceptance", [{"name": "ok"}, {"name": "evil\u2029rule"}])
    assert str(caught.value).startswith("pts_acceptance[1].name='evil\\u2029rule': contains U+2029 PARAGRAPH "
                                        "SEPARATOR - a control or format character")
