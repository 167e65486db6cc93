# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A report kind's headline figures: each kind answers for its own tests alone, and a kind's headlines the catalogue
lists reach the drive's headline block without a line of _headline_figures naming them."""

from __future__ import annotations

import importlib

import pytest

from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests._registry import BY_NAME
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _headline_figures
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures import _catalogue
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._headline import Headlines


@pytest.mark.parametrize("headlines", _catalogue.HEADLINES, ids=lambda h: next(iter(h.figures)))
def test_each_kinds_headlines_are_its_own_tests_and_answer_for_a_drive_that_ran_nothing(headlines):
    assert len({BY_NAME[spec["test"]].report for spec in headlines.figures.values()}) == 1
    assert set(headlines.values({})) == set(headlines.figures)
    assert all(value is None for value in headlines.values({}).values())
    assert headlines.unresolved({}, dict.fromkeys(headlines.figures)) == {}
    assert headlines.details({}) == {}


@pytest.fixture
def toy(monkeypatch):
    """A kind's headline figure, listed in the catalogue for one test only."""
    toy = Headlines(figures={"toy_speed": {"label": "toy speed", "short": "toy", "unit": "IOPS", "digits": 0,
                                           "test": "toy"}},
                    values=lambda tests: {"toy_speed": (tests.get("toy") or {}).get("speed")},
                    unresolved=lambda tests, found: {} if found["toy_speed"] else {"toy_speed": {"reason": "slow"}},
                    details=lambda tests: {"toy_speed": {"laps": 3}}, final_states=("complete",))
    monkeypatch.setattr(_catalogue, "HEADLINES", _catalogue.HEADLINES + (toy,))
    yield importlib.reload(_headline_figures)
    monkeypatch.undo()
    importlib.reload(_headline_figures)


def test_a_kinds_headline_reaches_the_block_without_naming_it(toy):
    model = {"tests": {"toy": {"status": "complete", "speed": 7}}}
    assert toy.HEADLINES[-1] == "toy_speed" and toy.values(model)["toy_speed"] == 7
    assert toy.states(model)["toy_speed"] == "complete" and toy.steady(model)["toy_speed"]
    assert toy.block(model)["toy_speed"] == {"value": 7, "unit": "IOPS", "state": "complete", "steady": True,
                                             "what": "toy speed", "laps": 3}
    assert toy.unresolved({"tests": {"toy": {"status": "failed"}}})["toy_speed"] == {"reason": "slow"}
    assert not toy.steady({"tests": {"toy": {"status": "failed"}}})["toy_speed"]


def test_the_catalogue_is_the_headline_figures_own_after_a_kind_is_gone():
    assert "toy_speed" not in _headline_figures.FIGURES
    assert tuple(_headline_figures.FIGURES) == tuple(f for h in _catalogue.HEADLINES for f in h.figures)
