# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""SSH test hosts: each a network namespace on this machine with its own veth address, hostname and sshd.

Namespaces share the filesystem and /dev, so every host gets its own loop devices and paths. Key auth only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time

SSH_ARGS = "-F /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR"


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=check, capture_output=True, text=True)


class SshHost:
    def __init__(self, name: str, index: int, workdir: str, public_key: str):
        self.name = name
        self.netns = f"ptsit{index}"
        self.veth = f"vptsit{index}"
        self.address = f"198.18.{index}.2"
        self.workdir = os.path.join(workdir, name)
        os.makedirs(self.workdir, exist_ok=True)
        _run("ip", "netns", "add", self.netns)
        _run("ip", "link", "add", self.veth, "type", "veth", "peer", "name", "eth0", "netns", self.netns)
        _run("ip", "addr", "add", f"198.18.{index}.1/30", "dev", self.veth)
        _run("ip", "link", "set", self.veth, "up")
        for command in (["ip", "addr", "add", f"{self.address}/30", "dev", "eth0"], ["ip", "link", "set", "eth0", "up"],
                        ["ip", "link", "set", "lo", "up"]):
            _run("ip", "netns", "exec", self.netns, *command)
        host_key = os.path.join(self.workdir, "host_key")
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", host_key)
        keys = os.path.join(self.workdir, "authorized_keys")
        with open(keys, "w", encoding="utf-8") as handle:
            handle.write(public_key)
        config = os.path.join(self.workdir, "sshd_config")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(f"ListenAddress {self.address}\nHostKey {host_key}\nAuthorizedKeysFile {keys}\n"
                         "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                         f"UsePAM no\nStrictModes no\nPidFile {self.workdir}/sshd.pid\nMaxStartups 100\nMaxSessions 100\n"
                         "Subsystem sftp /usr/lib/openssh/sftp-server\n")
        # A private mount namespace keeps the tmpfs on /run (sshd needs /run/sshd) and the hostname to this host.
        self.sshd = subprocess.Popen(
            ["ip", "netns", "exec", self.netns, "unshare", "-m", "-u", "sh", "-c",
             f"mount -t tmpfs tmpfs /run && mkdir -p /run/sshd && hostname {name} && exec /usr/sbin/sshd -D -e -f {config}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.workdir, "sshd.log"), "w", encoding="utf-8"))
        self._wait_listening()

    def _wait_listening(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((self.address, 22), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"sshd of {self.name} did not start")

    def stop_sshd(self) -> None:
        """Make the host unreachable: every sshd in its namespace (listener, sessions, control masters) ends."""
        pids = _run("ip", "netns", "pids", self.netns, check=False).stdout.split()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
                    if handle.read().strip() == "sshd":
                        os.kill(int(pid), 9)
            except OSError:
                continue

    def teardown(self) -> None:
        for pid in _run("ip", "netns", "pids", self.netns, check=False).stdout.split():
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass
        if self.sshd.poll() is None:
            self.sshd.kill()
        self.sshd.wait()
        _run("ip", "link", "del", self.veth, check=False)
        _run("ip", "netns", "del", self.netns, check=False)

    def inventory_vars(self, private_key: str) -> dict:
        return {"ansible_host": self.address, "ansible_user": "root", "ansible_ssh_private_key_file": private_key,
                "ansible_ssh_common_args": SSH_ARGS, "ansible_python_interpreter": "/usr/bin/python3"}


def make_key(workdir: str) -> tuple[str, str]:
    key = os.path.join(workdir, "id_ed25519")
    _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
    with open(key + ".pub", encoding="utf-8") as handle:
        return key, handle.read()


def cleanup_run_netns() -> None:
    """`ip netns add` leaves a bind mount on /run/netns once no namespace is left."""
    if os.path.isdir("/run/netns") and not os.listdir("/run/netns"):
        _run("umount", "/run/netns", check=False)


@contextlib.contextmanager
def one_host(tmp, name: str, index: int):
    """One SSH host in namespace ``index`` with a new key pair under ``tmp``: (host, private key); torn down after,
    and /run/netns unmounted once no namespace is left."""
    key, public = make_key(str(tmp))
    host = SshHost(name, index, str(tmp / "hosts"), public)
    try:
        yield host, key
    finally:
        host.teardown()
        cleanup_run_netns()
