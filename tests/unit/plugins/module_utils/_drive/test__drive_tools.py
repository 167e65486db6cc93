# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Fixtures are trimmed outputs shaped after the tools' print code (nvme-cli nvme-print-json.c /
# nvme-print.c, hdparm identify.c, sg3_utils sg_opcodes.c, smartmontools JSON). Serial numbers and
# counters are illustrative, not captured from a particular drive.

from __future__ import annotations

import json

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _drive_tools

# nvme-cli 2.3 `nvme id-ctrl /dev/nvme0 -o json`, trimmed: an enterprise drive with sanitize
# (SANICAP 0x60000003: crypto + block erase, plus the NODMMAS bits 30:29), Format NVM (OACS 0x5f)
# with crypto erase (FNA 0x4), and VWC 0x6 (bits 2:1 set, bit 0 clear: no volatile write cache).
NVME_ID_CTRL_ENTERPRISE = json.loads("""
{
  "vid":5197,
  "ssvid":5197,
  "sn":"S64HNE0R500123      ",
  "mn":"SAMSUNG MZQL21T9HCJR-00A07              ",
  "fr":"GDC5602Q",
  "rab":2,
  "ieee":9528,
  "cmic":0,
  "mdts":9,
  "cntlid":6,
  "ver":66560,
  "oacs":95,
  "acl":7,
  "aerl":3,
  "frmw":23,
  "lpa":14,
  "tnvmcap":1920383410176,
  "sanicap":1610612739,
  "oncs":95,
  "fna":4,
  "vwc":6,
  "awun":65535,
  "subnqn":"nqn.1994-11.com.samsung:nvme:PM9A3:2.5-inch:S64HNE0R500123      ",
  "psds":[{"max_power":2500,"max_power_scale":0,"non-operational_state":0}]
}
""")

# QEMU's emulated controller (hw/nvme/ctrl.c nvme_init_ctrl): Format NVM and namespace management in
# OACS, no sanitize, FNA 0, write cache reported.
NVME_ID_CTRL_QEMU = json.loads("""
{
  "vid":6966,
  "ssvid":6900,
  "sn":"deadbeef            ",
  "mn":"QEMU NVMe Ctrl                          ",
  "fr":"8.2.2   ",
  "rab":6,
  "ieee":5395538,
  "oacs":298,
  "sanicap":0,
  "oncs":383,
  "fna":0,
  "vwc":7
}
""")

# nvme-cli 2.x `nvme smart-log /dev/nvme0 -o json`, trimmed.
NVME_SMART_LOG = json.loads("""
{
  "critical_warning":0,
  "temperature":309,
  "avail_spare":100,
  "spare_thresh":10,
  "percent_used":3,
  "endurance_grp_critical_warning_summary":0,
  "data_units_read":29358994,
  "data_units_written":34125838,
  "host_read_commands":94496638,
  "host_write_commands":998903304,
  "controller_busy_time":6770,
  "power_cycles":160,
  "power_on_hours":1060,
  "unsafe_shutdowns":147,
  "media_errors":0,
  "num_err_log_entries":12,
  "warning_temp_time":0,
  "critical_comp_time":0,
  "temperature_sensor_1":309,
  "temperature_sensor_2":312,
  "thm_temp1_trans_count":0,
  "thm_temp2_trans_count":0,
  "thm_temp1_total_time":0,
  "thm_temp2_total_time":0
}
""")

# nvme-cli 2.x `nvme sanitize-log /dev/nvme0 -o json`: the page sits under the device name and SSTAT
# is an object whose "status" reads "(N) text".
NVME_SANITIZE_LOG_DONE = json.loads("""
{
  "nvme0":{
    "sprog":65535,
    "sstat":{
      "global_erased":1,
      "no_cmplted_passes":1,
      "status":"(1) Most Recent Sanitize Command Completed Successfully."
    },
    "cdw10_info":2,
    "time_over_write":4294967295,
    "time_block_erase":120,
    "time_crypto_erase":4294967295
  }
}
""")

# hdparm 9.6x `hdparm -I /dev/sdb`: a SATA SSD with SANITIZE (crypto, overwrite, block erase) and
# ATA security supported, not frozen, enhanced erase supported. Tabs as hdparm prints them.
HDPARM_SSD = (
    "\n/dev/sdb:\n\n"
    "ATA device, with non-removable media\n"
    "\tModel Number:       INTEL SSDSC2KB480G8                     \n"
    "\tSerial Number:      PHYF912300AB480BGN  \n"
    "\tFirmware Revision:  XCV10132\n"
    "\tTransport:          Serial, ATA8-AST, SATA 1.0a, SATA II Extensions, SATA Rev 2.5, SATA Rev 2.6, SATA Rev 3.0\n"
    "Standards:\n"
    "\tUsed: unknown (minor revision code 0x011b) \n"
    "\tSupported: 10 9 8 7 6 5 \n"
    "Configuration:\n"
    "\tLogical\t\tmax\tcurrent\n"
    "\tLBA48  user addressable sectors:   937703088\n"
    "\tLogical  Sector size:                   512 bytes\n"
    "\tPhysical Sector size:                  4096 bytes\n"
    "\tForm Factor: 2.5 inch\n"
    "\tNominal Media Rotation Rate: Solid State Device\n"
    "Capabilities:\n"
    "\tLBA, IORDY(can be disabled)\n"
    "Commands/features:\n"
    "\tEnabled\tSupported:\n"
    "\t   *\tSMART feature set\n"
    "\t   *\tSecurity Mode feature set\n"
    "\t   *\tPower Management feature set\n"
    "\t   *\tWrite cache\n"
    "\t   *\tLook-ahead\n"
    "\t   *\tWRITE_BUFFER command\n"
    "\t   *\tSMART Command Transport (SCT) feature set\n"
    "\t   *\tSANITIZE_ANTIFREEZE_LOCK_EXT command\n"
    "\t   *\tSANITIZE feature set\n"
    "\t   *\tCRYPTO_SCRAMBLE_EXT command\n"
    "\t   *\tOVERWRITE_EXT command\n"
    "\t   *\tBLOCK_ERASE_EXT command\n"
    "\t   *\tData Set Management TRIM supported (limit 4 blocks)\n"
    "Security: \n"
    "\tMaster password revision code = 65534\n"
    "\t\tsupported\n"
    "\tnot\tenabled\n"
    "\tnot\tlocked\n"
    "\tnot\tfrozen\n"
    "\tnot\texpired: security count\n"
    "\t\tsupported: enhanced erase\n"
    "\t4min for SECURITY ERASE UNIT. 4min for ENHANCED SECURITY ERASE UNIT.\n"
    "Logical Unit WWN Device Identifier: 55cd2e414dd321f1\n"
    "\tNAA\t\t: 5\n"
    "Checksum: correct\n"
)

# A spinning SATA drive as most BIOSes leave it: security frozen, write cache supported but disabled
# (no '*'), no SANITIZE, no enhanced erase.
HDPARM_HDD_FROZEN = (
    "\n/dev/sdc:\n\n"
    "ATA device, with non-removable media\n"
    "\tModel Number:       ST4000NM0035-1V4107                     \n"
    "\tSerial Number:      ZC1ABCDE\n"
    "\tFirmware Revision:  TN03    \n"
    "Configuration:\n"
    "\tForm Factor: 3.5 inch\n"
    "\tNominal Media Rotation Rate: 7200\n"
    "Commands/features:\n"
    "\tEnabled\tSupported:\n"
    "\t   *\tSMART feature set\n"
    "\t    \tSecurity Mode feature set\n"
    "\t   *\tPower Management feature set\n"
    "\t    \tWrite cache\n"
    "\t   *\tLook-ahead\n"
    "Security: \n"
    "\tMaster password revision code = 65534\n"
    "\t\tsupported\n"
    "\tnot\tenabled\n"
    "\tnot\tlocked\n"
    "\t\tfrozen\n"
    "\tnot\texpired: security count\n"
    "\tnot\tsupported: enhanced erase\n"
    "\t452min for SECURITY ERASE UNIT. \n"
    "Checksum: correct\n"
)

# sg3_utils 1.46 `sg_opcodes /dev/sdd` (sg_opcodes 0.7x: CDLP column).
SG_OPCODES_146 = (
    "  SEAGATE   ST4000NM0025      N004\n"
    "  Peripheral device type: disk\n"
    "\n"
    "Opcode  Service    CDB    CDLP   Name\n"
    "(hex)   action(h)  size              \n"
    "-----------------------------------------------\n"
    " 00                  6      0    Test Unit Ready\n"
    " 03                  6      0    Request Sense\n"
    " 04                  6      0    Format Unit\n"
    " 12                  6      0    Inquiry\n"
    " 48        1        10      0    Sanitize, overwrite\n"
    " 48        2        10      0    Sanitize, block erase\n"
    " 48        3        10      0    Sanitize, cryptographic erase\n"
    " 48       1f        10      0    Sanitize, exit failure mode\n"
    " 9e       10        16      0    Read capacity(16)\n"
    " a3        c        12      0    Report supported operation codes\n"
)

# `sg_opcodes --compact`: only overwrite and crypto erase.
SG_OPCODES_COMPACT = (
    "  HGST      HUSMM3240ASS204   C3C0\n"
    "  Peripheral device type: disk\n"
    "\n"
    "Opcode,sa  Name\n"
    "  (hex)        \n"
    "---------------------------------------\n"
    " 00        Test Unit Ready\n"
    " 12        Inquiry\n"
    " 48,1      Sanitize, overwrite\n"
    " 48,3      Sanitize, cryptographic erase\n"
    " 48,1f     Sanitize, exit failure mode\n"
    " 9e,10     Read capacity(16)\n"
)

# smartmontools 7.3 `smartctl -j -a /dev/nvme0`, trimmed.
SMARTCTL_NVME = json.loads("""
{
  "json_format_version":[1,0],
  "smartctl":{"version":[7,3],"svn_revision":"5338","argv":["smartctl","-j","-a","/dev/nvme0"],"exit_status":0},
  "device":{"name":"/dev/nvme0","info_name":"/dev/nvme0","type":"nvme","protocol":"NVMe"},
  "model_name":"SAMSUNG MZQL21T9HCJR-00A07",
  "serial_number":"S64HNE0R500123",
  "firmware_version":"GDC5602Q",
  "smart_support":{"available":true,"enabled":true},
  "smart_status":{"passed":true,"nvme":{"value":0}},
  "nvme_smart_health_information_log":{
    "critical_warning":0,
    "temperature":36,
    "available_spare":100,
    "available_spare_threshold":10,
    "percentage_used":3,
    "data_units_read":29358994,
    "data_units_written":34125838,
    "host_reads":94496638,
    "host_writes":998903304,
    "controller_busy_time":6770,
    "power_cycles":160,
    "power_on_hours":1060,
    "unsafe_shutdowns":147,
    "media_errors":2,
    "num_err_log_entries":12,
    "warning_temp_time":0,
    "critical_comp_time":0,
    "temperature_sensors":[36,39]
  },
  "temperature":{"current":36},
  "power_cycle_count":160,
  "power_on_time":{"hours":1060}
}
""")


def _attr(attr_id: int, name: str, raw: int, value: int = 100) -> dict:
    return {"id": attr_id, "name": name, "value": value, "worst": value, "thresh": 0, "when_failed": "",
            "flags": {"value": 50, "string": "-O--CK ", "prefailure": False}, "raw": {"value": raw, "string": str(raw)}}


# smartmontools 7.3 `smartctl -j -a /dev/sdc` for an ATA drive, trimmed to what smart_health reads.
SMARTCTL_ATA = {
    "json_format_version": [1, 0],
    "device": {"name": "/dev/sdc", "info_name": "/dev/sdc [SAT]", "type": "sat", "protocol": "ATA"},
    "model_name": "ST4000NM0035-1V4107",
    "logical_block_size": 512,
    "physical_block_size": 4096,
    "smart_status": {"passed": False},
    "ata_smart_attributes": {"revision": 10, "table": [
        _attr(1, "Raw_Read_Error_Rate", 199781349, 83),
        _attr(5, "Reallocated_Sector_Ct", 8),
        _attr(9, "Power_On_Hours", 36055, 59),
        _attr(194, "Temperature_Celsius", 36, 36),
        _attr(197, "Current_Pending_Sector", 16),
        _attr(198, "Offline_Uncorrectable", 4),
        _attr(241, "Total_LBAs_Written", 123456789),
    ]},
    "power_on_time": {"hours": 36055},
    "temperature": {"current": 36},
}


# ---------------------------------------------------------------------------------------------- NVMe


def test_nvme_identity_of_an_enterprise_drive():
    identity = _drive_tools.nvme_identity(NVME_ID_CTRL_ENTERPRISE)
    assert identity == {
        "model": "SAMSUNG MZQL21T9HCJR-00A07",
        "serial": "S64HNE0R500123",
        "firmware": "GDC5602Q",
        "vendor_id": "144d",
        "purge_methods": ["nvme_sanitize_crypto", "nvme_sanitize_block", "nvme_format_crypto", "nvme_format_erase"],
        "volatile_write_cache": False,
    }


def test_nvme_identity_of_a_qemu_controller_offers_only_format_erase():
    identity = _drive_tools.nvme_identity(NVME_ID_CTRL_QEMU)
    assert identity["purge_methods"] == ["nvme_format_erase"]
    assert identity["vendor_id"] == "1b36"
    assert identity["model"] == "QEMU NVMe Ctrl"
    assert identity["firmware"] == "8.2.2"
    assert identity["volatile_write_cache"] is True


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"sanicap": 0x4, "oacs": 0x2, "fna": 0x0}, ["nvme_sanitize_overwrite", "nvme_format_erase"]),
        ({"sanicap": 0x7, "oacs": 0x2, "fna": 0x4},
         ["nvme_sanitize_crypto", "nvme_sanitize_block", "nvme_format_crypto", "nvme_sanitize_overwrite",
          "nvme_format_erase"]),
        # FNA's crypto bit means nothing without Format NVM in OACS.
        ({"sanicap": 0, "oacs": 0x8, "fna": 0x4}, []),
        ({"sanicap": 0x60000000, "oacs": 0}, []),
    ],
)
def test_nvme_purge_methods_follow_sanicap_oacs_and_fna(fields, expected):
    assert _drive_tools.nvme_identity(fields)["purge_methods"] == expected


def test_nvme_identity_with_missing_keys_reports_none():
    assert _drive_tools.nvme_identity({}) == {
        "model": None, "serial": None, "firmware": None, "vendor_id": None, "purge_methods": [],
        "volatile_write_cache": None,
    }


def test_nvme_identity_accepts_a_hex_string_vendor_id():
    assert _drive_tools.nvme_identity({"vid": "0x8086"})["vendor_id"] == "8086"


@pytest.mark.parametrize("bad", [None, "[]", ["vid"]])
def test_nvme_identity_rejects_non_dict_input(bad):
    with pytest.raises(ValueError, match="must be a dict"):
        _drive_tools.nvme_identity(bad)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n", True),
        # nvme-cli prints a zero result with "%#0*x", which drops the 0x prefix.
        ("get-feature:0x06 (Volatile Write Cache), Current value:00000000\n", False),
        ("get-feature:0x06 (Volatile Write Cache), Saved value:0x00000001\n", True),
        ("get-feature:0x06 (Volatile Write Cache), Current value:0x00000001\n"
         "\tVolatile Write Cache Enable (WCE): Enabled\n", True),
        ("get-feature:0x06 (Volatile Write Cache), Current value:00000000\n"
         "\tVolatile Write Cache Enable (WCE): Disabled\n", False),
        # sel=3 reports capabilities (saveable/changeable), not whether the cache is on.
        ("get-feature:0x06 (Volatile Write Cache), Supported capabilities value:0x00000005\n", None),
        ("get-feature:0x07 (Number of Queues), Current value:0x003f003f\n", None),
        ("NVMe status: Invalid Field in Command: A reserved coded value or an unsupported value in a defined "
         "field(0x4002)\n", None),
        ("", None),
    ],
)
def test_nvme_write_cache(text, expected):
    assert _drive_tools.nvme_write_cache(text) is expected


def test_nvme_health_normalizes_nvme_cli_smart_log():
    assert _drive_tools.nvme_health(NVME_SMART_LOG) == {
        "critical_warning": 0,
        "temperature_c": 36,
        "available_spare_pct": 100,
        "percentage_used": 3,
        "bytes_read": 29358994 * 512000,
        "bytes_written": 34125838 * 512000,
        "power_on_hours": 1060,
        "unsafe_shutdowns": 147,
        "media_errors": 0,
        "error_log_entries": 12,
    }


def test_nvme_health_reads_string_and_float_counters_and_the_verbose_warning_object():
    # Some 2.x releases print 128-bit counters as strings, 1.x as doubles; --verbose makes
    # critical_warning an object.
    log = dict(NVME_SMART_LOG, data_units_written="34125838", data_units_read=29358994.0, power_on_hours="1,060",
               critical_warning={"value": 4, "available_spare": 0, "temp_threshold": 0, "reliability_degraded": 1})
    health = _drive_tools.nvme_health(log)
    assert health["bytes_written"] == 34125838 * 512000
    assert health["bytes_read"] == 29358994 * 512000
    assert health["power_on_hours"] == 1060
    assert health["critical_warning"] == 4


def test_nvme_health_accepts_the_spelled_out_key_names():
    health = _drive_tools.nvme_health({"percentage_used": 7, "available_spare": 98})
    assert (health["percentage_used"], health["available_spare_pct"]) == (7, 98)


def test_nvme_health_unreadable_counters_are_none_not_zero():
    health = _drive_tools.nvme_health({"data_units_written": "N/A", "media_errors": "1e999", "percent_used": True})
    assert (health["bytes_written"], health["media_errors"], health["percentage_used"]) == (None, None, None)


def test_nvme_health_missing_keys_are_none():
    health = _drive_tools.nvme_health({"temperature": 300})
    assert health["temperature_c"] == 27
    assert all(value is None for key, value in health.items() if key != "temperature_c")


@pytest.mark.parametrize(
    "log, expected",
    [
        (NVME_SANITIZE_LOG_DONE, {"state": "completed", "progress_pct": 100.0}),
        ({"nvme0": {"sprog": 32768,
                    "sstat": {"global_erased": 0, "no_cmplted_passes": 0, "status": "(2) Sanitize in Progress."}}},
         {"state": "in_progress", "progress_pct": 50.0}),
        ({"/dev/nvme1": {"sprog": 65535, "sstat": {"status": "(0) Sanitize Never Executed"}}},
         {"state": "never", "progress_pct": None}),
        # flat page with SSTAT as the raw register: bits 2:0 = 3 (failed), bit 8 (global erased) ignored
        ({"sprog": 65535, "sstat": 0x0103}, {"state": "failed", "progress_pct": None}),
        ({"sprog": 65535, "sstat": 4}, {"state": "completed_no_deallocate", "progress_pct": 100.0}),
        ({"sprog": 0, "sstat": 5}, {"state": "unknown", "progress_pct": None}),
        # an early 2.x release keyed the status under its own text
        ({"nvme0": {"sprog": 65535,
                    "sstat": {"global_erased": 1, "Most Recent Sanitize Command Completed Successfully.":
                              "(1) Most Recent Sanitize Command Completed Successfully."}}},
         {"state": "completed", "progress_pct": 100.0}),
        ({}, {"state": "unknown", "progress_pct": None}),
    ],
)
def test_nvme_sanitize_status(log, expected):
    assert _drive_tools.nvme_sanitize_status(log) == expected


# ----------------------------------------------------------------------------------------------- ATA


def test_ata_identity_of_an_unfrozen_ssd():
    identity = _drive_tools.ata_identity(HDPARM_SSD)
    assert identity == {
        "model": "INTEL SSDSC2KB480G8",
        "serial": "PHYF912300AB480BGN",
        "firmware": "XCV10132",
        "rotational": False,
        "write_cache": True,
        "security": {"supported": True, "enabled": False, "locked": False, "frozen": False, "enhanced_erase": True,
                     "erase_minutes": 4, "enhanced_erase_minutes": 4},
        "purge_methods": ["ata_sanitize_crypto", "ata_sanitize_block", "ata_security_erase_enhanced",
                          "ata_security_erase", "ata_sanitize_overwrite"],
    }


def test_a_frozen_ata_drive_offers_no_security_erase():
    identity = _drive_tools.ata_identity(HDPARM_HDD_FROZEN)
    assert identity["purge_methods"] == []
    assert identity["security"] == {"supported": True, "enabled": False, "locked": False, "frozen": True,
                                    "enhanced_erase": False, "erase_minutes": 452, "enhanced_erase_minutes": None}
    assert identity["rotational"] is True
    assert identity["write_cache"] is False
    assert identity["firmware"] == "TN03"


def test_a_frozen_drive_still_offers_sanitize():
    text = HDPARM_HDD_FROZEN.replace(
        "Security: \n", "\t   *\tSANITIZE feature set\n\t   *\tBLOCK_ERASE_EXT command\nSecurity: \n")
    assert _drive_tools.ata_identity(text)["purge_methods"] == ["ata_sanitize_block"]


def test_sanitize_commands_without_the_feature_set_do_not_count():
    text = HDPARM_SSD.replace("\t   *\tSANITIZE feature set\n", "")
    assert _drive_tools.ata_identity(text)["purge_methods"] == ["ata_security_erase_enhanced", "ata_security_erase"]


def test_a_locked_ata_drive_offers_no_security_erase():
    text = HDPARM_SSD.replace("\tnot\tenabled\n\tnot\tlocked\n", "\t\tenabled\n\t\tlocked\n")
    identity = _drive_tools.ata_identity(text)
    assert identity["security"]["locked"] is True and identity["security"]["enabled"] is True
    assert "ata_security_erase" not in identity["purge_methods"]
    assert "ata_security_erase_enhanced" not in identity["purge_methods"]


def test_ata_erase_time_at_the_field_maximum():
    text = HDPARM_SSD.replace(
        "\t4min for SECURITY ERASE UNIT. 4min for ENHANCED SECURITY ERASE UNIT.\n",
        "\tmore than 508min for SECURITY ERASE UNIT. 60min for ENHANCED SECURITY ERASE UNIT. \n")
    security = _drive_tools.ata_identity(text)["security"]
    assert (security["erase_minutes"], security["enhanced_erase_minutes"]) == (508, 60)


def test_ata_security_unknown_supported_bit_disables_erase():
    # hdparm prints "(?)" instead of "not" for an unset "supported" bit.
    text = HDPARM_SSD.replace("\t\tsupported\n\tnot\tenabled", "\t(?)\tsupported\n\tnot\tenabled")
    identity = _drive_tools.ata_identity(text)
    assert identity["security"]["supported"] is False
    assert identity["purge_methods"] == ["ata_sanitize_crypto", "ata_sanitize_block", "ata_sanitize_overwrite"]


def test_ata_identity_of_sparse_output():
    identity = _drive_tools.ata_identity("\n/dev/sdx:\n\nATA device, with non-removable media\n"
                                         "\tModel Number:       VBOX HARDDISK\n")
    assert identity == {
        "model": "VBOX HARDDISK", "serial": None, "firmware": None, "rotational": None, "write_cache": None,
        "security": {"supported": False, "enabled": False, "locked": False, "frozen": False,
                     "enhanced_erase": False, "erase_minutes": None, "enhanced_erase_minutes": None},
        "purge_methods": [],
    }


def test_ata_identity_rejects_non_text():
    with pytest.raises(ValueError, match="must be a str"):
        _drive_tools.ata_identity(b"Model Number: x")


# ---------------------------------------------------------------------------------------------- SCSI


def test_scsi_purge_methods_from_sg_opcodes():
    assert _drive_tools.scsi_purge_methods(SG_OPCODES_146) == [
        "scsi_sanitize_crypto", "scsi_sanitize_block", "scsi_sanitize_overwrite", "scsi_format_unit"]


def test_scsi_purge_methods_from_compact_output():
    assert _drive_tools.scsi_purge_methods(SG_OPCODES_COMPACT) == ["scsi_sanitize_crypto", "scsi_sanitize_overwrite"]


def test_scsi_purge_methods_from_the_older_layout_without_cdlp():
    text = ("\nOpcode  Service    CDB    Name\n(hex)   action(h)  size       \n"
            "-----------------------------------------------\n"
            " 00                  6    Test Unit Ready\n"
            " 04                  6    Format Unit\n"
            " 48        2        10    Sanitize, block erase\n")
    assert _drive_tools.scsi_purge_methods(text) == ["scsi_sanitize_block", "scsi_format_unit"]


def test_scsi_opcode_columns_decide_even_when_names_differ():
    text = (" 48        3        10      0    Sanitize [sa=0x3]\n"
            " 04                  6      0    Format medium\n")
    assert _drive_tools.scsi_purge_methods(text) == ["scsi_sanitize_crypto", "scsi_format_unit"]


@pytest.mark.parametrize(
    "text",
    [
        " 48       1f        10      0    Sanitize, exit failure mode\n",
        "Report supported operation codes: Illegal request, Invalid opcode\n",
        # single-command query output names the command even when it is NOT supported
        "\n  Opcode=0x48  Service_action=0x0003\n  Command_name: Sanitize, cryptographic erase\n"
        "  Command is NOT supported, [no command duration limit mode page]\n",
        "",
    ],
)
def test_scsi_purge_methods_none(text):
    assert _drive_tools.scsi_purge_methods(text) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("    /dev/sda: SEAGATE   ST4000NM0025      N004\nWCE           1  [cha: y, def:  1, sav:  1]\n", True),
        ("    /dev/sda: ATA       Samsung SSD 860   1B6Q\nWCE           0  [cha: y, def:  0, sav:  0]\n", False),
        ("\n/dev/sda:\n write-caching =  0 (off)\n", False),
        ("    /dev/sda: ATA       Samsung SSD 860   1B6Q\n", None),
        ("", None),
    ],
)
def test_scsi_write_cache(text, expected):
    assert _drive_tools.scsi_write_cache(text) is expected


# ------------------------------------------------------------------------------------------ smartctl


def test_smart_health_of_an_nvme_drive():
    assert _drive_tools.smart_health(SMARTCTL_NVME) == {
        "passed": True,
        "temperature_c": 36,
        "power_on_hours": 1060,
        "reallocated_sectors": None,
        "pending_sectors": None,
        "offline_uncorrectable": None,
        "media_errors": 2,
        "percentage_used": 3,
        "bytes_written": 34125838 * 512000,
    }


def test_smart_health_of_an_ata_drive():
    assert _drive_tools.smart_health(SMARTCTL_ATA) == {
        "passed": False,
        "temperature_c": 36,
        "power_on_hours": 36055,
        "reallocated_sectors": 8,
        "pending_sectors": 16,
        "offline_uncorrectable": 4,
        "media_errors": None,
        "percentage_used": None,
        "bytes_written": 123456789 * 512,
    }


def test_smart_health_does_not_guess_the_unit_of_a_vendor_attribute_241():
    table = [a for a in SMARTCTL_ATA["ata_smart_attributes"]["table"] if a["id"] != 241]
    data = dict(SMARTCTL_ATA, ata_smart_attributes={"table": table + [_attr(241, "Host_Writes_32MiB", 5000)]})
    assert _drive_tools.smart_health(data)["bytes_written"] is None


def test_smart_health_needs_the_logical_block_size_for_ata_bytes():
    data = {k: v for k, v in SMARTCTL_ATA.items() if k != "logical_block_size"}
    assert _drive_tools.smart_health(data)["bytes_written"] is None


def test_smart_health_of_empty_json_is_all_none():
    health = _drive_tools.smart_health({"smartctl": {"exit_status": 2}})
    assert set(health) == {"passed", "temperature_c", "power_on_hours", "reallocated_sectors", "pending_sectors",
                           "offline_uncorrectable", "media_errors", "percentage_used", "bytes_written"}
    assert all(value is None for value in health.values())


# ------------------------------------------------------------------------------------ purge methods


def _every_reported_method() -> set:
    reported = set()
    reported.update(_drive_tools.nvme_identity(dict(NVME_ID_CTRL_ENTERPRISE, sanicap=7))["purge_methods"])
    reported.update(_drive_tools.ata_identity(HDPARM_SSD)["purge_methods"])
    reported.update(_drive_tools.scsi_purge_methods(SG_OPCODES_146))
    return reported


def test_purge_methods_table_describes_every_method_the_parsers_report():
    names = _every_reported_method() | {"discard"}
    assert len(names) == 15
    assert set(_drive_tools.PURGE_METHODS) == names
    for name, entry in _drive_tools.PURGE_METHODS.items():
        assert set(entry) == {"secure", "description"}, name
        assert isinstance(entry["secure"], bool), name
        assert entry["description"] and "\n" not in entry["description"], name
    assert _drive_tools.PURGE_METHODS["discard"]["secure"] is False
    assert _drive_tools.PURGE_METHODS["nvme_format_crypto"]["description"] == (
        "NVMe Format with cryptographic erase (SES=2)")


def test_rank_purge_methods_orders_across_kinds_and_drops_unknown():
    ranked = _drive_tools.rank_purge_methods([
        "discard", "scsi_format_unit", "ata_sanitize_overwrite", "ata_security_erase", "shred",
        "nvme_format_crypto", "scsi_sanitize_block", "nvme_sanitize_crypto", "discard",
    ])
    assert ranked == ["nvme_sanitize_crypto", "scsi_sanitize_block", "nvme_format_crypto", "ata_security_erase",
                      "ata_sanitize_overwrite", "scsi_format_unit", "discard"]


def test_rank_purge_methods_is_stable_within_a_tier():
    assert _drive_tools.rank_purge_methods(["scsi_format_unit", "nvme_format_erase"]) == [
        "scsi_format_unit", "nvme_format_erase"]
    assert _drive_tools.rank_purge_methods(["nvme_format_erase", "scsi_format_unit"]) == [
        "nvme_format_erase", "scsi_format_unit"]
    assert _drive_tools.rank_purge_methods(["ata_security_erase_enhanced", "nvme_format_crypto"]) == [
        "ata_security_erase_enhanced", "nvme_format_crypto"]


def test_rank_purge_methods_ranks_every_known_method():
    names = list(_drive_tools.PURGE_METHODS)
    assert sorted(_drive_tools.rank_purge_methods(list(reversed(names)))) == sorted(names)
    assert _drive_tools.rank_purge_methods([]) == []


def test_rank_purge_methods_rejects_a_bare_string():
    with pytest.raises(ValueError):
        _drive_tools.rank_purge_methods("discard")
