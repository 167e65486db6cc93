# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import annotations

import importlib

import pytest
from PIL import Image

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _html, _pdf_fit

FILLER = 20


def _weasyprint():
    weasyprint = _html._weasyprint()
    assert weasyprint is not None, _html.pdf_available()  # requirements.txt installs it
    return weasyprint


def _filler(lines: int, word: str) -> str:
    return "\n\n".join(f"{word} line {n} of text that fills the page." for n in range(lines))


def _head() -> str:
    return ("# Report\n\n## Contents\n\n1. [First test](#first-test)\n2. [Second test](#second-test)\n"
            "3. [Third test](#third-test)\n\n## First test\n\n" + _filler(FILLER, "First"))


def _rest(plot: str) -> str:
    # After the plot the first test runs on over pages, so the page the plot saves moves every page after it up
    # by one, the contents' numbers with them. The second test's plot is printed at its full size.
    return (f"\n\n![plot]({plot})\n\n*Its caption.*\n\n{_filler(40, 'More')}\n\n## Second test\n\n"
            f"{_filler(20, 'Second')}\n\n![another plot]({plot})\n\n*Its caption.*\n\n## Third test\n\n{_filler(5, 'Third')}\n")


def _pdf(tmp_path, text: str):
    return _html.pdf_document(_weasyprint(), text, str(tmp_path), "t", "report.pdf", "a footer",
                              ("contents", "second-test", "third-test"))


def _report_with_a_fit(tmp_path) -> str:
    """A report whose first test's plot (and its caption) fits the end of the page before at about 90 % of its
    size."""
    pages = _pdf(tmp_path, _head()).pages
    top, bottom, boxes = _html._page_boxes(pages[-1])
    used = max(b.position_y + b.margin_height() for b in boxes if getattr(b, "element_tag", None) == "p")
    full = (bottom - used) / 0.95
    Image.new("RGB", (1000, int(round(full * 1000 / boxes[0].width))), "#3366aa").save(tmp_path / "plot.png")
    return _head() + _rest("plot.png")


@pytest.fixture(name="made")
def _made(monkeypatch):
    """The pages WeasyPrint makes (each time it makes one)."""
    page = importlib.import_module("weasyprint.layout.page")
    made = []
    make_page = page.make_page

    def counting(*args, **kwargs):
        made.append(1)
        return make_page(*args, **kwargs)

    monkeypatch.setattr(page, "make_page", counting)
    return made


def _both(tmp_path, monkeypatch, made, text: str) -> dict:
    out = {}
    for within in (True, False):
        monkeypatch.setattr(_pdf_fit, "ENABLED", within)
        made.clear()
        document = _pdf(tmp_path, text)
        out[within] = {"pdf": document.write_pdf(), "pages": len(document.pages), "made": len(made),
                       "heights": [b.height for p in document.pages for b in _html._page_boxes(p)[2]
                                   if getattr(b, "element_tag", None) == "img"]}
    return out


def test_a_plot_fitted_within_the_layout_prints_the_same_pdf_making_fewer_pages(tmp_path, monkeypatch, made):
    text = _report_with_a_fit(tmp_path)
    out = _both(tmp_path, monkeypatch, made, text)
    # The plot was fitted (printed smaller than its full height, as laid out again), and a page saved.
    monkeypatch.setattr(_html, "_FIT_PASSES", 1)
    unfitted = _pdf(tmp_path, text)
    assert out[True]["heights"][0] < _html._page_boxes(unfitted.pages[0])[2][0].width  # drawn, not dropped
    assert out[True]["heights"] == out[False]["heights"]
    assert out[True]["heights"][1] > out[True]["heights"][0] + 2
    assert out[True]["heights"][0] < [b.height for p in unfitted.pages for b in _html._page_boxes(p)[2]
                                      if getattr(b, "element_tag", None) == "img"][0] - 2
    assert out[True]["pages"] == out[False]["pages"] == len(unfitted.pages) - 1
    # Byte for byte the PDF of laying the page out again with the height in its HTML: the contents' numbers too.
    assert out[True]["pdf"] == out[False]["pdf"]
    # Fewer pages made: the pages before the plot's are kept.
    assert out[True]["made"] < out[False]["made"], (out[True]["made"], out[False]["made"])


def test_a_report_with_nothing_to_fit_is_laid_out_once(tmp_path, monkeypatch, made):
    Image.new("RGB", (1000, 200), "#3366aa").save(tmp_path / "small.png")
    out = _both(tmp_path, monkeypatch, made, _head() + _rest("small.png"))
    assert out[True]["pdf"] == out[False]["pdf"]
    assert out[True]["made"] == out[False]["made"]


@pytest.mark.parametrize("how", ["not-installed", "fails-while-fitting"])
def test_internals_not_as_expected_lay_the_page_out_again(tmp_path, monkeypatch, how):
    text = _report_with_a_fit(tmp_path)
    monkeypatch.setattr(_pdf_fit, "ENABLED", False)
    expected = _pdf(tmp_path, text).write_pdf()
    monkeypatch.setattr(_pdf_fit, "ENABLED", None)
    if how == "not-installed":
        monkeypatch.setattr(_pdf_fit, "_install", lambda: False)
    else:
        def broken(*args):
            raise AttributeError("no page_maker")
        monkeypatch.setattr(_pdf_fit, "_apply", broken)
    rendered = []
    monkeypatch.setattr(_pdf_fit, "render", lambda *args: rendered.append(_pdf_fit_render(*args)) or rendered[-1])
    assert _pdf(tmp_path, text).write_pdf() == expected
    assert rendered == [None]


_pdf_fit_render = _pdf_fit.render


def test_the_hook_is_installed_once_and_passes_other_pages_through(tmp_path):
    layout = importlib.import_module("weasyprint.layout")
    assert _pdf_fit._install() and _pdf_fit._install()
    assert hasattr(layout.make_all_pages, "pts_fit_original")
    assert not hasattr(layout.make_all_pages.pts_fit_original, "pts_fit_original")
    # A page nobody registered (fleet.pdf printed elsewhere, a WeasyPrint user in the same process) is laid out as
    # WeasyPrint would.
    html = _html.to_html(_head() + _rest("none.png"), str(tmp_path), "t")
    assert len(_weasyprint().HTML(string=html).render().pages) >= 2
    assert not _pdf_fit._FITS
