# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report.html, report.pdf, fleet.html and fleet.pdf as a reader gets them: rendered from a results tree filed
through the real filing code (the unit tests' builder, real fio rounds), loaded in headless Chromium (screenshots
kept in build/artifacts/), and the PDF read back with poppler's pdftotext.

No playbook run: the drive report is computed from disk alone, so a tree on disk is all it needs (a few seconds
instead of minutes)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import zlib

import pytest
from conftest import ROOT

ARTIFACTS = os.environ.get("PTS_ARTIFACTS", os.path.join(ROOT, "build", "artifacts"))
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]
WINDOW = (1280, 2400)


def _unit_builder():
    """The unit tests' results-tree builder (tests/unit/.../conftest.py), loaded by path: both are 'conftest'."""
    path = os.path.join(ROOT, "tests", "unit", "plugins", "plugin_utils", "conftest.py")
    spec = importlib.util.spec_from_file_location("pts_unit_builder", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Two drives of one model, all four PTS tests each, a plan with an acceptance rule; every report and the fleet
    summary rendered with HTML and PDF."""
    from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_summary
    from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report
    for tool in ("chromium", "pdftotext", "pdfinfo"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is not installed: scripts/deps.sh (make venv) installs it")
    build = _unit_builder()
    tmp = tmp_path_factory.mktemp("html")
    run_dir = str(tmp / "run-1")
    _results.file_payload(run_dir, "h1", {"pts_plan": {
        "tests": [{"name": t} for t in ("iops", "throughput", "latency", "wsat")], "listed": [], "drives": [],
        "acceptance": [{"name": "loop", "model": "loop*", "min_iops_4k_write": 1.0}], "fleet": {"fail_on": []}}})
    for drive, scale in (("d1", 1.0), ("d2", 0.9)):
        build.write_drive(run_dir, "h1", drive)
        build.write_segment(run_dir, "h1", drive, "iops", [1.6 * scale, 1.3 * scale] + [scale] * 5)
        build.write_wipc(run_dir, "h1", drive, "iops")
        build.write_segment(run_dir, "h1", drive, "throughput", [scale] * 5, segment="1024k",
                            fixture="fio-3.33-throughput-1048576.json")
        build.write_segment(run_dir, "h1", drive, "throughput", [1.0, 1.5, 0.7, 1.4, 0.6, 1.3, 0.8, 1.2],
                            segment="64k", fixture="fio-3.33-throughput-65536.json")
        build.write_segment(run_dir, "h1", drive, "latency", [scale] * 5)
        build.write_wipc(run_dir, "h1", drive, "latency")
        build.write_segment(run_dir, "h1", drive, "wsat", [scale] * 6)
    os.environ["PTS_REPORT_FORMATS"] = "html,pdf"
    try:
        written = _drive_report.write_drive_report(os.path.join(run_dir, "h1", "d1"))
        summary = _fleet_summary.summarize([run_dir], run_dir)
    finally:
        del os.environ["PTS_REPORT_FORMATS"]
    return tmp, run_dir, written, summary


def _chromium(tmp, page: str, name: str) -> tuple[str, str]:
    """A screenshot of the page in headless Chromium (kept as an artifact) and the DOM Chromium built from it."""
    profile = tmp / f"chromium-{name}"
    profile.mkdir()
    os.makedirs(ARTIFACTS, exist_ok=True)
    shot = os.path.join(ARTIFACTS, f"{name}.png")
    if os.path.exists(shot):
        os.unlink(shot)
    base = CHROMIUM_FLAGS + [f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}"]
    subprocess.run(["chromium", *base, f"--screenshot={shot}", "file://" + page], check=True, capture_output=True,
                   timeout=120)
    dom = subprocess.run(["chromium", *base, "--dump-dom", "file://" + page], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    return shot, dom


def _pixels(path: str):
    from PIL import Image  # matplotlib's own dependency
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        return rgb.size, list(rgb.get_flattened_data())


def test_report_html_in_chromium(rendered):
    tmp, run_dir, written, summary = rendered
    shot, dom = _chromium(tmp, written["html"], "report-html")
    size, pixels = _pixels(shot)
    assert size == WINDOW
    assert os.path.getsize(shot) > 40_000  # text, tables and a verdict box, not a blank page
    assert sum(1 for p in pixels if p != (255, 255, 255)) > 0.03 * len(pixels)
    # The verdict box is drawn in its colour (a quick profile's purple background, #f3e5f5).
    assert sum(1 for p in pixels if p == (243, 229, 245)) > 5_000
    # Chromium parsed every table and kept the heading ids the contents links point at.
    with open(written["html"], encoding="utf-8") as handle:
        tables = re.compile(r"<table[ >]")
        assert len(tables.findall(dom)) == len(tables.findall(handle.read())) >= 20
    for anchor in re.findall(r'href="#([^"]+)"', dom):
        assert f'id="{anchor}"' in dom, anchor
    assert len(re.findall(r'<img src="data:image/png;base64,', dom)) == sum(len(p) for p in written["plots"].values())


def test_fleet_html_in_chromium_shows_the_model_plot(rendered):
    tmp, run_dir, written, summary = rendered
    page = os.path.join(run_dir, "fleet.html")
    shot, dom = _chromium(tmp, page, "fleet-html")
    size, pixels = _pixels(shot)
    assert size == WINDOW and os.path.getsize(shot) > 40_000
    # The model overlay and the cohort plot are embedded images; Chromium drew them (the drives' tab10 lines:
    # #1f77b4 blue and #ff7f0e orange), which no text or table of the page uses.
    blue = sum(1 for r, g, b in pixels if abs(r - 31) < 30 and abs(g - 119) < 30 and abs(b - 180) < 30)
    orange = sum(1 for r, g, b in pixels if abs(r - 255) < 20 and abs(g - 127) < 30 and b < 60)
    assert blue > 400 and orange > 400, (blue, orange)
    assert 'href="h1/d1/report.html"' in dom and "Drives by model" in dom


def _pdf_pages(path: str) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", path, "-"], check=True, capture_output=True, text=True).stdout
    return text.split("\f")[:-1]


def _pdf_uris(path: str) -> list[bytes]:
    """Every link target (URI action) of a PDF, in its compressed object streams too."""
    with open(path, "rb") as handle:
        data = handle.read()
    blobs = [data]
    for found in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            blobs.append(zlib.decompress(found.group(1)))
        except zlib.error:
            continue
    return [uri for blob in blobs for uri in re.findall(rb"/URI \(([^)]*)\)", blob)]


def test_report_pdf_summary_alone_on_page_1_contents_with_page_numbers_and_a_footer(rendered):
    tmp, run_dir, written, summary = rendered
    info = subprocess.run(["pdfinfo", written["pdf"]], check=True, capture_output=True, text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)$", info, re.M).group(1))
    with open(written["report"], encoding="utf-8") as handle:
        sections = re.findall(r"^## (.+)$", handle.read(), re.M)
    # Device, setup, steady state, the four tests, wear (a loop device has no health log, so no health section), and
    # the plan's acceptance rule requirement by requirement.
    assert sections[:3] == ["Summary", "Contents", "1 Device information"] and len(sections) == 11
    assert sections[-2:] == ["8 Wear", "9 Acceptance"]
    text = _pdf_pages(written["pdf"])
    assert len(text) == pages >= 5
    first = text[0]
    assert "Verdict: FAIL (quick profile — not a qualification)" in first  # 64k never steady
    assert "Contents" not in first and text[1].lstrip().startswith("Contents")  # the summary fits page 1, alone
    model = written["model"]
    iops = model["tests"]["iops"]["tables"]["iops"]["4k"]["0"]
    write = model["tests"]["throughput"]["segments"][0]["mb_per_s"]["write"]
    assert f"{iops:,.0f} IOPS" in first and f"{write:,.1f} MB/s" in first
    p9999 = model["tests"]["latency"]["percentiles_ms"]["4k 0/100 write"]["99.99"]
    ios = model["tests"]["latency"]["percentile_ios"]["4k 0/100 write"]
    # The window's merged p99.99, or n/r with its IO count when they are too few (a quick run's are).
    shown = f"{p9999:,.3f} ms" if p9999 is not None else f"n/r: {ios:,} IOs"
    assert "p99.99" in first and shown in first and "Write saturation" in first
    # The contents give each section's page, and the section starts there (its heading a line of that page).
    for title in sections[2:]:
        number = title.split(" ", 1)
        listed = re.search(rf"^\s*{number[0]}\.\s+{re.escape(number[1])}\s*\.*\s*(\d+)\s*$", text[1], re.M)
        assert listed, title
        page = int(listed.group(1))
        assert re.search(rf"^\s*{re.escape(title)}\s*$", text[page - 1], re.M), (title, page)
    # Every page: the drive, the run and the date in the footer, and its number.
    footer = f"loop device · serial — · firmware — · run run-1 · {model['report_date']}"
    for number, page in enumerate(text, 1):
        assert footer in page and f"page {number} of {pages}" in page, number
    # Links relative to the PDF or inside it: nothing of the controller's file system.
    uris = _pdf_uris(written["pdf"])
    assert b"iops/round-01.fio" in uris and not [u for u in uris if u.startswith((b"file:", b"/"))]


def test_fleet_pdf(rendered):
    tmp, run_dir, written, summary = rendered
    text = "\f".join(_pdf_pages(os.path.join(run_dir, "fleet.pdf")))
    assert "0 PASS · 2 FAIL (quick profile — not a qualification) · 0 INCOMPLETE of 2 drives" in text
    assert "Fleet summary · run run-1 · 2 drives · tested " in text
    assert not [u for u in _pdf_uris(os.path.join(run_dir, "fleet.pdf")) if u.startswith((b"file:", b"/"))]
    assert summary["outputs"] == {"html": "fleet.html", "pdf": "fleet.pdf", "not_produced": {}}
