# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The pts_report callback's settings (output_dir, run_id) as its configuration gives them, for actions that
must find the same results tree (resume, rebuild)."""

from __future__ import annotations

from ansible import constants as C
from ansible.plugins.loader import callback_loader

CALLBACK = "fleetqual.pts.pts_report"


def callback_option(name: str):
    plugin = callback_loader.get(CALLBACK, class_only=True)
    if plugin is None:
        raise ValueError(f"the {CALLBACK} callback cannot be loaded")
    # ansible-core 2.19 files a collection plugin's settings under its Python module name, not its FQCN.
    for key in (getattr(plugin, "_load_name", None), CALLBACK):
        try:
            return C.config.get_config_value(name, plugin_type="callback", plugin_name=key)
        except Exception:  # pylint: disable=broad-exception-caught  # AnsibleError subclasses vary by core version
            continue
    raise ValueError(f"the {CALLBACK} callback has no setting {name!r}")


def run_id_candidates(effective: object, extra: object, env: object, configured: object) -> list[tuple[str, object]]:
    """Every run id this run could take as a path, each named as the operator set it: the one in force (from
    -e pts_run_id, the PTS_RUN_ID environment variable, the callback's run_id setting or an inventory pts_run_id),
    then the environment's and the configuration's when they differ from it. Unset sources are left out."""
    sources = (("pts_run_id", extra), ("PTS_RUN_ID (environment)", env),
               ("run_id of the [callback_pts_report] section of ansible.cfg", configured))
    candidates: list[tuple[str, object]] = []
    if effective not in (None, ""):
        name = next((label for label, value in sources if value not in (None, "") and str(value) == str(effective)),
                    "pts_run_id")
        candidates.append((name, effective))
    for label, value in sources[1:]:
        if value not in (None, "") and all(str(value) != str(seen) for dummy, seen in candidates):
            candidates.append((label, value))
    return candidates
