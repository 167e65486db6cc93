# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""A report kind (a test's ``report`` in module_utils/_pts/_tests/): everything the generic report asks of the tests it
draws. Each kind defines its one instance beside its own code; _kinds lists them."""

from __future__ import annotations

from typing import Callable, NamedTuple

# What the plots of a test take when its kind does not say: about an IOPS test's (_split balances these).
PLOT_WEIGHT = 4.0
# The steady-state section's sentence for PTS 2.0's tests, which several kinds share.
PTS2_STEADY_NOTE = (" HIR, CBW and DIRTH judge their preconditioning this way (CBW and DIRTH also their TC × QD loop); "
                    "their other phases, and XSR, run a set number of rounds.")
# The clause that joins write saturation's in that section for the kinds that run a sweep once.
SWEEP_STEADY_CLAUSE = "; the characterisation and HDD tests have none either: each runs its sweep once"


class FleetPanel(NamedTuple):
    """A panel of the fleet's per-model plots and of a comparison's rounds plot: every drive's series under ``key``
    (a kind's ``fleet_series``); ``whole_x``: its x axis counts rounds."""
    key: str
    title: str
    xlabel: str
    ylabel: str
    whole_x: bool = True


class FleetColumn(NamedTuple):
    """A column of fleet.md for one of a kind's tests. ``table``: "pts2" (the PTS 2.0 tests' table, shown when a drive
    ran ``test``) or "drives" (the drives table after the figures, shown when a drive's record has ``test``'s entry:
    ``key``); ``cell(drive, test)``: its Markdown cell from the drive's fleet record; ``note``: what the table's notes
    say of it."""
    table: str
    test: str
    header: str
    cell: Callable
    note: str = ""
    key: str = ""


class ReportKind:
    """A report kind. ``build(test)``: the model of a test's results; ``plots(result, plot_dir, prefix, subtitle)``:
    its figures; ``section(result, plots_rel, number, capacity)``: its Markdown section. ``plot_weight``: how long its
    plots take to draw, relative to other tests' (``plot_weights``: per test, where its tests differ).
    ``steady_rule``: its tests are judged by the steady-state rule the report explains (its section shows when one
    such test ran); ``steady_clause``/``steady_note``: what that section adds when one of its tests ran (a clause to
    write saturation's sentence, a sentence of its own). ``steady_row``: its test summary gives the steady-state
    settings. ``stimulus(settings)``: its test summary's stimulus, where the generic line would mislead.
    ``summary(model, block, wanted)``: its rows (and notes) in the summary page's table of headline figures, beside the
    window averages (``summary_first``) or after them; ``wanted``: the tests the drive ran or was to run.
    ``round_parts(result)``: a test's rounds by the part of it that ran them, [(label, rounds)] (a block size, a phase,
    a group, a wait state); ``parts_per``: what one part is when the parts are alike (throughput's "block size": "6 per
    block size × 5"). ``fio_time(result, io_s, process_s, runs, rest)``: the test's own words for fio's time in its
    rounds, where the generic "start-up and pauses between runs" would mislead (None: the generic words).
    The fleet summary: ``fleet_record(model)``: what a drive's fleet record keeps for the kind's tests (fleet.json; from
    an empty model, the entries of a drive without results); ``fleet_series(tests)``: per ``fleet_panels`` panel, the
    drive's (xs, ys) from its tests' report models (and "hollow": {panel: [x]}, points drawn apart);
    ``fleet_columns``: its FleetColumns."""

    __slots__ = ("name", "build", "plots", "section", "plot_weight", "plot_weights", "steady_rule", "steady_clause",
                 "steady_note", "steady_row", "stimulus", "summary", "summary_first", "round_parts", "parts_per",
                 "fio_time", "fleet_record", "fleet_series", "fleet_panels", "fleet_columns")

    def __init__(self, *, name: str, build: Callable, plots: Callable, section: Callable,
                 plot_weight: float = PLOT_WEIGHT, plot_weights: dict | None = None, steady_rule: bool = False,
                 steady_clause: str = "", steady_note: str = "", steady_row: bool = False,
                 stimulus: Callable | None = None, summary: Callable | None = None, summary_first: bool = False,
                 round_parts: Callable | None = None, parts_per: str = "", fio_time: Callable | None = None,
                 fleet_record: Callable | None = None, fleet_series: Callable | None = None, fleet_panels: tuple = (),
                 fleet_columns: tuple = ()):
        self.name = name
        self.build = build
        self.plots = plots
        self.section = section
        self.plot_weight = plot_weight
        self.plot_weights = dict(plot_weights or {})
        self.steady_rule = steady_rule
        self.steady_clause = steady_clause
        self.steady_note = steady_note
        self.steady_row = steady_row
        self.stimulus = stimulus
        self.summary = summary
        self.summary_first = summary_first
        self.round_parts = round_parts
        self.parts_per = parts_per
        self.fio_time = fio_time
        self.fleet_record = fleet_record or (lambda model: {})
        self.fleet_series = fleet_series or (lambda tests: {})
        self.fleet_panels = tuple(fleet_panels)
        self.fleet_columns = tuple(fleet_columns)

    def weight(self, test: str) -> float:
        """How long one of its tests' plots take to draw, relative to other tests'."""
        return self.plot_weights.get(test, self.plot_weight)

    def parts(self, result: dict) -> list[tuple[str, int]]:
        """A test's rounds by the part of it that ran them; [] for a test of one part."""
        return self.round_parts(result) if self.round_parts else []

    def __repr__(self) -> str:
        return f"ReportKind({self.name!r})"
