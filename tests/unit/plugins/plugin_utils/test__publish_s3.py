# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The upload's rules against an in-memory bucket with boto3's client interface (the real server - SeaweedFS - runs in
tests/integration/test_awx.py)."""

from __future__ import annotations

import datetime
import io
import os

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _publish_s3

NOW = datetime.datetime(2026, 11, 27, 10, 0, 0, tzinfo=datetime.timezone.utc)


class Bucket:
    """list_objects_v2 (paginated), get_object, upload_fileobj, copy_object, delete_objects over a dict."""

    def __init__(self):
        self.objects: dict[str, bytes] = {}
        self.calls: list[str] = []

    def get_paginator(self, name):
        assert name == "list_objects_v2"
        bucket = self

        class Pages:
            @staticmethod
            def paginate(Bucket, Prefix):  # noqa: N803  boto3's names
                keys = sorted(k for k in bucket.objects if k.startswith(Prefix))
                for start in range(0, max(len(keys), 1), 2):  # two a page: pagination is followed
                    yield {"Contents": [{"Key": k} for k in keys[start:start + 2]]} if keys else {}
        return Pages()

    def get_object(self, Bucket, Key):  # noqa: N803
        return {"Body": io.BytesIO(self.objects[Key])}

    def upload_fileobj(self, handle, bucket, key):
        self.calls.append(key)
        self.objects[key] = handle.read()

    def copy_object(self, Bucket, Key, CopySource):  # noqa: N803
        self.objects[Key] = self.objects[CopySource["Key"]]

    def delete_objects(self, Bucket, Delete):  # noqa: N803
        for entry in Delete["Objects"]:
            del self.objects[entry["Key"]]
        return {}


def _run(tmp_path, token, rounds):
    run = tmp_path / "results" / "R7"
    drive = run / "h1" / "d" / "iops"
    drive.mkdir(parents=True, exist_ok=True)
    for old in drive.glob("round-*.json"):
        old.unlink()
    (run / ".pts-run-token").write_text(token)
    for number in range(1, rounds + 1):
        (drive / f"round-{number:02d}.json").write_text(f'{{"token": "{token[:1]}", "round": {number}}}')
    return str(run)


def _rounds(bucket, base):
    return sorted(k[len(base):] for k in bucket.objects if k.startswith(base) and "round-" in k)


def test_same_run_replaces_another_attempt_is_kept_aside_never_merged(tmp_path):
    bucket = Bucket()
    run = _run(tmp_path, "a" * 32, 7)
    got = _publish_s3.publish(bucket, run, "b", "lab/pts", "R7", NOW, 42)
    assert got == {"location": "s3://b/lab/pts/R7/", "files": 8, "bytes": got["bytes"], "replaced": False,
                   "kept_aside": None}
    assert bucket.calls[-1] == "lab/pts/R7/.pts-run-token"  # the token last
    assert len(_rounds(bucket, "lab/pts/R7/")) == 7

    # The same run again, fewer files: replaced, the objects it no longer has removed.
    run = _run(tmp_path, "a" * 32, 3)
    got = _publish_s3.publish(bucket, run, "b", "lab/pts", "R7", NOW, 42)
    assert got["replaced"] is True and got["kept_aside"] is None
    assert _rounds(bucket, "lab/pts/R7/") == [f"h1/d/iops/round-{n:02d}.json" for n in (1, 2, 3)]

    # Another attempt of the run id (another token): the earlier copy moved aside whole, the new one alone in place.
    run = _run(tmp_path, "b" * 32, 2)
    got = _publish_s3.publish(bucket, run, "b", "lab/pts", "R7", NOW, 42)
    aside = "lab/pts/R7.superseded-20261127T100000Z-42/"
    assert got["kept_aside"] == f"s3://b/{aside}" and got["replaced"] is False
    assert _rounds(bucket, "lab/pts/R7/") == ["h1/d/iops/round-01.json", "h1/d/iops/round-02.json"]
    assert bucket.objects["lab/pts/R7/.pts-run-token"] == b"b" * 32
    assert _rounds(bucket, aside) == [f"h1/d/iops/round-{n:02d}.json" for n in (1, 2, 3)]
    assert bucket.objects[aside + ".pts-run-token"] == b"a" * 32


def test_objects_without_a_token_are_another_attempt(tmp_path):
    bucket = Bucket()
    bucket.objects["R7/someone-elses.txt"] = b"x"
    got = _publish_s3.publish(bucket, _run(tmp_path, "a" * 32, 1), "b", "", "R7", NOW, 1)
    assert got["kept_aside"] == "s3://b/R7.superseded-20261127T100000Z-1/"
    assert "R7/someone-elses.txt" not in bucket.objects
    assert bucket.objects["R7.superseded-20261127T100000Z-1/someone-elses.txt"] == b"x"


def test_a_link_in_the_run_directory_is_refused_before_any_upload(tmp_path):
    run = _run(tmp_path, "a" * 32, 1)
    os.symlink("/etc/shadow", os.path.join(run, "h1", "d", "shadow"))
    bucket = Bucket()
    with pytest.raises(_publish_s3.S3PublishError, match="is not a regular file"):
        _publish_s3.publish(bucket, run, "b", "", "R7", NOW, 1)
    assert bucket.objects == {}


def test_a_failed_upload_propagates_and_leaves_no_token(tmp_path):
    class Failing(Bucket):
        def upload_fileobj(self, handle, bucket, key):
            if "round-02" in key:
                raise OSError("connection reset")
            super().upload_fileobj(handle, bucket, key)

    bucket = Failing()
    with pytest.raises(OSError, match="connection reset"):
        _publish_s3.publish(bucket, _run(tmp_path, "a" * 32, 3), "b", "", "R7", NOW, 1)
    assert "R7/.pts-run-token" not in bucket.objects  # never taken for a complete copy of this run
