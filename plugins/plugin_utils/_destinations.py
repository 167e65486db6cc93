# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Where a run's results live after the job: the publish targets (``pts_publish``), and the refusal of a run whose
results would be lost.

- An SSH results host: ``{host, dest}`` - an inventory host, or any name with the connection variables to reach it
  given in the entry itself (``connection``: a job slice's inventory may not hold it, and its credential can differ
  from the drive hosts'). A results host is never a drive host of the run: never prepared, guarded or judged.
- An S3-compatible bucket: ``{s3: {bucket, prefix, endpoint_url, region}}``; the credentials come from the
  environment (an AWX credential injects them), never from a variable.
- Under ansible-runner (AWX, Automation Platform) the job's private data directory is deleted when the job ends: a
  results root inside it, with nothing published, is refused before anything is written, unless the run says its
  results may be lost (``pts_results_ephemeral: true``).
"""

from __future__ import annotations

import os
import re

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._drive import _text

# Connection variables a publish entry may give its results host: how to reach it and as whom, never a password
# (a key file, from an AWX credential's file injector, or an agent).
CONNECTION = ("ansible_host", "ansible_port", "ansible_user", "ansible_ssh_private_key_file", "ansible_ssh_common_args",
              "ansible_ssh_extra_args", "ansible_python_interpreter", "ansible_become", "ansible_become_user",
              "ansible_become_method")
S3_KEYS = ("bucket", "prefix", "endpoint_url", "region")
# S3 bucket names (AWS's rules, which S3-compatible servers follow): 3-63 of a-z, 0-9, '.', '-'.
_BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_REGION_RE = re.compile(r"^[a-z0-9-]{1,32}$")
_URL_RE = re.compile(r"^https?://[A-Za-z0-9.:\[\]_-]+(/[A-Za-z0-9._~/-]*)?$")
_PREFIX_RE = re.compile(r"^[A-Za-z0-9._~/=+-]*$")


def targets(given: object, variable: str = "pts_run_publish") -> list[dict]:
    """The publish targets, each ``{"kind": "ssh", "host", "dest", "connection"}`` or ``{"kind": "s3", "bucket",
    "prefix", "endpoint_url", "region"}``; ValueError naming the entry and what is wrong."""
    if given in (None, ""):
        return []
    if not isinstance(given, list):
        raise InputError(f"{variable}={given!r}: must be a list of {{host, dest}} or {{s3: {{bucket, ...}}}} entries")
    return [_target(f"{variable}[{index}]", entry) for index, entry in enumerate(given)]


def _target(where: str, entry: object) -> dict:
    if isinstance(entry, dict) and "s3" in entry:
        if sorted(entry) != ["s3"]:
            raise InputError(f"{where}={entry!r}: an S3 target has s3 alone")
        return _s3(f"{where}.s3", entry["s3"])
    if not isinstance(entry, dict) or not {"host", "dest"} <= set(entry) or set(entry) - {"host", "dest", "connection"}:
        raise InputError(f"{where}={entry!r}: must have host and dest (and optionally connection), or s3")
    host, dest = entry["host"], entry["dest"]
    if not isinstance(host, str) or not host or any(c.isspace() for c in host):
        raise InputError(f"{where}.host={host!r}: must be a host name")
    if not isinstance(dest, str) or not dest.startswith("/") or "/../" in dest + "/" or "/./" in dest + "/":
        raise InputError(f"{where}.dest={dest!r}: must be an absolute directory path")
    _text.no_format_characters(f"{where}.host", host)
    _text.no_format_characters(f"{where}.dest", dest)
    connection = entry.get("connection") or {}
    if not isinstance(connection, dict):
        raise InputError(f"{where}.connection={connection!r}: must be a dict of connection variables")
    unknown = sorted(str(k) for k in connection if k not in CONNECTION)
    if unknown:
        raise InputError(f"{where}.connection: {', '.join(unknown)} not allowed - only {', '.join(CONNECTION)} (a "
                         "password never: give a key file, from an AWX credential)")
    for key, value in connection.items():
        if isinstance(value, (dict, list)) or value is None:
            raise InputError(f"{where}.connection.{key}={value!r}: must be a single value")
        _text.no_format_characters(f"{where}.connection.{key}", str(value))
    return {"kind": "ssh", "host": host, "dest": dest.rstrip("/") or "/", "connection": dict(connection)}


def _s3(where: str, given: object) -> dict:
    if not isinstance(given, dict) or "bucket" not in given or set(given) - set(S3_KEYS):
        raise InputError(f"{where}={given!r}: must have bucket, and optionally prefix, endpoint_url and region")
    bucket = given["bucket"]
    if not isinstance(bucket, str) or not _BUCKET_RE.fullmatch(bucket) or ".." in bucket:
        raise InputError(f"{where}.bucket={bucket!r}: must be an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')")
    prefix = given.get("prefix") or ""
    if not isinstance(prefix, str) or not _PREFIX_RE.fullmatch(prefix) or prefix.startswith("/") or \
            any(part in (".", "..") for part in prefix.split("/")):
        raise InputError(f"{where}.prefix={prefix!r}: must be a key prefix of letters, digits and ._~/=+- "
                         "without a leading '/', '.' or '..' parts")
    prefix = "/".join(part for part in prefix.split("/") if part)
    endpoint = given.get("endpoint_url") or None
    if endpoint is not None and (not isinstance(endpoint, str) or not _URL_RE.fullmatch(endpoint)):
        raise InputError(f"{where}.endpoint_url={endpoint!r}: must be an http:// or https:// URL without "
                         "credentials, query or fragment")
    region = given.get("region") or None
    if region is not None and (not isinstance(region, str) or not _REGION_RE.fullmatch(region)):
        raise InputError(f"{where}.region={region!r}: must be a region name (a-z, 0-9, '-')")
    return {"kind": "s3", "bucket": bucket, "prefix": prefix, "endpoint_url": endpoint, "region": region}


def location(target: dict, name: str) -> str:
    """Where the run ``name`` lands at a target: ``host:dest/name`` or ``s3://bucket/prefix/name/``."""
    if target["kind"] == "s3":
        return "s3://" + "/".join(p for p in (target["bucket"], target["prefix"], name) if p) + "/"
    return f"{target['host']}:{target['dest'].rstrip('/')}/{name}"


def results_hosts(found: list[dict]) -> list[str]:
    """The SSH results hosts' names: never drive hosts of the run."""
    return sorted({t["host"] for t in found if t["kind"] == "ssh"})


def private_data_dir(environ: dict) -> str | None:
    """The job's private data directory when ansible-runner runs the job (AWX, Automation Platform): its artifacts
    directory is ``<private data dir>/artifacts/<ident>`` (``AWX_ISOLATED_DATA_DIR``)."""
    artifacts = environ.get("AWX_ISOLATED_DATA_DIR")
    if not artifacts or not os.path.isabs(artifacts):
        return None
    return os.path.dirname(os.path.dirname(os.path.normpath(artifacts)))


def inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def ephemeral(given: object) -> bool:
    if given in (None, ""):
        return False
    if not isinstance(given, bool):
        raise InputError(f"pts_results_ephemeral={given!r}: must be true or false (a YAML boolean)")
    return given


def lost_refusal(root: str, found: list[dict], allowed_lost: bool, job_dir: str | None) -> str | None:
    """Why a run whose results would be lost when the job ends must not start, or None: its results root is inside
    the job's private data directory ``job_dir``, which ansible-runner (AWX) deletes, nothing is published, and the
    run did not say its results may be lost."""
    if job_dir is None or found or allowed_lost or not inside(root, job_dir):
        return None
    return (f"the results would be lost: they go to {root}, inside the job's private data directory {job_dir}, which "
            "AWX (ansible-runner) deletes when the job ends, and pts_publish names no results host or bucket. Set "
            "pts_results_dir to a directory that outlives the job (a volume of the container group, a path on the "
            "execution node), or pts_publish ([{host: <results host>, dest: <directory>}] or [{s3: {bucket: "
            "<bucket>}}]), or pts_results_ephemeral: true to run with results that are lost; nothing was written")


def persistent(root: str, job_dir: str | None) -> bool:
    """Whether the results root outlives the job (it is not inside the job's private data directory)."""
    return job_dir is None or not inside(root, job_dir)
