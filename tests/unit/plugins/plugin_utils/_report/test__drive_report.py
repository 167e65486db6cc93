# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import json
import os
import re
import shlex
import statistics

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _fio
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _child, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report
from conftest import figure_with, write_drive, write_segment

PNG = b"\x89PNG\r\n\x1a\n"
# FOB-like first rounds, then five within limits.
FACTORS = [1.6, 1.3, 1.02, 0.98, 1.0, 1.01, 0.99]


def _window_means(drive_dir: str, window: list[int]) -> dict:
    """Window averages recomputed straight from the round files, per (block size, mix)."""
    means = {}
    for bs in (65536, 4096):
        for mix in (100, 65, 0):
            values = []
            for number in window:
                rnd = _results.read_json(os.path.join(drive_dir, "iops", f"round-{number:02d}.json"))
                values.append(_fio.find_job(rnd["fio"]["jobs"], mix, bs)["total"]["iops"])
            means[(bs, mix)] = statistics.fmean(values)
    return means


def test_steady_run_report_agrees_with_the_round_files(make_run, base_dv):
    drive_dir = make_run(FACTORS)
    written = _drive_report.write_drive_report(drive_dir)
    model = written["model"]
    result = model["tests"]["iops"]

    dv = [base_dv * f for f in FACTORS]
    assert result["dv"]["values"] == pytest.approx(dv)
    # round 5's window still holds round 1 (1.6): first steady at round 7 (window 3..7)
    assert result["status"] == "steady" and result["steady_round"] == 7
    assert result["dv"]["window"]["rounds"] == [3, 4, 5, 6, 7]
    window = dv[2:]
    assert result["dv"]["window"]["average"] == pytest.approx(statistics.fmean(window))
    assert result["dv"]["window"]["slope"] == pytest.approx(
        statistics.linear_regression([3, 4, 5, 6, 7], window).slope)

    means = _window_means(drive_dir, [3, 4, 5, 6, 7])
    for (bs, mix), mean in means.items():
        label = "64k" if bs == 65536 else "4k"
        assert result["tables"]["iops"][label][str(mix)] == pytest.approx(mean)

    # the same figures in result.json and, rounded, in the Markdown summary table
    with open(written["result"], encoding="utf-8") as handle:
        assert json.load(handle)["tests"]["iops"]["tables"]["iops"] == result["tables"]["iops"]
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    row = re.search(r"^\| \*\*4k\*\* \| (.+) \|$", markdown, re.M).group(1)
    assert [float(c.replace(",", "")) for c in row.split(" | ")] == [
        pytest.approx(means[(4096, m)], abs=0.051) for m in (100, 65, 0)]
    assert "**Steady state reached at round 7.**" in markdown
    assert "Quick profile — not a qualification" in markdown
    for name in ("convergence", "verification", "measurement", "heatmap"):
        path = os.path.join(drive_dir, model["plots"]["iops"][name])
        with open(path, "rb") as handle:
            assert handle.read(8) == PNG


def test_not_steady_at_the_round_limit(make_run):
    factors = [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2]  # 8 rounds = max_rounds in SETTINGS
    result = _drive_report.write_drive_report(make_run(factors))["model"]["tests"]["iops"]
    assert result["status"] == "not steady"
    assert result["steady_round"] is None
    assert result["dv"]["window"]["rounds"] == [4, 5, 6, 7, 8]


def test_interrupted_run_is_incomplete_not_steady(make_run):
    written = _drive_report.write_drive_report(make_run([1.0, 1.0, 1.0]))
    assert written["model"]["tests"]["iops"]["status"] == "incomplete"
    with open(written["report"], encoding="utf-8") as handle:
        assert "**Incomplete**" in handle.read()


def test_rebuilding_gives_the_same_report_byte_for_byte(make_run):
    drive_dir = make_run(FACTORS)
    first = _drive_report.write_drive_report(drive_dir)
    with open(first["report"], "rb") as handle:
        before = handle.read()
    # The report's date is its last result's (round 7's), not the time it was drawn: a rebuild changes nothing.
    last = _results.read_json(os.path.join(drive_dir, "iops", "round-07.json"))["recorded_at"]
    assert first["model"]["report_date"] == last[:16].replace("T", " ") + " UTC"
    second = _drive_report.write_drive_report(drive_dir)
    with open(second["report"], "rb") as handle:
        assert handle.read() == before


@pytest.mark.parametrize("extra_vars, operator, auditor, cut", [
    pytest.param(["pts_report_operator='J. Doe' pts_report_auditor=ACME-QA"], "J. Doe", "ACME-QA", False,
                 id="quoted-inside"),
    # -e pts_report_operator="J. Doe": the shell takes the quotes, Ansible reads "J.": recorded whole, and said.
    pytest.param(["pts_report_operator=J. Doe"], "J. Doe", None, True, id="shell-took-the-quotes"),
    pytest.param(['pts_report_operator="J. Doe"'], "J. Doe", None, False, id="documented-form"),
    pytest.param(['{"pts_report_operator": "Lab 3 <night shift>"}', "pts_demo_device=/dev/loop1"],
                 "Lab 3 <night shift>", None, False, id="json"),
    pytest.param(["@vars.yml"], None, None, False, id="file-not-read"),
])
def test_operator_auditor_and_the_plans_time_estimate(make_run, extra_vars, operator, auditor, cut):
    drive_dir = make_run(FACTORS)
    plan_file = os.path.join(os.path.dirname(drive_dir), "plan.json")
    plan = {"tests": [{"name": "iops"}], "listed": [], "acceptance": [],
            "drives": [{"key": "d1", "tests": [{"test": "iops", "min_s": 255.6, "max_s": 306.3}]}]}
    _results.atomic_write_json(plan_file, {"host": "h1", "plan": plan, "command": {
        "argv": ["ansible-playbook", "playbooks/pts.yml"], "extra_vars": extra_vars,
        "recorded_at": "2026-11-26T07:01:12.687+00:00"}})
    written = _drive_report.write_drive_report(drive_dir)
    assert written["model"]["people"] == {"operator": operator, "auditor": auditor}
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    recorded = _md_text(operator) if operator else \
        "not recorded (give -e 'pts_report_operator=\"NAME\"' to ansible-playbook)"
    assert "| Test operator | " + recorded in markdown
    assert "| Auditor | " + (auditor or "not recorded (give -e 'pts_report_auditor=\"NAME\"'") in markdown
    assert ("ansible-playbook read &#x27;J.&#x27;" in markdown or "ansible-playbook read 'J.'" in markdown) is cut
    # The command line as a shell takes it back: each -e argument quoted where it needs it.
    assert "`ansible-playbook playbooks/pts.yml`" in markdown
    for entry in extra_vars:
        assert f"`-e {shlex.quote(entry)}`" in markdown
    assert "| Memory (DRAM) |" in markdown
    # The plan's estimate beside what the test took.
    assert re.search(r"^\| IOPS \| steady \| 7 \| 4\.3 min – 5\.1 min \| [\d.]+ s \|", markdown, re.M)


def _md_text(value: str) -> str:
    return value.replace("<", "&lt;").replace(">", "&gt;")


def test_a_gap_in_the_round_files_is_an_error(make_run):
    drive_dir = make_run([1.0, 1.0, 1.0])
    os.unlink(os.path.join(drive_dir, "iops", "round-02.json"))
    with pytest.raises(DataError, match="not consecutive"):
        _drive_report.build_model(drive_dir)
    # Drawn in a child process as the run and report_rebuild draw it: the tree's fault in its words, not a bug's
    # traceback (a RuntimeError "in a child process (a bug)" while the readers raised plain ValueErrors).
    with pytest.raises(_child.ChildError, match=r"round files are not consecutive from 1: \[1, 3\]"):
        _child.run(_drive_report.write_drive_report, drive_dir, ())


def test_a_refused_drive_says_why_and_shows_no_figures(tmp_path):
    run_dir = str(tmp_path / "run")
    _results.file_payload(run_dir, "h1", {"pts_drives": [{"key": "d9", "path": "/dev/sdz", "size_bytes": 10**9}],
                                          "pts_host": {"hostname": "h1"}})
    _results.file_payload(run_dir, "h1", {"pts_guard": [{"key": "d9", "path": "/dev/sdz", "passed": False,
                                                         "refusals": ["sdz1 is mounted on /data (xfs)"]}]})
    written = _drive_report.write_drive_report(_results.drive_dir(run_dir, "h1", "d9"))
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **Refused by the guard — nothing was written to this drive:**" in markdown
    assert "> - sdz1 is mounted on /data (xfs)" in markdown
    assert "IOPS" not in markdown and "Threads × queue depth" not in markdown


@pytest.fixture(scope="module")
def all_tests(tmp_path_factory):
    """One drive with all four tests on disk, rendered once for the tests below."""
    drive_dir = _all_tests_run(tmp_path_factory.mktemp("all"))
    return drive_dir, _drive_report.write_drive_report(drive_dir)


def _all_tests_run(tmp_path):
    from conftest import write_drive, write_segment, write_wipc
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    write_segment(run_dir, "h1", "d1", "iops", FACTORS)
    write_wipc(run_dir, "h1", "d1", "iops")
    # throughput: 1024k steady at round 5, 64k never steady within the 8-round limit
    write_segment(run_dir, "h1", "d1", "throughput", [1.0, 1.01, 0.99, 1.0, 1.02], segment="1024k",
                  fixture="fio-3.33-throughput-1048576.json")
    write_segment(run_dir, "h1", "d1", "throughput", [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2], segment="64k",
                  fixture="fio-3.33-throughput-65536.json")
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    write_wipc(run_dir, "h1", "d1", "latency")
    write_segment(run_dir, "h1", "d1", "wsat", [1.0] * 6 + [0.5] * 6)
    return drive_dir


def _raw_jobs(drive_dir, test, segment, number):
    path = os.path.join(drive_dir, test, segment, f"round-{number:02d}.json") if segment else \
        os.path.join(drive_dir, test, f"round-{number:02d}.json")
    return _results.read_json(path)["fio"]["jobs"]


def test_throughput_per_block_size_and_direction(all_tests):
    drive_dir, written = all_tests
    result = written["model"]["tests"]["throughput"]
    assert [s["name"] for s in result["segments"]] == ["1024k", "64k"]
    big, small = result["segments"]
    assert big["status"] == "steady" and big["steady_round"] == 5
    assert small["status"] == "not steady"
    assert result["status"] == "not steady"
    for seg, size, count in ((big, 1048576, 5), (small, 65536, 8)):
        window = range(count - 4, count + 1)
        for direction, mix in (("read", 100), ("write", 0)):
            mean = statistics.fmean(_fio.find_job(_raw_jobs(drive_dir, "throughput", seg["name"], n), mix, size)
                                    ["total"]["bw_bytes"] / 1e6 for n in window)
            assert seg["mb_per_s"][direction] == pytest.approx(mean)
    assert result["headline"]["block_size"] == "1024k"
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    row = re.search(r"^\| \*\*1024k\*\* \| ([\d,.]+) \| ([\d,.]+) \|", markdown, re.M)
    assert float(row.group(2).replace(",", "")) == pytest.approx(big["mb_per_s"]["write"], abs=0.006)
    assert "MB/s (10⁶ bytes/s)" in markdown


def test_latency_tables_and_the_io_weighted_mixed_mean(all_tests):
    drive_dir, written = all_tests
    result = written["model"]["tests"]["latency"]
    assert result["status"] == "steady" and result["dv"]["metric"] == "lat_mean_ns"
    assert result["settings"]["numjobs"] == 1 and result["settings"]["iodepth"] == 1
    rounds = range(1, 6)
    jobs = [_fio.find_job(_raw_jobs(drive_dir, "latency", "", n), 65, 4096) for n in rounds]
    weighted = [(j["read"]["lat_ns"]["mean"] * j["read"]["total_ios"] + j["write"]["lat_ns"]["mean"] * j["write"]["total_ios"])
                / (j["read"]["total_ios"] + j["write"]["total_ios"]) for j in jobs]
    assert result["tables"]["mean_ms"]["4k"]["65"] == pytest.approx(statistics.fmean(weighted) / 1e6)
    assert result["tables"]["read_mean_ms"]["4k"]["65"] == pytest.approx(
        statistics.fmean(j["read"]["lat_ns"]["mean"] for j in jobs) / 1e6)
    assert result["tables"]["max_ms"]["4k"]["65"] == pytest.approx(max(j["total"]["lat_ns"]["max"] for j in jobs) / 1e6)
    # Rounds recorded without histograms: the mean of their own percentiles, where the round with the fewest IOs
    # resolves it (10 / (1 - p) IOs: p50 here, not p99.99).
    p50 = statistics.fmean(j["write"]["lat_ns"]["percentiles"]["50"] for j in jobs) / 1e6
    assert result["percentiles_ms"]["4k 65/35 write"]["50"] == pytest.approx(p50)
    assert result["percentiles_ms"]["4k 65/35 write"]["99.99"] is None
    assert result["percentile_ios"]["4k 65/35 write"] == sum(j["write"]["total_ios"] for j in jobs)
    assert "0/100 read" not in " ".join(result["percentiles_ms"])  # no figure for a direction that did no IO


def test_wsat_counts_what_was_written(all_tests):
    drive_dir, written = all_tests
    result = written["model"]["tests"]["wsat"]
    per_round = [_fio.find_job(_raw_jobs(drive_dir, "wsat", "", n), 0, 4096)["write"] for n in range(1, 13)]
    assert result["written_bytes"] == sum(w["io_bytes"] for w in per_round)
    assert [r["iops"] for r in result["per_round"]] == pytest.approx([w["iops"] for w in per_round])
    assert result["status"] == "incomplete"  # far from 4 x capacity and no stop recorded


def test_every_test_has_a_section_and_plots(all_tests):
    drive_dir, written = all_tests
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    for number, title in enumerate(("IOPS", "Throughput", "Latency", "Write Saturation"), 4):
        assert f"\n## {number} {title}\n" in markdown
        assert f"{number}. [{title}](#{number}-{title.lower().replace(' ', '-')})" in markdown
    for test, names in written["plots"].items():
        for path in names.values():
            with open(os.path.join(drive_dir, path), "rb") as handle:
                assert handle.read(8) == PNG, (test, path)
            # Readable by the lab's web server like the report that shows it (umask 022 here), not mkstemp's 0600.
            assert os.stat(os.path.join(drive_dir, path)).st_mode & 0o777 == 0o666 & ~_current_umask(), path
    assert set(written["plots"]) == {"iops", "throughput", "latency", "wsat"}
    assert os.stat(written["report"]).st_mode & 0o777 == 0o666 & ~_current_umask()


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


HOSTILE = {"vendor": "ACME <b>", "model": "X1 | PASS", "serial": "\x1b[31mS1\x1b[0m", "firmware": "[1.0](http://x)",
           "notes": "bay `3`\nrow 2", "backing_file": "/srv/a|b.img", "described": ["notes"]}


def test_drive_strings_reach_the_report_escaped(tmp_path):
    run_dir = str(tmp_path / "run")
    _results.file_payload(run_dir, "h1", {
        "pts_drives": [dict(HOSTILE, key="d9", path="/dev/loop9", resolved="/dev/loop9", size_bytes=10**9)],
        "pts_host": {"hostname": "h1<script>", "os": "Debian | 12"}})
    _results.file_payload(run_dir, "h1", {"pts_guard": [{"key": "d9", "path": "/dev/loop9", "passed": False,
                                                         "refusals": ["loop9 carries <xfs> | on /mnt"]}]})
    written = _drive_report.write_drive_report(_results.drive_dir(run_dir, "h1", "d9"))
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert "| Vendor | ACME &lt;b&gt; |" in markdown and "| Model | X1 \\| PASS |" in markdown
    assert "| Serial number | S1 |" in markdown and "\x1b" not in markdown
    assert "| Firmware | \\[1.0\\](http://x) |" in markdown
    assert "| Notes (description file) | bay \\`3\\` row 2 |" in markdown
    assert "(backing file `/srv/a\\|b.img`, direct I/O off)" in markdown
    assert "| Host | h1 (inventory name); hostname h1&lt;script&gt; |" in markdown and "Debian \\| 12" in markdown
    assert "> - loop9 carries &lt;xfs&gt; \\| on /mnt" in markdown
    assert "<b>" not in markdown and "<script>" not in markdown


def test_a_purge_that_failed_before_any_round_is_shown_with_its_reason(tmp_path):
    from conftest import write_drive
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1")
    _results.file_payload(run_dir, "h1", {"pts_guard": [{"key": "d1", "path": "/dev/loop9", "passed": True}]})
    _results.file_payload(run_dir, "h1", {
        "failed": True, "msg": "pts_purge /dev/loop9: refused, nothing was written: loop9 is mounted on /mnt (ext4)",
        "pts_context": {"drive": "d1", "test": "iops", "settings": {}}})
    model = _drive_report.write_drive_report(drive_dir)["model"]
    assert model["tests"] == {}
    assert model["failed_before_rounds"]["iops"]["msg"].startswith("pts_purge /dev/loop9: refused")
    with open(os.path.join(drive_dir, "report.md"), encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **No test ran on this drive:** a step before the first round failed" in markdown
    assert ("> - IOPS: the purge failed before the first round: pts_purge /dev/loop9: refused, nothing was written: "
            "loop9 is mounted on /mnt (ext4)") in markdown
    assert "see the playbook output" not in markdown


def test_every_plot_names_the_drive_and_window_plots_their_windows_state(tmp_path, figures):
    """A plot lifted into a slide keeps the drive's model, serial and firmware (OakGate's device line); the IOPS heat
    map says whether the window it averages was steady."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1", model="ACME X1", serial="S4N-0042", firmware="FW 1.2")
    write_segment(run_dir, "h1", "d1", "iops", FACTORS)
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    written = _drive_report.write_drive_report(drive_dir)
    drawn = sum(len(plots) for plots in written["plots"].values())
    assert drawn >= 10 and len(figures) == drawn
    for figure in figures:
        assert any(text.startswith("ACME X1 · serial S4N-0042 · firmware FW 1.2 · ") and text.endswith("run run")
                   for text in figure["texts"]), \
            " | ".join(figure["texts"])
    assert "STEADY (window rounds 3–7)" in figure_with(figures, "IOPS window average, R/W mix × block size")["texts"]
    # The steady-state window's points marked on the convergence plots: the DV's rounds 3-7.
    for words in ("IOPS steady-state convergence", "latency steady-state convergence"):
        shown = figure_with(figures, words)
        assert ("s", [3.0, 4.0, 5.0, 6.0, 7.0] if "IOPS" in words else [1.0, 2.0, 3.0, 4.0, 5.0]) in shown["markers"]
        assert "DV in the measurement window" in shown["texts"]


def test_each_test_starts_a_page_with_its_one_page_summary(tmp_path):
    """OakGate's one-page summary per test: under each test's heading, the device, the test date, how it was run and
    its outcome; the PDF starts each test on a page of its own."""
    run_dir = str(tmp_path / "run")
    drive_dir = write_drive(run_dir, "h1", "d1", model="ACME X1", serial="S4N-0042", firmware="FW 1.2")
    write_segment(run_dir, "h1", "d1", "iops", FACTORS)
    write_segment(run_dir, "h1", "d1", "latency", [1.0, 1.02, 0.98, 1.0, 1.01])
    written = _drive_report.write_drive_report(drive_dir)
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    model = written["model"]
    for number, (name, title) in enumerate((("iops", "IOPS"), ("latency", "Latency")), 4):
        section = markdown[markdown.index(f"## {number} {title}"):]
        head = section.split("\n", 4)
        assert head[2] == f"**{title} — test summary**", head
        result = model["tests"][name]
        summary = section[:section.index("\n\n", section.index("| Item | Value |"))]
        assert "| Device | ACME X1 · serial S4N-0042 · firmware FW 1.2 · 256.0 MiB |" in summary
        assert f"| Test date | {result['started_at'][:19].replace('T', ' ')} – " in summary
        assert "| Stimulus | " in summary and "| Steady state | window 5 rounds" in summary
        assert f"| Outcome | **{result['status']}**" in summary
    with open(written["html"], encoding="utf-8") as handle:
        page = handle.read()
    assert page.count('class="page"') == 3  # the contents, then each test
    for anchor in _drive_report.test_anchors(model):
        assert f'<h2 id="{anchor}" class="page">' in page
