# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""Parse what nvme-cli, hdparm, sg3_utils, sdparm and smartctl print about a drive.

Pure functions only: the caller runs the tool and hands over its stdout (text) or the loaded JSON
(dict). Nothing here runs a command or touches a device. A value the output does not carry comes
back as None, never as a guessed default, so a report can tell "not reported" from "zero".

Formats, as read from the tools' sources:

* nvme-cli 2.x ``-o json``: id-ctrl prints ``vid``/``oacs``/``fna``/``vwc``/``sanicap`` as integers and
  ``sn``/``mn``/``fr`` space-padded; smart-log prints ``temperature`` in Kelvin and ``avail_spare``,
  ``percent_used``, ``data_units_*`` (128-bit counters: a number, or a string in some 2.x releases, a
  float in 1.x); sanitize-log nests the page under the device name with ``sstat`` as an object whose
  ``status`` reads ``"(N) text"``.
* ``nvme get-feature -f 6`` prints ``get-feature:0x06 (Volatile Write Cache), Current value:0x00000001``;
  a zero value is printed without ``0x`` (``value:00000000``), and ``-H`` adds
  ``Volatile Write Cache Enable (WCE): Enabled``.
* ``hdparm -I``: ``Model Number:``-style identity lines, a ``Commands/features`` list where ``*`` marks
  an enabled feature, and a ``Security:`` section of ``[not]<tab>state`` lines plus erase times.
* ``sg_opcodes``: one row per supported command, `` OP     SA       CDB ...  Name`` (``OP,SA   Name`` with
  ``--compact``); SANITIZE is opcode 0x48 with service actions 1 (overwrite), 2 (block erase) and 3
  (cryptographic erase), FORMAT UNIT is opcode 0x04.
* ``smartctl -j -a`` (smartmontools 7.x): ``smart_status.passed``, ``temperature.current``,
  ``power_on_time.hours``, ``ata_smart_attributes.table[].raw.value`` and
  ``nvme_smart_health_information_log``.
"""

from __future__ import annotations

import math
import re

# NVMe Data Units are thousands of 512-byte units (NVMe Base Spec, SMART / Health Information log page).
NVME_DATA_UNIT_BYTES = 512 * 1000

# Every purge method a parser below can report, plus the non-secure fallback the modules may offer.
# "secure" means the method is a purge in the sense of NIST SP 800-88 (media sanitization); the
# description is the one line a report prints for it.
PURGE_METHODS: dict[str, dict] = {
    "nvme_sanitize_crypto": {"secure": True, "description": "NVMe Sanitize, cryptographic erase (SANACT=4)"},
    "nvme_sanitize_block": {"secure": True, "description": "NVMe Sanitize, block erase (SANACT=2)"},
    "nvme_sanitize_overwrite": {"secure": True, "description": "NVMe Sanitize, overwrite (SANACT=3)"},
    "nvme_format_crypto": {"secure": True, "description": "NVMe Format with cryptographic erase (SES=2)"},
    "nvme_format_erase": {"secure": True, "description": "NVMe Format with user data erase (SES=1)"},
    "ata_sanitize_crypto": {"secure": True, "description": "ATA SANITIZE, CRYPTO SCRAMBLE EXT"},
    "ata_sanitize_block": {"secure": True, "description": "ATA SANITIZE, BLOCK ERASE EXT"},
    "ata_sanitize_overwrite": {"secure": True, "description": "ATA SANITIZE, OVERWRITE EXT"},
    "ata_security_erase_enhanced": {"secure": True, "description": "ATA SECURITY ERASE UNIT, enhanced mode"},
    "ata_security_erase": {"secure": True, "description": "ATA SECURITY ERASE UNIT, normal mode"},
    "scsi_sanitize_crypto": {"secure": True, "description": "SCSI SANITIZE, cryptographic erase (service action 3)"},
    "scsi_sanitize_block": {"secure": True, "description": "SCSI SANITIZE, block erase (service action 2)"},
    "scsi_sanitize_overwrite": {"secure": True, "description": "SCSI SANITIZE, overwrite (service action 1)"},
    "scsi_format_unit": {
        "secure": False,
        "description": "SCSI FORMAT UNIT: reinitialises the medium, not a sanitize; not a secure purge",
    },
    "discard": {"secure": False, "description": "blkdiscard of the whole device: not a secure purge"},
}

# One global strongest-first ranking (lower is stronger). Cryptographic erase and block erase act on
# all of the media including spare area; overwrite only reaches what the drive maps; a plain format
# or discard may leave data in unmapped blocks.
_RANK = {
    "nvme_sanitize_crypto": 0,
    "ata_sanitize_crypto": 0,
    "scsi_sanitize_crypto": 0,
    "nvme_sanitize_block": 1,
    "ata_sanitize_block": 1,
    "scsi_sanitize_block": 1,
    "nvme_format_crypto": 2,
    "ata_security_erase_enhanced": 2,
    "ata_security_erase": 3,
    "nvme_sanitize_overwrite": 4,
    "ata_sanitize_overwrite": 4,
    "scsi_sanitize_overwrite": 4,
    "nvme_format_erase": 5,
    "scsi_format_unit": 5,
    "discard": 6,
}

_SANITIZE_STATES = {0: "never", 1: "completed", 2: "in_progress", 3: "failed", 4: "completed_no_deallocate"}
_SSTAT_TEXT_RE = re.compile(r"^\s*\((\d+)\)")

_GET_FEATURE_RE = re.compile(
    r"get-feature:\s*(?:0x)?([0-9a-fA-F]+)\s*\([^)]*\),\s*(.+?)\s+value:\s*(?:0x)?([0-9a-fA-F]+)")
_WCE_HUMAN_RE = re.compile(r"Volatile Write Cache Enable \(WCE\)\s*:\s*(Enabled|Disabled|Yes|No)\b", re.IGNORECASE)
_VALUE_SELECTS = ("current", "default", "saved")

_ATA_ERASE_RE = re.compile(r"(more than )?(\d+)\s*min for SECURITY ERASE UNIT")
_ATA_ENHANCED_RE = re.compile(r"(more than )?(\d+)\s*min for ENHANCED SECURITY ERASE UNIT")
_ATA_SECURITY_RE = re.compile(r"^(?:(not|\(\?\))\s+)?(.+?)\s*$")

# sg_opcodes rows: " %.2x     %.4s       %3d ..." and, with --compact, " %.2x%c%.4s   %s".
_SG_ROW_RE = re.compile(r"^ ([0-9a-fA-F]{2}) {5}([ 0-9a-fA-F]{4}) {7}[ \d]{2}\d(?:\s|$)")
_SG_COMPACT_RE = re.compile(r"^ ([0-9a-fA-F]{2})([ ,])([ 0-9a-fA-F]{4}) {3}\S")
_SG_ANY_ROW_RE = re.compile(r"^\s*[0-9a-fA-F]{2}[\s,]")
_SCSI_BY_OPCODE = {
    (0x48, 3): "scsi_sanitize_crypto",
    (0x48, 2): "scsi_sanitize_block",
    (0x48, 1): "scsi_sanitize_overwrite",
    (0x04, None): "scsi_format_unit",
}
# sg_lib names, for output whose columns were re-flowed (names differ between sg3_utils releases).
_SCSI_BY_NAME = {
    "sanitize, cryptographic erase": "scsi_sanitize_crypto",
    "sanitize, block erase": "scsi_sanitize_block",
    "sanitize, overwrite": "scsi_sanitize_overwrite",
    "format unit": "scsi_format_unit",
}

_WCE_SDPARM_RE = re.compile(r"^\s*WCE\s+(\d+)\b", re.MULTILINE)
_WCE_HDPARM_RE = re.compile(r"write-caching\s*=\s*(\d+)")


def _require_dict(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a dict (the tool's JSON output), got {type(value).__name__}")
    return value


def _require_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a str (the tool's text output), got {type(value).__name__}")
    return value


def int_or_none(value: object) -> int | None:
    """An integer from a JSON number, a numeric string ("12,345", "0x1b36", "1.2e+07") or a float (truncated)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        try:
            if text.lower().startswith("0x"):
                return int(text, 16)
            return int(float(text)) if any(c in text for c in ".eE") else int(text)
        except (ValueError, OverflowError):
            return None
    return None


def _text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _first(data: dict, *keys: str) -> object:
    for key in keys:
        if key in data:
            return data[key]
    return None


def rank_purge_methods(methods: list[str]) -> list[str]:
    """Known methods strongest first (stable within a tier), unknown names and repeats dropped."""
    if not isinstance(methods, (list, tuple)):
        raise ValueError(f"methods must be a list of method names, got {type(methods).__name__}")
    seen: list[str] = []
    for name in methods:
        if name in _RANK and name not in seen:
            seen.append(name)
    return sorted(seen, key=lambda name: _RANK[name])


def nvme_identity(id_ctrl: dict) -> dict:
    """Identity, volatile write cache and supported purge methods from ``nvme id-ctrl -o json``."""
    data = _require_dict(id_ctrl, "id_ctrl")
    vid = int_or_none(data.get("vid"))
    oacs = int_or_none(data.get("oacs"))
    fna = int_or_none(data.get("fna"))
    sanicap = int_or_none(data.get("sanicap"))
    vwc = int_or_none(data.get("vwc"))
    methods = []
    if sanicap is not None:
        # SANICAP bit 0 CES, bit 1 BES, bit 2 OWS (NVMe Base Spec, Identify Controller).
        if sanicap & 0x1:
            methods.append("nvme_sanitize_crypto")
        if sanicap & 0x2:
            methods.append("nvme_sanitize_block")
        if sanicap & 0x4:
            methods.append("nvme_sanitize_overwrite")
    if oacs is not None and oacs & 0x2:  # OACS bit 1: Format NVM supported
        if fna is not None and fna & 0x4:  # FNA bit 2: cryptographic erase supported
            methods.append("nvme_format_crypto")
        methods.append("nvme_format_erase")
    return {
        "model": _text(data.get("mn")),
        "serial": _text(data.get("sn")),
        "firmware": _text(data.get("fr")),
        "vendor_id": f"{vid:04x}" if vid is not None else None,
        "purge_methods": rank_purge_methods(methods),
        "volatile_write_cache": bool(vwc & 0x1) if vwc is not None else None,
    }


def nvme_write_cache(text: str) -> bool | None:
    """Volatile write cache enable from ``nvme get-feature -f 6`` (with or without ``-H``); None if unknown."""
    text = _require_str(text, "text")
    human = _WCE_HUMAN_RE.search(text)
    if human:
        return human.group(1).lower() in ("enabled", "yes")
    match = _GET_FEATURE_RE.search(text)
    if not match or int(match.group(1), 16) != 0x06:
        return None
    if match.group(2).strip().lower() not in _VALUE_SELECTS:  # "Supported capabilities" is not a state
        return None
    return bool(int(match.group(3), 16) & 0x1)


def nvme_health(smart_log: dict) -> dict:
    """Normalized health counters from ``nvme smart-log -o json``; a missing key gives None."""
    data = _require_dict(smart_log, "smart_log")
    warning = data.get("critical_warning")
    if isinstance(warning, dict):  # --verbose prints the bits and the value as an object
        warning = warning.get("value")
    kelvin = int_or_none(data.get("temperature"))
    read_units = int_or_none(data.get("data_units_read"))
    written_units = int_or_none(data.get("data_units_written"))
    return {
        "critical_warning": int_or_none(warning),
        "temperature_c": kelvin - 273 if kelvin is not None else None,
        "available_spare_pct": int_or_none(_first(data, "avail_spare", "available_spare")),
        "percentage_used": int_or_none(_first(data, "percent_used", "percentage_used")),
        "bytes_read": read_units * NVME_DATA_UNIT_BYTES if read_units is not None else None,
        "bytes_written": written_units * NVME_DATA_UNIT_BYTES if written_units is not None else None,
        "power_on_hours": int_or_none(data.get("power_on_hours")),
        "unsafe_shutdowns": int_or_none(data.get("unsafe_shutdowns")),
        "media_errors": int_or_none(data.get("media_errors")),
        "error_log_entries": int_or_none(_first(data, "num_err_log_entries", "error_log_entries")),
    }


def _sanitize_page(data: dict) -> dict:
    if "sstat" in data or "sprog" in data:
        return data
    for value in data.values():  # {"nvme0": {...}}: keyed by the device name nvme-cli was given
        if isinstance(value, dict) and ("sstat" in value or "sprog" in value):
            return value
    return {}


def _sstat_status(sstat: object) -> int | None:
    if isinstance(sstat, dict):
        status = sstat.get("status")
        if status is None:  # some 2.x releases used the status text itself as the key
            status = next((v for v in sstat.values() if isinstance(v, str) and _SSTAT_TEXT_RE.match(v)), None)
        sstat = status
    if isinstance(sstat, str):
        match = _SSTAT_TEXT_RE.match(sstat)
        if match:
            return int(match.group(1)) & 0x7
    value = int_or_none(sstat)
    return value & 0x7 if value is not None else None


def nvme_sanitize_status(sanitize_log: dict) -> dict:
    """State of the most recent sanitize (SSTAT bits 2:0) and its progress from ``nvme sanitize-log``.

    ``progress_pct`` is SPROG/65536 while a sanitize runs, 100.0 once it completed, None otherwise.
    """
    page = _sanitize_page(_require_dict(sanitize_log, "sanitize_log"))
    status = _sstat_status(page.get("sstat"))
    state = _SANITIZE_STATES.get(status, "unknown") if status is not None else "unknown"
    sprog = int_or_none(page.get("sprog"))
    progress = None
    if state == "in_progress" and sprog is not None:
        progress = round(sprog * 100.0 / 65536, 2)
    elif state in ("completed", "completed_no_deallocate"):
        progress = 100.0
    return {"state": state, "progress_pct": progress}


def _hdparm_field(text: str, label: str) -> str | None:
    match = re.search(r"^[ \t]*" + re.escape(label) + r"[ \t]*(.*?)[ \t]*$", text, re.MULTILINE)
    return (match.group(1) or None) if match else None


def _hdparm_feature(text: str, name: str) -> bool | None:
    """True/False for a listed feature (``*`` = enabled), None when the feature is not listed."""
    match = re.search(r"^[ \t]*(\*?)[ \t]*" + re.escape(name) + r"[ \t]*$", text, re.MULTILINE)
    return bool(match.group(1)) if match else None


def _hdparm_security(text: str) -> dict:
    security = {"supported": False, "enabled": False, "locked": False, "frozen": False, "enhanced_erase": False,
                "erase_minutes": None, "enhanced_erase_minutes": None}
    states = {"supported": "supported", "enabled": "enabled", "locked": "locked", "frozen": "frozen",
              "supported: enhanced erase": "enhanced_erase"}
    in_section = False
    for line in text.splitlines():
        if line.strip() and not line[:1].isspace():
            in_section = line.strip().rstrip(":").strip() == "Security"
            continue
        if not in_section or not line.strip():
            continue
        body = line.strip()
        erase = _ATA_ERASE_RE.search(body)
        enhanced = _ATA_ENHANCED_RE.search(body)
        if erase or enhanced:
            # "more than 508min" is the field's maximum (0xff); it is reported as 508.
            if erase:
                security["erase_minutes"] = int(erase.group(2))
            if enhanced:
                security["enhanced_erase_minutes"] = int(enhanced.group(2))
            continue
        match = _ATA_SECURITY_RE.match(body)
        key = states.get(match.group(2)) if match else None
        if key:
            security[key] = match.group(1) is None
    return security


def ata_identity(hdparm_i: str) -> dict:
    """Identity, rotation, write cache, security state and purge methods from ``hdparm -I``."""
    text = _require_str(hdparm_i, "hdparm_i")
    rate = _hdparm_field(text, "Nominal Media Rotation Rate:")
    if rate is None:
        rotational = None
    elif rate.lower().startswith("solid state"):
        rotational = False
    else:
        rotational = True if re.match(r"\d+$", rate) else None
    security = _hdparm_security(text)
    methods = []
    if _hdparm_feature(text, "SANITIZE feature set") is not None:
        # SANITIZE is not blocked by the ATA security freeze (it has its own freeze lock).
        for command, method in (("CRYPTO_SCRAMBLE_EXT command", "ata_sanitize_crypto"),
                                ("BLOCK_ERASE_EXT command", "ata_sanitize_block"),
                                ("OVERWRITE_EXT command", "ata_sanitize_overwrite")):
            if _hdparm_feature(text, command) is not None:
                methods.append(method)
    if security["supported"] and not security["frozen"] and not security["locked"]:
        if security["enhanced_erase"]:
            methods.append("ata_security_erase_enhanced")
        methods.append("ata_security_erase")
    return {
        "model": _hdparm_field(text, "Model Number:"),
        "serial": _hdparm_field(text, "Serial Number:"),
        "firmware": _hdparm_field(text, "Firmware Revision:"),
        "rotational": rotational,
        "write_cache": _hdparm_feature(text, "Write cache"),
        "security": security,
        "purge_methods": rank_purge_methods(methods),
    }


def _sg_opcode(line: str) -> tuple[int, int | None] | None:
    match = _SG_ROW_RE.match(line)
    if match:
        service_action = match.group(2).strip()
        return int(match.group(1), 16), int(service_action, 16) if service_action else None
    match = _SG_COMPACT_RE.match(line)
    if match:
        service_action = match.group(3).strip() if match.group(2) == "," else ""
        return int(match.group(1), 16), int(service_action, 16) if service_action else None
    return None


def scsi_purge_methods(sg_opcodes_text: str) -> list[str]:
    """Purge commands a SCSI device reports in ``sg_opcodes`` (REPORT SUPPORTED OPERATION CODES)."""
    text = _require_str(sg_opcodes_text, "sg_opcodes_text")
    methods = []
    for line in text.splitlines():
        method = None
        opcode = _sg_opcode(line)
        if opcode is not None:
            method = _SCSI_BY_OPCODE.get(opcode)
        if method is None and _SG_ANY_ROW_RE.match(line):
            name = line.strip().lower()
            method = next((m for n, m in _SCSI_BY_NAME.items() if name.endswith(n)), None)
        if method:
            methods.append(method)
    return rank_purge_methods(methods)


def scsi_write_cache(sdparm_or_sg_text: str) -> bool | None:
    """WCE from ``sdparm --get=WCE`` (or hdparm -W's ``write-caching =`` line); None when absent."""
    text = _require_str(sdparm_or_sg_text, "sdparm_or_sg_text")
    match = _WCE_SDPARM_RE.search(text) or _WCE_HDPARM_RE.search(text)
    return int(match.group(1)) != 0 if match else None


def _ata_attribute(table: list, attr_id: int) -> dict | None:
    for attr in table:
        if isinstance(attr, dict) and int_or_none(attr.get("id")) == attr_id:
            return attr
    return None


def _raw_value(attr: dict | None) -> int | None:
    raw = attr.get("raw") if attr else None
    return int_or_none(raw.get("value")) if isinstance(raw, dict) else None


def smart_health(smartctl_json: dict) -> dict:
    """Health summary from ``smartctl -j -a`` for ATA and NVMe drives; anything not reported is None."""
    data = _require_dict(smartctl_json, "smartctl_json")

    def section(key: str) -> dict:
        value = data.get(key)
        return value if isinstance(value, dict) else {}

    passed = section("smart_status").get("passed")
    table = section("ata_smart_attributes").get("table")
    table = table if isinstance(table, list) else []
    nvme = section("nvme_smart_health_information_log")

    bytes_written = None
    units = int_or_none(nvme.get("data_units_written"))
    if units is not None:
        bytes_written = units * NVME_DATA_UNIT_BYTES
    else:
        attr = _ata_attribute(table, 241)
        lbas = _raw_value(attr) if attr and attr.get("name") == "Total_LBAs_Written" else None
        block = int_or_none(data.get("logical_block_size"))
        if lbas is not None and block:
            bytes_written = lbas * block
    return {
        "passed": passed if isinstance(passed, bool) else None,
        "temperature_c": int_or_none(section("temperature").get("current")),
        "power_on_hours": int_or_none(section("power_on_time").get("hours")),
        "reallocated_sectors": _raw_value(_ata_attribute(table, 5)),
        "pending_sectors": _raw_value(_ata_attribute(table, 197)),
        "offline_uncorrectable": _raw_value(_ata_attribute(table, 198)),
        "media_errors": int_or_none(nvme.get("media_errors")),
        "percentage_used": int_or_none(nvme.get("percentage_used")),
        "bytes_written": bytes_written,
    }
