# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Note that this plugin util is **PRIVATE** to the collection. It can have breaking changes at any time.
# Do not use this from other collections or standalone plugins!

"""The latency report kind's acceptance figures (one thread at queue depth 1, every R/W mix x block size): window
averages of the mean, the maximum and IOPS, and the percentiles of all the window's IOs with the IOs they count. A
percentile the window cannot resolve (fewer than 10 / (1 - p) IOs: the n/r rule) is not judged. The latency test
computes 50, 99, 99.9, 99.99 and 99.999 %; a deeper one, or one the window cannot hold however fast the drive, is the
QoS measurement's at queue depth 1 (qos.<dir>.qd1.p<pct>), which the plan adds for a 4k random read or write."""

from __future__ import annotations

from ansible_collections.fleetqual.pts.plugins.module_utils._errors import InputError
from ansible_collections.fleetqual.pts.plugins.module_utils._pts import _histogram
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._fio import PERCENTILES
from ansible_collections.fleetqual.pts.plugins.module_utils._pts._tests import qos
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import Figure, measured, mix_words
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import needed_ios, round_files
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._figure import window_stems
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._headline import Headlines
from ansible_collections.fleetqual.pts.plugins.plugin_utils._figures._matrix import matrix_needs, matrix_planned

# The fastest a 4k IO at queue depth 1 completes on any drive known (5 µs: a loop device over memory, a 3D XPoint
# drive): the most IOs a latency window can hold is its rounds' seconds per combination over this. A percentile
# needing more can never be resolved by the latency test, so the plan says so before the first write.
QD1_FLOOR_S = 5e-6
_PLANNED = matrix_planned("latency", "pts_run_latency_block_sizes", "pts_run_latency_mixes")
_NEEDS = matrix_needs("latency", "pts_run_latency_block_sizes", "pts_run_latency_mixes")


def _result(model: dict) -> dict:
    return (model.get("tests") or {}).get("latency") or {}


def _table(table: str, unit: str):
    def value(model: dict, params: dict) -> dict:
        result = _result(model)
        if not result.get("rounds_run"):
            return measured(None, unit, "latency", reason="the latency test did not run")
        name = table.format(**params)
        found = (((result.get("tables") or {}).get(name) or {}).get(params["bs"]) or {}).get(str(params["mix"]))
        files = round_files("latency", "", window_stems(result))
        why = None if found is not None else \
            f"{params['bs']} {params['mix']}/{100 - params['mix']} is not in the latency test's matrix"
        return measured(found, unit, "latency", files, result.get("status"), reason=why)
    return value


def _no_direction(params: dict) -> None:
    if (params["dir"] == "read" and params["mix"] == 0) or (params["dir"] == "write" and params["mix"] == 100):
        raise InputError(f"the R/W mix {params['mix']}/{100 - params['mix']} has no {params['dir']}s")


def _percentile(model: dict, params: dict) -> dict:
    result = _result(model)
    if not result.get("rounds_run"):
        return measured(None, "ms", "latency", reason="the latency test did not run")
    key = f"{params['bs']} {params['mix']}/{100 - params['mix']} {params['dir']}"
    pct, needed = params["pct"], needed_ios(params["pct"])
    value = ((result.get("percentiles_ms") or {}).get(key) or {}).get(pct)
    ios = int((result.get("percentile_ios") or {}).get(key) or 0)
    files = round_files("latency", "", window_stems(result))
    what = f"{params['bs']} {mix_words(params['mix'], params['dir'])}"
    if value is not None:
        return measured(value, "ms", "latency", files, result.get("status"), ios=ios, needed=needed)
    if key not in (result.get("percentiles_ms") or {}):
        why = f"{params['bs']} {params['mix']}/{100 - params['mix']} is not in the latency test's matrix"
    elif not ios:
        why = f"the latency test's window has no {what} IOs"
    elif ios < needed:
        source = (result.get("percentile_source") or {}).get(key)
        counted = "IOs" if source == "histogram" else "IOs (the window's rounds have no histograms; its fewest)"
        why = (f"the latency test's measurement window holds {ios:,} {what} {counted}; p{pct} needs at least "
               f"{needed:,} (10 beyond it) to be resolved")
    else:
        why = f"the latency test's round files have no p{pct} of the {what} IOs"
    return measured(None, "ms", "latency", files, result.get("status"), reason=why, ios=ios, needed=needed)


def _percentile_planned(tests: dict, params: dict, plan: dict) -> str | None:
    why = _PLANNED(tests, params, plan)
    if why:
        return why
    pct = params["pct"]
    if pct not in PERCENTILES:
        return f"the latency test computes the percentiles {', '.join(PERCENTILES)} %, not {pct} %"
    seconds = float(tests["latency"].get("round_seconds") or 0)
    most = int(int(plan.get("window") or 5) * seconds / QD1_FLOOR_S)
    if needed_ios(pct) > most:
        return (f"p{pct} needs {needed_ios(pct):,} IOs; the latency test's window of {plan.get('window')} rounds of "
                f"{seconds:g} s per combination holds at most {most:,} at queue depth 1 (one IO every "
                f"{QD1_FLOOR_S * 1e6:g} µs, faster than any drive)")
    return None


def _stand_in(params: dict) -> str | None:
    """The QoS measurement's figure of the same IOs: a 4k random read (100/0) or write (0/100) at queue depth 1."""
    if params["bs"] == "4k" and (params["mix"], params["dir"]) in ((100, "read"), (0, "write")):
        return f"qos.{params['dir']}.qd1.p{params['pct']}"
    return None


def _five_nines(model: dict, params: dict) -> dict:
    result = _result(model)
    if not result.get("rounds_run"):
        return measured(None, "ms", "latency", reason="the latency test did not run")
    tables = result.get("tables") or {}
    value = ((tables.get("p99999_ms") or {}).get(params["bs"]) or {}).get(str(params["mix"]))
    ios = int(((tables.get("p99999_ios") or {}).get(params["bs"]) or {}).get(str(params["mix"])) or 0)
    needed = needed_ios("99.999")
    files = round_files("latency", "", window_stems(result))
    why = None if value is not None else (
        f"the latency test's measurement window holds {ios:,} {params['bs']} {mix_words(params['mix'])} IOs; "
        f"p99.999 needs at least {needed:,} (10 beyond it) to be resolved")
    return measured(value, "ms", "latency", files, result.get("status"), reason=why, ios=ios, needed=needed)


_MATRIX = "Latency test (1 thread, queue depth 1): "
FIGURES = (
    Figure("latency.<bs>.<mix>.mean", unit="ms", direction="lower", test="latency",
           what=_MATRIX + "the measurement window's average mean latency of one block size and R/W mix (all its IOs)",
           example="latency.4k.0/100.mean", value=_table("mean_ms", "ms"), planned=_PLANNED, needs=_NEEDS),
    Figure("latency.<bs>.<mix>.max", unit="ms", direction="lower", test="latency",
           what=_MATRIX + "the slowest IO of the measurement window (PTS 2.0's MRT)", example="latency.4k.100/0.max",
           value=_table("max_ms", "ms"), planned=_PLANNED, needs=_NEEDS),
    Figure("latency.<bs>.<mix>.iops", unit="IOPS", direction="higher", test="latency",
           what=_MATRIX + "the measurement window's average IOPS (PTS 2.0's latency table)",
           example="latency.4k.100/0.iops", value=_table("iops", "IOPS"), planned=_PLANNED, needs=_NEEDS),
    Figure("latency.<bs>.<mix>.<dir>.mean", unit="ms", direction="lower", test="latency",
           what=_MATRIX + "the window's average mean latency of one direction of a mix (a datasheet's typical "
                          "read or write latency at QD1)",
           example="latency.4k.100/0.read.mean", value=_table("{dir}_mean_ms", "ms"), planned=_PLANNED,
           needs=_NEEDS, check=_no_direction),
    Figure("latency.<bs>.<mix>.<dir>.p<pct>", unit="ms", direction="lower", test="latency",
           what=_MATRIX + "a percentile of all the window's IOs of one direction, from fio's merged histograms, "
                          "with the IOs it counts; not judged when they do not resolve it (n/r). Beyond the test's "
                          "percentiles or its window's IOs: QoS at queue depth 1 for a 4k random read or write",
           example="latency.4k.0/100.write.p99.99", value=_percentile, planned=_percentile_planned, needs=_NEEDS,
           allowed={"pct": tuple(dict.fromkeys(PERCENTILES + qos.PERCENTILES))}, stand_in=_stand_in,
           check=_no_direction),
    Figure("latency.<bs>.<mix>.p<pct>", unit="ms", direction="lower", test="latency",
           what=_MATRIX + "PTS 2.0's 5 nines: the 99.999 % of all the window's IOs of a mix (reads and writes "
                          "together), with the IOs it counts; not judged when they do not resolve it (n/r)",
           example="latency.4k.65/35.p99.999", value=_five_nines, planned=_percentile_planned, needs=_NEEDS,
           allowed={"pct": ("99.999",)}),
)


# The window's p99.99 is of all its IOs: the rounds' fio latency histograms (json+) merged. Too few IOs to resolve it
# (fewer than 10 / (1 - p)) leave it unjudged, never a number.
P9999_NOTE = "99.99 % of all the measurement window's 4k random writes, from fio's merged latency histograms (json+)"
P9999_KEY = "4k 0/100 write"


def _headline_values(tests: dict) -> dict:
    latency = tests.get("latency") or {}
    return {"latency_4k_write_mean_ms": ((latency.get("tables") or {}).get("mean_ms") or {}).get("4k", {}).get("0"),
            "latency_4k_write_p9999_ms": ((latency.get("percentiles_ms") or {}).get(P9999_KEY) or {}).get("99.99")}


def _headline_unresolved(tests: dict, found: dict) -> dict:
    """The p99.99 when the window's IOs do not resolve it: why, the IOs it has and those it needs."""
    latency = tests.get("latency") or {}
    if not latency.get("rounds_run") or found["latency_4k_write_p9999_ms"] is not None:
        return {}
    ios = int((latency.get("percentile_ios") or {}).get(P9999_KEY) or 0)
    source = (latency.get("percentile_source") or {}).get(P9999_KEY)
    needed = _histogram.needed("99.99")
    if not ios:
        why = "the latency test's window has no 4k random write IOs"
    elif ios < needed:
        what = "IOs" if source == "histogram" else "IOs (the window's rounds have no histograms; its fewest)"
        why = (f"the latency test's measurement window holds {ios:,} 4k random write {what}; p99.99 needs at "
               f"least {needed:,} (10 beyond it) to be resolved")
    else:
        why = "the latency test's round files have no p99.99 of the 4k random writes"
    return {"latency_4k_write_p9999_ms": {"reason": why, "ios": ios, "needed": needed}}


def _headline_details(tests: dict) -> dict:
    ios = ((tests.get("latency") or {}).get("percentile_ios") or {}).get(P9999_KEY)
    return {} if ios is None else {"latency_4k_write_p9999_ms": {"ios": ios}}


HEADLINES = (Headlines(figures={
    "latency_4k_write_mean_ms": {"label": "4k random write mean latency", "short": "4k write mean lat. ms",
                                 "unit": "ms", "digits": 3, "test": "latency"},
    "latency_4k_write_p9999_ms": {"label": "4k random write p99.99 latency", "short": "4k write p99.99 ms *",
                                  "unit": "ms", "digits": 3, "test": "latency", "note": P9999_NOTE},
}, values=_headline_values, unresolved=_headline_unresolved, details=_headline_details),)
