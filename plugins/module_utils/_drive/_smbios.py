# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The host's memory as its firmware describes it (OakGate reports the DRAM type): the SMBIOS table the kernel
exposes as /sys/firmware/dmi/tables/DMI (root only), read without dmidecode.

An SMBIOS structure is a header - type (byte), length of its formatted area (byte), handle (word) - the rest of the
formatted area, then its strings, each NUL-terminated, the set ended by a second NUL (DMTF DSP0134). A Memory Device
(type 17) has its size at offset 0x0C (word; 0 = no module in the slot, 0xFFFF unknown, 0x7FFF: the extended size in
MiB at 0x1C; bit 15 set: KiB), its type at 0x12 (byte, the table below), its speed at 0x15 (word, MT/s) and, from
SMBIOS 2.7, its configured speed at 0x20."""

from __future__ import annotations

# DSP0134 7.18.2, Memory Device - Type.
MEMORY_TYPES = {
    0x01: "Other", 0x02: "Unknown", 0x03: "DRAM", 0x04: "EDRAM", 0x05: "VRAM", 0x06: "SRAM", 0x07: "RAM",
    0x08: "ROM", 0x09: "Flash", 0x0A: "EEPROM", 0x0B: "FEPROM", 0x0C: "EPROM", 0x0D: "CDRAM", 0x0E: "3DRAM",
    0x0F: "SDRAM", 0x10: "SGRAM", 0x11: "RDRAM", 0x12: "DDR", 0x13: "DDR2", 0x14: "DDR2 FB-DIMM", 0x18: "DDR3",
    0x19: "FBD2", 0x1A: "DDR4", 0x1B: "LPDDR", 0x1C: "LPDDR2", 0x1D: "LPDDR3", 0x1E: "LPDDR4",
    0x1F: "Logical non-volatile device", 0x20: "HBM", 0x21: "HBM2", 0x22: "DDR5", 0x23: "LPDDR5", 0x24: "HBM3",
}
MEMORY_DEVICE = 17
END_OF_TABLE = 127


def structures(table: bytes) -> list[tuple[int, bytes, list[str]]]:
    """The table's structures in order: (type, formatted area, strings); a structure cut short ends the list."""
    out = []
    offset = 0
    while offset + 4 <= len(table):
        kind, length = table[offset], table[offset + 1]
        if length < 4 or offset + length > len(table):
            break
        formatted = table[offset:offset + length]
        end = table.find(b"\x00\x00", offset + length)
        if end < 0:
            break
        raw = table[offset + length:end]
        strings = [s.decode("latin-1").strip() for s in raw.split(b"\x00")] if raw else []
        out.append((kind, formatted, strings))
        if kind == END_OF_TABLE:
            break
        offset = end + 2
    return out


def _word(data: bytes, at: int) -> int | None:
    return int.from_bytes(data[at:at + 2], "little") if len(data) >= at + 2 else None


def _module_size(data: bytes) -> int | None:
    """A memory device's size in bytes; 0 for an empty slot, None when unknown."""
    size = _word(data, 0x0C)
    if size is None or size == 0xFFFF:
        return None
    if size == 0x7FFF and len(data) >= 0x20:
        return (int.from_bytes(data[0x1C:0x20], "little") & 0x7FFFFFFF) << 20
    return (size & 0x7FFF) << (10 if size & 0x8000 else 20)


def memory(table: bytes) -> dict | None:
    """The installed memory modules: {"type" (one name, or the names joined when they differ), "modules", "size_bytes",
    "speed_mts" (the modules' rated speed, the lowest), "configured_mts" (as the platform runs them, the lowest; None
    before SMBIOS 2.7)}; None when the table lists no installed module."""
    types, sizes, speeds, configured = [], [], [], []
    for kind, data, dummy in structures(table):
        if kind != MEMORY_DEVICE or len(data) < 0x13:
            continue
        size = _module_size(data)
        if size == 0:
            continue  # an empty slot
        sizes.append(size)
        name = MEMORY_TYPES.get(data[0x12], f"type 0x{data[0x12]:02x}")
        if name not in types:
            types.append(name)
        speed = _word(data, 0x15)
        if speed and speed != 0xFFFF:
            speeds.append(speed)
        running = _word(data, 0x20)
        if running and running != 0xFFFF:
            configured.append(running)
    if not sizes:
        return None
    return {"type": " / ".join(types), "modules": len(sizes),
            "size_bytes": sum(s for s in sizes if s) if all(s is not None for s in sizes) else None,
            "speed_mts": min(speeds) if speeds else None, "configured_mts": min(configured) if configured else None}
