# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The drive report's summary page and the wording a lab reads first: each test fails on the report's old text."""

from __future__ import annotations

import os
import re

import pytest
from conftest import SETTINGS, write_drive, write_segment, write_wipc

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report

FACTORS = [1.6, 1.3, 1.02, 0.98, 1.0, 1.01, 0.99]
# Read is steady at rounds 5 and 7 but not 6; write is steady from round 6: together first at round 7, not 6.
READ = [0.95, 1.05, 1.05, 1.0, 1.0, 0.9, 1.05]
WRITE = [0.95, 1.05, 1.05, 1.15, 1.05, 1.05, 1.05]
RULE = {"name": "loop rule", "model": "loop*", "min_iops_4k_write": 1.0, "max_latency_4k_write_p9999_ms": 1000.0}


def _plan(run_dir: str, host: str, acceptance: list, tests=("iops", "throughput", "latency", "wsat")) -> None:
    _results.file_payload(run_dir, host, {"pts_plan": {"tests": [{"name": t} for t in tests], "listed": [],
                                                       "acceptance": acceptance, "drives": []}})


@pytest.fixture(scope="module")
def drive(tmp_path_factory):
    """One drive of all four tests, an acceptance rule matching it, and a write saturation that wrote 4.4 ×."""
    run_dir = str(tmp_path_factory.mktemp("summary") / "run")
    path = write_drive(run_dir, "h1", "d1")
    info = _results.read_json(os.path.join(path, "drive.json"))
    info["host_info"].update(hostname="vm", cpu_model="AMD EPYC 7763", cpu_count=2)
    info["drive"].update(health={"tool": "smartctl", "passed": True, "media_errors": 0, "bytes_written": 10**9})
    _results.atomic_write_json(os.path.join(path, "drive.json"), info)
    _results.atomic_write_json(os.path.join(path, "health-after.json"),
                               {"tool": "smartctl", "passed": True, "media_errors": 2, "bytes_written": 3 * 10**9})
    _plan(run_dir, "h1", [RULE])
    write_segment(run_dir, "h1", "d1", "iops", FACTORS)
    write_wipc(run_dir, "h1", "d1", "iops")
    write_segment(run_dir, "h1", "d1", "throughput", [{"read": r, "write": w} for r, w in zip(READ, WRITE)],
                  segment="1024k", fixture="fio-3.33-throughput-1048576.json")
    write_segment(run_dir, "h1", "d1", "throughput", [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2], segment="64k",
                  fixture="fio-3.33-throughput-65536.json")
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    write_wipc(run_dir, "h1", "d1", "latency")
    # 52,748,288 bytes a round against a 50,000,000-byte "capacity": 5 rounds write 5.3 × (target 4 ×).
    wsat = dict(SETTINGS["wsat"], wsat={"target_bytes": 200_000_000, "capacity_multiple": 4, "max_hours": 0.05})
    write_segment(run_dir, "h1", "d1", "wsat", [1.0] * 4, settings=wsat)
    written = _drive_report.write_drive_report(path)
    with open(written["report"], encoding="utf-8") as handle:
        return path, written, handle.read()


def test_the_summary_page_comes_first_with_verdict_rule_figures_times_and_health(drive):
    dummy, written, markdown = drive
    assert markdown.index("## Summary") < markdown.index("## Contents") < markdown.index("## 1 Device information")
    summary = markdown[markdown.index("## Summary"):markdown.index("## Contents")]
    assert "> **Verdict: FAIL (quick profile — not a qualification)**" in summary
    assert "> Acceptance rule loop rule: 4k random write ≥ 1.0 IOPS; 4k random write p99.99 latency ≤ 1,000.0 ms " \
           "(99.99 % of all the measurement window's 4k random writes, from fio's merged latency histograms " \
           "(json+)); every test steady." in summary
    assert "- Throughput: steady state required, not reached by 64k read, 64k write within the 8-round limit per " \
           "block size" in summary
    iops = written["model"]["tests"]["iops"]["tables"]["iops"]["4k"]["0"]
    assert f"| 4k random write | {iops:,.0f} IOPS | **steady** |" in summary
    assert re.search(r"^\| 1024k sequential read \| [\d,.]+ MB/s \| \*\*steady\*\* \|$", summary, re.M)
    # The window's few thousand 4k writes cannot resolve a p99.99: flagged with the IOs counted and needed.
    assert re.search(r"^\| 4k random write p99\.99 latency \* \| n/r: [\d,]+ IOs, 100,000 needed \| \*\*steady\*\* \|$",
                     summary, re.M)
    assert "| Write saturation | complete: 4.22 × capacity written (target 4 ×) in 4 rounds; last round" in summary
    # Rounds, the plan's estimate (none here), wall time, fio's I/O time and its processes' time.
    assert re.search(r"^\| IOPS \| steady \| 7 \| — \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \|$", summary, re.M)
    assert "| Media errors | 0 | 2 | +2 |" in summary
    assert "| Bytes written | 953.7 MiB | 2.8 GiB | +1.9 GiB |" in summary


def test_result_json_has_the_verdict_and_the_headline_block_in_report_units(drive):
    path, written, dummy = drive
    result = _results.read_json(written["result"])
    assert result["verdict"]["verdict"] == "FAIL" and result["verdict"]["rule"] == "loop rule"
    assert result["verdict"]["label"] == "FAIL (quick profile — not a qualification)"
    headline = result["headline"]
    assert headline["iops_4k_write"]["unit"] == "IOPS" and headline["iops_4k_write"]["steady"] is True
    assert headline["throughput_1024k_write_mb_s"]["unit"] == "MB/s"
    assert headline["throughput_1024k_write_mb_s"]["value"] == pytest.approx(
        result["tests"]["throughput"]["segments"][0]["mb_per_s"]["write"])
    assert headline["latency_4k_write_p9999_ms"]["unit"] == "ms"
    p9999 = headline["latency_4k_write_p9999_ms"]
    assert "merged latency histograms" in p9999["note"] and p9999["value"] is None
    assert p9999["unresolved"]["needed"] == 100_000 and p9999["ios"] == p9999["unresolved"]["ios"] < 100_000
    assert headline["wsat"]["status"] == "complete" and headline["wsat"]["capacity_written"] == pytest.approx(
        4 * 52748288 / 50_000_000)


def test_round_table_headers_say_what_the_dv_is_in_words(drive):
    dummy, dummy2, markdown = drive
    assert "| Round | 4k 0/100 IOPS | Data exc. % |" in markdown
    assert "| Round | 4k 0/100 mean latency (ms) | Data exc. % |" in markdown
    assert "| Round | 1024k read MB/s | Data exc. % | Slope exc. % | 1024k write MB/s |" in markdown
    assert "Steady (read and write) |" in markdown
    assert "iops (IOPS)" not in markdown and "lat_mean_ns" not in markdown and "bw_bytes" not in markdown


def test_throughput_steady_round_is_the_first_round_both_directions_were_steady_together(drive):
    dummy, written, markdown = drive
    segment = written["model"]["tests"]["throughput"]["segments"][0]
    read, write = segment["dvs"]
    assert (read["steady_round"], write["steady_round"]) == (5, 6)  # each direction's own first steady round
    assert [v["steady"] for v in read["verdicts"]][4:] == [True, False, True]
    assert segment["steady_round"] == 7  # the later of 5 and 6 would say 6, when read was not steady
    assert "| **1024k** | read | 3, 4, 5, 6, 7 |" in markdown
    assert re.search(r"^\| \*\*1024k\*\* \| read \|.* \| round 5 \| round 7 \|$", markdown, re.M)
    # Per-direction state survives in the summary table: 64k read and write are each "not steady".
    assert re.search(r"^\| \*\*64k\*\* \| [\d,.]+ \| [\d,.]+ \| \*\*not steady\*\* \| \*\*not steady\*\* \|", markdown,
                     re.M)
    assert re.search(r"^\| \*\*1024k\*\* \| [\d,.]+ \| [\d,.]+ \| steady \(from round 5\) \| steady \(from round 6\) \|",
                     markdown, re.M)
    assert "**Not steady**: 64k read, 64k write did not reach steady state within the limit of 8 rounds per block " \
           "size" in markdown
    assert "not reached in 15 rounds" not in markdown


def test_write_saturation_quarters_go_past_the_target_and_name_single_rounds(drive):
    dummy, dummy2, markdown = drive
    table = markdown[markdown.index("By capacity written"):]
    # 52.7 MB a round on a 50 MB capacity: every round is its own quarter-or-more; the last ends at 4.22 ×.
    assert "| 4–4.25 × | 3.16–4.22 × | 4 |" in table
    assert "3.75–4 ×" not in table and "| 4–4 |" not in table and "| 1–1 |" not in table
    assert "| 1–1.25 × | 0.00–1.05 × | 1 |" in table
    assert "less than 3 min passed" in markdown and "0.05 h" not in markdown


def test_setup_wording(drive):
    dummy, dummy2, markdown = drive
    assert "| CPU | AMD EPYC 7763, 2 logical CPUs |" in markdown and "× 2 |" not in markdown
    assert "| Host | h1 (inventory name); hostname vm |" in markdown
    assert "| Device | `/dev/loop9` |" in markdown and "`/dev/loop9` → `/dev/loop9`" not in markdown
    assert "2 threads × queue depth 16 = OIO 32" in markdown and "thread(s)" not in markdown
    assert "1 thread × queue depth 32" in markdown
    assert "| Profile | quick (**not a qualification**: seconds per run, a few rounds) |" in markdown
    assert "quick — quick profile" not in markdown
    assert re.search(r"^\| Report date \| \d{4}-\d\d-\d\d \d\d:\d\d UTC \(when the last result shown was recorded\) \|$",
                     markdown, re.M)
    assert "| Vendor | Linux (a placeholder: a loop device has none) |" in markdown
    assert "| Model | loop device (a placeholder: a loop device has none) |" in markdown
    assert "| Test system (manufacturer / model) | not recorded" in markdown
    assert "| Link speed | not reported by the drive |" in markdown
    assert "| Command line | not recorded |" in markdown  # filed outside ansible-playbook


def test_the_command_line_is_recorded_with_the_plan_and_secrets_hidden(tmp_path, monkeypatch):
    argv = ["/venv/bin/ansible-playbook", "playbooks/pts.yml", "-i", "inventories/lab", "-e", "pts_profile=quick",
            "--extra-vars={\"ansible_become_password\": \"hunter2\"}"]
    monkeypatch.setattr("sys.argv", argv)
    run_dir = str(tmp_path / "run")
    path = write_drive(run_dir, "h1", "d1")
    _plan(run_dir, "h1", [], tests=("iops",))
    write_segment(run_dir, "h1", "d1", "iops", FACTORS)
    command = _results.read_json(os.path.join(run_dir, "h1", "plan.json"))["command"]
    assert command["extra_vars"] == ["pts_profile=quick", "(hidden: it names a secret)"]
    assert "hunter2" not in str(command)
    with open(_drive_report.write_drive_report(path)["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    # Quoted as a shell takes it back (the hidden secret too: it stays one argument).
    assert ("| Command line | `ansible-playbook playbooks/pts.yml -i inventories/lab -e pts_profile=quick "
            "'--extra-vars=(hidden: it names a secret)'`; extra variables `-e pts_profile=quick`, `-e '(hidden: it "
            "names a secret)'`") in markdown
    # No rule matched: the summary says so, and the drive is judged on its tests.
    assert "> No acceptance rule matched this drive's model and firmware" in markdown


def test_a_loop_device_health_line_says_the_drive_reports_none(make_run):
    with open(_drive_report.write_drive_report(make_run(FACTORS))["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert "Drive health: **the drive reports none** (loop has no SMART or NVMe health log" in markdown
    assert "> No plan was recorded for this host, so no acceptance rule applies" in markdown


def test_a_limit_not_judged_is_said_beside_a_fail():
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _summary

    judged = {"verdict": "FAIL", "label": "FAIL", "rule": "lab", "limits": [], "checks": [],
              "reasons": ["IOPS: steady state required, not reached in 7 rounds"],
              "not_judged": ["max_latency_4k_write_p9999_ms: the latency test's measurement window holds 14,014 4k "
                             "random write IOs; p99.99 needs at least 100,000 (10 beyond it) to be resolved"]}
    text = "\n".join(_summary._verdict_lines({"verdict": judged}))
    assert "Not judged: max_latency_4k_write_p9999_ms: the latency test's measurement window holds 14,014" in text
    # INCOMPLETE already gives it as a reason: not twice.
    text = "\n".join(_summary._verdict_lines({"verdict": dict(judged, verdict="INCOMPLETE",
                                                              reasons=["max_latency_4k_write_p9999_ms: not judged"])}))
    assert "Not judged:" not in text
