# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The segment action: every round of a segment in one task. fio, the template and the host are stand-ins; the
state, the stop rules, the round files on disk, the progress lines and the task's result are real."""

from __future__ import annotations

import json
import os
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleError

from ansible_collections.fleetqual.pts.plugins.action import pts_segment
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio, _interval
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _result_files, _results

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
with open(os.path.join(FIXTURES, "fio-3.33-wsat-round.json"), encoding="utf-8") as _handle:
    RAW = _handle.read()
WSAT = _fio.parse(RAW)
with open(os.path.join(FIXTURES, "health-nvme-cli-2.3-smart-log-throttling.json"), encoding="utf-8") as _handle:
    SMART_LOG = json.load(_handle)
WRITTEN = WSAT["jobs"][0]["write"]["io_bytes"]
PROBE = {"tool": "nvme smart-log", "format": "nvme", "device": "/dev/nvme0",
         "argv": ["/usr/sbin/nvme", "smart-log", "/dev/nvme0", "-o", "json"],
         "thresholds": {"warning_c": 80, "critical_c": 85}, "reading": {"temperature_c": 76}}
NVME = {"changed": False, "pts_health_probe": PROBE}
SETTINGS = {"ioengine": "libaio", "rate_iops": 0, "purge_method": "auto", "allow_destroy": True,
            "wipc_block_size": "128k", "wipc_capacity_multiple": 2, "wipc_iodepth": 32,
            "wipc_min_bytes_per_second": 20000000, "reconnect_timeout_s": 300}


def args_for(tmp_path, **changes) -> dict:
    args = {"job_dir": "/var/lib/x/r1/d1/wsat", "host_dir": "/var/lib/x/r1/d1", "device": "/dev/loop9",
            "expect": {"devnum": "7:9"}, "settings": SETTINGS,
            "test": {"stop": "written", "target_bytes": 3 * WRITTEN, "max_seconds": 3600.0},
            "segment": {"name": "", "combinations": []}, "run_dir": str(tmp_path / "r1"),
            "context": {"run_id": "r1", "host": "h1", "drive": "d1", "test": "wsat", "segment": ""}}
    args.update(changes)
    return args


class Host:
    """The host's answers: the health probe module, one smart log per shell command, and fio per round."""

    def __init__(self, probe: dict | None = None, logs: list | None = None, fio=None):
        self.probe = {"pts_health_probe": {"none": "a loop device (a file) has no SMART or NVMe health log"}} \
            if probe is None else probe
        self.logs = list(logs or [])
        self.modules: list[dict] = []
        self.commands: list[str] = []
        self.rounds: list[dict] = []
        self.fio = fio or (lambda number, args: {"changed": True, "pts_fio": dict(WSAT, elapsed_s=0.37,
                                                                                  job_text=args["job_text"]),
                                                 "pts_fio_raw": RAW})
        self.on_disk_before: list[bool] = []

    def execute_module(self, module_name=None, module_args=None, task_vars=None):
        self.modules.append(dict(module_args, name=module_name))
        if module_name == "fleetqual.pts.pts_purge":
            return self.purge(module_args)
        return self.probe

    @staticmethod
    def purge(module_args):
        return {"changed": True, "pts_purge": {"method": "discard"}, "pts_context": module_args["context"]}

    def command(self, cmd, sudoable=True, in_data=None):
        self.commands.append(cmd)
        log = self.logs.pop(0)
        if isinstance(log, Exception):
            raise log
        if isinstance(log, int):  # an exit status with no output: timeout killed the tool
            return {"rc": log, "stdout": "", "stderr": ""}
        return {"rc": 0, "stdout": json.dumps(log), "stderr": ""}


@pytest.fixture(autouse=True)
def rendered(monkeypatch):
    """The round's job file, as the action rendered it: what it was given, and a short stand-in text."""
    calls = []

    def round_text(test, segment, round_, device, ioengine, rate_iops, drive_key):
        calls.append({"test": test, "segment": segment, "round": round_, "device": device, "ioengine": ioengine})
        return f"# round {round_['number']}\n"

    monkeypatch.setattr(pts_segment, "round_text", round_text)
    return calls


def run_segment(args: dict, host: Host, logs: dict | None = None, monkeypatch=None) -> tuple[dict, MagicMock]:
    task = MagicMock(check_mode=False, async_val=0, args=dict(args))
    action = pts_segment.ActionModule(task, MagicMock(), MagicMock(), MagicMock(), MagicMock(), MagicMock())

    def fio_round(task_vars, module_args, on_document=None):
        number = len(host.rounds) + 1
        segment_dir = os.path.join(args["run_dir"], "h1", "d1", args["context"]["test"], args["context"]["segment"])
        # Nothing lost: the round before this one is on disk, with its verdict, before this one starts.
        host.on_disk_before.append(number == 1 or os.path.exists(os.path.join(segment_dir, f"round-{number - 1:02d}.json")))
        host.rounds.append(module_args)
        if on_document is not None:
            return host.fio(number, module_args, on_document)
        return host.fio(number, module_args)

    action._fio_round = MagicMock(side_effect=fio_round)
    client = MagicMock()
    # fio's interval logs of a finished run, as the host gives them (name -> text).
    client.fetch_logs.side_effect = lambda server, prefix: {
        f"{prefix}_{kind}.log": text for kind, text in (logs or {}).items()}
    action._execute_module = host.execute_module
    action._low_level_execute_command = host.command
    original = pts_segment.FioClient
    pts_segment.FioClient = MagicMock(return_value=client)
    try:
        return action.run(task_vars={}), action
    finally:
        pts_segment.FioClient = original


def drive_record(tmp_path, **drive) -> None:
    _results.file_payload(str(tmp_path / "r1"), "h1", {"pts_drives": [dict({"key": "d1"}, **drive)]})


def test_one_task_runs_the_rounds_until_the_rule_holds_each_on_disk_before_the_next(tmp_path, capsys):
    host = Host()
    result, dummy = run_segment(args_for(tmp_path), host)
    assert [r["job_file"] for r in host.rounds] == [f"/var/lib/x/r1/d1/wsat/round-{n:02d}.fio" for n in (1, 2, 3)]
    assert host.on_disk_before == [True, True, True]
    # Round 1 expects what the task says; later rounds expect the previous round's fio time.
    assert [r["expected_seconds"] for r in host.rounds] == [0.0, 0.37, 0.37]
    segment = result["pts_segment"]
    assert segment["rounds"] == 3 and segment["stop"] and "reached" in segment["reason"]
    records = [_results.read_json(p) for p in _results.round_files(segment["dir"])]
    assert [r["round"] for r in records] == [1, 2, 3]
    assert records[-1]["verdict"]["written"] == 3 * WRITTEN and records[-1]["verdict"]["stop"] is True
    assert {r["loop"] for r in records} == {records[0]["loop"]} and records[0]["loop"].startswith("d1/wsat/@")
    assert open(os.path.join(segment["dir"], "round-02.raw.json"), encoding="utf-8").read() == RAW
    assert open(os.path.join(segment["dir"], "round-02.fio"), encoding="utf-8").read() == "# round 2\n"
    # One progress line per round, through the display.
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PTS h1 d1 wsat round")]
    assert len(lines) == 3 and lines[-1].endswith("DONE")


def test_the_result_stays_small_whatever_the_round_count_and_fio_output(tmp_path):
    big = RAW + " " * 400_000  # fio's own output of a round of many sections
    host = Host(fio=lambda number, args: {"changed": True, "pts_fio": dict(WSAT, elapsed_s=0.01, job_text="x"),
                                          "pts_fio_raw": big})
    args = args_for(tmp_path, test={"stop": "written", "target_bytes": 200 * WRITTEN, "max_seconds": 3600.0})
    result, dummy = run_segment(args, host)
    assert result["pts_segment"]["rounds"] == 200
    assert len(json.dumps(result)) < 16_000


def test_a_failed_fio_run_ends_the_segment_with_its_evidence_on_disk(tmp_path):
    host = Host(fio=lambda number, args: {"changed": True, "pts_fio": dict(WSAT, elapsed_s=0.3, job_text="x"),
                                          "pts_fio_raw": RAW} if number < 2 else
                {"failed": True, "msg": "fio exited with rc 1 running round-02.fio: bad option " + "x" * 5000,
                 "rc": 1, "stderr": "fio: bad option"})
    result, dummy = run_segment(args_for(tmp_path), host)
    assert result["failed"] and result["msg"].startswith("fio exited with rc 1") and len(result["msg"]) <= 2000
    assert result["pts_segment"]["failed_round"] == 2 and result["pts_segment"]["rounds"] == 1
    failure = _results.read_json(os.path.join(result["pts_segment"]["dir"], "failure.json"))
    assert failure["round"] == 2 and failure["rc"] == 1 and "bad option" in failure["stderr"]


def test_a_host_lost_while_fio_runs_is_recorded_for_the_drive(tmp_path):
    host = Host(fio=lambda number, args: {"unreachable": True, "msg": "no connection to the host for 10 s"})
    result, dummy = run_segment(args_for(tmp_path), host)
    assert result["failed"] and result["pts_segment"]["lost"]
    lost = _results.read_json(os.path.join(tmp_path, "r1", "h1", "d1", "lost.json"))
    assert "lost the connection to h1 in round 1" in lost["msg"]


def test_a_drive_that_writes_faster_than_the_plan_assumed_stops_within_its_wear_bound(tmp_path):
    """The plan judged the wear budget on an upper bound of what the run writes (max_write_bytes); fio writes what the
    drive manages, so the segment counts it - earlier rounds and preconditioning of the run on disk included - and
    stops before a round that would pass the bound."""
    wipc = {"fio": {"jobs": [{"read": {"io_bytes": 0, "total_ios": 0},
                              "write": {"io_bytes": 3 * WRITTEN, "total_ios": 3 * WRITTEN // 4096}}]}}
    _results.atomic_write_json(os.path.join(tmp_path, "r1", "h1", "d1", "iops", "wipc.json"), wipc)
    args = args_for(tmp_path, test={"stop": "written", "target_bytes": 100 * WRITTEN, "max_seconds": 3600.0},
                    limits={"max_write_bytes": 7 * WRITTEN + 1})
    host = Host()
    result, dummy = run_segment(args, host)
    # 3 written before the segment; after round 4, 7 are, and a fifth round would make 8 > 7 + 1: it stops there.
    assert len(host.rounds) == 4 and result["failed"] and result["pts_segment"]["reason"] == "wear bound"
    # Each fio run is handed what is left of the bound: the host's runner stops it there, round 1 included.
    assert [r["max_write_bytes"] for r in host.rounds] == [(7 - n) * WRITTEN + 1 for n in (3, 4, 5, 6)]
    assert f"has written {7 * WRITTEN:,} bytes in this run" in result["msg"]
    failure = _results.read_json(os.path.join(result["pts_segment"]["dir"], "failure.json"))
    assert "wear budget" in failure["msg"]
    # Without a bound the same segment runs to its rule.
    unbounded, dummy = run_segment(args_for(tmp_path / "free", test=args["test"]), Host())
    assert unbounded["pts_segment"]["rounds"] == 100 and not unbounded.get("failed")


def test_a_fio_run_stopped_at_the_wear_bound_fails_the_test_and_records_why(tmp_path):
    over = {"failed": True, "pts_over_budget": True, "rc": -2,
            "msg": "fio was stopped at the run's wear bound running round-01.fio: fio was stopped ..."}
    args = args_for(tmp_path, limits={"max_write_bytes": WRITTEN})
    result, dummy = run_segment(args, Host(fio=lambda number, a: dict(over)))
    assert result["failed"] and result["msg"].startswith("fio was stopped at the run's wear bound")
    failure = _results.read_json(os.path.join(result["pts_segment"]["dir"], "failure.json"))
    assert failure["msg"].startswith("fio was stopped at the run's wear bound") and failure["rc"] == -2
    assert _results.round_files(result["pts_segment"]["dir"]) == []  # never a round of its figures


WIPC_TEST = {"test": "iops", "stop": "written", "target_bytes": WRITTEN, "max_seconds": 3600.0, "purge": "test",
             "wipc": True, "precondition": None}


def test_the_tests_purge_and_preconditioning_come_before_its_first_segments_rounds(tmp_path):
    host = Host()
    result, dummy = run_segment(args_for(tmp_path, test=WIPC_TEST, limits={"capacity": 1 << 30},
                                         context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "iops",
                                                  "segment": ""}), host)
    assert not result.get("failed"), result
    (purge,) = [m for m in host.modules if m["name"] == "fleetqual.pts.pts_purge"]
    assert (purge["path"], purge["method"], purge["remote_dir"], purge["expect"]) == (
        "/dev/loop9", "auto", "/var/lib/x/r1/d1", {"devnum": "7:9"})
    wipc, first_round = host.rounds
    assert wipc["job_file"] == "/var/lib/x/r1/d1/wsat/wipc.fio" and wipc["context"]["phase"] == "wipc"
    # The preconditioning's job file is the collection's own template, from the plan's settings alone.
    assert "\nfilename=/dev/loop9\n" in wipc["job_text"] and "\nbs=128k\n" in wipc["job_text"]
    assert "\nloops=2\n" in wipc["job_text"] and wipc["timeout"] == int(2 * (1 << 30) / 20000000 + 600)
    assert first_round["job_file"].endswith("round-01.fio")
    test_dir = os.path.join(str(tmp_path), "r1", "h1", "d1", "iops")
    assert sorted(os.listdir(test_dir)) == ["purge.json", "round-01.fio", "round-01.json", "round-01.raw.json",
                                            "steady-state.json", "wipc.fio", "wipc.json", "wipc.raw.json"]
    # A later segment of the test has neither.
    host = Host()
    run_segment(args_for(tmp_path / "later", test=WIPC_TEST, first=False), host)
    assert [m["name"] for m in host.modules if m["name"] == "fleetqual.pts.pts_purge"] == []
    assert [r["job_file"].rsplit("/", 1)[1] for r in host.rounds] == ["round-01.fio"]


def test_a_segment_purged_on_its_own_is_preconditioned_at_its_own_block_size(tmp_path):
    test = dict(WIPC_TEST, test="throughput", purge="segment", wipc=False, segment_wipc=True)
    segment = {"name": "128k", "combinations": [], "wipc_block_size": "1024k"}
    host = Host()
    run_segment(args_for(tmp_path, test=test, segment=segment, first=False, limits={"capacity": 1 << 30},
                         context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "throughput",
                                  "segment": "128k"}), host)
    assert [m["name"] for m in host.modules if m["name"] == "fleetqual.pts.pts_purge"] == ["fleetqual.pts.pts_purge"]
    assert "\nbs=1024k\n" in host.rounds[0]["job_text"]
    assert os.path.exists(os.path.join(str(tmp_path), "r1", "h1", "d1", "throughput", "128k", "wipc.json"))


def test_a_refused_purge_ends_the_test_before_any_fio(tmp_path):
    host = Host()
    host.purge = lambda module_args: {"failed": True, "msg": "pts_purge /dev/loop9: refused, nothing was written: "
                                                             "there is no guard record of device 7:9 on the host",
                                      "pts_context": module_args["context"]}
    result, dummy = run_segment(args_for(tmp_path, test=WIPC_TEST), host)
    assert result["failed"] and "there is no guard record of device 7:9" in result["msg"] and host.rounds == []
    assert result["pts_segment"]["rounds"] == 0


def test_a_round_that_cannot_be_written_stops_the_test(tmp_path):
    (tmp_path / "r1").write_text("not a directory")
    result, dummy = run_segment(args_for(tmp_path), Host())
    assert result["failed"] and "could not be recorded" in result["msg"] and "resume with the same run id" in result["msg"]
    assert result["pts_segment"]["failed_round"] == 1


def test_a_sweep_runs_one_round_per_row(tmp_path):
    rows = [{"label": f"QD {qd}", "combinations": []} for qd in (1, 2)]
    args = args_for(tmp_path, test={"stop": "sweep"}, segment={"name": "", "rounds": rows},
                    context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "qd_sweep", "segment": ""})
    result, dummy = run_segment(args, Host())
    records = [_results.read_json(p) for p in _results.round_files(result["pts_segment"]["dir"])]
    assert [r["row"] for r in records] == [{"label": "QD 1"}, {"label": "QD 2"}]
    assert result["pts_segment"]["reason"] == "sweep complete"


def _fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


# A real fio 3.33 run of one XSR group (1.5 s of 1 MiB sequential writes, status dumps every 0.5 s, json+) and its
# interval logs.
XSR_STREAM = _fixture("fio-3.33-xsr-write-1m-qd4-status.json")
XSR_LOGS = {kind: _fixture(f"fio-3.33-xsr-write-1m-qd4_{kind}.log") for kind in ("bw", "iops", "lat")}


def _stream(documents: list[str], seen: list, split_final: bool = False):
    """fio's run read as it goes: each status document passed on; with ``split_final`` the final report comes in
    one read and fio's exit status in the next (the call with None)."""
    def fio(number, module_args, on_document):
        for index, text in enumerate(documents):
            last = index == len(documents) - 1
            seen.append(sorted(os.listdir(module_args["seen_dir"])) if "seen_dir" in module_args else None)
            on_document(text, last and not split_final)
        if split_final:
            on_document(None, True)
        final = documents[-1]
        return {"changed": True, "pts_fio": dict(_fio.parse(final), elapsed_s=1.9, job_text=module_args["job_text"]),
                "pts_fio_raw": final}
    return fio


def _xsr_group_args(tmp_path) -> dict:
    """pts_segment's arguments for XSR_STREAM's group: 1.5 s of 1 MiB writes, three samples of 0.5 s."""
    group = {"name": "xsr-group1", "rw": "write", "mix": 0, "bs": 1 << 20, "seconds": 1.5, "options": {}}
    segment = {"name": "group1", "stop": "samples", "samples": 3, "sample_s": 0.5, "access": "SEQ 1024k write",
               "combinations": [group], "log_ms": 100, "output_format": "json+"}
    return args_for(tmp_path, test={"test": "xsr", "stop": "phases"}, segment=segment, limits={"capacity": 1 << 30},
                    context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "xsr", "segment": "group1"})


@pytest.mark.parametrize("split_final", [False, True])
def test_an_xsr_group_is_one_fio_run_each_sample_filed_as_fios_status_dumps_come(tmp_path, capsys, split_final,
                                                                                 rendered):
    args = _xsr_group_args(tmp_path)
    documents, dummy = _interval.documents(XSR_STREAM)
    filed = []
    directory = os.path.join(args["run_dir"], "h1", "d1", "xsr", "group1")

    def fio(number, module_args, on_document):
        def watch(text, final):
            on_document(text, final)
            filed.append(len(_results.round_files(directory)))
        return _stream(documents, [], split_final)(number, module_args, watch)

    result, action = run_segment(args, Host(fio=fio), logs=XSR_LOGS)
    assert not result.get("failed"), result
    # One fio run for the whole group, its status dumped every sample, its interval logs in its job directory.
    assert len(action._fio_round.call_args_list) == 1
    sent = action._fio_round.call_args_list[0].args[1]
    assert (sent["status_interval_ms"], sent["logs"], sent["output_format"]) == (500, "round-01", "json+")
    assert rendered[0]["round"]["log"] == {"prefix": "round-01", "avg_ms": 100}
    # Each sample on disk as soon as the dump that ends it is read - but one that ends within half a sample of the
    # planned end may be the last (fio's final report can come before its exit status): it waits for the next read.
    assert filed == ([1, 2, 2, 3, 4] if split_final else [1, 2, 2, 4])
    records = [_results.read_json(p) for p in _results.round_files(directory)]
    assert [r["round"] for r in records] == [1, 2, 3, 4] and result["pts_segment"]["rounds"] == 4
    assert [r["verdict"]["stop"] for r in records] == [False, False, False, True]
    # The samples are fio's counters between consecutive dumps: back to back, adding up to fio's final report.
    windows = [r["fio"]["jobs"][0]["window"] for r in records]
    assert [w["from_ms"] for w in windows[1:]] == [w["to_ms"] for w in windows[:-1]] and windows[0]["from_ms"] == 0
    final = _fio.parse(documents[-1])["jobs"][0]
    assert sum(r["fio"]["jobs"][0]["write"]["io_bytes"] for r in records) == final["write"]["io_bytes"]
    assert sum(r["fio"]["jobs"][0]["write"]["total_ios"] for r in records) == final["write"]["total_ios"]
    # Each sample keeps the dump that ended it, as fio wrote it; the group's job file goes with its first sample.
    assert [_fio.parse(open(os.path.join(directory, f"round-{n:02d}.raw.json"), encoding="utf-8").read())["timestamp"]
            for n in (1, 4)] == [_fio.parse(documents[0])["timestamp"], _fio.parse(documents[-1])["timestamp"]]
    assert os.path.exists(os.path.join(directory, "round-01.fio")) and not os.path.exists(
        os.path.join(directory, "round-02.fio"))
    # fio's interval logs beside the round files, before the last sample says the group is complete.
    assert sorted(n for n in os.listdir(directory) if n.endswith(".log")) == [
        "round-01_bw.log", "round-01_iops.log", "round-01_lat.log"]
    assert records[-1]["fio"]["health"] and "health" not in records[0]["fio"]
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PTS h1 d1 xsr group1 sample")]
    assert len(lines) == 4 and lines[-1].endswith("DONE")


def _ended_without_a_completion(document: str, ms: int, more_bytes: int) -> str:
    """``document`` as fio's final report ``ms`` later, with ``more_bytes`` counted but no IO completed since (the
    bytes of IOs still in flight, as fio's final report counted them in a loaded run)."""
    data = json.loads(document)
    job = data["jobs"][0]
    job["write"].update(runtime=job["write"]["runtime"] + ms, io_bytes=job["write"]["io_bytes"] + more_bytes)
    job["job_runtime"] = job.get("job_runtime", job["write"]["runtime"]) + ms
    data["timestamp_ms"] += ms
    return json.dumps(data)


@pytest.mark.parametrize("split_final", [False, True])
def test_a_final_report_without_a_completed_io_is_folded_into_the_sample_before_it(tmp_path, split_final):
    # Seen on a loaded machine: fio's final report 76 ms after its last periodic dump, bytes counted and no IO
    # completed. Filed as a sample of its own, it was a round with no IO, which every reader refuses (the drive
    # INCOMPLETE); folded into the held sample before it, that one is the group's last, and nothing is lost.
    args = _xsr_group_args(tmp_path)
    documents, dummy = _interval.documents(XSR_STREAM)
    documents = documents[:3] + [_ended_without_a_completion(documents[2], 76, 32 << 20)]
    result, dummy = run_segment(args, Host(fio=_stream(documents, [], split_final)), logs=XSR_LOGS)
    assert not result.get("failed"), result
    directory = os.path.join(args["run_dir"], "h1", "d1", "xsr", "group1")
    records = [_results.read_json(p) for p in _results.round_files(directory)]
    assert [r["round"] for r in records] == [1, 2, 3] and [r["verdict"]["stop"] for r in records] == [False, False, True]
    jobs = [r["fio"]["jobs"][0] for r in records]
    assert all(j["write"]["total_ios"] > 0 for j in jobs)
    assert jobs[-1]["window"]["to_ms"] == _interval.counters(documents[-1])["runtime_ms"]
    final = _fio.parse(documents[-1])["jobs"][0]
    assert sum(j["write"]["io_bytes"] for j in jobs) == final["write"]["io_bytes"]
    for path in _results.round_files(directory):
        _result_files.check_round(_results.read_json(path), path)


def test_a_sample_that_cannot_be_recorded_stops_fio_and_the_test(tmp_path):
    group = {"name": "xsr-group1", "rw": "write", "mix": 0, "bs": 1 << 20, "seconds": 1.5, "options": {}}
    segment = {"name": "group1", "stop": "samples", "samples": 3, "sample_s": 0.5, "access": "SEQ 1024k write",
               "combinations": [group], "log_ms": 100}
    args = args_for(tmp_path, test={"test": "xsr", "stop": "phases"}, segment=segment,
                    context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "xsr", "segment": "group1"})
    documents, dummy = _interval.documents(XSR_STREAM)
    (tmp_path / "r1").write_text("not a directory")
    raised = []

    def fio(number, module_args, on_document):
        try:
            return _stream(documents, [])(number, module_args, on_document)
        except Exception as exc:  # the fio action stops fio and passes it on
            raised.append(type(exc).__name__)
            raise

    result, dummy = run_segment(args, Host(fio=fio), logs=XSR_LOGS)
    assert result["failed"] and "could not be recorded" in result["msg"] and raised == ["_NotRecorded"]


def test_a_return_to_baseline_is_one_fio_section_cut_into_samples_at_its_status_dumps(tmp_path):
    stream, dummy = _interval.documents(_fixture("fio-3.33-hir-baseline-randwrite-4k-2x8-status.json"))
    rows = [{"label": "return to baseline", "phase": "baseline", "combinations": [],
             "samples": {"sample_s": 0.4, "count": 3}}]
    args = args_for(tmp_path, test={"stop": "sweep"}, segment={"name": "ws2", "rounds": rows, "log_ms": 100},
                    context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "hir", "segment": "ws2"})
    host = Host(fio=lambda number, a: {"changed": True, "pts_fio": dict(_fio.parse(stream[-1]), job_text="x"),
                                       "pts_fio_raw": stream[-1], "pts_fio_status": stream[:-1]})
    result, dummy = run_segment(args, host, logs={"iops": _fixture("fio-3.33-hir-baseline-randwrite-4k-2x8_iops.log")})
    assert host.rounds[0]["status_interval_ms"] == 400 and host.rounds[0]["logs"] == "round-01"
    directory = result["pts_segment"]["dir"]
    record = _results.read_json(os.path.join(directory, "round-01.json"))
    samples = record["fio"]["samples"]
    assert [s["sample"] for s in samples] == [1, 2, 3, 4]
    assert sum(s["write"]["total_ios"] for s in samples) == record["fio"]["jobs"][0]["write"]["total_ios"]
    assert all("histogram" not in s["write"] for s in samples)
    # fio's status dumps before its final report, and its iops log, kept beside the round.
    assert len(_interval.documents(open(os.path.join(directory, "round-01.status.json"), encoding="utf-8").read())[0]) == 3
    assert os.path.exists(os.path.join(directory, "round-01_iops.log"))


def _grid_round(number: int, grid: dict) -> dict:
    jobs = [{"name": f"cbw-tc{tc}-qd{qd}", "total": {"iops": iops, "lat_ns": {"mean": art * 1e6}}}
            for (tc, qd), (iops, art) in grid.items()]
    return {"round": number, "fio": {"jobs": jobs}}


def test_the_operating_points_are_chosen_from_the_loops_window_on_disk_when_their_round_starts(tmp_path, rendered):
    loop = tmp_path / "r1" / "h1" / "d1" / "cbw" / "loop"
    loop.mkdir(parents=True)
    # Round 1 lies outside the window of 2 and would make TC2/QD4 the MaxIOPS point.
    (loop / "round-01.json").write_text(json.dumps(_grid_round(1, {(2, 4): (99_000, 0.5), (2, 1): (1, 0.1),
                                                                   (1, 4): (1, 0.1), (1, 1): (1, 0.1)})))
    for number in (2, 3):
        (loop / f"round-{number:02d}.json").write_text(json.dumps(_grid_round(number, {
            (2, 4): (40_000, 7.0), (2, 1): (30_000, 0.3), (1, 4): (20_000, 0.2), (1, 1): (10_000, 0.1)})))
    parameters = {"thread_counts": [2, 1], "queue_depths": [4, 1], "max_art_ms": 5.0, "mix": 40,
                  "bssplit": "4k/100", "distribution": None, "point_prewrite_seconds": 1.0, "sample_seconds": 0.5,
                  "point_measure_seconds": 1.0}
    rows = [{"label": f"{p} point", "point": p, "combinations": []} for p in ("max", "mid", "min")]
    segment = {"name": "points", "stop": "points", "rounds": rows, "output_format": "json+"}
    args = args_for(tmp_path, segment=segment, limits={"window": 2},
                    test={"test": "cbw", "stop": "phases", "block_sizes": [4096], "parameters": parameters},
                    context={"run_id": "r1", "host": "h1", "drive": "d1", "test": "cbw", "segment": "points"})
    measured = {"name": "cbw-max-measure", "total": {"iops": 1.0, "bw_bytes": 1.0, "lat_ns": {"mean": 1.0}}}
    host = Host(fio=lambda number, a: {"changed": True, "pts_fio": {"jobs": [measured], "job_text": "x"}})
    result, action = run_segment(args, host)
    row = rendered[0]["round"]["row"]
    # TC2/QD4's 7 ms ART is over the 5 ms ceiling: MaxIOPS is TC2/QD1; the measurement runs with fio json+.
    assert (row["tc"], row["qd"]) == (2, 1) and row["chosen"]["window_rounds"] == [2, 3]
    assert row["label"].startswith("MaxIOPS operating point: TC2/QD1 (30,000 IOPS, ART 0.300 ms")
    assert [c["name"] for c in row["combinations"]] == ["cbw-max-pre-001", "cbw-max-pre-002", "cbw-max-measure"]
    assert host.rounds[0]["output_format"] == "json+" and result["pts_segment"]["rounds"] == 3
    first = _results.read_json(os.path.join(result["pts_segment"]["dir"], "round-01.json"))
    assert first["row"]["chosen"]["min"] == {"tc": 1, "qd": 1, "iops": 10_000.0, "art_ms": 0.1}
    # Without the loop's rounds on disk no point can be chosen, and nothing runs.
    for path in loop.iterdir():
        path.unlink()
    host = Host()
    failed, dummy = run_segment(args, host)
    assert failed["failed"] and "the TC x QD loop's rounds are not on disk" in failed["msg"] and host.rounds == []


def test_bad_arguments_are_refused_before_any_round(tmp_path):
    with pytest.raises(AnsibleActionFail, match="Unsupported parameters .*: template"):
        run_segment(args_for(tmp_path, template="../x.j2"), Host())  # the job templates are the collection's own
    with pytest.raises(AnsibleActionFail, match="context.drive is required"):
        run_segment(args_for(tmp_path, context={"host": "h1", "test": "wsat"}), Host())
    with pytest.raises(AnsibleActionFail, match="target_bytes"):
        run_segment(args_for(tmp_path, test={"stop": "written", "target_bytes": 0, "max_seconds": 1.0}), Host())


# Health: one probe per segment (a module run), then one shell command after every round (the reading after a round
# is the next one's before); nothing at all for a drive whose identity says it has none.

def log(kelvin: int, transitions: int) -> dict:
    return dict(SMART_LOG, temperature=kelvin, thm_temp1_trans_count=transitions)


def records(result: dict) -> list[dict]:
    return [_results.read_json(p)["fio"]["health"] for p in _results.round_files(result["pts_segment"]["dir"])]


def test_an_nvme_drive_is_probed_once_then_read_by_one_command_a_round(tmp_path):
    drive_record(tmp_path, interface="NVMe", health={"tool": "nvme smart-log", "temperature_c": 40})
    host = Host(probe=NVME, logs=[log(350, 7), log(355, 9), log(356, 9)])
    result, dummy = run_segment(args_for(tmp_path, device="/dev/nvme0n1"), host)
    assert [m["name"] for m in host.modules] == ["fleetqual.pts.pts_drive_health"]
    assert host.modules[0]["mode"] == "round" and host.modules[0]["path"] == "/dev/nvme0n1"
    assert host.commands == ["timeout -k 5 60 /usr/sbin/nvme smart-log /dev/nvme0 -o json"] * 3
    entries = records(result)
    assert [(e["before"]["temperature_c"], e["after"]["temperature_c"]) for e in entries] == [(76, 77), (77, 82), (82, 83)]
    assert [(e["before"].get("thermal_transitions"), e["after"]["thermal_transitions"]) for e in entries] == [
        (None, [7, 1]), ([7, 1], [9, 1]), ([9, 1], [9, 1])]
    assert all(e["thresholds"] == {"warning_c": 80, "critical_c": 85} and isinstance(e["cost_s"], float) for e in entries)
    assert [e.get("before_from") for e in entries] == [None, "the reading after round 1", "the reading after round 2"]


def test_a_drive_identify_found_without_health_costs_nothing_per_round(tmp_path):
    drive_record(tmp_path, interface="loop", health=None)
    host = Host()
    result, dummy = run_segment(args_for(tmp_path), host)
    assert host.modules == [] and host.commands == []
    assert [e["none"] for e in records(result)] == ["a loop device (a file) has no SMART or NVMe health log"] * 3


def test_a_probe_that_says_none_is_not_repeated(tmp_path):
    host = Host(probe={"pts_health_probe": {"none": "a virtio disk has no SMART or NVMe health log"}})
    result, dummy = run_segment(args_for(tmp_path), host)  # no drive.json on disk: the module is asked, once
    assert len(host.modules) == 1 and host.commands == []
    assert {e["none"] for e in records(result)} == {"a virtio disk has no SMART or NVMe health log"}


def test_a_failed_probe_or_read_never_costs_the_round(tmp_path):
    host = Host(probe={"failed": True, "msg": "MODULE FAILURE"})
    result, dummy = run_segment(args_for(tmp_path), host)
    assert {e["none"] for e in records(result)} == {"the health probe failed: MODULE FAILURE"}
    assert result["pts_segment"]["rounds"] == 3
    host = Host(probe=NVME, logs=[AnsibleError("nvme: broken pipe")] * 5)
    result, dummy = run_segment(args_for(tmp_path / "again"), host)
    entries = records(result)
    assert entries[0]["before"] == {"temperature_c": 76} and entries[0]["after"] is None
    assert entries[0]["error"] == "nvme smart-log could not be run: nvme: broken pipe"


def test_a_health_read_that_hangs_is_killed_and_the_measured_round_kept(tmp_path):
    drive_record(tmp_path, interface="NVMe", health={"tool": "nvme smart-log", "temperature_c": 40})
    # Round 1's after is killed, so round 2 reads its own before; round 3's after is killed too.
    host = Host(probe=NVME, logs=[124, log(350, 7), log(355, 9), 137])
    result, dummy = run_segment(args_for(tmp_path), host)
    entries = records(result)
    assert entries[0]["after"] is None and "did not answer within 60 s and was killed" in entries[0]["error"]
    assert entries[1]["before"]["temperature_c"] == 77 and entries[1]["after"]["temperature_c"] == 82
    assert entries[2]["after"] is None and "killed" in entries[2]["error"] and len(host.commands) == 4
    assert result["pts_segment"]["rounds"] == 3
