# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The population read by rank (sql.StoredPopulation: only the ranks, counts and deviations the statistics need)
gives every figure the drive report showed when it read every earlier value: the same block, to the last bit, as the
reference (_population_reference, the lookup as it was) on randomized histories - ties, a zero median, quick-profile
runs, other firmware and none, unsteady windows, runs without a start time, the drive's own run left out."""

from __future__ import annotations

import os
import random

import pytest

from ansible_collections.fleetqual.pts.plugins.plugin_utils._history import _population
from ansible_collections.fleetqual.pts.plugins.plugin_utils._history._sqlite_store import SqliteStore
from ansible_collections.fleetqual.pts.tests.unit.plugins.plugin_utils._history._population_reference import (
    FIGURES, both, history, lookups)


@pytest.mark.parametrize("seed", [1, 2, 3, 39])
def test_the_lookup_by_rank_equals_the_lookup_of_every_value(tmp_path, seed):
    rng = random.Random(seed)
    prepared = history(rng)
    path = os.path.join(str(tmp_path), "pts-history.sqlite")
    with SqliteStore(path) as store:
        store.write_runs(prepared)
    sizes = set()
    with SqliteStore(path, readonly=True) as store:
        for lookup in lookups(rng, prepared, 60):
            new, old = both(store, lookup)
            assert new == old, lookup
            sizes |= {entry["n"] for entry in new["figures"].values()}
    # The histories hold populations of every kind the statistics branch on: none, an even and an odd size.
    assert 0 in sizes
    assert any(n > 1 and n % 2 == 0 for n in sizes) and any(n > 1 and n % 2 == 1 for n in sizes)


def test_a_population_by_rank_answers_as_the_sorted_list(tmp_path):
    """Every rank from either end, every position and every deviation rank of one population with ties."""
    rng = random.Random(7)
    prepared = history(rng, runs=80)
    path = os.path.join(str(tmp_path), "pts-history.sqlite")
    with SqliteStore(path) as store:
        store.write_runs(prepared)
    with SqliteStore(path, readonly=True) as store, store.reading():
        for figure in FIGURES:
            listed = store.population("ACME X1", "1.0", False, [figure], "run-new", None)["values"][figure]
            ranked = store.population_ranks("ACME X1", "1.0", False, {figure: listed[len(listed) // 2]}, "run-new",
                                            None)["values"][figure]
            assert ranked.n == len(listed) > 20
            assert [ranked.at(r) for r in range(ranked.n)] == listed
            plain = _population.Sorted(listed)
            for value in listed[::5] + [-1.0, 1e9]:
                assert ranked.position(value) == plain.position(value)
            centre = _population.statistics_of(listed)["median"]
            assert [ranked.deviation_at(centre, r) for r in range(ranked.n)] == sorted(abs(v - centre) for v in listed)
            with pytest.raises(IndexError):
                ranked.at(ranked.n)
