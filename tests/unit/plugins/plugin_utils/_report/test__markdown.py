# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import re

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md


@pytest.mark.parametrize("value, expected", [
    ("SAMSUNG MZQL2960HCJR-00A07", "SAMSUNG MZQL2960HCJR-00A07"),
    ("ACME | PASS", "ACME \\| PASS"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("&lt;b&gt;", "&amp;lt;b&amp;gt;"),
    ("\x1b[31mRED\x1b[0m", "RED"),
    ("\x1b]0;owned\x07title", "title"),
    ("bell\x07 and \x00nul", "bell\ufffd and \ufffdnul"),
    ("two\nlines\r\n\tend", "two lines end"),
    ("`rm -rf`", "\\`rm -rf\\`"),
    ("[click](http://evil)", "\\[click\\](http://evil)"),
    ("**bold** _it_", "\\*\\*bold\\*\\* \\_it\\_"),
    ("nvme_SAMSUNG_MZ", "nvme_SAMSUNG_MZ"),  # intra-word underscores are no emphasis: left readable
    ("back\\slash", "back\\\\slash"),
    (12345, "12345"),
    (None, md.DASH),
])
def test_text_shows_untrusted_strings_as_written_never_as_markup(value, expected):
    assert md.text(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("/dev/loop5", "`/dev/loop5`"),
    ("/srv/a|b.img", "`/srv/a\\|b.img`"),
    ("a`b", "``a`b``"),
    ("`x`", "`` `x` ``"),
    ("/dev/x\x1b[2J", "`/dev/x`"),
    (None, md.DASH),
])
def test_code_spans_cannot_be_closed_or_split_by_their_content(value, expected):
    assert md.code(value) == expected


def test_a_code_block_cannot_be_closed_by_a_line_of_it():
    assert md.code_block(["a", "```", "````x"]) == ["`````", "a", "```", "````x", "`````"]
    assert md.code_block(["plain"]) == ["```", "plain", "```"]


@pytest.mark.parametrize("value, expected", [
    ("\x1b[1;31mSAMSUNG\x1b[0m", "SAMSUNG"),
    ("model\x1b[2J\x1b[H", "model"),
    ("a\nb", "a b"),
    ("<b>|x|</b>", "<b>|x|</b>"),  # the console shows Markdown characters as they are
    ("\x9b31mC1 CSI", "C1 CSI"),
])
def test_plain_takes_terminal_escapes_out_for_the_console(value, expected):
    assert md.plain(value) == expected


def test_a_table_row_keeps_its_columns_whatever_a_cell_holds():
    row = [md.text("ACME | FAIL | x"), "**PASS**"]
    (line,) = md.table(["Model", "Verdict"], [row])[2:]
    # GitHub splits a row on the | not preceded by a backslash.
    cells = re.split(r"(?<!\\)\|", line)[1:-1]
    assert len(cells) == 2 and cells[1].strip() == "**PASS**"


def test_a_caption_is_escaped():
    assert md.image("plots/c.png", "Cohort <X>|1: drives") == [
        "![Cohort &lt;X&gt;\\|1](plots/c.png)", "", "*Cohort &lt;X&gt;\\|1: drives*", ""]


def test_a_plot_label_is_plain_and_no_math():
    assert md.plot_label("X1 $\\alpha$\x1b[2J") == "X1 \\$\\alpha\\$"
