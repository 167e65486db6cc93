# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this doc fragment is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

from __future__ import annotations


class ModuleDocFragment:
    # The option of the modules whose action plugin files their result in the run's results tree.
    DOCUMENTATION = r"""
options:
  run_dir:
    description:
      - The run's results directory on the controller (the C(pts_run_dir) fact of a run of
        P(fleetqual.pts.pts_run#role)); the action plugin files the result's C(pts_*) payload under it as it comes
        back. Without it nothing is filed.
      - Used on the controller only; it is not sent to the host.
    type: path
"""
