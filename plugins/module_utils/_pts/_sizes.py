# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Block size parsing and labels, with fio's meaning of k/m/g (powers of 1024)."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError

# ASCII only: \d and IGNORECASE alone would read other scripts' digits ("٤k") and the Kelvin sign as k.
_SIZE_RE = re.compile(r"([0-9]+)([kmg]?)(?:i?b)?", re.IGNORECASE | re.ASCII)
_FACTORS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
SECTOR = 512


class BlockSizeError(PtsError, ValueError):
    """Text that is not a block size."""


def parse_block_size(text: object) -> int:
    """Return the size in bytes of a fio-style block size such as ``4k``, ``1024k`` or ``512``.

    The PTS block sizes are all multiples of 512 bytes; anything else is rejected so a typo such as
    ``4kk`` or ``40`` fails before a drive is touched.
    """
    if isinstance(text, bool):
        raise BlockSizeError(f"{text!r} is not a block size")
    if isinstance(text, int):
        size = text
    else:
        match = _SIZE_RE.fullmatch(str(text).strip(" \t"))
        if not match:
            ascii_only = "" if str(text).isascii() else " in ASCII digits (0-9)"
            raise BlockSizeError(f"{text!r} is not a block size (expected e.g. 512, 4k, 1024k, 1m{ascii_only})")
        size = int(match.group(1)) * _FACTORS[match.group(2).lower()]
    if size <= 0 or size % SECTOR:
        raise BlockSizeError(f"{text!r} is not a positive multiple of {SECTOR} bytes")
    return size


def block_size_label(size: int) -> str:
    """Label a size the way TKperf and the PTS tables do: 512, 4k, 128k, 1024k."""
    if size % 1024 == 0:
        return f"{size // 1024}k"
    return str(size)


def drop_small(block_sizes: list[int], logical_block_size: int) -> tuple[list[int], list[str]]:
    """Block sizes the drive can do; those below (or not a multiple of) its logical sector size are dropped."""
    kept = [bs for bs in block_sizes if bs >= logical_block_size and bs % logical_block_size == 0]
    notes = [
        f"{block_size_label(bs)} dropped: the drive's logical block size is {logical_block_size} bytes"
        for bs in block_sizes if bs not in kept
    ]
    return kept, notes


def format_bytes(size: float) -> str:
    """Human-readable binary size for reports, e.g. ``1.0 GiB``."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
