# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report.html: self-contained, its contents links resolve, drive strings stay text; a missing library never fails
the report, and the report says what it did not make."""

from __future__ import annotations

import base64
import os
import re
import zlib

import pytest
from PIL import Image

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _html, _plots

FACTORS = [1.6, 1.3, 1.02, 0.98, 1.0, 1.01, 0.99]


def test_report_html_is_self_contained_and_its_contents_links_resolve(make_run):
    written = _drive_report.write_drive_report(make_run(FACTORS))
    with open(written["html"], encoding="utf-8") as handle:
        page = handle.read()
    ids = set(re.findall(r' id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert {"summary", "1-device-information", "4-iops"} <= set(links)
    assert set(links) <= ids, set(links) - ids
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) == 4 and all(src.startswith("data:image/png;base64,") for src in images)
    assert all(base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n" for src in images)
    # Nothing to fetch or run: no http(s) source, no script, and a policy that forbids both.
    assert "<script" not in page and not re.search(r'(src|href)="https?:', page)
    assert "default-src 'none'; img-src data:" in page
    assert '<blockquote class="verdict verdict-quick">' in page
    assert "<table>" in page and 'style="text-align:right"' in page
    assert written["not_produced"] == {"pdf": "not asked for (PTS_REPORT_FORMATS)"}


def test_drive_strings_stay_text_in_the_html(tmp_path):
    run_dir = str(tmp_path / "run")
    _results.file_payload(run_dir, "h1", {
        "pts_drives": [{"key": "d9", "path": "/dev/loop9", "resolved": "/dev/loop9", "size_bytes": 10**9,
                        "model": "<script>alert(1)</script>", "vendor": "[x](javascript:alert(1))"}],
        "pts_host": {"hostname": "h1"}})
    written = _drive_report.write_drive_report(_results.drive_dir(run_dir, "h1", "d9"))
    with open(written["html"], encoding="utf-8") as handle:
        page = handle.read()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="javascript' not in page


def test_without_markdown_it_the_report_says_what_was_not_made_and_why(make_run, monkeypatch):
    monkeypatch.setattr(_html, "MARKDOWN_IMPORT_ERROR", ImportError("No module named 'markdown_it'"))
    monkeypatch.setenv("PTS_REPORT_FORMATS", "html,pdf")
    drive_dir = make_run(FACTORS)
    written = _drive_report.write_drive_report(drive_dir)
    assert written["html"] is None and written["pdf"] is None
    assert not os.path.exists(os.path.join(drive_dir, "report.html"))
    with open(written["report"], encoding="utf-8") as handle:
        markdown = handle.read()
    assert "> **report.html was not produced**: markdown-it-py is not installed on the controller" in markdown
    assert "> **report.pdf was not produced**: no HTML to print: markdown-it-py is not installed" in markdown
    assert _results.read_json(written["result"])["outputs"]["html"] is None


def test_a_pdf_engine_that_fails_leaves_the_html_and_says_so(make_run, monkeypatch):
    class Broken:
        class HTML:  # noqa: D106  # the engine's entry point, failing as a real layout error would
            def __init__(self, **kwargs):
                raise ValueError("layout exploded")

    monkeypatch.setitem(_html._WEASYPRINT, "module", Broken)
    monkeypatch.setitem(_html._WEASYPRINT, "error", None)
    monkeypatch.setenv("PTS_REPORT_FORMATS", "html,pdf")
    written = _drive_report.write_drive_report(make_run(FACTORS))
    assert written["html"] and written["pdf"] is None
    assert written["not_produced"] == {"pdf": "WeasyPrint failed: ValueError: layout exploded"}
    with open(written["report"], encoding="utf-8") as handle:
        assert "> **report.pdf was not produced**: WeasyPrint failed: ValueError: layout exploded" in handle.read()


def test_log_axes_end_on_labelled_ticks_and_say_they_are_log():
    fig, ax = _plots.plt.subplots()
    ax.set_ylabel("latency (ms)")
    _plots.log_y(ax, [21.0, 38.0, 1.3])
    assert ax.get_ylim() == (1.0, 50.0)  # the 38 ms maximum lies below a labelled tick (50), not above the last (20)
    assert ax.get_ylabel() == "latency (ms) (log scale)"
    _plots.plt.close(fig)


def test_block_sizes_keep_one_colour_and_order_everywhere():
    assert _plots.by_block_size(["4k", "512", "1024k", "64k"]) == ["1024k", "64k", "4k", "512"]
    assert _plots.bs_color("4k", 0) == _plots.bs_color("4k", 5) == _plots.BS_COLORS["4k"]


def _pdf_uris(path: str) -> list[bytes]:
    """Every link target (URI action) in a PDF, in its compressed object streams too."""
    with open(path, "rb") as handle:
        data = handle.read()
    blobs = [data]
    for found in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            blobs.append(zlib.decompress(found.group(1)))
        except zlib.error:
            continue
    return [uri for blob in blobs for uri in re.findall(rb"/URI \(([^)]*)\)", blob)]


def test_the_pdf_links_nothing_of_the_controller_and_the_html_not_itself(make_run, monkeypatch):
    monkeypatch.setenv("PTS_REPORT_FORMATS", "html,pdf")
    drive_dir = make_run(FACTORS)
    written = _drive_report.write_drive_report(drive_dir)
    uris = _pdf_uris(written["pdf"])
    # The job files and the other formats, relative to the PDF: no file:/// path of the controller, none absolute.
    assert b"iops/round-01.fio" in uris and b"report.html" in uris and b"report.md" in uris
    assert not [u for u in uris if u.startswith((b"file:", b"/")) or os.path.dirname(drive_dir).encode() in u]
    with open(written["pdf"], "rb") as handle:
        assert b"file://" not in handle.read()
    with open(written["html"], encoding="utf-8") as handle:
        page = handle.read()
    assert 'href="report.html"' not in page and '<strong class="this-file">report.html</strong> (this file)' in page
    assert '<ol class="toc">' in page and "target-counter(attr(href url), page)" in page


def test_the_summary_fills_page_1_alone_and_every_page_names_the_drive_and_run(make_run):
    weasyprint = _html._weasyprint()
    drive_dir = make_run(FACTORS)
    written = _drive_report.write_drive_report(drive_dir)
    with open(written["report"], encoding="utf-8") as handle:
        text = handle.read()
    footer = _drive_report.footer(written["model"])
    page = _html.to_html(text, drive_dir, "t", "report.pdf", footer, ("contents",))
    document = weasyprint.HTML(string=page, base_url=None).render()
    where = {anchor: number for number, one in enumerate(document.pages) for anchor in one.anchors}
    # The summary on page 1, and nothing else: the contents open page 2, the sections flow on from there.
    assert where["summary"] == 0 and where["contents"] == 1 and where["1-device-information"] == 1
    assert where["4-iops"] <= 3 and len(document.pages) <= 8
    assert footer == "loop device · serial — · firmware — · run run-1 · " + written["model"]["report_date"]
    assert f"@bottom-left {{ content: {_html.css_string(footer)}; }}" in page


def test_css_strings_cannot_end_the_footer_or_the_style():
    shown = _html.css_string('x"; } </style><script>alert(1)</script>')
    assert shown.startswith('"x') and shown.count('"') == 2 and "<" not in shown and "}" not in shown[1:-1]


# A 2x2 PNG.
_PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGM8ISfHwMDAxMDAwMDAAAANBAEIfXHKZgAAAABJRU5ErkJggg==")


def test_the_pdf_fetches_data_urls_only(tmp_path):
    weasyprint = _html._weasyprint()
    secret = tmp_path / "secret.png"
    Image.new("RGB", (3, 3), (20, 20, 200)).save(secret, "PNG")  # another image: WeasyPrint prints one image once
    data = "data:image/png;base64," + base64.b64encode(_PIXEL).decode()
    fetcher = _html.data_urls_only(weasyprint)
    for url in (f"file://{secret}", "http://127.0.0.1:9/x.css", "https://example.invalid/x.png"):
        with pytest.raises(ValueError):
            fetcher(url)
    fetched = fetcher(data)
    assert (fetched.read() if hasattr(fetched, "read") else fetched["string"]) == _PIXEL

    def images(**fetcher) -> int:
        page = f'<html><body><img src="{data}"><img src="file://{secret}"></body></html>'
        return weasyprint.HTML(string=page, base_url=None, **fetcher).write_pdf().count(b"/Subtype /Image")

    # The data: image is printed, the controller's file is not; WeasyPrint's own fetcher would print both.
    assert images(url_fetcher=fetcher) == 1 and images() == 2


def test_a_plot_replaced_by_a_link_to_a_root_only_file_is_not_embedded(tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(b"\x89PNG\r\n\x1a\nSECRET-MODEL-T01")
    os.chmod(secret, 0o600)
    (tmp_path / "report" / "plots").mkdir(parents=True)
    (tmp_path / "report" / "plots" / "iops.png").symlink_to(secret)
    page = _html.to_html("![IOPS](plots/iops.png)\n", str(tmp_path / "report"), "t")
    assert "data:image" not in page and base64.b64encode(b"SECRET-MODEL-T01")[:12].decode() not in page
