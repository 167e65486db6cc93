# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The comparison's plots (matplotlib, Agg): per drive model, each drive's headline figure on both sides with the
medians and the tolerance band; the DVs round by round, baseline and candidate overlaid; and the compared drives'
history, figure by figure, run by run."""

from __future__ import annotations

import os

from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures, _result_files, _results
from ansible_collections.fleetqual.pts.plugins.plugin_utils._fleet import _fleet_plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _plots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _markdown as md

try:
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator
except ImportError:  # _plots.available() says so; nothing here draws then
    pass

SIDE_COLORS = {"baseline": "#1f77b4", "candidate": "#d62728"}
VERDICT_COLORS = {"REGRESSION": "#c62828", "IMPROVEMENT": "#2e7d32", "SAME": "#555555", "NOT COMPARED": "#999999"}
# The per-round overlay draws at most this many drives a side (the first ones); the figures plot draws every drive.
MAX_SERIES = 40


def available() -> bool:
    return _plots.available()


def import_error() -> str:
    return str(_plots.MATPLOTLIB_IMPORT_ERROR)


def _grid(count: int, width: float, height: float, min_width: float = 6.4):
    columns = min(3, count)
    rows = -(-count // columns)
    fig, grid = plt.subplots(rows, columns, figsize=(max(min_width, width * columns + 1.2), height * rows + 0.8),
                             layout="constrained", squeeze=False)
    for spare in grid.flat[count:]:
        spare.set_visible(False)
    return fig, list(grid.flat[:count])


def figures(path: str, title: str, rows: list[dict]) -> str | None:
    """One panel per figure measured on either side: every drive's value (baseline left, candidate right), each
    side's median as a bar, and the tolerance band around the baseline median."""
    shown = [r for r in rows if r["baseline"]["n"] or r["candidate"]["n"]]
    if not shown:
        return None
    fig, axes = _grid(len(shown), 3.4, 3.9)
    for ax, row in zip(axes, shown):
        values = []
        for x, side in enumerate(("baseline", "candidate")):
            drives = row[side]["drives"]
            jitter = [((i % 7) - 3) * 0.04 for i in range(len(drives))]
            ys = [d["value"] for d in drives]
            values += ys
            if row[side]["median"] is not None:
                ax.hlines(row[side]["median"], x - 0.3, x + 0.3, color=SIDE_COLORS[side], linewidth=2.2, alpha=0.6,
                          zorder=3)
            ax.scatter([x + j for j in jitter], ys, s=30, color=SIDE_COLORS[side], zorder=4, linewidths=1.2,
                       edgecolors=["none" if d["steady"] else "black" for d in drives])
        base = row["baseline"]["median"]
        if base is not None:
            low, high = base * (1 - row["tolerance_pct"] / 100), base * (1 + row["tolerance_pct"] / 100)
            ax.axhspan(low, high, color="#9e9e9e", alpha=0.22, zorder=1)
            values += [low, high]
        _plots.scale_axes([ax], values, row["unit"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_xticks([0, 1], ["baseline", "candidate"])
        delta = "" if row["delta_pct"] is None else f"Δ {row['delta_pct']:+.1f} %  "
        ax.set_title(f"{row['short']}\n{delta}{row['verdict']}", fontsize=9,
                     color=VERDICT_COLORS.get(row["verdict"], "black"))
        ax.grid(True, axis="y", alpha=0.3)
    legend = [Line2D([], [], color=SIDE_COLORS["baseline"], marker="o", linestyle="-", label="baseline: drive, median"),
              Line2D([], [], color=SIDE_COLORS["candidate"], marker="o", linestyle="-", label="candidate: drive, median"),
              Patch(color="#9e9e9e", alpha=0.4, label="tolerance around the baseline median"),
              Line2D([], [], color="white", marker="o", markeredgecolor="black", linestyle="none",
                     label="black edge: window not steady")]
    fig.legend(handles=legend, loc="outside lower center", ncols=2, fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _plots.finish_figure(fig, path, None)


def _series(root: str, drive_dirs: list[str]) -> list[dict]:
    out = []
    for relative in drive_dirs[:MAX_SERIES]:
        path = os.path.join(root, relative, "result.json")
        try:
            model = _result_files.check_result(_results.read_json(path), path)
        except (OSError, ValueError):
            continue  # the results tree is gone, moved or not what the report wrote: the figures plot still stands
        data = _fleet_plots.series(model)
        if data:
            out.append(data)
    return out


def rounds(path: str, title: str, sides: dict) -> str | None:
    """The DVs round by round (IOPS, throughput, latency, write saturation) of every drive, baseline and candidate
    overlaid, one colour a side."""
    present = [p for p in _fleet_plots.PANELS if any(p[0] in s for series in sides.values() for s in series)]
    if not present:
        return None
    fig, axes = _grid(len(present), 4.2, 3.5)
    for ax, (key, name, xlabel, ylabel, whole_x) in zip(axes, present):
        values = []
        for side, series in sides.items():
            for data in series:
                if key in data:
                    xs, ys = data[key]
                    values += [y for y in ys if y is not None]
                    ax.plot(xs, ys, color=SIDE_COLORS[side], linewidth=1.1, alpha=0.75,
                            marker="o" if len(xs) <= 30 else None, markersize=3)
        ax.set_title(name, fontsize=9, loc="left")
        ax.set_xlabel(xlabel)
        _plots.scale_axes([ax], values, ylabel)
        ax.grid(True, which="both", alpha=0.3)
        if whole_x:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    legend = [Line2D([], [], color=SIDE_COLORS[s], label=f"{s} ({len(v)} drive{'s' if len(v) != 1 else ''})")
              for s, v in sides.items()]
    fig.legend(handles=legend, loc="outside right center", fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _plots.finish_figure(fig, path, None)


def history(path: str, title: str, entries: list[dict]) -> str | None:
    """Per figure, each drive's value run by run (oldest first, the run ids on the x axis), one line per serial."""
    runs: list[str] = []
    for entry in entries:
        for run in entry["runs"]:
            if run["run"] not in runs:
                runs.append(run["run"])
    started = {}
    for entry in entries:
        for run in entry["runs"]:
            started[run["run"]] = min(started.get(run["run"], "~"), run.get("run_time") or "")
    runs.sort(key=lambda r: (started[r], r))
    figures_shown = [f for f in _headline_figures.FIGURES
                     if any(e["figures"].get(f) is not None for x in entries for e in x["runs"])]
    if not figures_shown or len(runs) < 2:
        return None
    labels = []
    for run in runs:  # the run id, and its firmware when its drives here share one
        versions = {e.get("firmware") for x in entries for e in x["runs"] if e["run"] == run}
        labels.append(md.plot_label(run) + (f"\nfw {md.plot_label(versions.pop())}" if len(versions) == 1
                                            and None not in versions else ""))
    fig, axes = _grid(len(figures_shown), 3.8, 3.6)
    cmap = plt.get_cmap("tab10")
    for ax, figure in zip(axes, figures_shown):
        values = []
        for index, entry in enumerate(entries):
            points = [(runs.index(e["run"]), e["figures"].get(figure)) for e in entry["runs"]
                      if e["figures"].get(figure) is not None]
            if points:
                values += [y for dummy, y in points]
                ax.plot([x for x, dummy in points], [y for dummy, y in points], marker="o", markersize=4,
                        color=cmap(index % 10), label=md.plot_label(entry["serial"]))
        spec = _headline_figures.FIGURES[figure]
        ax.set_title(spec["short"], fontsize=9, loc="left")
        _plots.scale_axes([ax], values, spec["unit"])
        ax.set_xticks(range(len(runs)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_xlim(-0.4, len(runs) - 0.6)
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    if len(labels) <= 12:
        fig.legend(handles, labels, loc="outside right center", fontsize=8, title="Serial")
    fig.suptitle(title, fontsize=10)
    return _plots.finish_figure(fig, path, None)


def draw(result: dict, out_dir: str, root: str | None) -> dict:
    """Every plot of a comparison; {model: {"figures": path, "rounds": path}, "_history": path}, paths relative to
    ``out_dir``."""
    out: dict = {}
    for index, group in enumerate(result["groups"], 1):
        mine: dict = {}
        title = md.plot_label(f"Model {group['model']}") + "\n" + md.plot_label(
            f"baseline {result['baseline']['label']} vs candidate {result['candidate']['label']}")
        drawn = figures(os.path.join(out_dir, "plots", f"figures-{index:02d}.png"), title, group["figures"])
        if drawn:
            mine["figures"] = os.path.relpath(drawn, out_dir)
        if root:
            sides = {}
            for side in ("baseline", "candidate"):
                dirs: list[str] = []
                for row in group["figures"]:
                    for drive in row[side]["drives"]:
                        for drive_dir in drive.get("dirs") or []:
                            if drive_dir not in dirs:
                                dirs.append(drive_dir)
                sides[side] = _series(root, dirs)
            drawn = rounds(os.path.join(out_dir, "plots", f"rounds-{index:02d}.png"), title, sides)
            if drawn:
                mine["rounds"] = os.path.relpath(drawn, out_dir)
        out[group["model"]] = mine
    if result.get("history"):
        drawn = history(os.path.join(out_dir, "plots", "history.png"),
                        "Drive history: the compared drives in every indexed run", result["history"])
        if drawn:
            out["_history"] = os.path.relpath(drawn, out_dir)
    return out
