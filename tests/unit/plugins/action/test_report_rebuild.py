# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A drive's report waits for a report slot, says so naming the drive, and is drawn once one is free."""

from __future__ import annotations

import os
import threading

from ansible_collections.fleetqual.pts.plugins.action import report_rebuild
from ansible_collections.fleetqual.pts.plugins.plugin_utils import _report_slots
from ansible_collections.fleetqual.pts.plugins.plugin_utils._report import _drive_report


def _slots(tmp_path, count: int) -> _report_slots.Slots:
    os.chmod(tmp_path, 0o700)
    return _report_slots.Slots(count, str(tmp_path / "slots"))


def test_a_report_waits_for_a_slot_and_says_so(tmp_path, monkeypatch):
    slots = _slots(tmp_path, 1)
    busy = slots.try_take()
    said, drawn = [], []
    monkeypatch.setattr(report_rebuild.display, "display", said.append)

    def draw(drive_dir, formats, history, extra_core):
        drawn.append((drive_dir, formats, slots.try_take()))  # the report's own slot is held while it is drawn
        return {"report": "r"}
    monkeypatch.setattr(_drive_report, "draw", draw)
    timer = threading.Timer(0.6, busy.release)
    timer.start()
    try:
        assert report_rebuild._draw("/d", ("html",), None, slots, "PTS report h\x1b[2J d0") == {"report": "r"}
    finally:
        timer.cancel()
    assert said[0] == "PTS report h d0: waiting for a report slot (1 drawn at once on this controller, " \
                      "pts_report_concurrency)"  # the terminal escape taken out
    assert said[1].startswith("PTS report h d0: drawing, after ")
    assert drawn == [("/d", ("html",), None)]
    again = slots.try_take()  # released once drawn
    assert again is not None
    again.release()


def test_a_free_slot_is_taken_silently_and_a_failure_releases_it(tmp_path, monkeypatch):
    slots = _slots(tmp_path, 2)
    said = []
    monkeypatch.setattr(report_rebuild.display, "display", said.append)

    def draw(drive_dir, formats, history, extra_core):
        extra = extra_core()  # the plots' second core: the other slot is free
        assert extra is not None
        extra.release()
        raise ValueError("bad drive.json")
    monkeypatch.setattr(_drive_report, "draw", draw)
    try:
        report_rebuild._draw("/d", None, None, slots, "PTS report h d0")
    except ValueError as exc:
        assert str(exc) == "bad drive.json"
    else:
        raise AssertionError("the failure was not raised")
    assert not said
    held = [slots.try_take(), slots.try_take()]
    assert all(held)
    for one in held:
        one.release()


def test_slots_that_cannot_be_used_draw_the_report_anyway_with_a_warning(tmp_path, monkeypatch):
    os.chmod(tmp_path, 0o700)
    (tmp_path / "slots").mkdir(mode=0o777)
    os.chmod(tmp_path / "slots", 0o777)
    warned = []
    monkeypatch.setattr(report_rebuild.display, "warning", warned.append)
    monkeypatch.setattr(_drive_report, "draw", lambda drive_dir, formats, history, extra_core: {"extra": extra_core})
    found = report_rebuild._draw("/d", None, None, _report_slots.Slots(1, str(tmp_path / "slots")), "PTS report h d0")
    assert found == {"extra": None}
    assert len(warned) == 1 and warned[0].startswith("PTS report h d0: drawn without waiting for a report slot: ")
