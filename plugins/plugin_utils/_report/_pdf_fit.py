# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Plots fitted within one WeasyPrint layout: the pages a shrunk plot changes are made again, not the document.

Laying a report out a second time with its fitted plots (the page parsed, every style computed, every box built and
every page made again) doubled the PDF's time. WeasyPrint already makes pages again where a page-based counter
changed: each page's starting state is kept (``context.page_maker``), a page flagged ``content_changed`` is made again,
and so is the next one for as long as its starting state differs; the rest are kept. This hooks its page-making
step (``weasyprint.layout.make_all_pages``, the same from WeasyPrint 62 to 70) for a page registered here: once its
pages are made and settled, the plots found to fit (``find``) get a style of their own with that max-height, the page
before each is flagged, and WeasyPrint's own loop makes them again; the pages holding page numbers of targets (the
contents) are then flagged too, as the targets may have moved. The result is the same PDF, byte for byte, as laying
the page out again with the heights in its HTML (tests/unit/.../test__pdf_fit.py). Internals it does not find as
expected make ``render`` return None, and the caller lays the page out again instead."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

# Set by the tests to compare with laying the page out again; None: use the hook where it installs.
ENABLED: bool | None = None

_FITS: dict[int, _Fit] = {}
_LOCK = threading.Lock()


class _Fit:
    """One page's fitting: what finds plots to fit, how many fit passes are left, what went wrong."""

    def __init__(self, find: Callable[[list], dict], passes: int):
        self.find = find
        self.passes = passes
        self.heights: dict = {}
        self.refresh = False
        self.settled = True
        self.failed: str | None = None


def _boxes(box):
    yield box
    for child in getattr(box, "children", None) or []:
        yield from _boxes(child)


def _figure(box) -> int | None:
    element = getattr(box, "element", None)
    if getattr(box, "element_tag", None) != "img" or element is None:
        return None
    number = str(element.get("data-fig") or "")
    return int(number) if number.isdigit() else None


def _apply(fit: _Fit, context, root_box, pages: list, more: dict) -> None:
    """Print each plot of ``more`` ({plot number: CSS px}) at most that high and flag the page before the one it is
    on: every img of a report shares one computed style, so the plot's box gets a copy of its own."""
    dimension = importlib.import_module("weasyprint.css.properties").Dimension
    first_page: dict = {}
    for index, page in enumerate(pages):
        for box in _boxes(page):
            number = _figure(box)
            if number is not None:
                first_page.setdefault(number, index)
    for box in _boxes(root_box):
        number = _figure(box)
        if number in more:
            box.style = box.style.copy()
            # As the HTML's "max-height: <n>px" computes (_html.pdf_document's heights).
            box.style["max_height"] = dimension(float(f"{more[number]:.0f}"), "px")
    for number in more:
        context.page_maker[max(first_page[number] - 1, 0)][-1]["content_changed"] = True
    fit.heights.update(more)
    fit.passes -= 1
    fit.refresh = True


def _refresh_targets(context) -> None:
    """Flag every page whose content shows a page-based counter (the contents' target-counter), its content parsed
    again with the targets' pages as they are now: WeasyPrint flags them only while a target is first placed."""
    for (dummy, token), item in context.target_collector.counter_lookup_items.items():
        if token == "content" and item.page_maker_index is not None and item.page_maker_index < len(context.page_maker):
            item.parse_again(item.cached_page_counter_values)
            context.page_maker[item.page_maker_index][-1]["content_changed"] = True


def _settled(context) -> bool:
    return not any(item[-1]["content_changed"] or item[-1]["pages_wanted"] for item in context.page_maker)


def _hooked(original):
    def make_all_pages(context, root_box, html, pages):
        made = list(original(context, root_box, html, pages))
        fit = _FITS.get(id(html))
        if fit is not None and fit.failed is None:
            try:
                if fit.refresh:
                    fit.refresh = False
                    _refresh_targets(context)
                elif fit.passes > 0 and _settled(context):
                    more = fit.find(made)
                    if more:
                        _apply(fit, context, root_box, made, more)
                # WeasyPrint stops after its last repagination loop even if pages are still flagged.
                fit.settled = _settled(context)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
                fit.failed = f"{type(exc).__name__}: {exc}"
        yield from made
    make_all_pages.pts_fit_original = original
    return make_all_pages


def _install() -> bool:
    """Hook the page-making step once; False where WeasyPrint's layout is not as expected."""
    try:
        layout = importlib.import_module("weasyprint.layout")
        page = importlib.import_module("weasyprint.layout.page")
    except ImportError:
        return False
    with _LOCK:
        current = getattr(layout, "make_all_pages", None)
        if current is None or getattr(page, "make_all_pages", None) is None:
            return False
        if not hasattr(current, "pts_fit_original"):
            layout.make_all_pages = _hooked(current)
    return True


def render(page, find: Callable[[list], dict], passes: int, options: dict):
    """WeasyPrint's document of ``page`` (its parsed HTML), the plots ``find`` names in its laid-out page boxes
    ({plot number: CSS px}) fitted within the layout, up to ``passes`` times; None where the hook is off or failed
    (lay it out again then)."""
    if ENABLED is False or not _install():
        return None
    fit = _Fit(find, passes)
    with _LOCK:
        _FITS[id(page)] = fit
    try:
        document = page.render(**options)
    finally:
        with _LOCK:
            del _FITS[id(page)]
    return None if fit.failed or not fit.settled else document
