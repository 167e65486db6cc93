# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Acceptance specifications as files: validated before the first write, every refusal naming the file, the
requirement and the value; the shipped examples load. An inline rule as a specification is test__inline.py's, the
drives a specification applies to test__applies.py's."""

from __future__ import annotations

import copy
import os
import re

import pytest
import yaml

from ansible_collections.fleetqual.pts.plugins.plugin_utils._requirements import _spec_file

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
WHERE = "pts_acceptance_specs[0] (specs/acme.yml)"
SPEC = {"name": "ACME PM1 datasheet", "version": "2.1",
        "source": {"document": "ACME PM1 product brief", "section": "4 Performance"},
        "applies_to": {"model": "ACME PM1*", "capacity": "3.84TB", "interface": "nvme"},
        "requirements": [
            {"id": "R-RR4K", "figure": "iops.4k.100/0", "rated": 1000, "unit": "kIOPS", "min_pct_of_rated": 90},
            {"id": "R-SR128K", "figure": "throughput.128k.read", "rated": 7, "unit": "GB/s", "min_pct_of_rated": 95},
            {"id": "R-LAT", "figure": "latency.4k.100/0.read.mean", "limit": 80, "unit": "us", "source": "4.3"},
            {"id": "R-QOS", "figure": "qos.read.qd1.p99.99", "rated": 0.5, "max_pct_of_rated": 120,
             "not_judged": "fail"},
        ]}


def spec_with(path: tuple, value=None, drop: bool = False) -> dict:
    out = copy.deepcopy(SPEC)
    node = out
    for key in path[:-1]:
        node = node[key]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def test_a_datasheet_is_read_into_limits_in_each_figures_own_unit():
    found = _spec_file.validate(SPEC, WHERE)
    limits = {r["id"]: (r["figure"], r["comparison"], r["limit"], r["unit"]) for r in found["requirements"]}
    assert limits == {"R-RR4K": ("iops.4k.100/0", ">=", 900000.0, "IOPS"),
                      "R-SR128K": ("throughput.128k.read", ">=", pytest.approx(6650.0), "MB/s"),
                      "R-LAT": ("latency.4k.100/0.read.mean", "<=", pytest.approx(0.08), "ms"),
                      "R-QOS": ("qos.read.qd1.p99.99", "<=", pytest.approx(0.6), "ms")}
    assert [r["not_judged"] for r in found["requirements"]] == ["incomplete", "incomplete", "incomplete", "fail"]
    assert found["applies_to"]["capacity"] == {"min": pytest.approx(3.7632e12), "max": pytest.approx(3.9168e12),
                                               "class": "3.84TB"}
    assert found["requirements"][2]["source"] == "4.3" and found["file"] == WHERE


@pytest.mark.parametrize("path, value, drop, message", [
    (("name",), None, True, f"{WHERE}: name: required"),
    (("bogus",), 1, False, f"{WHERE}: unknown keys ['bogus']"),
    (("applies_to",), {"firmware": "1.*"}, False, f"{WHERE}: applies_to: needs a model glob"),
    (("applies_to", "capacity"), "big", False, f"{WHERE}: applies_to.capacity='big': must be a capacity"),
    (("requirements",), [], False, f"{WHERE}: requirements must be a non-empty list"),
    (("not_judged",), "pass", False, f"{WHERE}: not_judged='pass': must be one of incomplete, fail"),
    (("requirements", 0, "figure"), "iops.4k.101/0", False,
     f"{WHERE}: requirements[0] (R-RR4K).figure='iops.4k.101/0': the R/W mix 101/0 does not add up to 100 %"),
    (("requirements", 0, "figure"), "iops.4k", False, f"{WHERE}: requirements[0] (R-RR4K).figure='iops.4k': "
                                                      "unknown figure 'iops.4k'"),
    (("requirements", 0, "unit"), "MB/s", False,
     f"{WHERE}: requirements[0] (R-RR4K).unit='MB/s': not a unit of this figure, which is measured in IOPS"),
    (("requirements", 0, "rated"), 1e9, False, f"{WHERE}: requirements[0] (R-RR4K).rated=1000000000.0 kIOPS: "
                                               "1e+12 IOPS is outside 1 to 1e+08 IOPS"),
    (("requirements", 2, "limit"), 0, False, f"{WHERE}: requirements[2] (R-LAT).limit=0 us: 0 ms is outside 0.001 "
                                             "to 3.6e+06 ms"),
    (("requirements", 2, "limit"), "80", False, f"{WHERE}: requirements[2] (R-LAT).limit='80': must be a number"),
    (("requirements", 2, "comparison"), ">=", False, f"{WHERE}: requirements[2] (R-LAT).comparison='>=': "
                                                     "latency.4k.100/0.read.mean is better lower"),
    (("requirements", 2, "rated"), 80, False, f"{WHERE}: requirements[2] (R-LAT): give either limit or rated"),
    (("requirements", 0, "max_pct_of_rated"), 110, False,
     f"{WHERE}: requirements[0] (R-RR4K).max_pct_of_rated: iops.4k.100/0 is better higher: give min_pct_of_rated"),
    (("requirements", 0, "min_pct_of_rated"), 0, False,
     f"{WHERE}: requirements[0] (R-RR4K).min_pct_of_rated=0: must be above 0 and at most 1000 (%)"),
    (("requirements", 1, "id"), "R-RR4K", False, f"{WHERE}: requirements[1]: id 'R-RR4K' is given twice"),
    (("requirements", 1, "id"), "has space", False, f"{WHERE}: requirements[1].id='has space': each requirement "
                                                    "needs an id"),
    (("requirements", 3, "not_judged"), "maybe", False,
     f"{WHERE}: requirements[3] (R-QOS).not_judged='maybe': must be one of incomplete, fail"),
    (("requirements", 3, "title"), "ok\u202eevil", False, "requirements[3] (R-QOS).title"),
])
def test_a_bad_specification_is_refused_naming_file_requirement_and_value(path, value, drop, message):
    with pytest.raises(_spec_file.SpecError, match=re.escape(message)):
        _spec_file.validate(spec_with(path, value, drop), WHERE)


def test_files_are_read_named_by_index_and_path_and_their_digest_recorded(tmp_path):
    good = tmp_path / "good.yml"
    good.write_text(yaml.safe_dump(SPEC))
    bad = tmp_path / "bad.yml"
    bad.write_text("name: [unclosed\n")
    fifo = tmp_path / "fifo.yml"
    os.mkfifo(fifo)  # a FIFO would hang a reader: refused without reading it
    found = _spec_file.load([str(good), dict(SPEC, version="2.2")], str)
    assert [(s["name"], s["version"], s["file"]) for s in found] == [
        ("ACME PM1 datasheet", "2.1", str(good)), ("ACME PM1 datasheet", "2.2", "pts_acceptance_specs[1]")]
    assert len(found[0]["sha256"]) == 64 and found[1]["sha256"] is None
    for entries, message in (
            ([str(bad)], f"pts_acceptance_specs[0] ({bad}): not YAML"),
            ([str(tmp_path / "none.yml")], f"pts_acceptance_specs[0] ({tmp_path / 'none.yml'}): cannot be read"),
            ([str(tmp_path)], f"pts_acceptance_specs[0] ({tmp_path}): not a regular file"),
            ([str(fifo)], f"pts_acceptance_specs[0] ({fifo}): not a regular file"),
            ([str(good), str(good)], "pts_acceptance_specs: ACME PM1 datasheet 2.1 given twice"),
            ("specs.yml", "pts_acceptance_specs='specs.yml': must be a list"),
            ([3], "pts_acceptance_specs[0]=3: must be a file's path or a specification")):
        with pytest.raises(_spec_file.SpecError, match=re.escape(message)):
            _spec_file.load(entries, str)


@pytest.mark.parametrize("name", ["example-datasheet.yml", "qos-template.yml"])
def test_the_shipped_examples_are_valid_and_marked_as_examples(name):
    (found,) = _spec_file.load([os.path.join(ROOT, "playbooks", "specs", name)], str)
    assert found["example"] is True and found["requirements"]
    with open(os.path.join(ROOT, "playbooks", "specs", name), encoding="utf-8") as handle:
        text = handle.read()
    assert "not any vendor's or" in text and ("placeholder" in text.lower())


def test_the_qos_template_is_percentile_by_queue_depth_by_direction():
    (found,) = _spec_file.load([os.path.join(ROOT, "playbooks", "specs", "qos-template.yml")], str)
    figures = {r["figure"] for r in found["requirements"]}
    assert figures == {f"qos.{d}.qd{qd}.p{p}" for d in ("read", "write") for qd in (1, 32)
                       for p in ("99", "99.9", "99.99", "99.999", "99.9999")}
