# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The fleet view: every drive of a model overlaid on one panel per headline figure - the IOPS, throughput and
latency DVs round by round, and write saturation's IOPS against the capacity written."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _kinds
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report._plots import (
    figure_text, finish_figure, off_scale, scale_axes)

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError:  # _plots.available() says so; nothing here draws then
    pass

# Every report kind's panels, in the kinds' order.
PANELS = tuple(panel for kind in _kinds.KINDS.values() for panel in kind.fleet_panels)


def series(model: dict) -> dict:
    """Per panel, one drive's (xs, ys) from its report model, and its "hollow" points {panel: [x]}: round 1's reads
    of a drive purged just before them (the report's †), drawn apart and out of the scale; empty where the test did
    not run. Each report kind gives its own panels' (ReportKind.fleet_series)."""
    tests = model.get("tests") or {}
    out: dict = {}
    for kind in _kinds.KINDS.values():
        found = kind.fleet_series(tests)
        hollow = found.pop("hollow", None)
        out.update(found)
        if hollow:
            out.setdefault("hollow", {}).update(hollow)
    return out


def _overlay(path: str, title: str, drives: list[tuple[str, dict]], subtitle: str | None = None) -> str | None:
    present = [p for p in PANELS if any(p[0] in s for dummy, s in drives)]
    if not present:
        return None
    # Two panels a row at most: the figure stays about as wide as an A4 page's text (its labels print readable).
    columns = min(2, len(present))
    rows = -(-len(present) // columns)
    fig, grid = plt.subplots(rows, columns, figsize=(3.9 * columns + 2.0, 3.3 * rows + 0.7), layout="constrained",
                             squeeze=False)
    for spare in grid.flat[len(present):]:
        spare.set_visible(False)
    axes = [list(grid.flat[:len(present)])]
    cmap = plt.get_cmap("tab10" if len(drives) <= 10 else "viridis")
    many = len(drives) > 12
    hollow_any = False
    for ax, (key, name, xlabel, ylabel, whole_x) in zip(axes[0], present):
        values, apart = [], []
        for index, (drive_id, data) in enumerate(drives):
            if key not in data:
                continue
            xs, ys = data[key]
            skip = set((data.get("hollow") or {}).get(key) or [])
            kept = [(x, y) for x, y in zip(xs, ys) if x not in skip]
            values += [y for dummy, y in kept if y is not None]
            color = cmap(index % 10) if len(drives) <= 10 else cmap(index / max(1, len(drives) - 1))
            ax.plot([x for x, dummy in kept], [y for dummy, y in kept], color=color, linewidth=0.8 if many else 1.3,
                    marker="o" if len(xs) <= 30 and not many else None, markersize=3, alpha=0.6 if many else 0.95,
                    label=drive_id)
            apart += [(x, y, color) for x, y in zip(xs, ys) if x in skip and y is not None]
        ax.set_title(name, fontsize=9, loc="left")
        ax.set_xlabel(xlabel)
        scale_axes([ax], values, ylabel)
        # Round 1's reads of a just-purged drive (†): hollow, off the line and the scale, as in the drive report.
        for line, (x, y, color) in enumerate(sorted(apart, key=lambda p: -p[1])):
            off_scale(ax, x, y, color, f"{figure_text(y)} ↑", line)
            hollow_any = True
        ax.grid(True, which="both", alpha=0.3)
        if whole_x:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not many:
        handles, labels = axes[0][0].get_legend_handles_labels()
        for ax in axes[0][1:]:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
        if hollow_any:
            handles.append(plt.Line2D([], [], linestyle="none", marker="o", markersize=8, markerfacecolor="white",
                                      markeredgecolor="black", markeredgewidth=2))
            labels.append("round 1: reads of a purged drive\n(▲: above the axis)")
        fig.legend(handles, labels, loc="outside right center", fontsize=8, title="Drive")
    fig.suptitle(title)
    return finish_figure(fig, path, subtitle)


QUICK_FOOTER = "quick profile — not a qualification"


def by_model(records: list[dict], out_dir: str, runs: list[str] | None = None) -> dict:
    """One overlay PNG per drive model (firmware mixed: a model's drives are compared whatever their firmware);
    {model: path relative to out_dir}. A model with a quick-profile drive carries the quick-profile footer."""
    models: dict[str, list[tuple[str, dict]]] = {}
    for record in records:
        if record.get("model") and record.get("_series"):
            models.setdefault(record["model"], []).append((record["id"], record["_series"]))
    paths = {}
    for index, (model, drives) in enumerate(sorted(models.items()), 1):
        path = os.path.join(out_dir, "plots", f"model-{index:02d}.png")
        title = md.plot_label(f"Model {model}: {len(drives)} drive{'s' if len(drives) != 1 else ''}")
        quick = any(r.get("quick_profile") for r in records if r.get("model") == model)
        parts = ([QUICK_FOOTER] if quick else []) + ([md.plot_label("run " + ", ".join(runs))] if runs else [])
        footer = " · ".join(parts)
        drawn = _overlay(path, title, drives, footer or None)
        if drawn:
            paths[model] = os.path.relpath(drawn, out_dir)
    return paths
