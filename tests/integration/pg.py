# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A real PostgreSQL server for the tests: the distribution's (Debian's postgresql package), an initdb cluster in a
temporary directory owned by a non-root user (PostgreSQL refuses to run as root), listening on a loopback port and a
Unix socket in that directory, password authentication only (scram-sha-256); started by the tests and stopped after.
Each cluster has its own directory and port, so tests running at once never share one."""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile

USER = "pts"
DATABASE = "pts"


def _bin_dir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql (scripts/deps.sh does)")
    return os.path.dirname(found[-1])


def _owner() -> str:
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("no non-root user to run PostgreSQL as (postgres or nobody)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgreSQL:
    """One cluster: ``url()`` with the password in it, ``url(password=False)`` without (give it another way)."""

    def __init__(self, durable: bool = False):
        # The tests' clusters skip fsync (fast, and nothing in them outlives the test); durable=True keeps PostgreSQL's
        # default (fsync on), as a real server's - the benchmark's, so its write figures compare with SQLite's.
        self.durable = durable
        self.bin = _bin_dir()
        self.owner = _owner()
        self.dir = tempfile.mkdtemp(prefix="pts-pg-")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.port = _free_port()
        self.superuser_password = secrets.token_urlsafe(12)
        # Characters a URL must escape, so the tests see the password percent-encoded in URLs and plain elsewhere.
        self.password = "pw-" + secrets.token_hex(6) + "@/:"
        entry = pwd.getpwnam(self.owner)
        os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        os.chmod(self.dir, 0o700)
        pwfile = os.path.join(self.dir, "pwfile")
        with open(pwfile, "w", encoding="utf-8") as handle:
            handle.write(self.superuser_password + "\n")
        os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        self._as_owner([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "postgres", "-E", "UTF8",
                        "--locale=C", "--auth-local=scram-sha-256", "--auth-host=scram-sha-256",
                        f"--pwfile={pwfile}"])
        os.unlink(pwfile)
        self.start()
        self.sql(f"CREATE ROLE {USER} LOGIN PASSWORD '{self.password}'")
        self.sql(f"CREATE DATABASE {DATABASE} OWNER {USER}")

    def _as_owner(self, args: list[str], env: dict | None = None) -> str:
        proc = subprocess.run(args, user=self.owner, cwd=self.dir, capture_output=True, text=True, check=False,
                              env=dict(os.environ, **(env or {})), timeout=120)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(args)}: {proc.stdout}{proc.stderr}")
        return proc.stdout

    def start(self) -> None:
        self._as_owner([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                        f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
                        + ("" if self.durable else " -c fsync=off"), "start"])

    def stop(self) -> None:
        self._as_owner([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop"])

    def running(self) -> bool:
        proc = subprocess.run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "status"], user=self.owner,
                              capture_output=True, text=True, check=False)
        return proc.returncode == 0

    def sql(self, statement: str, database: str = "postgres") -> str:
        """A statement as the cluster's superuser (over the Unix socket), its rows as psql prints them unaligned."""
        return self._as_owner([os.path.join(os.path.dirname(self.bin), "bin", "psql"), "-X", "-A", "-t", "-v",
                               "ON_ERROR_STOP=1", "-h", self.dir, "-p", str(self.port), "-U", "postgres", "-d",
                               database, "-c", statement], env={"PGPASSWORD": self.superuser_password})

    def url(self, password: bool = True, database: str = DATABASE) -> str:
        secret = ":" + self.quoted_password() if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str = DATABASE) -> str:
        """Over the Unix socket, the password to come from elsewhere (PGPASSWORD, pts_history_password)."""
        return f"postgresql://{USER}@/{database}?host={self.dir}&port={self.port}"

    def quoted_password(self) -> str:
        from urllib.parse import quote  # pylint: disable=import-outside-toplevel
        return quote(self.password, safe="")

    def new_database(self, name: str) -> str:
        """An empty database of its own for one test; its URL (with the password)."""
        self.sql(f"CREATE DATABASE {name} OWNER {USER}")
        return self.url(database=name)

    def close(self) -> None:
        if self.running():
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
