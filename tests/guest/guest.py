# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A throwaway QEMU (TCG) Debian guest with emulated NVMe/SATA/SCSI drives, reachable over SSH.

CLI:  guest.py build | boot [--nvme SPEC]... [--sata SPEC]... [--scsi SPEC]... | stop WORKDIR | ssh WORKDIR -- CMD...
      SPEC is "serial=NVME0001,size=256M[,qemu_property=value...]" (extra keys go to QEMU's -device).
API:  with running_guest(nvme=["serial=N1,size=256M"], sata=[...]) as g: run(g, ["nvme", "list"])
Stdlib only. Needs root (debootstrap, apt-get). The image is cached in $FLEETQUAL_GUEST_CACHE.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SUITE = "bookworm"
MIRROR = os.environ.get("FLEETQUAL_GUEST_MIRROR", "http://deb.debian.org/debian")
PACKAGES = ("systemd-sysv udev openssh-server python3 fio nvme-cli iproute2 ifupdown isc-dhcp-client "
            "linux-image-amd64 initramfs-tools kmod mdadm lvm2 hdparm sg3-utils sdparm smartmontools util-linux "
            "e2fsprogs dmsetup ca-certificates").split()
# Files written into the root file system (path -> content); part of the recipe hash.
FILES = {
    "etc/hostname": "ptsguest\n",
    "etc/hosts": "127.0.0.1 localhost\n127.0.1.1 ptsguest\n",
    "etc/fstab": "/dev/vda / ext4 defaults,errors=remount-ro 0 1\n",
    # allow-hotplug, not auto: ifup@eth0 runs dhclient when udev sees the NIC, so boot does not wait
    # for "udevadm settle" (ifupdown-pre.service) and sshd starts ~20 s earlier under TCG.
    "etc/network/interfaces": "auto lo\niface lo inet loopback\n\nallow-hotplug eth0\niface eth0 inet dhcp\n",
    "etc/ssh/sshd_config.d/fleetqual.conf": "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                                            "KbdInteractiveAuthentication no\nUseDNS no\n",
    # A small initrd (root is ext4 on virtio-blk) instead of MODULES=most: 10 MB instead of 39 MB.
    "etc/initramfs-tools/conf.d/fleetqual.conf": "MODULES=list\nRESUME=none\n",
    "etc/initramfs-tools/modules": "virtio_pci\nvirtio_blk\next4\n",
}
# Units that only cost CPU under TCG, or would touch the test drives on their own.
MASKED = ["apt-daily.timer", "apt-daily-upgrade.timer", "e2scrub_all.timer", "e2scrub_reap.service",
          "fstrim.timer", "smartmontools.service", "mdmonitor-oneshot.timer", "mdcheck_start.timer",
          "nvmf-autoconnect.service", "getty-static.service"]
IMAGE_SIZE = 4 << 30  # virtual size of the root disk; the qcow2 stores only what is used
CMDLINE = "root=/dev/vda rw console=ttyS0 net.ifnames=0 systemd.show_status=1 mitigations=off"
RECIPE = {"version": 1, "suite": SUITE, "variant": "minbase", "packages": PACKAGES, "files": FILES,
          "masked": MASKED, "image_size": IMAGE_SIZE, "key": "ed25519", "initrd": "update-initramfs -u"}
RECIPE_HASH = hashlib.sha256(json.dumps(RECIPE, sort_keys=True).encode()).hexdigest()[:16]
HOST_TOOLS = {"debootstrap": "debootstrap", "qemu-system-x86_64": "qemu-system-x86", "qemu-img": "qemu-utils",
              "mkfs.ext4": "e2fsprogs", "ssh": "openssh-client", "ssh-keygen": "openssh-client"}
SSH_OPTS = ["-F", "/dev/null", "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no",
            "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"]
_CHILDREN: dict[str, subprocess.Popen] = {}  # workdir -> the qemu this process started


class GuestError(RuntimeError):
    """Anything that went wrong building, booting or talking to the guest."""


def log(msg: str) -> None:
    print(f"[guest {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    kw.setdefault("stderr", subprocess.PIPE)
    try:
        return subprocess.run(argv, check=True, text=True, **kw)
    except FileNotFoundError as exc:
        raise GuestError(f"command not found: {argv[0]}") from exc
    except subprocess.CalledProcessError as exc:
        raise GuestError(f"{shlex.join(argv)} failed with exit code {exc.returncode}\n"
                         f"{(exc.stderr or '')[-3000:]}") from exc


def cache_dir() -> str:
    return os.environ.get("FLEETQUAL_GUEST_CACHE") or "/var/cache/fleetqual-guest"


def ensure_host_tools() -> None:
    """apt-get install whatever of debootstrap, qemu, ... is missing (apt-get update first, only then)."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    missing = sorted({pkg for tool, pkg in HOST_TOOLS.items() if not shutil.which(tool, path=path)})
    if not missing:
        return
    log(f"installing host packages: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    _run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL)
    _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], env=env, stdout=subprocess.DEVNULL)


def _umount_under(path: str, remove: bool = False) -> None:
    """Unmount whatever is mounted below path (proc, or /dev left by an interrupted debootstrap); rm -r it."""
    if not os.path.exists(path):
        return
    top, path = path, os.path.realpath(path) + "/"

    def below() -> list[str]:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            return [p for p in (line.split()[1].replace("\\040", " ") for line in mounts) if p.startswith(path)]

    for point in sorted(below(), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False)
    if below():
        raise GuestError(f"refusing to delete {path}: something is still mounted below it")
    if remove:
        shutil.rmtree(top, ignore_errors=True)


def _write(path: str, content: str, mode: int = 0o644) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(content)
    os.chmod(path, mode)


def _configure_rootfs(root: str, pubkey: str) -> None:
    for rel, content in FILES.items():
        _write(os.path.join(root, rel), content)
    for unit in MASKED:
        link = os.path.join(root, "etc/systemd/system", unit)
        with contextlib.suppress(FileNotFoundError):
            os.remove(link)
        os.symlink("/dev/null", link)
    os.makedirs(os.path.join(root, "root/.ssh"), mode=0o700, exist_ok=True)
    _write(os.path.join(root, "root/.ssh/authorized_keys"), pubkey, 0o600)
    shadow = os.path.join(root, "etc/shadow")  # root has no usable password: key login only
    with open(shadow, encoding="utf-8") as fh:
        lines = ["root:*:" + line.split(":", 2)[2] if line.startswith("root:") else line for line in fh]
    _write(shadow, "".join(lines), 0o640)
    _write(os.path.join(root, "etc/machine-id"), "")  # empty: each boot makes its own
    for junk in glob.glob(os.path.join(root, "var/cache/apt/archives/*.deb")):
        os.remove(junk)


def _build_into(tmp: str, lock_fd: int) -> None:
    root, started = os.path.join(tmp, "rootfs"), time.monotonic()
    log(f"debootstrap {SUITE} from {MIRROR} (a few minutes)")
    # Its own process group, killed whole if we fail; it inherits the lock, so if this process is killed
    # outright, the next build waits for the orphaned debootstrap to end before cleaning up after it.
    argv = ["debootstrap", "--variant=minbase", "--include=" + ",".join(PACKAGES), SUITE, root, MIRROR]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            pass_fds=(lock_fd,), start_new_session=True)
    try:
        err = proc.communicate()[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if proc.returncode:
        raise GuestError(f"debootstrap failed with exit code {proc.returncode}\n{err[-3000:]}")
    _umount_under(root)
    log(f"debootstrap done in {time.monotonic() - started:.0f}s; configuring, making the image")
    key = os.path.join(tmp, "id_ed25519")
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "fleetqual-guest", "-f", key])
    with open(key + ".pub", encoding="utf-8") as fh:
        _configure_rootfs(root, fh.read())
    _run(["mount", "-t", "proc", "proc", os.path.join(root, "proc")])
    try:
        _run(["chroot", root, "update-initramfs", "-u", "-k", "all"], stdout=subprocess.DEVNULL)
    finally:
        _umount_under(root)
    for pattern, name in (("vmlinuz-*", "vmlinuz"), ("initrd.img-*", "initrd.img")):
        found = sorted(glob.glob(os.path.join(root, "boot", pattern)))
        if not found:
            raise GuestError(f"debootstrap produced no /boot/{pattern}")
        shutil.copyfile(found[-1], os.path.join(tmp, name))
    raw = os.path.join(tmp, "rootfs.raw")
    with open(raw, "wb") as fh:
        fh.truncate(IMAGE_SIZE)
    _run(["mkfs.ext4", "-q", "-F", "-L", "ptsroot", "-d", root, raw])
    _umount_under(root, remove=True)
    _run(["qemu-img", "convert", "-c", "-O", "qcow2", raw, os.path.join(tmp, "rootfs.qcow2")])
    os.remove(raw)
    _write(os.path.join(tmp, "recipe.json"), json.dumps(dict(
        RECIPE, hash=RECIPE_HASH, built=time.strftime("%FT%T%z"),
        build_seconds=round(time.monotonic() - started)), indent=1))


def build() -> str:
    """Build the guest image once per recipe and return its directory (at once when cached)."""
    ensure_host_tools()
    final = os.path.join(cache_dir(), f"{SUITE}-{RECIPE_HASH}")
    if os.path.isfile(os.path.join(final, "recipe.json")):  # written last, published by one rename
        return final
    if os.geteuid() != 0:
        raise GuestError("building the guest image needs root (debootstrap)")
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), ".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder at a time; a waiting one then finds the image
        if os.path.isfile(os.path.join(final, "recipe.json")):
            return final
        for stale in glob.glob(os.path.join(cache_dir(), ".build-*")) + [final]:
            _umount_under(stale, remove=True)  # left by an interrupted build: only the rename publishes
        tmp = tempfile.mkdtemp(prefix=".build-", dir=cache_dir())
        try:
            _build_into(tmp, lock.fileno())
            os.rename(tmp, final)
        finally:
            _umount_under(tmp, remove=True)
        for old in glob.glob(os.path.join(cache_dir(), f"{SUITE}-*")):
            if old != final:
                _umount_under(old, remove=True)  # images of older recipes
    log(f"image ready in {final}")
    return final


def parse_size(text: str | int) -> int:
    match = re.fullmatch(r"(\d+)\s*([KMGT]?)(?:I?B)?", str(text).strip().upper())
    if not match:
        raise GuestError(f"bad size {text!r} (use e.g. 256M, 1G)")
    return int(match[1]) << (10 * " KMGT".index(match[2] or " "))


def _drives(workdir: str, specs: dict) -> tuple[list[dict], list[str]]:
    """Make the drives' sparse backing files in workdir; return the drives and QEMU's arguments for them."""
    drives, args, sata, scsi = [], [], 0, 0
    for kind, spec in ((kind, spec) for kind, items in specs.items() for spec in items):
        if isinstance(spec, str):
            try:
                spec = dict(item.split("=", 1) for item in spec.split(",") if item)
            except ValueError:
                raise GuestError(f"bad {kind} drive spec {spec!r}: want key=value,...") from None
        props, drv = {k: str(v) for k, v in spec.items()}, f"d{len(drives)}"
        d = {"kind": kind, "serial": props.pop("serial", f"{kind.upper()}{len(drives) + 1:04d}"),
             "size": props.pop("size", "256M")}
        # paths=2: one medium seen by the guest as two disks with one serial (dual-path SAS without multipath).
        paths = int(props.pop("paths", 1))
        if paths > 1 and kind == "nvme":
            raise GuestError("paths= is for sata and scsi drives; two NVMe controllers with one serial (one subsystem "
                             "NQN) are not supported here")
        d["backing_file"] = os.path.join(workdir, f"{drv}-{kind}-{d['serial']}.img")
        with open(d["backing_file"], "wb") as fh:
            fh.truncate(parse_size(d["size"]))  # sparse
        if paths > 1:
            d["paths"] = paths
        drives.append(d)
        extra = "".join(f",{k}={v}" for k, v in props.items())  # e.g. logical_block_size=4096
        if paths > 1:
            # One block node that several devices attach to; each must let the others write (share-rw).
            args += ["-blockdev", f"driver=file,filename={d['backing_file']},node-name={drv}f,discard=unmap",
                     "-blockdev", f"driver=raw,file={drv}f,node-name={drv},discard=unmap"]
            extra += ",share-rw=on"
        else:
            args += ["-drive", f"file={d['backing_file']},if=none,id={drv},format=raw,discard=unmap"]
        for dummy in range(paths):
            if kind == "nvme":
                args += ["-device", f"nvme,serial={d['serial']},drive={drv}{extra}"]
            elif kind == "sata":
                if sata % 6 == 0:  # an AHCI controller has six ports
                    args += ["-device", f"ahci,id=ahci{sata // 6}"]
                args += ["-device", f"ide-hd,drive={drv},bus=ahci{sata // 6}.{sata % 6},serial={d['serial']}{extra}"]
                sata += 1
            else:
                if scsi == 0:
                    args += ["-device", "virtio-scsi-pci,id=scsi0"]
                args += ["-device", f"scsi-hd,drive={drv},bus=scsi0.0,serial={d['serial']}{extra}"]
                scsi += 1
    return drives, args


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _tail(workdir: str, name: str = "console.log", lines: int = 25) -> str:
    with contextlib.suppress(OSError), open(os.path.join(workdir, name), errors="replace") as fh:
        return "".join(fh.readlines()[-lines:])
    return f"(no {name})\n"


def _banner(port: int, wait: float = 20) -> bool:
    """True once sshd answers on port with its banner within wait seconds."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
            return sock.recv(64).startswith(b"SSH-")
    except OSError:
        return False


def ssh_argv(guest: dict, command: str | list[str] | None = None) -> list[str]:
    """The ssh command line for guest: a list command is quoted for the remote shell, a str is sent as is."""
    argv = ["ssh", *SSH_OPTS, "-o", "ConnectTimeout=30", "-i", guest["ssh_key"],
            "-p", str(guest["ssh_port"]), f"{guest['ssh_user']}@{guest['ssh_host']}"]
    if command:
        argv.append(command if isinstance(command, str) else shlex.join(command))
    return argv


def run(guest: dict, command: str | list[str], check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run command in the guest and capture its text output; raise GuestError if check and it fails."""
    proc = subprocess.run(ssh_argv(guest, command), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)
    if check and proc.returncode != 0:
        raise GuestError(f"in guest: {command!r} exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc


def boot(nvme=(), sata=(), scsi=(), memory: str = "2G", cpus: int = 2, timeout: float | None = None) -> dict:
    """Boot a guest from a throwaway overlay with the given drives; return its description once SSH works."""
    timeout = float(timeout or os.environ.get("FLEETQUAL_GUEST_BOOT_TIMEOUT", 180))
    image = build()
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="fleetqual-guest-")
    try:
        drives, drive_args = _drives(workdir, {"nvme": nvme, "sata": sata, "scsi": scsi})
        overlay = os.path.join(workdir, "root.qcow2")
        with socket.socket() as sock:  # a free port for the SSH forward
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        _run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b",
              os.path.join(image, "rootfs.qcow2"), overlay])
        argv = ["qemu-system-x86_64", "-name", "fleetqual-guest", "-machine", "q35", "-accel", "tcg",
                "-smp", str(max(1, min(int(cpus), 2))), "-m", memory, "-nodefaults", "-display", "none",
                "-serial", "file:" + os.path.join(workdir, "console.log"),
                "-kernel", os.path.join(image, "vmlinuz"), "-initrd", os.path.join(image, "initrd.img"),
                "-append", CMDLINE,
                "-drive", f"file={overlay},if=none,id=root,format=qcow2,cache=unsafe,discard=unmap",
                "-device", "virtio-blk-pci,drive=root",
                # restrict=on: the guest reaches neither the host nor the outside; only the forward is open.
                "-netdev", f"user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:{port}-:22",
                "-device", "virtio-net-pci,netdev=net0,romfile=", "-device", "virtio-rng-pci",
                *drive_args]
        with open(os.path.join(workdir, "qemu.log"), "wb") as qlog:
            # A child rather than -daemonize, so that in-process callers reap it (this container's init does not).
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=qlog, stderr=qlog, start_new_session=True)
        _CHILDREN[workdir] = proc
        guest = {"ssh_host": "127.0.0.1", "ssh_port": port, "ssh_user": "root",
                 "ssh_key": os.path.join(image, "id_ed25519"), "pid": proc.pid, "workdir": workdir,
                 "console_log": os.path.join(workdir, "console.log"),
                 "drives": drives}
        _write(os.path.join(workdir, "guest.json"), json.dumps(guest, indent=1))
        # Wait for sshd's banner with a long read timeout instead of knocking with ssh every second:
        # attempts made while the guest has no address yet queue up in QEMU's user-mode network and
        # all reach the guest's sshd later, slowing it down further under TCG.
        last = "no SSH banner yet"
        while True:
            if _banner(port):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    probe = run(guest, "true", check=False, timeout=90)
                    if probe.returncode == 0:
                        break
                    last = f"ssh exit {probe.returncode}: {probe.stderr.strip()}"
            if not _alive(proc.pid):
                raise GuestError(f"qemu exited while booting:\n{_tail(workdir, 'qemu.log')}{_tail(workdir)}")
            if time.monotonic() - started > timeout:
                raise GuestError(f"no SSH after {timeout:.0f}s ({last}); console:\n{_tail(workdir)}")
            time.sleep(1)
        guest["boot_seconds"] = round(time.monotonic() - started, 1)
        _write(os.path.join(workdir, "guest.json"), json.dumps(guest, indent=1))
        return guest
    except BaseException:
        stop(workdir, graceful=False)
        raise


def stop(workdir: str, graceful: bool = True, grace: float = 30) -> None:
    """Power the guest off (graceful: ssh poweroff, up to grace s), kill qemu if need be; delete workdir."""
    workdir = os.path.abspath(workdir)
    if not os.path.basename(workdir).startswith("fleetqual-guest-"):
        raise GuestError(f"{workdir} is not a guest work directory")
    guest, cmdline = {}, b""
    with contextlib.suppress(OSError, ValueError), open(os.path.join(workdir, "guest.json"), encoding="utf-8") as fh:
        guest = json.load(fh)
    pid = guest.get("pid", 0)
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as fh:
        cmdline = fh.read()
    if _alive(pid) and (workdir + "/").encode() in cmdline:  # only our own qemu
        if graceful and guest:
            with contextlib.suppress(subprocess.TimeoutExpired):
                run(guest, "systemctl poweroff --no-block", check=False, timeout=20)
        for sig, wait in ((None, grace if graceful else 0), (signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            if sig and _alive(pid):
                os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.5)
    if workdir in _CHILDREN:
        _CHILDREN.pop(workdir).poll()  # reap our child
    shutil.rmtree(workdir, ignore_errors=True)


@contextlib.contextmanager
def running_guest(nvme=(), sata=(), scsi=(), graceful: bool = False, **kwargs):
    """Boot a guest for the with-block and always tear it down (a quick kill unless graceful)."""
    guest = boot(nvme=nvme, sata=sata, scsi=scsi, **kwargs)
    try:
        yield guest
    finally:
        stop(guest["workdir"], graceful=graceful)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help="build the guest image, or find it cached; print its directory")
    p_boot = sub.add_parser("boot", help="boot a guest; print its JSON description")
    for kind in ("nvme", "sata", "scsi"):
        p_boot.add_argument(f"--{kind}", action="append", default=[], metavar="SPEC",
                            help="serial=...,size=256M[,qemu_prop=value] (repeatable)")
    p_boot.add_argument("--memory", default="2G", help="guest RAM (default 2G)")
    p_boot.add_argument("--cpus", type=int, default=2, help="vCPUs, at most 2 (default 2)")
    p_boot.add_argument("--timeout", type=float, help="seconds to wait for SSH (default 180)")
    sub.add_parser("stop", help="power a guest off, delete its work directory").add_argument("workdir")
    sub.choices["stop"].add_argument("--kill", action="store_true", help="kill qemu at once, no clean poweroff")
    sub.add_parser("ssh", help="run a command in a guest (a shell without one)").add_argument("workdir")
    sub.choices["ssh"].add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the clean-ups on a plain kill too
    try:
        if args.cmd == "build":
            print(build())
        elif args.cmd == "boot":
            print(json.dumps(boot(args.nvme, args.sata, args.scsi, args.memory, args.cpus, args.timeout), indent=1))
        elif args.cmd == "stop":
            stop(args.workdir, graceful=not args.kill)
        else:
            if not os.path.isfile(os.path.join(args.workdir, "guest.json")):
                raise GuestError(f"no guest.json in {args.workdir}")
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            with open(os.path.join(args.workdir, "guest.json"), encoding="utf-8") as fh:
                argv = ssh_argv(json.load(fh), " ".join(command))  # joined as ssh itself does
            return subprocess.run(argv[:1] + ["-t"] * sys.stdin.isatty() + argv[1:], check=False).returncode
    except GuestError as exc:
        print(f"guest.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
