# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this module util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins/modules!

"""The program a drive's holder process runs (see _hold.py, which starts it): a fresh interpreter reads it from stdin,
so it is stdlib only and self-contained.
"""

from __future__ import annotations

# The holder itself (run by a fresh interpreter, stdlib only). argv: -c MARKER DEVICE DEVNUM RUN_ID LOCK RETRY_S TOKEN; fd 3 is
# the readiness pipe: "ready PID" once the exclusive open is held and the lock file written, else "error PID ERRNO TEXT".
HOLDER_SOURCE = r'''
import datetime, errno, fcntl, json, os, signal, socket, stat, sys, time

def main():
    device, devnum, run_id, lock = sys.argv[2:6]
    retry_s = float(sys.argv[6])
    token = sys.argv[7] if len(sys.argv) > 7 else ""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.close(null)

    def tell(text):
        try:
            os.write(3, text.encode("utf-8", "replace") + b"\n")
            os.close(3)
        except OSError:
            pass

    deadline = time.monotonic() + retry_s
    while True:
        try:
            fd = os.open(device, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
            break
        except OSError as exc:
            if exc.errno == errno.EBUSY and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            tell("error %d %d %s" % (os.getpid(), exc.errno, exc.strerror))
            return 1
    st = os.fstat(fd)
    if not stat.S_ISBLK(st.st_mode) or "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)) != devnum:
        tell("error %d 0 %s is no longer block device %s" % (os.getpid(), device, devnum))
        return 1
    with open("/proc/self/stat", encoding="ascii", errors="replace") as handle:
        start_time = int(handle.read().rsplit(")", 1)[1].split()[19])
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            boot_id = handle.read().strip()
    except OSError:
        boot_id = None
    record = {"format": "fleetqual.pts drive hold 1", "run_id": run_id, "token": token, "pid": os.getpid(), "start_time": start_time,
              "boot_id": boot_id, "device": device, "devnum": devnum, "host": socket.gethostname(),
              "since": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "release": "kill %d" % os.getpid()}
    directory = os.open(os.path.dirname(lock), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    tmp = "%s.%d.tmp" % (lock, os.getpid())
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(out, (json.dumps(record, indent=1) + "\n").encode("utf-8"))
            os.fsync(out)
        finally:
            os.close(out)
        os.replace(tmp, lock)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        tell("error %d %d cannot write the lock file %s: %s" % (os.getpid(), exc.errno, lock, exc.strerror))
        return 1
    finally:
        fcntl.flock(directory, fcntl.LOCK_UN)
    tell("ready %d" % os.getpid())
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    fcntl.flock(directory, fcntl.LOCK_EX)
    try:
        with open(lock, encoding="utf-8") as handle:
            if json.load(handle).get("pid") == os.getpid():
                os.unlink(lock)
    except (OSError, ValueError):
        pass
    fcntl.flock(directory, fcntl.LOCK_UN)
    os.close(fd)
    return 0

sys.exit(main())
'''
