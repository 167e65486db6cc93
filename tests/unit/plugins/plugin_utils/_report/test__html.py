# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""report.html: self-contained, its contents links resolve, drive strings stay text; a missing library never fails
the report, and the report says what it did not make."""

from __future__ import annotations

import base64
import gc
import os
import re
import weakref
import zlib

import pytest
from PIL import Image

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report, _html, _pdf_fit

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
    assert ("<table>" in page or '<table class="short">' in page) and 'style="text-align:right"' in page
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


def _plot(path, width_px: int, height_px: int) -> str:
    Image.new("RGB", (width_px, height_px), "#3366aa").save(path)
    return os.path.basename(path)


@pytest.mark.parametrize("markdown, marks", [
    pytest.param("Lead into the plot:\n\n![p](a.png)\n\n*The caption.*\n",
                 ['<p class="lead">Lead into the plot:</p>', '<figure class="plot"><img src="data:image/png;base64,',
                  'data-fig="1" />\n<figcaption class="caption"><em>The caption.</em></figcaption>\n</figure>'],
                 id="lead-plot-caption"),
    pytest.param("![p](a.png)\n\nNo caption.\n", ['<p><img src="data:image/png;base64,', "<p>No caption.</p>"],
                 id="plot-without-caption"),
    pytest.param("Lead into the table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
                 ['<p class="lead">Lead into the table:</p>', '<table class="short">'], id="short-table"),
    pytest.param("| a |\n|---|\n" + "".join(f"| {n} |\n" for n in range(_html.SHORT_TABLE_ROWS + 1)),
                 ["<table>"], id="long-table-may-split"),
    pytest.param("*Italic, but after no plot.*\n", ["<p><em>Italic, but after no plot.</em></p>"], id="not-a-caption"),
    pytest.param("Every sample:\n\n<details><summary>Group 1</summary>\n\n| a |\n|---|\n| 1 |\n\n</details>\n",
                 ['<p class="lead">Every sample:</p>'], id="lead-into-details"),
    pytest.param("Then:\n\n- one\n- two\n", ['<p class="lead">Then:</p>'], id="colon-leads-into-a-list"),
    pytest.param("A closing remark.\n\n- one\n", ["<p>A closing remark.</p>"], id="no-lead"),
    pytest.param("| Id | Figure | Limit | Result |\n|---|---|---|---|\n| `R1` | `qos.read.qd1.p99` | 1 ms | PASS |\n",
                 ['<table class="short requirements">'], id="short-requirements-table"),
    pytest.param("| Specification | Id | Figure | Limit |\n|---|---|---|---|\n"
                 + "".join(f"| S | `R{n}` | `iops.4k.100/0` | 1 |\n" for n in range(_html.SHORT_TABLE_ROWS + 1)),
                 ['<table class="requirements">'], id="long-requirements-table"),
])
def test_what_stays_together_on_a_page(tmp_path, markdown, marks):
    _plot(tmp_path / "a.png", 20, 10)
    page = _html.to_html(markdown, str(tmp_path), "t")
    for mark in marks:
        assert mark in page


FILLER = 30


def _weasyprint():
    weasyprint = _html._weasyprint()
    assert weasyprint is not None, _html.pdf_available()  # requirements.txt installs it
    return weasyprint


def _document(tmp_path, text: str, forced: bool = False):
    return _html.pdf_document(_weasyprint(), text, str(tmp_path), "t",
                              page_breaks=("next-test",) if forced else ())


def _filler() -> str:
    return "\n\n".join(f"Line {n} of text that fills the page." for n in range(FILLER))


def _room(tmp_path) -> tuple[float, float]:
    """The blank end of page 1 under the filler text, and the width of the page's content (CSS px)."""
    top, bottom, boxes = _html._page_boxes(_document(tmp_path, _filler()).pages[0])
    used = max(b.position_y + b.margin_height() for b in boxes
               if getattr(b, "element_tag", None) == "p")
    return bottom - used, boxes[0].width


def _plot_page(tmp_path, share: float, forced: bool = False) -> tuple[int, float, float]:
    """The filler, then a plot as wide as the page whose full printed height is the room left on page 1 / ``share``
    (and its caption): the page it is printed on, its printed height and its full height."""
    room, width = _room(tmp_path)
    full = room / share
    name = _plot(tmp_path / f"plot-{share}.png", 1000, int(round(full * 1000 / width)))
    text = _filler() + ("\n\n## Next test\n\n" if forced else "\n\n") + f"![plot]({name})\n\n*Its caption.*\n"
    for number, page in enumerate(_document(tmp_path, text, forced).pages, 1):
        for box in _html._page_boxes(page)[2]:
            if getattr(box, "element_tag", None) == "img":
                return number, box.height, full
    raise AssertionError("no plot laid out")


@pytest.mark.parametrize("share, page, shrunk", [
    # A plot that fits the rest of page 1 at 85 % of its size or more is printed there, a little smaller.
    pytest.param(0.92, 1, True, id="fits-at-92-percent"),
    # One that would have to shrink further moves on to page 2 at its full size (a page half blank is then the
    # lesser evil: its text would read smaller than the other plots').
    pytest.param(0.75, 2, False, id="would-need-75-percent"),
    # One that fits as it is stays as it is.
    pytest.param(1.3, 1, False, id="fits-as-is"),
])
def test_a_plot_that_would_fit_at_85_percent_leaves_no_half_blank_page(tmp_path, share, page, shrunk):
    found_page, height, full = _plot_page(tmp_path, share)
    assert found_page == page
    assert (height < full - 2) is shrunk
    assert height >= _html.FIT_SHARE * full - 2


def test_a_plot_after_a_forced_page_break_is_not_pulled_back(tmp_path):
    found_page, height, full = _plot_page(tmp_path, 0.92, forced=True)
    assert found_page == 2 and height == pytest.approx(full, abs=2)


@pytest.mark.parametrize("within", [True, False], ids=["fitted-within-one-layout", "laid-out-again"])
def test_each_fit_pass_lets_the_last_layout_go_before_making_the_next(tmp_path, monkeypatch, within):
    # Two layouts of a long report at once would double its peak memory (a fleet's reports are drawn side by side).
    # Where the plots are fitted within the layout (_pdf_fit) there is one; else one per pass, one at a time.
    monkeypatch.setattr(_pdf_fit, "ENABLED", within)
    room, width = _room(tmp_path)
    name = _plot(tmp_path / "plot.png", 1000, int(round(room / 0.92 * 1000 / width)))
    page = _weasyprint().HTML(string=_html.to_html(_filler() + f"\n\n![plot]({name})\n\n*Its caption.*\n",
                                                   str(tmp_path), "t"), base_url=str(tmp_path))
    made, alive_at_render = [], []
    render = page.render

    def counting_render(*args, **kwargs):
        alive_at_render.append(sum(ref() is not None for ref in made))
        document = render(*args, **kwargs)
        made.append(weakref.ref(document))
        return document

    page.render = counting_render
    _html.fit_images(_weasyprint(), page, lambda heights: None)
    assert (len(made) == 1 if within else len(made) >= 2) and alive_at_render == [0] * len(made), alive_at_render


def test_no_full_collection_while_a_pdf_is_made_and_the_threshold_is_put_back():
    before = gc.get_threshold()
    with _html._young_collections_only():
        with _html._young_collections_only():
            assert gc.get_threshold() == before[:2] + (_html._NO_FULL_COLLECTION,)
        assert gc.get_threshold()[2] == _html._NO_FULL_COLLECTION
    assert gc.get_threshold() == before
