# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What sysfs says about a block device: small reads, device numbers, partitions and holders, every block device
of the host, the serial and WWN a disk reports (and how two compare), and the PCI function it hangs off.

Every function takes its paths (or the sysfs root) as arguments, so unit tests can point them at a fake tree, and reads
only: nothing here opens a device.
"""

from __future__ import annotations

import os
import re


_PCI_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def node_stat(path: str) -> os.stat_result:
    """os.stat, in one place so unit tests can give fake nodes a block device's mode and number."""
    return os.stat(path)


def read_bytes(path: str) -> bytes | None:
    # os-level reads: a re-check reads a few files of every block device, and open() costs several times more.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    chunks = []
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read(path: str) -> str | None:
    data = read_bytes(path)
    return None if data is None else data.decode("utf-8", "replace").strip()


def read_line(path: str) -> str | None:
    """One sysfs line without its newline, other whitespace kept (a file name may end in a space)."""
    data = read_bytes(path)
    if data is None:
        return None
    text = data.decode("utf-8", "surrogateescape")
    return text[:-1] if text.endswith("\n") else text


def read_int(path: str) -> int | None:
    text = read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def devnum_of(number: int) -> str:
    return f"{os.major(number)}:{os.minor(number)}"


def partitions(sysdir: str) -> list[str]:
    # A partition's directory sits inside its disk's and carries the disk's name as a prefix (sda1, nvme0n1p1).
    name = os.path.basename(sysdir)
    try:
        entries = sorted(os.listdir(sysdir))
    except OSError:
        return []
    return [e for e in entries if e.startswith(name) and os.path.exists(os.path.join(sysdir, e, "partition"))]


def holders(sysdir: str) -> list[str]:
    try:
        return sorted(os.listdir(os.path.join(sysdir, "holders")))
    except OSError:
        return []


def _vpd_serial(device_dir: str) -> str | None:
    """Unit serial number from SCSI VPD page 0x80 (SATA and SAS disks have no sysfs serial file)."""
    try:
        with open(os.path.join(device_dir, "vpd_pg80"), "rb") as handle:
            page = handle.read()
    except OSError:
        return None
    if len(page) < 4 or page[1] != 0x80:
        return None
    length = int.from_bytes(page[2:4], "big")
    return page[4:4 + length].decode("ascii", "replace").strip() or None


def serial_wwn(disk_dir: str) -> tuple[str | None, str | None]:
    device = os.path.join(disk_dir, "device")
    serial = read(os.path.join(device, "serial")) or read(os.path.join(disk_dir, "serial")) or _vpd_serial(device)
    wwn = read(os.path.join(disk_dir, "wwid")) or read(os.path.join(device, "wwid"))
    return serial or None, wwn or None


def hidden(sysdir: str) -> bool:
    # Native NVMe multipath shows each path (nvme0c1n1) as a hidden disk under the visible head (nvme0n1).
    return read(os.path.join(sysdir, "hidden")) == "1"


def controller_of(disk_dir: str) -> dict:
    """The PCI function the disk hangs off (the HBA, NVMe controller or virtio device), as sysfs shows it."""
    path = os.path.realpath(os.path.join(disk_dir, "device"))
    while path not in ("/", "") and not _PCI_RE.match(os.path.basename(path)):
        path = os.path.dirname(path)
    if not _PCI_RE.match(os.path.basename(path)):
        return {}
    ids = [(read(os.path.join(path, name)) or "").replace("0x", "") for name in ("vendor", "device")]
    driver = os.path.realpath(os.path.join(path, "driver"))
    return {
        "pci": os.path.basename(path),
        "ids": ":".join(ids) if all(ids) else None,
        "driver": os.path.basename(driver) if os.path.exists(driver) else None,
    }


def block_devices(sys_root: str) -> dict[str, dict]:
    """Every block device of the host, disks and partitions: name -> name, sysdir, parent disk, devnum."""
    devices: dict[str, dict] = {}
    block = f"{sys_root}/block"
    try:
        disks = sorted(os.listdir(block))
    except OSError:
        return devices
    for disk in disks:
        sysdir = f"{block}/{disk}"
        devices[disk] = {"name": disk, "sysdir": sysdir, "parent": None, "devnum": read(f"{sysdir}/dev")}
    # A partition is in class/block but not in block/; its link ends in .../<disk>/<partition>. One readlink
    # each instead of listing every disk's directory.
    class_block = f"{sys_root}/class/block"
    try:
        parts = sorted(set(os.listdir(class_block)) - set(disks))
    except OSError:
        parts = []
    for part in parts:
        try:
            disk = os.path.basename(os.path.dirname(os.readlink(f"{class_block}/{part}")))
        except OSError:
            continue
        if disk in devices:
            sysdir = f"{block}/{disk}/{part}"
            devices[part] = {"name": part, "sysdir": sysdir, "parent": disk, "devnum": read(f"{sysdir}/dev")}
    return devices


def rdevs_of(devnums: dict[str, str]) -> set[int]:
    rdevs = set()
    for dev in devnums:
        major, sep, minor = dev.partition(":")
        if sep and major.isdigit() and minor.isdigit():
            rdevs.add(os.makedev(int(major), int(minor)))
    return rdevs


def normalize_wwn(value: str | None) -> str | None:
    """WWNs are written many ways (0x5000c500..., naa.5000c500..., eui.00...): compare the hex digits."""
    if not value:
        return None
    text = value.strip().lower()
    for prefix in ("0x", "naa.", "eui.", "t10.", "wwn-0x", "wwn-"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text


def same_identity(field: str, want: str, have: str | None) -> bool:
    if field == "wwn":
        return normalize_wwn(want) == normalize_wwn(have)
    return have is not None and want.strip() == have.strip()
