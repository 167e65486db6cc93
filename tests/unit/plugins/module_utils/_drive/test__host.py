# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PTS common reporting items of the host (module_utils/_drive/_host.py)."""

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _host


def test_host_info_reads_proc_and_os_release(tmp_path):
    proc = tmp_path / "proc"
    etc = tmp_path / "etc"
    proc.mkdir()
    etc.mkdir()
    (proc / "cpuinfo").write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n")
    (proc / "meminfo").write_text("MemTotal:       24576000 kB\n")
    (etc / "os-release").write_text('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n')
    info = _host.host_info(str(proc), str(etc))
    assert info["cpu_model"] == "Test CPU 9000"
    assert info["memory_bytes"] == 24576000 * 1024
    assert info["os"] == "Debian GNU/Linux 12 (bookworm)"
    assert (info["system_vendor"], info["system_model"], info["dmi"]) == (None, None, False)


@pytest.mark.parametrize("vendor, model, expected", [
    ("Supermicro\n", "SYS-1029U-TN10RT\n", ("Supermicro", "SYS-1029U-TN10RT")),
    ("To Be Filled By O.E.M.\n", "Default string\n", (None, None)),
    ("QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n", ("QEMU", "Standard PC (Q35 + ICH9, 2009)")),
])
def test_host_info_reads_the_test_systems_make_and_model_from_dmi(tmp_path, vendor, model, expected):
    dmi = tmp_path / "dmi"
    dmi.mkdir()
    (dmi / "sys_vendor").write_text(vendor)
    (dmi / "product_name").write_text(model)
    info = _host.host_info(str(tmp_path), str(tmp_path), str(dmi))
    assert (info["system_vendor"], info["system_model"], info["dmi"]) == (*expected, True)


def test_host_info_reads_the_motherboard_and_the_dram_type(tmp_path):
    from test__smbios import BOARD, END, dimm

    dmi = tmp_path / "dmi"
    dmi.mkdir()
    for name, value in (("sys_vendor", "Supermicro\n"), ("product_name", "SYS-220U\n"), ("board_vendor", "Supermicro\n"),
                        ("board_name", "X12DPi-NT6\n")):
        (dmi / name).write_text(value)
    table = tmp_path / "DMI"
    table.write_bytes(BOARD + dimm(16384, 0x1A) + dimm(16384, 0x1A) + END)
    info = _host.host_info(str(tmp_path), str(tmp_path), str(dmi), str(table))
    assert (info["board_vendor"], info["board_name"]) == ("Supermicro", "X12DPi-NT6")
    assert info["memory_modules"] == {"type": "DDR4", "modules": 2, "size_bytes": 32 << 30, "speed_mts": 3200,
                                      "configured_mts": 2933}
    # Without the table (not root, or no firmware tables): nothing claimed.
    assert _host.host_info(str(tmp_path), str(tmp_path), str(dmi), str(tmp_path / "none"))["memory_modules"] is None
