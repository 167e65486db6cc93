# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The collection as a Galaxy user gets it: the tarball built from this tree and installed into an empty collections
path, with an environment that finds only that copy (no ANSIBLE_CONFIG, no repository collections path)."""

from __future__ import annotations

import os
import subprocess

from conftest import BIN, ROOT


def run(command: list[str], env: dict, cwd: str, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{' '.join(command)}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def install(tmp) -> dict:
    """Build the tarball and install it into ``tmp``/collections: {"tarball", "collections", "env"}."""
    collections = tmp / "collections"
    collections.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "PTS_"))}
    env.update(
        PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
        # Only the empty path: not the repository's .collections/, not ~/.ansible/collections (where an earlier
        # install or a linter's copy could stand in for the tarball). Collections bundled with the `ansible` package
        # would still be found in site-packages (COLLECTIONS_SCAN_SYS_PATH); fleetqual.pts needs none.
        ANSIBLE_COLLECTIONS_PATH=str(collections),
        ANSIBLE_HOME=str(tmp / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-local"),
        ANSIBLE_REMOTE_TMP=str(tmp / "ansible-remote"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        MPLCONFIGDIR=str(tmp / "mpl"),
    )
    dist = tmp / "dist"
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(dist), ROOT], env, str(tmp))
    (tarball,) = dist.glob("fleetqual-pts-*.tar.gz")
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--offline", "-p", str(collections),
         str(tarball)], env, str(tmp))
    return {"tarball": tarball, "collections": collections, "env": env,
            "installed": collections / "ansible_collections" / "fleetqual" / "pts"}
