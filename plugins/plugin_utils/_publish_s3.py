# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A finished run uploaded to an S3-compatible bucket (the pts_publish_s3 action), with the SSH results host's rules
(module_utils/_publish.py):

- the run lands under ``<prefix>/<name>/`` - every regular file of the run directory, read by directory fds without
  following a link (a link, FIFO or device in the run directory is refused, naming it);
- an earlier copy of the same run (its ``.pts-run-token`` object is this run's token) is replaced: every file
  uploaded again, the objects the run no longer has removed;
- a copy of another attempt of the run id (another token, or objects without one) is kept aside, moved whole to
  ``<prefix>/<name>.superseded-<UTC time>-<pid>/``, never merged with this run;
- the token is uploaded last, so that a copy cut short by a failure is never taken for a complete one of this run.

The client is boto3's (``client("s3")``); credentials come from boto3's own chain - the environment (an AWX credential
of type Amazon Web Services injects ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``), a profile, an instance role - and
are never read, returned or printed here.
"""

from __future__ import annotations

import datetime
import os
import stat

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import PtsError
from ansible_collections.fleetqual.pts.plugins.module_utils import _safe_path
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _safe_tree

TOKEN_FILE = ".pts-run-token"
# S3 DeleteObjects takes at most 1,000 keys a request.
_DELETE_BATCH = 1000


class S3PublishError(PtsError):
    """The run was not uploaded (or only in part): where and why."""


def base_key(prefix: str, name: str) -> str:
    """The key prefix the run lands under: ``<prefix>/<name>/``."""
    return "/".join(p for p in (prefix.strip("/"), name) if p) + "/"


def local_files(run_dir: str) -> list[tuple[str, str, str]]:
    """Every file of the run directory as ``(key below the run, its directory, its name)``, the token last; a link,
    FIFO, socket or device is refused (S3PublishError naming it): the run directory holds regular files only."""
    found = []
    for folder, name, st in _safe_tree.walk_files(run_dir):
        rel = os.path.relpath(os.path.join(folder, name), run_dir)
        if not stat.S_ISREG(st.st_mode):
            raise S3PublishError(f"{os.path.join(folder, name)} is not a regular file (a link, FIFO or device): the "
                                 "run directory holds regular files only; refused, nothing was uploaded")
        found.append((rel, folder, name))
    return sorted(found, key=lambda f: (f[0] == TOKEN_FILE, f[0]))


def local_token(run_dir: str) -> str | None:
    try:
        return _safe_tree.read_text(os.path.join(run_dir, TOKEN_FILE), limit=4096).strip() or None
    except FileNotFoundError:
        return None


def remote_keys(client, bucket: str, base: str) -> list[str]:
    keys = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=base):
        keys.extend(entry["Key"] for entry in page.get("Contents") or [])
    return keys


def remote_token(client, bucket: str, base: str, keys: list[str]) -> str | None:
    if base + TOKEN_FILE not in keys:
        return None
    body = client.get_object(Bucket=bucket, Key=base + TOKEN_FILE)["Body"]
    try:
        return body.read(4096).decode("ascii", errors="replace").strip() or None
    finally:
        body.close()


def _delete(client, bucket: str, keys: list[str]) -> None:
    for start in range(0, len(keys), _DELETE_BATCH):
        batch = keys[start:start + _DELETE_BATCH]
        answer = client.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in batch], "Quiet": True})
        errors = answer.get("Errors") or []
        if errors:
            first = errors[0]
            raise S3PublishError(f"cannot remove s3://{bucket}/{first.get('Key')}: {first.get('Code')} "
                                 f"{first.get('Message')}")


def keep_aside(client, bucket: str, prefix: str, name: str, base: str, keys: list[str],
               now: datetime.datetime | None = None, pid: int | None = None) -> str:
    """Move every object under ``base`` to ``<prefix>/<name>.superseded-<UTC time>-<pid>/``; the new key prefix."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    aside = base_key(prefix, f"{name}.superseded-{stamp}-{os.getpid() if pid is None else pid}")
    for key in keys:
        client.copy_object(Bucket=bucket, Key=aside + key[len(base):], CopySource={"Bucket": bucket, "Key": key})
    _delete(client, bucket, keys)
    return aside


def _upload(client, bucket: str, key: str, folder: str, name: str) -> int:
    dir_fd = _safe_path.walk(folder)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise S3PublishError(f"{os.path.join(folder, name)} is not a regular file; refused")
        client.upload_fileobj(handle, bucket, key)
        return st.st_size


def publish(client, run_dir: str, bucket: str, prefix: str, name: str, now: datetime.datetime | None = None,
            pid: int | None = None) -> dict:
    """Upload the run directory as ``<prefix>/<name>/``; ``{"location", "files", "bytes", "replaced", "kept_aside"}``.
    Errors of the client (botocore's) propagate: the caller words them."""
    base = base_key(prefix, name)
    files = local_files(run_dir)
    token = local_token(run_dir)
    there = remote_keys(client, bucket, base)
    kept = None
    if there and (token is None or remote_token(client, bucket, base, there) != token):
        kept = keep_aside(client, bucket, prefix, name, base, there, now, pid)
        there = []
    size = 0
    for rel, folder, file_name in files:
        size += _upload(client, bucket, base + rel.replace(os.sep, "/"), folder, file_name)
    uploaded = {base + rel.replace(os.sep, "/") for rel, dummy, dummy in files}
    _delete(client, bucket, sorted(set(there) - uploaded))
    return {"location": f"s3://{bucket}/{base}", "files": len(files), "bytes": size, "replaced": bool(there),
            "kept_aside": f"s3://{bucket}/{kept}" if kept else None}
