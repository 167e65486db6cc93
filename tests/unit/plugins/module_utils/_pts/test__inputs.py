# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _inputs


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "nan", "inf", 0, -1, "0", True, None, "x"])
def test_positive_refuses_non_finite_and_non_positive_numbers(value):
    with pytest.raises(_inputs.PlanError, match=r"^pts_run_x=.*: must be a positive number$") as caught:
        _inputs.positive("pts_run_x", value, float)
    assert caught.value.variable == "pts_run_x"


@pytest.mark.parametrize("value, expected", [(1, 1.0), ("2.5", 2.5), ("3", 3.0), (0.01, 0.01), (" 4 ", 4.0),
                                             ("1e3", 1000.0), (".5", 0.5)])
def test_positive_accepts_finite_positive_numbers(value, expected):
    assert _inputs.positive("pts_run_x", value, float) == expected


@pytest.mark.parametrize("value", ["٤", "٣.٥", "１２", "1_000", "+5", "5\n", "0x10", "४", "3.5\u00a0"])
def test_positive_reads_ascii_digits_only(value):
    with pytest.raises(_inputs.PlanError) as caught:
        _inputs.positive("pts_run_x", value, float)
    assert str(caught.value).startswith(f"pts_run_x={value!r}: must be a positive number")
    assert str(caught.value).endswith(" written in ASCII digits (0-9)") == (not value.isascii())


@pytest.mark.parametrize("text, number", [("12", 12), (" 12\t", 12), ("2.50", 2.5), ("1e3", 1000.0), ("5.", 5.0),
                                          ("٤", None), ("", None), ("1 2", None), ("-1", None), ("nan", None),
                                          ("inf", None), ("1_0", None), ("١٢", None)])
def test_number_text(text, number):
    found = _inputs.number_text(text)
    assert found == number and type(found) is type(number)


@pytest.mark.parametrize("value, ok", [
    (0.0001, False), (0.009, False), ("0.001", False), (float("nan"), False), (0.01, True), (0.5, True), (60, True),
])
def test_a_run_time_below_ten_milliseconds_is_refused(value, ok):
    if ok:
        assert _inputs.seconds("pts_run_round_seconds", value) == float(value)
    else:
        with pytest.raises(_inputs.PlanError, match=r"^pts_run_round_seconds="):
            _inputs.seconds("pts_run_round_seconds", value)


@pytest.mark.parametrize("value, expected", [(True, True), (False, False)])
def test_a_yaml_boolean_is_a_boolean(value, expected):
    assert _inputs.boolean("pts_allow_destroy", value) is expected


@pytest.mark.parametrize("value, why", [
    ("on", "not a string: write true or false without quotes"),
    ("true", "not a string"),
    ("yes", "not a string"),
    ("false", "not a string"),
    (1, "must be true or false"),
    (None, "must be true or false"),
])
def test_anything_but_a_yaml_boolean_is_refused_naming_the_variable(value, why):
    with pytest.raises(_inputs.PlanError) as caught:
        _inputs.boolean("pts_allow_destroy", value)
    assert str(caught.value).startswith(f"pts_allow_destroy={value!r}: ") and why in str(caught.value)


@pytest.mark.parametrize("value", ["20261123T101500Z", "rack12-slice1", "a", "it-1", "A.b_c-9", "x" * 128])
def test_good_run_ids(value):
    assert _inputs.run_id("pts_run_id", value) == value


@pytest.mark.parametrize("value", ["/tmp/x", "../../x", "a b", ".", "..", ".hidden", "run_", "_run", "-rf", "a/b",
                                   "a\nb", "", "x" * 129, "ü", 5, None, "run.", "a\\b", "R1nl\n", "R1\r", "R1\t",
                                   "\nR1", "R1\x1b", "R1\x7f", "R1\x85", "R١"])
def test_bad_run_ids_are_refused_naming_the_variable_and_value(value):
    with pytest.raises(_inputs.PlanError) as caught:
        _inputs.run_id("PTS_RUN_ID (environment)", value)
    assert str(caught.value).startswith(f"PTS_RUN_ID (environment)={value!r}: a run id is one directory name")


@pytest.mark.parametrize("value", ["R1nl\n", "R1\r", "\tR1", "R\x001"])
def test_a_run_id_with_a_control_character_is_refused_saying_so(value):
    with pytest.raises(_inputs.PlanError, match="it contains a control character$"):
        _inputs.run_id("pts_run_id", value)


def test_good_device_entries_pass_unchanged():
    listed = [{"path": "/dev/disk/by-id/nvme-X", "name": "bay0", "serial": "S1", "mode": "ssd"},
              {"serial": "S2"}, {"wwn": "0x5000c500a1b2c3d4", "description_file": "/etc/bay2.dsc"},
              {"path": "/dev/loop3", "backing_file": "/srv/img", "raid_controller": "PERC H755", "mode": None}]
    assert _inputs.devices(listed) is listed
    assert _inputs.devices(None) == [] and _inputs.devices("") == []


@pytest.mark.parametrize("listed, message", [
    ([{"path": "/dev/sdb", "seral": "S1"}], "pts_devices[0]: unknown key 'seral' (did you mean 'serial'?)"),
    ([{"path": "/dev/sdb"}, {"path": "/dev/sdc", "nmae": "x"}], "pts_devices[1]: unknown key 'nmae' (did you mean 'name'?)"),
    ([{"path": "/dev/sdb", "colour": "red"}], "pts_devices[0]: unknown key 'colour'; known: path, name, serial"),
    ([{"path": "/dev/sdb", "serial": 12345}], "pts_devices[0].serial=12345: must be a string: quote it"),
    ([{"path": ["/dev/sdb"]}], "pts_devices[0].path=['/dev/sdb']: must be a string"),
    ([{"path": "/dev/sdb", "name": ""}], "pts_devices[0].name='': is empty"),
    ([{"path": "/dev/sdb\n[evil]"}], "pts_devices[0].path='/dev/sdb\\n[evil]': contains a control character"),
    ([{"path": "/dev/sdb", "name": "a\x1b[31m"}], "pts_devices[0].name='a\\x1b[31m': contains a control character"),
    ([{"name": "bay0"}], "pts_devices[0]={'name': 'bay0'}: needs a path, a serial or a wwn"),
    ([{"path": "/dev/sdb", "mode": "fast"}], "pts_devices[0].mode='fast': must be one of auto, ssd, hdd"),
    ([{"path": "sdb"}], "pts_devices[0].path='sdb': must be an absolute path"),
    ([{"path": "/dev/sdb", "name": "a"}, {"path": "/dev/sdc", "name": "a"}],
     "pts_devices[1].name='a': is also pts_devices[0]'s name"),
    (["/dev/sdb"], "pts_devices[0]='/dev/sdb': must be a mapping"),
    ({"path": "/dev/sdb"}, "pts_devices={'path': '/dev/sdb'}: must be a list of drives"),
])
def test_bad_device_entries_are_named_as_the_operator_wrote_them(listed, message):
    with pytest.raises(_inputs.PlanError) as caught:
        _inputs.devices(listed)
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_run_id_with_a_trailing_newline_is_refused():
    with pytest.raises(_inputs.PlanError):
        _inputs.run_id("pts_run_id", "run-1\n")


@pytest.mark.parametrize("key, value, shown", [
    ("name", "bay\u20281", "U+2028 LINE SEPARATOR"),
    ("path", "/dev/loop\u20297", "U+2029 PARAGRAPH SEPARATOR"),
    ("backing_file", "/srv/\u202egmi.dab", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("serial", "S\u200b1", "U+200B ZERO WIDTH SPACE"),
    ("name", "a\u2066b", "U+2066 LEFT-TO-RIGHT ISOLATE"),
])
def test_a_format_character_is_refused_like_a_control_character_naming_the_variable(key, value, shown):
    entry = {"path": "/dev/loop3", key: value}
    with pytest.raises(_inputs.PlanError) as caught:
        _inputs.devices([entry])
    assert str(caught.value).startswith(f"pts_devices[0].{key}={value!r}: contains a control character (a newline, "
                                        f"tab or escape) or a format character ({shown}): refused")
    assert caught.value.variable == f"pts_devices[0].{key}"


def test_letters_of_other_scripts_pass():
    assert _inputs.devices([{"path": "/dev/loop3", "name": "Laufwerk-ä-日本"}])
