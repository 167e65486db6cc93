# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The bus a disk is attached by (the drive's ``interface``), and which source said so.

The interface decides which drive tools identify and purge it (``_drive_actions``): ``SATA`` gets hdparm (ATA security
erase, ATA sanitize), ``SCSI/SAS`` sg_opcodes/sg_sanitize/sg_format, ``NVMe`` nvme-cli. Every SCSI-attached disk is
``sdX``, so the kernel name alone cannot tell a SATA or SAS drive from a USB enclosure, an iSCSI LUN or a Fibre Channel
LUN. In order:

1. The transport, read from sysfs exactly as lsblk computes its TRAN column (util-linux ``get_transport``: the class
   of the disk's SCSI host, ``/sys/class/<type>_host/hostH``, and for USB the path of its SCSI device). Read here
   rather than by running lsblk, so every module that probes a drive - identify, and the purge's own re-probe right
   before it writes - decides alike, with no subprocess and on hosts without udev.
2. udev's ``ID_BUS`` from its database (``/run/udev/data/b<major>:<minor>``, what ``udevadm info`` prints), for
   hosts where the transport is not telling (virtio-scsi, some RAID HBAs).
3. The kernel name, as before (``sd*`` with the ATA Information VPD page is SATA, without it SCSI/SAS); the VPD
   page also outweighs udev's ``ID_BUS=scsi``, which is only udev's fallback when its ata_id did not run.

USB comes first whatever the others say: udev runs ata_id on a non-removable USB enclosure and records
``ID_BUS=ata`` for it, and the enclosure's bridge may answer hdparm -I through SAT, but an ATA security erase or
sanitize through a bridge can leave the drive locked or half-erased (bridges drop or time out long pass-through
commands). A USB, FireWire, iSCSI, Fibre Channel or NVMe-over-fabrics disk gets none of the drive-level purge commands
(_drive_actions runs them for SATA, SCSI/SAS and NVMe only): discard when the device offers it, else no purge method,
and the test refuses to run.
"""

from __future__ import annotations

import glob
import os
import re

_HCTL_RE = re.compile(r"^(\d+):(\d+):(\d+):(\d+)$")
# udev's ID_BUS values (60-persistent-storage.rules) and what they make the drive.
_UDEV_BUSES = {"ata": "SATA", "scsi": "SCSI/SAS", "usb": "USB", "ieee1394": "FireWire"}
# lsblk's TRAN values for SCSI hosts, and what they make the drive.
_TRANSPORTS = {"sata": "SATA", "ata": "SATA", "sas": "SCSI/SAS", "spi": "SCSI/SAS", "fc": "FC", "fcoe": "FC",
               "iscsi": "iSCSI", "usb": "USB", "sbp": "FireWire"}
# Kernel names that say what the device is; none of them has a SCSI host.
_NAMED = (("nvme", "NVMe"), ("loop", "loop"), ("zram", "zram"), ("vd", "virtio"), ("md", "md"),
          ("dm-", "device-mapper"))
SOURCE_TRANSPORT = "sysfs transport (lsblk TRAN)"
SOURCE_UDEV = "udev ID_BUS"
SOURCE_NAME = "kernel name"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.readline().strip()
    except OSError:
        return None


def _readlink(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def scsi_transport(disk_dir: str, sys_root: str = "/sys") -> str | None:
    """The SCSI transport of a disk as lsblk's TRAN column says it (spi, fc, fcoe, sas, sbp, iscsi, usb, sata, ata),
    or None: not a SCSI disk, or a host of no known transport class (virtio-scsi, many RAID HBAs)."""
    link = _readlink(os.path.join(disk_dir, "device"))
    match = _HCTL_RE.match(os.path.basename(link or ""))
    if not match:
        return None
    hctl, host = match.group(0), match.group(1)

    def host_is(kind: str) -> bool:
        return os.path.isdir(os.path.join(sys_root, "class", f"{kind}_host", f"host{host}"))

    device = os.path.join(sys_root, "bus", "scsi", "devices", hctl)
    if host_is("spi"):
        return "spi"
    if host_is("fc"):
        name = _read(os.path.join(sys_root, "class", "fc_host", f"host{host}", "symbolic_name"))
        if not name:
            return None
        return "fcoe" if " over " in name else "fc"
    if host_is("sas") or os.path.exists(os.path.join(device, "sas_device")):
        return "sas"
    if os.path.exists(os.path.join(device, "ieee1394_id")):
        return "sbp"
    if host_is("iscsi"):
        return "iscsi"
    if os.path.exists(device) and "usb" in (_readlink(device) or ""):
        return "usb"
    if host_is("scsi"):
        proc_name = _read(os.path.join(sys_root, "class", "scsi_host", f"host{host}", "proc_name"))
        if not proc_name:
            return None
        if proc_name.startswith(("ahci", "sata")):
            return "sata"
        if "ata" in proc_name:
            return "ata"
    return None


def nvme_transport(disk_dir: str) -> str | None:
    """pcie, tcp, rdma, fc or loop: the transport of the NVMe controller(s) behind a namespace; with native multipath
    the namespace head's device is the subsystem, and a non-PCIe path among its controllers counts."""
    device = os.path.join(disk_dir, "device")
    found = [_read(os.path.join(device, "transport"))]
    found += [_read(path) for path in sorted(glob.glob(os.path.join(device, "nvme*", "transport")))]
    found = [value for value in found if value]
    return next((value for value in found if value != "pcie"), found[0] if found else None)


def udev_properties(text: str) -> dict[str, str]:
    """The properties of a udev database record (``E:KEY=VALUE`` lines) or of ``udevadm info --query=property``
    output (``KEY=VALUE`` lines)."""
    found = {}
    for line in text.splitlines():
        if line[1:2] == ":":
            if not line.startswith("E:"):
                continue  # S: links, W:/I: sequence and time, G:/Q: tags, V: version
            line = line[2:]
        key, sep, value = line.partition("=")
        if sep and key and " " not in key:
            found[key] = value
    return found


def udev_record(devnum: str, udev_dir: str | None = "/run/udev/data") -> dict[str, str] | None:
    """udev's properties of the block device ``major:minor``, or None (no udev on the host, or no record)."""
    if not udev_dir:
        return None
    try:
        with open(os.path.join(udev_dir, f"b{devnum}"), encoding="utf-8", errors="replace") as handle:
            return udev_properties(handle.read(65536))
    except OSError:
        return None


def _udev_says(udev: dict[str, str]) -> str | None:
    """What udev's record makes the drive: its ID_BUS, USB also by the USB driver or path it names."""
    bus = (udev.get("ID_BUS") or "").lower()
    path = udev.get("ID_PATH") or ""
    if bus == "usb" or udev.get("ID_USB_DRIVER") or "-usb-" in path:
        return "USB"
    if "-iscsi-" in path:
        return "iSCSI"
    if re.search(r"-fc-|-fcoe-", path):
        return "FC"
    return _UDEV_BUSES.get(bus)


def decide(name: str, transport: str | None = None, udev: dict[str, str] | None = None, ata_vpd: bool = False,
           nvme: str | None = None) -> dict:
    """The drive's interface and how it was decided.

    ``name`` is the disk's kernel name, ``transport`` scsi_transport()'s answer, ``udev`` udev_record()'s, ``ata_vpd``
    whether the disk has the ATA Information VPD page (a SCSI-ATA translation layer answers for an ATA drive), ``nvme``
    nvme_transport()'s answer for an NVMe namespace.
    """
    udev = udev or {}
    record = {"transport": transport, "udev_bus": udev.get("ID_BUS") or None}
    for prefix, interface in _NAMED:
        if name.startswith(prefix):
            if interface == "NVMe":
                record["transport"] = nvme
                # NVMe over TCP, RDMA or FC: a remote target's namespace, not a drive nvme-cli may format or sanitize.
                interface = "NVMe-oF" if nvme and nvme != "pcie" else interface
            return dict(record, interface=interface, source=SOURCE_NAME)
    told = _udev_says(udev)
    if transport == "usb" or told == "USB":
        return dict(record, interface="USB", source=SOURCE_TRANSPORT if transport == "usb" else SOURCE_UDEV)
    if transport in _TRANSPORTS:
        interface = _TRANSPORTS[transport]
        if transport == "sas" and (ata_vpd or told == "SATA"):
            interface = "SATA"  # a SATA drive on a SAS HBA: ATA commands reach it through the HBA's SAT layer
        return dict(record, interface=interface, source=SOURCE_TRANSPORT)
    # ID_BUS=scsi is udev's fallback (scsi_id) when ata_id did not run; the ATA VPD page is the stronger word.
    if told and not (told == "SCSI/SAS" and ata_vpd):
        return dict(record, interface=told, source=SOURCE_UDEV)
    if name.startswith("sd"):
        return dict(record, interface="SATA" if ata_vpd else "SCSI/SAS", source=SOURCE_NAME)
    return dict(record, interface="unknown", source=SOURCE_NAME)


def probe_bus(disk_dir: str, sys_root: str = "/sys", udev_dir: str | None = None) -> dict:
    """decide() for the disk whose sysfs directory is ``disk_dir``. udev's database is read beside the sysfs root
    (``/run/udev/data`` for ``/sys``) unless ``udev_dir`` names it; devices named for what they are skip both."""
    name = os.path.basename(disk_dir)
    if name.startswith("nvme"):
        return decide(name, nvme=nvme_transport(disk_dir))
    if any(name.startswith(prefix) for prefix, dummy in _NAMED):
        return decide(name)
    if udev_dir is None:
        udev_dir = os.path.join(os.path.dirname(os.path.normpath(sys_root)), "run", "udev", "data")
    devnum = _read(os.path.join(disk_dir, "dev"))
    return decide(name, scsi_transport(disk_dir, sys_root), udev_record(devnum, udev_dir) if devnum else None,
                  ata_vpd=os.path.exists(os.path.join(disk_dir, "device", "vpd_pg89")))
