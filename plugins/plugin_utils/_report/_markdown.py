# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Small Markdown helpers shared by the report sections."""

from __future__ import annotations

import re

from ansible_collections.fleetqual.pts.plugins.plugin_utils._progress import plain

DASH = "—"

# Markdown that would change how the text reads: HTML, code spans, links, emphasis, table cell edges.
_MARKUP = {"\\": "\\\\", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]", "|": "\\|", "<": "&lt;", ">": "&gt;",
           "&": "&amp;"}
_MARKUP_RE = re.compile("|".join(re.escape(k) for k in _MARKUP) + r"|(?<!\w)_|_(?!\w)")


def day(iso: str | None) -> str:
    """The date of an ISO time (its first ten characters), a dash when there is none."""
    return (iso or "")[:10] or DASH


def plot_label(value: object) -> str:
    """Untrusted text for a plot title: plain, and $ escaped, which matplotlib would otherwise read as math."""
    return plain(value).replace("$", "\\$")


def text(value: object) -> str:
    """Drive-, host- or operator-provided text for Markdown (table cells, list items, headings): shown as written,
    never as markup - a | cannot shift a table's columns, <...> is no HTML, [x](y) no link."""
    if value is None:
        return DASH
    return _MARKUP_RE.sub(lambda m: _MARKUP.get(m.group(0), "\\_"), plain(value))


def code(value: object) -> str:
    """Untrusted text as an inline code span (a path, a device): a fence longer than any backtick run inside, and
    | escaped, which GitHub's tables require even inside code."""
    if value is None:
        return DASH
    body = plain(value).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def code_block(lines: list[str]) -> list[str]:
    """Untrusted lines (a tool's stderr) as a fenced block no line can close early."""
    body = [plain(line) for line in lines]
    longest = max((len(run) for line in body for run in re.findall(r"`{3,}", line)), default=2)
    fence = "`" * (longest + 1)
    return [fence, *body, fence]


def anchor(title: str) -> str:
    """A heading's anchor as GitHub makes it (lower case, punctuation dropped, spaces to hyphens); report.html gives
    its headings the same ids, so the contents links work in both."""
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def plural(count: int, word: str) -> str:
    """1 thread, 2 threads."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def fmt(value, digits: int = 1) -> str:
    """A figure for a table: thousands separators, fixed decimals, a dash for nothing measured."""
    if value is None:
        return DASH
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def mix(value: int) -> str:
    return f"{value}/{100 - value}"


def table(headers: list[str], rows: list[list[str]], numeric: bool = True) -> list[str]:
    """A Markdown table; the first column left-aligned, the others right-aligned when numeric."""
    align = ["---"] + ["---:" if numeric else "---"] * (len(headers) - 1)
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def grid(result_table: dict, row_labels: list[str], columns: list[int], digits: int) -> list[str]:
    """A block size x R/W mix table, TKperf's layout (block sizes down, mixes across)."""
    headers = ["Block size ↓ / R/W mix % →"] + [mix(m) for m in columns]
    rows = [[f"**{label}**"] + [fmt(result_table[label].get(str(m)), digits) for m in columns] for label in row_labels]
    return table(headers, rows)


def image(path: str, caption: str) -> list[str]:
    """A plot with its caption; the caption is escaped here (it may hold a model name)."""
    caption = text(caption)
    return [f"![{caption.split(':', maxsplit=1)[0]}]({path})", "", f"*{caption}*", ""]


def validation_table(verdict: dict, unit: str, scale: float, digits: int, max_rounds, steady_round,
                     rounds_run: int) -> list[str]:
    """OakGate's Steady State Validation Table for one DV."""
    data_pct = verdict.get("data_excursion_pct")
    slope_pct = verdict.get("slope_excursion_pct")

    def scaled(value):
        return None if value is None else value / scale

    slope = verdict.get("slope")
    if slope is None:
        fit = DASH
    else:
        sign = "−" if slope < 0 else "+"
        fit = f"{fmt(scaled(verdict['intercept']), digits)} {sign} {fmt(abs(scaled(slope)), digits)} × round"
    return table(["Item", "Value", "Allowed"], numeric=False, rows=[
        ["Measurement window", f"rounds {', '.join(str(r) for r in verdict['rounds'])}", f"{verdict['window']} rounds"],
        [f"Window values ({unit})", ", ".join(fmt(scaled(v), digits) for v in verdict["values"]), DASH],
        ["Window average", f"{fmt(scaled(verdict.get('average')), digits)} {unit}" if verdict.get("average") is not None
         else DASH, DASH],
        ["Data excursion (max − min)",
         f"{fmt(scaled(verdict.get('data_excursion')), digits)} {unit} = {fmt(data_pct, 2)} %" if data_pct is not None
         else verdict["reason"], f"≤ {verdict['max_data_excursion_pct']:g} % of average"],
        ["Slope excursion (best fit across window)",
         f"{fmt(scaled(verdict.get('slope_excursion')), digits)} {unit} = {fmt(slope_pct, 2)} %" if slope_pct is not None
         else DASH, f"≤ {verdict['max_slope_excursion_pct']:g} % of average"],
        [f"Best-fit line ({unit})", fit, DASH],
        ["Steady state reached at", f"round {steady_round}" if steady_round else "not reached", DASH],
        ["Rounds run", str(rounds_run), f"≤ {max_rounds}"],
    ])
