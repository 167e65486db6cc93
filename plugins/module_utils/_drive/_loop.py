# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""What a loop device is over: its backing file (path, device and inode, or the block device), offset and size limit,
from sysfs and, where sysfs cannot say, from the kernel (a read-only LOOP_GET_STATUS64 ioctl). The guard records this
identity and every re-check compares it (``LOOP_FIELDS``)."""

from __future__ import annotations

import fcntl
import os
import stat
import struct

from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _sysfs


# The loop identity the guard records and every re-check compares (see loop_identity()).
LOOP_FIELDS = ("backing_file", "backing_dev", "backing_ino", "backing_rdev", "offset", "sizelimit")

# linux/loop.h: LOOP_GET_STATUS64 fills struct loop_info64 (lo_device, lo_inode, lo_rdevice, lo_offset,
# lo_sizelimit, then fields not used here).
_LOOP_GET_STATUS64 = 0x4C05
_LOOP_INFO64 = struct.Struct("=QQQQQIIII64s64s32sQQ")


def _kernel_status(node: str) -> dict | None:
    """LOOP_GET_STATUS64 of a loop device node: its backing file's device and inode as the kernel holds them."""
    try:
        fd = os.open(node, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, _LOOP_GET_STATUS64, bytes(_LOOP_INFO64.size))
    except OSError:
        return None
    finally:
        os.close(fd)
    device, inode, rdevice, offset, sizelimit = _LOOP_INFO64.unpack(raw)[:5]
    return {"backing_dev": _sysfs.devnum_of(device), "backing_ino": inode, "backing_rdev": _sysfs.devnum_of(rdevice) if rdevice else None,
            "offset": offset, "sizelimit": sizelimit}


def fill_range(identity: dict, loop_dir: str) -> dict:
    if identity["offset"] is None:
        identity["offset"] = _sysfs.read_int(os.path.join(loop_dir, "offset")) or 0
        identity["sizelimit"] = _sysfs.read_int(os.path.join(loop_dir, "sizelimit")) or 0
    return identity


def loop_identity(disk_dir: str, node: str | None = None, ask_kernel: bool = False, ranges: bool = True) -> dict | None:
    """What a loop device is over: backing file path, its st_dev and inode (st_rdev when it is a block device),
    offset and size limit (None unless ``ranges``: the search for aliases needs only the file). None for a device
    that is not a bound loop device.

    The path comes from sysfs and is stat'ed. The kernel's own answer (an ioctl on ``node``) is used when
    ``ask_kernel`` (the listed drive, which the guard opens anyway) or when the path cannot be stat'ed (its
    file was deleted, or lives in another mount namespace). Never for an autoclear loop device: closing the
    last open of one detaches it.
    """
    loop_dir = os.path.join(disk_dir, "loop")
    path = _sysfs.read_line(os.path.join(loop_dir, "backing_file"))
    if path is None:
        return None
    identity = {"backing_file": path, "backing_dev": None, "backing_ino": None, "backing_rdev": None,
                "offset": None, "sizelimit": None}
    if ranges:
        fill_range(identity, loop_dir)
    try:
        st = _sysfs.node_stat(path)
    except OSError:
        st = None
    if st is not None:
        identity.update(backing_dev=_sysfs.devnum_of(st.st_dev), backing_ino=st.st_ino,
                        backing_rdev=_sysfs.devnum_of(st.st_rdev) if stat.S_ISBLK(st.st_mode) else None)
    if node and (ask_kernel or st is None) and _sysfs.read(os.path.join(loop_dir, "autoclear")) == "0":
        kernel = _kernel_status(node)
        if kernel:
            identity.update(kernel)
    return identity
