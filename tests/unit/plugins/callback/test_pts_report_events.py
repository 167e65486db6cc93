# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pts_report callback driven through its v2_* events, as ansible-core calls it: each task result is filed on disk
the moment it arrives, said on the console, and the end of the playbook renders the touched drives' reports."""

from __future__ import annotations

import inspect
import json
import os
import re
import time
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
import yaml

from ansible import constants as C
from ansible import context as ansible_context
from ansible.executor.task_result import TaskResult
from ansible.inventory.host import Host

from ansible_collections.fleetqual.pts.plugins.callback import pts_report
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _rounds
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _concurrency, _results, _run_lock

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
RUN = "run-7"
LOOP = "loop-iops-d1-1"
CAPACITY = 268435456
SETTINGS = {"profile": "quick", "round_seconds": 0.5, "max_rounds": 8, "window": 5, "max_data_excursion_pct": 20.0,
            "max_slope_excursion_pct": 10.0, "ioengine": "libaio", "notes": [], "numjobs": 2, "iodepth": 16,
            "mixes": [100, 65, 0], "block_sizes": [65536, 4096], "dv": {"mix": 0, "bs": 4096, "metric": "iops"},
            "wipc": {"block_size": "128k", "capacity_multiple": 2}}


# --- building blocks --------------------------------------------------------------------------------------------------

def raw_fio(name: str = "fio-3.33-iops-round.json") -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def fio_round(name: str = "fio-3.33-iops-round.json", job_text: str = "[global]\nrw=randrw\n") -> dict:
    """A real fio round as fio_job returns it: the parsed figures with the job file's text."""
    return dict(_fio.parse(raw_fio(name)), job_text=job_text)


def context(test: str = "iops", number: int | None = None, **extra) -> dict:
    """The pts_context the role gives a round (roles/pts_run/vars/main.yml) and pts_round completes."""
    found = {"run_id": RUN, "host": "h1", "drive": "d1", "test": test, "settings": SETTINGS, "segment": ""}
    if number is not None:
        found.update(phase="round", round=number, loop=LOOP)
    found.update(extra)
    return found


def steady_verdict(number: int, steady: bool, value: float = 12345.67, metric: str = "iops", bs: int = 4096,
                   mix: int = 0, data: float | None = 12.34, slope: float | None = 4.56, **dv) -> dict:
    return {"round": number, "steady": steady, "stop": steady, "max_rounds": 25,
            "reason": f"steady after round {number}" if steady else f"not steady after round {number}",
            "dvs": [dict({"name": "dv", "mix": mix, "bs": bs, "metric": metric, "dv_value": value, "steady": steady,
                          "data_excursion_pct": data, "slope_excursion_pct": slope,
                          "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0}, **dv)]}


def task_result(data: dict, host: str = "h1", host_vars: dict | None = None, legacy: bool = False):
    """What a callback receives: ansible-core's TaskResult (``.host``/``.task``/``.result`` from 2.19 on), or an object
    with only the older ``_host``/``_task``/``_result``."""
    inventory_host = Host(host)
    for key, value in (host_vars or {}).items():
        inventory_host.set_variable(key, value)
    task = MagicMock(action="fleetqual.pts.pts_round", no_log=False)
    if legacy:
        return SimpleNamespace(_host=inventory_host, _task=task, _result=data)
    if len(inspect.signature(TaskResult).parameters) == 3:
        # From 2.21 the callback's result wraps the task's unified result instead of taking the dict itself.
        from ansible._internal._task import UnifiedTaskResult  # pylint: disable=import-outside-toplevel

        return TaskResult(inventory_host, task, UnifiedTaskResult.from_action_result_dict(dict(data)))
    return TaskResult(inventory_host, task, data, {})


def read(path) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def files_under(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, dummy, names in os.walk(root) for f in names)


def said(callback) -> list[str]:
    return [c.args[0] for c in callback._display.display.call_args_list]


@pytest.fixture(autouse=True)
def _no_check_no_extra_formats(monkeypatch):
    monkeypatch.setattr(ansible_context, "CLIARGS", {})
    monkeypatch.setenv("PTS_REPORT_FORMATS", "")  # report.md alone: no HTML/PDF engine in a unit test
    monkeypatch.delenv("PTS_RUN_ID", raising=False)
    monkeypatch.delenv("PTS_RESULTS_DIR", raising=False)


@pytest.fixture
def out(tmp_path) -> str:
    return str(tmp_path / "results")


@pytest.fixture
def callback(monkeypatch, out):
    monkeypatch.setattr(_concurrency, "forks_in_force", lambda: (50, "ANSIBLE_FORKS"))
    display = MagicMock()
    display.verbosity = 0
    found = pts_report.CallbackModule(display=display)
    found._output_dir = out  # what set_options gives from output_dir / PTS_RESULTS_DIR
    return found


def drive_dir(out: str, drive: str = "d1", host: str = "h1", run: str = RUN) -> str:
    return os.path.join(out, run, host, drive)


# --- rounds filed as they land ----------------------------------------------------------------------------------------

def test_rounds_arriving_as_retries_and_the_last_as_ok_are_each_on_disk_at_once(callback, out):
    test_dir = os.path.join(drive_dir(out), "iops")
    first = {"pts_fio": fio_round(job_text="# round 1\n"), "pts_fio_raw": raw_fio(), "pts_context": context(number=1),
             "pts_steady_state": steady_verdict(1, False), "pts_round": {"round": 1, "stop": False}}
    callback.v2_runner_retry(task_result(first))
    # Round 1 is complete on disk before round 2 starts (pts_round waits for exactly this file).
    assert sorted(os.listdir(test_dir)) == ["round-01.fio", "round-01.json", "round-01.raw.json", "steady-state.json"]
    assert said(callback) == ["PTS h1 d1 iops round 1/25: 4k 0/100 IOPS = 12,345.7 IOPS (data 12.3 %, slope 4.6 %); "
                              "limits 20 % / 10 %; not steady"]

    last = {"pts_fio": fio_round(job_text="# round 2\n"), "pts_fio_raw": raw_fio(), "pts_context": context(number=2),
            "pts_steady_state": steady_verdict(2, True, value=23456.78, data=3.0, slope=None)}
    callback.v2_runner_on_ok(task_result(last))

    record = _results.read_json(os.path.join(test_dir, "round-02.json"))
    assert record["verdict"] == steady_verdict(2, True, value=23456.78, data=3.0, slope=None)
    assert (record["round"], record["loop"], record["settings"]) == (2, LOOP, SETTINGS)
    assert (record["host"], record["drive"], record["test"], record["phase"]) == ("h1", "d1", "iops", "round")
    assert "job_text" not in record["fio"] and record["fio"]["jobs"] == _fio.parse(raw_fio())["jobs"]
    assert read(os.path.join(test_dir, "round-02.fio")) == "# round 2\n"
    assert read(os.path.join(test_dir, "round-02.raw.json")) == raw_fio()
    assert _results.read_json(os.path.join(test_dir, "round-01.json"))["verdict"]["steady"] is False
    state = _results.read_json(os.path.join(test_dir, "steady-state.json"))
    assert (state["last_round"], state["steady"], state["loop"]) == (2, True, LOOP)
    assert said(callback)[-1] == ("PTS h1 d1 iops round 2/25: 4k 0/100 IOPS = 23,456.8 IOPS (data 3.0 %, slope n/a); "
                                  "limits 20 % / 10 %; STEADY")
    callback._display.error.assert_not_called()
    callback._display.warning.assert_not_called()


@pytest.mark.parametrize("dv, shown", [
    ({"metric": "iops", "bs": 4096, "mix": 65, "value": 81234.5}, "4k 65/35 IOPS = 81,234.5 IOPS"),
    ({"metric": "lat_mean_ns", "bs": 512, "mix": 100, "value": 123456.0}, "512 100/0 mean latency = 0.12 ms"),
    ({"metric": "bw_bytes", "bs": 1048576, "mix": 100, "value": 2.5e9}, "1024k read = 2,500.00 MB/s"),
    ({"metric": "bw_bytes", "bs": "128k", "mix": 0, "value": None}, "128k write = n/a MB/s"),
    # A named section's DV (CBW's TC32/QD32) names itself.
    ({"metric": "iops", "bs": 4096, "mix": 0, "value": 5e5, "job": "tc32-qd32", "name": "TC32/QD32"},
     "TC32/QD32 = 500,000.0 IOPS"),
])
def test_the_progress_line_names_each_kind_of_dv(callback, dv, shown):
    named = {key: dv[key] for key in ("job", "name") if key in dv}
    verdict = steady_verdict(3, False, value=dv["value"], metric=dv["metric"], bs=dv["bs"], mix=dv["mix"],
                             data=None, slope=0.04, **named)
    callback.v2_runner_on_ok(task_result({"pts_fio": fio_round(), "pts_context": context(number=3),
                                          "pts_steady_state": verdict}))
    assert said(callback) == [f"PTS h1 d1 iops round 3/25: {shown} (data n/a, slope 0.0 %); limits 20 % / 10 %; "
                              "not steady"]


def test_a_legacy_result_with_only_underscored_attributes_is_filed_the_same(callback, out):
    data = {"pts_fio": fio_round(), "pts_context": context(number=1), "pts_steady_state": steady_verdict(1, False)}
    callback.v2_runner_retry(task_result(data, legacy=True))
    assert os.path.exists(os.path.join(drive_dir(out), "iops", "round-01.json"))
    assert said(callback)[0].startswith("PTS h1 d1 iops round 1/25: ")


def test_a_result_without_a_pts_payload_is_ignored(callback, out):
    callback.v2_runner_on_ok(task_result({"changed": True, "stdout": "ok", "context": context(number=1)}))
    callback.v2_runner_on_failed(task_result({"msg": "boom"}))
    assert not os.path.exists(out)
    assert said(callback) == []


def test_a_verdict_judged_apart_joins_the_round_file_it_judges(callback, out):
    callback.v2_runner_on_ok(task_result({"pts_fio": fio_round(), "pts_context": context(number=1)}))
    path = os.path.join(drive_dir(out), "iops", "round-01.json")
    assert "verdict" not in _results.read_json(path)
    callback.v2_runner_on_ok(task_result({"pts_steady_state": steady_verdict(1, False),
                                          "pts_context": context(number=1),
                                          "steady": False}))
    assert _results.read_json(path)["verdict"] == steady_verdict(1, False)


def test_a_write_saturation_round_is_filed_with_its_verdict_and_said(callback, out):
    wsat = {"round": 7, "stop": False, "reason": "written 1.8 of 4.0 GiB", "written": 1932735283,
            "round_written": 276105040, "target_bytes": 4294967296, "elapsed_s": 70.2, "iops": 45678.94,
            "lat_mean_ns": 350123.0, "lat_max_ns": 9000000.0}
    wsat_context = context("wsat", 7, loop="loop-wsat-d1-1")
    callback.v2_runner_retry(task_result({"pts_fio": fio_round("fio-3.33-wsat-round.json", "[wsat]\n"),
                                          "pts_fio_raw": raw_fio("fio-3.33-wsat-round.json"),
                                          "pts_context": wsat_context, "pts_wsat": wsat}))
    test_dir = os.path.join(drive_dir(out), "wsat")
    record = _results.read_json(os.path.join(test_dir, "round-07.json"))
    assert (record["verdict"], record["loop"], record["round"]) == (wsat, "loop-wsat-d1-1", 7)
    assert read(os.path.join(test_dir, "round-07.fio")) == "[wsat]\n"
    assert read(os.path.join(test_dir, "round-07.raw.json")) == raw_fio("fio-3.33-wsat-round.json")
    assert said(callback) == ["PTS h1 d1 wsat round 7: 4k random write 45,678.9 IOPS, mean latency 0.350 ms; "
                              "written 1.8 of 4.0 GiB"]

    done = dict(wsat, round=8, stop=True, lat_mean_ns=None, reason="4.0 GiB written")
    callback.v2_runner_on_ok(task_result({"pts_fio": fio_round("fio-3.33-wsat-round.json"),
                                          "pts_context": dict(wsat_context, round=8), "pts_wsat": done}))
    assert _results.read_json(os.path.join(test_dir, "round-08.json"))["verdict"]["stop"] is True
    assert _results.read_json(os.path.join(test_dir, "steady-state.json"))["last_round"] == 8
    assert said(callback)[-1] == ("PTS h1 d1 wsat round 8: 4k random write 45,678.9 IOPS, mean latency n/a; "
                                  "4.0 GiB written; DONE")


def _cells(count: int) -> list[dict]:
    return [{"name": f"s{i}", "iops": 100.0 * i, "mb_s": 0.4 * i, "lat_mean_ns": 1e6 * i} for i in range(1, count + 1)]


@pytest.mark.parametrize("row, shown", [
    ({"label": "QD 1", "cells": _cells(2)}, "QD 1: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s"),
    ({"label": "TC 4", "cells": _cells(6)},
     "TC 4: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s; s3 300 IOPS 1.2 MB/s; s4 400 IOPS 1.6 MB/s; +2 more"),
    ({"label": "TC 8", "cells": _cells(8)},
     "TC 8: s1 100 IOPS 0.4 MB/s; s2 200 IOPS 0.8 MB/s; s3 300 IOPS 1.2 MB/s; s4 400 IOPS 1.6 MB/s; +4 more"),
    # HIR's bursts: more than 8 sections in one round are summed up.
    ({"label": "burst 5 s / idle 10 s", "cells": _cells(9)},
     "burst 5 s / idle 10 s: 9 sections, IOPS mean 500, min 100, max 900"),
    ({"label": "bursts", "cells": _cells(360)}, "bursts: 360 sections, IOPS mean 18,050, min 100, max 36,000"),
    ({"label": "offer 5000", "cells": _cells(1), "offered_iops": 5000, "achieved_iops": 4987.6, "delivered": True},
     "offered 5,000 IOPS, achieved 4,988 (delivered), mean latency 1.000 ms"),
    ({"label": "offer 9000", "cells": [], "offered_iops": 9000, "achieved_iops": 0, "delivered": False},
     "offered 9,000 IOPS, achieved 0 (NOT delivered), mean latency n/a"),
])
def test_a_sweep_row_is_filed_and_summarised(callback, out, row, shown):
    payload = dict(row, round=3, rounds=12, stop=False, reason="row 3 of 12")
    row_context = context("hir", 3, segment="burst", row={"label": row["label"]})
    callback.v2_runner_retry(task_result({"pts_fio": fio_round(job_text="[s1]\n"), "pts_fio_raw": raw_fio(),
                                          "pts_context": row_context, "pts_sweep": payload}))
    segment_dir = os.path.join(drive_dir(out), "hir", "burst")
    record = _results.read_json(os.path.join(segment_dir, "round-03.json"))
    assert (record["verdict"], record["row"], record["segment"], record["loop"]) == \
        (payload, {"label": row["label"]}, "burst", LOOP)
    assert sorted(os.listdir(segment_dir)) == ["round-03.fio", "round-03.json", "round-03.raw.json",
                                               "steady-state.json"]
    assert said(callback) == [f"PTS h1 d1 hir burst round 3/12: {shown}; row 3 of 12"]


def test_the_last_sweep_row_says_done(callback):
    payload = {"round": 12, "rounds": 12, "label": "QD 32", "cells": _cells(1), "stop": True,
               "reason": "sweep complete"}
    callback.v2_runner_on_ok(task_result({"pts_fio": fio_round(), "pts_context": context("cbw", 12),
                                          "pts_sweep": payload}))
    assert said(callback) == ["PTS h1 d1 cbw round 12/12: QD 32: s1 100 IOPS 0.4 MB/s; sweep complete; DONE"]


def test_an_xsr_sample_is_filed_and_said(callback, out):
    sample = {"round": 2, "rounds": 10, "label": "seq write", "stop": False, "reason": "sample 2 of 10",
              "mb_s": 1234.56, "iops": 301.4, "lat_mean_ns": 1234567.0, "lat_max_ns": 9876543.0,
              "written": 2 * 10**9, "offset": 10**9, "next_offset": 2 * 10**9}
    sample_context = context("xsr", 2, segment="group-1")
    callback.v2_runner_retry(task_result({"pts_fio": fio_round(), "pts_fio_raw": raw_fio(),
                                          "pts_context": sample_context, "pts_sample": sample}))
    segment_dir = os.path.join(drive_dir(out), "xsr", "group-1")
    assert _results.read_json(os.path.join(segment_dir, "round-02.json"))["verdict"] == sample
    assert os.path.exists(os.path.join(segment_dir, "round-02.raw.json"))
    assert said(callback) == ["PTS h1 d1 xsr group-1 round 2/10: 1,234.6 MB/s, 301 IOPS, mean response time 1.235 ms, "
                              "max 9.877 ms; sample 2 of 10"]

    last = dict(sample, round=10, stop=True, reason="last sample 10 of 10", lat_max_ns=None)
    callback.v2_runner_on_ok(task_result({"pts_fio": fio_round(), "pts_context": dict(sample_context, round=10),
                                          "pts_sample": last}))
    assert said(callback)[-1] == ("PTS h1 d1 xsr group-1 round 10/10: 1,234.6 MB/s, 301 IOPS, mean response time "
                                  "1.235 ms, max n/a; last sample 10 of 10; DONE")


# --- failures, unfiled results, lost hosts ----------------------------------------------------------------------------

def test_a_failed_round_writes_its_failure_and_no_round_file(callback, out):
    callback.v2_runner_retry(task_result({"pts_fio": fio_round(), "pts_context": context(number=1),
                                          "pts_steady_state": steady_verdict(1, False)}))
    stderr = "x" * 5000 + "fio: io_u error on file /dev/nvme0n1: Input/output error: write offset=0"
    # ansible-core 2.19 strips "failed" from the result a callback gets: the event is what says it failed.
    failed = {"msg": "fio exited with status 1", "rc": 1, "stderr": stderr, "job_file": "/tmp/pts/round-02.fio",
              "job_text": "[global]\n", "pts_context": context(number=2),
              "pts_round": {"round": 2, "stop": True, "state": {"reason": "fio failed"}}}
    callback.v2_runner_on_failed(task_result(failed))

    test_dir = os.path.join(drive_dir(out), "iops")
    assert not os.path.exists(os.path.join(test_dir, "round-02.json"))
    assert _results.round_files(test_dir) == [os.path.join(test_dir, "round-01.json")]
    failure = _results.read_json(os.path.join(test_dir, "failure.json"))
    assert (failure["phase"], failure["round"], failure["msg"], failure["rc"]) == \
        ("round", 2, "fio exited with status 1", 1)
    assert failure["stderr"] == stderr[-4000:] and failure["stderr"].endswith("write offset=0")
    assert (failure["job_file"], failure["job_text"]) == ("/tmp/pts/round-02.fio", "[global]\n")
    assert len(said(callback)) == 1  # round 1's line; a failure has no figures to say
    callback._display.error.assert_not_called()


def test_a_failed_purge_of_a_looped_task_is_filed_as_the_tests_failure(callback, out):
    callback.v2_runner_item_on_failed(task_result({"msg": "blkdiscard failed", "rc": 1,
                                                   "pts_context": context(phase="purge")}))
    failure = _results.read_json(os.path.join(drive_dir(out), "iops", "failure.json"))
    assert (failure["phase"], failure["round"], failure["msg"]) == ("purge", None, "blkdiscard failed")


def _round(number: int) -> dict:
    return {"pts_fio": fio_round(), "pts_fio_raw": raw_fio(), "pts_context": context(number=number),
            "pts_steady_state": steady_verdict(number, False)}


def test_a_round_that_cannot_be_filed_is_an_error_naming_it_and_nothing_else_breaks(callback, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory\n")
    callback._output_dir = str(blocked)  # makedirs under a regular file fails, even for root
    callback.v2_runner_retry(task_result(_round(3)))

    (call,) = callback._display.error.call_args_list
    message = call.args[0]
    assert message.startswith(f"pts_report: could not record round 3 of iops on d1 (h1) under {blocked}/{RUN}: ")
    assert message.endswith("; the test stops rather than run a round that is not recorded")
    assert "Not a directory" in message
    assert said(callback) == []  # no progress line for a round that is not on disk
    assert blocked.read_text() == "not a directory\n"

    # The callback goes on: the next result still lands once the tree is writable again, and the play ends cleanly.
    callback._output_dir = str(tmp_path / "results")
    callback.v2_runner_on_ok(task_result(_round(4)))
    assert os.path.exists(os.path.join(drive_dir(str(tmp_path / "results")), "iops", "round-04.json"))
    callback.v2_playbook_on_stats(MagicMock())
    callback._display.warning.assert_not_called()
    assert callback._display.error.call_count == 1


@pytest.mark.parametrize("data, what", [
    (_round(5), "round 5 of iops on d1"),
    ({"pts_fio": fio_round(), "pts_context": context("throughput", 2, segment="1024k")},
     "round 2 of throughput 1024k on d1"),
    ({"pts_health": {"temperature_c": 41}, "pts_context": context()}, "a result of d1"),
    ({"pts_drives": [{"key": "d1"}], "pts_host": {}}, "a result of the host"),
])
def test_a_payload_the_results_tree_refuses_is_said_with_display_error(callback, monkeypatch, out, data, what):
    def full(run_dir, host, payload):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_results, "file_payload", full)
    callback._run_id = RUN  # the option's, for the identify result that names no run
    callback.v2_runner_on_ok(task_result(data))
    callback._display.error.assert_called_once_with(
        f"pts_report: could not record {what} (h1) under {out}/{RUN}: [Errno 28] No space left on device; the test "
        "stops rather than run a round that is not recorded")
    assert said(callback) == []
    callback.v2_playbook_on_stats(MagicMock())  # nothing was touched: no report, no summary, no exception
    assert not os.path.exists(os.path.join(out, RUN, "fleet.md"))
    callback._display.warning.assert_not_called()


def test_an_unreachable_drive_worker_is_recorded_as_lost_under_its_drive(callback, out):
    callback._run_id = RUN
    worker = {"pts_run_host": "h1", "pts_run_drive_key": "d2", "ansible_connection": "local"}
    callback.v2_runner_on_unreachable(task_result({"msg": "Failed to connect to the host via ssh: timed out",
                                                   "unreachable": True}, host="h1/d2", host_vars=worker))
    lost = _results.read_json(os.path.join(drive_dir(out, "d2"), "lost.json"))
    assert lost["msg"] == "Failed to connect to the host via ssh: timed out"
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$", lost["recorded_at"])
    assert files_under(out) == [f"{RUN}/h1/d2/lost.json"]  # not under the worker's own name "h1_d2"

    callback.v2_runner_on_unreachable(task_result({}, host="h2", legacy=True))
    assert _results.read_json(os.path.join(out, RUN, "h2", "lost.json"))["msg"] == "unreachable"
    callback._display.warning.assert_not_called()


def test_a_lost_record_that_cannot_be_written_is_a_warning(callback, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    callback._output_dir = str(blocked)
    callback._run_id = RUN
    callback.v2_runner_on_unreachable(task_result({"msg": "gone"}, host="h1"))
    (call,) = callback._display.warning.call_args_list
    assert call.args[0].startswith("pts_report: could not record that h1 was lost: ")


# --- --check ----------------------------------------------------------------------------------------------------------

CHECK_DRIVES = [
    {"key": "d1", "resolved": "/dev/nvme0n1", "vendor": "ACME", "model": "X1", "serial": "S123", "wwn": "eui.0001",
     "firmware": "2.1", "size_bytes": 1000204886016, "interface": "nvme", "purge_methods": ["sanitize-block", "format"],
     "device_write_cache": True},
    {"key": "d2", "resolved": "/dev/sdb", "vendor": "WDC", "model": "HDD 8T\x1b[2J\x1b[31m", "serial": "Z9",
     "wwn": "naa.5000cca2",
     "firmware": "SN04", "size_bytes": 8001563222016, "interface": "sata", "purge_methods": [],
     "device_write_cache": None},
    {"key": "d3", "size_bytes": None},
]


def _plan(run_id: str = RUN, done: bool = False, **drive) -> dict:
    tests = [{"test": "iops", "combinations": 56, "min_s": 600, "max_s": 1200, "done": done,
              "status": "complete" if done else None},
             {"test": "wsat", "combinations": 1, "min_s": 300, "max_s": 600, "done": False, "status": None}]
    return {"run_id": run_id, "estimate_note": "rounds x round time", "tests": [{"name": "iops"}, {"name": "wsat"}],
            "listed": [{"path": "/dev/loop9"}], "acceptance": [], "fleet": {"fail_on": []},
            "settings": {"purge_method": "auto", "write_cache": "keep"},
            "drives": [dict({"key": "d1", "min_s": 900, "max_s": 1800, "tests": tests}, **drive)]}


def test_check_writes_nothing_and_says_each_drive_its_guard_and_the_plan(callback, monkeypatch, out):
    monkeypatch.setattr(ansible_context, "CLIARGS", {"check": True})
    callback.v2_runner_on_ok(task_result({"pts_drives": CHECK_DRIVES, "pts_host": {"hostname": "h1"}}))
    callback.v2_runner_on_failed(task_result({"pts_guard": [
        {"key": "d1", "passed": True}, {"key": "d2", "passed": False, "refusals": ["mounted at /srv", "held by md0"]}],
        "msg": "the guard refused d2"}))
    callback.v2_runner_on_ok(task_result({"pts_plan": _plan(mode_reason="SSD mode (non-rotational)",
                                                            skipped=["hdd_iops: an HDD test"]),
                                          "pts_context": {"host": "h1"}}))
    # A round cannot happen under --check, but nothing would be filed if one came.
    callback.v2_runner_on_ok(task_result(_round(1)))
    callback.v2_playbook_on_stats(MagicMock())

    assert not os.path.exists(out)
    assert said(callback) == [
        "PTS check h1 d1: /dev/nvme0n1 ACME X1, serial S123, WWN eui.0001, firmware 2.1, 1,000,204,886,016 bytes, "
        "nvme; purge methods sanitize-block, format (auto would use sanitize-block); write cache enabled",
        # The drive's own strings reach the console without terminal escapes.
        "PTS check h1 d2: /dev/sdb WDC HDD 8T, serial Z9, WWN naa.5000cca2, firmware SN04, 8,001,563,222,016 bytes, "
        "sata; purge methods none (auto would use none: the test would fail); write cache not applicable",
        "PTS check h1 d3: not found",
        "PTS check h1 d1: the guard passes",
        "PTS check h1 d2: the guard REFUSES: mounted at /srv; held by md0",
        "PTS plan h1 d1: SSD mode (non-rotational); iops 56 runs, wsat 1 runs; estimated 15.0-30.0 min "
        "(rounds x round time); hdd_iops: an HDD test",
        "PTS check h1: purge method auto, write cache keep; --check wrote nothing",
    ]
    callback._display.error.assert_not_called()
    callback._display.warning.assert_not_called()


def test_check_writes_no_lost_record_for_an_unreachable_host(callback, monkeypatch, out):
    monkeypatch.setattr(ansible_context, "CLIARGS", {"check": True})
    callback._run_id = RUN
    callback.v2_runner_on_unreachable(task_result({"msg": "Failed to connect"}, host="h1"))
    callback.v2_runner_on_unreachable(task_result({"msg": "Failed to connect"}, host="h1/d1",
                                                  host_vars={"pts_run_host": "h1", "pts_run_drive_key": "d1"}))
    assert not os.path.exists(out), files_under(out)


# --- the plan ---------------------------------------------------------------------------------------------------------

def test_the_plan_is_filed_under_its_host_and_said(callback, out):
    plan = _plan()
    callback.v2_runner_on_ok(task_result({"pts_plan": plan, "pts_context": {"host": "h1"}, "changed": False},
                                         host="localhost"))
    record = _results.read_json(os.path.join(out, RUN, "h1", "plan.json"))
    assert record["host"] == "h1" and record["plan"] == plan
    assert files_under(out) == [f"{RUN}/h1/plan.json"]
    assert said(callback) == [
        "PTS plan h1 d1: iops 56 runs, wsat 1 runs; estimated 15.0-30.0 min (rounds x round time)"]
    assert callback._planned == {("h1", "d1"): {"min_s": 900.0, "max_s": 1800.0}}


def test_a_resume_says_the_tests_it_keeps(callback, out):
    plan = _plan(done=True)
    callback.v2_runner_on_ok(task_result({"pts_plan": plan, "pts_context": {"host": "h1"}}))
    assert said(callback) == [
        f"PTS resume h1 d1: run {RUN} already finished iops (complete); kept, not run again",
        "PTS plan h1 d1: wsat 1 runs; estimated 5.0-10.0 min (rounds x round time)",
    ]
    assert callback._planned == {("h1", "d1"): {"min_s": 300.0, "max_s": 600.0}}

    every = _plan(done=True)
    every["drives"][0]["tests"][1].update(done=True, status="complete")
    callback.v2_runner_on_ok(task_result({"pts_plan": every, "pts_context": {"host": "h2"}}))
    assert said(callback)[-2:] == [
        f"PTS resume h2 d1: run {RUN} already finished iops (complete), wsat (complete); kept, not run again",
        "PTS plan h2 d1: no test; estimated 0.0-0.0 min (rounds x round time)",
    ]
    assert ("h2", "d1") not in callback._planned  # nothing left to run: no slot in the drive workers' batches


def test_a_resumes_plan_line_estimates_only_the_tests_left_to_run(callback):
    callback.v2_runner_on_ok(task_result({"pts_plan": _plan(done=True), "pts_context": {"host": "h1"}}))
    assert said(callback)[-1] == "PTS plan h1 d1: wsat 1 runs; estimated 5.0-10.0 min (rounds x round time)"


# --- the run id -------------------------------------------------------------------------------------------------------

@pytest.fixture
def configured(callback, monkeypatch):
    """The callback with its DOCUMENTATION options registered, as the plugin loader does, so set_options works."""
    name = "fleetqual.pts.pts_report"
    C.config.initialize_plugin_configuration_definitions(
        "callback", name, yaml.safe_load(pts_report.DOCUMENTATION)["options"])
    monkeypatch.setattr(callback, "_load_name", name, raising=False)
    return callback


def test_without_a_run_id_the_run_is_named_after_the_time_the_playbook_started(callback, out):
    callback.v2_runner_on_ok(task_result({"pts_drives": [{"key": "d1", "size_bytes": 1}], "pts_host": {}}))
    (run,) = os.listdir(out)
    assert re.match(r"^\d{8}T\d{6}Z$", run) and run == callback._started.strftime("%Y%m%dT%H%M%SZ")
    assert os.path.exists(os.path.join(out, run, "h1", "d1", "drive.json"))


def test_the_run_id_option_until_a_result_names_the_run(configured, out):
    configured.set_options(direct={"output_dir": out, "run_id": "opt-run"})
    assert (configured._output_dir, configured._run_id) == (out, "opt-run")
    configured.v2_runner_on_ok(task_result({"pts_drives": [{"key": "d1", "size_bytes": 1}], "pts_host": {}}))
    assert os.path.exists(os.path.join(out, "opt-run", "h1", "d1", "drive.json"))

    # pts_plan's validation fixes the run id first (roles/pts_run/tasks/prepare.yml): every later result goes there.
    configured.v2_runner_on_ok(task_result({"pts_run_id": "fixed-run", "changed": False}))
    configured.v2_runner_on_ok(task_result({"pts_guard": [{"key": "d1", "passed": True}]}))
    assert os.path.exists(os.path.join(out, "fixed-run", "h1", "d1", "guard.json"))

    configured.v2_runner_on_ok(task_result({"pts_plan": _plan("plan-run"), "pts_context": {"host": "h1"}}))
    assert os.path.exists(os.path.join(out, "plan-run", "h1", "plan.json"))

    configured.v2_runner_on_ok(task_result(dict(_round(1), pts_context=dict(context(number=1), run_id="ctx run/1"))))
    assert os.path.exists(os.path.join(out, "ctx_run_1", "h1", "d1", "iops", "round-01.json"))
    assert configured.run_dir == os.path.join(out, "ctx_run_1")

    # A result without a run id keeps the one in force.
    configured.v2_runner_on_ok(task_result({"pts_health": {"temperature_c": 40}, "pts_context": {"drive": "d1"}}))
    assert os.path.exists(os.path.join(out, "ctx_run_1", "h1", "d1", "health-after.json"))
    assert sorted(os.listdir(out)) == ["ctx_run_1", "fixed-run", "opt-run", "plan-run"]


def test_the_environment_sets_the_options_and_the_extra_variable_wins(configured, out, monkeypatch):
    monkeypatch.setenv("PTS_RESULTS_DIR", out)
    monkeypatch.setenv("PTS_RUN_ID", "env-run")
    configured.set_options()
    assert configured.run_dir == os.path.join(out, "env-run")
    play = MagicMock(hosts="all")
    play.get_variable_manager.return_value.extra_vars = {"pts_run_id": "extra-run"}
    configured.v2_playbook_on_play_start(play)
    assert configured.run_dir == os.path.join(out, "extra-run")


# --- the end of the playbook ------------------------------------------------------------------------------------------

def _identify(cb, host: str = "h1", drive: str = "d1") -> None:
    cb.v2_runner_on_ok(task_result({"pts_drives": [
        {"key": drive, "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": CAPACITY,
         "logical_block_size": 512, "physical_block_size": 512, "interface": "loop", "vendor": "Linux",
         "model": "loop device", "serial": f"SER-{drive}", "firmware": "1.0", "write_cache": "write back"}],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"}}, host=host))


def _run_iops(cb, rounds: int = 5, host: str = "h1", drive: str = "d1") -> list[dict]:
    """A whole IOPS test through the callback, as pts_round's until loop delivers it: purge, WIPC, rounds judged by
    the real stop rule (retries, then the last as ok)."""
    test_context = context(host=host, drive=drive)
    cb.v2_runner_on_ok(task_result({"pts_purge": {"method": "discard", "secure": False, "elapsed_s": 0.1},
                                    "pts_context": dict(test_context, phase="purge")}, host=host))
    wipc = fio_round("fio-3.33-throughput-1048576.json", "[wipc]\nrw=write\n")
    wipc["jobs"] = [j for j in wipc["jobs"] if j["mix"] == 0]
    cb.v2_runner_on_ok(task_result({"pts_fio": wipc, "pts_context": dict(test_context, phase="wipc")}, host=host))
    rule = _rounds.check_rule({"kind": "steady", "dvs": [SETTINGS["dv"]], "window": 5, "max_rounds": 8})
    state = _rounds.start(LOOP, "steady", time.time())
    verdicts = []
    for number in range(1, rounds + 1):
        fio = fio_round(job_text=f"# round {number}\n")
        state, key, verdict = _rounds.advance(state, rule, fio["jobs"], time.time(), 0.5)
        verdicts.append(verdict)
        data = {"pts_fio": fio, "pts_fio_raw": raw_fio(), key: verdict,
                "pts_context": dict(test_context, phase="round", round=number, loop=LOOP)}
        (cb.v2_runner_on_ok if state["stop"] else cb.v2_runner_retry)(task_result(data, host=host))
    return verdicts


def test_the_end_renders_the_touched_drives_report_from_disk_and_the_fleet_summary(callback, out):
    # A drive filed by an earlier ansible-playbook of this run: on disk, not touched by this one.
    run_dir = os.path.join(out, RUN)
    _results.file_payload(run_dir, "h1", {"pts_drives": [{"key": "d0", "path": "/dev/loop8", "size_bytes": CAPACITY,
                                                          "model": "loop device"}]})
    callback.v2_runner_on_ok(task_result({"pts_plan": _plan(), "pts_context": {"host": "h1"}}))
    _identify(callback)
    callback.v2_runner_on_ok(task_result({"pts_guard": [{"key": "d1", "path": "/dev/loop9", "passed": True}],
                                          "pts_context": {"run_id": RUN}}))
    verdicts = _run_iops(callback)
    assert [v["steady"] for v in verdicts] == [False, False, False, False, True]
    assert said(callback)[-1].endswith("limits 20 % / 10 %; STEADY")
    assert callback._touched == {("h1", "d1")}
    path = drive_dir(out)
    assert not os.path.exists(os.path.join(path, "report.md"))  # nothing is rendered before the end

    callback.v2_playbook_on_stats(MagicMock())

    assert said(callback)[-2:] == [f"PTS report h1 d1: {path}/report.md",
                                   f"PTS results: {run_dir} (fleet summary: {run_dir}/fleet.md)"]
    assert not any(line.startswith("PTS report h1 d0") for line in said(callback))
    model = _results.read_json(os.path.join(path, "result.json"))
    assert model["drive_key"] == "d1" and model["host"] == "h1" and model["run_id"] == RUN
    assert model["tests"]["iops"]["rounds_run"] == 5
    assert model["outputs"]["not_produced"] == {"html": "not asked for (PTS_REPORT_FORMATS)",
                                                "pdf": "not asked for (PTS_REPORT_FORMATS)"}
    report = read(os.path.join(path, "report.md"))
    assert "loop device" in report and RUN in report
    fleet = _results.read_json(os.path.join(run_dir, "fleet.json"))
    by_id = {d["id"]: d for d in fleet["drives"]}
    assert by_id["h1/d1"]["report"] == "h1/d1/report.md"
    assert fleet["fail_on"] == []  # the plan's recorded pts_fleet_fail_on
    assert os.path.exists(os.path.join(run_dir, "fleet.md")) and os.path.exists(os.path.join(run_dir, "junit.xml"))
    callback._display.warning.assert_not_called()
    callback._display.error.assert_not_called()


def _touched_drive(cb, out: str) -> str:
    """A drive touched by this process, with a report-ready tree (no rounds: the fastest report there is)."""
    cb.v2_runner_on_ok(task_result({"pts_plan": _plan(), "pts_context": {"host": "h1"}}))
    _identify(cb)
    return os.path.join(out, RUN)


def test_a_fleet_summary_the_play_wrote_is_kept_and_an_older_one_written_again(callback, out):
    run_dir = _touched_drive(callback, out)
    fleet = os.path.join(run_dir, "fleet.md")
    _results.atomic_write_text(fleet, "# the play's own summary\n")
    during = callback._started.timestamp() + 1  # written by the play's judging step, after the playbook started
    os.utime(fleet, (during, during))
    callback.v2_playbook_on_stats(MagicMock())
    assert read(fleet) == "# the play's own summary\n"
    assert not os.path.exists(os.path.join(run_dir, "fleet.json"))
    assert said(callback)[-1] == f"PTS results: {run_dir} (fleet summary: {fleet})"

    # A summary from before this playbook started (an earlier, interrupted attempt) is not this play's.
    before = callback._started.timestamp() - 3600
    os.utime(fleet, (before, before))
    callback.v2_playbook_on_stats(MagicMock())
    assert read(fleet).startswith("# ") and read(fleet) != "# the play's own summary\n"
    assert _results.read_json(os.path.join(run_dir, "fleet.json"))["runs"] == [RUN]


def test_a_drive_whose_report_is_up_to_date_is_not_rendered_again(callback, out):
    _touched_drive(callback, out)
    callback.v2_playbook_on_stats(MagicMock())
    assert sum(line.startswith("PTS report h1 d1:") for line in said(callback)) == 1
    result = os.path.join(drive_dir(out), "result.json")
    built = os.path.getmtime(result)
    callback.v2_playbook_on_stats(MagicMock())
    assert sum(line.startswith("PTS report h1 d1:") for line in said(callback)) == 1
    assert os.path.getmtime(result) == built


def test_a_report_that_cannot_be_written_is_a_warning_and_the_summary_still_comes(callback, out, monkeypatch):
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

    run_dir = _touched_drive(callback, out)

    def broken(path, formats=None):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(_drive_report, "write_drive_report", broken)
    monkeypatch.setattr(pts_report._fleet_summary, "summarize", lambda run_dirs, out_dir: None)
    callback.v2_playbook_on_stats(MagicMock())
    callback._display.warning.assert_called_once_with(
        "pts_report: no report for h1 d1: [Errno 30] Read-only file system")
    assert said(callback)[-1] == f"PTS results: {run_dir} (fleet summary: {run_dir}/fleet.md)"


def test_a_playbook_without_pts_results_leaves_no_results_tree(callback, out):
    callback.v2_runner_on_ok(task_result({"changed": False, "ansible_facts": {"pts_like": 1}}))
    callback.v2_playbook_on_stats(MagicMock())
    assert not os.path.exists(out)
    assert said(callback) == []
    callback._display.warning.assert_not_called()


def test_the_end_releases_this_processs_run_lock(callback, out):
    run_dir = os.path.join(out, RUN)
    taken = _run_lock.acquire(run_dir, RUN, os.getpid())
    assert taken["status"] == "acquired" and os.path.exists(_run_lock.lock_path(run_dir))
    callback._run_id = RUN
    callback.v2_playbook_on_stats(MagicMock())
    assert not os.path.exists(_run_lock.lock_path(run_dir))
    assert os.path.exists(os.path.join(run_dir, _run_lock.TOKEN_FILE))  # the run keeps its token
    callback._display.warning.assert_not_called()


@pytest.mark.parametrize("owner", ["parent process", "other controller"])
def test_the_end_leaves_another_processs_run_lock(callback, out, owner):
    run_dir = os.path.join(out, RUN)
    if owner == "parent process":  # alive on this controller, not this process
        _run_lock.acquire(run_dir, RUN, os.getppid())
    else:  # this very PID, but taken on another controller of a shared results tree
        _run_lock.acquire(run_dir, RUN, os.getpid(), hostname="lab-controller-2")
    before = read(_run_lock.lock_path(run_dir))
    callback._run_id = RUN
    callback.v2_playbook_on_stats(MagicMock())
    assert read(_run_lock.lock_path(run_dir)) == before
    callback._display.warning.assert_not_called()


def test_the_lock_is_released_under_the_run_id_a_result_named(callback, out):
    callback._run_id = "opt-run"
    run_dir = os.path.join(out, RUN)
    _run_lock.acquire(run_dir, RUN, os.getpid())
    other = os.path.join(out, "opt-run")
    _run_lock.acquire(other, "opt-run", os.getppid())
    callback.v2_runner_on_ok(task_result({"pts_run_id": RUN}))
    callback.v2_playbook_on_stats(MagicMock())
    assert not os.path.exists(_run_lock.lock_path(run_dir))
    assert os.path.exists(_run_lock.lock_path(other))


def test_the_lock_is_released_even_when_the_end_fails(callback, out, monkeypatch):
    run_dir = _touched_drive(callback, out)
    _run_lock.acquire(run_dir, RUN, os.getpid())

    def crash(path, formats=None):
        raise RuntimeError("renderer bug")

    monkeypatch.setattr(pts_report._drive_report, "write_drive_report", crash)
    with pytest.raises(RuntimeError, match="renderer bug"):
        callback.v2_playbook_on_stats(MagicMock())
    assert not os.path.exists(_run_lock.lock_path(run_dir))


def test_a_lock_that_cannot_be_released_is_a_warning(callback, out, monkeypatch):
    callback._run_id = RUN

    def denied(run_dir, pid=None, proc_root="/proc", hostname=None):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_run_lock, "release", denied)
    callback.v2_playbook_on_stats(MagicMock())
    callback._display.warning.assert_called_once_with(
        f"pts_report: could not release the lock of {out}/{RUN}: [Errno 13] Permission denied")


def test_results_of_a_play_are_json_on_disk_that_parses(callback, out):
    """Every file the events wrote is whole: JSON parses, nothing temporary is left behind."""
    callback.v2_runner_on_ok(task_result({"pts_plan": _plan(), "pts_context": {"host": "h1"}}))
    _identify(callback)
    _run_iops(callback, rounds=2)
    names = files_under(out)
    assert not [n for n in names if os.path.basename(n).startswith(".")]
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(out, name), encoding="utf-8") as handle:
                json.load(handle)
    assert f"{RUN}/h1/d1/iops/round-02.json" in names and f"{RUN}/h1/d1/iops/wipc.json" in names
