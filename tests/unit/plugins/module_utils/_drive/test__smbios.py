# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's DRAM type from its SMBIOS table (module_utils/_drive/_smbios.py), on tables laid out as DSP0134 says."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _smbios


def structure(kind: int, fields: dict, length: int, strings: tuple = ()) -> bytes:
    """One SMBIOS structure: header, formatted area of ``length`` bytes (``fields``: {offset: (value, width)}),
    its strings."""
    area = bytearray(length)
    area[0], area[1] = kind, length
    for offset, (value, width) in fields.items():
        area[offset:offset + width] = value.to_bytes(width, "little")
    tail = b"".join(s.encode() + b"\x00" for s in strings) + b"\x00" if strings else b"\x00\x00"
    return bytes(area) + tail


def dimm(size_field: int, kind: int, speed: int = 3200, configured: int | None = 2933, extended: int = 0) -> bytes:
    """A type 17 Memory Device of SMBIOS 3.x (0x28 bytes): size word, type, speed, configured speed."""
    fields = {0x0C: (size_field, 2), 0x12: (kind, 1), 0x15: (speed, 2), 0x1C: (extended, 4)}
    if configured is not None:
        fields[0x20] = (configured, 2)
    return structure(17, fields, 0x28, ("DIMM_A1", "Samsung", "M393A4K40DB3-CWE"))


BOARD = structure(2, {0x04: (1, 1), 0x05: (2, 1)}, 0x0F, ("Supermicro", "X12DPi-NT6"))
END = structure(127, {}, 4)


@pytest.mark.parametrize("table, expected", [
    pytest.param(BOARD + dimm(16384, 0x1A) + dimm(16384, 0x1A) + dimm(0, 0x02) + END,
                 {"type": "DDR4", "modules": 2, "size_bytes": 32 << 30, "speed_mts": 3200, "configured_mts": 2933},
                 id="two-ddr4-one-empty-slot"),
    pytest.param(dimm(0x7FFF, 0x22, 4800, 4400, extended=65536) + END,
                 {"type": "DDR5", "modules": 1, "size_bytes": 64 << 30, "speed_mts": 4800, "configured_mts": 4400},
                 id="ddr5-extended-size"),
    pytest.param(dimm(0x8000 | 512, 0x07, 0, None) + END,
                 {"type": "RAM", "modules": 1, "size_bytes": 512 << 10, "speed_mts": None, "configured_mts": None},
                 id="qemu-ram-kib"),
    pytest.param(dimm(16384, 0x1A) + dimm(16384, 0x18, 1600, 1600) + END,
                 {"type": "DDR4 / DDR3", "modules": 2, "size_bytes": 32 << 30, "speed_mts": 1600,
                  "configured_mts": 1600}, id="mixed-types"),
    pytest.param(BOARD + dimm(0, 0x02) + END, None, id="no-module-installed"),
    pytest.param(b"", None, id="no-table"),
    pytest.param(dimm(16384, 0x1A)[:20], None, id="cut-short"),
])
def test_memory_from_the_smbios_table(table, expected):
    assert _smbios.memory(table) == expected


def test_structures_keep_their_strings_and_stop_at_the_end_of_table():
    found = _smbios.structures(BOARD + dimm(16384, 0x1A) + END + dimm(32768, 0x22))
    assert [kind for kind, dummy, dummy2 in found] == [2, 17, 127]
    assert found[0][2] == ["Supermicro", "X12DPi-NT6"] and found[1][2][1] == "Samsung"
