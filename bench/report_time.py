# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Report time: drive reports from a synthetic but realistic results tree (25 rounds x 4 tests per drive) for
1, 10 and 100 drives, and the fleet summary of 1,000 drives; and, per format, where one drive's report time goes.

The rounds go through the real filing code (the callback's) with the shape fio's parsed output has: 56
combinations per IOPS round, sequential read and write per throughput block size, 9 combinations per latency
round, one 4k write per write saturation round.

Per format (``per_format``): a drive's report rebuilt cold - on a fresh copy of its results, no plot, report or
result.json from an earlier render - three times, each render's time split by part (model, plots, report.md, HTML,
PDF) by timing the functions that make each, the median of each part, on the wall clock and in CPU time (which a
machine busy with other work inflates less; it includes a forked child's, as the plots may be drawn on two cores).
Run it on any drive directory, a real one too (``python report_time.py --per-format RESULTS/RUN/HOST/DRIVE``);
PTS_BENCH_COLLECTION names another checkout's ``.collections`` to measure its code the same way (before/after).

Drawn (``--draw DRIVE_DIR...``): the report as a drive's worker draws it, in its short-lived child
(_drive_report.draw; a checkout without it, in the process, as its worker drew it), four times on fresh copies; the
wall and CPU seconds, median and lowest.
"""

from __future__ import annotations

import copy
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

if os.environ.get("PTS_BENCH_COLLECTION"):
    # Another checkout's code (the commit before a change), measured by this same script.
    sys.path.insert(0, os.environ["PTS_BENCH_COLLECTION"])

from _common import machine, save, table  # noqa: E402  pylint: disable=wrong-import-position

if os.environ.get("PTS_BENCH_COLLECTION"):
    sys.path.remove(os.environ["PTS_BENCH_COLLECTION"])
    sys.path.insert(0, os.environ["PTS_BENCH_COLLECTION"])
# pylint: disable=wrong-import-position
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._sizes import block_size_label, parse_block_size  # noqa: E402
try:
    from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import iops, latency  # noqa: E402
except ImportError:  # a checkout before the test registry (2.0.0), measured as PTS_BENCH_COLLECTION
    from types import SimpleNamespace

    from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _spec  # noqa: E402
    iops = SimpleNamespace(BLOCK_SIZES=_spec.IOPS_BLOCK_SIZES, MIXES=_spec.IOPS_MIXES, DV=_spec.IOPS_DV)
    latency = SimpleNamespace(DV=_spec.LATENCY_DV)
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary  # noqa: E402
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _html  # noqa: E402

ROUNDS = 25
CAPACITY = 3_840_000_000_000


def _direction(iops: float, bs: int, seconds: float, rng: random.Random) -> dict:
    if not iops:
        return {"runtime_ms": 0, "iops": 0.0, "bw_bytes": 0.0, "io_bytes": 0, "total_ios": 0,
                "lat_ns": {"min": None, "max": None, "mean": None, "percentiles": {}}}
    mean = 32 * 1e9 / iops
    return {"runtime_ms": int(seconds * 1000), "iops": iops, "bw_bytes": iops * bs, "io_bytes": int(iops * bs * seconds),
            "total_ios": int(iops * seconds),
            "lat_ns": {"min": mean * 0.1, "max": mean * rng.uniform(20, 60), "mean": mean,
                       "percentiles": {"50": mean * 0.9, "99": mean * 3, "99.9": mean * 6, "99.99": mean * 12}}}


def _job(name: str, rw: str, mix: int, bs: int, iops: float, rng: random.Random, numjobs=2, iodepth=16) -> dict:
    read = _direction(iops * mix / 100, bs, 60, rng)
    write = _direction(iops * (100 - mix) / 100, bs, 60, rng)
    ios = read["total_ios"] + write["total_ios"]
    mean = ((read["lat_ns"]["mean"] or 0) * read["total_ios"] + (write["lat_ns"]["mean"] or 0) * write["total_ios"]) / ios
    return {"name": name, "rw": rw, "pattern": "random" if rw.startswith("rand") else "sequential", "mix": mix,
            "bs": bs, "numjobs": numjobs, "iodepth": iodepth, "runtime_ms": 60000, "read": read, "write": write,
            "total": {"iops": read["iops"] + write["iops"], "bw_bytes": read["bw_bytes"] + write["bw_bytes"],
                      "io_bytes": read["io_bytes"] + write["io_bytes"], "total_ios": ios,
                      "lat_ns": {"mean": mean, "max": max(filter(None, [read["lat_ns"]["max"], write["lat_ns"]["max"]])),
                                 "min": min(filter(None, [read["lat_ns"]["min"], write["lat_ns"]["min"]]))}}}


def _iops_level(mix: int, bs: int) -> float:
    return min(700_000, 4e9 / bs) * (1.0 if mix == 100 else 0.35 + 0.0065 * mix)


def write_drive(run_dir: str, host: str, drive: str, seed: int) -> str:
    rng = random.Random(seed)
    settings = {"profile": "standard", "round_seconds": 60, "max_rounds": 25, "window": 5, "numjobs": 2,
                "iodepth": 16, "max_data_excursion_pct": 20.0, "max_slope_excursion_pct": 10.0, "ioengine": "libaio",
                "notes": [], "wipc": {"block_size": "128k", "capacity_multiple": 2}}
    _results.file_payload(run_dir, host, {
        "pts_drives": [{"key": drive, "path": f"/dev/{drive}", "resolved": f"/dev/{drive}", "size_bytes": CAPACITY,
                        "logical_block_size": 512, "physical_block_size": 4096, "interface": "NVMe",
                        "vendor": "ACME", "model": "ACME X1 3.84TB", "firmware": "2.1", "serial": f"S{seed:08d}"}],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"}})
    sizes = [parse_block_size(b) for b in iops.BLOCK_SIZES]
    plans = {
        "iops": (dict(settings, mixes=list(iops.MIXES), block_sizes=sizes, dv=dict(iops.DV)),
                 [("", ROUNDS, lambda: [_job(f"iops-r{m}-{b}", "randrw", m, b, _iops_level(m, b), rng)
                                        for m in iops.MIXES for b in sizes])]),
        "throughput": (dict(settings, numjobs=1, iodepth=32, mixes=[100, 0], block_sizes=sizes[:5], wipc=None),
                       [(block_size_label(b), ROUNDS // 5, lambda b=b: [
                           _job(f"tp-read-{b}", "read", 100, b, 3.5e9 / b, rng, 1, 32),
                           _job(f"tp-write-{b}", "write", 0, b, 2.5e9 / b, rng, 1, 32)]) for b in sizes[:5]]),
        "latency": (dict(settings, numjobs=1, iodepth=1, mixes=[100, 65, 0], block_sizes=[8192, 4096, 512],
                         dv=dict(latency.DV)),
                    [("", ROUNDS, lambda: [_job(f"latency-r{m}-{b}", "randrw", m, b, 12000.0, rng, 1, 1)
                                           for m in (100, 65, 0) for b in (8192, 4096, 512)])]),
        "wsat": (dict(settings, mixes=[0], block_sizes=[4096],
                      wsat={"target_bytes": 4 * CAPACITY, "capacity_multiple": 4, "max_hours": 24}),
                 [("", ROUNDS, lambda: [_job("wsat-4096", "randwrite", 0, 4096, 180000.0, rng)])]),
    }
    for test, (test_settings, segments) in plans.items():
        context = {"drive": drive, "test": test, "settings": test_settings}
        for segment, rounds, make in segments:
            seg = dict(context, segment=segment)
            _results.file_payload(run_dir, host, {"pts_purge": {"method": "sanitize", "secure": True, "elapsed_s": 9.0},
                                                  "pts_context": seg})
            base = make()
            for number in range(1, rounds + 1):
                jobs = copy.deepcopy(base)
                factor = rng.uniform(0.95, 1.05) * (1.6 if number < 3 else 1.0)
                for job in jobs:
                    for key in ("read", "write", "total"):
                        for metric in ("iops", "bw_bytes"):
                            job[key][metric] *= factor
                fio = {"fio_version": "fio-3.33", "jobs": jobs, "global_options": {"direct": "1", "ioengine": "libaio"},
                       "job_text": "[global]\n", "elapsed_s": 60.0 * len(jobs)}
                _results.file_payload(run_dir, host, {"pts_fio": fio, "pts_fio_raw": "{}",
                                                      "pts_context": dict(seg, phase="round", round=number)})
    return _results.drive_dir(run_dir, host, drive)


WSAT_ROUNDS = 1500


def write_long_wsat(run_dir: str, host: str, drive: str, rounds: int = WSAT_ROUNDS) -> str:
    """A drive with a write saturation of ``rounds`` rounds (the report samples its tables and thins its lines)."""
    rng = random.Random(3)
    capacity = 64 << 20
    _results.file_payload(run_dir, host, {
        "pts_drives": [{"key": drive, "path": f"/dev/{drive}", "resolved": f"/dev/{drive}", "size_bytes": capacity,
                        "logical_block_size": 512, "physical_block_size": 4096, "interface": "NVMe",
                        "vendor": "ACME", "model": "ACME X1", "firmware": "2.1", "serial": "S-long"}],
        "pts_host": {"hostname": host, "kernel": "6.1.0", "os": "Debian GNU/Linux 12 (bookworm)"}})
    settings = {"profile": "standard", "round_seconds": 60, "max_rounds": 25, "window": 5, "numjobs": 2, "iodepth": 16,
                "ioengine": "libaio", "notes": [], "mixes": [0], "block_sizes": [4096],
                "wsat": {"target_bytes": 4 * capacity, "capacity_multiple": 4, "max_hours": 24}}
    context = {"drive": drive, "test": "wsat", "settings": settings}
    _results.file_payload(run_dir, host, {"pts_purge": {"method": "sanitize", "secure": True, "elapsed_s": 9.0},
                                          "pts_context": context})
    for number in range(1, rounds + 1):
        job = _job("wsat-4096", "randwrite", 0, 4096, 2.8 * rng.uniform(0.9, 1.1), rng)  # ~4 x capacity in 1,500
        fio = {"fio_version": "fio-3.33", "jobs": [job], "global_options": {"direct": "1"}, "job_text": "[global]\n",
               "elapsed_s": 60.0}
        _results.file_payload(run_dir, host, {"pts_fio": fio, "pts_context": dict(context, phase="round", round=number)})
    return _results.drive_dir(run_dir, host, drive)


def render(drive_dir: str) -> float:
    started = time.monotonic()
    _drive_report.write_drive_report(drive_dir)
    return time.monotonic() - started


def render_without_pdf(drive_dir: str) -> float:
    """The same report with PTS_REPORT_FORMATS=html: what the PDF (WeasyPrint) adds to a drive's report."""
    before = os.environ.get("PTS_REPORT_FORMATS")
    os.environ["PTS_REPORT_FORMATS"] = "html"
    try:
        return render(drive_dir)
    finally:
        if before is None:
            del os.environ["PTS_REPORT_FORMATS"]
        else:
            os.environ["PTS_REPORT_FORMATS"] = before


OUTPUTS = ("plots", "report.md", "report.html", "report.pdf", "result.json", "history")


def _fresh_copy(drive_dir: str, work: str) -> str:
    """The drive's results (and its host's plan and other records) under ``work``, without any report output."""
    host_dir = os.path.dirname(os.path.abspath(drive_dir))
    target_host = os.path.join(work, os.path.basename(os.path.dirname(host_dir)), os.path.basename(host_dir))
    shutil.rmtree(os.path.dirname(target_host), ignore_errors=True)
    os.makedirs(target_host)
    for name in os.listdir(host_dir):
        if os.path.isfile(os.path.join(host_dir, name)):
            shutil.copy2(os.path.join(host_dir, name), target_host)
    target = os.path.join(target_host, os.path.basename(drive_dir))
    shutil.copytree(drive_dir, target, ignore=shutil.ignore_patterns(*OUTPUTS))
    return target


class _Clock:
    """Seconds spent inside wrapped callables, by part, on the wall clock and in CPU time (this process' and its
    finished children's: which a machine busy with other work inflates less); a call inside another part's call
    counts for the outer."""

    def __init__(self):
        self.spent: dict = {}
        self.depth = 0

    def wrap(self, part: str, func):
        def timed(*args, **kwargs):
            if self.depth:
                return func(*args, **kwargs)
            self.depth += 1
            started, cpu = time.monotonic(), time.process_time() + _children_cpu()
            try:
                return func(*args, **kwargs)
            finally:
                self.spent[part] = self.spent.get(part, 0.0) + time.monotonic() - started
                self.spent[f"{part}_cpu"] = self.spent.get(f"{part}_cpu", 0.0) + time.process_time() + \
                    _children_cpu() - cpu
                self.depth -= 1
        return timed


def _children_cpu() -> float:
    """CPU seconds of this process' finished children (a report may draw half its plots in a forked child)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def per_format(drive_dir: str, repeats: int = 3) -> dict:
    """One drive's report (report.md, plots, report.html, report.pdf) rebuilt cold - on a fresh copy of its results,
    no plot, report or result.json from an earlier render - ``repeats`` times; per part the median seconds: the model
    (build_model), the plots (each test's plots function, or all of them where the code draws them through _split),
    report.md (render_markdown), the HTML (markdown to the page, _html.to_html), the PDF (WeasyPrint parsing, laying
    out and writing the page), and the rest (writing the files, fsync included). WeasyPrint's first import is paid
    before the timed renders."""
    import weasyprint  # pylint: disable=import-outside-toplevel

    work = tempfile.mkdtemp(prefix="pts-bench-format-", dir="/var/tmp")
    originals = {"build_model": _drive_report.build_model, "render_markdown": _drive_report.render_markdown,
                 "to_html": _html.to_html, "init": weasyprint.HTML.__init__, "render": weasyprint.HTML.render,
                 "write_pdf": weasyprint.Document.write_pdf}
    split = getattr(_drive_report, "_split", None)
    # What draws the plots: the two-core split where the code has one, else each test's plots function in turn.
    drawers = [(split, "run")] if split is not None else \
        [(module, "plots") for module in set(_drive_report.TEST_MODULES.values())]
    originals["drawers"] = [(owner, name, getattr(owner, name)) for owner, name in drawers]
    runs = []
    try:
        started = time.monotonic()
        _html.pdf_available()  # WeasyPrint's import (about a second) is paid once per process, not per report
        import_s = time.monotonic() - started
        for dummy in range(repeats):
            copy_dir = _fresh_copy(drive_dir, work)
            clock = _Clock()
            _drive_report.build_model = clock.wrap("model", originals["build_model"])
            _drive_report.render_markdown = clock.wrap("markdown", originals["render_markdown"])
            _html.to_html = clock.wrap("html", originals["to_html"])
            weasyprint.HTML.__init__ = clock.wrap("pdf", originals["init"])
            # The PDF: parsing the page, laying it out (each fit pass, _html.fit_images) and writing it.
            weasyprint.HTML.render = clock.wrap("pdf", originals["render"])
            weasyprint.Document.write_pdf = clock.wrap("pdf", originals["write_pdf"])
            for owner, name, func in originals["drawers"]:
                setattr(owner, name, clock.wrap("plots", func))
            started, cpu, children = time.monotonic(), time.process_time(), _children_cpu()
            _drive_report.write_drive_report(copy_dir, ("html", "pdf"))
            total, total_cpu = time.monotonic() - started, time.process_time() - cpu + _children_cpu() - children
            spent = dict(clock.spent)
            spent["rest"] = total - sum(v for k, v in spent.items() if not k.endswith("_cpu"))
            spent["rest_cpu"] = total_cpu - sum(v for k, v in spent.items() if k.endswith("_cpu"))
            spent.update(total=total, total_cpu=total_cpu)
            runs.append(spent)
    finally:
        _drive_report.build_model = originals["build_model"]
        _drive_report.render_markdown = originals["render_markdown"]
        _html.to_html = originals["to_html"]
        weasyprint.HTML.__init__ = originals["init"]
        weasyprint.HTML.render = originals["render"]
        weasyprint.Document.write_pdf = originals["write_pdf"]
        for owner, name, func in originals["drawers"]:
            setattr(owner, name, func)
        shutil.rmtree(work, ignore_errors=True)
    out = {f"{part}{kind}_s": statistics.median(r.get(part + kind, 0.0) for r in runs)
           for part in PARTS + ("total",) for kind in ("", "_cpu")}
    return dict(out, weasyprint_import_s=import_s, repeats=repeats, runs=runs)


PARTS = ("model", "plots", "markdown", "html", "pdf", "rest")


def format_rows(label: str, found: dict) -> list[list[str]]:
    return [[label] + [f"{found[f'{part}_s']:.2f} s ({found[f'{part}_cpu_s']:.2f} s)" for part in PARTS + ("total",)]]


FORMAT_HEADERS = ["drive: wall (CPU)", "model", "plots", "report.md", "HTML", "PDF", "writing files", "all"]


def fleet_tree(work: str, drive_dir: str, count: int) -> str:
    """``count`` drives (10 a host) with the figures of ``drive_dir``'s up-to-date result.json, each a little off, as
    their workers would have left them: drive.json, then result.json."""
    fleet_dir = os.path.join(work, "fleet", f"run-{count}")
    with open(os.path.join(drive_dir, "result.json"), encoding="utf-8") as handle:
        model = json.load(handle)
    rng = random.Random(7)
    for host_index in range((count + 9) // 10):
        host = f"h{host_index:03d}"
        _results.file_payload(fleet_dir, host, {"pts_plan": {"tests": [{"name": t} for t in model["tests"]],
                                                             "listed": [], "acceptance": [
                                                                 {"model": "ACME*", "min_iops_4k_write": 100000}]}})
        for drive_index in range(min(10, count - 10 * host_index)):
            key = f"d{drive_index:02d}"
            path = _results.drive_dir(fleet_dir, host, key)
            os.makedirs(path)
            mine = copy.deepcopy(model)
            mine["drive"]["serial"] = f"S{host_index:03d}{drive_index:02d}"
            mine["tests"]["iops"]["tables"]["iops"]["4k"]["0"] *= rng.uniform(0.9, 1.1)
            _results.atomic_write_json(os.path.join(path, "drive.json"), {"drive": mine["drive"], "host": host})
            time.sleep(0.001)
            _results.atomic_write_json(os.path.join(path, "result.json"), mine)
    return fleet_dir


def main() -> dict:
    work = tempfile.mkdtemp(prefix="pts-bench-report-", dir="/var/tmp")
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(work, "mpl"))
    try:
        run_dir = os.path.join(work, "run")
        started = time.monotonic()
        template = write_drive(run_dir, "h000", "d00", 0)
        write_s = time.monotonic() - started
        dirs = [template]
        for index in range(1, 100):  # 100 drives: copies of the first with their own identity
            host, drive = f"h{index // 10:03d}", f"d{index % 10:02d}"
            target = _results.drive_dir(run_dir, host, drive)
            shutil.copytree(template, target)
            dirs.append(target)
        timings = {}
        long_dir = write_long_wsat(os.path.join(work, "long"), "h-long", "d-long")
        formats = {"synthetic_4_tests": per_format(dirs[0]), "wsat_1500": per_format(long_dir)}
        timings["wsat_1500"] = [render(long_dir)]
        timings["1"] = [render(dirs[0])]
        timings["1_no_pdf"] = [render_without_pdf(dirs[0])]
        timings["10"] = [render(d) for d in dirs[1:11]]
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
            started = time.monotonic()
            per_drive = list(pool.map(render, dirs))
            wall_100 = time.monotonic() - started
        timings["100"] = per_drive

        # 1,000 drives for the fleet summary: each with an up-to-date result.json of its own figures.
        fleet_dir = fleet_tree(work, dirs[0], 1000)
        started = time.monotonic()
        summary = _fleet_summary.summarize([fleet_dir], fleet_dir, {"fail_on": ["FAIL", "INCOMPLETE"]})
        fleet_s = time.monotonic() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def stats(values):
        return {"mean_s": sum(values) / len(values), "max_s": max(values)}

    result = {"machine": machine(), "rounds_per_test": ROUNDS, "write_one_drive_s": write_s,
              "report_1": stats(timings["1"]), "report_1_no_pdf": stats(timings["1_no_pdf"]),
              "report_10": stats(timings["10"]),
              "report_wsat_1500": stats(timings["wsat_1500"]),
              "formats": os.environ.get("PTS_REPORT_FORMATS", "html,pdf"),
              "report_100": dict(stats(timings["100"]), wall_s=wall_100, workers=os.cpu_count()),
              "fleet_1000_s": fleet_s, "fleet_drives": len(summary["drives"]), "per_format": formats}
    save("report_time", result)
    print(table(FORMAT_HEADERS, format_rows("synthetic, 4 tests x 25 rounds", formats["synthetic_4_tests"])
                + format_rows(f"write saturation, {WSAT_ROUNDS:,} rounds", formats["wsat_1500"])))
    print(table(["measure", "value"], [
        ["filing 1 drive's rounds (4 tests x 25 rounds)", f"{write_s:.1f} s"],
        ["drive report, 1 drive", f"{result['report_1']['mean_s']:.1f} s"],
        ["drive report, 1 drive, without the PDF", f"{result['report_1_no_pdf']['mean_s']:.1f} s"],
        [f"drive report, a write saturation of {WSAT_ROUNDS:,} rounds", f"{result['report_wsat_1500']['mean_s']:.1f} s"],
        ["drive report, 10 drives (each, mean / max)",
         f"{result['report_10']['mean_s']:.1f} s / {result['report_10']['max_s']:.1f} s"],
        [f"drive report, 100 drives on {os.cpu_count()} processes (each, mean / max)",
         f"{result['report_100']['mean_s']:.1f} s / {result['report_100']['max_s']:.1f} s"],
        ["100 drive reports, wall", f"{wall_100:.0f} s"],
        [f"fleet summary, {len(summary['drives'])} drives", f"{fleet_s:.1f} s"],
    ]))
    return result


def main_per_format(argv: list[str]) -> dict:
    """``--per-format DRIVE_DIR...`` (a real drive's results), or ``--per-format`` alone: the synthetic drive of 4
    tests and the 1,500-round write saturation. Prints the table and the JSON."""
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(tempfile.gettempdir(), "pts-bench-mpl"))
    found = {}
    if argv:
        for path in argv:
            found[path] = per_format(path)
    else:
        work = tempfile.mkdtemp(prefix="pts-bench-report-", dir="/var/tmp")
        try:
            synthetic = write_drive(os.path.join(work, "run"), "h000", "d00", 0)
            found["synthetic, 4 tests x 25 rounds"] = per_format(synthetic)
            found[f"write saturation, {WSAT_ROUNDS:,} rounds"] = per_format(
                write_long_wsat(os.path.join(work, "long"), "h-long", "d-long"))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(table(FORMAT_HEADERS, [row for label, entry in found.items() for row in format_rows(label, entry)]))
    print(json.dumps(found, indent=2, sort_keys=True))
    return found


def drawn(drive_dir: str, repeats: int = 4) -> dict:
    """One drive's report as a drive's worker draws it: _drive_report.draw, in its forked child, on a fresh copy of the
    results each time, after one render that loads what a first one would; wall and CPU seconds (the children's
    included), the median and the lowest of ``repeats``."""
    work = tempfile.mkdtemp(prefix="pts-bench-draw-", dir="/var/tmp")
    # A checkout before the child (issue 44) drew the report in the worker itself.
    draw = getattr(_drive_report, "draw", _drive_report.write_drive_report)
    runs = []
    try:
        _html.pdf_available()
        draw(_fresh_copy(drive_dir, work), ("html", "pdf"))
        for dummy in range(repeats):
            copy_dir = _fresh_copy(drive_dir, work)
            started, cpu, children = time.monotonic(), time.process_time(), _children_cpu()
            draw(copy_dir, ("html", "pdf"))
            runs.append((time.monotonic() - started, time.process_time() - cpu + _children_cpu() - children))
            shutil.rmtree(copy_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
    return {"wall_s": statistics.median(walls), "wall_min_s": min(walls), "cpu_s": statistics.median(cpus),
            "cpu_min_s": min(cpus), "repeats": repeats}


def main_draw(argv: list[str]) -> dict:
    """``--draw DRIVE_DIR...``: each drive's report drawn as its worker draws it (drawn); PTS_BENCH_COLLECTION for
    another checkout's code, so that a before and after can alternate in one sitting."""
    os.environ.setdefault("MPLCONFIGDIR", os.path.join(tempfile.gettempdir(), "pts-bench-mpl"))
    found = {path: drawn(path) for path in argv}
    print(table(["drive", "wall, median (lowest)", "CPU, median (lowest)"], [
        [path, f"{f['wall_s']:.2f} s ({f['wall_min_s']:.2f} s)", f"{f['cpu_s']:.2f} s ({f['cpu_min_s']:.2f} s)"]
        for path, f in found.items()]))
    return found


if __name__ == "__main__":
    if sys.argv[1:2] == ["--per-format"]:
        main_per_format(sys.argv[2:])
    elif sys.argv[1:2] == ["--draw"]:
        main_draw(sys.argv[2:])
    else:
        main()
