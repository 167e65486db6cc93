# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""Small Markdown helpers shared by the report sections."""

from __future__ import annotations

DASH = "—"


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
