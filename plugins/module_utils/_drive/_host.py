# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The PTS common reporting items the host can tell about itself: OS, kernel, CPU, memory, and the test system's
make and model, its motherboard and its DRAM type from DMI."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _smbios, _sysfs


# What firmware tables fill in when the maker did not (PTS common reporting wants the real make and model).
_DMI_PLACEHOLDERS = ("", "to be filled by o.e.m.", "default string", "system manufacturer", "system product name",
                     "not specified", "none", "o.e.m.", "unknown")


def _dmi(dmi_root: str, name: str) -> str | None:
    value = (_sysfs.read(os.path.join(dmi_root, name)) or "").strip()
    return None if value.lower() in _DMI_PLACEHOLDERS else value


def _memory(table_path: str) -> dict | None:
    try:
        with open(table_path, "rb") as handle:
            return _smbios.memory(handle.read(1 << 20))
    except OSError:
        return None


def host_info(proc_root: str = "/proc", etc_root: str = "/etc", dmi_root: str = "/sys/class/dmi/id",
              smbios_table: str = "/sys/firmware/dmi/tables/DMI") -> dict:
    """The PTS common reporting items the host can tell about itself."""
    uname = os.uname()
    os_release = _sysfs.read(os.path.join(etc_root, "os-release")) or ""
    pretty = next(
        (line.split("=", 1)[1].strip('"') for line in os_release.splitlines() if line.startswith("PRETTY_NAME=")),
        None,
    )
    cpuinfo = _sysfs.read(os.path.join(proc_root, "cpuinfo")) or ""
    models = [line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")]
    meminfo = _sysfs.read(os.path.join(proc_root, "meminfo")) or ""
    mem_kib = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")), 0)
    return {
        "hostname": uname.nodename,
        "kernel": uname.release,
        "architecture": uname.machine,
        "os": pretty,
        "cpu_model": models[0] if models else None,
        "cpu_count": os.cpu_count(),
        "memory_bytes": mem_kib * 1024,
        # The test system's make and model (world-readable DMI; absent on hosts without firmware tables).
        "system_vendor": _dmi(dmi_root, "sys_vendor"),
        "system_model": _dmi(dmi_root, "product_name"),
        # OakGate's platform lines: the motherboard (world-readable DMI) and the DRAM type (the SMBIOS table, root).
        "board_vendor": _dmi(dmi_root, "board_vendor"),
        "board_name": _dmi(dmi_root, "board_name"),
        "memory_modules": _memory(smbios_table),
        "dmi": os.path.isdir(dmi_root),
    }
