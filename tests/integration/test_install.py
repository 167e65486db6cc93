# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""pts_install with a vendor CLI given as a package file: a real .deb built here, installed by the role."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import BIN, ROOT

PACKAGE = "fleetqual-test-vendor-cli"

pytestmark = pytest.mark.skipif(not shutil.which("dpkg-deb"), reason="needs a Debian host (dpkg-deb)")


def build_deb(tmp_path) -> str:
    root = tmp_path / "pkg"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "usr" / "local" / "bin").mkdir(parents=True)
    tool = root / "usr" / "local" / "bin" / "fleetqual-vendor-cli"
    tool.write_text("#!/bin/sh\necho 'vendor cli 1.0'\n")
    tool.chmod(0o755)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {PACKAGE}\nVersion: 1.0\nArchitecture: all\nMaintainer: fleetqual <noreply@example.org>\n"
        "Description: a stand-in vendor drive CLI for the pts_install test\n")
    deb = str(tmp_path / f"{PACKAGE}_1.0_all.deb")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(root), deb], check=True, capture_output=True)
    return deb


def test_a_vendor_package_file_is_copied_and_installed(tmp_path):
    deb = build_deb(tmp_path)
    subprocess.run(["dpkg", "-r", PACKAGE], check=False, capture_output=True)
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-local"), ANSIBLE_REMOTE_TMP=str(tmp_path / "ansible-remote"),
               ANSIBLE_NOCOLOR="1")
    playbook = tmp_path / "install.yml"
    playbook.write_text("- name: Install the PTS tools and a vendor CLI\n  hosts: localhost\n  gather_facts: false\n"
                        "  roles:\n    - fleetqual.pts.pts_install\n")
    extra = {"pts_install_vendor_package_files": [deb], "ansible_python_interpreter": "/usr/bin/python3",
             "ansible_connection": "local"}
    try:
        proc = subprocess.run(
            [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", str(playbook), "-e", json.dumps(extra)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Version}", PACKAGE], capture_output=True,
                                text=True, check=False).stdout
        assert status == "install ok installed 1.0"
        assert subprocess.run(["/usr/local/bin/fleetqual-vendor-cli"], capture_output=True, text=True,
                              check=True).stdout.strip() == "vendor cli 1.0"
        assert os.path.exists(f"/var/tmp/{os.path.basename(deb)}")  # copied to the host, then installed there
    finally:
        subprocess.run(["dpkg", "-r", PACKAGE], check=False, capture_output=True)
        if os.path.exists(f"/var/tmp/{os.path.basename(deb)}"):
            os.unlink(f"/var/tmp/{os.path.basename(deb)}")
