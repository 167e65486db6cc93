# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drive's interface from its sysfs transport (as lsblk's TRAN), udev's ID_BUS or its kernel name.

Captured: fixtures/bus-qemu-7.2-bookworm.json, from a QEMU guest with SPI, SATA (AHCI), USB (UAS and BOT),
virtio-scsi, NVMe and virtio-blk disks - each disk's sysfs links, SCSI host, udev record and lsblk's TRAN. A fake sysfs
tree is rebuilt from each and must give lsblk's answer. iSCSI, Fibre Channel and SAS HBAs cannot be emulated here:
those cases (CONSTRUCTED below) follow the kernel's sysfs layout of their transport classes and the records
udev's 60-persistent-storage.rules writes for them.
"""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _bus, _drive_actions
from ansible_collections.fleetqual.pts.tests.unit.plugins.module_utils._drive._fake_host import FakeHost

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
with open(os.path.join(FIXTURES, "bus-qemu-7.2-bookworm.json"), encoding="utf-8") as _handle:
    CAPTURED = json.load(_handle)
LSBLK_TRAN = {entry["name"]: entry["tran"] for entry in CAPTURED["lsblk"]["blockdevices"]}
T, U, N = _bus.SOURCE_TRANSPORT, _bus.SOURCE_UDEV, _bus.SOURCE_NAME


def _udev(*lines: str) -> str:
    return "".join(f"E:{line}\n" for line in lines) + "G:systemd\nV:1\n"


def _scsi(sysdir: str, classes: list[str], proc_name: str, udev: str | None, vpd: bool = False,
          symbolic_name: str | None = None) -> dict:
    hctl = sysdir.split("/block/")[0].rsplit("/", 1)[1]
    record = {"sysdir": sysdir, "device_link": f"../../../{hctl}",
              "scsi_device_link": "../../.." + sysdir.split("/block/")[0][len("/sys"):],
              "host_classes": classes, "proc_name": proc_name, "vpd_pg89": vpd, "udev_db": udev}
    if symbolic_name:
        record["fc_symbolic_name"] = symbolic_name
    return record


CONSTRUCTED = {
    "iscsi": (_scsi("/sys/devices/platform/host3/session1/target3:0:0/3:0:0:0/block/sdf", ["iscsi_host", "scsi_host"],
                    "iscsi_tcp", _udev("ID_BUS=scsi", "ID_PATH=ip-192.0.2.10:3260-iscsi-iqn.2003-01.org.lab:d1-lun-0")),
              "iscsi", "iSCSI", T),
    "fc": (_scsi("/sys/devices/pci0000:00/0000:00:03.0/0000:05:00.0/host5/rport-5:0-2/target5:0:0/5:0:0:1/block/sdg",
                 ["fc_host", "scsi_host"], "qla2xxx", _udev("ID_BUS=scsi", "ID_PATH=pci-0000:05:00.0-fc-0x50060160bce0383c-lun-1"),
                 symbolic_name="QLE2562 FW:v8.07.00 DVR:v10.02.00.106-k"), "fc", "FC", T),
    "fcoe": (_scsi("/sys/devices/virtual/net/eth2/host7/rport-7:0-1/target7:0:0/7:0:0:0/block/sdi",
                   ["fc_host", "scsi_host"], "fcoe", None, symbolic_name="fcoe v0.1 over eth2"), "fcoe", "FC", T),
    "sas": (_scsi("/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/host2/port-2:0/end_device-2:0/target2:0:0/2:0:0:0/"
                  "block/sdh", ["sas_host", "scsi_host"], "mpt3sas",
                  _udev("ID_BUS=scsi", "ID_PATH=pci-0000:03:00.0-sas-exp0x500605b0000272bf-phy1-lun-0")), "sas", "SCSI/SAS", T),
    # A SATA drive on a SAS HBA: the HBA's SCSI-ATA translation answers the ATA VPD page and hdparm, as before.
    "sata-on-sas": (_scsi("/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0/host2/port-2:1/end_device-2:1/target2:0:1/"
                          "2:0:1:0/block/sdj", ["sas_host", "scsi_host"], "mpt3sas",
                          _udev("ID_ATA=1", "ID_BUS=ata", "ID_PATH=pci-0000:03:00.0-sas-phy2-lun-0"), vpd=True),
                    "sas", "SATA", T),
    # A SATA SSD in a USB enclosure: udev ran ata_id on it (non-removable USB mass storage) and says ID_BUS=ata, and
    # the bridge answers the ATA VPD page - still USB, so that no ATA security erase goes through the bridge.
    "usb-sata": (_scsi("/sys/devices/pci0000:00/0000:00:14.0/usb2/2-3/2-3:1.0/host6/target6:0:0/6:0:0:0/block/sdk",
                       ["scsi_host"], "uas", _udev("ID_ATA=1", "ID_BUS=ata", "ID_USB_DRIVER=uas",
                                                   "ID_PATH=pci-0000:00:14.0-usb-0:3:1.0-scsi-0:0:0:0"), vpd=True),
                 "usb", "USB", T),
    # No transport class (a RAID HBA): udev's ID_BUS decides.
    "raid-hba": (_scsi("/sys/devices/pci0000:00/0000:00:02.0/0000:04:00.0/host0/target0:2:0/0:2:0:0/block/sdl",
                       ["scsi_host"], "megaraid_sas", _udev("ID_BUS=scsi", "ID_PATH=pci-0000:04:00.0-scsi-0:2:0:0")),
                 None, "SCSI/SAS", U),
    # Nothing but the kernel name: no transport class, no udev (this machine has no udev daemon).
    "none": (_scsi("/sys/devices/LNXSYSTM:00/device:00/host1/target1:0:0/1:0:0:0/block/sdm", ["scsi_host"], "storvsc",
                   None), None, "SCSI/SAS", N),
    "none-ata": (_scsi("/sys/devices/LNXSYSTM:00/device:00/host1/target1:0:1/1:0:1:0/block/sdn", ["scsi_host"], "storvsc",
                       None, vpd=True), None, "SATA", N),
    "loop": ({"sysdir": "/sys/devices/virtual/block/loop1", "udev_db": None}, None, "loop", N),
}


def build(root, record: dict, devnum: str = "8:0") -> str:
    """A fake sysfs tree (and udev database beside it) for one disk; returns the disk's sysfs directory."""
    sys_root = root / "sys"
    sysdir = sys_root / record["sysdir"][len("/sys/"):]
    sysdir.mkdir(parents=True)
    (sysdir / "dev").write_text(devnum + "\n")
    link = record.get("device_link")
    if link:
        (sysdir / "device").symlink_to(link)
        device = sysdir / link
        os.makedirs(os.path.normpath(device), exist_ok=True)
        if record.get("vpd_pg89"):
            (device / "vpd_pg89").write_bytes(b"\0\x89")
        if record.get("nvme_transport"):
            (device / "transport").write_text(record["nvme_transport"] + "\n")
        hctl = os.path.basename(link)
        host = hctl.split(":")[0] if ":" in hctl else None
        if host:
            scsi_devices = sys_root / "bus" / "scsi" / "devices"
            scsi_devices.mkdir(parents=True, exist_ok=True)
            (scsi_devices / hctl).symlink_to(record["scsi_device_link"])
            for kind in record.get("host_classes") or []:
                (sys_root / "class" / kind / f"host{host}").mkdir(parents=True)
            (sys_root / "class" / "scsi_host" / f"host{host}" / "proc_name").write_text(record["proc_name"] + "\n")
            if record.get("fc_symbolic_name"):
                (sys_root / "class" / "fc_host" / f"host{host}" / "symbolic_name").write_text(record["fc_symbolic_name"] + "\n")
    if record.get("udev_db"):
        udev = root / "run" / "udev" / "data"
        udev.mkdir(parents=True, exist_ok=True)
        (udev / f"b{devnum}").write_text(record["udev_db"])
    return str(sysdir)


CAPTURED_EXPECTED = {"sda": ("SCSI/SAS", T), "sdb": ("SATA", T), "sdc": ("USB", T), "sdd": ("SCSI/SAS", U),
                     "sde": ("USB", T), "nvme0n1": ("NVMe", N), "vda": ("virtio", N)}


@pytest.mark.parametrize("name", sorted(CAPTURED["disks"]))
def test_captured_disks_give_lsblks_transport_and_their_interface(tmp_path, name):
    found = _bus.probe_bus(build(tmp_path, CAPTURED["disks"][name]), str(tmp_path / "sys"))
    assert (found["interface"], found["source"]) == CAPTURED_EXPECTED[name]
    if not name.startswith("nvme"):
        assert found["transport"] == LSBLK_TRAN[name]
    else:
        assert found["transport"] == "pcie" and LSBLK_TRAN[name] == "nvme"


@pytest.mark.parametrize("case", sorted(CONSTRUCTED))
def test_transport_classes_and_udev_records(tmp_path, case):
    record, transport, interface, source = CONSTRUCTED[case]
    found = _bus.probe_bus(build(tmp_path, record), str(tmp_path / "sys"))
    assert (found["transport"], found["interface"], found["source"]) == (transport, interface, source)


def test_udev_alone_says_usb_even_when_it_says_ata(tmp_path):
    # The same USB enclosure where the sysfs transport cannot be read: udev's USB driver and path still say USB.
    record = dict(CONSTRUCTED["usb-sata"][0], host_classes=["scsi_host"], scsi_device_link="../../../devices/x/6:0:0:0")
    found = _bus.probe_bus(build(tmp_path, record), str(tmp_path / "sys"))
    assert (found["transport"], found["udev_bus"], found["interface"], found["source"]) == (None, "ata", "USB", U)


@pytest.mark.parametrize("udev, interface", [
    ({"ID_BUS": "ata"}, "SATA"),
    ({"ID_BUS": "scsi"}, "SCSI/SAS"),
    ({"ID_BUS": "usb"}, "USB"),
    ({"ID_BUS": "ata", "ID_USB_DRIVER": "usb-storage"}, "USB"),
    ({"ID_BUS": "ata", "ID_PATH": "pci-0000:00:14.0-usb-0:1:1.0-scsi-0:0:0:0"}, "USB"),
    ({"ID_BUS": "scsi", "ID_PATH": "ip-192.0.2.10:3260-iscsi-iqn.2003-01.org.lab:d1-lun-0"}, "iSCSI"),
    ({"ID_BUS": "scsi", "ID_PATH": "pci-0000:05:00.0-fc-0x50060160bce0383c-lun-1"}, "FC"),
    ({"ID_BUS": "ieee1394"}, "FireWire"),
    ({"ID_BUS": "memstick"}, "SCSI/SAS"),  # a bus udev names but this does not know: the kernel name decides
])
def test_udev_id_bus_decides_without_a_transport(udev, interface):
    assert _bus.decide("sdz", None, udev)["interface"] == interface


def test_the_ata_vpd_page_outweighs_udevs_scsi_fallback():
    # ID_BUS=scsi only says udev's ata_id did not run (a RAID HBA's pass-through disk): the SAT layer's page says ATA.
    assert _bus.decide("sdz", None, {"ID_BUS": "scsi"}, ata_vpd=True)["interface"] == "SATA"
    assert _bus.decide("sdz", None, {"ID_BUS": "usb"}, ata_vpd=True)["interface"] == "USB"


@pytest.mark.parametrize("name, nvme, interface", [
    ("nvme0n1", "pcie", "NVMe"), ("nvme1n1", "tcp", "NVMe-oF"), ("nvme2n1", "rdma", "NVMe-oF"), ("nvme3n1", None, "NVMe"),
    ("loop3", None, "loop"), ("zram0", None, "zram"), ("vdb", None, "virtio"), ("md127", None, "md"),
    ("dm-0", None, "device-mapper"), ("mmcblk0", None, "unknown"),
])
def test_devices_named_for_what_they_are(name, nvme, interface):
    found = _bus.decide(name, None, {"ID_BUS": "usb"} if name.startswith("loop") else None, nvme=nvme)
    assert (found["interface"], found["source"]) == (interface, N)


def test_a_multipath_nvme_head_counts_a_fabric_path(tmp_path):
    head = tmp_path / "nvme-subsys0" / "nvme0n1"
    head.mkdir(parents=True)
    for controller, transport in (("nvme0", "pcie"), ("nvme1", "tcp")):
        (tmp_path / "nvme-subsys0" / controller).mkdir()
        (tmp_path / "nvme-subsys0" / controller / "transport").write_text(transport + "\n")
    (head / "device").symlink_to("..")
    assert _bus.nvme_transport(str(head)) == "tcp"


def test_udev_records_and_udevadm_property_output_parse_alike():
    record = CAPTURED["disks"]["sdb"]["udev_db"]
    parsed = _bus.udev_properties(record)
    assert parsed["ID_BUS"] == "ata" and parsed["ID_PATH"] == "pci-0000:00:05.0-ata-1.0" and "disk/by-id" not in str(parsed)
    udevadm = "DEVNAME=/dev/sdb\nID_BUS=ata\nID_PATH=pci-0000:00:05.0-ata-1.0\n"
    assert {k: v for k, v in _bus.udev_properties(udevadm).items() if k != "DEVNAME"} == \
        {"ID_BUS": "ata", "ID_PATH": "pci-0000:00:05.0-ata-1.0"}
    assert _bus.udev_record("8:16", None) is None


def test_a_usb_bridged_sata_disk_gets_no_ata_command(tmp_path):
    # What identify and the purge do with it: no hdparm -I, no security erase, no sanitize; discard only if offered.
    found = _bus.probe_bus(build(tmp_path, CONSTRUCTED["usb-sata"][0]), str(tmp_path / "sys"))
    calls = []

    def run(argv):
        calls.append(argv)
        return 0, "", ""

    info = {"name": "sdk", "resolved": "/dev/sdk", "kind": "disk", "interface": found["interface"], "discard": False}
    facts = _drive_actions.tool_facts(info, run, lambda tool: f"/usr/sbin/{tool}")
    assert facts["purge_methods"] == [] and facts["write_cache_tool"] is None and calls == []
    facts = _drive_actions.tool_facts(dict(info, discard=True), run, lambda tool: f"/usr/sbin/{tool}")
    assert facts["purge_methods"] == ["discard"] and calls == []


def test_probe_records_the_interface_and_its_source_for_a_loop_device(tmp_path, monkeypatch):
    host = FakeHost(tmp_path, monkeypatch)
    host.disk("loop4", "7:4", loop={"backing_file": host.image("a.img")})
    info = host.probe("loop4")
    assert info["interface"] == "loop"
    assert info["bus"] == {"source": N, "transport": None, "udev_bus": None}
