# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What the drive's own tools say and do: identity, purge methods, write cache, health, and the purge commands.

Every function takes ``run(argv) -> (rc, stdout, stderr)`` and ``which(name) -> path or None`` so unit tests
can stand in for nvme-cli, hdparm, sg3-utils, sdparm and smartctl. Parsing lives in ``_drive_tools``.
"""

from __future__ import annotations

import json
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._drive_tools import (
    PURGE_METHODS,
    ata_identity,
    nvme_health,
    nvme_identity,
    nvme_sanitize_status,
    nvme_write_cache,
    rank_purge_methods,
    scsi_purge_methods,
    scsi_write_cache,
    smart_health,
)

# The write cache a PTS run asks for; "unchanged" leaves the drive as it is and only reports it.
WRITE_CACHE_MODES = ("disabled", "enabled", "unchanged")
# Sanitize and ATA security erase run inside the drive; this is how long a purge may take before it is failed.
PURGE_TIMEOUT_S = 24 * 3600
# The ATA security password set only to run the erase (the erase clears it again).
_ATA_PASSWORD = "fleetqual"


def _json(run, argv: list[str]) -> tuple[dict | None, str | None]:
    rc, out, err = run(argv)
    if rc != 0:
        return None, f"{' '.join(argv)} failed (rc {rc}): {(err or out).strip()[:300]}"
    try:
        return json.loads(out), None
    except ValueError:
        return None, f"{' '.join(argv)} printed no JSON"


def nvme_controller(info: dict) -> str | None:
    """/dev/nvmeX of a namespace /dev/nvmeXnY (sanitize, id-ctrl and smart-log address the controller)."""
    name = info.get("name") or ""
    if info.get("interface") != "NVMe" or "n" not in name[4:]:
        return None
    return "/dev/" + name[:4 + name[4:].index("n")]


def tool_facts(info: dict, run, which, with_health: bool = True) -> dict:
    """Identity the tools add, the purge methods the drive supports (strongest first), write cache and health."""
    facts: dict = {"tool_errors": [], "device_write_cache": None, "write_cache_tool": None, "health": None}
    methods: list[str] = []
    node = info.get("resolved")
    interface = info.get("interface")
    if info.get("kind") != "disk":
        facts["purge_methods"] = ["discard"] if info.get("discard") else []
        return facts
    if interface == "NVMe" and which("nvme"):
        ctrl = nvme_controller(info)
        data, error = _json(run, [which("nvme"), "id-ctrl", ctrl, "-o", "json"])
        if data:
            ident = nvme_identity(data)
            facts["identity"] = {k: ident.get(k) for k in ("model", "serial", "firmware")}
            methods += ident["purge_methods"]
            if ident.get("volatile_write_cache"):
                rc, out, dummy = run([which("nvme"), "get-feature", node, "-f", "6"])
                facts["device_write_cache"] = nvme_write_cache(out) if rc == 0 else None
                facts["write_cache_tool"] = "nvme"
            else:
                facts["write_cache_note"] = "the controller reports no volatile write cache"
        facts["tool_errors"] += [error] if error else []
    elif interface == "SATA" and which("hdparm"):
        rc, out, err = run([which("hdparm"), "-I", node])
        if rc == 0:
            ident = ata_identity(out)
            facts["identity"] = {k: ident.get(k) for k in ("model", "serial", "firmware")}
            facts["ata_security"] = ident.get("security")
            methods += ident.get("purge_methods", [])
            facts["device_write_cache"] = ident.get("write_cache")
            facts["write_cache_tool"] = "hdparm"
        else:
            facts["tool_errors"].append(f"hdparm -I {node} failed (rc {rc}): {err.strip()[:300]}")
    elif interface == "SCSI/SAS":
        if which("sg_opcodes"):
            rc, out, dummy = run([which("sg_opcodes"), node])
            methods += scsi_purge_methods(out) if rc == 0 else []
        if which("sdparm"):
            rc, out, dummy = run([which("sdparm"), "--get=WCE", node])
            facts["device_write_cache"] = scsi_write_cache(out) if rc == 0 else None
            facts["write_cache_tool"] = "sdparm"
    if info.get("discard"):
        methods.append("discard")
    facts["purge_methods"] = rank_purge_methods(methods)
    facts["health"] = health(info, run, which) if with_health else None
    return facts


def health(info: dict, run, which) -> dict | None:
    """A SMART / NVMe health snapshot, or None for devices that have none (loop, zram, virtio)."""
    interface = info.get("interface")
    if info.get("kind") != "disk" or interface not in ("NVMe", "SATA", "SCSI/SAS"):
        return None
    if interface == "NVMe" and which("nvme"):
        data, error = _json(run, [which("nvme"), "smart-log", nvme_controller(info), "-o", "json"])
        return dict(nvme_health(data), tool="nvme smart-log") if data else {"tool": "nvme smart-log", "error": error}
    if which("smartctl"):
        # smartctl's exit status is a bit mask of findings, not a failure: read the JSON whatever it is.
        rc, out, dummy = run([which("smartctl"), "-j", "-a", info["resolved"]])
        try:
            return dict(smart_health(json.loads(out)), tool="smartctl", smartctl_status=rc)
        except ValueError:
            return {"tool": "smartctl", "error": f"smartctl printed no JSON (rc {rc})"}
    return None


def write_cache_commands(info: dict, tool: str | None, enable: bool, which) -> list[list[str]] | None:
    """The commands that set the drive's volatile write cache, or None when the drive has none to set."""
    node = info.get("resolved")
    if tool == "nvme":
        # Volatile Write Cache is a controller feature: a namespace's NSID is refused ("not namespace specific").
        return [[which("nvme"), "set-feature", nvme_controller(info), "--namespace-id=0", "-f", "6",
                 "-v", "1" if enable else "0"]]
    if tool == "hdparm":
        return [[which("hdparm"), "-W", "1" if enable else "0", node]]
    if tool == "sdparm":
        return [[which("sdparm"), "--set" if enable else "--clear", "WCE", node]]
    return None


def purge_commands(method: str, info: dict, which) -> list[list[str]]:
    """The commands of one purge method, in order; the last one starts (or is) the erase."""
    node = info["resolved"]
    nvme, hdparm = which("nvme"), which("hdparm")
    sanact = {"nvme_sanitize_block": "2", "nvme_sanitize_overwrite": "3", "nvme_sanitize_crypto": "4"}
    if method in sanact:
        return [[nvme, "sanitize", nvme_controller(info), "--sanact=" + sanact[method]]]
    if method in ("nvme_format_erase", "nvme_format_crypto"):
        ses = "1" if method == "nvme_format_erase" else "2"
        return [[nvme, "format", node, "--ses=" + ses, "--force"]]
    if method in ("ata_security_erase", "ata_security_erase_enhanced"):
        erase = "--security-erase-enhanced" if method.endswith("enhanced") else "--security-erase"
        return [[hdparm, "--user-master", "u", "--security-set-pass", _ATA_PASSWORD, node],
                [hdparm, "--user-master", "u", erase, _ATA_PASSWORD, node]]
    ata_sanitize = {"ata_sanitize_crypto": "--sanitize-crypto-scramble", "ata_sanitize_block": "--sanitize-block-erase",
                    "ata_sanitize_overwrite": "--sanitize-overwrite"}
    if method in ata_sanitize:
        extra = ["hex:00000000"] if method == "ata_sanitize_overwrite" else []
        return [[hdparm, "--yes-i-know-what-i-am-doing", ata_sanitize[method], *extra, node]]
    scsi_sanitize = {"scsi_sanitize_crypto": "--crypto", "scsi_sanitize_block": "--block",
                     "scsi_sanitize_overwrite": "--overwrite"}
    if method in scsi_sanitize:
        return [[which("sg_sanitize"), "--quick", "--wait", scsi_sanitize[method], node]]
    if method == "scsi_format_unit":
        return [[which("sg_format"), "--format", "--quick", "--wait", node]]
    if method == "discard":
        # No --force: blkdiscard then opens the device O_EXCL and refuses a device someone else holds.
        return [[which("blkdiscard"), node]]
    raise ValueError(f"unknown purge method {method!r}")


def wait_for_sanitize(info: dict, run, which, timeout: float = PURGE_TIMEOUT_S, sleep=time.sleep) -> str | None:
    """Poll the sanitize log until the operation ends; return None on success, else why it failed."""
    deadline = time.monotonic() + timeout
    while True:
        data, error = _json(run, [which("nvme"), "sanitize-log", nvme_controller(info), "-o", "json"])
        if error:
            return error
        status = nvme_sanitize_status(data)
        if status["state"] in ("completed", "completed_no_deallocate"):
            return None
        if status["state"] == "failed":
            return "the drive reports the sanitize operation failed"
        if status["state"] != "in_progress" or time.monotonic() > deadline:
            return f"sanitize did not finish: state {status['state']}, progress {status.get('progress_pct')} %"
        sleep(5)


def verify_ata_erase(info: dict, run, which) -> str | None:
    """After a security erase the drive must be unlocked with security disabled again."""
    rc, out, err = run([which("hdparm"), "-I", info["resolved"]])
    if rc != 0:
        return f"hdparm -I after the erase failed (rc {rc}): {err.strip()[:300]}"
    security = ata_identity(out).get("security") or {}
    if security.get("enabled") or security.get("locked"):
        return "the drive still has security enabled or locked after the erase"
    return None


def purge_record(method: str, elapsed_s: float | None = None) -> dict:
    spec = PURGE_METHODS[method]
    note = spec["description"]
    if not spec["secure"] and "not a secure purge" not in note:
        note += ": not a secure purge"
    return {"method": method, "secure": spec["secure"], "note": note, "elapsed_s": elapsed_s}


def ata_frozen_reason(facts: dict) -> str | None:
    security = facts.get("ata_security") or {}
    if security.get("frozen"):
        return ("the drive's ATA security is frozen (the BIOS froze it at boot): a suspend/resume cycle or a "
                "hot re-plug unfreezes it")
    return None
