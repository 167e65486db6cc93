# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, format_bytes, parse_block_size


@pytest.mark.parametrize(
    "text, size",
    [("512", 512), (512, 512), ("4k", 4096), ("4K", 4096), ("4KiB", 4096), ("1024k", 1048576),
     ("1m", 1048576), ("128k", 131072), (" 8k ", 8192), ("1g", 1073741824)],
)
def test_parse(text, size):
    assert parse_block_size(text) == size


@pytest.mark.parametrize("text", ["4kk", "", "k", "40", "1.5k", "-4k", "0", True, "4 k b", "4t", "4k\n", "4k\nbs=1m"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_block_size(text)


# int() and \d read every script's digits; fio reads 0-9 only.
@pytest.mark.parametrize("text", ["٤k", "٥١٢", "４k", "4\u212a", "1٠24k", "۸k", "४k", "𝟒k"])
def test_parse_rejects_digits_that_are_not_ascii_and_says_so(text):
    with pytest.raises(ValueError, match=r"is not a block size \(expected e\.g\. 512, 4k, 1024k, 1m in ASCII digits"):
        parse_block_size(text)


@pytest.mark.parametrize("size, label", [(512, "512"), (4096, "4k"), (1048576, "1024k"), (1536, "1536")])
def test_label(size, label):
    assert block_size_label(size) == label


def test_format_bytes():
    assert format_bytes(268435456) == "256.0 MiB"
    assert format_bytes(100) == "100 B"
