# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""One file to send: report.md (or fleet.md) as a self-contained HTML page - plots embedded, no script, nothing
fetched - and a PDF printed from that page with WeasyPrint: the summary alone on page 1, the contents with page
numbers, the sections flowing on from there, and a running footer naming the drive, the run and the date.

The PDF holds no path of the controller: it is printed without a base URL, so a link to a file beside the report (a
job file, a round file) stays relative to the PDF, and the contents link inside the document. The Markdown stays the
source: markdown-it-py renders it (CommonMark and GitHub tables); a missing library skips the file it makes and says
why, never failing the report."""

from __future__ import annotations

import base64
import contextlib
import gc
import html
import os
import re
import threading

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import DataError
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _pdf_fit
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _results, _safe_tree

try:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
except ImportError as exc:
    MARKDOWN_IMPORT_ERROR: ImportError | None = exc
else:
    MARKDOWN_IMPORT_ERROR = None

# WeasyPrint is imported on first use: it takes a second to load and needs Pango, which a controller may lack.
_WEASYPRINT: dict = {}

# No script, no connection: images come as data: URIs, styles inline. Drive strings are escaped in the Markdown
# already (md.text); this policy makes sure nothing in the page can run or phone home even so.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
# The header cells that make a table one of requirements (its ids and figure names kept whole where they fit).
REQUIREMENT_COLUMNS = {"Id", "Figure", "Limit"}
_VERDICT_RE = re.compile(r"^Verdict: (PASS|FAIL|INCOMPLETE)")
_STYLE = """
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; font-size: 14px; line-height: 1.45;
       color: #1a1a1a; max-width: 1100px; margin: 1.5em auto; padding: 0 1.2em; }
h1 { font-size: 1.7em; border-bottom: 2px solid #263238; padding-bottom: .2em; }
h2 { font-size: 1.35em; border-bottom: 1px solid #b0bec5; padding-bottom: .15em; margin-top: 1.8em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: .6em 0 1em; font-size: .9em; }
th, td { border: 1px solid #cfd8dc; padding: .25em .55em; vertical-align: top; }
th { background: #eceff1; }
tr:nth-child(even) td { background: #fafafa; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: .92em; background: #f3f5f7; padding: 0 .2em;
       overflow-wrap: anywhere; }
table.requirements code { overflow-wrap: break-word; }
pre { background: #f3f5f7; padding: .6em .8em; font-size: .85em; }
pre code { background: none; padding: 0; }
blockquote { margin: .8em 0; padding: .5em 1em; border-left: 5px solid #90a4ae; background: #f5f7f8; }
blockquote.verdict { font-size: 1.05em; }
blockquote.verdict-pass { border-color: #2e7d32; background: #e8f5e9; }
blockquote.verdict-fail { border-color: #c62828; background: #ffebee; }
blockquote.verdict-incomplete { border-color: #ef6c00; background: #fff3e0; }
blockquote.verdict-quick { border-color: #6a1b9a; background: #f3e5f5; }
img { max-width: 100%; height: auto; display: block; margin: .4em 0; }
figure.plot { margin: 0 0 1em; }
details { margin: .6em 0; }
summary { cursor: pointer; font-weight: bold; }
a { color: #0d47a1; }
strong.this-file { font-weight: bold; }
@media screen { table { display: block; overflow-x: auto; max-width: 100%; } pre { overflow-x: auto; } }
@media print {
  @page { size: A4; margin: 11mm 11mm 14mm 11mm;
          @bottom-left { font-family: "DejaVu Sans", sans-serif; font-size: 7pt; color: #555; }
          @bottom-right { content: "page " counter(page) " of " counter(pages); font-family: "DejaVu Sans", sans-serif;
                          font-size: 7pt; color: #555; } }
  body { font-size: 8.6pt; line-height: 1.35; max-width: none; margin: 0; padding: 0; }
  h1 { font-size: 15pt; margin: 0 0 .3em; }
  h2 { font-size: 12pt; margin-top: 1.1em; }
  h3 { font-size: 10pt; margin-top: .9em; }
  h2.page { break-before: page; margin-top: 0; }
  h2, h3 { break-after: avoid; }
  p { margin: .35em 0; }
  p.lead { break-after: avoid; }
  figure.plot { margin: 0; break-inside: avoid; }
  figcaption { margin: .35em 0; }
  table.short { break-inside: avoid; }
  summary { break-after: avoid; }
  table { font-size: 7.3pt; margin: .3em 0 .6em; }
  th, td { padding: .12em .4em; }
  thead { display: table-header-group; }
  tr, img, blockquote { break-inside: avoid; }
  img { max-height: 230mm; width: auto; margin: .2em 0; }
  pre { white-space: pre-wrap; padding: .4em .6em; }
  blockquote { margin: .4em 0; padding: .3em .8em; }
  details > summary { list-style: none; }
  /* Page 1: the summary alone, a little tighter, so it fits there. */
  p.summary, ul.summary, blockquote.summary { font-size: 8.2pt; }
  table.summary { font-size: 7pt; }
  /* The contents with page numbers, as TKperf's have them. */
  ol.toc a::after { content: leader('.') " " target-counter(attr(href url), page); }
  ol.toc li { margin: .1em 0; }
}
"""


def css_string(text: str) -> str:
    """Drive- or operator-provided text as a CSS string (for the footer): every character outside a small safe set
    escaped, so nothing in it can end the string or the style element."""
    out = []
    for char in md.plain(text):
        if (char.isascii() and char.isalnum()) or char in " .,:;_-/()+=#@·×–—":
            out.append(char)
        else:
            out.append(f"\\{ord(char):06X}")
    return '"' + "".join(out) + '"'


def markdown_available() -> str | None:
    """None when HTML can be made, else why not."""
    if MARKDOWN_IMPORT_ERROR is not None:
        return f"markdown-it-py is not installed on the controller ({MARKDOWN_IMPORT_ERROR}); pip install -r requirements.txt"
    return None


def data_urls_only(weasyprint):
    """WeasyPrint's URL fetcher for reports: the page's images are data: URLs, and nothing else may be fetched - not a
    file of the controller, not the network - whatever a drive's strings or a rebuilt report's Markdown hold.
    WeasyPrint leaves out a resource whose fetch fails, with a warning. WeasyPrint 68 and later take a URLFetcher,
    earlier releases a function."""
    if hasattr(weasyprint, "URLFetcher"):
        return weasyprint.URLFetcher(allowed_protocols=("data",), allow_redirects=False)

    def fetch(url: str, *args, **kwargs) -> dict:
        if not str(url).startswith("data:"):
            raise DataError(f"a report fetches data: URLs only, not {str(url)[:80]!r}")
        return weasyprint.default_url_fetcher(url, *args, **kwargs)
    return fetch


def _weasyprint():
    if "module" not in _WEASYPRINT:
        try:
            import weasyprint  # pylint: disable=import-outside-toplevel
        except (ImportError, OSError) as exc:  # OSError: the library is there, Pango is not
            _WEASYPRINT.update(module=None, error=f"WeasyPrint is not usable on the controller ({exc}); "
                                                  "pip install -r requirements.txt and the Pango library (scripts/deps.sh)")
        else:
            _WEASYPRINT.update(module=weasyprint, error=None)
    return _WEASYPRINT["module"]


def pdf_available() -> str | None:
    """None when a PDF can be made, else why not."""
    if markdown_available():
        return "no HTML to print: " + markdown_available()
    _weasyprint()
    return _WEASYPRINT["error"]


def not_produced(formats: tuple[str, ...] = ("html", "pdf")) -> dict:
    """Per output asked for (report.html, report.pdf), why it will not be made on this controller; empty when all
    will. WeasyPrint is loaded only when a PDF is asked for."""
    out = {}
    if "html" in formats and markdown_available():
        out["html"] = markdown_available()
    if "pdf" in formats and pdf_available():
        out["pdf"] = pdf_available()
    return out


def _heading_text(inline) -> str:
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def _data_uri(base_dir: str, src: str) -> str | None:
    path = os.path.normpath(os.path.join(base_dir, src))
    if src.startswith(("data:", "http:", "https:", "/")) or not path.startswith(os.path.normpath(base_dir) + os.sep):
        return None  # only the report's own plots, from its own directory
    try:
        data = _safe_tree.read_bytes(path, _safe_tree.MAX_IMAGE_BYTES)
    except (OSError, ValueError):
        return None  # a plot that is not there, a link or a FIFO in its place, or one too large: not embedded
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _exists(path: str) -> bool:
    try:
        return _safe_tree.isfile(path)
    except OSError:
        return False  # a level that is a link, or not a directory: no page to link to


def _mark_verdict(tokens, index: int) -> None:
    """The summary's verdict box gets a colour by verdict (and its own for a quick profile)."""
    inline = tokens[index + 2] if index + 2 < len(tokens) else None
    if inline is None or inline.type != "inline":
        return
    found = _VERDICT_RE.match(_heading_text(inline))
    if found:
        kind = "quick" if "quick profile" in inline.content else found.group(1).lower()
        tokens[index].attrSet("class", f"verdict verdict-{kind}")


_SUMMARY_BLOCKS = ("paragraph_open", "table_open", "bullet_list_open", "blockquote_open")


def _this_file(children: list, index: int) -> None:
    """The link at ``index`` points at the page itself (report.html in report.html): bold text, no link."""
    children[index].tag, children[index].attrs = "strong", {"class": "this-file"}
    depth = 0
    for later in range(index + 1, len(children)):
        token = children[later]
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            if depth == 0:
                token.tag = "strong"
                note = Token("text", "", 0)
                note.content = " (this file)"
                children.insert(later + 1, note)
                return
            depth -= 1


def _is_image_paragraph(tokens, index: int) -> bool:
    inline = tokens[index + 1] if index + 1 < len(tokens) else None
    children = [c for c in (inline.children or []) if c.type != "softbreak"] if inline is not None else []
    return bool(children) and all(c.type == "image" or (c.type == "text" and not c.content.strip())
                                  for c in children)


def _is_caption(tokens, index: int) -> bool:
    """A paragraph all in italics (*...*) right after an image paragraph: the plot's caption."""
    inline = tokens[index + 1] if index + 1 < len(tokens) else None
    children = inline.children or [] if inline is not None else []
    return bool(children) and children[0].type == "em_open" and children[-1].type == "em_close" and \
        index >= 3 and tokens[index - 3].type == "paragraph_open" and _is_image_paragraph(tokens, index - 3)


def _table_rows(tokens, index: int) -> int:
    """The body rows of the table opening at ``index``."""
    rows, depth = 0, 0
    for token in tokens[index:]:
        if token.type == "tbody_open":
            depth += 1
        elif token.type == "tbody_close":
            break
        elif token.type == "tr_open" and depth:
            rows += 1
    return rows


def _table_header(tokens, index: int) -> list[str]:
    """The header cells' text of the table opening at ``index``."""
    cells = []
    for position, token in enumerate(tokens[index:], index):
        if token.type == "thead_close":
            break
        if token.type == "th_open":
            cells.append(tokens[position + 1].content if tokens[position + 1].type == "inline" else "")
    return cells


def _leads(tokens, index: int) -> bool:
    """A paragraph that leads into what follows it - a table, a plot, a collapsed table (<details>), or anything
    after a closing colon - and is printed on its page."""
    if index + 3 >= len(tokens) or _is_image_paragraph(tokens, index):
        return False
    following = tokens[index + 3]
    if following.type == "table_open" or following.type == "html_block" and following.content.startswith("<details"):
        return True
    if following.type == "paragraph_open" and _is_image_paragraph(tokens, index + 3):
        return True
    return following.type != "heading_open" and tokens[index + 1].content.rstrip().endswith(":")


def _figures(tokens: list) -> list:
    """Each plot with its caption (an image paragraph, then an all-italic paragraph) as one <figure> with its
    <figcaption>: printed together, never split by a page break."""
    out: list = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "paragraph_open" and index + 5 < len(tokens) and _is_image_paragraph(tokens, index) and \
                tokens[index + 3].type == "paragraph_open" and _is_caption(tokens, index + 3):
            token.tag = "figure"
            token.attrSet("class", "plot")
            tokens[index + 2].hidden = True  # the image paragraph's end: the figure ends after its caption
            tokens[index + 3].tag = tokens[index + 5].tag = "figcaption"
            tokens[index + 3].attrSet("class", "caption")
            closing = Token("html_block", "", 0)
            closing.content = "</figure>\n"
            out += tokens[index:index + 6] + [closing]
            index += 6
            continue
        out.append(token)
        index += 1
    return out


# A table this short is kept on one page (its rows are not worth a split); a longer one splits, its head repeated.
SHORT_TABLE_ROWS = 25


def to_html(text: str, base_dir: str, title: str, self_name: str | None = None, footer: str | None = None,
            page_breaks: tuple[str, ...] = (), image_heights: dict | None = None, embedded: dict | None = None) -> str:
    """Markdown to a self-contained page: heading ids as GitHub makes them, plots as data: URIs, links to a
    sibling report.md / fleet.md pointed at its .html when that exists. ``self_name``: the file this page becomes
    (a link to it is shown as bold text). For print: ``footer`` on every page, a page break before each heading
    whose id is in ``page_breaks``, the list after a "Contents" heading with page numbers, and the blocks between a
    "Summary" heading and the next one marked to print a little tighter (they fill page 1). Each plot is numbered
    (``data-fig``, in order); ``image_heights`` ({number: CSS px}) prints those smaller (fit_images). A plot's caption
    stays with it, a short table on one page, a paragraph that leads into a table or a plot with what it leads into.
    ``embedded``: a dict that gets each plot's data: URI by its number instead of the page (the PDF's page, which
    puts them into the parsed page: its parser would read every character of them)."""
    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    tokens = _figures(parser.parse(text))
    seen: dict = {}
    section = ""
    toc_pending = False
    figure = 0
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            slug = md.anchor(_heading_text(tokens[index + 1]))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            token.attrSet("id", slug if not count else f"{slug}-{count}")
            if token.tag == "h2":
                section = slug
                toc_pending = slug == "contents"
                if slug in page_breaks:
                    token.attrSet("class", "page")
        elif token.type == "ordered_list_open" and toc_pending:
            token.attrSet("class", "toc")
            toc_pending = False
        elif token.type == "blockquote_open":
            _mark_verdict(tokens, index)
        elif token.type == "paragraph_open" and token.tag == "p" and _leads(tokens, index):
            token.attrSet("class", "lead")  # "Tests run, in order:" stays with its table, an intro with its plot
        elif token.type == "table_open":
            classes = ["short"] if _table_rows(tokens, index) <= SHORT_TABLE_ROWS else []
            # A table of requirements (the Acceptance section, the fleet's Requirements): an id or a figure's name is
            # broken only where it must be, not anywhere a long reason or list of files would squeeze its column to.
            if REQUIREMENT_COLUMNS <= set(_table_header(tokens, index)):
                classes.append("requirements")
            if classes:
                token.attrSet("class", " ".join(classes))
        if section == "summary" and token.type in _SUMMARY_BLOCKS and token.attrGet("class") in (None, "lead", "short"):
            token.attrSet("class", f"{token.attrGet('class') or ''} summary".strip())
        if token.type == "inline":
            children = token.children or []
            for position, child in enumerate(list(children)):
                if child.type == "image":
                    uri = _data_uri(base_dir, str(child.attrGet("src") or ""))
                    figure += 1
                    if uri and embedded is not None:
                        embedded[figure] = uri
                    elif uri:
                        child.attrSet("src", uri)
                    child.attrSet("data-fig", str(figure))
                    if figure in (image_heights or {}):
                        child.attrSet("style", f"max-height: {image_heights[figure]:.0f}px")
                elif child.type == "link_open":
                    href = str(child.attrGet("href") or "")
                    own_source = bool(self_name) and href == os.path.splitext(str(self_name))[0] + ".md"
                    if href.endswith(".md") and not own_source and \
                            _exists(os.path.normpath(os.path.join(base_dir, href[:-3] + ".html"))):
                        child.attrSet("href", href[:-3] + ".html")
                        href = href[:-3] + ".html"
                    if self_name and href == self_name:
                        _this_file(children, children.index(child))
    body = parser.renderer.render(tokens, parser.options, {})
    variables = (f"<style>@media print {{ @page {{ @bottom-left {{ content: {css_string(footer)}; }} }} }}</style>\n"
                 if footer else "")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(md.plain(title))}</title>\n<style>{_STYLE}</style>\n{variables}</head>\n<body>\n"
            f"{body}</body>\n</html>\n")


# A plot that does not fit the rest of a page moves to the next one and leaves the rest blank; printed down to this
# share of its size it stays where it is instead. Smaller, its text would read smaller than the other plots'.
FIT_SHARE = 0.85
# A plot with more than this share of a page above it on its new page (text that flowed there) is not pulled back.
_FIT_ABOVE_SHARE = 0.25
_FIT_PASSES = 3


def _boxes(box, parents: dict):
    yield box
    for child in getattr(box, "children", None) or []:
        parents[id(child)] = box
        yield from _boxes(child, parents)


def _root_boxes(root, parents: dict | None = None) -> tuple[float, float, list]:
    """A page box's content area (top, bottom, CSS px) and its boxes in document order (``parents`` gets each box's
    parent box by id)."""
    top = root.content_box_y()
    return top, top + root.height, list(_boxes(root, {} if parents is None else parents))


def _page_boxes(page, parents: dict | None = None) -> tuple[float, float, list]:
    """_root_boxes of a laid-out page: WeasyPrint keeps its layout in ``Page._page_box`` (private, but the same from
    WeasyPrint 53 to 70; fit_images checks for it)."""
    return _root_boxes(page._page_box, parents)  # pylint: disable=protected-access


def _bottom(box) -> float:
    return box.position_y + box.margin_height()


def _fits(roots: list, share: float = FIT_SHARE) -> dict:
    """The plots to print smaller so they stay on the page before: the first plot of a page, with at most a little
    kept with it above (a heading, the paragraph that leads into it) and its caption below, that would fit the blank
    end of the page before at ``share`` of its size or more. ``roots``: the page boxes, in order. {plot number
    (data-fig): CSS px}."""
    found = {}
    parents: dict = {}
    pages = [_root_boxes(root, parents) for root in roots]
    for index in range(1, len(pages)):
        top, bottom, boxes = pages[index]
        images = [b for b in boxes if getattr(b, "element_tag", None) == "img" and b.element.get("data-fig")]
        if not images:
            continue
        image = images[0]
        # The paragraph the plot stands in, and the caption after it (its next block).
        block = parents.get(id(image))
        while block is not None and getattr(block, "element_tag", None) not in ("p", "figure"):
            block = parents.get(id(block))
        if block is None:
            continue
        forced = any(getattr(b, "element_tag", None) == "h2" and "page" in (b.element.get("class") or "").split()
                     and b.position_y <= block.position_y for b in boxes)
        above = block.position_y - top
        if forced or above > _FIT_ABOVE_SHARE * (bottom - top):
            continue
        end = _bottom(block)  # a figure ends under its caption
        previous_top, previous_bottom, previous = pages[index - 1]
        used = max((_bottom(b) for b in previous if getattr(b, "element_tag", None) not in (None, "html", "body")
                    and getattr(b, "position_y", None) is not None), default=previous_top)
        excess = (end - top) - (previous_bottom - used) + 4
        if 0 < excess <= (1 - share) * image.height:
            found[int(image.element.get("data-fig"))] = image.height - excess
    return found


# WeasyPrint's layout of a report is about half a million objects that refer to each other (boxes and their styles),
# so only the cyclic garbage collector frees it. While it is made, the collector's full collections - every tracked
# object of the process, each time the old generation has grown by a quarter - came eight times in the demo's
# report of 22 pages and took a sixth of its PDF's time (a fifth where the process had frozen nothing), to free
# little: the layout is still in use. So while a PDF is made the young generations are collected as usual and the
# old one only where a layout is let go (between fit passes); the next full collection after it, or the end of the
# report's child process, frees the last one.
_NO_FULL_COLLECTION = 1_000_000
_COLLECTOR = {"lock": threading.Lock(), "depth": 0, "threshold": (700, 10, 10)}


@contextlib.contextmanager
def _young_collections_only():
    """Within the block, no automatic full collection (nested or in several threads, the first in sets the
    threshold and the last out puts it back)."""
    with _COLLECTOR["lock"]:
        if not _COLLECTOR["depth"]:
            _COLLECTOR["threshold"] = gc.get_threshold()
            gc.set_threshold(*_COLLECTOR["threshold"][:2], _NO_FULL_COLLECTION)
        _COLLECTOR["depth"] += 1
    try:
        yield
    finally:
        with _COLLECTOR["lock"]:
            _COLLECTOR["depth"] -= 1
            if not _COLLECTOR["depth"]:
                gc.set_threshold(*_COLLECTOR["threshold"])


def fit_images(weasyprint, page, set_heights) -> object:
    """Lay out ``page`` (WeasyPrint's parsed HTML) so that no plot leaves a page half blank that it would fit at
    FIT_SHARE of its size: plots found so (_fits) are shrunk to the room left, up to _FIT_PASSES - 1 times. Within
    the one layout where WeasyPrint allows it (_pdf_fit: only the pages that change are made again); else
    ``set_heights({plot number: CSS px})`` prints them so in ``page``, and the page is laid out again, each pass the
    same parsed page with the same images (decoded once). Returns WeasyPrint's document."""
    options = {"cache": {}} if "cache" in getattr(weasyprint, "DEFAULT_OPTIONS", {}) else {}
    document = _pdf_fit.render(page, _fits, _FIT_PASSES - 1, options)
    if document is not None:
        return document
    heights: dict = {}
    for dummy in range(_FIT_PASSES):
        # The last pass's layout is let go before the next is made: two at once would double a report's peak.
        if document is not None:
            document = None
            gc.collect()  # a layout is freed by a full collection only (see _young_collections_only)
        document = page.render(**options)
        if not all(hasattr(p, "_page_box") for p in document.pages):
            return document  # a WeasyPrint that keeps its layout elsewhere: printed as laid out
        more = _fits([p._page_box for p in document.pages])  # pylint: disable=protected-access
        if not more:
            break
        heights.update(more)
        set_heights(heights)
    return document


def pdf_document(weasyprint, text: str, base_dir: str, title: str, self_name: str | None = None,
                 footer: str | None = None, page_breaks: tuple[str, ...] = ()):
    """The PDF's document of the Markdown ``text`` (see to_html), its plots fitted (fit_images). The page is parsed
    once, without its plots; each plot's data: URI is then put into the parsed page (the same page as one parsed with
    them, with none of their characters read by the parser), and each pass's heights too."""
    embedded: dict = {}
    html = to_html(text, base_dir, title, self_name, footer, page_breaks, embedded=embedded)
    # No base URL: the images are in the page already, and a link to a file beside the report stays relative (with
    # one, WeasyPrint would write file:///<the controller's path> into the PDF).
    page = weasyprint.HTML(string=html, base_url=None, url_fetcher=data_urls_only(weasyprint))
    figures = {int(element.get("data-fig")): element for element in page.etree_element.iter("img")
               if str(element.get("data-fig") or "").isdigit()}
    for number, uri in embedded.items():
        figures[number].set("src", uri)

    def set_heights(heights: dict) -> None:
        for number, height in heights.items():
            figures[number].set("style", f"max-height: {height:.0f}px")
    return fit_images(weasyprint, page, set_heights)


def write(markdown_path: str, title: str, pdf: bool = True, footer: str | None = None,
          page_breaks: tuple[str, ...] = (), html: bool = True) -> dict:
    """report.html and report.pdf (fleet.html, fleet.pdf) beside ``markdown_path``; per output its path, or why it
    was not made. Never raises for a missing or failing library: the Markdown is the report. ``footer`` and
    ``page_breaks``: see to_html; ``html`` False prints the PDF without writing the HTML page."""
    stem = os.path.splitext(markdown_path)[0]
    base_dir = os.path.dirname(markdown_path)
    written: dict = {"html": None, "pdf": None, "not_produced": {}}
    reason = markdown_available()
    if reason:
        written["not_produced"] = {"html": reason, "pdf": "no HTML to print: " + reason}
        return written
    text = _safe_tree.read_text(markdown_path)
    name = os.path.basename(stem)
    if html:
        _results.atomic_write_text(stem + ".html", to_html(text, base_dir, title, f"{name}.html", footer, page_breaks))
        written["html"] = stem + ".html"
    if not pdf:
        return written
    weasyprint = _weasyprint()
    if weasyprint is None:
        written["not_produced"]["pdf"] = _WEASYPRINT["error"]
        return written
    try:
        with _young_collections_only():
            document = pdf_document(weasyprint, text, base_dir, title, f"{name}.pdf", footer, page_breaks).write_pdf()
    except Exception as exc:  # pylint: disable=broad-exception-caught  # any failure of the engine: no PDF, say why
        written["not_produced"]["pdf"] = f"WeasyPrint failed: {type(exc).__name__}: {exc}"
        return written
    _results.atomic_write_bytes(stem + ".pdf", document)
    written["pdf"] = stem + ".pdf"
    return written
