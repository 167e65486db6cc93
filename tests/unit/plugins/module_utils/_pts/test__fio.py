# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import random

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def test_iops_round_parsed_per_combination():
    text = fixture("fio-3.33-iops-round.json")
    raw = json.loads(text)
    parsed = _fio.parse(text)
    assert parsed["fio_version"] == "fio-3.33"
    assert [(j["mix"], j["bs"]) for j in parsed["jobs"]] == [
        (100, 65536), (100, 4096), (65, 65536), (65, 4096), (0, 65536), (0, 4096)]
    for job, source in zip(parsed["jobs"], raw["jobs"]):
        assert job["numjobs"] == 2 and job["iodepth"] == 16
        assert job["read"]["iops"] == source["read"]["iops"]
        assert job["write"]["iops"] == source["write"]["iops"]
        assert job["total"]["iops"] == pytest.approx(source["read"]["iops"] + source["write"]["iops"])
        assert job["total"]["bw_bytes"] == source["read"]["bw_bytes"] + source["write"]["bw_bytes"]
        # with group_reporting fio sums job_runtime over the 2 clones; a direction's runtime is the run's
        assert job["runtime_ms"] == max(source["read"]["runtime"], source["write"]["runtime"])
        assert 500 <= job["runtime_ms"] < 600
    assert parsed["global_options"]["refill_buffers"] == "1"


def test_pure_read_and_pure_write_have_no_figures_for_the_idle_direction():
    jobs = _fio.parse(fixture("fio-3.33-iops-round.json"))["jobs"]
    read_only = _fio.find_job(jobs, 100, 4096)
    write_only = _fio.find_job(jobs, 0, 4096)
    assert read_only["write"]["total_ios"] == 0 and read_only["write"]["lat_ns"]["mean"] is None
    assert write_only["read"]["total_ios"] == 0
    assert write_only["write"]["lat_ns"]["percentiles"].keys() == {"50", "99", "99.9", "99.99"}


def test_mixed_latency_is_io_weighted_not_a_fixed_blend():
    raw = json.loads(fixture("fio-3.33-iops-round.json"))
    source = next(j for j in raw["jobs"] if j["jobname"] == "iops-r65-4096")
    r, w = source["read"], source["write"]
    expected = (r["lat_ns"]["mean"] * r["total_ios"] + w["lat_ns"]["mean"] * w["total_ios"]) / (
        r["total_ios"] + w["total_ios"])
    job = _fio.find_job(_fio.parse(json.dumps(raw))["jobs"], 65, 4096)
    assert job["total"]["lat_ns"]["mean"] == pytest.approx(expected)
    assert job["total"]["lat_ns"]["max"] == max(r["lat_ns"]["max"], w["lat_ns"]["max"])


def test_lookup_is_by_value_not_position():
    raw = json.loads(fixture("fio-3.33-iops-round.json"))
    expected = next(j for j in raw["jobs"] if j["jobname"] == "iops-r0-4096")["write"]["iops"]
    random.Random(7).shuffle(raw["jobs"])
    jobs = _fio.parse(json.dumps(raw))["jobs"]
    assert _fio.find_job(jobs, 0, 4096)["write"]["iops"] == expected
    with pytest.raises(KeyError, match="0 fio jobs for mix 50/50"):
        _fio.find_job(jobs, 50, 4096)


def test_notes_ahead_of_the_json_are_skipped():
    text = fixture("fio-3.33-psync-note-stdout.txt")
    assert text.startswith("note:")
    parsed = _fio.parse(text)
    job = parsed["jobs"][0]
    assert job["mix"] == 0 and job["bs"] == 131072 and job["pattern"] == "sequential"
    assert job["write"]["io_bytes"] == 16 * 1024 * 1024
    # without lat_percentiles fio only has completion-latency percentiles; they are used
    assert job["write"]["lat_ns"]["percentiles"]


def test_a_job_error_is_an_error_not_a_figure():
    with pytest.raises(_fio.FioOutputError, match="'fill' ended with error 28"):
        _fio.parse(fixture("fio-3.33-enospc.json"))


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no JSON document"),
        ("fio: failed to open file\n", "no JSON document"),
        ('{"fio version": "fio-3.33", "jobs": [', "not valid JSON"),
        ('{"fio version": "fio-3.33"}', "no 'jobs' list"),
        ('{"fio version": "fio-3.33", "jobs": []}', "lists no jobs"),
    ],
)
def test_garbage_is_rejected(text, message):
    with pytest.raises(_fio.FioOutputError, match=message):
        _fio.parse(text)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda job: job.update(read=[1]), r"job 'iops-r65-4096': 'read' is not an object but \[1\]"),
        (lambda job: job["write"].update(total_ios="12"), r"iops-r65-4096' write: 'total_ios' is not a number but '12'"),
        (lambda job: job["read"]["lat_ns"].update(percentile={"x": 1}), r"percentile 'x' is not a number"),
        (lambda job: job["read"]["lat_ns"]["percentile"].update({"99.000000": None}), r"'99.000000' is not a number"),
        (lambda job: job["job options"].update(iodepth="deep"), r"option iodepth='deep' is not a whole number"),
        (lambda job: job.update({"job options": "bs=4k"}), r"'job options' is not an object"),
        (lambda job: job.update(error="28"), r"'error' is not a number but '28'"),
    ],
)
def test_a_field_fio_would_not_print_is_refused_by_name(change, message):
    raw = json.loads(fixture("fio-3.33-iops-round.json"))
    job = next(job for job in raw["jobs"] if job["jobname"] == "iops-r65-4096")
    change(job)
    with pytest.raises(_fio.FioOutputError, match=message):
        _fio.parse(json.dumps(raw))


def test_a_job_that_is_not_an_object_is_refused():
    with pytest.raises(_fio.FioOutputError, match="a fio job is not an object but 'x'"):
        _fio.parse('{"jobs": ["x"]}')
    with pytest.raises(_fio.FioOutputError, match="'global options' is not an object"):
        _fio.parse('{"global options": ["bs=4k"], "jobs": [{}]}')


def test_a_bug_in_parsing_is_a_traceback_not_a_message_about_fio(monkeypatch):
    # Only what fio printed is worded as fio's: an error of the code itself is not turned into "not fio's output".
    monkeypatch.setattr(_fio, "combined", lambda read, write: read["no such key"])
    with pytest.raises(KeyError, match="no such key"):
        _fio.parse(fixture("fio-3.33-iops-round.json"))


def test_json_plus_keeps_each_directions_latency_bins_cpu_and_the_five_nines():
    raw = json.loads(fixture("fio-3.33-jsonplus-mixed.json"))
    (source,) = raw["jobs"]
    (job,) = _fio.parse(json.dumps(raw))["jobs"]
    for direction in ("read", "write"):
        histogram = job[direction]["histogram"]
        bins = source[direction]["lat_ns"]["bins"]
        # Total latency (lat_percentiles=1), every non-empty bin, in latency order, nothing lost.
        assert histogram["source"] == "lat_ns"
        assert [ns for ns, dummy in histogram["bins"]] == sorted(int(k) for k, v in bins.items() if v)
        assert sum(count for dummy, count in histogram["bins"]) == source[direction]["total_ios"]
        assert job[direction]["lat_ns"]["percentiles"]["99.999"] == \
            source[direction]["lat_ns"]["percentile"]["99.999000"]
    assert job["cpu"] == {"usr_pct": source["usr_cpu"], "sys_pct": source["sys_cpu"]}
    assert job["options"]["bssplit"] == source["job options"]["bssplit"]
    assert (job["numjobs"], job["iodepth"]) == (1, 1) and job["mix"] == 40


def test_plain_json_has_no_histogram_and_a_job_is_found_by_its_section_name():
    jobs = _fio.parse(fixture("fio-3.33-iops-round.json"))["jobs"]
    assert all("histogram" not in job["read"] and "histogram" not in job["write"] for job in jobs)
    assert _fio.find_named(jobs, "iops-r65-4096") is _fio.find_job(jobs, 65, 4096)
    with pytest.raises(KeyError, match="0 fio jobs named 'nope'"):
        _fio.find_named(jobs, "nope")


def test_a_run_that_completed_no_io_is_an_error_with_what_fio_said_never_a_zero():
    raw = json.loads(fixture("fio-3.33-iops-round.json"))
    for job in raw["jobs"][:1]:
        for direction in ("read", "write"):
            job[direction].update(iops=0.0, bw=0, bw_bytes=0, io_bytes=0, io_kbytes=0, total_ios=0, runtime=0)
    text = "fio: terminating on signal 15\n" + json.dumps(raw)
    with pytest.raises(_fio.FioOutputError) as caught:
        _fio.parse(text)
    name = raw["jobs"][0]["jobname"]
    assert str(caught.value) == (f"fio completed no I/O in job {name!r} (it aborted or wrote nothing): a failed "
                                 "round, not a figure of 0; fio said: fio: terminating on signal 15")
