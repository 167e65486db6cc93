# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/refactor_identity.py: what it holds equal between the checkouts before and after a change, and what it
lets differ (dates, the version, the device's name)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_SPEC = importlib.util.spec_from_file_location("refactor_identity", os.path.join(ROOT, "scripts", "refactor_identity.py"))
refactor_identity = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(refactor_identity)

JOB = "[global]\nfilename=/dev/loop3\nnumjobs=2\n[4k]\nbs=4k\n"


def _tree(top, device="/dev/loop3", numjobs=2, rounds=3, recorded="2026-12-01T20:45:07.215+00:00"):
    drive = top / "run-1" / "host-a" / "d1"
    (drive / "iops").mkdir(parents=True)
    (drive / "drive.json").write_text("{}")
    for number in range(1, rounds + 1):
        (drive / "iops" / f"round-{number:02d}.fio").write_text(
            JOB.replace("/dev/loop3", device).replace("numjobs=2", f"numjobs={numjobs}"))
        (drive / "iops" / f"round-{number:02d}.json").write_text(json.dumps(
            {"settings": {"numjobs": numjobs}, "test": "iops", "segment": "", "row": None, "phase": "round",
             "round": number, "drive": "d1", "host": "host-a", "recorded_at": recorded, "fio": {"iops": number}}))
    return top / "run-1"


def test_the_same_rounds_on_another_device_at_another_time_with_other_figures_and_fewer_rounds_are_the_same(tmp_path):
    one = _tree(tmp_path / "old")
    other = _tree(tmp_path / "new", device="/dev/nvme0n1", rounds=2, recorded="2026-12-02T01:00:00+00:00")
    assert not refactor_identity.compare_rounds(str(one), str(other))


def test_a_changed_setting_is_found_in_the_job_text_and_the_round_file(tmp_path):
    differences = refactor_identity.compare_rounds(str(_tree(tmp_path / "old")),
                                                   str(_tree(tmp_path / "new", numjobs=4)))
    assert differences == [f"host-a/d1: iops/round-0{n}.{kind} differs" for n in (1, 2, 3) for kind in ("fio", "json")]


def test_a_drive_or_a_test_only_one_tree_has_is_found(tmp_path):
    one = _tree(tmp_path / "old")
    other = _tree(tmp_path / "new")
    shutil.copytree(one / "host-a" / "d1" / "iops", one / "host-a" / "d1" / "latency")
    shutil.copytree(other / "host-a" / "d1", other / "host-a" / "d2")
    assert refactor_identity.compare_rounds(str(one), str(other)) == [
        "drive host-a/d2 is in only one tree", "host-a/d1: latency has rounds in only one tree"]


def test_dates_and_versions_are_masked_and_nothing_else():
    text = "Report of 2026-12-01 20:45 UTC by fleetqual.pts 3.0.0, run demo-20261201T204408Z: 4k 71,880 IOPS"
    masked = refactor_identity._masked(text, ("3.0.0",))
    assert masked == "Report of <date> by fleetqual.pts <version>, run demo-<stamp>: 4k 71,880 IOPS"


@pytest.mark.parametrize("name", ["pts_run_window", "pts_run_tests", "pts_run_profile", "pts_run_spec"])
def test_the_plan_matrix_asks_every_option_its_bad_values_and_its_choices(name):
    cases = refactor_identity.plan_cases(ROOT, ROOT)
    options = refactor_identity._options(ROOT)
    labels = {case["label"] for case in cases}
    for profile, spec in (refactor_identity.PROFILES[0], refactor_identity.PROFILES[-1]):
        for value in refactor_identity.BAD_VALUES + list(options[name].get("choices") or []):
            assert f"{profile} {spec} {name}={value!r}" in labels
    assert all(case["devices"] == refactor_identity.DRIVES for case in cases)
