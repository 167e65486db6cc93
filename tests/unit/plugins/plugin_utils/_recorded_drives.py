# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two drives as a run records them: a loop device (its backing file) and an NVMe drive (serial, WWN, firmware)."""

from __future__ import annotations

LOOP_A = {"key": "victim", "path": "/dev/loop5", "vendor": "Linux", "model": "loop device", "size_bytes": 67108864,
          "logical_block_size": 512, "backing_file": "/srv/a.img", "spec": {"path": "/dev/loop5", "name": "victim"}}
NVME = {"key": "bay0", "model": "SAMSUNG MZQL2", "serial": "S1", "wwn": "eui.0025388", "firmware": "GDC5",
        "size_bytes": 3840755982336, "logical_block_size": 4096}
