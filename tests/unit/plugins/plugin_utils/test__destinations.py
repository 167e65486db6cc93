# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _destinations


def test_ssh_and_s3_targets_are_read_with_their_defaults():
    found = _destinations.targets([
        {"host": "results01", "dest": "/srv/pts/"},
        {"host": "results02", "dest": "/srv", "connection": {"ansible_host": "198.18.0.2", "ansible_user": "pts",
                                                             "ansible_ssh_private_key_file": "/runner/key"}},
        {"s3": {"bucket": "pts-results", "prefix": "/fleet//rack12/".lstrip("/"), "endpoint_url": "http://127.0.0.1:8333"}},
    ])
    assert found[0] == {"kind": "ssh", "host": "results01", "dest": "/srv/pts", "connection": {}}
    assert found[1]["connection"]["ansible_user"] == "pts"
    assert found[2] == {"kind": "s3", "bucket": "pts-results", "prefix": "fleet/rack12",
                        "endpoint_url": "http://127.0.0.1:8333", "region": None}
    assert _destinations.results_hosts(found) == ["results01", "results02"]
    assert _destinations.location(found[0], "R7") == "results01:/srv/pts/R7"
    assert _destinations.location(found[2], "R7") == "s3://pts-results/fleet/rack12/R7/"
    assert _destinations.location(_destinations.targets([{"s3": {"bucket": "b12"}}])[0], "R7") == "s3://b12/R7/"


@pytest.mark.parametrize("entry, said", [
    ({"host": "r1"}, "must have host and dest"),
    ({"host": "r1", "dest": "/srv", "user": "x"}, "must have host and dest"),
    ({"host": "r1", "dest": "/srv", "connection": {"ansible_password": "secret"}},
     "ansible_password not allowed"),
    ({"host": "r1", "dest": "/srv", "connection": {"ansible_host": ["a"]}}, "must be a single value"),
    ({"host": "r 1", "dest": "/srv"}, "must be a host name"),
    ({"host": "r1", "dest": "srv"}, "must be an absolute directory path"),
    ({"s3": {"bucket": "B"}}, "must be an S3 bucket name"),
    ({"s3": {"bucket": "ok-bucket", "prefix": "../x"}}, "'..' parts"),
    ({"s3": {"bucket": "ok-bucket", "prefix": "/x"}}, "without a leading '/'"),
    ({"s3": {"bucket": "ok-bucket", "endpoint_url": "http://key:secret@host"}}, "without credentials"),
    ({"s3": {"bucket": "ok-bucket", "endpoint_url": "ftp://host"}}, "http:// or https://"),
    ({"s3": {"bucket": "ok-bucket", "secret_key": "x"}}, "must have bucket"),
    ({"s3": {"bucket": "ok-bucket"}, "host": "r1"}, "an S3 target has s3 alone"),
    ({"s3": {"bucket": "ok-bucket", "region": "US East"}}, "must be a region name"),
])
def test_a_wrong_entry_is_refused_naming_it(entry, said):
    with pytest.raises(ValueError) as caught:
        _destinations.targets([{"host": "fine", "dest": "/srv"}, entry])
    assert "pts_run_publish[1]" in str(caught.value) and said in str(caught.value)


def test_the_private_data_directory_is_the_runners_artifacts_dir_two_levels_up():
    assert _destinations.private_data_dir({"AWX_ISOLATED_DATA_DIR": "/runner/artifacts/17"}) == "/runner"
    assert _destinations.private_data_dir({}) is None
    assert _destinations.private_data_dir({"AWX_ISOLATED_DATA_DIR": "artifacts/1"}) is None


def test_results_inside_the_job_directory_with_nothing_published_are_refused(tmp_path):
    job = tmp_path / "job"
    (job / "project" / "results").mkdir(parents=True)
    inside = str(job / "project" / "results")
    said = _destinations.lost_refusal(inside, [], False, str(job))
    assert said and "deleted" not in said and f"inside the job's private data directory {job}" in said
    assert "pts_results_ephemeral: true" in said and said.endswith("nothing was written")
    # Published, or the operator accepts the loss, or a directory outside the job, or no runner: runs.
    assert _destinations.lost_refusal(inside, [{"kind": "s3"}], False, str(job)) is None
    assert _destinations.lost_refusal(inside, [], True, str(job)) is None
    assert _destinations.lost_refusal(str(tmp_path / "kept"), [], False, str(job)) is None
    assert _destinations.lost_refusal(inside, [], False, None) is None
    # A link out of the job directory that leads back into it is inside.
    (tmp_path / "link").symlink_to(job / "project")
    assert _destinations.lost_refusal(str(tmp_path / "link" / "results"), [], False, str(job))
    assert not _destinations.persistent(inside, str(job)) and _destinations.persistent(inside, None)


@pytest.mark.parametrize("given, expected", [(None, False), ("", False), (True, True), (False, False)])
def test_ephemeral_is_a_yaml_boolean(given, expected):
    assert _destinations.ephemeral(given) is expected


def test_ephemeral_as_a_string_is_refused():
    with pytest.raises(ValueError, match="pts_results_ephemeral='true': must be true or false"):
        _destinations.ephemeral("true")
