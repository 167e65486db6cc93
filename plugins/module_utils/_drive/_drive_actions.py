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
import os
import secrets
import time

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive._drive_tools import (
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
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _health

# The write cache a PTS run asks for; "unchanged" leaves the drive as it is and only reports it.
WRITE_CACHE_MODES = ("disabled", "enabled", "unchanged")
# Sanitize and ATA security erase run inside the drive; this is how long a purge may take before it is failed.
PURGE_TIMEOUT_S = 24 * 3600
# ATA SECURITY ERASE UNIT needs a user password set first (the erase clears it again). Each erase sets a new random
# one, written before it is set to a root-only file in the run's remote directory, so a drive an interrupted erase
# leaves locked can always be unlocked - and the password never appears in a message, a result or a log.
ATA_SECRET_DIR = "ata-security"
_ATA_PASSWORD_BYTES = 16  # 32 hex characters: an ATA password is 32 bytes


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
    return _health.nvme_controller(info.get("name") or "") if info.get("interface") == "NVMe" else None


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
        # SATA: with the device statistics log, where ATA keeps its Percentage Used Endurance Indicator.
        devstat = ["-l", "devstat"] if interface == "SATA" else []
        rc, out, dummy = run([which("smartctl"), "-j", "-a", *devstat, info["resolved"]])
        try:
            parsed = json.loads(out)
            # The wear budget needs the percentage used before the first write: ATA and SCSI report it elsewhere.
            return dict(smart_health(parsed), tool="smartctl", smartctl_status=rc,
                        percentage_used=_health.smartctl_reading(parsed).get("percentage_used"))
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


def purge_commands(method: str, info: dict, which, password: str | None = None, held: bool = False) -> list[list[str]]:
    """The commands of one purge method, in order; the last one starts (or is) the erase. The ATA security erase
    methods need the run's password (see ata_security_erase, which runs them). ``held``: this run's holder has the
    device open exclusively, and the caller has just verified it (see _guard.recheck)."""
    node = info["resolved"]
    nvme, hdparm = which("nvme"), which("hdparm")
    sanact = {"nvme_sanitize_block": "2", "nvme_sanitize_overwrite": "3", "nvme_sanitize_crypto": "4"}
    if method in sanact:
        return [[nvme, "sanitize", nvme_controller(info), "--sanact=" + sanact[method]]]
    if method in ("nvme_format_erase", "nvme_format_crypto"):
        ses = "1" if method == "nvme_format_erase" else "2"
        return [[nvme, "format", node, "--ses=" + ses, "--force"]]
    if method in ("ata_security_erase", "ata_security_erase_enhanced"):
        if not password:
            raise InputError(f"{method} needs the run's ATA password")
        return [ata_security_command("set", info, which, password),
                ata_security_command("erase_enhanced" if method.endswith("enhanced") else "erase", info, which, password)]
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
        # blkdiscard (util-linux 2.36+) opens the device O_EXCL unless --force, and so refuses a device someone else
        # claims. While this run's verified holder has the claim that open would fail on our own hold, and the hold
        # itself is the proof nobody else has one: only then --force (a plain O_RDWR open).
        return [[which("blkdiscard"), "--force", node]] if held else [[which("blkdiscard"), node]]
    raise InputError(f"unknown purge method {method!r}")


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


def ata_password_file(remote_dir: str, info: dict) -> str:
    """Where the run keeps the ATA password of one drive: <remote dir>/ata-security/<kernel name>.password."""
    return os.path.join(remote_dir, ATA_SECRET_DIR, f"{os.path.basename(info['resolved'])}.password")


def new_ata_password() -> str:
    return secrets.token_hex(_ATA_PASSWORD_BYTES)


def store_secret(path: str, secret: str) -> None:
    """Write ``secret`` to ``path``, readable by its owner only (0600), in a directory only its owner can enter
    (0700); written whole (temporary file, fsync, rename) so a crash leaves the old file or the new one."""
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if os.path.islink(directory):
        raise OSError(f"{directory} is a symbolic link: refused for a secret")
    os.chmod(directory, 0o700)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, secret.encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def ata_security_command(step: str, info: dict, which, password: str) -> list[str]:
    """One hdparm security command (user password): set, erase, erase_enhanced, disable or unlock."""
    flags = {"set": "--security-set-pass", "erase": "--security-erase", "erase_enhanced": "--security-erase-enhanced",
             "disable": "--security-disable", "unlock": "--security-unlock"}
    return [which("hdparm"), "--user-master", "u", flags[step], password, info["resolved"]]


def ata_unlock_instructions(node: str, password_file: str) -> str:
    """How to unlock a drive an erase left with security enabled, by the password file - never the password."""
    return (f"as root on the host: hdparm --user-master u --security-unlock \"$(cat {password_file})\" {node} && "
            f"hdparm --user-master u --security-disable \"$(cat {password_file})\" {node}; then delete "
            f"{password_file}")


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "********") if secret else text


def _security_state(info: dict, run, which) -> dict | None:
    rc, out, dummy = run([which("hdparm"), "-I", info["resolved"]])
    return (ata_identity(out).get("security") or {}) if rc == 0 else None


def ata_security_erase(method: str, info: dict, run, which, password_file: str, security: dict | None = None,
                       password: str | None = None) -> tuple[str | None, list[list[str]]]:
    """Run an ATA security erase with a new per-run password kept in ``password_file``.

    Returns (None, commands run) on success - security is disabled again and the password file removed - or (why it
    failed, commands run). On failure, security is disabled again when the drive allows it; otherwise the password
    file stays and the message says how to unlock the drive with it. No message holds the password.
    """
    node = info["resolved"]
    ran: list[list[str]] = []
    if not which("hdparm"):
        return f"{method} needs hdparm, which is not installed", ran
    if (security or {}).get("enabled"):
        known = (f"; it may be the password an earlier erase left in {password_file}: "
                 f"{ata_unlock_instructions(node, password_file)}") if os.path.exists(password_file) else (
            ": its password is not one this collection set")
        return f"refused {method}: the drive already has ATA security enabled{known}; nothing was written", ran
    password = password or new_ata_password()
    try:
        store_secret(password_file, password)
    except OSError as exc:
        return f"refused {method}: cannot keep the drive's ATA password in {password_file} ({exc}); nothing was written", ran

    def step(argv: list[str]) -> str | None:
        ran.append(argv)
        rc, out, err = run(argv)
        if rc == 0:
            return None
        shown = " ".join("********" if part == password else part for part in argv)
        return redact(f"{shown} failed (rc {rc}): {(err or out).strip()[:500]}", password)

    error = None
    for argv in purge_commands(method, info, which, password):
        error = step(argv)
        if error:
            break
    if not error:
        error = verify_ata_erase(info, run, which)
        if not error:
            os.unlink(password_file)
            return None, ran
    # The erase did not finish: take the password off again if the drive lets us, else say how to.
    disable_error = step(ata_security_command("disable", info, which, password))
    state = _security_state(info, run, which)
    if not disable_error and state is not None and not state.get("enabled") and not state.get("locked"):
        os.unlink(password_file)
        return f"{error}; ATA security was disabled again, the drive is unlocked", ran
    return (f"{error}; the drive may be left with ATA security enabled (and locked after a power cycle) under the "
            f"run's password, kept in {password_file}: {ata_unlock_instructions(node, password_file)}"), ran
